"""nbgrader's collect, with each submission checked against who made it and when.

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
nbgrader's late penalty then uses; the student's claim stays in the flag.
"""

from __future__ import annotations

import datetime
import os
import pwd

from nbgrader.exchange.default.collect import ExchangeCollect
from traitlets import Integer

from events import (CHANGED_AFTER, NOT_COLLECTED, SUBMITTED_AS_OTHER, GradingEvent,
                    replace_collect_events)

SET_ASIDE = "\0set aside: "  # a username no student has: groups a forged record alone


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def foreign_owners(folder: str, student: str) -> list[str]:
    """The users other than ``student`` who own ``folder`` or anything in it, sorted.

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> foreign_owners(d, _owner(os.getuid()))
    []
    >>> foreign_owners(d, "nobody-at-all") == [_owner(os.getuid())]
    True
    """
    owners = {_owner(os.lstat(folder).st_uid)}
    for d, dirs, files in os.walk(folder):
        owners |= {_owner(os.lstat(os.path.join(d, n)).st_uid) for n in dirs + files}
    return sorted(owners - {student})


def last_change(folder: str) -> datetime.datetime:
    """The latest change time (ctime, which no user can set back) of ``folder`` and all
    in it, in UTC."""
    latest = os.lstat(folder).st_ctime
    for d, dirs, files in os.walk(folder):
        for n in dirs + files:
            latest = max(latest, os.lstat(os.path.join(d, n)).st_ctime)
    return datetime.datetime.fromtimestamp(latest, datetime.timezone.utc)


class CheckedExchangeCollect(ExchangeCollect):
    """nbgrader's ``ExchangeCollect``, checking who made each submission and when (see
    the module docstring)."""

    time_tolerance = Integer(
        120, help="Seconds a submission may have changed after the time in its "
        "timestamp.txt (nbgrader's submit writes the time first, then copies the files) "
        "before it is flagged and its later time is used").tag(config=True)

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        if self.check_owner:
            others = foreign_owners(path, record["username"])
            if others:
                record = {**record, "claimed": record["username"], "owners": others,
                          "username": SET_ASIDE + record["filename"]}
        return record

    def init_src(self):
        self._copied: list[tuple[str, str]] = []
        super().init_src()

    def do_copy(self, src, dest):
        super().do_copy(src, dest)
        self._copied.append((src, dest))

    def copy_files(self):
        aside = [r for r in self.src_records if "claimed" in r]
        self.src_records = [r for r in self.src_records if "claimed" not in r]
        events = [e for r in aside for e in self._set_aside(r)]
        super().copy_files()
        for src, dest in self._copied:
            events += self._check_time(src, dest)
        from nbgrader_plugins import GradingEvents  # the events file of the course's config

        student = self.coursedir.student_id
        replace_collect_events(GradingEvents(config=self.config).path, self.coursedir.assignment_id,
                               None if student in ("", "*") else student, events)

    def _set_aside(self, record: dict) -> list[GradingEvent]:
        a, student, owners = self.coursedir.assignment_id, record["claimed"], record["owners"]
        where = f"inbound/{record['filename']}"
        self.log.error("Not collected: %s claims to be %s's but is owned by %s. It stays in the "
                       "exchange; %s's own submissions are collected as usual.",
                       where, student, ", ".join(owners), student)
        detail = f"{where}, owned by {', '.join(owners)}, was not collected"
        return [GradingEvent(a, student, None, "", NOT_COLLECTED, detail, flag=True)] + [
            GradingEvent(a, owner, None, "", SUBMITTED_AS_OTHER,
                         f"{where} names {student}; not collected", flag=True)
            for owner in owners if not owner.startswith("uid ")]

    def _check_time(self, src: str, dest: str) -> list[GradingEvent]:
        student = os.path.basename(src).rsplit("+", 3)[0]
        stated = self.coursedir.get_existing_timestamp(dest)  # naive, in UTC
        stated = stated and stated.replace(tzinfo=datetime.timezone.utc)
        changed = last_change(src)
        if stated is None or (changed - stated).total_seconds() <= self.time_tolerance:
            return []
        with open(os.path.join(dest, "timestamp.txt"), "w") as f:
            f.write(changed.strftime(self.timestamp_format))
        detail = (f"its timestamp.txt says {stated:%Y-%m-%d %H:%M:%S} UTC, but the submission "
                  f"last changed at {changed:%Y-%m-%d %H:%M:%S} UTC; graded as submitted then")
        self.log.warning("%s's %s: %s", student, self.coursedir.assignment_id, detail)
        return [GradingEvent(self.coursedir.assignment_id, student, None, "", CHANGED_AFTER, detail,
                             flag=True)]

