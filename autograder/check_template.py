"""Check your notebook before you hand it in: the self-check of this assignment.

    python check.py                 # checks <assignment>.ipynb, next to this file
    python check.py my-copy.ipynb   # or another copy of it

It runs every code cell of the notebook in order, as "Restart Kernel and Run All Cells"
does, and tells you which visible tests fail and why. Then it runs your functions on the
cases of selfcheck.json.gz (next to this file, which also names the assignment): the
hidden tests' kinds of cases, on seeds of their own, with the answers the course's
reference gave, compared exactly as the grader compares them (exact types; the same
messages). It prints the points each part would earn and exits with status 0 only when
everything passed.

This is a self-check: your instructor grades in a sandbox, with other seeds. You need
Python 3.10 or newer and nothing else. The code that checks is the course's grading
runtime, the package tokgrade, in tokgrade.zip next to this file (Python imports it
from the zip; unzip it to read it). This file is the same for every assignment: do not
edit it, it is regenerated.
"""

import argparse
import gzip
import json
import os
import signal
import sys
from pathlib import Path

RUNTIME = "tokgrade.zip"  # the package tokgrade, its files unchanged
SPEC = "selfcheck.json.gz"


def _load(here):
    """tokgrade.selfcheck, from the zip next to this file (before any other tokgrade)."""
    sys.path.insert(0, str(here / RUNTIME))
    from tokgrade import selfcheck

    return selfcheck


class CellTimeout(Exception):
    """A cell ran longer than --timeout seconds."""


def _timed_kernel(selfcheck, seconds):
    """A Kernel whose cells are stopped after ``seconds`` (where the OS has SIGALRM)."""

    class TimedKernel(selfcheck.Kernel):
        def run_cell(self, code, name="cell"):
            if not seconds or not hasattr(signal, "SIGALRM"):
                return super().run_cell(code, name)

            def stop(signum, frame):
                raise CellTimeout(f"the cell ran longer than {seconds} s (see --timeout)")

            previous = signal.signal(signal.SIGALRM, stop)
            signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                return super().run_cell(code, name)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)

    return TimedKernel()


def _echo(cell, result):
    """Print what a student must see: failing cells, with the error's message."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if result["ok"]:
        return
    error = next(o for o in result["outputs"] if o["output_type"] == "error")
    kind = "test" if meta.get("grade") else ("solution" if meta.get("solution") else "cell")
    print(f"x {kind} {meta.get('grade_id', '?')}: {error['ename']}: {error['evalue']}")


def _read_spec(here):
    """The self-check spec and the assignment it names; (None, "?", error) if unreadable."""
    try:
        spec = json.loads(gzip.decompress((here / SPEC).read_bytes()).decode("utf-8"))
        return spec, str(spec["assignment"]), None
    except (OSError, ValueError, KeyError, TypeError) as e:
        return None, "?", e


def main(argv=None):
    here = Path(__file__).resolve().parent
    spec, assignment, problem = _read_spec(here)
    parser = argparse.ArgumentParser(description=f"The self-check of assignment {assignment}.")
    parser.add_argument("notebook", nargs="?", default=str(here / f"{assignment}.ipynb"),
                        help=f"the notebook to check (default: {assignment}.ipynb next to check.py)")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds a cell may run (default 600; 0: no limit)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    path = Path(args.notebook).resolve()
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        if problem is not None:
            raise problem
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"check.py: cannot read {e}", file=sys.stderr)
        return 2
    try:
        selfcheck = _load(here)
    except ImportError as e:
        print(f"check.py: cannot load the self-check from {RUNTIME} next to check.py ({e}): "
              "fetch the assignment again", file=sys.stderr)
        return 2
    os.chdir(path.parent)  # the notebook opens its data files next to itself
    sys.path.insert(0, str(path.parent))
    print(f"Running {path.name} cell by cell ...")
    report, _ = selfcheck.check_notebook(nb, spec, echo=_echo,
                                         kernel=_timed_kernel(selfcheck, args.timeout))
    print()
    print(json.dumps(report, indent=1) if args.json else selfcheck.format_report(report))
    return 0 if report["total"] == report["max_total"] else 1


if __name__ == "__main__":
    sys.exit(main())
