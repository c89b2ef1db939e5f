"""grade.py's and the report's smaller promises (issue 22), on one released copy of `chars`:

- the grading events are one typed record (autograder/events.py), read back exactly, a
  bad line skipped and said;
- plain ``nbgrader autograde`` warns of a changed checksum only for a test cell a student
  really changed (nbgrader's gradebook keeps the checksum from before the hidden tests
  were cut);
- after ``--collect exchange``, submissions are no longer writable by group and others;
- ``grades.csv`` lists only assignments someone submitted, not every one of the gradebook;
- grade.py says how many workers it used, not ``--jobs``;
- the report's summary is one line, and its header says how the whole submission was
  capped; a hit of that cap explains the row;
- run by root in a course that belongs to someone else, grade.py refuses and says how to
  run it and how to repair an earlier root run;
- ``make setup`` warns when its Python lives where other users cannot run it.

About 30 s on 2 busy cores (a release and two short gradings of `chars`).
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, copy_course
from grading_helpers import run, solutions, submission, write_nb

from autograder import events as ev  # noqa: E402
from autograder import report  # noqa: E402

pytestmark = pytest.mark.slow


# ---------------------------------------------------------------------------------------
# The events: one record, written and read in one place (no nbgrader needed)
# ---------------------------------------------------------------------------------------


def test_events_round_trip_and_bad_lines_are_skipped_and_said(tmp_path, capsys):
    events = [ev.GradingEvent("chars", "ann", "chars", "chars-encode-basic", ev.TIMED_OUT, "interrupted"),
              ev.GradingEvent("chars", "ann", None, "", ev.AUTOGRADED, seconds=2.5),
              ev.GradingEvent("chars", "bo", None, "x", ev.IDENTICAL, "same as ann", flag=True)]
    path = tmp_path / "events.jsonl"
    ev.append_events(path, events[:2])
    with open(path, "a", encoding="utf-8") as f:  # what a crash mid-write, or a hand, leaves
        f.write('{"assignment": "chars", "student": "cy", "event": "kernel di\n[1, 2]\n')
    ev.append_events(path, events[2:])
    assert ev.read_events(path) == events
    err = capsys.readouterr().err
    assert "skipped 2 line(s)" in err and "line 3: not JSON" in err
    # The JSON: sorted keys, seconds only where there are seconds.
    assert json.loads(events[0].to_json()) == {
        "assignment": "chars", "student": "ann", "notebook": "chars", "cell": "chars-encode-basic",
        "event": "timed out", "detail": "interrupted", "flag": False}
    assert list(json.loads(events[1].to_json())) == sorted(json.loads(events[1].to_json()))
    for bad, why in [('{"assignment": "a"}', "missing"), ('{"assignment": "a", "student": "s", '
                     '"notebook": null, "cell": "", "event": "e", "detail": "", "flag": "yes"}', "flag"),
                     (events[0].to_json()[:-1] + ', "colour": 1}', "unknown colour")]:
        with pytest.raises(ValueError, match=why):
            ev.GradingEvent.from_json(bad)
    # A rewrite keeps the other submissions' events and drops the bad lines.
    ev.replace_events(path, [events[1]], {("chars", "bo")})
    assert "skipped 2 line(s)" in capsys.readouterr().err
    assert ev.read_events(path) == events[:2] + [events[1]]
    assert capsys.readouterr().err == ""


def _row(student: str, status: str = "graded", flags: str = "") -> dict:
    return {"assignment": "chars", "student": student, "status": status, "score": "10",
            "max_score": "10", "needs_manual_grade": "no", "seconds": "1.0", "feedback": "",
            "details": "", "flags": flags}


def test_report_summary_is_one_line_and_the_header_names_the_cap(tmp_path):
    rows = [_row("ann", flags="x"), _row("bo", flags="y"), _row("cy", "kernel died")]
    cap = "cgroup v1: 4096 MiB and 128 tasks for the whole submission"
    cap_events = [ev.GradingEvent("chars", s, "chars", "", ev.SUBMISSION_CAP, cap) for s in ("ann", "bo")]
    _, md = report.write_report(rows, tmp_path, events=cap_events + [
        ev.GradingEvent("chars", "zed", "chars", "", ev.SUBMISSION_CAP, "not a row's")])
    lines = md.read_text(encoding="utf-8").splitlines()
    assert "kernel died: 1, graded: 2; flagged: 2" in lines
    assert not any(line.startswith(";") for line in lines)
    assert [line for line in lines if "cap" in line] == [f"Whole-submission cap: {cap}"]
    other = "per process: 16 processes and threads x 2048 MiB of address space"
    _, md = report.write_report(rows, tmp_path, events=cap_events + [
        ev.GradingEvent("chars", "cy", "chars", "", ev.SUBMISSION_CAP, other)])
    assert [line for line in md.read_text(encoding="utf-8").splitlines() if "cap" in line] == [
        f"Whole-submission cap (not the same for every submission): {cap}; {other}"]
    _, md = report.write_report(rows[2:], tmp_path)
    assert "kernel died: 1\n" in md.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------
# On a released copy of the course
# ---------------------------------------------------------------------------------------


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("small") / "course")
    assert run([sys.executable, "autograder/release.py", "chars"], course).returncode == 0
    student_nb, full = load(course / "exercises/chars/chars.ipynb"), solutions(load(course / "source/chars/chars.ipynb"))
    write_nb(course / "submitted/alice/chars/chars.ipynb", submission(student_nb, full))
    changed = submission(student_nb, full)  # bob also edited a locked test cell
    cell = next(c for c in changed["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "chars-encode-basic")
    cell["source"] = "".join(cell["source"]) + "\nassert True  # bob was here\n"
    write_nb(course / "submitted/bob/chars/chars.ipynb", changed)
    return course


def test_plain_autograde_warns_of_a_checksum_only_for_a_cell_really_changed(course):
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    proc = subprocess.run([nbgrader, "autograde", "chars"], cwd=course, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    changed = [line for line in proc.stderr.splitlines() if "has changed" in line]
    assert len(changed) == 1 and "'checksum' for cell chars-encode-basic" in changed[0], changed
    # ... and the report's flag says so, on bob's row (nbgrader only logs it).
    flags = [e for e in ev.read_events(course / "grading-events.jsonl") if e.event == ev.EDITED_TEST]
    assert [(e.student, e.cell, e.flag) for e in flags] == [("bob", "chars-encode-basic", True)], flags
    assert "graded with the released cell" in flags[0].detail
    # Every test cell still ran with its hidden tests: both score full marks.
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert {s: gb.find_submission("chars", s).score for s in ("alice", "bob")} == {"alice": 10, "bob": 10}
    nb = load(course / "autograded/bob/chars/chars.ipynb")
    assert sum("### BEGIN HIDDEN TESTS" in "".join(c["source"]) for c in nb["cells"]) == 12


def test_grade_py_collects_closed_exports_submitted_and_counts_its_workers(course, tmp_path):
    from nbgrader.api import Gradebook

    # An assignment in the gradebook that nobody submitted (as after `make exercises`).
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.update_or_create_assignment("words")
    # carol's submission in the exchange, as `nbgrader submit` leaves it: its folder 0777,
    # owned by the user she is (collecting sets aside what another user made in her name:
    # tests/test_collect_checks.py), and written at the time it states.
    carol = "daemon" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
    exchange = tmp_path / "exchange"
    inbound = exchange / "tokenization" / "inbound"
    now = time.strftime("%Y-%m-%d %H:%M:%S.000000 UTC", time.gmtime())
    folder = inbound / f"{carol}+chars+{now}+0123456789abcdef"
    full = solutions(load(course / "source/chars/chars.ipynb"))
    write_nb(folder / "chars.ipynb", submission(load(course / "exercises/chars/chars.ipynb"), full))
    (folder / "timestamp.txt").write_text(now)
    for path in (exchange, exchange / "tokenization", inbound, folder):
        path.chmod(0o777)
    for path in (folder, *folder.iterdir()):
        os.chown(path, pwd.getpwnam(carol).pw_uid, pwd.getpwnam(carol).pw_gid)

    proc = run([sys.executable, "autograder/grade.py", "chars", "--collect=exchange",
                f"--exchange-root={exchange}", f"--student={carol}", "--jobs=4", "--quiet"], course)
    assert "with 1 worker(s)" in proc.stderr, proc.stderr[-2000:]

    # Nobody but the grader may write into a collected submission.
    collected = course / "submitted" / carol / "chars"
    for path in [collected.parent, collected, *collected.iterdir()]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o022 == 0, (path, oct(path.stat().st_mode))

    # grades.csv: chars only, though the gradebook also knows words.
    with open(course / "grades.csv", encoding="utf-8") as f:
        grades = list(csv.DictReader(f))
    assert {r["assignment"] for r in grades} == {"chars"}
    assert {r["student_id"]: float(r["score"]) for r in grades}[carol] == 10.0

    md = (course / "grading-report.md").read_text(encoding="utf-8").splitlines()
    assert not any(line.startswith(";") for line in md), md[:12]
    assert f"| chars | {carol} | graded | 10 |" in "\n".join(md)

    # A hit of the whole submission's memory cap explains the row, as a kernel's death does.
    caps = [ev.GradingEvent("chars", carol, None, "", ev.AUTOGRADED, seconds=1.0),
            ev.GradingEvent("chars", carol, "chars", "", ev.HIT_CAP, "4096 MiB reached"),
            ev.GradingEvent("chars", carol, "chars", "", ev.SUBMISSION_CAP, "cgroup v2: 4096 MiB")]
    row = next(r for r in report.report_rows(course, f"sqlite:///{course / 'gradebook.db'}", ["chars"], caps)
               if r["student"] == carol)
    assert row["status"] == "graded"
    assert row["details"] == "hit the submission's cap in chars.ipynb: 4096 MiB reached"


def _chown_tree(top: Path, uid: int, gid: int, keep: set[str]) -> None:
    os.chown(top, uid, gid)
    for d, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(d, name)
            if path.relative_to(top).parts[0] not in keep:
                os.chown(path, uid, gid, follow_symlinks=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="grade.py's refusal is for root")
def test_root_refuses_a_course_of_someone_else_and_says_how_to_repair(tmp_path):
    course = tmp_path / "course"
    (course / "source").mkdir(parents=True)  # what grade.py needs before it refuses
    (course / "source/assignments.json").write_text('{"assignments": []}\n')  # a course of none
    for name in ("autograder", "nbgrader_config.py"):
        src = ROOT / name
        (shutil.copytree(src, course / name, dirs_exist_ok=True,
                         ignore=shutil.ignore_patterns("__pycache__")) if src.is_dir()
         else shutil.copy2(src, course / name))
    (course / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    # An earlier run as root left these; the rest belongs to uid 4242.
    (course / "autograded/alice/chars").mkdir(parents=True)
    (course / "gradebook.db").write_bytes(b"")
    (course / "feedback").mkdir()
    _chown_tree(course, 4242, 4242, keep={"autograded", "gradebook.db"})
    os.chown(course / "feedback", 4242, 4242)
    (course / "feedback/alice").mkdir()  # root-owned, one level down

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # no root-owned __pycache__ in autograder/
    proc = subprocess.run([sys.executable, "autograder/grade.py", "chars", "--quiet"], cwd=course,
                          capture_output=True, text=True, env=env)
    print(proc.stderr)
    assert proc.returncode != 0
    assert "belongs to uid 4242, and this is root" in proc.stderr
    assert "sudo -u '#4242' .venv/bin/python autograder/grade.py chars --quiet" in proc.stderr
    assert "--allow-root" in proc.stderr
    assert "sudo chown -R 4242:4242 autograded feedback gradebook.db\n" in proc.stderr + "\n"
    assert not (course / "grades.csv").exists()
    # --allow-root goes past the refusal (here to the next error: no shard to merge).
    proc = run([sys.executable, "autograder/grade.py", "--merge=1", "--allow-root", "--quiet"], course)
    assert proc.returncode != 0 and "shard 1 is missing" in proc.stderr


# ---------------------------------------------------------------------------------------
# make setup and its Python
# ---------------------------------------------------------------------------------------


def test_make_setup_warns_when_its_python_is_private(tmp_path):
    """The kernel venv's python links to $(PYTHON)'s real file: in a private home (pyenv
    under /root), nobody else can use either venv."""
    if shutil.which("make") is None:
        pytest.skip("needs make")
    work = tmp_path / "course"
    for name in ("Makefile", "requirements.txt", "solutions/pyproject.toml", "autograder/kernel-requirements.txt"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, work / name)
    for stamp in (".venv/.installed", ".venv/kernel/.installed"):  # set up already: only the check runs
        (work / stamp).parent.mkdir(parents=True, exist_ok=True)
        (work / stamp).touch()
    base = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    homes = Path(tempfile.mkdtemp(prefix="tokmake-"))  # pytest's tmp_path is closed to others
    outputs = {}
    try:
        homes.chmod(0o755)
        for mode in (0o700, 0o755):
            home = homes / f"home-{mode:o}"
            (home / "bin").mkdir(parents=True)
            shutil.copy2(base, home / "bin/python3")
            home.chmod(mode)
            if subprocess.run([home / "bin/python3", "-c", "pass"], capture_output=True).returncode != 0:
                pytest.skip(f"a copy of {base} does not run")
            proc = subprocess.run(["make", "-s", "setup", f"PYTHON={home}/bin/python3"], cwd=work,
                                  capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
            outputs[mode] = proc.stdout + proc.stderr
    finally:
        shutil.rmtree(homes)
    assert f"{homes}/home-700/bin/python3" in outputs[0o700] and "make setup PYTHON=" in outputs[0o700]
    assert outputs[0o755] == ""
