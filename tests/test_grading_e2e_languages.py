"""The whole grading pipeline for the ``languages`` assignment (Assignment 11), on a
throw-away copy of the course, with exact scores cell by cell (the helpers are those of
``test_grading_e2e.py``).

Three submissions — the instructor's solution, the untouched stub and a partial one made of
three classic mistakes from ``tests/wrong_solutions/languages.py`` — are written to
``submitted/``, ``autograder/grade.py`` releases the assignment in the copy and grades them
in the sandbox, and the test reads ``grades.csv``, ``grading-report.csv`` and
``feedback/``: 10, 0 and 6 points, the partial one losing exactly the cells whose visible
tests catch its mistakes, with their messages in the feedback. About 1 min on 2 cores.
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
from test_grading_e2e import (EDGES_BREADTH, cells, check_exact_scores, check_partial_credit_cell_by_cell,
                              read_results, run, solutions, submission, write_nb)
from test_wrong_solutions import wrong_solutions

pytestmark = pytest.mark.slow


def languages_submissions(full: dict[str, str]) -> dict[str, dict[str, str]]:
    wrong = {name: w["code"] for name, w in wrong_solutions("languages").items()}
    return {
        "full": full,
        "stub": {},
        # Digits grouped from the left (all of part 2: 2 points), the pattern ignored for
        # GPT2_PATTERN_RE (part 3's edge cases: 1), a letter decoded token by token (part 4's
        # edge cases and breadth: 0.5 + 0.5): 6 points of 10.
        "partial": {**full, **wrong["digits_from_the_left"], **wrong["unreachable_global_pattern"],
                    **wrong["letter_per_token_decode"]},
    }


EXPECTED = {
    ("languages", "full"): (10, "graded"),
    ("languages", "stub"): (0, "graded"),
    ("languages", "partial"): (6, "graded"),
}
LOST = {
    ("languages", "full"): set(),
    ("languages", "partial"): (cells("languages", "digits") | {"languages-reach-edges"}
                               | cells("languages", "letters", kinds=EDGES_BREADTH)),
}


def test_grading_languages_end_to_end(tmp_path):
    course = copy_course(tmp_path / "course")
    python = sys.executable

    def load(path: Path) -> dict:
        return json.loads(path.read_text(encoding="utf-8"))

    assert run([python, "autograder/release.py", "languages"], course).returncode == 0
    student_nb = load(course / "exercises/languages/languages.ipynb")
    full = solutions(load(course / "source/languages/languages.ipynb"))
    for student, code in languages_submissions(full).items():
        write_nb(course / f"submitted/{student}/languages/languages.ipynb", submission(student_nb, code))
    start = time.perf_counter()
    proc = run([python, "autograder/grade.py", "languages", "--quiet"], course)
    seconds = time.perf_counter() - start
    report, grades = read_results(course)
    print(f"\ngrade.py, 3 submissions of languages: {seconds:.1f} s; autograding one notebook: "
          f"{float(report[('languages', 'full')]['seconds']):.1f} s")

    check_exact_scores(report, grades, EXPECTED)
    assert proc.returncode == 0
    check_partial_credit_cell_by_cell({"course": course, "report": report}, LOST)

    for assignment, student in EXPECTED:
        page = course / f"feedback/{student}/{assignment}/{assignment}.html"
        assert page.exists(), page
    stub = (course / "feedback/stub/languages/languages.html").read_text(encoding="utf-8")
    assert "NotImplementedError" in stub
    text = (course / "feedback/partial/languages/languages.html").read_text(encoding="utf-8")
    errors = re.findall(r"AssertionError: (.*)", html.unescape(re.sub(r"<[^>]+>", "", text)))
    assert len(errors) == len(LOST[("languages", "partial")]), errors
    assert "groups of three from the right of each run, the short group first" in errors[0], errors
    assert "use the pattern given" in errors[3], errors
    assert "join the bytes of all the tokens first, then decode" in errors[4], errors
