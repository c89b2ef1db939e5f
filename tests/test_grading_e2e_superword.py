"""The whole grading pipeline for the `superword` assignment (chapter 12), on a throw-away
copy of the course, with exact scores (helpers from ``test_grading_e2e.py``).

Three submissions: the instructor's solution (10), the untouched notebook (0), and a
partial one that makes two of the catalog's classic mistakes (tests/wrong_solutions/
superword.py): a filter that refuses every colon (all of Part 1) and a patcher that
returns [0] for no bytes (Part 3's edge and breadth cells). Each lost cell is lost in
full, and the feedback shows the visible test's message. About 40 s on 2 cores.
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

A = "superword"
WRONG = wrong_solutions(A)
EXPECTED = {(A, "full"): (10, "graded"), (A, "stub"): (0, "graded"), (A, "partial"): (6, "graded")}
LOST = {
    (A, "full"): set(),
    (A, "partial"): {"superword-allowed-basic", "superword-allowed-edges", "superword-allowed-breadth",
                     "superword-patch-edges", "superword-patch-breadth"},
}


def test_grading_superword_end_to_end(tmp_path: Path) -> None:
    course = copy_course(tmp_path / "course")
    student_nb = json.loads((ROOT / f"exercises/{A}/{A}.ipynb").read_text(encoding="utf-8"))
    full = solutions(json.loads((course / f"source/{A}/{A}.ipynb").read_text(encoding="utf-8")))
    partial = {**full, **WRONG["colon_without_space"]["code"], **WRONG["empty_gives_zero"]["code"]}
    for student, code in (("full", full), ("stub", {}), ("partial", partial)):
        write_nb(course / f"submitted/{student}/{A}/{A}.ipynb", submission(student_nb, code))
    start = time.perf_counter()
    proc = run([sys.executable, "autograder/grade.py", A, "--quiet"], course)
    seconds = time.perf_counter() - start
    report, grades = read_results(course)
    print(f"\ngrade.py, 3 submissions of {A}: {seconds:.1f} s; autograding one notebook: "
          f"{float(report[(A, 'full')]['seconds']):.1f} s")
    check_exact_scores(report, grades, EXPECTED)
    assert proc.returncode == 0
    check_partial_credit_cell_by_cell({"course": course, "report": report}, LOST)
    text = html.unescape(re.sub(r"<[^>]+>", "", (course / f"feedback/partial/{A}/{A}.html").read_text(encoding="utf-8")))
    messages = re.findall(r"AssertionError: (.*)", text)
    assert len(messages) == len(LOST[(A, "partial")]), messages
    assert messages[0].startswith("is_superword_allowed(b'x:y') returned False; expected True"), messages
    assert any(m.startswith("no entropies, no bytes: no patch, so []") for m in messages), messages
