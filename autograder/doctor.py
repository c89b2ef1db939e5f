"""Can this machine grade in the sandbox? If not, why, and what to do about it.

    python autograder/doctor.py [--exchange-root DIR] [--json]     (or python autograder/sandbox.py)

One line per check (ok, warn, FAIL), each problem followed by its fix; exit status 1 when
grading cannot run sandboxed (a FAIL). The bubblewrap check runs the sandbox's trial
(:func:`trial_command`: its namespaces and a new /proc, which a default pod refuses) and
reads bubblewrap's error with what the platform says of itself (:class:`Platform`) to name
one cause and its fix (:func:`diagnose`). autograder/README.md, "What the doctor checks",
has each platform's error, its source and its fix.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping

COURSE = Path(__file__).resolve().parent.parent
DEFAULT_EXCHANGE = "/srv/nbgrader/exchange"  # nbgrader's Exchange.root when not configured
USERNS_DENIED = "No permissions to creat"  # bwrap <= 0.11.0 "creating new", 0.11.1 "create a new"
APPARMOR_SIGNS = ("setting up uid map", "setting up gid map", "loopback: Failed RTM_NEW",
                  "Permission denied")


@dataclass
class Check:
    """What was ``seen``; the ``fix`` when not ``ok``. ``severity`` FAIL: grading cannot run
    sandboxed; warn: it can, but something is unsafe or weaker than it should be."""

    name: str
    ok: bool
    seen: str
    fix: str = ""
    severity: str = "FAIL"

    @property
    def label(self) -> str:
        return "ok" if self.ok else self.severity


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


def _run(cmd: list[str], **kw) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``cmd``; -1 and the error if it cannot run."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
        return proc.returncode, proc.stdout.strip(), proc.stderr.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", str(e)


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
    from sandbox import namespace_args

    caps = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [bwrap, *namespace_args(), *(caps if os.geteuid() == 0 else []), "--ro-bind", "/", "/",
            "--proc", "/proc", "--dev", "/dev", "--", "true"]


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


def check_bwrap(bwrap: str = "bwrap", root: str | Path = "/",
                environ: Mapping[str, str] | None = None, euid: int | None = None) -> Check:
    from sandbox import INSTALL_HINT, bwrap_has_size

    path = shutil.which(bwrap)
    if path is None:
        return Check("bubblewrap", False, f"no `{bwrap}` on PATH", INSTALL_HINT)
    rc, _, err = _run(trial_command(path))
    if rc != 0:
        d = diagnose(err, platform_facts(root, environ, euid), path)
        return Check("bubblewrap", False, f"{path} cannot make a sandbox: {err or f'exit {rc}'} "
                     f"[{d.cause}] {d.explanation}", d.fix)
    if not bwrap_has_size(path):
        return Check("bubblewrap", False, f"{path} works but is older than 0.8: /tmp and "
                     "/home/student have no size cap", "install bubblewrap 0.8 or later", "warn")
    return Check("bubblewrap", True, f"{path} makes the grading sandbox (namespaces, a new /proc)")


# --- the course's environment ---------------------------------------------------------
def check_kernel_venv(root: Path) -> Check:
    python = root / ".venv/kernel/bin/python"
    code = ("import importlib.util as u; import ipykernel; "
            "print('tokref' if u.find_spec('tokref') else 'clean')")
    _, out, err = _run([str(python), "-I", "-c", code], cwd="/")
    if out == "clean":
        return Check("kernel venv", True, f"{python} runs, has ipykernel, not tokref")
    if out == "tokref":
        return Check("kernel venv", False, f"{python} can import tokref: the reference would be "
                     "in every student's sandbox", f"{python} -m pip uninstall -y tokref")
    return Check("kernel venv", False, f"{python} does not run with ipykernel: {err[-300:]}",
                 f"cd {root} && make setup   (makes .venv/kernel from autograder/kernel-requirements.txt)")


CONFIG_PROBE = r"""
import json, sys
from traitlets.config.loader import PyFileConfigLoader
out = {}
try:
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import ConfigFileNotFound
    # As nbgrader reads it: every Jupyter config directory (~/.jupyter, JUPYTER_CONFIG_PATH,
    # /etc/jupyter, ...; the first wins), then the course's own file, which wins over all.
    cfg = Config()
    for d in [*reversed(jupyter_config_path()), sys.argv[1]]:
        try:
            cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=d).load_config())
        except ConfigFileNotFound:
            if d == sys.argv[1]:
                raise
    pps = cfg.Autograde.get("autograde_preprocessors") or []
    out["pipeline"] = [{"name": getattr(p, "__name__", str(p)), "reason": getattr(p, "reason", None),
                        "kernel_manager": getattr(p(config=cfg).kernel_manager_class, "__name__", "")
                        if getattr(p, "__name__", "") == "ExecuteAndReport" else None} for p in pps]
    out["unsafe"] = bool(cfg.SandboxedKernelManager.get("unsafe", False))
    out["exchange_root"] = cfg.Exchange.get("root")
    out["course_id"] = cfg.CourseDirectory.get("course_id", "")
except BaseException as e:
    out["error"] = f"{type(e).__name__}: {e}"
print(json.dumps(out, default=str))
"""


def load_course_config(root: Path) -> dict:
    """What nbgrader would read from ``root/nbgrader_config.py`` (traitlets'
    ``PyFileConfigLoader``), in the course's Python (``root/.venv/bin/python``)."""
    python = root / ".venv/bin/python"
    python = python if python.exists() else Path(sys.executable)
    _, out, err = _run([str(python), "-c", CONFIG_PROBE, str(root)], cwd=root)
    try:
        return json.loads(out.splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"the config probe did not run ({err[-300:]})"}


def check_config(root: Path, cfg: dict) -> Check:
    fix = (f"run nbgrader and grade.py from {root / '.venv'} (`make setup` makes it; "
           f"`pip install -r {root / 'requirements.txt'}` there), and make nbgrader_config.py load")
    if "error" in cfg:
        return Check("course config", False, f"nbgrader_config.py raises {cfg['error']}: nbgrader "
                     "would log it and grade with its defaults, unsandboxed", fix)
    names = [p["name"] for p in cfg.get("pipeline", [])]
    refusal = next((p for p in cfg["pipeline"] if p["name"] == "RefuseToGrade"), None)
    if refusal:
        return Check("course config", False, f"nbgrader_config.py refuses to grade: {refusal['reason']}", fix)
    execute = next((p for p in cfg["pipeline"] if p["name"] == "ExecuteAndReport"), None)
    if execute is None or execute["kernel_manager"] != "SandboxedKernelManager":
        return Check("course config", False, f"the autograde pipeline is {names or 'nbgrader default'}: "
                     "not the sandboxed ExecuteAndReport", fix)
    if cfg.get("unsafe"):
        return Check("course config", False, "nbgrader_config.py sets SandboxedKernelManager.unsafe "
                     "= True: every submission runs unsandboxed", "remove that line")
    return Check("course config", True, "autograding runs ExecuteAndReport in SandboxedKernelManager")


def check_cgroups() -> Check:
    try:
        import cgroups
        m = cgroups.find_mechanism()
    except Exception as e:  # noqa: BLE001  the check must report, not crash
        return Check("submission cap", False, f"cgroups.find_mechanism() failed: {e}", "see autograder/cgroups.py", "warn")
    if m.name == "none":
        return Check("submission cap", False, m.detail, "see above (the per-process limits still hold)", "warn")
    return Check("submission cap", True, f"{m.name}: {m.detail}")


# --- permissions ----------------------------------------------------------------------
def _mode(path: Path) -> int:
    return path.lstat().st_mode & 0o7777


def _user(uid: int) -> str:
    import pwd

    return next((u.pw_name for u in pwd.getpwall() if u.pw_uid == uid), str(uid))


def check_course_permissions(root: Path) -> list[Check]:
    if not _mode(root) & 0o007:  # nobody else can enter it: nothing inside is reachable
        return [Check("course permissions", True, f"{root} is {oct(_mode(root))}: private, and "
                      "so are source/, solutions/ and gradebook.db inside it")]
    open_ = [p for p in (root, root / "gradebook.db") if p.exists() and _mode(p) & 0o006]
    for top in ("source", "solutions"):
        if (root / top).is_dir():
            found = [p for p in [root / top, *(root / top).rglob("*")] if not p.is_symlink() and _mode(p) & 0o006]
            open_ += found[:1]  # the top offender of each tree; the fix is recursive
    checks = [Check("course permissions", True, f"{root}, source/, solutions/, gradebook.db: no access for others")]
    if open_:
        checks[0] = Check("course permissions", False, "readable or writable by others: "
                          + ", ".join(f"{p} ({oct(_mode(p))})" for p in open_),
                          f"chmod o-rwx {root} && chmod -R o-rwx {root / 'source'} {root / 'solutions'} "
                          f"{root / 'gradebook.db'}   (the hidden tests and solutions are there)", "warn")
    sub = root / "submitted"
    writable = [p for p in sub.glob("*/*") if not p.is_symlink() and _mode(p) & 0o002] if sub.is_dir() else []
    if writable:
        checks.append(Check("submissions", False, f"{len(writable)} submission(s) writable by others, "
                            f"e.g. {writable[0]}", f"chmod -R o-w {sub}", "warn"))
    return checks


def not_owned(root: Path, uid: int) -> list[str]:
    """The course's top-level entries (but .git) that hold anything ``uid`` does not own."""
    out = []
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if entry.name == ".git":
            continue
        other = entry.lstat().st_uid != uid
        if not other and entry.is_dir() and not entry.is_symlink():
            for d, dirs, files in os.walk(entry):
                if any(os.lstat(os.path.join(d, n)).st_uid != uid for n in dirs + files):
                    other = True
                    break
        if other:
            out.append(entry.name)
    return out


def check_root_owned(root: Path) -> Check:
    """Files of root in a course that someone else owns (a grading run with sudo): the
    owner's next nbgrader run cannot replace them."""
    st = root.stat()
    if st.st_uid == 0:
        return Check("file owners", True, f"{root} is root's")
    found = not_owned(root, st.st_uid)
    if not found:
        return Check("file owners", True, f"everything in {root} is {_user(st.st_uid)}'s")
    return Check("file owners", False, f"{', '.join(found)} hold files that are not "
                 f"{_user(st.st_uid)}'s, in their course",
                 f"cd {root} && sudo chown -R {st.st_uid}:{st.st_gid} {' '.join(found)}", "warn")


def check_exchange(exchange: Path, course_id: str, instructor: int, explicit: bool) -> list[Check]:
    if not exchange.is_dir():
        return [Check("exchange", not explicit, f"no exchange at {exchange}" + ("" if explicit else " (not used)"),
                      f"sudo mkdir -p {exchange} && sudo chmod 1777 {exchange}", "warn")]
    mode, checks = _mode(exchange), []
    if mode & 0o1777 != 0o1777:
        checks.append(Check("exchange", False, f"{exchange} is {oct(mode)}, not 1777: without the sticky "
                            "bit a student can rename or replace the course's directory in it",
                            f"sudo chmod 1777 {exchange}", "warn"))
    course = exchange / course_id
    if course_id and course.is_dir():
        owner = course.lstat().st_uid
        if owner != instructor:
            checks.append(Check("exchange", False, f"{course} belongs to {_user(owner)}, not to the "
                                f"instructor {_user(instructor)}", f"sudo chown {instructor} {course}", "warn"))
        inbound = course / "inbound"
        if inbound.is_dir() and _mode(inbound) & 0o004:
            checks.append(Check("exchange", False, f"{inbound} is {oct(_mode(inbound))}: students can list "
                                "each other's submissions", f"chmod 2733 {inbound}", "warn"))
    return checks or [Check("exchange", True, f"{exchange} is {oct(mode)}, {course_id or 'no course'}/ "
                            "the instructor's")]


# --- all together ---------------------------------------------------------------------
def run_checks(root: Path = COURSE, exchange_root: str | None = None) -> list[Check]:
    cfg = load_course_config(root)
    exchange = exchange_root or cfg.get("exchange_root")
    return [check_bwrap(), check_kernel_venv(root), check_config(root, cfg), check_cgroups(),
            *check_course_permissions(root), check_root_owned(root),
            *check_exchange(Path(exchange or DEFAULT_EXCHANGE), cfg.get("course_id") or "",
                            root.stat().st_uid, explicit=bool(exchange))]


def render(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        lines.append(f"{c.label:5} {c.name}: {c.seen}")
        if not c.ok and c.fix:
            lines += ["      fix: " + c.fix.splitlines()[0], *("      " + x for x in c.fix.splitlines()[1:])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Can this machine grade in the sandbox?")
    ap.add_argument("--exchange-root", help="nbgrader's exchange (default: Exchange.root of the config)")
    ap.add_argument("--course", type=Path, default=COURSE, help="the course directory")
    ap.add_argument("--json", action="store_true", help="the checks as JSON")
    args = ap.parse_args(argv)
    try:
        import sandbox  # noqa: F401  the checks use the sandbox's own code
    except ImportError as e:
        sys.exit(f"FAIL  environment: {e}\n      fix: {args.course / '.venv/bin/python'} {__file__}")
    checks = run_checks(args.course.resolve(), args.exchange_root)
    blocked = any(not c.ok and c.severity == "FAIL" for c in checks)
    if args.json:
        print(json.dumps({"can_grade": not blocked, "checks": [asdict(c) for c in checks]}, indent=1))
    else:
        print(render(checks))
        print("grading can run sandboxed" if not blocked else "grading cannot run sandboxed: fix the FAIL lines")
    return 1 if blocked else 0


if __name__ == "__main__":
    sys.exit(main())
