"""nbgrader's collect, with each submission checked against who made it, when, and what
it holds; and nbgrader's zip_collect, unpacking only plain files.

nbgrader's exchange names a submission after the student the *submitter's* nbgrader
says it is from: ``inbound/<student>+<assignment>+<time>+<random>``. Any student can run
``nbgrader submit chars --student tokhub-alice``, and nbgrader's own collect, which
notices that the folder belongs to someone else, only logs "cheating attempt?" and
collects it as alice's anyway (nbgrader issue 1097). The submitter also keeps write
access to the folder after submitting and can edit its ``timestamp.txt`` (issue 1104).
:class:`CheckedExchangeCollect` is nbgrader's collect with two checks; ``nbgrader_config.py``
installs it (``ExchangeFactory.collect``), so ``nbgrader collect``, the formgrader's
*Collect* button and ``grade.py --collect exchange`` all use it:

**Who.** A submission whose folder, or any file in it, is not owned by the Linux user
of the student it names is never collected as that student: it is set aside (left in
the exchange), logged as an error, and recorded as two flags in ``grading-events.jsonl``,
one on the named student (``submission in your name by another user``) and one on the
owner (``submitted in another student's name``); the report lists it under *Not
collected*. The check is taken before nbgrader picks each student's latest submission,
so a forged newer one never hides the student's own. It holds where each student's
server runs as that student (local users, PAM, ``LocalProcessSpawner``, ``SystemdSpawner``).
Where every server runs as one system user (most container spawners) ownership proves
nothing: then every submission would be set aside, and nbgrader's ``check_owner =
False`` turns the check off; use an exchange that authenticates students instead (ngshare,
or the LMS with ``grade.py --collect zip``).

**When.** A file's *change time* (``ctime``) is set by the kernel on every write, rename
or chmod, and no user can set it back. A submission's folder is written once, at
submit, which ends by setting its permissions; after that, any edit by its owner moves
its ctime. So the time of a submission is taken as the latest ctime of its folder and
files, beside the ``timestamp.txt`` it carries. When ``timestamp.txt`` is more than
``time_tolerance`` seconds earlier, the submission is flagged (``submission changed
after its time``), and the collected copy's ``timestamp.txt`` gets the later time, which
nbgrader's late penalty then uses; the student's claim stays in the flag. The times
are read from the very files copied (see below), so a link cannot hide a later edit.

**What.** A submission folder is the student's data, read with the instructor's rights:
nbgrader's own copy follows links (``env.txt -> /proc/<pid>/environ``, ``chars.ipynb ->
source/chars/chars.ipynb``), reads FIFOs and ``/dev/zero``, and does not count a linked
directory against its size cap. Here each folder is first taken apart with ``lstat``
(``plainfiles.scan``): a link (dangling or not), FIFO, socket or device anywhere in it
(``CourseDirectory.ignore`` aside), a file over ``CourseDirectory.max_file_size`` or a
folder over ``CourseDirectory.max_dir_size`` sets the submission aside (flag ``submission
not collected``, with the path and reason). Then ``plainfiles.copy_checked`` copies exactly
the inodes checked, each opened with ``O_NOFOLLOW | O_NONBLOCK`` relative to its opened
parent, at most the size checked, into a fresh folder (0700, files 0600; group-writable
when ``groupshared``), which replaces the earlier copy only once complete: a file swapped
for a link meanwhile is refused, never read.

**One never stops the class.** A folder whose name has no date, or that cannot be read or
copied for any reason, is set aside the same way, flagged on the student its name starts
with; the others are collected. ``extra_inbound`` adds inbound directories (glob patterns)
whose submissions are collected with the same checks.

**Archives.** :class:`PlainExtractor`, installed as ``ZipCollectApp.extractor_plugin``,
refuses in ``downloaded/<a>/archive/`` anything but regular files, and in each zip or tar
links, devices, absolute paths, ``..`` and files over ``max_file_size`` (the entry alone),
and zip bombs (the whole archive: see its docstring). :class:`CheckedFileNameCollector`,
installed as ``ZipCollectApp.collector_plugin``, collects a file inside a student's archive
only for that student. The LMS is trusted for the names in archive/ only: each refusal is
flagged on the student such a name gives.
"""

from __future__ import annotations

import datetime
import glob
import os
import pwd
import re
import shutil
import stat
import uuid

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect, groupby
from nbgrader.plugins.zipcollect import ExtractorPlugin, FileNameCollectorPlugin
from nbgrader.utils import check_mode
from traitlets import Float, Integer, List, Unicode
from traitlets.config import LoggingConfigurable

from .events import (CHANGED_AFTER, NOT_COLLECTED, NOT_PLAIN, SUBMITTED_AS_OTHER, GradingEvent,
                    replace_collect_events)
from .plainfiles import (NotPlain, TooBig, archive_members, copy_checked, copy_file, extract_members, kind,
                        scan, stream_limit)

NEVER = datetime.datetime(1970, 1, 1)  # nbgrader's timestamps are naive UTC


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def foreign_owners(folder: str, student: str, *, max_entries: int = 10_000) -> list[str]:
    """The users other than ``student`` who own ``folder`` or anything in it, sorted.
    Raises :class:`NotPlain` when ``folder`` is not a directory (a link to someone else's
    folder would make its owners look like forgers) or holds more than ``max_entries``
    names (a walk of a million files would stall the class's collect).

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> foreign_owners(d, _owner(os.getuid()))
    []
    >>> foreign_owners(d, "nobody-at-all") == [_owner(os.getuid())]
    True
    """
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):  # os.walk would follow a link given as the top
        raise NotPlain(f"is {kind(st.st_mode)}, not a directory")
    owners, seen = {_owner(st.st_uid)}, 0
    for d, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        if max_entries and seen > max_entries:
            raise NotPlain(f"holds more than {max_entries} files and folders "
                           "(CheckedExchangeCollect.max_entries)")
        owners |= {_owner(os.lstat(os.path.join(d, n)).st_uid) for n in dirs + files}
    return sorted(owners - {student})


class CheckedExchangeCollect(ExchangeCollect):
    """nbgrader's ``ExchangeCollect``, checking who made each submission, when, and that it
    holds plain files only (see the module docstring)."""

    time_tolerance = Integer(
        120, help="Seconds a submission may have changed after the time in its "
        "timestamp.txt (nbgrader's submit writes the time first, then copies the files) "
        "before it is flagged and its later time is used").tag(config=True)
    extra_inbound = List(
        Unicode(), [], help="Glob patterns of more inbound directories (for example "
        "'/opt/tokhub/run/inbound/*') whose submission folders, named "
        "<student>+<assignment>+<time>+<random> like those of the exchange's own inbound/, "
        "are collected with them, with the same checks of owner, time, plain files and "
        "size").tag(config=True)
    max_entries = Integer(
        10_000, help="Files and folders one submission may hold, all together; more sets it "
        "aside (0: no cap)").tag(config=True)

    def init_src(self):
        """nbgrader's ``init_src`` (each student's latest submission, or latest before the
        due date), over the checked submissions of every inbound directory only."""
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        self._events: list[GradingEvent] = []
        records = [r for r in map(self._record, self._submission_paths()) if r]
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        self.src_records = []
        for group in groupby(records, lambda r: r["username"]).values():
            group = self._sort_by_timestamp(group)
            due = [r for r in group if self.duedate is not None and self.before_duedate
                   and r["timestamp"] <= self.duedate]
            self.src_records.append((due or group)[0])

    def _submission_paths(self) -> list[str]:
        name = f"{self.coursedir.student_id or '*'}+{self.coursedir.assignment_id}+*"
        paths = sorted(glob.glob(os.path.join(self.inbound_path, name)))
        for pattern in self.extra_inbound:
            for folder in sorted(glob.glob(pattern)):
                if os.path.isdir(folder) and not os.path.islink(folder):
                    paths += sorted(glob.glob(os.path.join(glob.escape(folder), name)))
        return paths

    def _where(self, path: str) -> str:
        inbound = os.path.dirname(path) == self.inbound_path
        return f"inbound/{os.path.basename(path)}" if inbound else path

    def _record(self, path: str) -> dict | None:
        """The record of one submission folder, with its ``path`` and checked ``entries``;
        None when it is set aside (the reason is then in ``self._events``). Nothing
        raised for one submission stops the others."""
        student = os.path.basename(path).split("+")[0]
        try:
            record = {**self._path_to_record(path), "path": path}
            student = record["username"]
            if self.check_owner:
                others = foreign_owners(path, student, max_entries=self.max_entries)
                if others:
                    self._events += self._set_aside(path, student, others)
                    return None
            record["entries"] = scan(path, ignore=self.coursedir.ignore,
                                     include=self.coursedir.include,
                                     max_file_kb=self.coursedir.max_file_size,
                                     max_dir_kb=self.coursedir.max_dir_size,
                                     max_entries=self.max_entries)
            return record
        except NotPlain as e:
            reason = str(e)
        except Exception as e:  # noqa: BLE001  a name that is no date, an unreadable file, ...
            reason = f"could not be read as a submission ({type(e).__name__}: {e})"
        self._events.append(self._not_collected(student, path, reason))
        return None

    def _not_collected(self, student: str, path: str, reason: str) -> GradingEvent:
        where = self._where(path)
        self.log.error("Not collected: %s: %s. It stays where it is; %s's other submissions "
                       "are collected as usual.", where, reason, student)
        return GradingEvent(self.coursedir.assignment_id, student, None, "", NOT_PLAIN,
                            f"{where}: {reason}; not collected", flag=True)

    def _set_aside(self, path: str, student: str, owners: list[str]) -> list[GradingEvent]:
        a, where = self.coursedir.assignment_id, self._where(path)
        self.log.error("Not collected: %s claims to be %s's but is owned by %s. It stays in the "
                       "exchange; %s's own submissions are collected as usual.",
                       where, student, ", ".join(owners), student)
        detail = f"{where}, owned by {', '.join(owners)}, was not collected"
        return [GradingEvent(a, student, None, "", NOT_COLLECTED, detail, flag=True)] + [
            GradingEvent(a, owner, None, "", SUBMITTED_AS_OTHER,
                         f"{where} names {student}; not collected", flag=True)
            for owner in owners if not owner.startswith("uid ")]

    def copy_files(self):
        events = self._events
        self.log.info("Processing %d submissions of '%s' for course '%s'", len(self.src_records),
                      self.coursedir.assignment_id, self.coursedir.course_id)
        for record in self.src_records:
            try:
                events += self._collect(record)
            except Exception as e:  # noqa: BLE001  one submission never stops the class
                reason = e if isinstance(e, NotPlain) else f"could not be copied ({type(e).__name__}: {e})"
                events.append(self._not_collected(record["username"], record["path"], str(reason)))
        from .nbgrader_plugins import GradingEvents  # the events file of the course's config

        student = self.coursedir.student_id
        replace_collect_events(GradingEvents(config=self.config).path, self.coursedir.assignment_id,
                               None if student in ("", "*") else student, events)

    def _collect(self, record: dict) -> list[GradingEvent]:
        """Copy one checked submission to submitted/ when nbgrader would (not there yet;
        newer with --update; another with --before-duedate). It is copied beside, then
        put in place: a copy that fails leaves what was collected before."""
        student, a = record["username"], self.coursedir.assignment_id
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, a)
        if os.path.isdir(dest):
            existing = self.coursedir.get_existing_timestamp(dest)
            newer = self.update and (existing is None or record["timestamp"] > existing)
            if not (newer or (self.before_duedate and existing != record["timestamp"])):
                self.log.info("No newer submission to collect: %s %s", student, a)
                return []
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        partial = f"{dest}.collecting-{uuid.uuid4().hex[:8]}"
        shared = self.coursedir.groupshared
        try:
            changed = copy_checked(record["path"], partial, record["entries"],
                                   dir_mode=0o2770 if shared else 0o700,
                                   file_mode=0o660 if shared else 0o600)
            events = self._check_time(student, partial, changed)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        self.log.info("Collecting submission: %s %s", student, a)
        if os.path.lexists(dest):
            shutil.rmtree(dest) if os.path.isdir(dest) and not os.path.islink(dest) else os.remove(dest)
        os.rename(partial, dest)
        return events

    def _check_time(self, student: str, dest: str, ctime: float) -> list[GradingEvent]:
        """Flag a timestamp.txt earlier than the last change (ctime, read from the very
        files copied) by more than the tolerance, and give the copy the later time."""
        stated = self.coursedir.get_existing_timestamp(dest)  # naive, in UTC
        stated = stated and stated.replace(tzinfo=datetime.timezone.utc)
        changed = datetime.datetime.fromtimestamp(ctime, datetime.timezone.utc)
        if stated is not None and (changed - stated).total_seconds() <= self.time_tolerance:
            return []
        path = os.path.join(dest, "timestamp.txt")
        if os.path.lexists(path):
            os.remove(path)  # the copy's own file: rewritten, never followed
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(changed.strftime(self.timestamp_format))
        said = f"says {stated:%Y-%m-%d %H:%M:%S} UTC" if stated else "is missing or empty"
        detail = (f"its timestamp.txt {said}, but the submission "
                  f"last changed at {changed:%Y-%m-%d %H:%M:%S} UTC; graded as submitted then")
        self.log.warning("%s's %s: %s", student, self.coursedir.assignment_id, detail)
        return [GradingEvent(self.coursedir.assignment_id, student, None, "", CHANGED_AFTER, detail,
                             flag=True)]


class PlainExtractor(ExtractorPlugin):
    """nbgrader's ``zip_collect`` extractor, for archives that may be hostile: what is in
    ``downloaded/<a>/archive/`` must be regular files; each zip or tar is listed before
    anything is written, and a link, device or FIFO entry, an absolute path or one with
    ``..``, or a file over ``CourseDirectory.max_file_size`` is refused (the rest of the
    archive is unpacked), while an archive unpacking to more than one submission's
    ``CourseDirectory.max_dir_size`` or at a ratio above ``max_ratio`` (a zip bomb) is
    refused whole, and so is one that would take all the archives together past
    ``max_archive_size`` (the flag names the archives that used it): one big archive
    never makes the others "bombs". Each refusal is logged and flagged on the student
    the name of the file of archive/ gives (``FileNameCollectorPlugin.named_regexp``), else
    on that name; the other students are collected. Archives inside archives are unpacked
    into their own folder, one level deep, within the outer one's caps."""

    max_archive_size = Integer(
        1_000_000, help="kB (1000 bytes) that the archives of downloaded/<a>/archive/ may "
        "unpack to, all together: a last resort, after each one's own cap of "
        "CourseDirectory.max_dir_size").tag(config=True)
    max_ratio = Float(100, help="Largest ratio of unpacked to packed size of an archive "
                      "(above 1 MB unpacked)").tag(config=True)

    def extract(self, archive_path: str, extracted_path: str) -> None:
        self._events: list[GradingEvent] = []
        self._used: dict[str, int] = {}  # bytes unpacked from each archive of archive/
        for path in (archive_path, extracted_path):
            if os.path.islink(path) or not os.path.isdir(path):
                raise NotPlain(f"{path} must be a directory, not a link: make it one and run again")
        for root, dirs, files in os.walk(archive_path):
            dirs.sort()
            rel = os.path.relpath(root, archive_path)
            for name in sorted(dirs + files):
                path = os.path.join(root, name)
                mode = os.lstat(path).st_mode
                to = os.path.normpath(os.path.join(extracted_path, rel))
                self._top = path  # the LMS's name, which says whose everything in it is
                try:
                    if stat.S_ISDIR(mode):
                        continue
                    if not stat.S_ISREG(mode):
                        raise NotPlain(f"is {kind(mode)}, not a regular file")
                    os.makedirs(to, 0o700, exist_ok=True)
                    if os.path.splitext(name)[1] in self.zip_ext:
                        self._used[name] = self._unpack_top(path, to)
                    else:
                        copy_file(path, os.path.join(to, name))
                except Exception as e:  # noqa: BLE001  one student's file never stops the class
                    self._refuse(f"archive/{os.path.join(rel, name)}", e)
        self._sweep(extracted_path)
        write_zip_events(self.parent, self._events)

    def _unpack_top(self, path: str, to: str) -> int:
        """Unpack one archive of archive/ within its own cap (``max_dir_size``, what
        collect allows one submission) and what is left of the class's budget (``max_archive_size``);
        the bytes written. Going over either refuses this archive alone, saying which cap."""
        own = 1000 * self.parent.coursedir.max_dir_size or 1000 * self.max_archive_size
        left = 1000 * self.max_archive_size - sum(self._used.values())
        try:
            return self._unpack(path, to, min(own, left), depth=0)
        except TooBig as e:
            if own <= left or e.total > own:
                raise NotPlain(f"unpacks to more than {own} bytes, the cap of one submission "
                               "(CourseDirectory.max_dir_size, in kB): a zip bomb? If it is honest, "
                               "raise the cap") from None
            biggest = max(self._used, key=self._used.get, default="none")
            raise NotPlain(
                f"needs more than the {max(left, 0)} bytes left of the {1000 * self.max_archive_size} "
                f"that all archives may unpack to (PlainExtractor.max_archive_size, in kB); the "
                f"archives before it used {sum(self._used.values())} (the most: {biggest}, "
                f"{self._used.get(biggest, 0)} bytes). Raise max_archive_size, or refuse the "
                "biggest ones, and collect again") from None

    def _unpack(self, path: str, to: str, budget: int, depth: int) -> int:
        """Unpack the archive ``path`` into its own folder in ``to``, at most ``budget``
        bytes (:class:`TooBig` past it); the bytes written."""
        stem = os.path.basename(path).removesuffix(".gz").removesuffix(".zip").removesuffix(".tar")
        own = os.path.join(to, stem)
        cap = 1000 * self.parent.coursedir.max_file_size
        members, refused = archive_members(path, max_bytes=budget, max_file_bytes=cap,
                                           max_ratio=self.max_ratio)
        for name, why in refused:
            self._refuse(f"{os.path.basename(path)}: {name}", NotPlain(why))
        self.log.info("Extracting %s to %s", path, own)
        try:
            written = extract_members(path, own, members,
                                      limit=stream_limit(path, budget, self.max_ratio))
        except BaseException:
            shutil.rmtree(own, ignore_errors=True)
            raise
        used = sum(m.size for m in members)
        for inner in written if depth < 1 else []:
            if os.path.splitext(inner)[1] in self.zip_ext:
                try:
                    used += self._unpack(inner, os.path.dirname(inner), budget - used, depth + 1)
                except TooBig:
                    shutil.rmtree(own, ignore_errors=True)  # the outer archive is over its cap
                    raise
                except Exception as e:  # noqa: BLE001
                    self._refuse(os.path.relpath(inner, to), e)
        return used

    def _sweep(self, extracted_path: str) -> None:
        """Remove from ``extracted/`` anything that is not a directory or regular file."""
        for root, dirs, files in os.walk(extracted_path):
            for name in dirs + files:
                path = os.path.join(root, name)
                mode = os.lstat(path).st_mode
                if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                    os.remove(path)
                    where = os.path.relpath(path, extracted_path)
                    self._top = os.path.join(extracted_path, where.split(os.sep)[0])
                    self._refuse(where,
                                 NotPlain(f"is {kind(mode)}, not a regular file"))

    def _refuse(self, where: str, error: Exception) -> None:
        """Flag ``where`` on the student the name of the file of archive/ it came from
        (``self._top``) gives: never on a name inside a student's archive."""
        reason = str(error) if isinstance(error, NotPlain) else f"{type(error).__name__}: {error}"
        regexp = getattr(getattr(self.parent, "collector_plugin_inst", None), "named_regexp", "")
        found = re.match(regexp, self._top) if regexp else None
        student = (found.groupdict().get("student_id") if found else None) or os.path.basename(self._top)
        self._events.append(not_collected(self, student, where, reason))


def not_collected(plugin: LoggingConfigurable, student: str, where: str, reason: str) -> GradingEvent:
    """Log, and make the flag of, a file of ``zip_collect`` that is not collected."""
    plugin.log.error("Not collected: %s: %s", where, reason)
    return GradingEvent(plugin.parent.coursedir.assignment_id, student, None, "", NOT_PLAIN,
                        f"{where}: {reason}; not collected", flag=True)


def write_zip_events(app: LoggingConfigurable, events: list[GradingEvent]) -> None:
    """Add ``events`` to this ``zip_collect`` run's flags and write them all to the
    events file, in place of the earlier collect's: the extractor writes first, then the
    collector each time it refuses a file, so a run that stops keeps what it found."""
    from .nbgrader_plugins import GradingEvents  # the events file of the course's config

    found = app.__dict__.setdefault("_zip_events", [])
    found += events
    replace_collect_events(GradingEvents(config=app.config).path, app.coursedir.assignment_id,
                           None, found)


class CheckedFileNameCollector(FileNameCollectorPlugin):
    """nbgrader's ``FileNameCollectorPlugin`` for ``zip_collect``, where the student id is
    read from a file's name with ``named_regexp``. The LMS names the files of
    ``downloaded/<a>/archive/`` and is trusted for that name only: what is inside a
    student's zip is the student's, names included. So a file is collected only if

    - its student id matches ``student_id_regexp`` (no ``..``, no ``/``, no HTML: the id
      becomes a folder of submitted/ and a name in the formgrader);
    - it is the file of archive/ itself, or its id is the one the archive's own name gives
      (``alice_chars.zip`` holding ``bob_chars.ipynb`` is not bob's submission);
    - no file with the same student and notebook came before in this run (nbgrader
      would stop the whole class on it: "Duplicate submission file").

    Any other is skipped, logged and flagged (``submission not collected``) on the student
    the archive's name gives; the rest of the class is collected. The top-level name is
    the first part of the path under ``extracted/``, where :class:`PlainExtractor` puts
    each file of archive/ or each archive's own folder (``alice_chars.zip`` ->
    ``extracted/alice_chars/``); so put the LMS's files directly in archive/.

    >>> c = CheckedFileNameCollector(named_regexp=r".*/(?P<student_id>[^/]+)_(?P<file_id>[^/_]+)$")
    >>> c.check("/x/extracted", "/x/extracted/alice_chars/alice_chars.ipynb",
    ...         {"student_id": "alice", "file_id": "chars.ipynb"})
    ('alice', '')
    >>> c.check("/x/extracted", "/x/extracted/alice_chars/bob_chars.ipynb",
    ...         {"student_id": "bob", "file_id": "chars.ipynb"})[1]
    "names student 'bob', but the archive is alice's"
    """

    student_id_regexp = Unicode(
        r"^[A-Za-z0-9][A-Za-z0-9._@-]*$", help="What a student id read from a file name must "
        "match (whole) to be collected: it becomes a folder of submitted/ and is shown in the "
        "formgrader, so no leading dot, no '/', no HTML").tag(config=True)

    def collect(self, submitted_file: str) -> dict | None:
        info = super().collect(submitted_file)
        if not info:
            return info
        extracted = self.parent._format_collect_path(self.parent.extracted_directory)
        owner, why = self.check(extracted, submitted_file, info)
        if why:
            where = os.path.relpath(submitted_file, extracted)
            write_zip_events(self.parent, [not_collected(self, owner, f"extracted/{where}", why)])
            return None
        return info

    def check(self, extracted: str, path: str, info: dict) -> tuple[str, str]:
        """(the student the top-level name of ``path`` gives, why ``info`` is refused or "")."""
        top = os.path.relpath(path, extracted).split(os.sep)[0]
        found = self._match(os.path.join(extracted, top)) if top != ".." else None
        owner = (found or {}).get("student_id") or top
        student = info.get("student_id")
        if not found or not self._valid(owner):
            return owner, (f"the name {top!r} in archive/ gives no valid student id (it must be "
                           f"<student>_<notebook> and the id match {self.student_id_regexp!r})")
        if not isinstance(student, str) or not self._valid(student):
            return owner, (f"names student {student!r}, which is no valid id (it must match "
                           f"{self.student_id_regexp!r})")
        if student != owner:
            return owner, f"names student {student!r}, but the archive is {owner}'s"
        file_id = info.get("file_id")
        key = (student, os.path.splitext(str(file_id))[0] + os.path.splitext(path)[1])
        seen = self.__dict__.setdefault("_seen", {})
        if key in seen and not (info.get("timestamp") and seen[key][1]):
            return owner, (f"a second {key[1]} of {student}'s (the first: "
                           f"{os.path.relpath(seen[key][0], extracted)}), with no timestamp to tell "
                           "which is newer; collected the first")
        seen[key] = (path, info.get("timestamp"))
        return owner, ""

    def _valid(self, student: str) -> bool:
        return re.fullmatch(self.student_id_regexp, student) is not None
