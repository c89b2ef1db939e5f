"""Run a student notebook's code cells in order, in one namespace, as a student's kernel
would, and print which graded test cells raised (JSON: {grade_id: "Error: message"}).

Used by tests/test_wrong_solutions.py: ``python tests/run_visible.py notebook.ipynb
[part ...]``. Given parts (the grade_ids of solution cells, such as ``chars-encode``), only
the test cells of those parts run (``<part>-basic``, ``-edges``, ``-breadth``), and of the
cells that are neither solutions nor tests only the setup cells (``*-setup``): the
demonstrations that give no points (a speed check, a pipeline) are skipped.
Plain ``exec`` rather than a kernel: a visible test is plain Python, and this is ten
times faster than starting a kernel per notebook. A cell that raises does not stop the
run (nbgrader's autograder also runs every cell).
"""

from __future__ import annotations

import json
import sys
import traceback


def wanted(meta: dict, parts: list[str]) -> bool:
    if not parts or meta.get("solution"):
        return True
    gid = meta.get("grade_id", "")
    if meta.get("grade"):
        return gid.rsplit("-", 1)[0] in parts
    return gid.endswith("-setup")


def main(path: str, parts: list[str]) -> None:
    nb = json.loads(open(path, encoding="utf-8").read())
    namespace: dict = {"__name__": "__main__"}
    failures = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = cell["metadata"].get("nbgrader", {})
        if not wanted(meta, parts):
            continue
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
    main(sys.argv[1], sys.argv[2:])
