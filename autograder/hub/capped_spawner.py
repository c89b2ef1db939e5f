"""Each user's server in a control group and a mount namespace of its own: memory, tasks,
CPU, /tmp and /dev/shm capped per server, the exchange read-only but for the user's inbound.

JupyterHub's ``LocalProcessSpawner`` starts ``jupyterhub-singleuser`` as the user and
limits nothing: one student's kernel that allocates 30 GB, or forks without end, takes a
one-machine hub down for everyone (JupyterHub's ``Spawner.mem_limit`` and
``Spawner.cpu_limit`` are documented as not enforced by it); twenty busy loops, each in a
session of its own, take ten times an honest user's CPU (the kernel's autogroups); a
student fills the shared /dev/shm, restarts, and fills it again (issue 34).
:class:`CappedSpawner` is that spawner, plus:

- before the server starts, the hub (root) makes a group for it with
  ``autograder/cgroups.py``, the grading sandbox's own code: ``tokhub/jupyterhub-user-<user>``
  under the cgroup v2 root (memory, pids and cpu enabled), or a child
  ``jupyterhub-user-<user>`` of the hub's own group in cgroup v1's memory, pids and cpu
  hierarchies; its limits are ``Spawner.mem_limit`` (no swap beyond it),
  :attr:`CappedSpawner.tasks_limit` and ``Spawner.cpu_limit`` (CPUs for all its processes
  together; every server has the same CPU weight, so busy servers share the machine
  equally, whatever their number of processes or sessions). Without a cpu controller the
  group has memory and pids only, unless ``cpu_limit`` is set (then the server does not
  start);
- the server's process enters the group in ``preexec_fn``, still root, before it drops to
  the user and before it execs: every process the server starts (kernels, terminals,
  what they fork) is born inside, and a user cannot move out (the groups above are root's);
- in ``preexec_fn``, after entering the group, the server gets a mount namespace of its
  own (``private_mounts.py``): a fresh, size-capped tmpfs on each of
  :attr:`CappedSpawner.private_tmpfs` (/tmp, /var/tmp, /dev/shm; their pages count in
  the memory cap too), the directories of :attr:`CappedSpawner.read_only_paths` read-only
  (the exchange's course folder) and :attr:`CappedSpawner.bind_paths` bound in (the course's inbound from
  the user's own size-capped disk); all of it goes with the server's last process;
- for the users of :attr:`CappedSpawner.delegate` (the instructors), the group is theirs
  (cgroup delegation): ``grade.py`` run from their server, or the formgrader's Autograde,
  makes a group per submission inside it (``cgroups.find_mechanism`` finds it), so each
  submission has its own cap and all of them together stay within the server's. In cgroup
  v2 the server then runs in ``.../jupyterhub-user-<user>/server`` (a group with children may hold no
  processes of its own);
- when the server stops, whatever is left in the group is killed, what the cap did is
  logged (``N process(es) killed at the memory cap``), and the group is removed.

With no writable cgroup (not root, a container without its cgroup mounted), the hub
refuses to start a server rather than run it unlimited; ``require_cap = False`` lets it.
When the mount namespace cannot be made, the server does not start either (the hub's log
says why); ``private_mounts = False`` starts servers without one.

jupyterhub_config.py::

    c.JupyterHub.spawner_class = CappedSpawner
    c.Spawner.mem_limit = "2G"
    c.Spawner.cpu_limit = 1
    c.CappedSpawner.tasks_limit = 256
    c.CappedSpawner.delegate = {"tokhub-instructor"}
    c.CappedSpawner.private_tmpfs = {"/tmp": "256M", "/var/tmp": "64M", "/dev/shm": "256M",
                                     "/srv/nbgrader/exchange": "1M"}  # nbgrader wants it writable
    c.CappedSpawner.read_only_paths = ["/srv/nbgrader/exchange/course"]
    c.CappedSpawner.bind_paths = {"/srv/nbgrader/exchange/course/inbound": "/srv/users/{username}/inbound"}
"""

from __future__ import annotations

import os
import pwd
import sys
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Bool, Dict, Integer, List, Set, Unicode

from .. import cgroups  # autograder/cgroups.py: the same groups as the grading sandbox
from . import private_mounts  # autograder/hub/private_mounts.py: the server's mount namespace


class CappedSpawner(LocalProcessSpawner):
    """``LocalProcessSpawner`` with each server in a capped group (module docstring)."""

    tasks_limit = Integer(512, help="Processes and threads of one user's server, all together"
                          ).tag(config=True)
    delegate = Set(Unicode(), help="Users whose server's group is theirs, to grade in with a "
                   "cap per submission (the instructors)").tag(config=True)
    require_cap = Bool(True, help="Refuse to start a server when no group can be made "
                       "(False: start it unlimited, with a warning)").tag(config=True)
    private_mounts = Bool(True, help="Give each server a mount namespace of its own (private "
                          "tmpfs, read-only paths, binds); False: the machine's, shared and "
                          "uncapped").tag(config=True)
    private_tmpfs = Dict(Unicode(), default_value={"/tmp": "256M", "/var/tmp": "256M", "/dev/shm": "256M"},
                         help="Directory -> size (tmpfs's size=: 256M, 1G) of the server's own "
                         "tmpfs on it, emptied when the server stops").tag(config=True)
    read_only_paths = List(Unicode(), help="Directories the server sees read-only (the "
                           "exchange, for students)").tag(config=True)
    bind_paths = Dict(Unicode(), help="Target -> source bound in the server's namespace, after "
                      "read_only_paths; {username} in a source is the user's name (a student's "
                      "inbound from their own capped disk)").tag(config=True)

    _cap: cgroups.Cap | None = None

    def _memory_mb(self) -> int:
        if not self.mem_limit:
            raise ValueError("CappedSpawner needs c.Spawner.mem_limit (for example \"2G\")")
        return int(self.mem_limit) // 2**20

    def _mechanism(self) -> cgroups.Mechanism:
        """The cgroups with a cpu controller; without one, memory and pids only, unless
        ``cpu_limit`` asks for a cap (then the mechanism ``none``, and no server starts)."""
        mech = cgroups.find_mechanism(group="tokhub", cpu=True)
        if mech.name in ("cgroup1", "cgroup2") or self.cpu_limit:
            return mech
        self.log.warning("no cpu cgroup controller (%s): servers will not share the CPU fairly",
                         mech.detail)
        return cgroups.find_mechanism(group="tokhub")

    def _open(self) -> list[str]:
        """Make the server's group; the ``cgroup.procs`` files its process enters."""
        mech = self._mechanism()
        if mech.name not in ("cgroup1", "cgroup2") or os.geteuid() != 0:
            message = (f"no cgroup for {self.user.name}'s server: the hub must run as root with "
                       f"a writable cgroup hierarchy ({mech.detail})")
            if self.require_cap:
                raise RuntimeError(message + "; or set c.CappedSpawner.require_cap = False")
            self.log.warning("%s: starting it without a cap", message)
            return []
        name = f"jupyterhub-user-{self.user.name}"
        old = cgroups.Cap(mech, 0, 0, [os.path.join(p, name) for p in mech.parents])
        cgroups.kill_all(old.dirs)  # a server of an earlier hub that died without stop()
        old.close()
        self._cap = cgroups.open_cap(mech, memory_mb=self._memory_mb(), tasks=self.tasks_limit,
                                     name=name, cpu=self.cpu_limit or None)
        dirs = list(self._cap.dirs)
        if self.user.name in self.delegate:
            entry = pwd.getpwnam(self.user.name)
            dirs = cgroups.delegate(self._cap.dirs, entry.pw_uid, entry.pw_gid,
                                    v2=mech.name == "cgroup2")
        self.log.info("%s's server capped: %s MiB, %s tasks, %s CPU(s), in %s%s", self.user.name,
                      self._cap.memory_mb, self._cap.tasks, self._cap.cpu or "no cap on", ", ".join(dirs),
                      " (delegated)" if self.user.name in self.delegate else "")
        return [os.path.join(d, "cgroup.procs") for d in dirs]

    def _mounts(self) -> dict | None:
        """What :func:`private_mounts.enter` gets for this user's server (None: no
        namespace), checked here, in the hub, so that a mistake shows in the spawn's error
        rather than as a bare "Exception occurred in preexec_fn"."""
        if not self.private_mounts:
            self.log.warning("%s's server shares the machine's /tmp and /dev/shm "
                             "(c.CappedSpawner.private_mounts = False)", self.user.name)
            return None
        binds = {t: s.format(username=self.user.name) for t, s in self.bind_paths.items()}
        missing = [p for p in [*self.private_tmpfs, *self.read_only_paths, *binds, *binds.values()]
                   if not os.path.isdir(p)]
        if os.geteuid() != 0 or missing:
            why = "the hub is not root" if os.geteuid() != 0 else f"no directory {', '.join(missing)}"
            raise RuntimeError(f"{self.user.name}'s server cannot have its private mounts: {why}. "
                               "Run the hub as root and make the directories (try_hub.sh does for "
                               "its users), or set c.CappedSpawner.private_mounts = False")
        return {"tmpfs": dict(self.private_tmpfs), "read_only": list(self.read_only_paths), "binds": binds}

    async def start(self):
        self._mount_plan = self._mounts()
        self._procs = self._open()
        return await super().start()

    def make_preexec_fn(self, name):
        setuid = super().make_preexec_fn(name)
        procs = list(getattr(self, "_procs", []))
        plan = getattr(self, "_mount_plan", None)

        def preexec() -> None:  # in the child, still root: enter the group, the namespace, then become the user
            for path in procs:
                with open(path, "w") as f:
                    f.write(str(os.getpid()))
            if plan is not None:
                try:
                    private_mounts.enter(**plan)
                except private_mounts.MountError as e:  # the hub's log shows the child's stderr
                    os.write(2, f"CappedSpawner: {name}'s server not started: {e}\n".encode())
                    raise
            setuid()

        return preexec

    async def stop(self, now=False):
        try:
            await super().stop(now=now)
        finally:
            if self._cap is not None:
                cgroups.kill_all(self._cap.dirs)
                for seen in self._cap.close():
                    self.log.warning("%s's server: %s", self.user.name, seen)
                self._cap = None

    def get_env(self):
        env = super().get_env()
        env.setdefault("SHELL", "/bin/bash")
        return env

