"""Hidden tests: tokgrade.grading.hidden_test in its three modes, and the grader's check of
the records (autograder/hidden_tests.py, nbgrader_plugins.CheckHiddenTests) — every way a
record can be missing, repeated, forged or malformed fails the cell."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from conftest import ROOT
from tokgrade import grading
from tokgrade.grading import (
    RECORD_MIME,
    HiddenTest,
    check_outcomes,
    collect_hidden_tests,
    hidden_test,
    outcomes_from_json,
    outcomes_to_json,
    run_cases,
)

from autograder.hidden_tests import NotebookHiddenTests, check_cell, prepare  # noqa: E402

SECTION = '''
from tokgrade.grading import hidden_test

@hidden_test("halve")
def _():
    """Halve, and a ValueError for odd numbers."""
    def reference(n):
        if n % 2:
            raise ValueError(f"{n} is odd")
        return n // 2
    return reference, [((n,), {}) for n in (0, 2, 4, 10)] + [((3,), {})]
'''


def good(n):
    if n % 2:
        raise ValueError("odd")
    return n // 2


def run_local(func):
    """What an instructor running the source notebook gets."""
    exec(compile(SECTION, "<cell>", "exec"), {"halve": func})


def test_local_mode_passes_a_right_function():
    run_local(good)


@pytest.mark.parametrize("func, message", [
    (lambda n: n // 2, r"halve\(3\) \[case 4\]: must raise ValueError, but it returned 1"),
    (lambda n: n / 2, r"halve\(0\) \[case 0\]: expected a int, got a float"),
    (lambda n: Counter(), r"expected a int, got a Counter"),
    (lambda n: 1 // 0, r"halve\(0\) \[case 0\]: expected 0, but it raised ZeroDivisionError"),
])
def test_local_mode_fails_a_wrong_function_with_the_case(func, message):
    with pytest.raises(AssertionError, match=message):
        run_local(func)


def test_local_mode_names_a_missing_function():
    with pytest.raises(NameError, match="'halve' is not defined"):
        exec(compile(SECTION, "<cell>", "exec"), {})


def test_collect_mode_runs_nothing():
    code = SECTION.replace('    def reference', '    raise RuntimeError("ran")\n    def reference')
    tests = collect_hidden_tests(code)
    assert [(t.name, t.function) for t in tests] == [("halve", "halve")]
    with pytest.raises(RuntimeError, match="ran"):
        tests[0].generate()


def test_hidden_test_wants_a_function_name():
    with pytest.raises(TypeError, match="name of the student's function"):
        hidden_test(good)


def test_sandbox_mode_displays_one_record_and_never_calls_the_generator(tmp_path, monkeypatch):
    cases = json.dumps(grading.cases_to_json({"halve": ("halve", [((4,), {}), ((3,), {})])}))
    (tmp_path / "cases.json").write_text(cases)
    monkeypatch.setenv(grading.CASES_ENV, str(tmp_path / "cases.json"))
    monkeypatch.setattr(grading, "_cases_file", None)
    shown = []
    import IPython.display
    monkeypatch.setattr(IPython.display, "display", lambda data, raw: shown.append(data))
    code = SECTION.replace('    def reference', '    raise RuntimeError("the generator ran")\n    def reference')
    exec(compile(code, "<cell>", "exec"), {"halve": good})
    assert len(shown) == 1
    record = shown[0][RECORD_MIME]
    assert record["test"] == "halve" and record["outcomes"][0] == {"value": 2}
    assert record["outcomes"][1]["raised"][:2] == ["ValueError", "Exception"]


def test_run_cases_gives_each_call_its_own_copy():
    def mutate(xs):
        xs.append(1)
        return len(xs)

    shared = [0]
    outcomes, _ = run_cases(mutate, [((shared,), {}), ((shared,), {})])
    assert outcomes == [("value", 2), ("value", 2)] and shared == [0]


def test_time_limit():
    test = HiddenTest("t", "f", lambda: None, time_limit=(1.0, 10.0))
    check_outcomes(test, [((), {})], [("value", 1)], [("value", 1)], seconds=4.9, reference_seconds=0.5)
    with pytest.raises(AssertionError, match=r"f took 5.1 s .* the limit is 5 s"):
        check_outcomes(test, [((), {})], [("value", 1)], [("value", 1)], seconds=5.1, reference_seconds=0.5)


# ---------------------------------------------------------------------------------------
# The grader's side: records in a test cell
# ---------------------------------------------------------------------------------------

PREPARED = prepare(SECTION)


def record(func=good, name="halve", **changes):
    outcomes, seconds = run_cases(func, PREPARED[0].cases)
    data = {"version": 1, "test": name, "function": "halve",
            "outcomes": outcomes_to_json(outcomes), "seconds": seconds, **changes}
    return new_output("display_data", data={RECORD_MIME: data, "text/plain": "record"})


def test_a_right_record_passes():
    passed, failures, irregular = check_cell(PREPARED, [record()])
    assert passed == ["halve (5 cases)"] and failures == [] and irregular == []


@pytest.mark.parametrize("records, failure, flag", [
    ([], "did not report its results", "did not report"),
    ([record(), record()], "reported 2 times", "reported 2 times"),
    ([record(outcomes=[{"value": 0}])], "1 outcomes for 5 cases", None),
    ([record(outcomes="x")], "cannot read", "malformed"),
    ([record(outcomes=[{"value": {"float": "zz"}}] * 5)], "cannot read", "malformed"),
    ([record(seconds=float("nan"))], "cannot read", "malformed"),
    ([record(func=lambda n: n)], r"halve\(2\) \[case 1\]: expected 1, got 2", None),
    ([record(), record(name="other")], None, "no hidden test of this cell"),
])
def test_every_irregular_record_fails_or_is_flagged(records, failure, flag):
    passed, failures, irregular = check_cell(PREPARED, records)
    if failure:
        assert failures and re.search(failure, failures[0]), failures
    if flag:
        assert any(flag in i for i in irregular), irregular


def test_outcomes_from_json_refuses_what_is_not_an_outcome():
    for bad in ({"value": 1}, [{"value": 1, "x": 2}], [{"raised": "ValueError", "message": ""}], [3]):
        with pytest.raises(ValueError):
            outcomes_from_json(bad)


def check_notebook(cells, prepared):
    from autograder.nbgrader_plugins import CheckHiddenTests

    nb = new_notebook(cells=cells)
    hidden = NotebookHiddenTests({"t": prepared})
    resources = {"tokref_hidden": hidden, "nbgrader": {"assignment": "a", "student": "s", "notebook": "n"}}
    return CheckHiddenTests().preprocess(nb, resources)[0]


def test_check_hidden_tests_scores_the_cell_and_removes_records(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the events file
    test_cell = new_code_cell("...", metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1}})
    test_cell.outputs = [record()]
    nb = check_notebook([test_cell], PREPARED)
    assert [o.output_type for o in nb.cells[0].outputs] == ["stream"]
    assert "Hidden tests passed: halve (5 cases)" in nb.cells[0].outputs[0].text

    test_cell.outputs = [record(func=lambda n: n)]
    nb = check_notebook([test_cell], PREPARED)
    assert nb.cells[0].outputs[-1].output_type == "error"


def test_a_forged_execute_result_cannot_give_partial_credit(tmp_path, monkeypatch):
    from nbgrader.utils import determine_grade

    monkeypatch.chdir(tmp_path)
    cell = new_code_cell("...", metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 3,
                                                       "solution": False}})
    cell.outputs = [new_output("execute_result", data={"text/plain": "3"}, execution_count=1)]
    assert determine_grade(nbformat.from_dict(cell)) == (3.0, 3.0)  # what nbgrader alone would do
    nb = check_notebook([cell], PREPARED)
    assert determine_grade(nb.cells[0]) == (0, 3.0)
    events = [json.loads(line) for line in open("grading-events.jsonl")]
    assert {e["event"] for e in events} == {"made a result in a test cell", "test cell without its record"}


def test_a_record_outside_a_test_cell_is_flagged_and_dropped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cell = new_code_cell("...", metadata={"nbgrader": {"solution": True, "grade_id": "sol"}})
    cell.outputs = [record()]
    nb = check_notebook([cell], PREPARED)
    assert nb.cells[0].outputs == []
    assert "outside its test cell" in open("grading-events.jsonl").read()



