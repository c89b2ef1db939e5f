"""The self-check of an assignment: a notebook's cells run in order, then the hidden
tests' cases on seeds of their own, compared exactly as the grader compares.

Standard library only. The same code runs in two places, neither of which has the
reference's algorithms:

- the book's practice pages, in a Web Worker on Pyodide (``book/_static/practice-worker.js``
  calls :meth:`Kernel.run_cell_json` and :meth:`Kernel.self_check_json`);
- ``exercises/<assignment>/check.py``, the script released beside each notebook for a
  student with plain Python (``autograder/selfcheck_spec.py`` writes it with this module,
  :mod:`tokgrade.grading` and :mod:`tokgrade.typed_json` inside).

A :class:`Kernel` runs code cells the way a Jupyter kernel does: one namespace, the value
of a last expression shown as ``execute_result``, printed text as ``stream`` outputs and
an exception as an ``error`` output with a traceback that points into the cell.

>>> k = Kernel()
>>> k.run_cell("x = 6\\nprint('hi')\\nx * 7")["outputs"]  # doctest: +NORMALIZE_WHITESPACE
[{'output_type': 'stream', 'name': 'stdout', 'text': 'hi\\n'},
 {'output_type': 'execute_result', 'execution_count': 1, 'data': {'text/plain': '42'}, 'metadata': {}}]

The **spec** (``selfcheck.json.gz``, made at build time by ``autograder/selfcheck_spec.py``
where the reference is whole) holds, for each hidden test, its cases and the reference's
outcomes as data: never the reference's code. :meth:`Kernel.self_check` runs the
reader's functions on those cases and compares with :func:`tokgrade.grading.check_outcomes`,
so a result passes here exactly when it would pass the grader on the same cases (exact
types, the same messages). A test cell earns its points when its visible tests passed
and every hidden test of the cell passed, which is how nbgrader scores it.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import json
import linecache
import time
import traceback
from typing import Any

from .grading import HiddenTest, check_outcomes, outcomes_from_json, outcomes_to_json, run_cases
from .typed_json import from_json

__all__ = ["Kernel", "SPEC_FORMAT", "SPEC_VERSION", "check_spec", "check_notebook", "describe_report",
           "format_report"]

SPEC_FORMAT = "tokgrade-selfcheck"
SPEC_VERSION = 1
RED, GREEN, CYAN, BOLD, RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"
CONTEXT_LINES = 2  # lines of a cell shown above the failing one, as IPython does


# What one cell's printing keeps: the grader's LimitOutput (nbgrader_config.py: 1,000
# lines, 100,000 characters); the rest is cut with the grader's marker and counted.
MAX_OUTPUT_LINES = 1000
MAX_OUTPUT_CHARS = 100_000
TRUNCATED = "... Output truncated ..."


class _Budget:
    """What is left of one cell's output allowance, shared by its stdout and stderr."""

    def __init__(self) -> None:
        self.chars, self.lines, self.dropped = MAX_OUTPUT_CHARS, MAX_OUTPUT_LINES, 0


class _Streams(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` of a running cell: text kept as stream outputs, in
    order, as lists of pieces joined once by :func:`_finish_streams` (appending to one
    string made printing quadratic), and no more than the grader keeps."""

    def __init__(self, outputs: list[dict[str, Any]], name: str, budget: _Budget | None = None) -> None:
        self.outputs, self.name, self.budget = outputs, name, budget or _Budget()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        b = self.budget
        if b.chars <= 0 or b.lines <= 0:  # the common case of a long print loop: cheap
            b.dropped += len(text)
            return len(text)
        kept = text[:b.chars]
        if kept.count("\n") >= b.lines:
            kept = "".join(kept.splitlines(True)[:b.lines])
        b.chars -= len(kept)
        b.lines -= kept.count("\n")
        b.dropped += len(text) - len(kept)
        if kept:
            last = self.outputs[-1] if self.outputs else None
            if last and last["output_type"] == "stream" and last["name"] == self.name:
                last["pieces"].append(kept)
            else:
                self.outputs.append({"output_type": "stream", "name": self.name, "pieces": [kept]})
        return len(text)


def _finish_streams(outputs: list[dict[str, Any]], budget: _Budget) -> None:
    """Join each stream output's pieces; say what was cut, as the grader does."""
    for out in outputs:
        if "pieces" in out:
            out["text"] = "".join(out.pop("pieces"))
    if budget.dropped:
        streams = [o for o in outputs if o["output_type"] == "stream"]
        note = (f"\n{TRUNCATED} ({budget.dropped:,} more characters not kept: the grader also keeps only "
                f"{MAX_OUTPUT_LINES:,} lines or {MAX_OUTPUT_CHARS:,} characters of a cell's output)\n")
        if streams:
            streams[-1]["text"] += note
        else:
            outputs.append({"output_type": "stream", "name": "stdout", "text": note.lstrip("\n")})


class Kernel:
    """A namespace in which code cells run one after another, as in a Jupyter kernel."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        self.execution_count = 0

    # -- running cells ---------------------------------------------------------------

    def run_cell(self, code: str, name: str = "cell") -> dict[str, Any]:
        """Run ``code``; return ``{"ok", "execution_count", "outputs", "seconds"}`` with
        nbformat-4 outputs. ``name`` (a grade_id) labels the cell in tracebacks."""
        self.execution_count += 1
        n = self.execution_count
        filename = f"<Cell In[{n}] {name}>"
        # Tracebacks read the source through linecache, as IPython registers its cells.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        outputs: list[dict[str, Any]] = []
        start = time.perf_counter()
        ok = True
        budget = _Budget()
        with contextlib.redirect_stdout(_Streams(outputs, "stdout", budget)), \
                contextlib.redirect_stderr(_Streams(outputs, "stderr", budget)):
            try:
                value = self._execute(code, filename)
            except BaseException as e:  # noqa: BLE001 - a cell may raise anything, SystemExit too
                ok = False
                outputs.append(error_output(e, filename, n))
            else:
                if value is not None:
                    self.namespace["_"] = value
                    outputs.append({"output_type": "execute_result", "execution_count": n,
                                    "data": {"text/plain": _repr(value)}, "metadata": {}})
        _finish_streams(outputs, budget)
        return {"ok": ok, "execution_count": n, "outputs": outputs,
                "seconds": time.perf_counter() - start}

    def _execute(self, code: str, filename: str) -> Any:
        """Run the statements; the value of a last expression statement is returned."""
        tree = ast.parse(code, filename, "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, filename, "exec"), self.namespace)
        if last is None:
            return None
        expression = ast.Expression(last.value)
        return eval(compile(expression, filename, "eval"), self.namespace)

    def run_cell_json(self, code: str, name: str = "cell") -> str:
        """:meth:`run_cell` as JSON (what the browser's worker calls)."""
        return json.dumps(self.run_cell(code, name))

    # -- the self-check --------------------------------------------------------------

    def self_check(self, spec: dict[str, Any], visible: dict[str, dict[str, Any]], *,
                   time_allowance: float = 1.0) -> dict[str, Any]:
        """The report of a self-check: ``visible`` says, for each test cell run, whether
        it passed (``{"ok": bool, "message": str | None}``); the spec's hidden cases run
        here, on the functions this kernel's cells defined. ``time_allowance`` widens the
        time limits of the hidden tests that have one (the browser runs Python slower
        than the CPython that timed the reference)."""
        check_spec(spec)
        breadth = {test["cell"]: [] for test in spec["tests"]}
        for test in spec["tests"]:
            breadth[test["cell"]].append(self._run_hidden(test, time_allowance))
        return _report(spec, visible, breadth)

    def self_check_json(self, spec_json: str, visible_json: str, time_allowance: float = 1.0) -> str:
        """:meth:`self_check` on JSON text, returning JSON (what the browser's worker calls):
        the report, with its words and numbers under ``"description"`` (:func:`describe_report`,
        which the page shows as it is)."""
        report = self.self_check(json.loads(spec_json), json.loads(visible_json),
                                 time_allowance=time_allowance)
        return json.dumps({**report, "description": describe_report(report)})

    def _run_hidden(self, test: dict[str, Any], time_allowance: float) -> dict[str, Any]:
        """One hidden test on this kernel's function: ``{"name", "cases", "ok", "message"}``."""
        result = {"name": test["name"], "cases": len(test["cases"]), "ok": False, "message": None}
        func = self.namespace.get(test["function"])
        if not callable(func):
            result["message"] = (f"{test['function']} is not defined: run the cell that defines it "
                                 "(and the cells above it) first")
            return result
        cases = [(from_json(a), from_json(k)) for a, k in test["cases"]]
        expected = outcomes_from_json(test["expected"])
        sink: list[dict[str, Any]] = []  # what the function prints is not the reader's output
        with contextlib.redirect_stdout(_Streams(sink, "stdout")), \
                contextlib.redirect_stderr(_Streams(sink, "stderr")):
            actual, seconds = run_cases(func, cases)
        # The record's round trip, as in the grading sandbox: what passes here passes there.
        actual = outcomes_from_json(json.loads(json.dumps(outcomes_to_json(actual))))
        limit = tuple(test["time_limit"]) if test.get("time_limit") else None
        hidden = HiddenTest(test["name"], test["function"], _no_generator, limit,
                            test.get("rel_tol", 1e-9), test.get("abs_tol", 1e-12))
        try:
            check_outcomes(hidden, cases, expected, actual, seconds=seconds / time_allowance,
                           reference_seconds=test.get("reference_seconds", 0.0))
        except AssertionError as e:
            result["message"] = str(e)
        else:
            result["ok"] = True
        return result


def _no_generator() -> Any:
    raise RuntimeError("a self-check never generates cases: they come with the spec")


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception as e:  # noqa: BLE001 - a reader's __repr__ may raise anything
        return f"<repr of {type(value).__name__} raised {type(e).__name__}: {e}>"


# ---------------------------------------------------------------------------------------
# Tracebacks, as Jupyter shows them
# ---------------------------------------------------------------------------------------


def error_output(e: BaseException, filename: str, n: int) -> dict[str, Any]:
    """An nbformat ``error`` output for ``e`` raised by the cell ``filename``: the frames
    of this module are left out, a cell's frame shows its lines with an arrow."""
    lines = [f"{RED}{'-' * 75}{RESET}",
             f"{RED}{type(e).__name__:<42}{RESET}Traceback (most recent call last)"]
    if not isinstance(e, SyntaxError):
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename != __file__]
        lines += [_frame_lines(f) for f in frames]
    lines += [_colour_last_line(line.rstrip("\n")) for line in traceback.format_exception_only(type(e), e)]
    return {"output_type": "error", "ename": type(e).__name__, "evalue": _safe_str(e), "traceback": lines}


def _frame_lines(frame: traceback.FrameSummary) -> str:
    if frame.filename.startswith("<Cell In["):
        where = f"{CYAN}{frame.filename[1:].split(']')[0]}], line {frame.lineno}{RESET}"
        source = linecache.getlines(frame.filename)
        first = max(1, (frame.lineno or 1) - CONTEXT_LINES)
        shown = []
        for k in range(first, min(len(source), frame.lineno or 0) + 1):
            arrow = f"{GREEN}----> " if k == frame.lineno else "      "
            shown.append(f"{arrow}{k:<4}{RESET}{source[k - 1].rstrip()}")
        return "\n".join([where, *shown])
    head = f"File {CYAN}{frame.filename}:{frame.lineno}{RESET}, in {frame.name}"
    return head + (f"\n    {frame.line}" if frame.line else "")


def _colour_last_line(line: str) -> str:
    name, sep, rest = line.partition(":")
    if sep and name.isidentifier():
        return f"{RED}{name}{RESET}:{rest}"
    return line


def _safe_str(e: BaseException) -> str:
    try:
        return str(e)
    except Exception:  # noqa: BLE001
        return "?"


# ---------------------------------------------------------------------------------------
# The spec and the report
# ---------------------------------------------------------------------------------------


def check_spec(spec: Any) -> None:
    """Raise ValueError unless ``spec`` is a self-check spec this module can read."""
    if not isinstance(spec, dict) or spec.get("format") != SPEC_FORMAT:
        raise ValueError(f"not a self-check file: its 'format' must be {SPEC_FORMAT!r} "
                         "(use the selfcheck.json.gz released beside the notebook)")
    if spec.get("version") != SPEC_VERSION:
        raise ValueError(f"self-check file version {spec.get('version')!r}; this checker reads "
                         f"version {SPEC_VERSION}: fetch the assignment again")


def _report(spec: dict[str, Any], visible: dict[str, dict[str, Any]],
            breadth: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    parts = []
    for part in spec["parts"]:
        cells = [_cell_report(cell, visible.get(cell["grade_id"]), breadth.get(cell["grade_id"]))
                 for cell in part["cells"]]
        parts.append({"part": part["part"], "title": part["title"], "cells": cells,
                      "points": sum(c["points"] for c in cells),
                      "max_points": sum(c["max_points"] for c in cells)})
    return {"version": SPEC_VERSION, "assignment": spec["assignment"], "parts": parts,
            "total": sum(p["points"] for p in parts), "max_total": sum(p["max_points"] for p in parts),
            "unscored": spec.get("unscored", [])}


def _cell_report(cell: dict[str, Any], seen: dict[str, Any] | None,
                 hidden: list[dict[str, Any]] | None) -> dict[str, Any]:
    if seen is None:
        seen = {"ok": False, "message": "this test cell did not run"}
    out: dict[str, Any] = {"grade_id": cell["grade_id"], "label": cell["label"],
                           "max_points": cell["points"],
                           "visible": {"ok": bool(seen.get("ok")), "message": seen.get("message")},
                           "breadth": None}
    if hidden:
        failed = [h for h in hidden if not h["ok"]]
        out["breadth"] = {"ok": not failed, "tests": len(hidden), "cases": sum(h["cases"] for h in hidden),
                          "message": failed[0]["message"] if failed else None}
    earned = out["visible"]["ok"] and (out["breadth"] is None or out["breadth"]["ok"])
    out["points"] = cell["points"] if earned else 0
    return out


def check_notebook(nb: dict[str, Any], spec: dict[str, Any], *, echo: Any = None,
                   kernel: Kernel | None = None) -> tuple[dict[str, Any], Kernel]:
    """Run every code cell of the notebook ``nb`` in ``kernel`` (a fresh :class:`Kernel`
    by default), then the self-check; return the report and the kernel. ``echo(cell,
    result)``, if given, is called after each cell (check.py prints the failures)."""
    check_spec(spec)
    graded = {c["grade_id"] for p in spec["parts"] for c in p["cells"]}
    kernel = Kernel() if kernel is None else kernel
    visible: dict[str, dict[str, Any]] = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        source = cell.get("source", "")
        source = source if isinstance(source, str) else "".join(source)
        result = kernel.run_cell(source, meta.get("grade_id", "cell"))
        if meta.get("grade_id") in graded:
            error = next((o for o in result["outputs"] if o["output_type"] == "error"), None)
            visible[meta["grade_id"]] = {
                "ok": result["ok"], "message": None if error is None else f"{error['ename']}: {error['evalue']}"}
        if echo is not None:
            echo(cell, result)
    return kernel.self_check(spec, visible), kernel


def describe_report(report: dict[str, Any]) -> dict[str, Any]:
    """The report's words and numbers, made here only: ``check.py`` prints them
    (:func:`format_report`) and the practice page shows them as they are (it adds icons
    and classes from the ``ok`` flags, no words or numbers of its own). Plain JSON.

    >>> d = describe_report({"assignment": "a", "total": 1, "max_total": 2, "unscored": [],
    ...     "parts": [{"title": "Part 1: x", "points": 1, "max_points": 2, "cells": [
    ...         {"label": "basic", "points": 1, "max_points": 1, "visible": {"ok": True},
    ...          "breadth": {"ok": True, "tests": 1, "cases": 1, "message": None}}]}]})
    >>> d["title"], d["parts"][0]["points"], d["ok"]
    ('Self-check of a: 1 of 2 points', '1 of 2 points', False)
    >>> d["parts"][0]["cells"]
    [{'label': 'basic', 'ok': True, 'text': 'passed (and 1 hidden-test case)', 'message': None}]
    """
    parts = []
    for part in report["parts"]:
        cells = []
        for cell in part["cells"]:
            breadth = cell["breadth"]
            if not cell["visible"]["ok"]:
                ok, message = False, cell["visible"].get("message") or "the visible tests failed"
            elif breadth and not breadth["ok"]:
                ok, message = False, breadth["message"]
            else:
                ok, message = True, None
            n = breadth["cases"] if breadth else 0
            passed = "passed" + (f" (and {n} hidden-test case{'s' * (n != 1)})" if breadth else "")
            cells.append({"label": cell["label"], "ok": ok, "text": passed if ok else "FAILED",
                          "message": message})
        parts.append({"heading": part["title"], "points": _score(part["points"], part["max_points"]),
                      "ok": part["points"] == part["max_points"], "cells": cells})
    score = _score(report["total"], report["max_total"])
    return {
        "title": f"Self-check of {report['assignment']}: {score}", "score": score, "parts": parts,
        "unscored": [f"{item['title']}: a written answer ({_points(item['points'])} "
                     f"point{'s' * (item['points'] != 1)}), graded by a person"
                     for item in report.get("unscored", [])],
        "total": f"Total: {score} (a self-check on cases of its own; your instructor grades "
                 "with other seeds)",
        "ok": report["total"] == report["max_total"]}


def format_report(report: dict[str, Any]) -> str:
    """The report as plain text: :func:`describe_report`'s strings, a line each.

    >>> print(format_report({"assignment": "a", "total": 1, "max_total": 2, "unscored": [],
    ...     "parts": [{"title": "Part 1: x", "points": 1, "max_points": 2, "cells": [
    ...         {"label": "basic", "points": 1, "max_points": 1, "visible": {"ok": True},
    ...          "breadth": None},
    ...         {"label": "breadth", "points": 0, "max_points": 1, "visible": {"ok": True},
    ...          "breadth": {"ok": False, "tests": 1, "cases": 3, "message": "f(1) [case 0]: ..."}}]}]}))
    Self-check of a: 1 of 2 points
    Part 1: x: 1 of 2 points
      basic    passed
      breadth  FAILED  f(1) [case 0]: ...
    Total: 1 of 2 points (a self-check on cases of its own; your instructor grades with other seeds)
    """
    d = describe_report(report)
    lines = [d["title"]]
    for part in d["parts"]:
        lines.append(f"{part['heading']}: {part['points']}")
        for cell in part["cells"]:
            lines.append(f"  {cell['label']:<8} {cell['text']}"
                         + (f"  {cell['message']}" if cell["message"] is not None else ""))
    lines += d["unscored"]
    lines.append(d["total"])
    return "\n".join(lines)


def _score(points: float, max_points: float) -> str:
    return f"{_points(points)} of {_points(max_points)} point{'s' * (max_points != 1)}"


def _points(x: float) -> str:
    return f"{x:g}"
