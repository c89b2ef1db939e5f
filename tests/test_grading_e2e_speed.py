"""End-to-end grading of ``speed`` (Assignment 12, chapter 10) on its own copy of the
course: the real ``autograder/grade.py``, sandbox and all, on a full submission (10), a
stub (0) and a partial one that loses exactly the cells its mistakes break, among them
the three speed cells (training that counts every pair again after each merge, in Parts 2
and 3; a long piece encoded by the scan), whose feedback states the limit and the rule. About 1 to 2
minutes on 2 busy cores, most of it the recount's run in Part 3's speed cell.
"""

from __future__ import annotations

import html
import json
import re
import sys
import time
from pathlib import Path

import pytest

from conftest import copy_course
from test_grading_e2e import (
    check_exact_scores,
    check_partial_credit_cell_by_cell,
    read_results,
    run,
    solutions,
    submission,
    write_nb,
)

pytestmark = pytest.mark.slow


def speed_submissions(full: dict[str, str]) -> dict[str, dict[str, str]]:
    from test_wrong_solutions import wrong_solutions  # it imports test_grading_e2e: import late

    wrong = {name: w["code"] for name, w in wrong_solutions("speed").items()}
    return {
        "full": full,
        "stub": {},
        # The right merges, slowly (the speed cells of Part 2, 1, and Part 3, 1), the scan
        # (Part 4's basic cell, 1), and a pair reported as changed when its count went down
        # and up by as much (Part 1's edge cases and breadth, 1 + 1): 10 - 5 = 5.
        "partial": {**full, **wrong["train_recount_every_merge"], **wrong["piece_scan"],
                    **wrong["merge_reports_unchanged"]},
    }


EXPECTED = {("speed", "full"): (10, "graded"), ("speed", "stub"): (0, "graded"),
            ("speed", "partial"): (5, "graded")}
LOST = {("speed", "full"): set(),
        ("speed", "partial"): {"speed-merge-edges", "speed-merge-breadth", "speed-train-basic", "speed-text-basic",
                               "speed-piece-basic"}}


def test_grading_speed_end_to_end(tmp_path):
    course = copy_course(tmp_path / "course")
    python = sys.executable
    assert run([python, "autograder/release.py", "speed"], course).returncode == 0

    def load(path: Path) -> dict:
        return json.loads(path.read_text(encoding="utf-8"))

    student_nb = load(course / "exercises/speed/speed.ipynb")
    full = solutions(load(course / "source/speed/speed.ipynb"))
    for student, code in speed_submissions(full).items():
        write_nb(course / f"submitted/{student}/speed/speed.ipynb", submission(student_nb, code))
    start = time.perf_counter()
    proc = run([python, "autograder/grade.py", "speed", "--quiet"], course)
    seconds = time.perf_counter() - start
    report, grades = read_results(course)
    print(f"\ngrade.py, 3 submissions of speed: {seconds:.1f} s; autograding one notebook: "
          f"{float(report[('speed', 'full')]['seconds']):.1f} s (full), "
          f"{float(report[('speed', 'partial')]['seconds']):.1f} s (partial)")

    check_exact_scores(report, grades, EXPECTED)
    assert proc.returncode == 0
    check_partial_credit_cell_by_cell({"course": course, "report": report}, LOST)

    text = (course / "feedback/partial/speed/speed.html").read_text(encoding="utf-8")
    errors = re.findall(r"AssertionError: (.*)", html.unescape(re.sub(r"<[^>]+>", "", text)))
    assert len(errors) == len(LOST[("speed", "partial")]), errors
    assert any("the limit is 250 passes" in e and "update only the words that hold the merged pair" in e
               for e in errors), errors
    assert any("the limit is 300 passes" in e and "O(n^2)" in e for e in errors), errors
    assert any("the limit is 75 passes for all 2,000 merges" in e and "a heap pops the next merge in O(log n)" in e
               for e in errors), errors
