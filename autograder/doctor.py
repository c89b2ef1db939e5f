"""Can this machine grade in the sandbox? If not, why, and what to do about it.

    python autograder/doctor.py [--exchange-root DIR] [--json]     (or python autograder/sandbox.py)

One line per check (ok, warn, FAIL), each problem followed by its fix; exit status 1 when
grading cannot run sandboxed (a FAIL). The bubblewrap check runs the sandbox's trial
(``bwrap.trial_command``: its namespaces and a new /proc, which a default pod refuses) and
reads bubblewrap's error with what the platform says of itself (``bwrap.Platform``) to name
one cause and its fix (``bwrap.diagnose``). autograder/README.md, "What the doctor checks",
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

if not __package__:  # `python autograder/doctor.py`: run as autograder.doctor (PEP 366, _load.py)
    import runpy
    runpy.run_path(str(Path(__file__).resolve().with_name("_load.py")))
    __package__ = "autograder"

from .bwrap import INSTALL_HINT, bwrap_has_size, diagnose, platform_facts, trial_command

COURSE = Path(__file__).resolve().parent.parent
DEFAULT_EXCHANGE = "/srv/nbgrader/exchange"  # nbgrader's Exchange.root when not configured


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


def _run(cmd: list[str], **kw) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``cmd``; -1 and the error if it cannot run."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
        return proc.returncode, proc.stdout.strip(), proc.stderr.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", str(e)


def check_bwrap(bwrap: str = "bwrap", root: str | Path = "/",
                environ: Mapping[str, str] | None = None, euid: int | None = None) -> Check:
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
        from . import cgroups
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
        if inbound.is_dir() and (_mode(inbound) & 0o004 or not _mode(inbound) & 0o1000):
            why = ("students can list each other's submissions" if _mode(inbound) & 0o004 else
                   "without the sticky bit a student can rename or delete another's submission")
            checks.append(Check("exchange", False, f"{inbound} is {oct(_mode(inbound))}: {why}",
                                f"chmod 3733 {inbound}", "warn"))
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
        from . import sandbox  # noqa: F401  the checks use the sandbox's own code
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
