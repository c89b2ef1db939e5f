"""The grading sandbox: every submission's kernel runs in bubblewrap, with limits.

nbgrader runs a student's notebook in an ordinary Jupyter kernel and says of itself that
it is not a sandbox. :class:`SandboxedKernelManager` is a ``jupyter_client``
``AsyncKernelManager`` whose kernel is started as::

    bwrap <own pid, network, IPC, UTS namespaces> <the mounts below> --
        <kernel python> /opt/grading/boot.py -f <connection file> ...

``nbgrader_config.py`` makes it the kernel manager of the autograde step, so a plain
``nbgrader autograde`` is sandboxed exactly as ``autograder/grade.py`` is. Inside:

============================  ========================================================
``/usr``, ``/bin``, ``/lib*``   the system, read-only; ``/etc``: only ``ld.so.cache``,
                                ``localtime`` and ``fonts``
the kernel's Python             read-only: its virtualenv (ipykernel, numpy, matplotlib,
                                ipywidgets: what a student has) and base installation
``/opt/grading``                read-only: ``boot.py`` (``sandbox_boot.py``) and
                                ``site/tokgrade/``, the grading runtime's files
                                (``solutions/tokgrade``) byte for byte; nothing of
                                ``tokref``: the algorithms are not there
``/grading/cases.json``         read-only: the hidden tests' inputs, written by the
                                grader (no answers)
``/home/student``               writable tmpfs, the working directory and ``HOME``,
                                holding read-only copies of the submission's other
                                files (data files), not the notebook
``/tmp``                        writable tmpfs
the kernel's IPC directory      writable: ZeroMQ talks over Unix sockets here, because
                                the sandbox has no network at all
============================  ========================================================

Nothing else: not the course directory (``source/``, ``gradebook.db``, ``submitted/``,
``autograded/``, ``feedback/``), not other students' work, not any home directory.

Limits (traits below, set in ``nbgrader_config.py``): address space per process
(``memory_mb``), CPU seconds per process (``cpu_seconds``), processes and threads
(``processes``), file size (``file_mb``), open files, tmpfs sizes (``tmp_mb``). The time
of a cell and of a whole notebook are ``Execute.timeout`` and
``ExecuteAndReport.notebook_timeout``. When the notebook ends, the kernel is killed with
bubblewrap, whose pid namespace takes every process the notebook started with it,
detached or not; how many were still running is reported.

Run by root (CI, a container), bubblewrap uses no user namespace and ``boot.py`` drops
to a uid of the sandbox's own (``2000000000 + pid of the grader``, :func:`sandbox_uid`), so that the process limit
counts only this sandbox's processes. Run by an ordinary user, bubblewrap makes a user
namespace (unprivileged user namespaces must be enabled, as they are on Debian).

``unsafe = True`` starts the kernel without bubblewrap (still without the reference on
its path, with the limits and a private working directory, but with the whole machine in
view): for an instructor's laptop without bubblewrap, never for real submissions.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import sys
if not __package__:  # `python autograder/sandbox.py`: run as autograder.sandbox (PEP 366, _load.py)
    import runpy
    runpy.run_path(str(Path(__file__).resolve().with_name("_load.py")))
    __package__ = "autograder"

from . import cgroups
from . import events
from .bwrap import (INSTALL_HINT, bwrap_has_size, diagnose, namespace_args, platform_facts,
                   trial_command)
from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, Dict, Integer, Unicode

HERE = Path(__file__).resolve().parent
BOOT = HERE / "sandbox_boot.py"
# Above the subordinate ids that useradd hands out (/etc/subuid: 100000 up, 65536 a user,
# to SUB_UID_MAX 600100000 on Debian) and systemd's container range (to 1879048191): a
# student whose range held the kernel's uid could become it in a user namespace of their
# own and read the sandbox's files. sandbox_uid() checks /etc/subuid and /etc/subgid too.
ROOT_UID_BASE = 2_000_000_000
MAX_AUDIT_BYTES = 1_000_000


def runtime_files() -> list[Path]:
    """The files of the grading runtime, ``tokgrade`` (standard library only), which the
    kernel gets unchanged as ``/opt/grading/site/tokgrade/``: every ``.py`` of the package."""
    import tokgrade

    return sorted(Path(tokgrade.__file__).parent.glob("*.py"))


# tokgrade.grading.CASES_ENV: the runtime in the sandbox reads the cases file it names
# (a literal here, as in sandbox_boot.py; test_sandbox checks that they agree).
CASES_ENV = "TOKGRADE_CASES"


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot make a sandbox on this machine."""


@lru_cache(maxsize=None)
def check_bwrap(bwrap: str = "bwrap") -> str:
    """The path of a working ``bwrap``; :class:`SandboxUnavailable` (what is wrong on this
    platform and its fix, from ``bwrap.diagnose``) if none."""
    path = shutil.which(bwrap)
    if path is None:
        raise SandboxUnavailable(INSTALL_HINT)
    proc = subprocess.run(trial_command(path), capture_output=True, text=True)
    if proc.returncode != 0:
        d = diagnose(proc.stderr, platform_facts(), path)
        raise SandboxUnavailable(
            f"bubblewrap ({path}) cannot make a sandbox here: {proc.stderr.strip()}\n"
            f"{d.explanation}\nFix: {d.fix}\n`python autograder/doctor.py` checks the whole "
            "set-up. Without the sandbox, student code would run with your rights and see the "
            "course directory; --unsafe (grade.py) grades without it, for your own test "
            "submissions only, and the report says so.")
    return path



@lru_cache(maxsize=None)
def python_dirs(python: str) -> tuple[str, ...]:
    """The directories the kernel's interpreter needs: its venv and its base installation."""
    code = "import os, sys; print('\\n'.join({sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}))"
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SandboxUnavailable(
            f"the grading kernel's Python {python} does not run ({proc.stderr.strip()[-300:]}); "
            "create it with `make setup` (see autograder/README.md)")
    dirs = sorted({os.path.realpath(d) for d in proc.stdout.split()} | {os.path.abspath(d) for d in proc.stdout.split()})
    return tuple(d for d in dirs if not any(d != o and d.startswith(o + "/") for o in dirs))


def _with_parents(path: str, made: set[str]) -> list[str]:
    """``--dir`` for each missing ancestor of ``path``, world-traversable (bwrap's default
    is 0700, which the sandbox's own uid could not enter)."""
    out: list[str] = []
    parts = Path(path).parts
    for i in range(2, len(parts)):
        d = str(Path(*parts[:i]))
        if d not in made:
            made.add(d)
            out += ["--perms", "0755", "--dir", d]
    return out


def subordinate_ranges(files: tuple[str, ...] = ("/etc/subuid", "/etc/subgid")) -> list[range]:
    """The ids delegated to users for their own user namespaces (``name:first:count`` lines).

    >>> import tempfile; f = tempfile.NamedTemporaryFile("w", delete=False)
    >>> _ = f.write("alice:100000:65536\\nbad line\\n"); f.close()
    >>> subordinate_ranges((f.name, "/nonexistent"))
    [range(100000, 165536)]
    """
    ranges = []
    for path in files:
        try:
            lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            parts = line.strip().split(":")
            if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
                ranges.append(range(int(parts[1]), int(parts[1]) + int(parts[2])))
    return ranges


def sandbox_uid(pid: int, ranges: list[range] | None = None) -> int:
    """The uid (and gid) a root grader's kernel runs as: ``ROOT_UID_BASE + pid``, which no
    user may hold in a user namespace of their own. Refuses (:class:`SandboxUnavailable`)
    when /etc/subuid or /etc/subgid delegates it to someone.

    >>> sandbox_uid(42, [range(100000, 165536)])
    2000000042
    >>> sandbox_uid(42, [range(1999999999, 2000000100)])
    Traceback (most recent call last):
    autograder.sandbox.SandboxUnavailable: uid 2000000042, the grading kernel's, is in a range of /etc/subuid or /etc/subgid (1999999999-2000000099): a user could become it in a user namespace of their own and read the sandbox's files. Give that user another range (usermod --del-subuids/--add-subuids), or grade as an ordinary user
    """
    uid = ROOT_UID_BASE + pid
    for r in subordinate_ranges() if ranges is None else ranges:
        if uid in r:
            raise SandboxUnavailable(
                f"uid {uid}, the grading kernel's, is in a range of /etc/subuid or /etc/subgid "
                f"({r.start}-{r.stop - 1}): a user could become it in a user namespace of their own "
                "and read the sandbox's files. Give that user another range (usermod "
                "--del-subuids/--add-subuids), or grade as an ordinary user")
    return uid


def copy_regular_files(src: Path, dest: Path, *, limit: int = 64 * 2**20) -> list[str]:
    """Copy the regular files under ``src`` (not notebooks, not symlinks: a submitted link
    must not make the grader copy what it points to) to ``dest``; returns their names."""
    copied, total = [], 0
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if path.is_symlink() or not path.is_file() or path.suffix == ".ipynb" or any(
                p.startswith(".") for p in rel.parts):
            continue
        total += path.lstat().st_size
        if total > limit:
            break
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / rel, follow_symlinks=False)
        copied.append(rel.as_posix())
    return copied


class AuditListener:
    """Collects the flags that ``sandbox_boot.py``'s audit hook sends over a Unix socket."""

    def __init__(self, path: Path, uid: int | None) -> None:
        self.flags: list[dict[str, str]] = []
        self.closed_early = False
        self.ending = False
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        if uid is not None:
            os.chown(path, uid, uid)
        self.server.listen(1)
        self.server.settimeout(0.5)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn = None
        while conn is None and not self.ending:
            try:
                conn, _ = self.server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
        if conn is None:
            return
        received = 0
        with conn, conn.makefile("rb") as lines:
            for line in lines:
                received += len(line)
                if received > MAX_AUDIT_BYTES:
                    break
                try:
                    item = json.loads(line)
                    self.flags.append({"flag": str(item["flag"])[:100], "detail": str(item["detail"])[:300]})
                except (ValueError, KeyError, TypeError):
                    self.flags.append({"flag": "tampered with the grader's audit channel",
                                       "detail": "a line that the audit hook did not write"})
        if not self.ending:
            self.closed_early = True

    def close(self) -> None:
        self.ending = True
        self.server.close()
        self.thread.join(timeout=2)


def processes_in_namespace(outer_pid: int) -> int:
    """How many processes run in the pid namespace of bwrap ``outer_pid``, besides its init
    (pid 1 inside) and the kernel (pid 2 inside)."""
    try:
        children = Path(f"/proc/{outer_pid}/task/{outer_pid}/children").read_text().split()
        ns = os.readlink(f"/proc/{children[0]}/ns/pid")
    except (OSError, IndexError):
        return 0
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry.name}/ns/pid") != ns:
                continue
            status = Path(f"/proc/{entry.name}/status").read_text()
        except OSError:
            continue
        nspid = next((line.split()[-1] for line in status.splitlines() if line.startswith("NSpid:")), "0")
        count += nspid not in ("1", "2")
    return count


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose every kernel runs in the sandbox described above."""

    python = Unicode("", help="The kernel's Python: a virtualenv with ipykernel, numpy, "
                     "matplotlib and ipywidgets, and not tokref (`make setup` makes .venv/kernel)"
                     ).tag(config=True)
    memory_mb = Integer(2048, help="Address space of each process, MiB").tag(config=True)
    cpu_seconds = Integer(600, help="CPU seconds of each process").tag(config=True)
    processes = Integer(64, help="Processes and threads in the sandbox").tag(config=True)
    submission_memory_mb = Integer(4096, help="Memory of all the sandbox's processes together, "
                                   "MiB (a cgroup; see cgroups.py)").tag(config=True)
    fallback_processes = Integer(16, help="Processes and threads in the sandbox where no cgroup "
                                 "can cap the whole submission: then processes x memory_mb "
                                 "bounds its memory").tag(config=True)
    file_mb = Integer(64, help="Largest file the notebook may write, MiB").tag(config=True)
    open_files = Integer(256, help="Open files per process").tag(config=True)
    tmp_mb = Integer(256, help="Size of each of /tmp and /home/student, MiB").tag(config=True)
    unsafe = Bool(False, help="Start the kernel without bubblewrap (see the module docstring)"
                  ).tag(config=True)
    bwrap = Unicode("bwrap", help="The bubblewrap command").tag(config=True)

    files = Dict(help="name -> text: files the grader puts in /grading for the kernel")
    workdir = Unicode("", help="Directory whose regular files become /home/student's")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # What the grader saw: {"event", "detail", "flag"}; flag is True for what a person
        # should look at, False for what explains a score (nbgrader_plugins writes them).
        self.findings: list[dict[str, Any]] = []
        self._private: Path | None = None
        self._audit: AuditListener | None = None
        self._uid = sandbox_uid(os.getpid()) if os.geteuid() == 0 else None
        self._cap: cgroups.Cap | None = None

    # --- what to start -------------------------------------------------------------
    @property
    def kernel_spec(self) -> KernelSpec:
        # Whatever the notebook says its kernel is: this one. Interrupts are messages,
        # because a signal would reach bwrap, not the kernel inside.
        return KernelSpec(argv=["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                          display_name="Python 3 (grading sandbox)", language="python",
                          interrupt_mode="message", resource_dir=str(HERE))

    def _own(self, path: Path) -> None:
        if self._uid is not None and not self.unsafe:
            os.chown(path, self._uid, self._uid)

    def _prepare(self) -> Path:
        old_umask = os.umask(0o077)  # closed from the moment each file exists, not after
        try:
            return self._fill(Path(tempfile.mkdtemp(prefix="tokgrade-")))
        finally:
            os.umask(old_umask)

    def _fill(self, private: Path) -> Path:
        for sub in ("ipc", "grading", "home", "site/tokgrade"):
            (private / sub).mkdir(parents=True)
        self._own(private / "ipc")
        for name, text in self.files.items():
            (private / "grading" / name).write_text(text, encoding="utf-8")
        for path in runtime_files():  # the runtime unchanged; no file of tokref
            shutil.copyfile(path, private / "site/tokgrade" / path.name)
        if self.workdir:
            copy_regular_files(Path(self.workdir), private / "home")
        # The grader's alone (issue 34): the hidden tests' inputs, the submission's files and
        # the kernel's socket are no other user's business, not even while grading runs.
        # mkdtemp made ``private`` 0700; everything in it is 0700/0600 too. As root, the
        # kernel runs as a uid of its own (ROOT_UID_BASE + pid), which must read what it is
        # given: the tree is that uid's, still closed to everyone else (bwrap mounts it
        # read-only, except ipc/). Otherwise the kernel runs as the grader.
        for path in [private, *private.rglob("*")]:
            path.chmod(0o700 if path.is_dir() else 0o600)
            if self._uid is not None and not self.unsafe:
                os.chown(path, self._uid, self._uid, follow_symlinks=False)
        if self.unsafe:
            self._own(private / "home")
        return private

    async def _async_pre_start_kernel(self, **kw: Any) -> tuple[list[str], dict[str, Any]]:
        if not self.python:
            raise SandboxUnavailable("SandboxedKernelManager.python is not set (nbgrader_config.py)")
        if not self.unsafe:
            check_bwrap(self.bwrap)
        self._private = self._prepare()
        self._cap = cgroups.open_cap(cap_mechanism(), memory_mb=self.submission_memory_mb,
                                     tasks=self.processes, name=self._private.name)
        self.transport = "ipc"
        self.ip = str(self._private / "ipc" / "k")
        self.connection_file = str(self._private / "ipc" / "kernel.json")
        self._audit = AuditListener(self._private / "ipc" / "audit", None if self.unsafe else self._uid)
        kw["cwd"] = str(self._private)
        kw["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        # ipykernel's banner and the notebook's own prints to the process's stderr: not
        # the grader's business (what a cell prints reaches nbgrader through the kernel).
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return await super()._async_pre_start_kernel(**kw)

    def write_connection_file(self, **kwargs: Any) -> None:
        super().write_connection_file(**kwargs)
        self._own(Path(self.connection_file))

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        assert self._private is not None
        p = self._private
        limits = {"memory_mb": self.memory_mb, "cpu_seconds": self.cpu_seconds,
                  "processes": self._task_limit(), "file_mb": self.file_mb, "open_files": self.open_files}
        inside = {"home": "/home/student", "site": "/opt/grading/site", "boot": "/opt/grading/boot.py",
                  "cases": "/grading/cases.json"}
        if self.unsafe:
            inside = {"home": str(p / "home"), "site": str(p / "site"), "boot": str(BOOT),
                      "cases": str(p / "grading" / "cases.json")}
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": inside["home"], "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "MPLCONFIGDIR": "/tmp/matplotlib",
            "IPYTHONDIR": "/tmp/ipython", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", CASES_ENV: inside["cases"],
            "SANDBOX_LIMITS": json.dumps(limits), "SANDBOX_SITE": inside["site"],
            "SANDBOX_AUDIT": str(p / "ipc" / "audit"), "SANDBOX_UID": str(self._uid or 0),
            # The grader's places, for the audit hook: the course root (nbgrader runs
            # there), its home, and grade.py's temporary gradebooks.
            "SANDBOX_WATCH": json.dumps([os.getcwd(), os.path.expanduser("~"),
                                         os.path.join(tempfile.gettempdir(), "tokgrade-run-")]),
        }
        # nbgrader tells a notebook that it is being graded (its FAQ: NBGRADER_EXECUTION
        # is "autograde" or "validate"), so that a cell can skip a demonstration that
        # gives no points; the cleared environment must not hide it.
        if os.environ.get("NBGRADER_EXECUTION"):
            env["NBGRADER_EXECUTION"] = os.environ["NBGRADER_EXECUTION"]
        kernel = [os.path.abspath(self.python), inside["boot"], "-f", self.connection_file, *(extra_arguments or [])]
        if self.unsafe:
            env["SANDBOX_UID"] = "0"
            return self._capped(["env", "-i", "-C", inside["home"], *(f"{k}={v}" for k, v in env.items()), *kernel])
        return self._capped([check_bwrap(self.bwrap), *self._mounts(p), "--chdir", inside["home"], "--clearenv",
                             *(a for k, v in env.items() for a in ("--setenv", k, v)), "--", *kernel])

    # --- the whole submission's cap ------------------------------------------------
    def _task_limit(self) -> int:
        """RLIMIT_NPROC: ``processes``, or ``fallback_processes`` where no cgroup caps the
        whole sandbox (so that processes x address space stays under a known bound)."""
        if self._cap is not None and self._cap.mechanism.name == "none":
            return min(self.processes, self.fallback_processes)
        return self.processes

    def _capped(self, command: list[str]) -> list[str]:
        return self._cap.wrap(command) if self._cap is not None else command

    def _close_cap(self) -> None:
        """Say how the whole submission was capped, and whether the cap had to act."""
        if self._cap is None:
            return
        cap, tasks = self._cap, self._task_limit()
        self._cap = None
        detail = cap.describe() if cap.mechanism.name != "none" else (
            f"per process only, no cgroup here: {tasks} processes and threads x "
            f"{self.memory_mb} MiB of address space, at most {tasks * self.memory_mb} MiB")
        self.findings.append({"event": events.SUBMISSION_CAP, "detail": detail, "flag": False})
        for seen in cap.close():
            self.findings.append({"event": events.HIT_CAP, "detail": seen, "flag": False})

    def _mounts(self, p: Path) -> list[str]:
        bwrap = check_bwrap(self.bwrap)
        size = lambda mb: ["--size", str(mb * 2**20)] if bwrap_has_size(bwrap) else []  # noqa: E731
        args = [*namespace_args(), "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
        if os.geteuid() == 0:
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        for etc in ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts"):
            args += ["--ro-bind-try", etc, etc]
        args += [*size(self.tmp_mb), "--perms", "1777", "--tmpfs", "/tmp",
                 "--perms", "0755", "--dir", "/home",
                 *size(self.tmp_mb), "--perms", "1777", "--tmpfs", "/home/student"]
        for f in sorted((p / "home").rglob("*")):
            if f.is_file():
                rel = f.relative_to(p / "home").as_posix()
                args += ["--ro-bind", str(f), f"/home/student/{rel}"]
        made = {"/tmp", "/home", "/home/student", "/usr"}
        for d in python_dirs(os.path.abspath(self.python)):
            args += [*_with_parents(d, made), "--ro-bind", d, d]
        args += ["--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", "/opt/grading",
                 "--ro-bind", str(BOOT), "/opt/grading/boot.py",
                 "--ro-bind", str(p / "site"), "/opt/grading/site",
                 "--ro-bind", str(p / "grading"), "/grading"]
        ipc = str(p / "ipc")
        args += [*_with_parents(ipc, made), "--bind", ipc, ipc]
        return args

    # --- the end of the notebook ---------------------------------------------------
    async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        pid = getattr(self.provisioner, "pid", None)
        if pid and not self.unsafe:
            left = processes_in_namespace(pid)
            if left:
                self.findings.append({"event": "left processes running; killed", "flag": True,
                                      "detail": f"{left} process(es) besides the kernel"})
        if self._audit:
            self._audit.ending = True
        # Always kill: a graceful shutdown would let the notebook's own code run on.
        await super().shutdown_kernel(now=True, restart=restart)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        self._close_cap()
        if self._audit:
            self._audit.close()
            self.findings.extend({"event": f["flag"], "detail": f["detail"], "flag": True}
                                 for f in self._audit.flags)
            if self._audit.closed_early:
                self.findings.append({"event": "tampered with the grader's audit channel",
                                      "detail": "closed it before the notebook ended", "flag": True})
            self._audit = None
        if self._private:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None


@lru_cache(maxsize=None)
def cap_mechanism() -> cgroups.Mechanism:
    """How this machine caps a whole sandbox (found once per grading process)."""
    return cgroups.find_mechanism()


def kernel_python(root: Path) -> str:
    """Where ``make setup`` puts the kernel's virtualenv in a course directory."""
    return str(root / ".venv" / "kernel" / "bin" / "python")


if __name__ == "__main__":  # python autograder/sandbox.py: can this machine grade sandboxed?
    import runpy  # the doctor run as a script: it imports this module, not the reverse

    runpy.run_path(str(HERE / "doctor.py"), run_name="__main__")
