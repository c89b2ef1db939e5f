"""The whole grading pipeline for the `superword` assignment (chapter 12), on a throw-away
copy of the course, with exact scores (helpers from ``test_grading_e2e.py``).

Three submissions: the instructor's solution (10), the untouched notebook (0), and a
partial one that makes two of the catalog's classic mistakes (tests/wrong_solutions/
superword.py): ties broken by ids instead of bytes in stage 2 (Part 2's basic cell, and its
breadth cell through the hidden tests) and a patcher that returns [0] for no bytes (Part
3's edge and breadth cells): 4.5 points. Each lost cell is lost in full, and the feedback
shows the visible tests' messages. About 1 min on 2 cores (4 at a load average of 10).
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
EXPECTED = {(A, "full"): (10, "graded"), (A, "stub"): (0, "graded"), (A, "partial"): (4.5, "graded")}
LOST = {
    (A, "full"): set(),
    (A, "partial"): {"superword-continue-basic", "superword-continue-breadth",
                     "superword-patch-edges", "superword-patch-breadth"},
}


def test_grading_superword_end_to_end(tmp_path: Path) -> None:
    course = copy_course(tmp_path / "course")
    student_nb = json.loads((ROOT / f"exercises/{A}/{A}.ipynb").read_text(encoding="utf-8"))
    full = solutions(json.loads((course / f"source/{A}/{A}.ipynb").read_text(encoding="utf-8")))
    partial = {**full, **WRONG["tie_by_ids"]["code"], **WRONG["empty_gives_zero"]["code"]}
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
    assert messages[0].startswith("after the replay the words are [b'ab', b'x']"), messages
    assert "the greatest pair of byte strings" in messages[0], messages
    assert any(m.startswith("no entropies, no bytes: no patch, so []") for m in messages), messages
