"""The doctor (autograder/doctor.py): what it says on the machines bubblewrap refuses.

Each platform's failure is simulated by a stand-in ``bwrap`` on PATH that prints that
platform's error (the texts of bubblewrap.c, as users reported them: see the cases) and
exits 1, and by a fake root with the platform's /proc/sys files and container markers, or
its environment. The course's config, permissions and exchange are checked on temporary
copies; the last test runs the doctor on this machine, which must be able to grade.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

from autograder import doctor  # noqa: E402
from autograder import sandbox  # noqa: E402

UBUNTU = {"proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
          "proc/sys/user/max_user_namespaces": "127431", "proc/1/cgroup": "0::/init.scope"}
K8S = {"KUBERNETES_SERVICE_HOST": "10.96.0.1"}
USERNS_OFF = ("bwrap: No permissions to creating new namespace, likely because the kernel does not "
              "allow non-privileged user namespaces. On e.g. debian this can be enabled with "
              "'sysctl kernel.unprivileged_userns_clone=1'.")

# name: (stderr, files under the fake root, environment, euid, cause, what the fix must name)
CASES = {
    # bubblewrap issue 632 and e.g. DevToys-app/DevToys#1373 (Ubuntu 24.04)
    "ubuntu-24.04-uid-map": ("bwrap: setting up uid map: Permission denied", UBUNTU, {}, 1000,
                             "ubuntu-apparmor", "profile bwrap /usr/bin/bwrap flags=(unconfined)"),
    # ocaml/opam#5968 (Kubuntu 24.04)
    "ubuntu-24.04-loopback": ("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted", UBUNTU, {},
                              1000, "ubuntu-apparmor", "sudo apparmor_parser -r /etc/apparmor.d/bwrap"),
    # bubblewrap.c up to 0.11.0 (0.11.1 says "create a new namespace")
    "debian-sysctl": (USERNS_OFF, {"proc/sys/kernel/unprivileged_userns_clone": "0"}, {}, 1000,
                      "debian-sysctl", "sudo sysctl -w kernel.unprivileged_userns_clone=1"),
    # bubblewrap.c: clone() fails with ENOSPC when user.max_user_namespaces = 0
    "rhel-max-userns": ("bwrap: Creating new namespace failed: nesting depth or "
                        "/proc/sys/user/max_*_namespaces exceeded (ENOSPC)",
                        {"proc/sys/user/max_user_namespaces": "0"}, {}, 1000, "max-userns",
                        "sudo sysctl -w user.max_user_namespaces=15000"),
    # moby/moby#42441; flatpak/flatpak#1326 and spacedriveapp/spacebot#429 (root in Docker)
    "docker-root": ("bwrap: Creating new namespace failed: Operation not permitted",
                    {".dockerenv": "", "proc/1/cgroup": "0::/"}, {}, 0, "docker",
                    "--security-opt seccomp=unconfined"),
    # tbrandenburg/cade#23 (an ordinary user in Docker: the seccomp filter's EPERM)
    "docker-user": (USERNS_OFF.replace("creating new", "create a new"), {".dockerenv": ""}, {}, 1000,
                    "docker", "--security-opt seccomp=unconfined"),
    # anthropic-experimental/sandbox-runtime#214 (a pod); bubblewrap#284, #505 (masked /proc)
    "kubernetes-proc": ("bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
                        {"proc/1/cgroup": "0::/"}, K8S, 1000, "kubernetes", "procMount: Unmasked"),
    # jumpserver/jumpserver#15571 (a pod, as root)
    "kubernetes-root": ("bwrap: Creating new namespace failed: Operation not permitted", {}, K8S, 0,
                        "kubernetes", "seccompProfile: {type: Unconfined}"),
}


def fake_bwrap(bindir: Path, stderr: str) -> None:
    """A ``bwrap`` that fails every sandbox with ``stderr``."""
    bindir.mkdir(exist_ok=True)
    (bindir / "stderr.txt").write_text(stderr + "\n")
    script = bindir / "bwrap"
    script.write_text(f'#!/bin/sh\n[ "$1" = --help ] && {{ echo "  --size BYTES"; exit 0; }}\n'
                      f'cat "{bindir / "stderr.txt"}" >&2\nexit 1\n')
    script.chmod(0o755)


def fake_root(where: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(text + "\n" if text else "")
    return where


@pytest.mark.parametrize("case", CASES)
def test_each_platform_gets_its_diagnosis_and_fix(case, tmp_path, monkeypatch):
    stderr, files, env, euid, cause, remedy = CASES[case]
    fake_bwrap(tmp_path / "bin", stderr)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    check = doctor.check_bwrap("bwrap", root=fake_root(tmp_path / "root", files), environ=env, euid=euid)
    assert not check.ok and check.severity == "FAIL"
    assert f"[{cause}]" in check.seen and stderr in check.seen
    assert remedy.replace("/usr/bin/bwrap", str(tmp_path / "bin/bwrap")) in doctor.render([check])


def test_the_graders_refusal_carries_the_diagnosis(tmp_path, monkeypatch):
    stderr, files, env, euid, _, remedy = CASES["kubernetes-proc"]
    fake_bwrap(tmp_path / "bin", stderr)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    facts = doctor.platform_facts(fake_root(tmp_path / "root", files), env, euid)
    monkeypatch.setattr(sandbox, "platform_facts", lambda *a, **k: facts)  # what the grader reads
    with pytest.raises(sandbox.SandboxUnavailable) as refused:
        sandbox.check_bwrap.__wrapped__("bwrap")
    assert stderr in str(refused.value) and remedy in str(refused.value)


def test_missing_bwrap_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    check = doctor.check_bwrap("bwrap")
    assert not check.ok and "sudo apt-get install bubblewrap" in check.fix


def test_a_missing_kernel_venv_fails(tmp_path):
    check = doctor.check_kernel_venv(tmp_path)
    assert not check.ok and "make setup" in check.fix


def course_copy(where: Path, plugins: str | None = None, config: str | None = None) -> Path:
    """The course's config and autograder/ (optionally a broken file), with its Pythons."""
    shutil.copytree(ROOT / "autograder", where / "autograder",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "nbgrader_config.py", where / "nbgrader_config.py")
    for link in (".venv", "solutions"):
        (where / link).symlink_to(ROOT / link, target_is_directory=True)
    if plugins is not None:
        (where / "autograder/nbgrader_plugins.py").write_text(plugins)
    if config is not None:
        (where / "nbgrader_config.py").write_text(config)
    return where


def test_a_config_whose_pipeline_does_not_import_is_diagnosed_as_refusing(tmp_path):
    course = course_copy(tmp_path, plugins='raise ImportError("simulated: the plugins do not import")\n')
    check = doctor.check_config(course, doctor.load_course_config(course))
    assert not check.ok and check.severity == "FAIL"
    assert "refuses to grade" in check.seen and "simulated: the plugins do not import" in check.seen
    assert ".venv" in check.fix


def test_a_config_that_raises_is_diagnosed_as_grading_in_the_open(tmp_path):
    course = course_copy(tmp_path, config='raise RuntimeError("simulated")\n')
    check = doctor.check_config(course, doctor.load_course_config(course))
    assert not check.ok and "RuntimeError: simulated" in check.seen and "unsandboxed" in check.seen


def test_course_permissions(tmp_path):
    course = tmp_path / "course"
    for d in ("source/bpe", "solutions/tokref", "submitted/alice/bpe"):
        (course / d).mkdir(parents=True)
    (course / "gradebook.db").write_text("")
    (course / "source/bpe/bpe.ipynb").write_text("{}")
    os.chmod(course / "gradebook.db", 0o644)
    os.chmod(course / "submitted/alice/bpe", 0o777)
    checks = doctor.check_course_permissions(course)
    assert [(c.name, c.label) for c in checks] == [("course permissions", "warn"), ("submissions", "warn")]
    assert f"chmod -R o-rwx {course / 'source'}" in checks[0].fix and str(course / "gradebook.db") in checks[0].seen
    assert checks[1].fix == f"chmod -R o-w {course / 'submitted'}"
    subprocess.run(["chmod", "-R", "o-rwx", str(course)], check=True)
    assert [c.label for c in doctor.check_course_permissions(course)] == ["ok"]


def test_exchange_permissions(tmp_path):
    exchange = tmp_path / "exchange"
    (exchange / "tokenization/inbound").mkdir(parents=True)
    os.chmod(exchange, 0o777)  # what nbgrader itself makes: no sticky bit
    os.chmod(exchange / "tokenization/inbound", 0o755)
    me = os.geteuid()
    checks = doctor.check_exchange(exchange, "tokenization", me + 1, explicit=True)
    fixes = [c.fix for c in checks]
    assert fixes == [f"sudo chmod 1777 {exchange}", f"sudo chown {me + 1} {exchange / 'tokenization'}",
                     f"chmod 3733 {exchange / 'tokenization/inbound'}"]
    assert all(c.label == "warn" for c in checks)
    os.chmod(exchange, 0o1777)
    os.chmod(exchange / "tokenization/inbound", 0o2733)  # nbgrader's own: unlistable, not sticky
    [check] = doctor.check_exchange(exchange, "tokenization", me, explicit=True)
    assert check.label == "warn" and "sticky" in check.seen and check.fix.startswith("chmod 3733"), check
    os.chmod(exchange / "tokenization/inbound", 0o3733)
    assert [c.label for c in doctor.check_exchange(exchange, "tokenization", me, explicit=True)] == ["ok"]
    assert doctor.check_exchange(tmp_path / "none", "tokenization", me, explicit=True)[0].label == "warn"


@pytest.mark.skipif(os.geteuid() != 0, reason="making files of root and of another user needs root")
def test_root_owned_results_in_someone_elses_course(tmp_path):
    course = tmp_path / "course"
    (course / "autograded/alice/bpe").mkdir(parents=True)
    (course / "autograded/alice/bpe/bpe.ipynb").write_text("{}")
    os.chown(course, 4321, 4321)
    check = doctor.check_root_owned(course)
    assert check.label == "warn"
    assert check.fix == f"cd {course} && sudo chown -R 4321:4321 autograded"  # what grade.py prints too
    subprocess.run(["chown", "-R", "4321:4321", str(course)], check=True)
    assert doctor.check_root_owned(course).ok


def test_this_machine_can_grade():
    """``python autograder/sandbox.py`` runs the doctor; on this machine, nothing blocks."""
    proc = subprocess.run([sys.executable, str(ROOT / "autograder/sandbox.py"), "--json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["can_grade"]
    ok = {c["name"] for c in report["checks"] if c["ok"]}
    assert {"bubblewrap", "kernel venv", "course config"} <= ok
