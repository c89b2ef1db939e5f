"""The whole grading pipeline on a throw-away copy of the course, for every assignment
(the capstone's is ``tests/test_capstone.py``), with exact scores in total and cell by cell.

For each run of ``e2e_cases.RUNS``: ``autograder/release.py`` generates its assignments in
a copy of the course, the submissions of ``e2e_cases.CASES`` (the student notebook of
exercises/ with solution cells filled in) are written to ``submitted/`` or, for an LMS's
download, ``downloaded/<a>/archive/``, ``autograder/grade.py`` runs nbgrader's collect,
autograde, generate_feedback and export on them, and the checks read ``grades.csv``,
``grading-report.csv``, the gradebook and ``feedback/``. Every submission has its exact
(score, status) in the report and in ``grades.csv``; loses exactly the cells listed, each
in full; gets feedback, a stub's saying ``NotImplementedError``; and the feedback of a
partial submission shows the messages of the visible tests that caught its mistakes.
An assignment of ``source/assignments.json`` without a case of its own is graded on its
full and stub submissions (its registry points and 0), in a run of its own.

The runs are spread over three files by ``e2e_cases.shard`` (pytest-xdist ``--dist
loadfile`` gives each file to one worker): ``test_grading_e2e.py``, ``_b`` and ``_c``;
``-k <run>`` (``-k practice``) selects one.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from conftest import ASSIGNMENTS, BY_ID, copy_course
from e2e_cases import CASES, RUNS, STUB, Case, Run, Stage, Sub, shard
from grading_helpers import (check_partial_credit_cell_by_cell, feedback_errors, read_results, run, solutions,
                             submission, write_nb)

ELSEWHERE = {"capstone": "tests/test_capstone.py"}  # graded end to end by its own test


def default_case(assignment: str) -> Case:
    return Case({"full": Sub(), "stub": STUB},
                {"full": (BY_ID[assignment].points, "graded"), "stub": (0, "graded")}, {"full": set()})


def all_runs() -> dict[str, Run]:
    """RUNS, and a run of its own for each assignment without a case."""
    covered = {a for r in RUNS.values() for s in r.stages for a in s.assignments}
    extra = {a: Run((Stage((a,)),), minutes=1) for a in ASSIGNMENTS if a not in covered | set(ELSEWHERE)}
    return {**RUNS, **extra}


def case(assignment: str) -> Case:
    return CASES.get(assignment) or default_case(assignment)


def code_of(sub: Sub | str, full: dict[str, str], assignment: str) -> dict[str, str]:
    """The solution cells of a submission, by grade_id."""
    if sub == STUB:
        return {}
    from test_wrong_solutions import wrong_solutions  # it imports grading_helpers only

    assert isinstance(sub, Sub)
    catalog = wrong_solutions(assignment) if sub.wrong else {}
    code = {gid: c for gid, c in full.items() if gid not in sub.drop}
    for name in sub.wrong:
        code.update(catalog[name]["code"])
    code.update(sub.code)
    for gid, extra in sub.append.items():
        code[gid] = code[gid] + "\n" + extra
    return code


def chars_misfiled(course: Path, student_nb: dict, full: dict[str, str]) -> None:
    """A notebook under another name (nbgrader knows none), one that is not JSON, and a
    folder without notebooks."""
    write_nb(course / "submitted/renamed/chars/chars (1).ipynb", submission(student_nb, full))
    (course / "submitted/corrupt/chars").mkdir(parents=True)
    (course / "submitted/corrupt/chars/chars.ipynb").write_text('{"cells": [', encoding="utf-8")
    (course / "submitted/empty/chars").mkdir(parents=True)
    (course / "submitted/empty/chars/notes.txt").write_text("I could not do it\n")


def write_submissions(course: Path, stage: Stage) -> None:
    def load(path: Path) -> dict:
        return json.loads(path.read_text(encoding="utf-8"))

    for a in stage.assignments:
        student_nb = load(course / f"exercises/{a}/{a}.ipynb")
        full = solutions(load(course / f"source/{a}/{a}.ipynb"))
        for student, sub in case(a).submissions.items():
            nb = submission(student_nb, code_of(sub, full, a))
            if a in stage.zip:
                write_nb(course / f"downloaded/{a}/archive/{student}_{a}.ipynb", nb)
            else:
                write_nb(course / f"submitted/{student}/{a}/{a}.ipynb", nb)
        if a == "chars":
            chars_misfiled(course, student_nb, full)


def grade_run(course: Path, name: str, the_run: Run) -> dict:
    """Release, submit and grade each stage in turn (a stage's submissions are written
    only when it starts, so that an earlier report does not list them as not graded yet)."""
    python = sys.executable
    every = [a for s in the_run.stages for a in s.assignments]
    assert run([python, "autograder/release.py", *every], course).returncode == 0
    start = time.perf_counter()
    for stage in the_run.stages:
        write_submissions(course, stage)
        proc = run([python, "autograder/grade.py", *stage.assignments, *stage.options, "--quiet"], course)
    seconds = time.perf_counter() - start
    report, grades = read_results(course)
    print(f"\ngrade.py, {len(report)} submissions of {name}: {seconds:.1f} s; autograding one notebook: "
          + ", ".join(f"{a} {float(report[(a, 'full')]['seconds']):.1f} s" for a in every))
    return {"course": course, "report": report, "grades": grades, "returncode": proc.returncode,
            "assignments": every}


def check_scores(graded: dict) -> None:
    """Every submission is in the report with its exact (score, status), out of the
    registry's points, and grades.csv agrees (a submission never graded is not in it)."""
    report, grades = graded["report"], graded["grades"]
    expected = {(a, s): v for a in graded["assignments"] for s, v in case(a).expected.items()}
    assert set(report) == set(expected)
    got = {key: (None if row["score"] == "" else float(row["score"]), row["status"]) for key, row in report.items()}
    assert got == expected, "\n".join(f"{key}: expected {expected[key]}, got {got[key]} ({report[key]['details']})"
                                      for key in expected if got[key] != expected[key])
    for (a, student), (score, _) in expected.items():
        row = grades.get((a, student))
        if score is None:  # never graded, so nbgrader does not know the student
            assert row is None
            continue
        assert float(report[(a, student)]["max_score"]) == BY_ID[a].points, (a, student)
        assert float(row["score"]) == score and float(row["max_score"]) == BY_ID[a].points, (a, student, row)


def check_feedback(graded: dict) -> None:
    """Feedback for every graded submission; a stub's says why it has no points."""
    course, report = graded["course"], graded["report"]
    for a in graded["assignments"]:
        for student, (_, status) in case(a).expected.items():
            page = course / f"feedback/{student}/{a}/{a}.html"
            if status in ("failed", "missing from gradebook"):
                assert not page.exists()
                continue
            assert page.exists(), page
            assert report[(a, student)]["feedback"] == page.relative_to(course).as_posix()
        if "stub" in case(a).submissions:
            stub = (course / f"feedback/stub/{a}/{a}.html").read_text(encoding="utf-8")
            assert "NotImplementedError" in stub and "replace this line with your code" in stub, a


def check_messages(graded: dict) -> None:
    """One message per lost cell where the case says so, and each expected message."""
    for a in graded["assignments"]:
        c = case(a)
        for student in c.one_message_per_lost_cell:
            errors = feedback_errors(graded["course"], f"feedback/{student}/{a}/{a}.html")
            assert len(errors) == len(c.lost[student]), (a, student, errors)
        for m in c.messages:
            errors = feedback_errors(graded["course"], f"feedback/{m.student}/{a}/{a}.html")
            candidates = errors if m.index is None else errors[m.index:m.index + 1]
            holds = {"==": str.__eq__, "startswith": str.startswith, "in": lambda e, t: t in e}
            assert any(all(holds[op](e, text) for op, text in m.checks) for e in candidates), (a, m, errors)


def check_chars_failures(graded: dict) -> None:
    """What went wrong with chars is named in the report, its Markdown, the feedback and
    the autograded notebook (output cut)."""
    course, report = graded["course"], graded["report"]
    assert "chars-decode" in report[("chars", "dead")]["details"]
    assert "timed out in chars.ipynb, cell chars-encode-basic" in report[("chars", "loop")]["details"]
    assert "could not be interrupted" in report[("chars", "stuck")]["details"]
    assert "output truncated in chars.ipynb, cell chars-build-vocab" in report[("chars", "print")]["details"]
    assert "No notebooks found" in report[("chars", "renamed")]["details"]
    assert "Error" in report[("chars", "corrupt")]["details"]
    md = (course / "grading-report.md").read_text(encoding="utf-8")
    for student in ("dead", "loop", "stuck", "print", "renamed", "corrupt", "empty"):
        assert f"| chars | {student} |" in md
    dead = (course / "feedback/dead/chars/chars.html").read_text(encoding="utf-8")
    assert "the kernel died while running this cell" in dead
    assert "not run: the kernel died while running cell" in dead
    nb = json.loads((course / "autograded/print/chars/chars.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["id"] == "chars-build-vocab")
    text = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    assert len(text) < 200_000
    assert text.rstrip().endswith("... Output truncated ...")


SPECIAL_CHECKS = {"chars": check_chars_failures}


def grade_and_check(name: str, tmp_path: Path) -> None:
    """One run: one test, so that pytest-xdist never grades the same run twice."""
    the_run = all_runs()[name]
    graded = grade_run(copy_course(tmp_path / "course"), name, the_run)
    check_scores(graded)
    assert graded["returncode"] == the_run.returncode
    lost = {(a, s): cells for a in graded["assignments"] for s, cells in case(a).lost.items()}
    check_partial_credit_cell_by_cell(graded, lost)
    check_feedback(graded)
    check_messages(graded)
    for a in graded["assignments"]:
        if a in SPECIAL_CHECKS:
            SPECIAL_CHECKS[a](graded)


def runs_of_file(index: int) -> list[str]:
    """The runs of file ``index``: ``shard``'s, and in the first file the runs of the
    assignments without a case."""
    return shard(index) + ([n for n in all_runs() if n not in RUNS] if index == 0 else [])


def make_test(index: int):
    """The parametrised test of file ``index`` (``test_grading_end_to_end[<run>]``)."""

    @pytest.mark.slow
    @pytest.mark.parametrize("name", runs_of_file(index))
    def test_grading_end_to_end(name: str, tmp_path: Path) -> None:
        grade_and_check(name, tmp_path)

    return test_grading_end_to_end
