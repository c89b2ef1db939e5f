"""The grader's half of the hidden tests: cases and answers made here, compared here.

A test cell's hidden section declares hidden tests with ``tokgrade.grading.hidden_test``
(see its docstring). Before a submission runs, :func:`hidden_tests_for` reads each test
cell's hidden section **from the gradebook** (what the instructor wrote, whatever the
submitted notebook says), collects its tests without running them, generates their
cases and computes the reference's outcomes, in this process, where ``tokref`` is whole.
The sandbox gets the cases only (``cases.json``). After the notebook ran,
:func:`check_cell` compares the record each hidden test displayed in its cell with the
reference's outcomes. A cell fails when a result differs, when a test's record is
missing (its hidden section did not run, whatever the reason) or appears more than once,
or when a record is malformed: nothing the student's code does in the sandbox can
produce a passing record without computing the right results itself.

Cases and answers depend only on the instructor's code, so they are computed once per
process and hidden section.

The hidden sections get into the notebook that runs as nbgrader puts them there: the
gradebook keeps each test cell with its hidden section, and autograding's
``OverwriteCells`` writes that source over a locked cell whose checksum differs from the
gradebook's. But that checksum is the one from before ``generate_assignment`` cut the
hidden section, so every untouched test cell differed, and nbgrader warned of each
(``Attribute 'checksum' for cell ... has changed!``). :class:`OverwriteCellsKnowingHiddenTests`
(the sanitizing pipeline's, ``nbgrader_config.py``) first gives its hidden section back to
a cell that is exactly as released, so the warning is left for a cell that a student
really changed (which nbgrader still overwrites with the instructor's).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from nbformat import NotebookNode
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells

from . import load_solutions

load_solutions()  # the hidden tests' generators import tokref; this module, tokgrade
from tokgrade.grading import (  # noqa: E402
    RECORD_MIME,
    HiddenTest,
    cases_to_json,
    check_outcomes,
    collect_hidden_tests,
    outcomes_from_json,
    run_cases,
)

HIDDEN_RE = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
MAX_RECORD_CHARS = 64 * 2**20


@dataclass
class Prepared:
    """One hidden test, ready: its cases and the reference's outcomes and time."""

    test: HiddenTest
    cases: list
    expected: list
    reference_seconds: float


@dataclass
class NotebookHiddenTests:
    """The hidden tests of one notebook, by the grade_id of their test cell."""

    by_cell: dict[str, list[Prepared]] = field(default_factory=dict)

    def cases_json(self) -> str:
        tests = {p.test.name: (p.test.function, p.cases) for ps in self.by_cell.values() for p in ps}
        return json.dumps(cases_to_json(tests))


_cache: dict[str, list[Prepared]] = {}


def prepare(code: str) -> list[Prepared]:
    """The hidden tests of one hidden section, with cases and answers (cached)."""
    key = hashlib.sha256(code.encode()).hexdigest()
    if key not in _cache:
        prepared = []
        for test in collect_hidden_tests(code):
            reference, cases = test.generate()
            expected, seconds = run_cases(reference, cases)
            prepared.append(Prepared(test, cases, expected, seconds))
        _cache[key] = prepared
    return _cache[key]


def hidden_sections(source: str) -> str:
    return "\n".join(HIDDEN_RE.findall(source))


def hidden_tests_for(nb: Any, resources: dict) -> NotebookHiddenTests:
    """The hidden tests of the notebook's test cells, from the gradebook's source cells."""
    from nbgrader.api import Gradebook, MissingEntry

    info = resources["nbgrader"]
    out = NotebookHiddenTests()
    names: set[str] = set()
    with Gradebook(info["db_url"]) as gb:
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("grade") or not meta.get("grade_id"):
                continue
            try:
                source = gb.find_source_cell(meta["grade_id"], info["notebook"], info["assignment"]).source
            except MissingEntry:
                continue  # not a cell of the assignment: nbgrader does not grade it either
            code = hidden_sections(source)
            if not code:
                continue
            prepared = prepare(code)
            for p in prepared:
                if p.test.name in names:
                    raise ValueError(f"two hidden tests named {p.test.name!r} in {info['notebook']}")
                names.add(p.test.name)
            out.by_cell[meta["grade_id"]] = prepared
    return out


def is_record(output: Any) -> bool:
    return output.get("output_type") in ("display_data", "execute_result") and RECORD_MIME in output.get("data", {})


def check_cell(prepared: list[Prepared], records: list[Any]) -> tuple[list[str], list[str], list[str]]:
    """Compare a test cell's records with the reference.

    Returns ``(passed, failures, irregular)``: the names of the tests that passed, the
    failure messages (for the student), and what a person should look at (a missing,
    repeated, malformed or foreign record).
    """
    by_name: dict[str, list[dict]] = {}
    irregular: list[str] = []
    for output in records:
        record = output["data"][RECORD_MIME]
        name = record.get("test") if isinstance(record, dict) else None
        if not isinstance(name, str):
            irregular.append("a hidden-test record without a test name")
            continue
        by_name.setdefault(name, []).append(record)
    known = {p.test.name for p in prepared}
    irregular += [f"a record for {n!r}, which is no hidden test of this cell" for n in by_name if n not in known]
    passed, failures = [], []
    for p in prepared:
        found = by_name.get(p.test.name, [])
        if len(found) != 1:
            why = "did not report its results" if not found else f"reported {len(found)} times"
            failures.append(f"the hidden test {p.test.name} {why}: the grader can only "
                            "score results it received once, from the test itself")
            irregular.append(f"hidden test {p.test.name} {why}")
            continue
        try:
            text = json.dumps(found[0])  # nbformat's NotebookNode back to plain JSON types
            if len(text) > MAX_RECORD_CHARS:
                raise ValueError("too large")
            record = json.loads(text)
            actual = outcomes_from_json(record.get("outcomes"))
            seconds = record.get("seconds")
            if type(seconds) not in (int, float) or not 0 <= seconds < 1e9:
                raise ValueError("no valid time")
        except (ValueError, TypeError, RecursionError) as e:
            failures.append(f"the hidden test {p.test.name} reported results the grader cannot read ({e})")
            irregular.append(f"malformed record of {p.test.name}")
            continue
        try:
            check_outcomes(p.test, p.cases, p.expected, actual, seconds=float(seconds),
                           reference_seconds=p.reference_seconds)
        except AssertionError as e:
            failures.append(str(e))
        else:
            passed.append(f"{p.test.name} ({len(p.cases)} cases)")
    return passed, failures, irregular


class OverwriteCellsKnowingHiddenTests(OverwriteCells):
    """nbgrader's ``OverwriteCells``, which knows that a test cell was released without its
    hidden section (see the module docstring)."""

    def preprocess_cell(self, cell, resources, index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and cell.cell_type == "code":
            try:
                source_cell = self.gradebook.find_source_cell(grade_id, self.notebook_id,
                                                              self.assignment_id)
            except MissingEntry:
                pass  # nbgrader's own code says so
            else:
                released = NotebookNode(cell_type="code", source=source_cell.source, metadata={})
                clear = ClearHiddenTests(config=self.config)
                if (source_cell.locked and source_cell.cell_type == "code"
                        and clear._remove_hidden_test_region(released)
                        and cell.source == released.source):
                    cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, index)
