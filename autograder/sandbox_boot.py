"""The first code that runs inside the grading sandbox, before the student's (nbgrader 0.9.6).

``sandbox.py`` starts ``bwrap ... -- <kernel python> /opt/grading/boot.py -f <connection
file> ...``; this script then

1. sets the per-process limits (``SANDBOX_LIMITS``: address space, CPU seconds, processes,
   file size, open files; no core dumps), which every child inherits;
2. when it runs as root (a grader run by root uses no user namespace), drops to the
   sandbox's own unprivileged uid and gid (``SANDBOX_UID``), so that the process limit
   counts this sandbox's processes and nothing of root's power is left;
3. connects to the grader's audit socket (``SANDBOX_AUDIT``);
4. installs an audit hook (PEP 578) that reports to the grader what a person should look
   at: importing the reference's algorithms or nbgrader, touching files outside the
   working directory, starting processes, using the network. Reports only: the sandbox,
   not this hook, is what stops those things;
5. runs ipykernel.

Nothing here is a secret from the student, and nothing here decides a score.
"""

from __future__ import annotations

import json
import os
import resource
import runpy
import socket
import sys

# Where a notebook may read and write without a flag; the Python environment is read-only.
QUIET_ROOTS = ("/tmp/", "/proc/", "/dev/", "/usr/", "/etc/", "/sys/devices/system/cpu/")
PROCESS_EVENTS = {"os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                  "os.forkpty", "subprocess.Popen", "pty.spawn"}
NETWORK_EVENTS = {"socket.connect", "socket.bind", "socket.sendto", "socket.getaddrinfo"}
FILE_EVENTS = {"open", "os.listdir", "os.scandir", "os.remove", "os.rename", "os.mkdir",
               "os.rmdir", "os.symlink", "os.link", "os.chmod", "os.chown", "os.truncate",
               "shutil.rmtree", "shutil.copyfile", "sqlite3.connect", "glob.glob"}
MAX_REPORTS = 200
CELL_FILENAMES = ("/tmp/ipykernel_", "<ipython-input-")  # how ipykernel names a cell's code


def set_limits(limits: dict[str, int]) -> None:
    mb = 2**20
    pairs = {
        resource.RLIMIT_AS: limits["memory_mb"] * mb,
        resource.RLIMIT_CPU: limits["cpu_seconds"],
        resource.RLIMIT_NPROC: limits["processes"],
        resource.RLIMIT_FSIZE: limits["file_mb"] * mb,
        resource.RLIMIT_NOFILE: limits["open_files"],
        resource.RLIMIT_CORE: 0,
    }
    for which, value in pairs.items():
        resource.setrlimit(which, (value, value))


def drop_privileges(uid: int) -> None:
    if os.getuid() != 0 or uid == 0:
        return  # an unprivileged grader (a user namespace of its own), or --unsafe
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SystemExit("sandbox: could not drop root privileges")


class Auditor:
    """Reports each distinct suspicious event once, as a JSON line on the audit socket."""

    def __init__(self, path: str | None, quiet: list[str], watched: list[str]) -> None:
        self.sock: socket.socket | None = None
        self.seen: set[tuple[str, str]] = set()
        self.armed = False
        python = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
        self.python = tuple(p.rstrip("/") + "/" for p in python)
        self.quiet = QUIET_ROOTS + tuple(p.rstrip("/") + "/" for p in quiet)
        # The grader's own places (the course directory, its home, its temporary files):
        # whatever the path, touching them is what a person should hear about.
        self.watched = tuple(p if p.endswith("-") else p.rstrip("/") + "/" for p in watched if p.strip("/"))
        if path:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.connect(path)

    def report(self, kind: str, detail: str) -> None:
        key = (kind, detail[:300])
        if key in self.seen or len(self.seen) >= MAX_REPORTS or self.sock is None:
            return
        self.seen.add(key)
        try:
            self.sock.sendall((json.dumps({"flag": kind, "detail": key[1]}) + "\n").encode())
        except OSError:
            self.sock = None

    def outside(self, path: str) -> bool:
        """Whether ``path`` is outside what the notebook may touch without a flag."""
        path = os.path.normpath(os.path.join(os.getcwd(), path)) + "/"
        if path.startswith(self.python):
            return False
        return path.startswith(self.watched) or not path.startswith(self.quiet)

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        """As the first finder of ``sys.meta_path``: sees ``importlib.import_module`` too,
        which raises no ``import`` audit event. Finds nothing itself."""
        if self.armed:
            self.check_import(name)
        return None

    def check_import(self, name: object) -> None:
        if type(name) is str and (name == "tokref" or name.startswith("tokref.")
                                  or name == "nbgrader" or name.startswith("nbgrader.")):
            self.report("imported the reference or nbgrader", name)

    def __call__(self, event: str, args: tuple) -> None:
        if not self.armed:
            # ipykernel's own start-up is not the student's: report from the first cell on.
            if event == "compile" and len(args) > 1 and isinstance(args[1], str) and (
                    args[1].startswith(CELL_FILENAMES)):
                self.armed = True
            return
        if event == "import":
            self.check_import(args[0])
        elif event in FILE_EVENTS:
            path = args[0] if args else None
            if type(path) is bytes:
                path = os.fsdecode(path)
            if type(path) is str and self.outside(path):
                self.report("touched files outside its directory", f"{event} {path}")
        elif event in PROCESS_EVENTS or event.startswith("os.exec") or event.startswith("os.spawn"):
            self.report("started a process", event)
        elif event in NETWORK_EVENTS:
            self.report("used the network", f"{event} {str(args[1:2])[:100]}")
        elif event == "sys.addaudithook":
            self.report("tampered with the grader's audit hook", event)


def main() -> None:
    limits = json.loads(os.environ.pop("SANDBOX_LIMITS"))
    uid = int(os.environ.pop("SANDBOX_UID", "0"))
    audit = os.environ.pop("SANDBOX_AUDIT", "")
    watched = json.loads(os.environ.pop("SANDBOX_WATCH", "[]"))
    site = os.environ.pop("SANDBOX_SITE")  # the grading runtime tokgrade, nothing else
    quiet = [os.getcwd(), site, os.path.dirname(os.path.abspath(__file__)),
             os.path.dirname(os.environ.get("TOKGRADE_CASES", "/nonexistent/x"))]
    set_limits(limits)
    drop_privileges(uid)
    auditor = Auditor(audit or None, quiet, watched)
    sys.path.insert(0, site)
    sys.addaudithook(auditor)
    sys.meta_path.insert(0, auditor)
    sys.argv = ["ipykernel_launcher", *sys.argv[1:]]
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
