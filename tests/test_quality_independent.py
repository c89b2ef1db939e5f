"""Assignment 13, ``quality``, grades each part on its own (issue 28): its parts form a
chain (Part 2 calls Part 1's ``estimate_discount``, Part 3 Part 2's ``kneser_ney_model``,
Part 4 Part 3's ``bits_per_byte``), but the tests of Parts 2 to 4 call the student's
function with the course's version of the part before swapped in (the setup cell's
``course_version_of``), so a mistake in one part costs that part's points only.

Checked in its strongest form: a notebook in which ONE part is solved and every other
part is left as released (each of its functions raises ``NotImplementedError``) earns
exactly that part's points, its visible and hidden tests all passing. Every cell runs in
one namespace, the hidden tests in their instructor mode (the reference in this process,
compared as the grader compares), so this is the grader's verdict without the sandbox.
About 10 s. The catalog (``tests/wrong_solutions/quality.py``) measured the same way,
before and after: the report of issue 28.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from conftest import ROOT
from tokgrade.grading import CASES_ENV
from tokgrade.selfcheck import Kernel

SOURCE = ROOT / "source" / "quality" / "quality.ipynb"
RELEASED = ROOT / "exercises" / "quality" / "quality.ipynb"
PARTS = {"quality-discount": 2, "quality-model": 4, "quality-bpb": 2, "quality-sweep": 2}
SOLUTION_MARKERS = re.compile(r"\n *### (BEGIN|END) SOLUTION")


def code_cells(path) -> list[tuple[dict, str]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(c["metadata"].get("nbgrader", {}), "".join(c["source"])) for c in cells if c["cell_type"] == "code"]


def points_earned(solved: str) -> dict[str, float]:
    """{grade_id: points} of the test cells that pass when only ``solved`` is solved."""
    stubs = {meta["grade_id"]: code for meta, code in code_cells(RELEASED) if meta.get("solution")}
    kernel, earned = Kernel(), {}
    for meta, code in code_cells(SOURCE):
        gid = meta["grade_id"]
        if meta.get("solution"):
            code = SOLUTION_MARKERS.sub("", code) if gid == solved else stubs[gid]
        result = kernel.run_cell(code, gid)
        if meta.get("grade") and result["ok"]:
            earned[gid] = meta["points"]
        elif not meta.get("grade"):
            assert result["ok"], (gid, result["outputs"])
    return earned


@pytest.mark.parametrize("solved", sorted(PARTS))
def test_one_part_solved_earns_its_points_and_only_them(solved, monkeypatch):
    monkeypatch.delenv(CASES_ENV, raising=False)  # the hidden tests' instructor mode
    assert not os.environ.get(CASES_ENV)
    earned = points_earned(solved)
    assert set(earned) == {f"{solved}-{kind}" for kind in ("basic", "edges", "breadth")}, earned
    assert sum(earned.values()) == PARTS[solved]
