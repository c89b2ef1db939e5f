"""Two drop-in replacements for nbgrader's own autograde preprocessors (nbgrader 0.9.6).

``nbgrader_config.py`` puts them in ``Autograde.autograde_preprocessors`` in place of
nbgrader's ``Execute`` and ``LimitOutput``. They grade nothing themselves: nbgrader's
``SaveAutoGrades`` still scores every test cell from its outputs, as usual (an error in
the output: 0 points; otherwise: full points).

``ExecuteAndReport``
    nbgrader's ``Execute``. When the kernel dies (``os._exit``, a segfault, out of memory)
    or does not stop when interrupted after a timeout, nbgrader 0.9.6 abandons the whole
    submission: it logs "There was an error processing assignment", deletes the
    student's ``autograded/`` folder, writes no feedback, and leaves every score of the
    submission empty in the gradebook. Here instead the cell that lost the kernel, and
    every cell after it, gets an error output that says what happened; the notebook is
    then saved and scored as usual, so the cells that ran before keep their points, the
    others get 0, and the student gets feedback that explains it.

``LimitOutputAndReport``
    nbgrader's ``LimitOutput`` (``max_lines`` lines per cell), plus ``max_chars``
    characters per cell, which also cuts a single line of megabytes.

Both write one log line per incident, for ``autograder/grade.py``'s report::

    [AutogradeApp | WARNING] GRADING-EVENT {"assignment": "chars", "cell": "...", ...}
"""

from __future__ import annotations

import json
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.v4 import new_output
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute, LimitOutput
from traitlets import Integer

EVENT_TAG = "GRADING-EVENT"
TRUNCATED = "... Output truncated ..."  # the marker nbgrader's LimitOutput writes

# Event names, also the statuses of grade.py's report.
KERNEL_DIED = "kernel died"
TIMED_OUT = "timed out"
OUTPUT_TRUNCATED = "output truncated"


def _cell_name(cell: Any, index: int) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index}"


def log_event(log: Any, resources: dict, event: str, cell: str, detail: str = "") -> None:
    """Write one ``GRADING-EVENT`` line: which submission, which cell, what happened."""
    info = (resources or {}).get("nbgrader", {})
    record = {
        "student": info.get("student"),
        "assignment": info.get("assignment"),
        "notebook": info.get("notebook"),
        "cell": cell,
        "event": event,
        "detail": detail,
    }
    log.warning("%s %s", EVENT_TAG, json.dumps(record, sort_keys=True, ensure_ascii=False))


def _error(ename: str, evalue: str) -> Any:
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class ExecuteAndReport(Execute):
    """nbgrader's ``Execute``, but a lost kernel fails only the cells it did not finish."""

    def preprocess(self, nb, resources=None, km=None):
        self._lost: str | None = None  # why the kernel was lost, once it is
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        runs = cell.cell_type == "code" and cell.source.strip()
        if not runs:
            return super().preprocess_cell(cell, resources, index)
        name = _cell_name(cell, index)
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
            log_event(self.log, resources, KERNEL_DIED, name)
        except CellTimeoutError:
            # Interrupted after `timeout` seconds but still busy: nbgrader would give up
            # on the whole submission. The kernel is shut down (killed) at the end.
            self._lost = f"cell {name!r} ran out of time and could not be interrupted"
            cell.setdefault("outputs", []).append(_error(
                "CellTimeoutError",
                f"this cell did not finish in {self.timeout} s and did not stop when "
                "interrupted, so it and the cells after it were not graded",
            ))
            log_event(self.log, resources, TIMED_OUT, name, "could not be interrupted")
            log_event(self.log, resources, KERNEL_DIED, name, "unresponsive kernel")
        else:
            timeout_name = (self.error_on_timeout or {}).get("ename")
            if timeout_name and any(
                o.output_type == "error" and o.get("ename") == timeout_name
                for o in cell.outputs
            ):
                log_event(self.log, resources, TIMED_OUT, name, f"interrupted after {self.timeout} s")
        return cell, resources


class LimitOutputAndReport(LimitOutput):
    """nbgrader's ``LimitOutput``, plus a cap on characters, and a log line when it cuts."""

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
            log_event(self.log, resources, OUTPUT_TRUNCATED, _cell_name(cell, index),
                      f"{size:,} characters of output")
        return cell, resources


def autograde_preprocessors() -> list[type]:
    """nbgrader's default autograde pipeline with the two classes above swapped in."""
    swap = {Execute: ExecuteAndReport, LimitOutput: LimitOutputAndReport}
    default = Autograde.class_traits()["autograde_preprocessors"].default()
    if not set(swap) <= set(default):
        raise RuntimeError(
            "nbgrader's autograde pipeline changed (no Execute or LimitOutput in "
            f"{default}); update autograder/nbgrader_plugins.py"
        )
    return [swap.get(pp, pp) for pp in default]
