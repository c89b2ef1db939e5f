"""A mount namespace of its own for each user's server: private, capped /tmp and /dev/shm,
and the exchange read-only but for the user's own inbound.

On a one-machine hub every user's server shares the machine's /tmp and /dev/shm, which
no memory cap counts once the writer is gone (a student fills /dev/shm, restarts their
server, fills it again: issue 34, F10), and the exchange, where any student may create
the course's directory before the instructor does. :func:`enter` is called by
``capped_spawner.py`` in the server's ``preexec_fn``: in the child, after it entered its
cgroup, still root, before it becomes the user. It

1. unshares a mount namespace (``unshare(CLONE_NEWNS)``: the server and every process it
   starts see the mounts below; nothing else does);
2. makes every mount a slave (``MS_REC | MS_SLAVE``): what the admin mounts later still
   appears inside, nothing mounted inside propagates out;
3. mounts a tmpfs of its own, ``mode=1777``, ``size=`` as configured, on each of
   ``tmpfs`` (e.g. /tmp, /var/tmp, /dev/shm): a write past the size fails with ENOSPC,
   and its pages are charged to the writer's memory cgroup (the server's cap counts them);
4. bind-mounts each of ``read_only`` onto itself read-only (the exchange's course
   directory: fetch and fetch_feedback read it; no one writes it from this server);
5. bind-mounts each ``source`` of ``binds`` onto its target (the course's ``inbound``
   from a directory on the user's own size-capped file system, so a submission counts in
   the user's disk cap and nowhere else).

The directories of steps 4 and 5 are opened before step 3, so a tmpfs may hide what they
are in: nbgrader insists that the exchange's root be writable by everyone (its
``ensure_root``), so a student's server gets a tiny tmpfs of its own there, and in it the
real course directory, read-only, with the student's own inbound in that. A target a
tmpfs hid is made in it (root's, 0755).

When the last process of the server dies (the spawner's stop kills its whole cgroup), the
namespace goes, and with it the tmpfs mounts and their pages.

Every step fails with :class:`MountError`, whose message says what failed and how to fix
it; the spawner then refuses to start the server (fail closed). Example (as root)::

    enter(tmpfs={"/tmp": "256M", "/dev/shm": "64M", "/srv/exchange": "1M"},
          read_only=["/srv/exchange/course"],
          binds={"/srv/exchange/course/inbound": "/srv/users/alice/inbound"})
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

O_PATH = getattr(os, "O_PATH", 0o10000000)
CLONE_NEWNS = 0x00020000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_SLAVE = 0x80000

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.unshare.argtypes = [ctypes.c_int]


class MountError(RuntimeError):
    """A step of the server's private mounts failed; the message says which and the fix."""


FIX = ("the hub must run as root on Linux, outside a container that forbids mounts (or with "
       "CAP_SYS_ADMIN); or set c.CappedSpawner.private_mounts = False to start servers "
       "without a namespace of their own (shared, uncapped /tmp and /dev/shm)")


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise MountError(f"{what}: {os.strerror(err)} (errno {err}); {FIX}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    enc = (lambda s: None if s is None else s.encode())
    _check(_libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)),
           f"mount {source or ''} on {target} ({fstype or 'bind'}, flags {flags:#x}, {data or ''})")


def unshare_mounts() -> None:
    """A mount namespace of its own for this process, slave to the machine's: mounts
    made in it stay in it."""
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_SLAVE)


def mount_tmpfs(target: str, size: str) -> None:
    """A fresh tmpfs of ``size`` (tmpfs syntax: ``256M``, ``1G``, ``10%``) on ``target``,
    world-writable and sticky like /tmp."""
    if not os.path.isdir(target):
        raise MountError(f"{target} is not a directory: cannot put a private tmpfs on it; remove it "
                         "from c.CappedSpawner.private_tmpfs")
    _mount("tokhub-tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=1777")


def hold(source: str) -> int:
    """An ``O_PATH`` descriptor of the directory ``source``: :func:`bind` binds it even
    once a tmpfs hides its path."""
    try:
        return os.open(source, O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as e:
        raise MountError(f"cannot bind {source}: {e.strerror} (the hub's recipe makes it before "
                         "the first server starts: autograder/hub/try_hub.sh)") from e


def bind(source: str, target: str, *, read_only: bool = False, fd: int | None = None) -> None:
    """``source`` (or the directory ``fd`` holds: :func:`hold`) seen at ``target``,
    read-only if asked; ``target`` is made if missing (in a fresh tmpfs)."""
    try:
        os.makedirs(target, mode=0o755, exist_ok=True)
    except OSError as e:
        raise MountError(f"cannot bind {source} on {target}: {e.strerror}") from e
    _mount(source if fd is None else f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    if read_only:  # a bind mount takes MS_RDONLY only in a remount of its own
        _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def enter(*, tmpfs: dict[str, str], read_only: list[str] = (), binds: dict[str, str] | None = None) -> None:
    """Steps 1-5 of the module docstring, in this process (root): ``tmpfs`` maps a
    directory to its size, ``read_only`` lists directories seen read-only, ``binds`` maps
    a target to the source seen there (after ``read_only``: a bind inside a read-only
    directory stays writable when its source is)."""
    binds = binds or {}
    unshare_mounts()
    held = {path: hold(path) for path in [*read_only, *binds.values()]}
    try:
        for target, size in tmpfs.items():
            mount_tmpfs(target, size)
        for path in read_only:
            bind(path, path, read_only=True, fd=held[path])
        for target, source in binds.items():
            bind(source, target, fd=held[source])
    finally:
        for fd in held.values():
            os.close(fd)
