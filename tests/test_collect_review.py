"""What a fresh attacker found in the plain-files collect (issue 34), each beside an
honest submission that must still be collected:

- a folder whose name is not UTF-8 (``daemon\\xff+chars+...``): the events file was
  rewritten in place and emptied by the UnicodeEncodeError, every earlier flag lost, and
  every collect failed after it;
- a submission folder that is itself a link to another user's private folder: its walk
  followed the link, flagged that user as a forger and walked their tree with root's rights;
- a submission whose ``timestamp.txt`` was deleted after submitting: graded as on time,
  without a flag (nbgrader applies a late penalty only where there is a timestamp);
- ten thousand and one empty files: no byte cap catches them, each costs an inode and time.

Students are the system users ``nobody`` and ``daemon`` (needs root). About 10 s.
"""

from __future__ import annotations

import os
import pwd
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
from autograder.events import CHANGED_AFTER, NOT_PLAIN, SUBMITTED_AS_OTHER, GradingEvent, append_events, read_events  # noqa: E402
from test_collect_checks import ALICE, BOB, collect, course, marker, stamp, submit  # noqa: E402,F401

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="gives files to other users: needs root")


def chown(path: Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)


def test_a_name_that_is_not_utf8_keeps_the_events_and_the_class(course: Path) -> None:
    exchange = course.parent / "exchange"
    earlier = GradingEvent("words", ALICE, None, "", SUBMITTED_AS_OTHER, "an earlier flag", flag=True)
    append_events(course / "grading-events.jsonl", [earlier])
    submit(exchange, ALICE, ALICE, 60, "alices")
    honest = submit(exchange, BOB, BOB, 90, "bobs")
    odd = os.path.join(os.fsencode(honest.parent), BOB.encode() + b"\xff+chars+" + stamp(30).encode() + b"+x")
    os.rename(submit(exchange, BOB, BOB, 30, "odd"), odd)
    proc = collect(course)
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = read_events(course / "grading-events.jsonl")
    assert earlier in events
    assert marker(course, ALICE) == "alices"
    assert any("\udcff" in e.detail and e.flag for e in events), events  # set aside, said
    assert (course / "grading-events.jsonl").read_bytes().isascii()


def test_a_submission_that_is_a_link_frames_no_one(course: Path, tmp_path: Path) -> None:
    exchange = course.parent / "exchange"
    private = tmp_path / "alices-private"
    (private / "work").mkdir(parents=True)
    (private / "work" / "notes.txt").write_text("alice's")
    for p in (private, private / "work", private / "work" / "notes.txt"):
        chown(p, ALICE)
    private.chmod(0o700)
    submit(exchange, BOB, BOB, 90, "bobs")
    link = exchange / "tokenization" / "inbound" / f"{BOB}+chars+{stamp(30)}+link0"
    link.symlink_to(private)
    chown(link, BOB)
    proc = collect(course)
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = read_events(course / "grading-events.jsonl")
    assert not [e for e in events if e.event == SUBMITTED_AS_OTHER], events  # alice framed before
    [aside] = [e for e in events if e.event == NOT_PLAIN]
    assert aside.student == BOB and "not a directory" in aside.detail and "link0" in aside.detail, aside
    assert marker(course, BOB) == "bobs"


def test_a_deleted_timestamp_is_flagged_and_the_change_time_used(course: Path) -> None:
    exchange = course.parent / "exchange"
    folder = submit(exchange, BOB, BOB, 30, "bobs")
    time.sleep(0.05)
    (folder / "timestamp.txt").unlink()  # after the deadline, bob hopes
    proc = collect(course)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [flag] = [e for e in read_events(course / "grading-events.jsonl") if e.event == CHANGED_AFTER]
    assert flag.student == BOB and "missing or empty" in flag.detail, flag
    stated = (course / "submitted" / BOB / "chars" / "timestamp.txt").read_text()
    assert stated.startswith(time.strftime("%Y-%m-%d", time.gmtime())), stated


def test_ten_thousand_and_one_files_are_set_aside(course: Path) -> None:
    exchange = course.parent / "exchange"
    submit(exchange, ALICE, ALICE, 60, "alices")
    submit(exchange, BOB, BOB, 90, "bobs")
    many = submit(exchange, BOB, BOB, 30, "many")
    (many / "d").mkdir()
    for i in range(10_001):
        (many / "d" / f"{i}.txt").touch()
    for p in (many / "d", *(many / "d").iterdir()):
        chown(p, BOB)
    start = time.monotonic()
    proc = collect(course)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [aside] = [e for e in read_events(course / "grading-events.jsonl") if e.event == NOT_PLAIN]
    assert "more than 10000 files and folders" in aside.detail, aside
    assert marker(course, BOB) == "bobs" and marker(course, ALICE) == "alices"
    assert not (course / "submitted" / BOB / "chars" / "d").exists()
    print(f"collect with 10,001 files set aside: {time.monotonic() - start:.1f} s")
