"""A ceiling for a whole submission: memory and tasks of all its processes together.

bubblewrap's sandbox (``sandbox.py``) limits each process (``setrlimit``); a notebook
that forks 40 children of 0.7 GB each is within every per-process limit and still asks
for 28 GB. A control group holds all of a sandbox's processes, so its limits are the
submission's. :func:`find_mechanism` says which kind this machine lets the grader use,
best first:

``cgroup2``   the unified hierarchy, writable by the grader (root), with the memory and
              pids controllers: one child group per sandbox under ``tokgrade/``; or, for
              an ordinary user, a subtree delegated to them (the group above their own is
              theirs and passes memory and pids down: what the hub's spawner gives an
              instructor's server, ``hub/capped_spawner.py``)
``cgroup1``   the legacy ``memory`` and ``pids`` hierarchies, writable (root, or a user
              whose own group was delegated to them): a child of the grader's own group
              in each
``systemd``   an ordinary user on a systemd machine: the kernel starts under
              ``systemd-run --user --scope -p MemoryMax= -p TasksMax=`` (cgroup v2
              delegated to the user's manager)
``none``      none of these: only the per-process limits hold (``sandbox.py`` then
              tightens them so that processes x address space stays under a stated bound)

A sandbox's kernel is started by a shell that moves itself into its group(s) and then
``exec``s bubblewrap (:meth:`Cap.wrap`): every process the notebook starts is born inside.
When the kernel ends, :meth:`Cap.close` reads what the group saw (OOM kills, a task
limit hit) and removes the group.

The hub's servers (``hub/capped_spawner.py``) also ask for the CPU controller
(``find_mechanism(cpu=True)``, ``open_cap(..., cpu=1.0)``): each server's group is then
in the ``cpu`` hierarchy too (v1; v2: the ``cpu`` controller enabled), an equal share for
each (``cpu.shares`` / ``cpu.weight`` left at their defaults) and at most ``cpu`` CPUs
(``cpu.cfs_quota_us`` / ``cpu.max``). The sandbox asks for neither: its submissions run
within their server's (or the grader's) CPU share.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

# Moves the shell into each group named before "--", then becomes the command after it.
ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 97; shift; done; shift; exec "$@"'
ENTER_FAILED = 97  # the exit status of a kernel that could not enter its group


@dataclass(frozen=True)
class Mechanism:
    """What this machine offers: ``name`` (see the module docstring), ``detail`` (what
    was found; for ``none``, why and how to get a cgroup), and the parent directories
    in which the groups are made (``cgroup2``: one; ``cgroup1``: memory, pids, and cpu
    when :func:`find_mechanism` was asked for it)."""

    name: str
    detail: str
    parents: tuple[str, ...] = ()


def _mounts(mounts_file: str) -> list[tuple[str, str, set[str]]]:
    """(mount point, type, options) of every cgroup file system."""
    out = []
    for line in Path(mounts_file).read_text().splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
            out.append((parts[1], parts[2], set(parts[3].split(","))))
    return out


def _own_groups(cgroup_file: str) -> dict[str, str]:
    """controller -> this process's group path (``""`` for cgroup v2's unified entry).

    >>> import tempfile, os; f = tempfile.NamedTemporaryFile("w", delete=False)
    >>> _ = f.write("4:memory:/a/b\\n8:pids:/\\n0::/user.slice\\n"); f.close()
    >>> _own_groups(f.name)
    {'memory': '/a/b', 'pids': '/', '': '/user.slice'}
    >>> os.unlink(f.name)
    """
    groups = {}
    for line in Path(cgroup_file).read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            groups[c] = path
    return groups


def _writable(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def _v2_parent(mount: str, group: str = "tokgrade", cpu: bool = False) -> str | None:
    """``<mount>/<group>`` with memory and pids (and cpu, when asked) enabled for its
    children, or None."""
    wanted = ["memory", "pids"] + (["cpu"] if cpu else [])
    controllers = Path(mount, "cgroup.controllers")
    if not controllers.exists() or not set(wanted) <= set(controllers.read_text().split()):
        return None
    parent = os.path.join(mount, group)
    try:
        os.makedirs(parent, exist_ok=True)
        for d in (mount, parent):  # the root may enable controllers despite its processes
            Path(d, "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
    except OSError:
        return None
    return parent


def _v2_delegated(mount: str, own: str) -> str | None:
    """The group above this process's own, when it is this user's and passes memory and
    pids down to its children (cgroup v2 delegation), or None. A delegatee may make
    groups there and move its own processes between them (their common ancestor is
    theirs); the limits of the delegated group itself stay the admin's."""
    if not own or own == "/":
        return None
    parent = os.path.dirname(os.path.join(mount, own.lstrip("/")))
    try:
        enabled = set(Path(parent, "cgroup.subtree_control").read_text().split())
    except OSError:
        return None
    if {"memory", "pids"} <= enabled and _writable(parent) \
            and os.access(os.path.join(parent, "cgroup.procs"), os.W_OK):
        return parent
    return None


def _systemd_works() -> bool:
    exe = shutil.which("systemd-run")
    if exe is None:
        return False
    trial = [exe, "--user", "--scope", "--quiet", "-p", "MemoryMax=64M", "-p", "TasksMax=8", "true"]
    try:
        return subprocess.run(trial, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def find_mechanism(*, mounts_file: str = "/proc/self/mounts", cgroup_file: str = "/proc/self/cgroup",
                   group: str = "tokgrade", cpu: bool = False) -> Mechanism:
    """The best way this machine offers to cap a whole sandbox (see the module docstring);
    ``group`` names root's cgroup v2 parent (the hub's servers use ``tokhub``). With
    ``cpu``, a cgroup mechanism is returned only when it has the CPU controller too
    (v1: a writable ``cpu`` hierarchy, the third of ``parents``; v2: ``cpu`` enabled),
    for :func:`open_cap`'s ``cpu``; the delegated v2 subtree and systemd are not offered
    then (they are the sandbox's, inside a server).

    >>> find_mechanism(mounts_file="/nonexistent").name in ("none", "systemd")
    True
    """
    try:
        mounts, own = _mounts(mounts_file), _own_groups(cgroup_file)
    except OSError as e:
        mounts, own = [], {}
        why = f"cannot read the cgroup mounts ({e})"
    else:
        why = "no cgroup file system is mounted" if not mounts else ""
    for point, kind, _ in mounts:
        if kind == "cgroup2" and _writable(point):
            parent = _v2_parent(point, group, cpu)
            if parent:
                return Mechanism("cgroup2", f"cgroup v2 at {point}", (parent,))
        elif kind == "cgroup2" and not cpu:
            parent = _v2_delegated(point, own.get("", ""))
            if parent:
                return Mechanism("cgroup2", f"cgroup v2, delegated to you at {parent}", (parent,))
    wanted = ("memory", "pids", "cpu") if cpu else ("memory", "pids")
    v1 = {c: p for p, kind, opts in mounts if kind == "cgroup" for c in wanted if c in opts}
    if set(wanted) <= set(v1):
        parents = tuple(os.path.join(v1[c], own.get(c, "/").lstrip("/")) for c in wanted)
        if all(_writable(p) for p in parents):
            whose = "" if os.geteuid() == 0 else ", delegated to you"
            return Mechanism("cgroup1", f"cgroup v1 {', '.join(wanted)}{whose} at {', '.join(parents)}",
                             parents)
    if cpu:
        why = why or "no writable cgroup hierarchy with the memory, pids and cpu controllers"
        return Mechanism("none", f"no cgroup with a CPU controller: {why}. Run the hub as root on "
                         "a machine whose cgroup v1 cpu, memory and pids hierarchies (or cgroup v2 "
                         "with those controllers) are mounted writable")
    if os.geteuid() != 0 and _systemd_works():
        return Mechanism("systemd", "systemd-run --user --scope (cgroup v2 delegated to your user)")
    why = why or ("the cgroup hierarchies are not writable by this user and "
                  "`systemd-run --user --scope` does not work here")
    return Mechanism("none", f"no cgroup for the whole submission: {why}. To get one, grade as "
                     "root, or as a user with a systemd user session (`systemd-run --user "
                     "--scope` must work), or from a terminal of your server on a hub whose "
                     "spawner delegates a group to you (autograder/hub/capped_spawner.py), "
                     "or run the grader in a container with a memory and "
                     "pids limit (docker run --memory 8g --pids-limit 512; a pod's "
                     "resources.limits), which caps all submissions together")


@dataclass
class Cap:
    """One sandbox's group(s): made by :func:`open_cap`, entered by the command
    :meth:`wrap` returns, read and removed by :meth:`close`."""

    mechanism: Mechanism
    memory_mb: int
    tasks: int
    dirs: list[str] = field(default_factory=list)
    cpu: float | None = None  # the CPUs all its processes may use together (None: no cap)

    def describe(self) -> str:
        """The sentence the report shows, e.g. 'cgroup v1: 4096 MiB and 128 tasks ...'."""
        label = {"cgroup2": "cgroup v2", "cgroup1": "cgroup v1", "systemd": "systemd-run scope"}
        return (f"{label[self.mechanism.name]}: {self.memory_mb} MiB and {self.tasks} tasks "
                "for all the submission's processes together")

    def wrap(self, command: list[str]) -> list[str]:
        """``command`` started inside the group(s) (unchanged where there is none)."""
        if self.mechanism.name == "none":
            return command
        if self.mechanism.name == "systemd":
            return ["systemd-run", "--user", "--scope", "--quiet", "--collect",
                    "-p", f"MemoryMax={self.memory_mb}M", "-p", "MemorySwapMax=0",
                    "-p", f"TasksMax={self.tasks}", "--", *command]
        return ["/bin/sh", "-c", ENTER, "tokgrade-cap",
                *(os.path.join(d, "cgroup.procs") for d in self.dirs), "--", *command]

    def close(self) -> list[str]:
        """What the group held the submission to, in sentences (empty when it never had
        to); then the group is removed."""
        seen = []
        for d in self.dirs:
            oom = _counter(d, "memory.events", "oom_kill") or _counter(d, "memory.oom_control", "oom_kill")
            if oom:
                seen.append(f"{oom} process(es) killed at the memory cap of {self.memory_mb} MiB")
            if _counter(d, "pids.events", "max"):
                seen.append(f"a new process or thread refused at the cap of {self.tasks} tasks")
            throttled = _counter(d, "cpu.stat", "nr_throttled")
            if throttled and self.cpu:
                seen.append(f"held to {self.cpu:g} CPU(s) in {throttled} periods of 0.1 s")
        for d in self.dirs:
            _remove(d)
        self.dirs = []
        return seen


def _counter(directory: str, name: str, key: str) -> int:
    try:
        for line in Path(directory, name).read_text().splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
    except (OSError, ValueError):
        pass
    return 0


def _remove(directory: str) -> None:
    """rmdir a group and the groups inside it, deepest first, once their processes are
    gone (the kernel's end kills them; the kernel may take a moment to reap them)."""
    inner = [d for d, _, _ in os.walk(directory, topdown=False)] if os.path.isdir(directory) else []
    for d in inner:
        for _ in range(50):
            try:
                os.rmdir(d)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.1)


def kill_all(dirs: list[str]) -> None:
    """SIGKILL every process in the groups and the groups inside them (what a stopped
    server left behind), and wait up to 5 s until they are gone."""
    for _ in range(50):
        pids = set()
        for directory in dirs:
            for d, _, _ in os.walk(directory):
                try:
                    pids |= {int(x) for x in Path(d, "cgroup.procs").read_text().split()}
                except (OSError, ValueError):
                    pass
        pids.discard(os.getpid())
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        time.sleep(0.1)


def delegate(dirs: list[str], uid: int, gid: int, *, v2: bool) -> list[str]:
    """Give the groups ``dirs`` (made by :func:`open_cap`) to a user, who may then make
    groups inside them and move their own processes there, but not change the limits of
    ``dirs`` themselves (those files stay root's) nor leave them; the groups a process
    started for that user enters. cgroup v1: the directory, ``cgroup.procs`` and ``tasks``
    of each; v2 (one directory): the directory, ``cgroup.procs``, ``cgroup.threads`` and
    ``cgroup.subtree_control``, memory and pids passed down, and the process in a child
    ``server`` (a v2 group that has children holds no processes of its own)."""
    files = ("cgroup.procs", "cgroup.threads", "cgroup.subtree_control") if v2 else ("cgroup.procs", "tasks")
    for d in dirs:
        os.chown(d, uid, gid)
        for name in files:
            if os.path.exists(os.path.join(d, name)):
                os.chown(os.path.join(d, name), uid, gid)
    if not v2:
        return list(dirs)
    [d] = dirs
    Path(d, "cgroup.subtree_control").write_text("+memory +pids")
    server = os.path.join(d, "server")
    os.makedirs(server, exist_ok=True)
    for path in (server, os.path.join(server, "cgroup.procs")):
        os.chown(path, uid, gid)
    return [server]


CPU_PERIOD_US = 100_000  # the scheduler's accounting period for a CPU cap (its default)


def cpu_files(cpu: float | None) -> dict[str, str]:
    """The files that cap a group at ``cpu`` CPUs (v1 and v2 names; each group has only
    its own kind). None: no cap, and nothing is written.

    >>> cpu_files(1.5)["cpu.max"], cpu_files(1.5)["cpu.cfs_quota_us"]
    ('150000 100000', '150000')
    >>> cpu_files(None)
    {}
    """
    if cpu is None:
        return {}
    if cpu <= 0:
        raise ValueError(f"a CPU cap must be positive, not {cpu} (None: no cap)")
    quota = max(1000, round(cpu * CPU_PERIOD_US))  # the kernel's least quota is 1 ms
    return {"cpu.cfs_period_us": str(CPU_PERIOD_US), "cpu.cfs_quota_us": str(quota),
            "cpu.max": f"{quota} {CPU_PERIOD_US}"}


def open_cap(mechanism: Mechanism, *, memory_mb: int, tasks: int, name: str,
             cpu: float | None = None) -> Cap:
    """Make the group(s) of one sandbox, called ``name``, with their limits; ``cpu``: at
    most that many CPUs for all its processes together (the mechanism must have been
    found with ``find_mechanism(cpu=True)``, else the cap is not applied)."""
    cap = Cap(mechanism, memory_mb, tasks, cpu=cpu)
    if mechanism.name not in ("cgroup1", "cgroup2"):
        return cap
    limit = str(memory_mb * 2**20)
    for parent in mechanism.parents:
        d = os.path.join(parent, name)
        os.makedirs(d, exist_ok=True)
        cap.dirs.append(d)
        files = {"memory.max": limit, "memory.swap.max": "0", "pids.max": str(tasks),
                 "memory.limit_in_bytes": limit, "memory.memsw.limit_in_bytes": limit,
                 **cpu_files(cpu)}
        for f, value in files.items():
            path = Path(d, f)
            if path.exists():
                try:
                    path.write_text(value)
                except OSError:
                    if f != "memory.memsw.limit_in_bytes":  # absent without swap accounting
                        cap.close()
                        raise
    return cap
