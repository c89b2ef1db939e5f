"""The whole grading pipeline for the `batches` assignment (Assignment 10), on a
throw-away copy of the course, with exact scores (the helpers are those of
``test_grading_e2e.py``).

Three submissions (the student notebook of exercises/, filled in) are written to
``submitted/``; ``autograder/grade.py`` generates the assignment in the copy, runs
nbgrader's autograde, generate_feedback and export, and the tests read
``grades.csv``, ``grading-report.csv`` and ``feedback/``. The partial submission makes
three classic mistakes of tests/wrong_solutions/batches.py: labels masked by the pad id
(which erases the real end-of-text), positions without ``masked_fill`` (``-1`` on the
pads), and a packed row's padding kept as labels. Each is caught by a visible test whose
message states the rule, and the feedback shows those messages. About 3 min measured on
2 busy cores (grade.py 155 s, one notebook autograded in 17 s).
"""

from __future__ import annotations

import html
import json
import re
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, copy_course
from test_grading_e2e import (check_exact_scores, check_partial_credit_cell_by_cell, read_results, run,
                             solutions, submission, write_nb)
from test_wrong_solutions import wrong_solutions

pytestmark = pytest.mark.slow

WRONG = wrong_solutions("batches")


def submissions(full: dict[str, str]) -> dict[str, dict[str, str]]:
    return {
        "full": full,
        "stub": {},
        # The pad id for the mask (Part 1's basic and breadth cells, 1 + 1), -1 on the
        # pads (all of Part 2, 2), the padding kept as labels (Part 4's edge cases and
        # breadth, 0.5 + 0.5): 10 - 2 - 2 - 1 = 5.
        "partial": {**full,
                    **WRONG["labels_by_pad_id"]["code"],
                    **WRONG["positions_pads_minus_one"]["code"],
                    **WRONG["boundary_padding_kept"]["code"]},
    }


EXPECTED = {("batches", "full"): (10, "graded"), ("batches", "stub"): (0, "graded"),
            ("batches", "partial"): (5, "graded")}
LOST = {
    ("batches", "partial"): {"batches-labels-basic", "batches-labels-breadth",
                             "batches-positions-basic", "batches-positions-edges",
                             "batches-positions-breadth",
                             "batches-boundary-edges", "batches-boundary-breadth"},
    ("batches", "full"): set(),
}


def errors(course: Path, path: str) -> list[str]:
    """The AssertionError messages in a feedback page, in order."""
    text = (course / path).read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return re.findall(r"AssertionError: (.*)", text)


def test_grading_batches_end_to_end(tmp_path):
    course = copy_course(tmp_path / "course")
    student_nb = json.loads((ROOT / "exercises/batches/batches.ipynb").read_text(encoding="utf-8"))
    full = solutions(json.loads((course / "source/batches/batches.ipynb").read_text(encoding="utf-8")))
    for student, code in submissions(full).items():
        write_nb(course / f"submitted/{student}/batches/batches.ipynb", submission(student_nb, code))
    start = time.perf_counter()
    proc = run([sys.executable, "autograder/grade.py", "batches", "--quiet"], course)
    seconds = time.perf_counter() - start
    report, grades = read_results(course)
    print(f"\ngrade.py, {len(EXPECTED)} submissions of batches: {seconds:.1f} s; autograding one "
          f"notebook: {float(report[('batches', 'full')]['seconds']):.1f} s")

    check_exact_scores(report, grades, EXPECTED)
    assert proc.returncode == 0
    check_partial_credit_cell_by_cell({"course": course, "report": report}, LOST)

    # One message per lost cell, in order: the visible test that caught the mistake.
    partial = errors(course, "feedback/partial/batches/batches.html")
    assert len(partial) == len(LOST[("batches", "partial")]), partial
    assert "Find the padding with the attention mask" in partial[0], partial
    assert "a pad gets 1, as in Hugging Face" in partial[2], partial
    assert "padding" in partial[5] and "-100" in partial[5], partial
    stub = (course / "feedback/stub/batches/batches.html").read_text(encoding="utf-8")
    assert "NotImplementedError" in stub
