"""The classic mistakes of each assignment, caught before the grade.

``tests/wrong_solutions/<assignment>.py`` lists wrong solutions (``WRONG``: a name, the
mistake in one sentence, and the code of the solution cells it replaces, by
``grade_id``). For every one of them:

- at least one **visible** test of the released notebook fails, so the student learns
  of the mistake before submitting, with a message (checked: not empty);
- the grader gives it less than full marks (the real ``autograder/grade.py``, sandbox
  and all, on a copy of the course) — checked on the first listed mistake of each part
  (each set of solution cells a mistake replaces): grading all 210 took a third of the
  suite, and a visible test that fails costs its cell's points by construction, which
  the end-to-end tests check cell by cell;

and the instructor's solution passes every visible test and gets full marks.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ASSIGNMENTS, BY_ID, ROOT, copy_course
from grading_helpers import run, solutions, submission, write_nb

pytestmark = pytest.mark.slow

# The points graded automatically (source/assignments.json); the rest (the capstone's
# written answers) a person grades.
AUTOGRADED = {a: f"{BY_ID[a].points:g}" for a in ASSIGNMENTS}
CATALOG = ROOT / "tests" / "wrong_solutions"
MIN_WRONG = 5


def wrong_solutions(assignment: str) -> dict[str, dict]:
    spec = importlib.util.spec_from_file_location(f"wrong_{assignment}", CATALOG / f"{assignment}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.WRONG


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)


def student_notebook(assignment: str, code: dict[str, str]) -> dict:
    """The notebook a student submits: the source notebook as nbgrader releases it
    (hidden tests cut out of the test cells), its solution cells holding the instructor's
    solution except for ``code``. Made from source/, so it never waits for a release."""
    source = load(ROOT / "source" / assignment / f"{assignment}.ipynb")
    nb = submission(source, {**solutions(source), **code})
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade") and cell["cell_type"] == "code":
            cell["source"] = HIDDEN.sub("", "".join(cell["source"]))
    return nb


def visible_failures(assignment: str, nb: dict, tmp_path: Path, parts: tuple[str, ...] = ()) -> dict[str, str]:
    """{grade_id: message} of the test cells that raise, run as a student runs them, next
    to the files released with the notebook (a corpus, say). With ``parts``, only those
    parts' test cells run and the demonstrations are skipped (``run_visible.py``)."""
    for f in (ROOT / "source" / assignment).iterdir():
        if f.is_file() and f.suffix != ".ipynb" and not (tmp_path / f.name).exists():
            shutil.copy(f, tmp_path / f.name)
    path = tmp_path / "nb.ipynb"
    write_nb(path, nb)
    kernel = ROOT / ".venv" / "kernel" / "bin" / "python"  # what students have: no tokref
    python = str(kernel) if kernel.exists() else sys.executable
    proc = subprocess.run([python, str(ROOT / "tests" / "run_visible.py"), str(path), *parts],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_assignment_lists_the_classic_mistakes(assignment):
    wrong = wrong_solutions(assignment)
    assert len(wrong) >= MIN_WRONG, f"{assignment}: only {len(wrong)} wrong solutions"
    ids = {c["metadata"].get("nbgrader", {}).get("grade_id")
           for c in load(ROOT / "source" / assignment / f"{assignment}.ipynb")["cells"]}
    for name, w in wrong.items():
        assert w["mistake"].strip(), name
        assert w["code"] and set(w["code"]) <= ids, (name, set(w["code"]) - ids)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_visible_tests_catch_every_listed_mistake(assignment, tmp_path):
    assert visible_failures(assignment, student_notebook(assignment, {}), tmp_path) == {}, \
        "the instructor's solution must pass every visible test"
    missed = []
    for name, w in wrong_solutions(assignment).items():
        # The tests of the parts it changes first (fast); all of them if those pass.
        nb = student_notebook(assignment, w["code"])
        failures = (visible_failures(assignment, nb, tmp_path, tuple(w["code"]))
                    or visible_failures(assignment, nb, tmp_path))
        assert "_solution_cells" not in failures, (name, failures["_solution_cells"])
        if not failures:
            missed.append(f"{name}: {w['mistake']}")
        for gid, message in failures.items():
            assert message.split(":", 1)[1].strip(), f"{name}: {gid} failed without a message"
    assert not missed, f"{assignment}: no visible test catches\n" + "\n".join(missed)


def first_of_each_part(wrong: dict[str, dict]) -> dict[str, dict]:
    """The first listed wrong solution for each set of solution cells replaced."""
    out: dict[str, dict] = {}
    seen: set[frozenset[str]] = set()
    for name, w in wrong.items():
        part = frozenset(w["code"])
        if part not in seen:
            seen.add(part)
            out[name] = w
    return out


# Graded with grade.py: the first catalog entry of each assignment. The first of each part
# goes through check.py (test_practice.py), which runs the same cells; every assignment's
# full, stub and partial submissions (catalog entries) go through grade.py in
# test_grading_e2e*.py and test_capstone.py.


def test_the_grader_gives_a_wrong_solution_less_than_full_marks(tmp_path):
    course = copy_course(tmp_path / "course")
    assert run([sys.executable, "autograder/release.py"], course).returncode == 0
    expected_below = []
    for assignment in ASSIGNMENTS:
        # As a student submits it: the released notebook (nbgrader's checksums and
        # metadata) with the solution cells filled in.
        released = load(course / "exercises" / assignment / f"{assignment}.ipynb")
        full = solutions(load(course / "source" / assignment / f"{assignment}.ipynb"))
        for name, w in list(wrong_solutions(assignment).items())[:1]:
            student = f"wrong-{assignment}-{name}".replace("_", "-")
            write_nb(course / f"submitted/{student}/{assignment}/{assignment}.ipynb",
                     submission(released, {**full, **w["code"]}))
            expected_below.append((assignment, student))
    # A generous cell timeout: the suite runs on every core, and this test is about scores.
    proc = run([sys.executable, "autograder/grade.py", *ASSIGNMENTS, "--quiet", "--timeout", "240"], course)
    with open(course / "grading-report.csv", encoding="utf-8") as f:
        report = {(r["assignment"], r["student"]): r for r in csv.DictReader(f)}
    def full(a: str) -> str:
        return AUTOGRADED.get(a, next(r["max_score"] for (b, _), r in report.items() if b == a))

    full_marks = [f"{a}/{s}: {report[(a, s)]['score']}" for a, s in expected_below
                  if report[(a, s)]["score"] == "" or float(report[(a, s)]["score"]) >= float(full(a))]
    assert not full_marks, "wrong solutions graded at full marks (or not graded):\n" + "\n".join(full_marks)
    print(f"\n{len(expected_below)} wrong solutions graded below full marks; grade.py exit {proc.returncode}")
