"""Assignment 13, ``quality``, graded end to end on its own copy of the course: the
instructor's solution gets 10, the untouched notebook 0, and a partial submission loses
exactly the cells it should, cell by cell, with the visible test's message in its
feedback (the pattern of ``test_grading_e2e.py``'s ``practice``; about 40 s)."""

from __future__ import annotations

import html
import json
import re
import sys
import time
from pathlib import Path

import pytest

from conftest import copy_course
from test_grading_e2e import (cells, check_exact_scores, check_partial_credit_cell_by_cell,
                              read_results, run, solutions, submission, write_nb)

pytestmark = pytest.mark.slow

EXPECTED = {  # (assignment, student) -> (score, status)
    ("quality", "full"): (10, "graded"),
    ("quality", "stub"): (0, "graded"),
    ("quality", "partial"): (6.5, "graded"),
}
LOST = {
    ("quality", "full"): set(),
    # Part 4 not done (its three cells), bits_per_byte that accepts ids and texts of
    # different lengths (Part 3's edge cases only), and estimate_discount without its
    # fallback when n1 or n2 alone is 0 (Part 1's edge cases and breadth): 10 - 2 - 0.5 - 1.
    # Each part is graded on its own: Parts 2 and 3, tested with the course's version of the
    # part before, keep their points (before issue 28 this Part 1 cost 3.5 more).
    ("quality", "partial"): (cells("quality", "sweep") | {"quality-bpb-edges"}
                             | cells("quality", "discount", kinds=("edges", "breadth"))),
}


def quality_submissions(full: dict[str, str]) -> dict[str, dict[str, str]]:
    from test_wrong_solutions import wrong_solutions  # it imports test_grading_e2e: import late

    wrong = {name: w["code"] for name, w in wrong_solutions("quality").items()}
    partial = {gid: code for gid, code in full.items() if gid != "quality-sweep"}
    return {"full": full, "stub": {},
            "partial": {**partial, **wrong["bpb_lengths_unchecked"],
                        **wrong["discount_fallback_only_when_both_zero"]}}


def test_grading_quality_end_to_end(tmp_path):
    course = copy_course(tmp_path / "course")
    python = sys.executable
    assert run([python, "autograder/release.py", "quality"], course).returncode == 0

    def load(path: Path) -> dict:
        return json.loads(path.read_text(encoding="utf-8"))

    student_nb = load(course / "exercises/quality/quality.ipynb")
    full = solutions(load(course / "source/quality/quality.ipynb"))
    for student, code in quality_submissions(full).items():
        write_nb(course / f"submitted/{student}/quality/quality.ipynb", submission(student_nb, code))
    start = time.perf_counter()
    proc = run([python, "autograder/grade.py", "quality", "--quiet"], course)
    seconds = time.perf_counter() - start
    report, grades = read_results(course)
    print(f"\ngrade.py, 3 submissions of quality: {seconds:.1f} s; autograding one notebook: "
          f"{float(report[('quality', 'full')]['seconds']):.1f} s")

    check_exact_scores(report, grades, EXPECTED)
    assert proc.returncode == 0
    check_partial_credit_cell_by_cell({"course": course, "report": report}, LOST)

    # Feedback for everyone; one message per lost cell, the visible test that caught it.
    for assignment, student in EXPECTED:
        page = course / f"feedback/{student}/{assignment}/{assignment}.html"
        assert page.exists(), page
    stub = (course / "feedback/stub/quality/quality.html").read_text(encoding="utf-8")
    assert "NotImplementedError" in stub
    text = (course / "feedback/partial/quality/quality.html").read_text(encoding="utf-8")
    errors = re.findall(r"(AssertionError|NotImplementedError): (.*)", html.unescape(re.sub(r"<[^>]+>", "", text)))
    assert errors[0][1].startswith("estimate_discount([2, 4, 4]) gave 0.0; expected 0.5"), errors
    bpb = [message for _, message in errors if message.startswith("bits_per_byte(")]
    assert bpb and bpb[0].startswith("bits_per_byte([[0, 1], [0, 2, 1]], [[0, 1]], ['ab', 'c'], order=2, "
                                     "vocab_size=3) returned"), errors
    assert "expected a ValueError: 1 sequence of ids but 2 texts" in bpb[0], errors
