"""Adding an assignment the documented way works (README, "Adding an assignment").

On a copy of the course, a small new assignment, ``double``, is added as the README says:
its folder ``source/double/`` with a notebook (one solution cell, a visible test cell and
a cell whose hidden test uses ``hidden_test``) and one line of ``source/assignments.json``.
Then, through their command lines, ``autograder/release.py double`` releases it,
``book/_ext/practice_pages.py`` makes its practice page's data, and three submissions —
full, stub (the released notebook as it is) and partial (right on the visible examples,
wrong on the hidden cases) — get the same points from the page's self-check, from
``check.py`` and from ``autograder/grade.py``: 2, 0 and 1 of 2.

The grading runtime's import name is ``RUNTIME``, in one place: the notebook's hidden test
imports ``RUNTIME.grading`` and the page's self-check calls ``RUNTIME.selfcheck``.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, copy_course
from grading_helpers import run, submission, write_nb

pytestmark = pytest.mark.slow

RUNTIME = "tokgrade"  # the package of the grading runtime: its .grading (hidden_test) and .selfcheck
NEW = "double"
KERNEL_PYTHON = ROOT / ".venv" / "kernel" / "bin" / "python"  # what students have: no tokref

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import practice_pages  # noqa: E402  (book/_ext/practice_pages.py)


def cell(kind: str, grade_id: str, source: str, **meta: object) -> dict:
    nbgrader = {"grade": False, "grade_id": grade_id, "locked": True, "schema_version": 3,
                "solution": False, "task": False, **meta}
    out = {"cell_type": kind, "id": grade_id, "metadata": {"nbgrader": nbgrader}, "source": source}
    if kind == "code":
        out |= {"execution_count": None, "outputs": []}
    return out


SOLUTION = '''def double(x):
    """Twice ``x``, an int."""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION'''
VISIBLE = '''"""Part 1, basic: twice the number."""
assert double(3) == 6, f"double(3) returned {double(3)!r}; expected 6"
assert double(0) == 0, f"double(0) returned {double(0)!r}; expected 0"'''
HIDDEN = f'''"""Part 1, breadth: seeded random numbers, then the hidden tests."""
import random

rng = random.Random(1)
for x in (rng.randint(0, 9) for _ in range(5)):
    assert double(x) == 2 * x, f"double({{x}}) returned {{double(x)!r}}; expected {{2 * x}}"
### BEGIN HIDDEN TESTS
from {RUNTIME}.grading import hidden_test

@hidden_test("double", name="double (breadth)")
def _():
    """Random numbers, negative ones too, against the rule."""
    import random
    rng = random.Random(2)
    def reference(x):
        return 2 * x
    return reference, [((rng.randint(-100, 100),), {{}}) for _ in range(40)]
### END HIDDEN TESTS'''
PARTIAL = '''def double(x):
    """Twice ``x``, an int."""
    return 2 * x if x >= 0 else x  # wrong on negative numbers, which the visible tests lack'''


def new_notebook() -> dict:
    cells = [
        cell("markdown", f"{NEW}-intro", "# Assignment 15 · Doubling\n\nOne function, `double(x)`."),
        cell("markdown", f"{NEW}-twice-task", "## Part 1: twice (2 points)\n\n`double(x)` returns `2 * x`."),
        cell("code", f"{NEW}-twice", SOLUTION, solution=True, locked=False),
        cell("code", f"{NEW}-twice-basic", VISIBLE, grade=True, points=1),
        cell("code", f"{NEW}-twice-breadth", HIDDEN, grade=True, points=1),
    ]
    meta = json.loads((ROOT / "source/chars/chars.ipynb").read_text(encoding="utf-8"))["metadata"]
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def add_assignment(course: Path) -> None:
    """The documented way: the source folder, and one line of the registry."""
    write_nb(course / "source" / NEW / f"{NEW}.ipynb", new_notebook())
    registry = course / "source" / "assignments.json"
    text = registry.read_text(encoding="utf-8")
    line = json.dumps({"id": NEW, "chapter": "book/02_characters", "title": "Doubling", "parts": 1, "points": 2})
    head, tail = text.rsplit("}\n ]", 1)
    registry.write_text(f"{head}}},\n  {line}\n ]{tail}", encoding="utf-8")


def page_self_check(course: Path, code: dict[str, str]) -> float:
    """The points the practice page's "Check my work" gives: the page's cells (its data,
    made by practice_pages.py from the released notebook), the reader's code in its
    solution cells, checked by the runtime's selfcheck on the released selfcheck.json.gz."""
    selfcheck = importlib.import_module(f"{RUNTIME}.selfcheck")
    released = json.loads((course / f"exercises/{NEW}/{NEW}.ipynb").read_text(encoding="utf-8"))
    data = practice_pages.page_data(NEW, released, practice_pages.data_files(NEW, course / "exercises"), root=course)
    assert data["title"] == "Assignment 15 · Doubling" and data["cell_timeout"] == 120
    nb = json.loads(json.dumps(released))
    for c in data["cells"]:
        source = code.get(c["grade_id"], c["source"]) if c["kind"] == "solution" else c["source"]
        nb["cells"][c["index"]]["source"] = source
    spec = json.loads(__import__("gzip").decompress((course / f"exercises/{NEW}/selfcheck.json.gz").read_bytes()))
    report, _ = selfcheck.check_notebook(nb, spec)
    return float(report["total"])


def check_py(course: Path, nb: dict, folder: Path) -> float:
    """The points ``python check.py`` gives, run by a Python without the reference."""
    shutil.copytree(course / "exercises" / NEW, folder)
    write_nb(folder / f"{NEW}.ipynb", nb)
    python = str(KERNEL_PYTHON) if KERNEL_PYTHON.exists() else sys.executable
    proc = subprocess.run([python, "check.py", "--json"], cwd=folder, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "TMPDIR": str(folder)})
    out = proc.stdout
    assert "\n{" in out, out[-3000:] + proc.stderr[-3000:]
    report = json.loads(out[out.index("\n{") + 1:])
    assert (proc.returncode == 0) == (report["total"] == report["max_total"] == 2), out[-3000:]
    return float(report["total"])


def test_a_new_assignment_added_the_documented_way(tmp_path):
    course = copy_course(tmp_path / "course")
    add_assignment(course)
    python = sys.executable
    assert run([python, "autograder/release.py", NEW], course).returncode == 0
    released = json.loads((course / f"exercises/{NEW}/{NEW}.ipynb").read_text(encoding="utf-8"))
    assert "BEGIN SOLUTION" not in json.dumps(released) and "hidden_test" not in json.dumps(released)

    full = {f"{NEW}-twice": "\n".join(line for line in SOLUTION.splitlines() if "### " not in line)}
    submissions = {"full": full, "stub": {}, "partial": {f"{NEW}-twice": PARTIAL}}
    expected = {"full": 2.0, "stub": 0.0, "partial": 1.0}
    page = {student: page_self_check(course, code) for student, code in submissions.items()}
    checked = {student: check_py(course, submission(released, code), tmp_path / f"check-{student}")
               for student, code in submissions.items()}
    for student, code in submissions.items():
        write_nb(course / f"submitted/{student}/{NEW}/{NEW}.ipynb", submission(released, code))
    proc = run([python, "autograder/grade.py", NEW, "--quiet"], course)
    assert proc.returncode == 0
    with open(course / "grading-report.csv", encoding="utf-8") as f:
        graded = {r["student"]: float(r["score"]) for r in csv.DictReader(f) if r["assignment"] == NEW}
    assert page == checked == graded == expected, (page, checked, graded)
