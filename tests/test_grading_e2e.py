"""The whole grading pipeline on a throw-away copy of the course, with submissions that
go right and wrong in every way we know, and exact scores — in total and cell by cell:
each part is graded in three cells (basic, edge cases, breadth), and ``LOST`` lists the
cells each submission must lose.

``autograder/release.py`` generates the assignments, the submissions are written to
``submitted/`` (chars, bpe, bytelevel) and to an LMS-style ``downloaded/words/archive/``
(words), then ``autograder/grade.py`` runs nbgrader's collect, autograde,
generate_feedback and export on them, and the tests read ``grades.csv``,
``grading-report.csv`` and ``feedback/``. One grading serves all the checks: grade.py
runs twice, because one ``--timeout`` applies to all the assignments it grades: chars and
words with 8 s per cell, so that the endless loops end quickly, then bpe and bytelevel
with the course's 60 s, which Part 3 of bpe needs (it times training on 100 KB of text).
The second run's report and ``grades.csv`` cover all four assignments (about 3 min on 2
busy cores, 1 min of it for bpe and bytelevel). ``practice`` is graded by a test of its
own, on its own copy of the course (``-k practice`` selects it; about 1 min).
"""

from __future__ import annotations

import csv
import html
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import copy_course

pytestmark = pytest.mark.slow

TIMEOUT = 8  # seconds per cell while grading chars and words, so the endless loops end quickly

# ---------------------------------------------------------------------------------------
# Submissions: the student notebook of exercises/ with solution cells filled in.
# ---------------------------------------------------------------------------------------


def solutions(source_nb: dict) -> dict[str, str]:
    """The instructor's code of each solution cell, markers removed."""
    out = {}
    for cell in source_nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution") and cell["cell_type"] == "code":
            src = "".join(cell["source"])
            out[meta["grade_id"]] = "\n".join(
                line for line in src.splitlines() if "### BEGIN SOLUTION" not in line
                and "### END SOLUTION" not in line)
    return out


def submission(student_nb: dict, code: dict[str, str]) -> dict:
    """A copy of the student notebook with the solution cells of ``code`` replaced."""
    nb = json.loads(json.dumps(student_nb))
    for cell in nb["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in code:
            cell["source"] = code[gid]
    assert set(code) <= {c["metadata"].get("nbgrader", {}).get("grade_id") for c in nb["cells"]}
    return nb


CHARS_WRONG_ENCODE = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    return [vocab[ch] for ch in text if ch in vocab]  # drops unknown characters
'''
CHARS_UNK_EAGER = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    if unk_token not in vocab:  # raises even when every character is known
        raise ValueError(f"{unk_token!r} is not in the vocabulary")
    return [vocab.get(ch, vocab[unk_token]) for ch in text]
'''
CHARS_LOOKALIKE_DECODE = '''
class Anything:
    def __eq__(self, other):
        return True

def decode_chars(ids, vocab):
    return Anything()  # equal to everything, but not a str
'''
CHARS_DIES = '''
import os
os._exit(1)
'''
CHARS_LOOPS = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    while True:
        pass
'''
CHARS_STUCK = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    return sum(range(10**18))  # a loop in C: an interrupt cannot stop it
'''
CHARS_PRINTS = '''
print("x" * 1_000_000)          # one line of 1 MB (LimitOutput keeps 100,000 characters)
for i in range(30_000):         # and 30,000 lines (it keeps 1,000)
    print(i)
'''
WORDS_COUNTER = '''
from collections import Counter

def count_words(texts, *, lowercase=False):
    if isinstance(texts, str):
        texts = [texts]
    return Counter(w for t in texts for w in split_words(t, lowercase=lowercase))
'''
WORDS_TIES_BY_ORDER = '''
def build_word_vocab(counts, *, vocab_size=None, min_freq=1, special_tokens=DEFAULT_SPECIAL_TOKENS):
    vocab = {t: i for i, t in enumerate(special_tokens)}
    words = sorted((w for w in counts if counts[w] >= min_freq and w not in vocab),
                   key=lambda w: -counts[w])  # ties stay in the order of counts
    if vocab_size is not None:
        words = words[: vocab_size - len(special_tokens)]
    for w in words:
        vocab[w] = len(vocab)
    return vocab
'''
WORDS_NUMPY_FLOAT = '''
import numpy as np

def oov_rate(text, vocab, *, lowercase=False):
    words = split_words(text, lowercase=lowercase)
    return np.float64(sum(w not in vocab for w in words) / len(words)) if words else np.float64(0)
'''


BPE_COUNTER = '''
from collections import Counter

def count_pairs(words):
    counts = Counter()
    for word, count in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += count
    return counts  # a Counter, not a dict
'''
BPE_TIES_BY_ORDER = '''
def train_bpe(word_counts, n_merges):
    words = {(*word, "</w>"): count for word, count in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        counts = count_pairs(words)
        if not counts:
            break
        pair = max(counts, key=counts.get)  # ties: the pair counted first wins
        merges.append(pair)
        words = {tuple(merge_pair(w, pair)): c for w, c in words.items()}
    return merges
'''
BPE_OVERLAPPING = '''
def merge_pair(word, pair):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == tuple(pair):
            out.append(word[i] + word[i + 1])
            if i + 2 < len(word) and (word[i + 1], word[i + 2]) == tuple(pair):
                i += 1  # overlapping occurrences merged too: a a a gives aa aa
            else:
                i += 2
        else:
            out.append(word[i])
            i += 1
    return out
'''
BYTELEVEL_BYTES = '''
def utf8_encode(text):
    return text.encode("utf-8")  # bytes, not a list
'''
BYTELEVEL_RIGHTMOST = '''
def encode(text, ranks, special_tokens):
    ids = []
    for chunk, is_special in split_special(text, special_tokens):
        if is_special:
            ids.append(special_tokens[chunk])
            continue
        for piece in pretokenize(chunk):
            parts = [bytes([b]) for b in piece.encode("utf-8")]
            while len(parts) > 1:
                best = None
                for i in range(len(parts) - 1):
                    rank = ranks.get(parts[i] + parts[i + 1])
                    if rank is not None and (best is None or rank <= best[0]):  # <=: the rightmost
                        best = (rank, i)
                if best is None:
                    break
                i = best[1]
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
            ids.extend(ranks[p] for p in parts)
    return ids
'''


def chars_submissions(full: dict[str, str]) -> dict[str, tuple[dict[str, str], str]]:
    """student -> (solution cells, what is expected); the expected scores are in EXPECTED."""
    return {
        "full": (full, "every part right"),
        "stub": ({}, "nothing done"),
        # Part 1 and 4 right (3 + 2), part 2 wrong, part 3 a look-alike.
        "partial": ({**full, "chars-encode": CHARS_WRONG_ENCODE,
                     "chars-decode": CHARS_LOOKALIKE_DECODE}, "parts 1 and 4"),
        # Partial credit inside a part: encode_chars right on the examples, wrong on the
        # edge case of a vocabulary without <unk> that knows every character.
        "edge": ({**full, "chars-encode": CHARS_UNK_EAGER}, "all but part 2's edge cases"),
        # Parts 1 and 2 right (3 + 3), then the kernel dies in part 3's cell.
        "dead": ({**full, "chars-decode": CHARS_DIES}, "parts 1 and 2"),
        # Part 2's tests time out (interrupted); parts 1, 3, 4 right (3 + 2 + 2).
        "loop": ({**full, "chars-encode": CHARS_LOOPS}, "parts 1, 3 and 4"),
        # Part 2's tests time out and cannot be interrupted: only part 1 (3).
        "stuck": ({**full, "chars-encode": CHARS_STUCK}, "part 1"),
        # Everything right, with megabytes of output.
        "print": ({**full, "chars-build-vocab": full["chars-build-vocab"] + "\n" + CHARS_PRINTS},
                  "every part right"),
    }


def words_submissions(full: dict[str, str]) -> dict[str, tuple[dict[str, str], str]]:
    return {
        "full": (full, "every part right"),
        "stub": ({}, "nothing done"),
        # Parts 1 and 4 right (2 + 2); a Counter (equal to the dicts the visible edge
        # cases compare with, but the hidden checks of those calls want a dict), ties in
        # dict order, a NumPy float.
        "partial": ({**full, "words-count": WORDS_COUNTER, "words-build-vocab": WORDS_TIES_BY_ORDER,
                     "words-oov-rate": WORDS_NUMPY_FLOAT}, "parts 1 and 4"),
        # An id with underscores, downloaded as j_smith_words.ipynb: student j_smith, not j.
        "j_smith": (full, "every part right"),
    }


def bpe_submissions(full: dict[str, str]) -> dict[str, tuple[dict[str, str], str]]:
    return {
        "full": (full, "every part right"),
        "stub": ({}, "nothing done"),
        # Parts 2, 4 and 5 right (2 + 2 + 1): a Counter (equal to the dicts of the
        # visible edge cases, but not the type the hidden checks want), ties in dict order.
        "partial": ({**full, "bpe-count-pairs": BPE_COUNTER, "bpe-train": BPE_TIES_BY_ORDER},
                    "parts 2, 4 and 5"),
        # Overlapping merges: all of part 2, and the edge cases and breadth of the two
        # parts that call merge_pair (3 and 4), whose basic examples hold no run like
        # a a a: parts 1 and 5 (2 + 1), and the basic cells of parts 3 and 4 (1 + 1).
        "overlap": ({**full, "bpe-merge-pair": BPE_OVERLAPPING},
                    "parts 1 and 5, the basic cells of parts 3 and 4"),
    }


def bytelevel_submissions(full: dict[str, str]) -> dict[str, tuple[dict[str, str], str]]:
    return {
        "full": (full, "every part right"),
        "stub": ({}, "nothing done"),
        # Parts 2, 3 and 4 right (1 + 2 + 2) and part 5's basic cell (1): bytes for a
        # list, and equal ranks joined rightmost first, which the task's examples do not
        # show and part 5's edge cases and breadth catch.
        "partial": ({**full, "bytelevel-utf8-encode": BYTELEVEL_BYTES,
                     "bytelevel-encode": BYTELEVEL_RIGHTMOST}, "parts 2, 3 and 4, part 5's basic cell"),
    }


# (assignment, student) -> (score, status)
EXPECTED = {
    ("chars", "full"): (10, "graded"),
    ("chars", "stub"): (0, "graded"),
    ("chars", "partial"): (5, "graded"),
    ("chars", "edge"): (8, "graded"),
    ("chars", "dead"): (6, "kernel died"),
    ("chars", "loop"): (7, "timed out"),
    ("chars", "stuck"): (3, "kernel died"),
    ("chars", "print"): (10, "output truncated"),
    ("chars", "renamed"): (0, "failed"),
    ("chars", "corrupt"): (0, "failed"),
    ("chars", "empty"): (None, "missing from gradebook"),
    ("words", "full"): (10, "graded"),
    ("words", "stub"): (0, "graded"),
    ("words", "partial"): (4, "graded"),
    ("words", "j_smith"): (10, "graded"),
    ("bpe", "full"): (10, "graded"),
    ("bpe", "stub"): (0, "graded"),
    ("bpe", "partial"): (5, "graded"),
    ("bpe", "overlap"): (5, "graded"),
    ("bytelevel", "full"): (10, "graded"),
    ("bytelevel", "stub"): (0, "graded"),
    ("bytelevel", "partial"): (6, "graded"),
}



def cells(assignment: str, *parts: str, kinds: tuple[str, ...] = ("basic", "edges", "breadth")) -> set[str]:
    return {f"{assignment}-{part}-{kind}" for part in parts for kind in kinds}


EDGES_BREADTH = ("edges", "breadth")
# The cells each submission loses, each in full (partial credit, cell by cell).
LOST = {
    ("chars", "full"): set(),
    ("chars", "partial"): cells("chars", "encode", "decode"),
    ("chars", "edge"): cells("chars", "encode", kinds=EDGES_BREADTH),
    ("chars", "dead"): cells("chars", "decode", "unk-rate"),
    ("chars", "loop"): cells("chars", "encode"),
    ("chars", "stuck"): cells("chars", "encode", "decode", "unk-rate"),
    ("words", "partial"): cells("words", "count", "build-vocab", "oov-rate"),
    ("bpe", "full"): set(),
    ("bpe", "partial"): cells("bpe", "count-pairs", "train"),
    ("bpe", "overlap"): cells("bpe", "merge-pair") | cells("bpe", "train", "tokenize", kinds=EDGES_BREADTH),
    ("bytelevel", "full"): set(),
    ("bytelevel", "partial"): cells("bytelevel", "utf8-encode") | cells("bytelevel", "encode", kinds=EDGES_BREADTH),
}


def write_nb(path: Path, nb: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    print(proc.stdout)
    print(proc.stderr[-20_000:], file=sys.stderr)
    return proc


def cell_scores(course: Path, assignment: str, student: str) -> dict[str, tuple[float, float]]:
    """{grade_id: (score, max_score)} of every graded cell of a submission, as nbgrader's
    gradebook holds them (what formgrader shows and ``grades.csv`` adds up)."""
    import warnings

    from nbgrader.api import Gradebook

    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's API, SQLAlchemy 2
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(assignment, assignment, student)
        return {g.name: (g.score, g.max_score) for g in nb.grades}


def check_partial_credit_cell_by_cell(graded, expected_lost: dict[tuple[str, str], set[str]]) -> None:
    """Each part is graded in three cells (basic, edge cases, breadth): a submission loses
    exactly the cells listed, each in full, and keeps every other cell's points."""
    for (assignment, student), lost in expected_lost.items():
        scores = cell_scores(graded["course"], assignment, student)
        assert lost <= set(scores), (assignment, student, lost - set(scores))
        got = {gid for gid, (score, top) in scores.items() if score < top}
        assert got == lost, f"{assignment}/{student}: lost {sorted(got)}, expected {sorted(lost)}"
        assert all(score in (0, top) for score, top in scores.values()), (assignment, student, scores)
        total = float(graded["report"][(assignment, student)]["score"])
        assert sum(score for score, _ in scores.values()) == total, (assignment, student, scores)



def read_results(course: Path) -> tuple[dict, dict]:
    """grade.py's report and nbgrader's grades.csv, keyed by (assignment, student)."""
    with open(course / "grading-report.csv", encoding="utf-8") as f:
        report = {(r["assignment"], r["student"]): r for r in csv.DictReader(f)}
    with open(course / "grades.csv", encoding="utf-8") as f:
        grades = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    return report, grades


def check_exact_scores(report: dict, grades: dict, expected: dict, *, max_score: int = 10) -> None:
    """Every submission has exactly its expected (score, status), in the report and in
    grades.csv, out of ``max_score``."""
    assert set(report) == set(expected)
    got = {key: (float(row["score"]), row["status"]) for key, row in report.items()}
    assert got == expected, "\n".join(
        f"{key}: expected {expected[key]}, got {got[key]} ({report[key]['details']})"
        for key in expected if got[key] != expected[key])
    for key, (score, _) in expected.items():
        assert report[key]["max_score"] == str(max_score), key
        assert float(grades[key]["score"]) == score, key
        assert float(grades[key]["max_score"]) == max_score, key


def grade_everything(course: Path) -> dict:
    """Generate, submit, and run grade.py once; what the checks below read."""
    python = sys.executable
    assert run([python, "autograder/release.py"], course).returncode == 0

    def load(path: Path) -> dict:
        return json.loads(path.read_text(encoding="utf-8"))

    # chars: straight into submitted/, as `nbgrader collect` would put them.
    student_nb = load(course / "exercises/chars/chars.ipynb")
    full = solutions(load(course / "source/chars/chars.ipynb"))
    for student, (code, _) in chars_submissions(full).items():
        write_nb(course / f"submitted/{student}/chars/chars.ipynb", submission(student_nb, code))
    # A notebook under another name (nbgrader knows none), one that is not JSON, and a
    # folder without notebooks.
    write_nb(course / "submitted/renamed/chars/chars (1).ipynb", submission(student_nb, full))
    (course / "submitted/corrupt/chars").mkdir(parents=True)
    (course / "submitted/corrupt/chars/chars.ipynb").write_text('{"cells": [', encoding="utf-8")
    (course / "submitted/empty/chars").mkdir(parents=True)
    (course / "submitted/empty/chars/notes.txt").write_text("I could not do it\n")

    # words: as downloaded from an LMS, <student>_<notebook>.ipynb, for `nbgrader zip_collect`.
    student_nb = load(course / "exercises/words/words.ipynb")
    full = solutions(load(course / "source/words/words.ipynb"))
    for student, (code, _) in words_submissions(full).items():
        write_nb(course / f"downloaded/words/archive/{student}_words.ipynb",
                 submission(student_nb, code))

    # One run for chars and words: `--collect zip` collects words (chars has nothing to
    # unzip); then one for bpe and bytelevel with the course's timeout (see the docstring).
    start = time.perf_counter()
    proc = run([python, "autograder/grade.py", "chars", "words", f"--timeout={TIMEOUT}",
                "--collect=zip", "--quiet"], course)
    middle = time.perf_counter()

    # bpe and bytelevel: straight into submitted/ (only now, so that the first run's
    # report does not list them as not graded yet).
    for assignment, submissions in [("bpe", bpe_submissions), ("bytelevel", bytelevel_submissions)]:
        student_nb = load(course / f"exercises/{assignment}/{assignment}.ipynb")
        full = solutions(load(course / f"source/{assignment}/{assignment}.ipynb"))
        for student, (code, _) in submissions(full).items():
            write_nb(course / f"submitted/{student}/{assignment}/{assignment}.ipynb",
                     submission(student_nb, code))
    proc = run([python, "autograder/grade.py", "bpe", "bytelevel", "--quiet"], course)
    seconds = time.perf_counter() - start

    report, grades = read_results(course)
    print(f"\ngrade.py, 20 submissions of 4 assignments: {seconds:.1f} s "
          f"(chars and words {middle - start:.1f} s); autograding one notebook: "
          + ", ".join(f"{a} {float(report[(a, 'full')]['seconds']):.1f} s"
                      for a in ("chars", "words", "bpe", "bytelevel")))
    return {"course": course, "report": report, "grades": grades,
            "returncode": proc.returncode}


def check_every_submission_is_in_the_report_with_its_exact_score(graded):
    report = graded["report"]
    assert set(report) == set(EXPECTED)
    got = {key: (None if row["score"] == "" else float(row["score"]), row["status"])
           for key, row in report.items()}
    assert got == EXPECTED, "\n".join(
        f"{key}: expected {EXPECTED[key]}, got {got[key]} ({report[key]['details']})"
        for key in EXPECTED if got[key] != EXPECTED[key])
    for key, row in report.items():
        if row["score"]:
            assert row["max_score"] == "10", (key, row)


def check_grades_csv_agrees_with_the_report(graded):
    for (assignment, student), (score, _) in EXPECTED.items():
        row = graded["grades"].get((assignment, student))
        if score is None:  # never graded, so nbgrader does not know the student
            assert row is None
        else:
            assert float(row["score"]) == score, (assignment, student, row)
            assert float(row["max_score"]) == 10


def check_report_names_what_went_wrong(graded):
    report = graded["report"]
    assert "chars-decode" in report[("chars", "dead")]["details"]
    assert "timed out in chars.ipynb, cell chars-encode-basic" in report[("chars", "loop")]["details"]
    assert "could not be interrupted" in report[("chars", "stuck")]["details"]
    assert "output truncated in chars.ipynb, cell chars-build-vocab" in report[("chars", "print")]["details"]
    assert "No notebooks found" in report[("chars", "renamed")]["details"]
    assert "Error" in report[("chars", "corrupt")]["details"]
    # The exit status says that some submissions need the instructor (renamed, empty).
    assert graded["returncode"] == 1
    md = (graded["course"] / "grading-report.md").read_text(encoding="utf-8")
    for student in ("dead", "loop", "stuck", "print", "renamed", "corrupt", "empty"):
        assert f"| chars | {student} |" in md


def check_feedback_for_every_graded_submission(graded):
    course = graded["course"]
    for (assignment, student), (score, status) in EXPECTED.items():
        html = course / f"feedback/{student}/{assignment}/{assignment}.html"
        if status in ("failed", "missing from gradebook"):
            assert not html.exists()
            continue
        assert html.exists(), html
        assert graded["report"][(assignment, student)]["feedback"] == html.relative_to(course).as_posix()
    # The feedback tells the student why the points are missing.
    dead = (course / "feedback/dead/chars/chars.html").read_text(encoding="utf-8")
    assert "the kernel died while running this cell" in dead
    assert "not run: the kernel died while running cell" in dead


def check_stub_is_graded_zero_with_a_readable_reason(graded):
    html = (graded["course"] / "feedback/stub/chars/chars.html").read_text(encoding="utf-8")
    assert "NotImplementedError" in html
    assert "replace this line with your code" in html


def check_feedback_says_what_failed(graded):
    """The feedback shows the message of the first failed assertion: the visible tests'
    hints, and for a hidden test the function, the input and the difference."""

    def errors(path: str) -> list[str]:
        text = (graded["course"] / path).read_text(encoding="utf-8")
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
        return re.findall(r"AssertionError: (.*)", text)

    # One message per lost cell: the first failed assertion of each.
    bpe = errors("feedback/partial/bpe/bpe.html")
    assert len(bpe) == len(LOST[("bpe", "partial")]), bpe
    assert bpe[0] == "count_pairs must return a dict, not a Counter", bpe
    assert bpe[3].startswith("train_bpe(EXAMPLE_WORDS, 5) began with ('e', 's')") \
        and "the tie rule takes the greatest pair, ('t', '</w>')" in bpe[3], bpe
    assert "max(counts, key=counts.get)" in bpe[4], bpe  # the edge cell names the mistake
    assert errors("feedback/overlap/bpe/bpe.html")[0] == "left to right, without overlap: ['aa', 'a']"
    bytelevel = errors("feedback/partial/bytelevel/bytelevel.html")
    assert len(bytelevel) == len(LOST[("bytelevel", "partial")]), bytelevel
    assert bytelevel[0] == "utf8_encode must return a list, not a bytes"
    # The rightmost-first encoder, caught by a visible test that states the rule.
    assert bytelevel[3].startswith("encode('aaa', ranks, {}) with aa (256) returned [97, 256], "
                                   "expected [256, 97]"), bytelevel
    assert "the leftmost goes first" in bytelevel[3], bytelevel


def check_output_is_cut_in_the_autograded_notebook(graded):
    nb = json.loads((graded["course"] / "autograded/print/chars/chars.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["id"] == "chars-build-vocab")
    text = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    assert len(text) < 200_000
    assert text.rstrip().endswith("... Output truncated ...")


def test_grading_end_to_end(tmp_path):
    # One test, so that pytest-xdist never runs the (minute-long) grading twice.
    graded = grade_everything(copy_course(tmp_path / "course"))
    check_every_submission_is_in_the_report_with_its_exact_score(graded)
    check_partial_credit_cell_by_cell(graded, LOST)
    check_grades_csv_agrees_with_the_report(graded)
    check_report_names_what_went_wrong(graded)
    check_feedback_for_every_graded_submission(graded)
    check_stub_is_graded_zero_with_a_readable_reason(graded)
    check_output_is_cut_in_the_autograded_notebook(graded)
    check_feedback_says_what_failed(graded)


# ---------------------------------------------------------------------------------------
# practice: graded on its own copy of the course (select it with -k practice)
# ---------------------------------------------------------------------------------------


def practice_submissions(full: dict[str, str]) -> dict[str, tuple[dict[str, str], str]]:
    from test_wrong_solutions import wrong_solutions  # it imports this module: import late

    wrong = {name: w["code"] for name, w in wrong_solutions("practice").items()}
    return {
        "full": (full, "every part right"),
        "stub": ({}, "nothing done"),
        # A mask per UTF-8 byte (right on the ASCII examples: part 1's edge cases and
        # breadth lose), masks made by comparing ids with pad_id (the examples pad with an
        # id no row holds: part 2's edge cases and breadth lose), the line-by-line streamer
        # (all of part 4), a negative budget accepted (part 5's edge cases only): part 3
        # (2), the basic cells of parts 1, 2 and 5 (1 + 1 + 1) and part 5's breadth (0.5).
        "partial": ({**full, **wrong["chat_mask_per_byte"], **wrong["pad_mask_from_pad_id"],
                     **wrong["stream_line_by_line"], **wrong["budget_negative_accepted"]},
                    "part 3, the basic cells of parts 1, 2 and 5, part 5's breadth"),
    }


PRACTICE_EXPECTED = {  # (assignment, student) -> (score, status)
    ("practice", "full"): (10, "graded"),
    ("practice", "stub"): (0, "graded"),
    ("practice", "partial"): (5.5, "graded"),
}
PRACTICE_LOST = {
    ("practice", "full"): set(),
    ("practice", "partial"): (cells("practice", "chat", "pad", kinds=EDGES_BREADTH) | cells("practice", "stream")
                              | {"practice-budget-edges"}),
}


def test_grading_practice_end_to_end(tmp_path):
    course = copy_course(tmp_path / "course")
    python = sys.executable
    assert run([python, "autograder/release.py", "practice"], course).returncode == 0

    def load(path: Path) -> dict:
        return json.loads(path.read_text(encoding="utf-8"))

    student_nb = load(course / "exercises/practice/practice.ipynb")
    full = solutions(load(course / "source/practice/practice.ipynb"))
    for student, (code, _) in practice_submissions(full).items():
        write_nb(course / f"submitted/{student}/practice/practice.ipynb", submission(student_nb, code))
    start = time.perf_counter()
    proc = run([python, "autograder/grade.py", "practice", "--quiet"], course)
    seconds = time.perf_counter() - start
    report, grades = read_results(course)
    print(f"\ngrade.py, 3 submissions of practice: {seconds:.1f} s; autograding one notebook: "
          f"{float(report[('practice', 'full')]['seconds']):.1f} s")

    # Every submission has its exact score, in the report and in grades.csv, and loses
    # exactly the cells listed.
    check_exact_scores(report, grades, PRACTICE_EXPECTED)
    assert proc.returncode == 0
    check_partial_credit_cell_by_cell({"course": course, "report": report}, PRACTICE_LOST)

    # Feedback for everyone; one message per lost cell, the visible test that caught it.
    for assignment, student in PRACTICE_EXPECTED:
        page = course / f"feedback/{student}/{assignment}/{assignment}.html"
        assert page.exists(), page
        assert report[(assignment, student)]["feedback"] == page.relative_to(course).as_posix()
    stub = (course / "feedback/stub/practice/practice.html").read_text(encoding="utf-8")
    assert "NotImplementedError" in stub and "replace this line with your code" in stub
    text = (course / "feedback/partial/practice/practice.html").read_text(encoding="utf-8")
    errors = re.findall(r"AssertionError: (.*)", html.unescape(re.sub(r"<[^>]+>", "", text)))
    assert len(errors) == len(PRACTICE_LOST[("practice", "partial")]), errors
    assert "one per character (not per UTF-8 byte)" in errors[0], errors
    assert "make the mask from the row's length, not by comparing ids with pad_id" in errors[2], errors
    assert "encoding line by line gives 'a', '\\n', '\\n', '\\n', 'b', one id too many" in errors[4], errors
    assert errors[7].startswith("truncate_to_budget('the token', -1, encode) returned ''"), errors
