"""Collecting checks who made each submission and when (autograder/exchange_plugins.py),
with nbgrader's own ``nbgrader collect`` on an exchange of real files owned by real users.

The students are two system accounts every Debian has, ``nobody`` and ``daemon``, so the
test needs root (to give files to them) but creates no user; ``tests/test_hub.py`` does
the same on a real hub with real logins. About 5 s.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
from autograder.events import (CHANGED_AFTER, NOT_COLLECTED, SUBMITTED_AS_OTHER,  # noqa: E402
                    GradingEvent, read_events, replace_events)
from autograder.exchange_plugins import foreign_owners  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="gives files to other users: needs root")
ALICE, BOB = "nobody", "daemon"  # system accounts that exist everywhere: no useradd needed
NB = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def stamp(seconds_ago: float) -> str:
    t = time.gmtime(time.time() - seconds_ago)
    return time.strftime("%Y-%m-%d %H:%M:%S", t) + ".000000 UTC"


def submit(exchange: Path, owner: str, named: str, seconds_ago: float, marker: str) -> Path:
    """A submission folder as nbgrader's submit leaves it, owned by ``owner``, naming ``named``."""
    folder = exchange / "tokenization" / "inbound" / f"{named}+chars+{stamp(seconds_ago)}+{marker}"
    folder.mkdir(parents=True)
    (folder / "chars.ipynb").write_text(json.dumps({**NB, "metadata": {"marker": marker}}))
    (folder / "timestamp.txt").write_text(stamp(seconds_ago))
    entry = pwd.getpwnam(owner)
    for path in (folder, *folder.iterdir()):
        os.chown(path, entry.pw_uid, entry.pw_gid)
    return folder


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A course directory with the course's config, plugins and tokref, and an exchange."""
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for name in ("autograder", "solutions"):
        (course / name).symlink_to(ROOT / name)
    (tmp_path / "exchange" / "tokenization" / "inbound").mkdir(parents=True)
    return course


def collect(course: Path) -> subprocess.CompletedProcess:
    bin_dir = Path(sys.executable).parent  # nbgrader runs alembic from its environment
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(bin_dir / "nbgrader"), "collect", "chars", "--update",
                           f"--Exchange.root={course.parent / 'exchange'}"],
                          cwd=course, capture_output=True, text=True, timeout=120, env=env)


def marker(course: Path, student: str) -> str:
    nb = json.loads((course / "submitted" / student / "chars" / "chars.ipynb").read_text())
    return nb["metadata"]["marker"]


def test_a_submission_in_anothers_name_is_set_aside(course: Path) -> None:
    """bob's newer submission named alice's is not collected; alice's own is; both flagged."""
    exchange = course.parent / "exchange"
    submit(exchange, ALICE, ALICE, 90, "alices")
    forged = submit(exchange, BOB, ALICE, 30, "bobs-as-alice")
    submit(exchange, BOB, BOB, 60, "bobs")
    proc = collect(course)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert marker(course, ALICE) == "alices" and marker(course, BOB) == "bobs"
    assert "Not collected" in proc.stderr and f"owned by {BOB}" in proc.stderr
    assert forged.exists()  # left in the exchange, for the instructor to see
    events = read_events(course / "grading-events.jsonl")
    assert {(e.student, e.event) for e in events} == {(ALICE, NOT_COLLECTED), (BOB, SUBMITTED_AS_OTHER)}
    assert all(e.flag for e in events) and forged.name in events[0].detail
    # A second collect replaces the first's findings instead of adding to them.
    assert collect(course).returncode == 0
    assert len(read_events(course / "grading-events.jsonl")) == 2


def test_a_replaced_file_counts_as_anothers(course: Path) -> None:
    """A file inside alice's folder that bob owns makes the whole submission not hers."""
    folder = submit(course.parent / "exchange", ALICE, ALICE, 60, "alices")
    entry = pwd.getpwnam(BOB)
    os.chown(folder / "chars.ipynb", entry.pw_uid, entry.pw_gid)
    assert foreign_owners(str(folder), ALICE) == [BOB]
    assert collect(course).returncode == 0
    assert not (course / "submitted" / ALICE / "chars").exists()


def test_a_timestamp_edited_after_submitting_is_flagged_and_not_trusted(course: Path) -> None:
    """timestamp.txt set back an hour after the folder was written: flagged, later time used."""
    folder = submit(course.parent / "exchange", ALICE, ALICE, 3600, "alices")
    on_time = submit(course.parent / "exchange", BOB, BOB, 1, "bobs")
    (on_time / "timestamp.txt").write_text(stamp(30))  # within the tolerance (120 s)
    assert collect(course).returncode == 0
    [event] = read_events(course / "grading-events.jsonl")
    assert (event.student, event.event, event.flag) == (ALICE, CHANGED_AFTER, True)
    assert folder.name.split("+")[2][:16] in event.detail
    collected = (course / "submitted" / ALICE / "chars" / "timestamp.txt").read_text()
    assert collected[:16] == stamp(0)[:16] or collected[:16] == stamp(60)[:16], collected


def test_regrading_keeps_what_collecting_found(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    found = GradingEvent("chars", ALICE, None, "", NOT_COLLECTED, "x", flag=True)
    old = GradingEvent("chars", ALICE, "chars", "", "kernel died")
    replace_events(path, [found, old], set())
    replace_events(path, [], {("chars", ALICE)})
    assert read_events(path) == [found]
