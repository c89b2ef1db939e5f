"""The whole grading pipeline for the `wordpiece` and `unigram` assignments, on a
throw-away copy of the course, with exact scores (the other assignments are graded in
``test_grading_e2e.py``, whose helpers this reuses).

Submissions (the student notebooks of exercises/, filled in) are written to
``submitted/``, then ``autograder/grade.py`` generates the two assignments in the copy
(``autograder/release.py``), runs nbgrader's autograde, generate_feedback and export once
for both, and the tests read ``grades.csv``, ``grading-report.csv`` and ``feedback/``.
Each partial submission loses parts to classic mistakes (a tie rule read wrongly, a
look-alike type, a greedy search that backtracks, probabilities that underflow), each of
which a visible test now catches with a message that states the rule, and the feedback
shows those messages. Six submissions, about 1 min on 2 cores (more when they are busy).
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

ASSIGNMENTS = ("wordpiece", "unigram")

# ---------------------------------------------------------------------------------------
# Submissions
# ---------------------------------------------------------------------------------------

WORDPIECE_FLOAT_SCORES = '''
def pair_scores(words):
    symbol_counts, pair_counts = count_stats(words)
    return {p: c / (symbol_counts[p[0]] * symbol_counts[p[1]]) for p, c in pair_counts.items()}  # floats
'''
WORDPIECE_TIES_WITHOUT_COUNT = '''
def best_pair(words):
    symbol_counts, pair_counts = count_stats(words)
    if not pair_counts:
        return None
    score = {p: Fraction(c, symbol_counts[p[0]] * symbol_counts[p[1]]) for p, c in pair_counts.items()}
    return max(score, key=lambda p: (score[p], p))  # forgets rule 2: the pair's count
'''
UNIGRAM_FEWEST_PIECES = '''
def viterbi(text, pieces):
    # Ties: the segmentation with the fewest pieces overall, not the rule at every position.
    n = len(text)
    best = [(0.0, 0)] + [None] * n
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if text[i:j] in pieces:
                candidate = (best[i][0] + pieces[text[i:j]], best[i][1] - 1)
                if best[j] is None or candidate > best[j]:
                    best[j], start[j] = candidate, i
    segmentation, j = [], n
    while j > 0:
        segmentation.append(text[start[j]:j])
        j = start[j]
    return segmentation[::-1], best[n][0]
'''


# Three of the classic mistakes, as tests/wrong_solutions/ lists them.
WORDPIECE_BACKTRACKING = wrong_solutions("wordpiece")["backtracking"]["code"]["wordpiece-encode-word"]
UNIGRAM_NUMPY_LOGS = wrong_solutions("unigram")["em_numpy_floats"]["code"]["unigram-em-step"]
UNIGRAM_NO_LOG_SPACE = wrong_solutions("unigram")["forward_probabilities_underflow"]["code"]["unigram-forward"]


def wordpiece_submissions(full: dict[str, str]) -> dict[str, tuple[dict[str, str], str]]:
    return {
        "full": (full, "every part right"),
        "stub": ({}, "nothing done"),
        # Floats for Fractions (all of part 2), ties without rule 2 (part 3's edge cases
        # and breadth), a search that backtracks (part 5's basic and breadth cells):
        # parts 1 and 4 (2 + 2), part 3's basic cell (1) and part 5's edge cases (0.5).
        "partial": ({**full, "wordpiece-pair-scores": WORDPIECE_FLOAT_SCORES,
                     "wordpiece-best-pair": WORDPIECE_TIES_WITHOUT_COUNT,
                     "wordpiece-encode-word": WORDPIECE_BACKTRACKING}, "parts 1 and 4"),
    }


def unigram_submissions(full: dict[str, str]) -> dict[str, tuple[dict[str, str], str]]:
    return {
        "full": (full, "every part right"),
        "stub": ({}, "nothing done"),
        # Another tie rule (part 1's edge cases and breadth), probabilities that underflow
        # on long texts (part 2's edge cases and breadth), NumPy floats (all of part 4):
        # parts 3 and 5 (3 + 2) and the basic cells of parts 1 and 2 (1 + 1). prune only
        # needs viterbi's scores, which are right.
        "partial": ({**full, "unigram-viterbi": UNIGRAM_FEWEST_PIECES,
                     "unigram-forward": UNIGRAM_NO_LOG_SPACE,
                     "unigram-em-step": UNIGRAM_NUMPY_LOGS}, "parts 3 and 5"),
    }


EXPECTED = {  # (assignment, student) -> (score, status)
    ("wordpiece", "full"): (10, "graded"),
    ("wordpiece", "stub"): (0, "graded"),
    ("wordpiece", "partial"): (5.5, "graded"),
    ("unigram", "full"): (10, "graded"),
    ("unigram", "stub"): (0, "graded"),
    ("unigram", "partial"): (7, "graded"),
}
# The cells each partial submission loses, each in full (partial credit, cell by cell).
LOST = {
    ("wordpiece", "partial"): {"wordpiece-pair-scores-basic", "wordpiece-pair-scores-edges",
                               "wordpiece-pair-scores-breadth", "wordpiece-best-pair-edges",
                               "wordpiece-best-pair-breadth", "wordpiece-encode-word-basic",
                               "wordpiece-encode-word-breadth"},
    ("unigram", "partial"): {"unigram-viterbi-edges", "unigram-viterbi-breadth",
                             "unigram-forward-edges", "unigram-forward-breadth",
                             "unigram-em-step-basic", "unigram-em-step-edges",
                             "unigram-em-step-breadth"},
    ("wordpiece", "full"): set(), ("unigram", "full"): set(),
}


def grade_both(course: Path) -> dict:
    python = sys.executable

    def load(path: Path) -> dict:
        return json.loads(path.read_text(encoding="utf-8"))

    # The student notebooks of the repository's exercises/, which test_exercises.py checks
    # are what nbgrader generates from source/; grade.py generates them in the copy too.
    for assignment, submissions in [("wordpiece", wordpiece_submissions),
                                    ("unigram", unigram_submissions)]:
        student_nb = load(ROOT / f"exercises/{assignment}/{assignment}.ipynb")
        full = solutions(load(course / f"source/{assignment}/{assignment}.ipynb"))
        for student, (code, _) in submissions(full).items():
            write_nb(course / f"submitted/{student}/{assignment}/{assignment}.ipynb",
                     submission(student_nb, code))
    start = time.perf_counter()
    proc = run([python, "autograder/grade.py", *ASSIGNMENTS, "--quiet"], course)
    seconds = time.perf_counter() - start

    report, grades = read_results(course)
    print(f"\ngrade.py, {len(EXPECTED)} submissions of 2 assignments: {seconds:.1f} s; "
          "autograding one notebook: "
          + ", ".join(f"{a} {float(report[(a, 'full')]['seconds']):.1f} s" for a in ASSIGNMENTS))
    return {"course": course, "report": report, "grades": grades, "returncode": proc.returncode}


def errors(course: Path, path: str) -> list[str]:
    """The AssertionError messages in a feedback page, in order."""
    text = (course / path).read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return re.findall(r"AssertionError: (.*)", text)


def test_grading_subword_assignments_end_to_end(tmp_path):
    graded = grade_both(copy_course(tmp_path / "course"))
    course, report = graded["course"], graded["report"]

    # Every submission has its exact score, in the report and in grades.csv.
    check_exact_scores(report, graded["grades"], EXPECTED)
    assert graded["returncode"] == 0
    check_partial_credit_cell_by_cell(graded, LOST)

    # Feedback for everyone, saying what failed.
    for assignment, student in EXPECTED:
        page = course / f"feedback/{student}/{assignment}/{assignment}.html"
        assert page.exists(), page
        assert report[(assignment, student)]["feedback"] == page.relative_to(course).as_posix()
    stub = (course / "feedback/stub/unigram/unigram.html").read_text(encoding="utf-8")
    assert "NotImplementedError" in stub and "replace this line with your code" in stub

    # One message per lost cell, in order: the visible test that caught the mistake.
    wordpiece = errors(course, "feedback/partial/wordpiece/wordpiece.html")
    assert len(wordpiece) == len(LOST[("wordpiece", "partial")]), wordpiece
    assert wordpiece[0] == "each score must be a fractions.Fraction, not a float", wordpiece
    assert wordpiece[3].startswith("best_pair({('p', '##u'): 1, ('h', '##u'): 3}): expected ('h', '##u')") \
        and "the pair that occurs most often wins" in wordpiece[3], wordpiece
    assert wordpiece[5].startswith("encode_word('abcd'") and "greedy: ab, ##c, then nothing for d" in wordpiece[5], \
        wordpiece
    partial = errors(course, "feedback/partial/unigram/unigram.html")
    assert len(partial) == len(LOST[("unigram", "partial")]), partial
    assert partial[0].startswith("viterbi('abcde'"), partial
    assert partial[2].startswith("forward(") and "log-sum-exp" in partial[2], partial
    assert partial[4].startswith("the log-probabilities must be floats"), partial
    page = (course / "feedback/partial/unigram/unigram.html").read_text(encoding="utf-8")
    assert "ValueError" in page and "math domain error" in page  # forward: log(0.0)
