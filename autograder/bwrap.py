"""bubblewrap, the grading sandbox's engine: its namespaces, its trial, and what a failure
means on each platform.

Shared by the sandbox (``sandbox.py``, which runs the trial before the first kernel and
raises with the diagnosis) and the doctor (``doctor.py``, which reports it with the other
checks); neither imports the other for it.

>>> trial_command("/usr/bin/bwrap")[:2]
['/usr/bin/bwrap', '--unshare-pid']
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

USERNS_DENIED = "No permissions to creat"  # bwrap <= 0.11.0 "creating new", 0.11.1 "create a new"
APPARMOR_SIGNS = ("setting up uid map", "setting up gid map", "loopback: Failed RTM_NEW",
                  "Permission denied")
INSTALL_HINT = (
    "the grading sandbox needs bubblewrap (the `bwrap` command): install it with "
    "`sudo apt-get install bubblewrap` (Debian, Ubuntu) or `sudo dnf install bubblewrap` "
    "(Fedora), then grade again. Without it, student code would run with your rights "
    "and see the whole course directory; if you accept that (your own test "
    "submissions only), pass --unsafe to autograder/grade.py "
    "(--SandboxedKernelManager.unsafe=True to nbgrader), which the report records."
)


@dataclass(frozen=True)
class Platform:
    """What the machine says of itself; ``None``: the file is not there."""

    euid: int
    apparmor_userns: str | None  # /proc/sys/kernel/apparmor_restrict_unprivileged_userns
    userns_clone: str | None     # /proc/sys/kernel/unprivileged_userns_clone (Debian)
    max_userns: str | None       # /proc/sys/user/max_user_namespaces
    container: str | None        # "docker", "podman", "container" (a cgroup says so) or None
    kubernetes: bool


@dataclass(frozen=True)
class Diagnosis:
    cause: str        # ubuntu-apparmor, debian-sysctl, max-userns, kubernetes, docker, ...
    explanation: str
    fix: str


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None



def platform_facts(root: str | Path = "/", environ: Mapping[str, str] | None = None,
                   euid: int | None = None) -> Platform:
    """The facts under ``root`` (``root/proc``, ``root/.dockerenv``...) and ``environ``."""
    r, env = Path(root), os.environ if environ is None else environ
    cgroup = _read(r / "proc/1/cgroup") or ""
    kube = bool(env.get("KUBERNETES_SERVICE_HOST")) or "kubepods" in cgroup
    if (r / "run/.containerenv").exists():
        container = "podman"
    elif (r / ".dockerenv").exists() or "docker" in cgroup:
        container = "docker"
    else:
        container = "container" if kube or "containerd" in cgroup or "lxc" in cgroup else None
    return Platform(os.geteuid() if euid is None else euid,
                    _read(r / "proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
                    _read(r / "proc/sys/kernel/unprivileged_userns_clone"),
                    _read(r / "proc/sys/user/max_user_namespaces"), container, kube)


def trial_command(bwrap: str) -> list[str]:
    """The sandbox's trial: its namespaces (and, as root, its capabilities), a new /proc."""
    caps = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [bwrap, *namespace_args(), *(caps if os.geteuid() == 0 else []), "--ro-bind", "/", "/",
            "--proc", "/proc", "--dev", "/dev", "--", "true"]


@lru_cache(maxsize=None)
def bwrap_has_size(bwrap: str) -> bool:
    """bubblewrap 0.8 and later can cap a tmpfs (``--size``)."""
    return "--size" in subprocess.run([bwrap, "--help"], capture_output=True, text=True).stdout


def namespace_args() -> list[str]:
    """The sandbox's own namespaces; a user namespace too unless root (who needs none)."""
    args = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "grading"]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    return args


# --- what a failure means, platform by platform ---------------------------------------
APPARMOR_PROFILE = """abi <abi/4.0>,
include <tunables/global>

profile bwrap {bwrap} flags=(unconfined) {{
  userns,

  # Site-specific additions and overrides. See local/README for details.
  include if exists <local/bwrap>
}}"""

POD_SECURITY = """spec:
  hostUsers: false                 # the pod's own user namespace (needed by procMount: Unmasked)
  securityContext:
    runAsUser: 1000                # not 0: bubblewrap then makes its own user namespace
    runAsGroup: 1000
    seccompProfile: {type: Unconfined}
    appArmorProfile: {type: Unconfined}
  containers:
    - name: grade
      securityContext:
        procMount: Unmasked        # a /proc without masked paths: a new /proc may be mounted"""


def _indent(text: str) -> str:
    return "\n".join("  " + line if line else "" for line in text.splitlines())


def _ubuntu(bwrap: str) -> Diagnosis:
    return Diagnosis(
        "ubuntu-apparmor",
        "Ubuntu (23.10 and later; 24.04) restricts unprivileged user namespaces with AppArmor "
        "(kernel.apparmor_restrict_unprivileged_userns = 1) to programs whose profile allows "
        "them, and bubblewrap has no such profile before Ubuntu 25.04 (bubblewrap issue 632).",
        "give bwrap an AppArmor profile: write the file /etc/apparmor.d/bwrap (`sudoedit "
        "/etc/apparmor.d/bwrap`) with\n" + _indent(APPARMOR_PROFILE.format(bwrap=bwrap))
        + "\nthen load it:\n  sudo apparmor_parser -r /etc/apparmor.d/bwrap\n"
        "(or Ubuntu's own profile: `sudo apt-get install apparmor-profiles`, copy "
        "/usr/share/apparmor/extra-profiles/bwrap-userns-restrict to /etc/apparmor.d/ and "
        "`sudo apparmor_parser -r` it; or grade as root, which needs no user namespace)")


def _sysctl(name: str, value: str, why: str) -> Diagnosis:
    return Diagnosis(
        "debian-sysctl" if "clone" in name else "max-userns", why,
        f"enable them, now and at boot:\n  sudo sysctl -w {name}={value}\n"
        f"  echo '{name} = {value}' | sudo tee /etc/sysctl.d/90-bubblewrap.conf\n"
        "(or grade as root, which needs no user namespace)")


def _kubernetes(stderr: str) -> Diagnosis:
    why = ("the pod's /proc has masked paths (procMount: Default), and the kernel then refuses "
           "a new /proc in the sandbox's namespaces" if "Can't mount proc" in stderr else
           "the pod's seccomp profile (RuntimeDefault) and capabilities forbid the namespaces "
           "bubblewrap makes")
    return Diagnosis(
        "kubernetes", f"This is a Kubernetes pod: {why}.",
        "let the pod nest a sandbox (Kubernetes 1.33+ with user namespaces; every volume "
        f"on a file system with idmapped mounts):\n{_indent(POD_SECURITY)}\n"
        "or, if your cluster cannot do that: `securityContext: {privileged: true}` on the "
        "container, at a cost: the pod is then root on its node (no seccomp, no AppArmor, all "
        "capabilities); use only nodes that hold nothing else. autograder/README.md, "
        "\"Kubernetes\", has the whole Job.")


def _container(facts: Platform) -> Diagnosis:
    engine = "podman" if facts.container == "podman" else "docker"
    unmask = "unmask=ALL" if engine == "podman" else "systempaths=unconfined"
    if facts.euid == 0:
        flags = "--cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined"
        why = ("as root in a container, bubblewrap needs CAP_SYS_ADMIN, which the container "
               "drops, and the default seccomp and AppArmor profiles forbid its namespaces "
               "and mounts")
    else:
        flags = (f"--security-opt seccomp=unconfined --security-opt apparmor=unconfined "
                 f"--security-opt {unmask}")
        why = ("the default seccomp profile forbids new user namespaces (moby issue 42441), "
               "AppArmor forbids mounts, and masked /proc paths forbid a new /proc")
    note = (" The host also restricts user namespaces with AppArmor: load the bwrap profile "
            "there (see the Ubuntu case) or grade as root." if facts.apparmor_userns == "1" else "")
    return Diagnosis(
        engine, f"This is a {facts.container} container: {why}.{note}",
        f"start the grading container with\n  {engine} run {flags} ...\n"
        + (f"  ({engine} on SELinux hosts: also --security-opt label=disable)\n" if engine == "podman" else "")
        + f"or, as a last resort, `{engine} run --privileged`, at a cost: all capabilities and "
        "devices, no seccomp or AppArmor, root in the container is root on the host. Use a "
        "container that holds nothing but the grading.")


def diagnose(stderr: str, facts: Platform, bwrap: str = "/usr/bin/bwrap") -> Diagnosis:
    """The one cause (and fix) of bubblewrap's failure ``stderr`` on this platform."""
    ordinary = facts.euid != 0
    if ordinary and facts.userns_clone == "0":
        return _sysctl("kernel.unprivileged_userns_clone", "1",
                       "Unprivileged user namespaces are off (kernel.unprivileged_userns_clone = 0; "
                       "Debian before 11 and some hardened kernels).")
    if ordinary and (facts.max_userns == "0" or "max_*_namespaces exceeded" in stderr):
        return _sysctl("user.max_user_namespaces", "15000",
                       f"User namespaces are off or used up (user.max_user_namespaces = {facts.max_userns}).")
    if facts.kubernetes or facts.container:
        return _kubernetes(stderr) if facts.kubernetes else _container(facts)
    if ordinary and facts.apparmor_userns == "1" and (
            USERNS_DENIED in stderr or any(s in stderr for s in APPARMOR_SIGNS)):
        return _ubuntu(bwrap)
    why = ("Something on this machine forbids unprivileged user namespaces (a sysctl, a seccomp "
           "filter, a security module)." if USERNS_DENIED in stderr else
           "bubblewrap's error matches no known platform.")
    return Diagnosis("unknown", why, "grade as root, or run the trial yourself and look at the first "
                     f"error:\n  {' '.join(trial_command(bwrap))}")
