"""Write each assignment's self-check: ``source/<a>/selfcheck.json.gz`` and ``source/<a>/check.py``.

    python autograder/selfcheck_spec.py            # every assignment
    python autograder/selfcheck_spec.py chars ...  # only these

``autograder/release.py`` runs this before nbgrader's ``generate_assignment``, which then
copies both files into ``exercises/<a>/`` like any file of the assignment: nbgrader's
release and fetch carry them to students, and the book's practice page serves the same
``selfcheck.json.gz`` from ``exercises/``.

**The spec** (``selfcheck.json.gz``) holds, for every hidden test of the assignment, its
cases and the reference's outcomes, as exact-typed JSON (:mod:`tokref.typed_json`):
inputs and expected values, never the reference's code. The cases come from the hidden
tests' own generators on **seeds of their own**: while a generator runs, every
``random.Random(seed)`` it makes draws from ``("self-check", seed)`` instead
(:func:`other_seeds`), so the cases have the breadth of the grader's without being
the grader's. The reference's outcomes are computed outside that switch, on the real
seeds of any function that takes one. A hidden test's time limit keeps its floor only
(the reference's own time varies from machine to machine; the file must not).

**check.py** is the self-check for a student with plain Python: :mod:`tokref.selfcheck`
with :mod:`tokref.grading` and :mod:`tokref.typed_json`, their code copied in verbatim
(docstrings left out), and a command line. It never imports ``tokref``.

Both files depend only on the source notebook and on those three modules, so they are
reproducible byte for byte (``tests/test_practice.py`` regenerates and compares them).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import gzip
import json
import random
import re
import struct
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "solutions"))

from tokref import grading, selfcheck, typed_json  # noqa: E402
from tokref.grading import collect_hidden_tests, outcomes_to_json, run_cases  # noqa: E402
from tokref.typed_json import to_json  # noqa: E402

import assignments  # noqa: E402  (autograder/assignments.py, the list of assignments)

SALT = "self-check"
SPEC_FILE = "selfcheck.json.gz"
HIDDEN_RE = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
HEADING_RE = re.compile(r"^#{2,3} +(.+?)\s*(?:\(\d+(?:\.\d+)? points?\))?\s*$", re.M)
BUNDLED = (("typed_json", typed_json), ("grading", grading), ("selfcheck", selfcheck))


@contextlib.contextmanager
def other_seeds(salt: str = SALT) -> Iterator[None]:
    """Inside, ``random.Random(seed)`` (and ``.seed(seed)``) draws from ``(salt, seed)``.

    >>> with other_seeds():
    ...     a = random.Random(1).random()
    >>> a == random.Random(1).random(), a == random.Random(f"self-check:{1!r}").random()
    (False, True)
    """
    original = random.Random.seed

    def seed(self: random.Random, a: Any = None, version: int = 2) -> None:
        if isinstance(a, (int, str, bytes)) and not isinstance(a, bool):
            a = f"{salt}:{a!r}"
        original(self, a, version)

    random.Random.seed = seed  # type: ignore[method-assign]
    try:
        yield
    finally:
        random.Random.seed = original  # type: ignore[method-assign]


def _text(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def notebook_parts(nb: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(parts, unscored)`` of a notebook: each solution code cell is a part, titled by
    the last heading above it, with its test cells ``<part>-<label>``; written-answer
    (markdown solution) cells are listed apart, unscored."""
    parts: dict[str, dict[str, Any]] = {}
    unscored, title = [], ""
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] == "markdown":
            if meta.get("solution") and meta.get("grade"):  # titled by the question above it
                unscored.append({"grade_id": meta["grade_id"], "title": title, "points": meta["points"]})
                continue
            headings = HEADING_RE.findall(_text(cell))
            title = headings[-1] if headings else title
        elif meta.get("solution"):
            parts[meta["grade_id"]] = {"part": meta["grade_id"], "title": title, "cells": []}
        elif meta.get("grade"):
            part, label = meta["grade_id"].rsplit("-", 1)
            parts[part]["cells"].append({"grade_id": meta["grade_id"], "label": label, "points": meta["points"]})
    return list(parts.values()), unscored


def hidden_tests(nb: dict[str, Any]) -> list[dict[str, Any]]:
    """Every hidden test of the notebook's test cells, with its self-check cases and the
    reference's outcomes on them."""
    tests = []
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta.get("grade"):
            continue
        for code in HIDDEN_RE.findall(_text(cell)):
            for test in collect_hidden_tests(code):
                with other_seeds():
                    reference, cases = test.generate()
                expected, _ = run_cases(reference, cases)
                tests.append({
                    "cell": meta["grade_id"], "name": test.name, "function": test.function,
                    "cases": [[to_json(a), to_json(k)] for a, k in cases],
                    "expected": outcomes_to_json(expected),
                    "time_limit": [test.time_limit[0], 0.0] if test.time_limit else None,
                    "rel_tol": test.rel_tol, "abs_tol": test.abs_tol})
    return tests


def make_spec(assignment: str, root: Path = ROOT) -> dict[str, Any]:
    nb = json.loads((root / "source" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8"))
    parts, unscored = notebook_parts(nb)
    return {"format": selfcheck.SPEC_FORMAT, "version": selfcheck.SPEC_VERSION, "assignment": assignment,
            "notebook": f"{assignment}.ipynb", "seeds": SALT, "parts": parts, "unscored": unscored,
            "tests": hidden_tests(nb)}


# ---------------------------------------------------------------------------------------
# check.py
# ---------------------------------------------------------------------------------------


def without_docstrings(source: str) -> str:
    """``source`` without its docstrings (whole lines), the code otherwise verbatim.

    >>> print(without_docstrings('def f():\\n    \\"\\"\\"Doc.\\"\\"\\"\\n    return 1\\n'))
    def f():
        return 1
    <BLANKLINE>
    """
    lines = source.splitlines(keepends=True)
    drop: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) or not body:
            continue
        first = body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            if len(body) == 1:
                raise ValueError(f"line {first.lineno}: a body that is only a docstring")
            drop.update(range(first.lineno - 1, first.end_lineno))
    return "".join(line for k, line in enumerate(lines) if k not in drop).lstrip("\n")


def check_script(assignment: str) -> str:
    """The text of ``check.py`` for ``assignment``."""
    modules = []
    for name, module in BUNDLED:
        code = without_docstrings(Path(module.__file__).read_text(encoding="utf-8"))
        if "'''" in code or code.endswith("\\"):
            raise ValueError(f"tokref/{name}.py cannot be copied into a r'''...''' string")
        modules.append(f"_MODULES[{name!r}] = r'''\n{code}'''\n")
    template = (Path(__file__).with_name("check_template.py")).read_text(encoding="utf-8")
    return (template.replace("{assignment}", assignment)
            .replace("# {modules}\n", "\n".join(modules)))


def gzip_bytes(data: bytes, *, level: int = 9) -> bytes:
    """``data`` gzipped with a fixed header: no time stamp, no file name, "unknown" OS.

    ``gzip.compress(mtime=0)`` is not that on every Python (3.11 and 3.12 let zlib write
    the header, whose OS byte is the platform's). The deflate stream after the header is
    zlib's, which may still differ between zlib versions: release.py compares released
    ``.gz`` files by their decompressed content, never by their bytes.

    >>> gzip.decompress(gzip_bytes(b"abc")) == b"abc" and gzip_bytes(b"")[:10].hex()
    '1f8b08000000000002ff'
    """
    deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)  # raw deflate, no header
    body = deflate.compress(data) + deflate.flush()
    xfl = 2 if level == 9 else 4 if level == 1 else 0  # RFC 1952: slowest / fastest
    header = struct.pack("<4sIBB", b"\x1f\x8b\x08\x00", 0, xfl, 255)
    return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def spec_bytes(spec: dict[str, Any], *, level: int = 9) -> bytes:
    """The spec as ``selfcheck.json.gz``: compact JSON, gzipped without a time stamp
    (the cases repeat their tables, so it shrinks 5 to 20 times)."""
    text = json.dumps(spec, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    return gzip_bytes(text.encode("utf-8"), level=level)


def write(assignment: str, root: Path = ROOT) -> None:
    """``source/<a>/selfcheck.json.gz`` and ``source/<a>/check.py`` (both gitignored there:
    release.py makes them, nbgrader copies them into exercises/, which is committed)."""
    folder = root / "source" / assignment
    (folder / SPEC_FILE).write_bytes(spec_bytes(make_spec(assignment, root)))
    (folder / "check.py").write_text(check_script(assignment), encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignments", nargs="*", help="default: every assignment of source/assignments.json")
    args = parser.parse_args(argv)
    names = args.assignments or assignments.ids(ROOT)  # source/assignments.json
    for name in names:
        write(name)
        print(f"source/{name}/{SPEC_FILE} and check.py written")


if __name__ == "__main__":
    main()
