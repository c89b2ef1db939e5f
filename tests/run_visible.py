"""Run a student notebook's code cells in order, in one namespace, as a student's kernel
would, and print which graded test cells raised (JSON: {grade_id: "Error: message"}).

Used by tests/test_wrong_solutions.py: ``python tests/run_visible.py notebook.ipynb``.
Plain ``exec`` rather than a kernel: a visible test is plain Python, and this is ten
times faster than starting a kernel per notebook. A cell that raises does not stop the
run (nbgrader's autograder also runs every cell).
"""

from __future__ import annotations

import json
import sys
import traceback


def main(path: str) -> None:
    nb = json.loads(open(path, encoding="utf-8").read())
    namespace: dict = {"__name__": "__main__"}
    failures = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = cell["metadata"].get("nbgrader", {})
        src = "".join(cell["source"])
        try:
            exec(compile(src, f"<cell {meta.get('grade_id', '?')}>", "exec"), namespace)
        except BaseException as e:  # noqa: BLE001 - a student's cell may raise anything
            if isinstance(e, KeyboardInterrupt):
                raise
            if meta.get("grade"):
                failures[meta["grade_id"]] = f"{type(e).__name__}: {e}"[:500]
            elif meta.get("solution"):
                failures.setdefault("_solution_cells", "")
                failures["_solution_cells"] += f"{meta.get('grade_id')}: {type(e).__name__}: {e}\n"
                traceback.print_exc(file=sys.stderr)
    print(json.dumps(failures))


if __name__ == "__main__":
    main(sys.argv[1])
