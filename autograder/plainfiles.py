"""Plain files only: check and copy a student's folder, or unpack an archive, without
ever following a link or reading a special file.

A submission folder in nbgrader's exchange, or an archive from an LMS, is made by a
student, and collecting reads it with the instructor's rights. Followed, a symbolic link
in it hands the student whatever the instructor can read (``env.txt ->
/proc/<pid>/environ``, ``chars.ipynb -> source/chars/chars.ipynb``, ``gradebook.db``),
and a link to ``/dev/zero`` or a FIFO fills the disk or hangs the collect. So:

- :func:`scan` takes a folder apart with ``lstat`` (never following anything): its
  directories and regular files, with their size and identity (device, inode). A link
  (dangling or not; a hard link too), FIFO, socket or device, or a size over the caps, raises
  :class:`NotPlain`, saying which path and why.
- :func:`copy_checked` then copies exactly what was scanned: every directory and file is
  opened relative to its already-opened parent with ``O_NOFOLLOW | O_NONBLOCK`` and must
  still be the same inode, of the same type, no larger than scanned. A file swapped for a
  link between the two steps is refused, never read.
- :func:`archive_members` lists what a zip or tar holds and refuses links, absolute
  paths, ``..``, and bombs (more bytes than a cap, or a compression ratio above one);
  :func:`extract_members` writes the rest as new plain files. A compressed tar is read
  as a stream through :class:`CountedReader`, never decompressed past its caps: listing
  it with ``tarfile.open(path)`` would decompress all of it first (seconds per GB).
"""

from __future__ import annotations

import bz2
import contextlib
import fnmatch
import gzip
import io
import lzma
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
CHUNK = 1 << 20


class NotPlain(Exception):
    """Why a folder or archive is not collected; the message names the path and the cause."""


@dataclass(frozen=True)
class Entry:
    path: str         # relative to the scanned folder; "." is the folder itself
    is_dir: bool
    size: int         # bytes (0 for a directory)
    ino: tuple[int, int]  # (st_dev, st_ino): the very file that was checked
    ctime: float


def kind(mode: int) -> str:
    """What a file that is not plain is, in words.

    >>> kind(stat.S_IFLNK), kind(stat.S_IFIFO), kind(stat.S_IFREG)
    ('a symbolic link', 'a FIFO', 'a regular file')
    """
    for test, name in [(stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISREG, "a regular file")]:
        if test(mode):
            return name
    return "a special file"


def ignored(name: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Whether ``name`` matches one of nbgrader's ``CourseDirectory.ignore`` globs.

    >>> ignored(".ipynb_checkpoints", [".ipynb_checkpoints", "*.pyc"]), ignored("a.py", ["*.pyc"])
    (True, False)
    """
    return any(fnmatch.fnmatch(name, p) for p in patterns)


def scan(folder: str, *, ignore: list[str] | tuple[str, ...] = (), include: list[str] | tuple[str, ...] = ("*",),
         max_file_kb: int = 0, max_dir_kb: int = 0, max_entries: int = 10_000) -> list[Entry]:
    """The directories and regular files to collect from ``folder``, parents first.

    Like nbgrader's copy: names matching ``ignore`` are left out (and not looked into),
    files not matching ``include`` too; sizes are in nbgrader's kilobytes (1000 bytes),
    0 meaning no cap. Raises :class:`NotPlain` for anything else than a directory or a
    regular file (the folder itself included), a file over ``max_file_kb``, a total
    over ``max_dir_kb``, or more than ``max_entries`` names in all (a million empty files
    cost no bytes, but minutes to copy and an inode each). Nothing is opened: only ``lstat``.

    >>> import tempfile; d = tempfile.mkdtemp(); open(f"{d}/a.ipynb", "w").write("{}")
    2
    >>> [(e.path, e.is_dir, e.size) for e in scan(d)]
    [('.', True, 0), ('a.ipynb', False, 2)]
    >>> os.symlink("/etc/passwd", f"{d}/b.txt"); scan(d)
    Traceback (most recent call last):
    autograder.plainfiles.NotPlain: contains a link or special file: b.txt is a symbolic link
    """
    entries, total, seen = [], 0, 0
    todo = ["."]
    while todo:
        rel = todo.pop(0)
        st = os.lstat(os.path.join(folder, rel))
        if not stat.S_ISDIR(st.st_mode):
            raise NotPlain(f"contains a link or special file: {rel} is {kind(st.st_mode)}")
        entries.append(Entry(rel, True, 0, (st.st_dev, st.st_ino), st.st_ctime))
        names = os.listdir(os.path.join(folder, rel))
        seen += len(names)
        if max_entries and seen > max_entries:
            raise NotPlain(f"holds more than {max_entries} files and folders "
                           "(CheckedExchangeCollect.max_entries)")
        for name in sorted(names):
            path = os.path.normpath(os.path.join(rel, name))
            if ignored(name, ignore):
                continue
            st = os.lstat(os.path.join(folder, path))
            if stat.S_ISDIR(st.st_mode):
                todo.append(path)
            elif not stat.S_ISREG(st.st_mode):
                raise NotPlain(f"contains a link or special file: {path} is {kind(st.st_mode)}")
            elif st.st_nlink > 1:  # another name of a file elsewhere, maybe not the student's
                raise NotPlain(f"contains a link or special file: {path} is a hard link "
                               f"({st.st_nlink} names)")
            elif any(fnmatch.fnmatch(name, p) for p in include):
                if max_file_kb and st.st_size > 1000 * max_file_kb:
                    raise NotPlain(f"{path} has {st.st_size} bytes, over the cap of {1000 * max_file_kb} "
                                   "(CourseDirectory.max_file_size, in kB)")
                total += st.st_size
                if max_dir_kb and total > 1000 * max_dir_kb:
                    raise NotPlain(f"holds more than {1000 * max_dir_kb} bytes "
                                   "(CourseDirectory.max_dir_size, in kB)")
                entries.append(Entry(path, False, st.st_size, (st.st_dev, st.st_ino), st.st_ctime))
    return entries


def _same(fd: int, entry: Entry) -> os.stat_result:
    st = os.fstat(fd)
    ok = stat.S_ISDIR(st.st_mode) if entry.is_dir else stat.S_ISREG(st.st_mode)
    if not ok or (st.st_dev, st.st_ino) != entry.ino:
        raise NotPlain(f"{entry.path} changed while it was collected (now {kind(st.st_mode)}, "
                       "another file than the one checked)")
    return st


def copy_checked(src: str, dest: str, entries: list[Entry], *, dir_mode: int = 0o700,
                 file_mode: int = 0o600) -> float:
    """Copy the ``entries`` that :func:`scan` found in ``src`` into ``dest`` (which must
    not exist); returns the latest change time (ctime) of what was copied, read after
    reading it. Raises :class:`NotPlain` if anything is no longer what was scanned (a
    link now, another file, grown); ``dest`` may then hold part of the copy: remove it.

    >>> import tempfile; d = tempfile.mkdtemp(); open(f"{d}/a.ipynb", "w").write("{}")
    2
    >>> found = scan(d); _ = copy_checked(d, d + "-copy", found); open(d + "-copy/a.ipynb").read()
    '{}'
    >>> os.remove(f"{d}/a.ipynb"); os.symlink("/etc/passwd", f"{d}/a.ipynb")
    >>> copy_checked(d, d + "-again", found)
    Traceback (most recent call last):
    autograder.plainfiles.NotPlain: a.ipynb changed while it was collected (not a regular file any more: [Errno 40] Too many levels of symbolic links: 'a.ipynb')
    """
    fds: dict[str, int] = {}
    latest = 0.0
    try:
        for entry in entries:
            parent, name = os.path.split(entry.path)
            target = os.path.normpath(os.path.join(dest, entry.path))
            try:
                fd = (os.open(src, OPEN | os.O_DIRECTORY) if entry.path == "."
                      else os.open(name, OPEN | (os.O_DIRECTORY if entry.is_dir else 0),
                                   dir_fd=fds[parent or "."]))
            except OSError as e:
                raise NotPlain(f"{entry.path} changed while it was collected (not a "
                               f"{'directory' if entry.is_dir else 'regular file'} any more: {e})") from None
            if entry.is_dir:
                fds[entry.path] = fd
                _same(fd, entry)
                os.mkdir(target, dir_mode)
                os.chmod(target, dir_mode)  # mkdir's mode passes through the umask
                continue
            try:
                _same(fd, entry)
                _copy_fd(fd, target, entry, file_mode)
                latest = max(latest, os.fstat(fd).st_ctime)
            finally:
                os.close(fd)
        for fd in fds.values():
            latest = max(latest, os.fstat(fd).st_ctime)
    finally:
        for fd in fds.values():
            os.close(fd)
    return latest


def copy_file(src: str, dest: str) -> None:
    """Copy the regular file ``src`` (never a link's target) into the new file ``dest``
    (mode 0600); :class:`NotPlain` if ``src`` is anything else.

    >>> import tempfile; d = tempfile.mkdtemp(); os.symlink("/etc/passwd", f"{d}/a")
    >>> copy_file(f"{d}/a", f"{d}/b")
    Traceback (most recent call last):
    autograder.plainfiles.NotPlain: a is a symbolic link, not a regular file
    """
    name = os.path.basename(src)
    st = os.lstat(src)
    if not stat.S_ISREG(st.st_mode):
        raise NotPlain(f"{name} is {kind(st.st_mode)}, not a regular file")
    entry = Entry(name, False, st.st_size, (st.st_dev, st.st_ino), st.st_ctime)
    try:
        fd = os.open(src, OPEN)
    except OSError as e:
        raise NotPlain(f"{name} changed while it was collected ({e})") from None
    try:
        _same(fd, entry)
        _copy_fd(fd, dest, entry, 0o600)
    finally:
        os.close(fd)


def _copy_fd(fd: int, target: str, entry: Entry, mode: int) -> None:
    """At most ``entry.size`` bytes of ``fd`` into a new file; refused if there are more."""
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        left = entry.size
        while left > 0:
            block = os.read(fd, min(CHUNK, left))
            if not block:
                break
            os.write(out, block)
            left -= len(block)
        if os.read(fd, 1):
            raise NotPlain(f"{entry.path} grew while it was collected (past the {entry.size} bytes checked)")
        os.fchmod(out, mode)
    finally:
        os.close(out)


# ---------------------------------------------------------------------------------------
# Archives
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    name: str      # the member's own name in the archive
    path: str      # where it goes, relative, checked
    is_dir: bool
    size: int


def member_path(name: str) -> str | None:
    """The relative path an archive member may be written to, or None if its name is
    absolute or climbs out (``..``).

    >>> member_path("alice/chars.ipynb"), member_path("/etc/cron.d/x"), member_path("a/../../x")
    ('alice/chars.ipynb', None, None)
    """
    name = name.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if name.startswith("/") or (parts and ":" in parts[0]) or ".." in parts or not parts:
        return None
    return "/".join(parts)


def archive_members(path: str, *, max_bytes: int, max_file_bytes: int = 0,
                    max_ratio: float = 100) -> tuple[list[Member], list[tuple[str, str]]]:
    """(members to extract, [(name, why refused)]) of the zip or tar ``path``.

    A link, device or FIFO entry, an absolute name or one with ``..``, or a file over
    ``max_file_bytes`` is refused alone; the whole archive raises :class:`NotPlain` when
    it is no zip or tar, or when it unpacks to more than ``max_bytes`` or to more than
    ``max_ratio`` times its own size (above 1 MB): a zip bomb.

    >>> import io, tempfile; p = tempfile.mkdtemp() + "/a.zip"
    >>> with zipfile.ZipFile(p, "w") as z:
    ...     z.writestr("alice_chars.ipynb", "{}"); z.writestr("../evil", "x")
    >>> ok, refused = archive_members(p, max_bytes=10**6); [m.path for m in ok], refused
    (['alice_chars.ipynb'], [('../evil', 'an absolute path or one with ..')])
    """
    packed = max(os.path.getsize(path), 1)
    limit = stream_limit(path, max_bytes, max_ratio)
    refused, members = [], []
    try:
        listing = _listing_checked(path, limit)
    except TooBig as e:  # the headers, or the stream, already past a cap: no need to read on
        if e.total > max_bytes:
            raise TooBig(e.total, f"unpacks to more than {max_bytes} bytes, the cap") from None
        raise NotPlain(f"unpacks to more than {e.total} bytes from {packed} (ratio over "
                       f"{max_ratio:g}): a zip bomb?") from None
    for name, mode, size in listing:
        where = member_path(name)
        if where is None:
            refused.append((name, "an absolute path or one with .."))
        elif mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            refused.append((name, f"{kind(mode)}, not a regular file"))
        elif max_file_bytes and size > max_file_bytes:
            refused.append((name, f"{size} bytes, over the cap of {max_file_bytes}"))
        else:
            members.append(Member(name, where, stat.S_ISDIR(mode or stat.S_IFREG), size))
    total = sum(m.size for m in members)
    if total > max_bytes:
        raise TooBig(total, f"unpacks to {total} bytes from {packed}, over the cap of {max_bytes}")
    if total > 10**6 and total > max_ratio * packed:
        raise NotPlain(f"unpacks to {total} bytes from {packed} (ratio over {max_ratio:g}): a zip bomb?")
    return members, refused


def stream_limit(path: str, max_bytes: int, max_ratio: float) -> int:
    """The decompressed bytes a tar ``path`` may be read for, under the caps of
    :func:`archive_members`: its refused entries count too (the stream reads through
    them), and its headers and padding have 1 MB more.

    >>> import tempfile; p = tempfile.mkdtemp() + "/a.tar"; open(p, "wb").write(b"x" * 10**5)
    100000
    >>> stream_limit(p, 10**9, 100), stream_limit(p, 10**6, 100)
    (11000000, 2000000)
    """
    packed = max(os.path.getsize(path), 1)
    return int(min(max_bytes, max(max_ratio * packed, 10**6))) + 10**6


def _listing_checked(path: str, limit: int) -> list[tuple[str, int | None, int]]:
    """:func:`_listing`, whose stream errors (a truncated or corrupt tar) say so."""
    try:
        return _listing(path, limit)
    except NotPlain:
        raise
    except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as e:
        raise NotPlain(f"is neither a zip nor a tar archive ({e})") from None


def _listing(path: str, limit: int) -> list[tuple[str, int | None, int]]:
    """(name, mode or None for "a file", uncompressed size) of each member; a tar is read
    as a stream of at most ``limit`` decompressed bytes, and refused (:class:`TooBig`) as
    soon as its headers claim more than ``limit`` bytes."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            out = []
            for info in z.infolist():
                mode = info.external_attr >> 16 if info.create_system == 3 else 0
                if not stat.S_IFMT(mode):  # no Unix type recorded: a file or a directory
                    mode = stat.S_IFDIR if info.is_dir() else stat.S_IFREG
                out.append((info.filename, mode, info.file_size))
            return out
    out, total = [], 0
    with open_tar_stream(path, limit) as t:
        for m in t:  # the next header is read only after this one's size is checked
            total += m.size
            if total > limit:
                raise TooBig(total, f"unpacks to more than {limit} bytes")
            out.append((m.name, _tar_mode(m), m.size))
    return out


class TooBig(NotPlain):
    """An archive that unpacks to more bytes than it may; ``total`` is how many it claims
    (at least)."""

    def __init__(self, total: int, message: str) -> None:
        super().__init__(message)
        self.total = total


class CountedReader(io.RawIOBase):
    """A binary file that raises :class:`TooBig` once more than ``limit`` bytes were read
    from ``source``: a decompressor is stopped at the cap, not at the end of the bomb.

    >>> r = CountedReader(io.BytesIO(b"x" * 10), limit=4); r.read(3)
    b'xxx'
    >>> r.read(3)
    Traceback (most recent call last):
    autograder.plainfiles.TooBig: decompresses to more than 4 bytes
    """

    def __init__(self, source: io.IOBase, limit: int) -> None:
        self.source, self.limit, self.count = source, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.source.read(min(len(buffer), self.limit + 1 - self.count))
        self.count += len(data)
        if self.count > self.limit:
            raise TooBig(self.count, f"decompresses to more than {self.limit} bytes")
        buffer[:len(data)] = data
        return len(data)


_MAGIC = [(b"\x1f\x8b", lambda f: gzip.GzipFile(fileobj=f)), (b"BZh", bz2.BZ2File),
          (b"\xfd7zXZ\x00", lzma.LZMAFile)]


@contextlib.contextmanager
def open_tar_stream(path: str, limit: int) -> Iterator[tarfile.TarFile]:
    """The tar ``path`` (plain, gzip, bzip2 or xz, told by its first bytes, whatever its
    name) opened as a stream (``r|``: members in order, nothing read ahead), reading at
    most ``limit`` decompressed bytes; :class:`NotPlain` if it is no tar.

    >>> import tempfile; p = tempfile.mkdtemp() + "/a.tar.gz"
    >>> with tarfile.open(p, "w:bz2") as t:
    ...     t.addfile(tarfile.TarInfo("a"), io.BytesIO())
    >>> with open_tar_stream(p, 10**6) as t: [m.name for m in t]
    ['a']
    """
    with open(path, "rb") as raw:
        head = raw.read(6)
        raw.seek(0)
        opener = next((o for magic, o in _MAGIC if head.startswith(magic)), None)
        try:
            tar = tarfile.open(fileobj=io.BufferedReader(CountedReader(opener(raw) if opener else raw,
                                                                       limit), CHUNK), mode="r|")
        except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as e:
            raise NotPlain(f"is neither a zip nor a tar archive ({e})") from None
        with tar:
            yield tar


def _tar_mode(m: tarfile.TarInfo) -> int:
    types = {tarfile.REGTYPE: stat.S_IFREG, tarfile.AREGTYPE: stat.S_IFREG, tarfile.DIRTYPE: stat.S_IFDIR,
             tarfile.SYMTYPE: stat.S_IFLNK, tarfile.LNKTYPE: stat.S_IFLNK, tarfile.FIFOTYPE: stat.S_IFIFO,
             tarfile.CHRTYPE: stat.S_IFCHR, tarfile.BLKTYPE: stat.S_IFBLK}
    return types.get(m.type, stat.S_IFSOCK)  # anything else: refused as special


def extract_members(path: str, dest: str, members: list[Member], *, limit: int = 0) -> list[str]:
    """Write ``members`` of the archive ``path`` under ``dest`` as new plain files (mode
    0600, directories 0700), each cut at its listed size; the paths written. A tar is
    read as a stream again, at most ``limit`` decompressed bytes (give the
    :func:`stream_limit` it was listed with; by default, the members' bytes and 1 MB).

    >>> import tempfile; d = tempfile.mkdtemp(); p = d + "/a.tar.gz"
    >>> with tarfile.open(p, "w:gz") as t:
    ...     t.addfile(tarfile.TarInfo("a_chars.ipynb"), io.BytesIO())
    >>> ok, _ = archive_members(p, max_bytes=10**6); extract_members(p, d + "/x", ok) == [d + "/x/a_chars.ipynb"]
    True
    """
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return [w for m in members if (w := _write(m, dest, lambda m: z.open(m.name)))]
    wanted = {m.name: m for m in members}
    limit = limit or sum(m.size for m in members) + 10**6 + 1024 * len(members)
    written = []
    with open_tar_stream(path, limit) as t:
        for info in t:
            m = wanted.pop(info.name, None)
            if m is not None:
                written.append(_write(m, dest, lambda m: t.extractfile(info) or io.BytesIO()))
    return [w for w in written if w]


def _write(m: Member, dest: str, source) -> str:
    """Write the member ``m`` under ``dest`` from ``source(m)`` (a binary file); its path,
    or "" for a directory."""
    target = os.path.join(dest, m.path)
    if m.is_dir:
        os.makedirs(target, 0o700, exist_ok=True)
        return ""
    os.makedirs(os.path.dirname(target), 0o700, exist_ok=True)
    with source(m) as src, open(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                                        0o600), "wb") as out:
        left = m.size
        while left > 0 and (block := src.read(min(CHUNK, left))):
            out.write(block)
            left -= len(block)
        if src.read(1):
            raise NotPlain(f"{m.name} unpacks to more than the {m.size} bytes it says")
    return target
