"""Each user's server in a control group of its own: memory and tasks capped per server.

JupyterHub's ``LocalProcessSpawner`` starts ``jupyterhub-singleuser`` as the user and
limits nothing: one student's kernel that allocates 30 GB, or forks without end, takes a
one-machine hub down for everyone (JupyterHub's ``Spawner.mem_limit`` is documented as
not enforced by it). :class:`CappedSpawner` is that spawner, plus:

- before the server starts, the hub (root) makes a group for it with
  ``autograder/cgroups.py``, the grading sandbox's own code: ``tokhub/jupyterhub-user-<user>``
  under the cgroup v2 root, or a child ``jupyterhub-user-<user>`` of the hub's own group in
  cgroup v1's memory and pids hierarchies; its limits are ``Spawner.mem_limit`` (no swap beyond it)
  and :attr:`CappedSpawner.tasks_limit`;
- the server's process enters the group in ``preexec_fn``, still root, before it drops to
  the user and before it execs: every process the server starts (kernels, terminals,
  what they fork) is born inside, and a user cannot move out (the groups above are root's);
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

jupyterhub_config.py::

    c.JupyterHub.spawner_class = CappedSpawner
    c.Spawner.mem_limit = "2G"
    c.CappedSpawner.tasks_limit = 256
    c.CappedSpawner.delegate = {"tokhub-instructor"}
"""

from __future__ import annotations

import os
import pwd
import sys
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Bool, Integer, Set, Unicode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import cgroups  # noqa: E402  autograder/cgroups.py: the same groups as the grading sandbox


class CappedSpawner(LocalProcessSpawner):
    """``LocalProcessSpawner`` with each server in a capped group (module docstring)."""

    tasks_limit = Integer(512, help="Processes and threads of one user's server, all together"
                          ).tag(config=True)
    delegate = Set(Unicode(), help="Users whose server's group is theirs, to grade in with a "
                   "cap per submission (the instructors)").tag(config=True)
    require_cap = Bool(True, help="Refuse to start a server when no group can be made "
                       "(False: start it unlimited, with a warning)").tag(config=True)

    _cap: cgroups.Cap | None = None

    def _memory_mb(self) -> int:
        if not self.mem_limit:
            raise ValueError("CappedSpawner needs c.Spawner.mem_limit (for example \"2G\")")
        return int(self.mem_limit) // 2**20

    def _open(self) -> list[str]:
        """Make the server's group; the ``cgroup.procs`` files its process enters."""
        mech = cgroups.find_mechanism(group="tokhub")
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
                                     name=name)
        dirs = list(self._cap.dirs)
        if self.user.name in self.delegate:
            entry = pwd.getpwnam(self.user.name)
            dirs = cgroups.delegate(self._cap.dirs, entry.pw_uid, entry.pw_gid,
                                    v2=mech.name == "cgroup2")
        self.log.info("%s's server capped: %s MiB, %s tasks, in %s%s", self.user.name,
                      self._cap.memory_mb, self._cap.tasks, ", ".join(dirs),
                      " (delegated)" if self.user.name in self.delegate else "")
        return [os.path.join(d, "cgroup.procs") for d in dirs]

    async def start(self):
        self._procs = self._open()
        return await super().start()

    def make_preexec_fn(self, name):
        setuid = super().make_preexec_fn(name)
        procs = list(getattr(self, "_procs", []))

        def preexec() -> None:  # in the child, still root: enter the group, then become the user
            for path in procs:
                with open(path, "w") as f:
                    f.write(str(os.getpid()))
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

