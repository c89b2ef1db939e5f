"""Grading events: what happened to a submission, as one typed record.

``grading-events.jsonl`` holds one :class:`GradingEvent` per line, as JSON with sorted
keys. The autograde plugins (``nbgrader_plugins.GradingEvents``) and ``grade.py`` write
them, ``report.py`` reads them; all three go through this module, which is the schema:

    assignment, student   the submission (nbgrader's ids)
    notebook              the notebook's name without ``.ipynb``, or null (the submission)
    cell                  the grade_id of the test or solution cell, or "" (none)
    event                 what happened: one of the names below, or a flag's own name
                          (the sandbox's findings, the text scan of nbgrader_plugins)
    detail                more about it, or ""
    flag                  true: a person should look at it (never a change of score);
                          false: it explains a score or the grading
    seconds               only on ``autograded`` and ``failed``: nbgrader's time

A line that is not such a record (a crash in the middle of a write, a hand edit) is
skipped by :func:`read_events`, which says on stderr how many lines of which file it
skipped and why the first one was; the next rewrite of the file drops them. Skipping
keeps one broken line from stopping the grading of a whole class; the warning keeps it
from passing unseen.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Iterable

# What grade.py records for every submission it tried: the end of its record.
AUTOGRADED = "autograded"
FAILED = "failed"                                  # nbgrader gave up on the submission
MISSING = "missing from gradebook"                 # a folder of submitted/ without a notebook
# What the autograde plugins record (also statuses of the report, see report.py).
KERNEL_DIED = "kernel died"
OUT_OF_TIME = "notebook out of time"
TIMED_OUT = "timed out"
OUTPUT_TRUNCATED = "output truncated"
# From the sandbox (sandbox.py's findings), flag false.
SUBMISSION_CAP = "submission cap"                  # how the whole submission was capped
HIT_CAP = "hit the submission's cap"  # the cap acted (memory or tasks): explains a score
# Flags: what a person should look at.
IDENTICAL = "solution cell identical to other students'"
UNSAFE = "graded without a sandbox (--unsafe)"
RECORD_OUTSIDE = "showed a hidden-test record outside its test cell"
RESULT_IN_TEST = "made a result in a test cell"
NO_RECORD = "test cell without its record"
EDITED_TEST = "changed a read-only cell"  # nbgrader restored it before grading
# From collecting (exchange_plugins.py), flags: kept when the submission is graded again.
NOT_COLLECTED = "submission in your name by another user"
SUBMITTED_AS_OTHER = "submitted in another student's name"
CHANGED_AFTER = "submission changed after its time"
# A link, FIFO or device in the submission, over the size caps, a folder name that is no
# submission's, a hostile archive entry, or any error while copying it: set aside.
NOT_PLAIN = "submission not collected"
COLLECTED = {NOT_COLLECTED, SUBMITTED_AS_OTHER, CHANGED_AFTER, NOT_PLAIN}
# From grade.py, flag: a folder of submitted/ holding a link or special file, not graded.
NOT_GRADED = "submission not graded"
SET_ASIDE = {NOT_COLLECTED, NOT_PLAIN, NOT_GRADED}  # the report's "Not collected"


@dataclass(frozen=True)
class GradingEvent:
    assignment: str
    student: str
    notebook: str | None
    cell: str
    event: str
    detail: str = ""
    flag: bool = False
    seconds: float | None = None

    def to_json(self) -> str:
        record = asdict(self)
        if self.seconds is None:
            del record["seconds"]
        return json.dumps(record, sort_keys=True)  # a name that is no UTF-8 (\udcff) stays writable

    @classmethod
    def from_json(cls, line: str) -> GradingEvent:
        """The event of one line; ValueError, saying what is wrong, if it is none."""
        try:
            record = json.loads(line)
        except ValueError as e:
            raise ValueError(f"not JSON ({e})") from None
        if not isinstance(record, dict):
            raise ValueError(f"a JSON {type(record).__name__}, not an object")
        names = {f.name for f in fields(cls)}
        missing = names - {"seconds"} - set(record)
        unknown = set(record) - names
        if missing or unknown:
            raise ValueError(", ".join([f"missing {', '.join(sorted(missing))}"] * bool(missing)
                                       + [f"unknown {', '.join(sorted(unknown))}"] * bool(unknown)))
        for name, ok in [("assignment", str), ("student", str), ("notebook", (str, type(None))),
                         ("cell", str), ("event", str), ("detail", str), ("flag", bool),
                         ("seconds", (int, float, type(None)))]:
            value = record.get(name)
            if not isinstance(value, ok) or (name == "seconds" and isinstance(value, bool)):
                raise ValueError(f"{name} is {value!r}")
        return cls(**record)


def append_events(path: Path | str, events: Iterable[GradingEvent]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.writelines(e.to_json() + "\n" for e in events)


def read_events(path: Path | str) -> list[GradingEvent]:
    """The events of a file (none if it does not exist); bad lines skipped, and said."""
    path = Path(path)
    if not path.exists():
        return []
    events, bad = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    events.append(GradingEvent.from_json(line))
                except ValueError as e:
                    bad.append(f"line {number}: {e}")
    if bad:
        print(f"grading events: skipped {len(bad)} line(s) of {path} that are no grading event "
              f"({bad[0]}{'; ...' if len(bad) > 1 else ''})", file=sys.stderr)
    return events


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` all at once: a reader sees the old file or the new one,
    never half of one, and a crash midway leaves the old one whole (a temporary file in
    the same directory, then ``os.replace``).

    >>> import tempfile; p = Path(tempfile.mkdtemp()) / "r.md"
    >>> write_atomic(p, "one"); write_atomic(p, "two"); p.read_text(), len(list(p.parent.iterdir()))
    ('two', 1)
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        # A student's name need not be UTF-8 (a folder named with byte 0xff): written escaped.
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def replace_events(path: Path | str, new: list[GradingEvent], graded: set[tuple[str, str]]) -> None:
    """Rewrite ``path``: the events of submissions not in ``graded`` and what collecting
    found (``COLLECTED``: it holds until the next collect), then ``new``."""
    kept = [e for e in read_events(path)
            if (e.assignment, e.student) not in graded or e.event in COLLECTED]
    write_atomic(Path(path), "".join(e.to_json() + "\n" for e in kept + new))


def replace_collect_events(path: Path | str, assignment: str, student: str | None,
                           new: list[GradingEvent]) -> None:
    """Rewrite ``path`` after collecting ``assignment`` (one ``student``'s, or everyone's):
    the earlier collect's findings for it are dropped, ``new`` appended."""
    if not new and not Path(path).exists():
        return
    kept = [e for e in read_events(path)
            if not (e.event in COLLECTED and e.assignment == assignment
                    and student in (None, e.student))]
    write_atomic(Path(path), "".join(e.to_json() + "\n" for e in kept + new))
