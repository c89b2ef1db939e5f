"""The course's autograde pipeline: nbgrader's own, with three preprocessors changed or added
(nbgrader 0.9.6). ``nbgrader_config.py`` installs it with :func:`autograde_preprocessors`,
so plain ``nbgrader autograde`` and ``autograder/grade.py`` grade the same way. Scores are
still nbgrader's (``SaveAutoGrades``: a test cell with an error output gets 0, otherwise
its points).

``ExecuteAndReport`` (in place of ``Execute``)
    Runs the notebook in :class:`sandbox.SandboxedKernelManager`'s sandbox, after giving it
    the hidden tests' cases (``hidden_tests.py``). A cell gets ``Execute.timeout`` seconds
    and the whole notebook ``notebook_timeout``. A kernel that dies, or a notebook out of
    time, costs the cells that did not run (nbgrader alone would drop the whole submission
    and its feedback): each gets an error output that says why.

``LimitOutputAndReport`` (in place of ``LimitOutput``)
    Also caps characters per cell (``max_chars``), which cuts one huge line too.

``CheckHiddenTests`` (new, before ``SaveAutoGrades``)
    Compares the records the hidden tests displayed in their test cells with the
    reference's outcomes, computed in this process; a difference, or a missing, repeated
    or malformed record, adds an error output to the cell, which then scores 0. Records
    are removed from the notebook; the feedback shows which case failed and what was
    expected. An ``execute_result`` in a test cell (nbgrader would read it as partial
    credit; no test of ours makes one) is turned into a display.

Everything that happened goes to one JSON-lines file (:class:`GradingEvents`), one
``events.GradingEvent`` per line (``assignment``, ``student``, ``notebook``, ``cell``,
``event``, ``detail``, ``flag``), where ``flag`` is true for what a person should look at
(something the submission tried, or a record that should have been there) and false for
what explains a score (``kernel died``, ``timed out``, ``notebook out of time``, ``output
truncated``). Flags never change a score.
"""

from __future__ import annotations

import re
import time
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.converters import Autograde
from nbgrader.preprocessors import (Execute, LimitOutput, NbGraderPreprocessor, OverwriteCells,
                                    SaveAutoGrades)
from traitlets import Integer, Unicode
from traitlets.config import Configurable

from .events import (EDITED_TEST, KERNEL_DIED, NO_RECORD, OUT_OF_TIME, OUTPUT_TRUNCATED, RECORD_OUTSIDE,
                    RESULT_IN_TEST, TIMED_OUT, GradingEvent, append_events)
from .hidden_tests import OverwriteCellsKnowingHiddenTests, check_cell, hidden_tests_for, is_record
from .sandbox import SandboxedKernelManager

TRUNCATED = "... Output truncated ..."  # the marker nbgrader's LimitOutput writes

# What in a solution cell deserves a look (a flag, not a verdict): name -> pattern.
SUSPICIOUS = {
    "mentions the reference or nbgrader": r"\btokref\b|\bnbgrader\b|gradebook",
    "IPython hooks": r"input_transformers|ast_transformers|events\.register|register_magic"
                     r"|set_custom_exc|showtraceback|sys\.settrace|sys\.setprofile|meta_path"
                     r"|path_hooks|addaudithook|__builtins__|\bbuiltins\b",
    "runs code from elsewhere": r"\bexec\(|\beval\(|\bimportlib\b|__import__|\bcompile\(",
    "processes or network": r"\bsubprocess\b|os\.system|os\.fork|\bmultiprocessing\b|os\.exec"
                            r"|\bsocket\b|\burllib\b|\brequests\b|http\.client|\bctypes\b",
    "files outside its directory": r"\.\./|os\.walk|os\.scandir|os\.listdir|glob\.glob|/source/"
                                   r"|/submitted/|/autograded/|\bPath\(['\"]/|os\.path\.(exists|isfile|isdir)"
                                   r"|\.ipynb\b|\bsqlite3\b",
}
SUSPICIOUS_RE = {k: re.compile(v) for k, v in SUSPICIOUS.items()}


class GradingEvents(Configurable):
    """Where the plugins write what happened: one ``GradingEvent`` per line, appended."""

    path = Unicode("grading-events.jsonl",
                   help="The events file (relative to the directory nbgrader runs in, the course root)"
                   ).tag(config=True)

    def write(self, resources: dict | None, event: str, cell: str = "", detail: str = "",
              *, flag: bool = False) -> None:
        info = (resources or {}).get("nbgrader", {})
        append_events(self.path, [GradingEvent(
            str(info.get("assignment") or ""), str(info.get("student") or ""), info.get("notebook"),
            cell, event, str(detail), flag=bool(flag))])


def _cell_name(cell: Any, index: int) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index}"


def _error(ename: str, evalue: str) -> Any:
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def suspicious_code(nb: Any) -> list[tuple[str, str, str]]:
    """``(cells, what, the first matching text)`` for what deserves a look in the solution
    cells, one entry per kind of thing, naming every cell where it occurs."""
    found: dict[str, tuple[list[str], str]] = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            for what, pattern in SUSPICIOUS_RE.items():
                match = pattern.search(cell.source)
                if match:
                    found.setdefault(what, ([], match.group(0)))[0].append(_cell_name(cell, index))
    return [(", ".join(cells), what, text) for what, (cells, text) in found.items()]


class ExecuteAndReport(Execute):
    """nbgrader's ``Execute`` in the sandbox, with a time budget per notebook, and a lost
    kernel failing only the cells it did not finish."""

    notebook_timeout = Integer(
        600, help="Seconds the whole notebook may run; the cells it leaves are not run and score 0"
    ).tag(config=True)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(**kwargs)

    def preprocess(self, nb, resources=None, km=None):
        self._lost: str | None = None  # why the remaining cells cannot run, once they cannot
        self._deadline = time.monotonic() + self.notebook_timeout
        self._sandbox: SandboxedKernelManager | None = None
        self._events = GradingEvents(config=self.config)
        resources["tokref_hidden"] = hidden_tests_for(nb, resources)
        for cell, what, text in suspicious_code(nb):
            self._events.write(resources, what, cell, f"the code has {text!r}", flag=True)
        try:
            return super().preprocess(nb, resources, km)
        finally:
            if self._sandbox is not None:
                for finding in self._sandbox.findings:
                    self._events.write(resources, finding["event"], "", finding["detail"],
                                       flag=finding["flag"])

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, SandboxedKernelManager):
            km.files = {"cases.json": self.resources["tokref_hidden"].cases_json()}
            km.workdir = self.resources.get("metadata", {}).get("path") or ""
            self._sandbox = km
        return km

    def _get_timeout(self, cell):
        timeout = super()._get_timeout(cell)
        left = max(1, int(self._deadline - time.monotonic()))
        return left if timeout is None else min(timeout, left)

    def preprocess_cell(self, cell, resources, index):
        runs = cell.cell_type == "code" and cell.source.strip()
        if not runs:
            return super().preprocess_cell(cell, resources, index)
        name = _cell_name(cell, index)
        if not self._lost and time.monotonic() >= self._deadline:
            self._lost = f"the notebook used up its {self.notebook_timeout} s"
            self._events.write(resources, OUT_OF_TIME, name, self._lost)
        if self._lost:
            # Never run, so nbgrader must not give it full points for having no error.
            cell.outputs = [_error("DeadKernelError", f"not run: {self._lost}")]
            cell.execution_count = None
            return cell, resources
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._lost = f"the kernel died while running cell {name!r}"
            cell.setdefault("outputs", []).append(_error(
                "DeadKernelError",
                "the kernel died while running this cell, so this cell and the cells "
                "after it were not graded (did the code call exit(), os._exit() or "
                "run out of memory?)",
            ))
            self._events.write(resources, KERNEL_DIED, name)
        except CellTimeoutError:
            # Interrupted after the timeout but still busy: nbgrader would give up on the
            # whole submission. The kernel is killed at the end.
            self._lost = f"cell {name!r} ran out of time and could not be interrupted"
            cell.setdefault("outputs", []).append(_error(
                "CellTimeoutError",
                "this cell did not finish in time and did not stop when interrupted, "
                "so it and the cells after it were not graded",
            ))
            self._events.write(resources, TIMED_OUT, name, "could not be interrupted")
            self._events.write(resources, KERNEL_DIED, name, "unresponsive kernel")
        else:
            timeout_name = (self.error_on_timeout or {}).get("ename")
            if timeout_name and any(
                o.output_type == "error" and o.get("ename") == timeout_name for o in cell.outputs
            ):
                self._events.write(resources, TIMED_OUT, name, "interrupted")
        return cell, resources


class LimitOutputAndReport(LimitOutput):
    """nbgrader's ``LimitOutput``, plus a cap on characters, and an event when it cuts."""

    max_chars = Integer(
        100_000,
        help="maximum number of characters of stream output per cell (-1 means no limit)",
    ).tag(config=True)

    def _limit_chars(self, cell: Any) -> None:
        if self.max_chars == -1 or cell.cell_type != "code":
            return
        budget, kept = self.max_chars, []
        for output in cell.outputs:
            if output.output_type == "stream":
                if budget <= 0:
                    continue
                if len(output.text) > budget:
                    output.text = output.text[:budget] + "\n" + TRUNCATED
                    budget = 0
                else:
                    budget -= len(output.text)
            kept.append(output)
        cell.outputs = kept

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        before = [(o.output_type, o.get("text")) for o in cell.outputs]
        cell, resources = super().preprocess_cell(cell, resources, index)
        self._limit_chars(cell)
        after = [(o.output_type, o.get("text")) for o in cell.outputs]
        streams = [b for b in before if b[0] == "stream"]
        if [a for a in after if a[0] == "stream"] != streams:
            size = sum(len(t or "") for _, t in streams)
            GradingEvents(config=self.config).write(
                resources, OUTPUT_TRUNCATED, _cell_name(cell, index), f"{size:,} characters of output")
        return cell, resources


class CheckHiddenTests(NbGraderPreprocessor):
    """Score the hidden tests outside the sandbox (see the module docstring)."""

    def preprocess(self, nb, resources):
        hidden = resources.get("tokref_hidden")
        if hidden is None:
            raise RuntimeError("CheckHiddenTests needs ExecuteAndReport earlier in the pipeline")
        events = GradingEvents(config=self.config)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            name = _cell_name(cell, index)
            records = [o for o in cell.outputs if is_record(o)]
            cell.outputs = [o for o in cell.outputs if not is_record(o)]
            meta = cell.metadata.get("nbgrader", {})
            prepared = hidden.by_cell.get(meta.get("grade_id")) if meta.get("grade") else None
            if not prepared:
                if records:
                    events.write(resources, RECORD_OUTSIDE,
                                 name, f"{len(records)} record(s)", flag=True)
                continue
            for output in cell.outputs:
                if output.output_type == "execute_result":  # would be read as partial credit
                    output.output_type = "display_data"
                    output.pop("execution_count", None)
                    events.write(resources, RESULT_IN_TEST, name,
                                 "nbgrader would have read it as a score", flag=True)
            if any(o.output_type == "error" for o in cell.outputs):
                continue  # already 0: a visible test or the code failed before the records
            passed, failures, irregular = check_cell(prepared, records)
            for what in irregular:
                events.write(resources, NO_RECORD, name, what, flag=True)
            if passed:
                cell.outputs.append(new_output(
                    "stream", name="stdout", text=f"Hidden tests passed: {', '.join(passed)}.\n"))
            if failures:
                cell.outputs.append(_error("AssertionError", failures[0]))
        return nb, resources


def autograde_preprocessors() -> list[type]:
    """nbgrader's default autograde pipeline with the classes above swapped in and added."""
    swap = {Execute: ExecuteAndReport, LimitOutput: LimitOutputAndReport}
    default = Autograde.class_traits()["autograde_preprocessors"].default()
    if not set(swap) <= set(default) or SaveAutoGrades not in default:
        raise RuntimeError(
            "nbgrader's autograde pipeline changed (no Execute, LimitOutput or SaveAutoGrades "
            f"in {default}); update autograder/nbgrader_plugins.py")
    out = [swap.get(pp, pp) for pp in default]
    out.insert(out.index(SaveAutoGrades), CheckHiddenTests)
    return out


class OverwriteCellsAndReport(OverwriteCellsKnowingHiddenTests):
    """Restores the released read-only cells, as nbgrader does, and flags each one a
    student changed (nbgrader only logs it, in the formgrader's Autograde dialog)."""

    def preprocess_cell(self, cell, resources, index):
        self._resources = resources
        return super().preprocess_cell(cell, resources, index)

    def report_change(self, name, attr, old, new):
        super().report_change(name, attr, old, new)
        what = "its source" if attr == "checksum" else f"its {attr} ({old} -> {new})"
        GradingEvents(config=self.config).write(
            self._resources, EDITED_TEST, name,
            f"{what} differed from the released cell; graded with the released cell", flag=True)


def sanitize_preprocessors() -> list[type]:
    """nbgrader's sanitizing pipeline (it runs before autograding) with ``OverwriteCells``
    swapped for :class:`OverwriteCellsAndReport`."""
    default = Autograde.class_traits()["sanitize_preprocessors"].default()
    if OverwriteCells not in default:
        raise RuntimeError(f"nbgrader's sanitize pipeline changed (no OverwriteCells in {default}); "
                           "update autograder/nbgrader_plugins.py")
    return [OverwriteCellsAndReport if pp is OverwriteCells else pp for pp in default]
