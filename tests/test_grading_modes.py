"""grade.py's other ways to run: shards merged afterwards give what one run gives, a
regrade of one student, --unsafe (which works and says so on every row), and the
refusal to grade without bubblewrap."""

from __future__ import annotations

import csv
import json
import sys

import pytest

from conftest import ROOT, copy_course
from e2e_cases import CHARS_WRONG_ENCODE
from grading_helpers import run, solutions, submission, write_nb

from autograder.sandbox import INSTALL_HINT, SandboxUnavailable, check_bwrap  # noqa: E402

pytestmark = pytest.mark.slow

STUDENTS = {"ann": "full", "bob": "wrong", "cy": "stub", "dee": "full", "j_ed": "wrong"}
SCORES = {"full": 10.0, "wrong": 7.0, "stub": 0.0}


def read_csv(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("modes") / "course")
    assert run([sys.executable, "autograder/release.py", "chars"], course).returncode == 0
    load = lambda p: json.loads(p.read_text(encoding="utf-8"))  # noqa: E731
    student_nb, full = load(course / "exercises/chars/chars.ipynb"), solutions(load(course / "source/chars/chars.ipynb"))
    code = {"full": full, "wrong": {**full, "chars-encode": CHARS_WRONG_ENCODE}, "stub": {}}
    for student, kind in STUDENTS.items():
        write_nb(course / f"submitted/{student}/chars/chars.ipynb", submission(student_nb, code[kind]))
    return course


def scores(course):
    return {r["student_id"]: float(r["score"]) for r in read_csv(course / "grades.csv") if r["assignment"] == "chars"}


def test_shards_then_merge_give_what_one_run_gives(course):
    grade = [sys.executable, "autograder/grade.py", "chars", "--quiet"]
    for k in (1, 2):
        assert run(grade + [f"--shard={k}/2", "--jobs=1"], course).returncode == 0
    shard_events = [json.loads(line) for k in (1, 2)
                    for line in open(course / f"grading-events.shard-{k}-of-2.jsonl")]
    graded = sorted(e["student"] for e in shard_events if e["event"] == "autograded")
    assert graded == sorted(STUDENTS)  # each student in exactly one shard
    assert not (course / "grades.csv").exists()  # a shard writes no report
    assert run(grade + ["--merge=2"], course).returncode == 0
    assert scores(course) == {s: SCORES[kind] for s, kind in STUDENTS.items()}
    report = {r["student"]: r for r in read_csv(course / "grading-report.csv")}
    assert {s: float(r["score"]) for s, r in report.items()} == scores(course)
    assert all(r["status"] == "graded" for r in report.values())


def test_a_regrade_of_one_student_leaves_the_others(course):
    events = course / "grading-events.jsonl"
    before = [json.loads(line) for line in open(events)]
    assert run([sys.executable, "autograder/grade.py", "chars", "--student=cy", "--quiet"], course).returncode == 0
    after = [json.loads(line) for line in open(events)]
    assert [e for e in after if e["student"] != "cy"] == [e for e in before if e["student"] != "cy"]
    assert any(e["student"] == "cy" and e["event"] == "autograded" for e in after)
    assert scores(course) == {s: SCORES[kind] for s, kind in STUDENTS.items()}
    proc = run([sys.executable, "autograder/grade.py", "chars", "--student=nobody", "--quiet"], course)
    assert proc.returncode != 0 and "nothing submitted by nobody" in proc.stderr


def test_unsafe_grades_and_says_so_everywhere(course):
    proc = run([sys.executable, "autograder/grade.py", "chars", "--unsafe", "--quiet"], course)
    assert proc.returncode == 0
    assert scores(course) == {s: SCORES[kind] for s, kind in STUDENTS.items()}
    report = read_csv(course / "grading-report.csv")
    assert all("graded without a sandbox" in r["flags"] for r in report)
    assert "Graded without a sandbox" in (course / "grading-report.md").read_text(encoding="utf-8")


def test_without_bubblewrap_grading_refuses_and_names_the_package():
    with pytest.raises(SandboxUnavailable) as e:
        check_bwrap("bwrap-that-is-not-installed")
    assert "apt-get install bubblewrap" in str(e.value) and "--unsafe" in str(e.value)
    assert str(e.value) == INSTALL_HINT
