"""The course's assignments, in one list: ``source/assignments.json``.

One line per assignment, in the order of the book's practice pages::

    {"id": "chars", "chapter": "book/02_characters", "title": "A character tokenizer",
     "parts": 4, "points": 10}

``id`` names ``source/<id>/<id>.ipynb``; ``chapter`` is the book page that links to it;
``title`` is its notebook's heading after ``# Assignment <n> · ``; ``parts`` and
``points`` (the autograded points) are what the notebook's nbgrader metadata says, and
``written_points`` (answers a person grades, default 0) and ``cell_timeout`` (seconds
before the practice page stops a cell, default 120) are optional. Everything else derives
from this list: ``release.py``'s assignments, the practice pages' section of ``_toc.yml``
and their stubs ``book/practice/<id>.md`` (``python autograder/assignments.py --sync``,
which ``make book`` runs), and the tests' lists of assignments.

JSON, not TOML: the autograder runs on any Python 3.10+ (``make setup PYTHON=...``), and
``tomllib`` is 3.11+. The standard library only.

>>> import json, tempfile
>>> root = Path(tempfile.mkdtemp())
>>> (root / "source" / "demo").mkdir(parents=True)
>>> nb = {"cells": [
...     {"cell_type": "markdown", "metadata": {}, "source": "# Assignment 2 · A demo"},
...     {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "solution": False,
...      "grade_id": "demo-add-basic", "points": 1}}, "source": "assert True"}]}
>>> _ = (root / "source" / "demo" / "demo.ipynb").write_text(json.dumps(nb))
>>> load(root)
Traceback (most recent call last):
...
autograder.assignments.RegistryError: source/assignments.json is missing: write it, one line per assignment of source/ (see autograder/assignments.py)
>>> line = {"id": "demo", "chapter": "book/02_demo", "title": "A demo", "parts": 1, "points": 1}
>>> _ = (root / "source" / "assignments.json").write_text(json.dumps({"assignments": [line]}))
>>> [(a.id, a.page, a.points) for a in load(root)]
[('demo', 'book/practice/demo', 1)]
>>> (root / "source" / "extra").mkdir()
>>> _ = (root / "source" / "extra" / "extra.ipynb").write_text(json.dumps(nb))
>>> load(root)
Traceback (most recent call last):
...
autograder.assignments.RegistryError: source/extra/ has no line in source/assignments.json: add {"id": "extra", "chapter": "book/<the chapter's page>", "title": "A demo", "parts": 1, "points": 1}
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = "source/assignments.json"
TOC = "_toc.yml"
PRACTICE = "book/practice"
KINDS = ("basic", "edges", "breadth")  # the graded test cells of every part
REQUIRED = {"id": str, "chapter": str, "title": str, "parts": int, "points": (int, float)}
OPTIONAL = {"written_points": (int, float), "cell_timeout": int}
DEFAULTS = {"written_points": 0, "cell_timeout": 120}
ID = re.compile(r"[a-z][a-z0-9_]*")
CHAPTER = re.compile(r"book/[\w-]+")
HEADING = re.compile(r"^# Assignment \d+ · (.+)$")
TOC_BEGIN = "# BEGIN practice pages, generated from source/assignments.json: python autograder/assignments.py --sync"
TOC_END = "# END practice pages"


class RegistryError(ValueError):
    """The registry, ``source/`` or a generated file disagree; the message says the fix."""


@dataclass(frozen=True)
class Assignment:
    """One line of the registry."""

    id: str
    chapter: str
    title: str
    parts: int
    points: float
    written_points: float = 0
    cell_timeout: int = 120

    @property
    def page(self) -> str:
        """The practice page's docname (its URL is ``<page>.html``)."""
        return f"{PRACTICE}/{self.id}"

    @property
    def notebook(self) -> str:
        """The source notebook, relative to the course root."""
        return f"source/{self.id}/{self.id}.ipynb"


def notebook_summary(nb: dict[str, Any]) -> dict[str, Any]:
    """What the registry says of a notebook, read from its first heading and its nbgrader
    metadata: title, parts (the parts of its ``<id>-<part>-<kind>`` test cells), points
    (autograded test cells) and written_points (graded answers).

    >>> cell = lambda gid, p, sol=False: {"cell_type": "code", "source": "", "metadata": {
    ...     "nbgrader": {"grade": True, "solution": sol, "grade_id": gid, "points": p}}}
    >>> nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Assignment 3 · Words\\n"]},
    ...                 cell("w-split-basic", 1), cell("w-split-edges", 0.5), cell("w-count-basic", 1),
    ...                 cell("w-qa", 2, sol=True)]}
    >>> notebook_summary(nb)
    {'title': 'Words', 'parts': 2, 'points': 2.5, 'written_points': 2}
    """
    first = nb["cells"][0]["source"] if nb.get("cells") else ""
    first = first if isinstance(first, str) else "".join(first)
    heading = HEADING.match(first.splitlines()[0]) if first.strip() else None
    parts, points, written = set(), 0, 0
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade"):
            continue
        if meta.get("solution"):
            written += meta.get("points", 0)
            continue
        points += meta.get("points", 0)
        stem, _, kind = meta.get("grade_id", "").rpartition("-")
        if kind in KINDS and "-" in stem:
            parts.add(stem.split("-", 1)[1])
    def number(x: float) -> float:
        return int(x) if x == int(x) else x

    return {"title": heading.group(1) if heading else None, "parts": len(parts), "points": number(points),
            "written_points": number(written)}


def _line(entry: Any, index: int) -> Assignment:
    where = f"{REGISTRY}, assignment {index + 1}"
    if not isinstance(entry, dict):
        raise RegistryError(f"{where}: expected an object {{\"id\": ..., ...}}, got {entry!r}")
    if isinstance(entry.get("id"), str):
        where = f"{REGISTRY}, assignment {entry['id']!r}"
    unknown = sorted(set(entry) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise RegistryError(f"{where}: unknown keys {unknown}; the keys are {[*REQUIRED, *OPTIONAL]}")
    missing = [k for k in REQUIRED if k not in entry]
    if missing:
        raise RegistryError(f"{where}: add {', '.join(map(repr, missing))}")
    for key, kind in {**REQUIRED, **OPTIONAL}.items():
        if key in entry and (not isinstance(entry[key], kind) or isinstance(entry[key], bool)):
            raise RegistryError(f"{where}: {key!r} must be {getattr(kind, '__name__', 'a number')}, "
                                f"not {entry[key]!r}")
    if not ID.fullmatch(entry["id"]):
        raise RegistryError(f"{where}: 'id' must be lowercase letters, digits and _ (a folder of source/)")
    if not CHAPTER.fullmatch(entry["chapter"]):
        raise RegistryError(f"{where}: 'chapter' is a book page without .md, like \"book/04_bpe\"")
    return Assignment(**{**DEFAULTS, **entry})


def read(root: Path = ROOT) -> list[Assignment]:
    """The registry's assignments, in order, checked on their own (not against source/)."""
    path = root / REGISTRY
    if not path.exists():
        raise RegistryError(f"{REGISTRY} is missing: write it, one line per assignment of source/ "
                            "(see autograder/assignments.py)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RegistryError(f"{REGISTRY} is not JSON: {err}") from None
    if not isinstance(data, dict) or not isinstance(data.get("assignments"), list):
        raise RegistryError(f'{REGISTRY}: expected {{"assignments": [one object per assignment]}}')
    found = [_line(entry, i) for i, entry in enumerate(data["assignments"])]
    ids = [a.id for a in found]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise RegistryError(f"{REGISTRY}: {repeated} listed more than once: keep one line each")
    return found


def check_against_source(found: list[Assignment], root: Path = ROOT) -> None:
    """Every folder of ``source/`` with a notebook has a line, every line a notebook, and
    each line's title, parts and points are the notebook's."""
    folders = sorted(p.name for p in (root / "source").iterdir() if p.is_dir() and any(p.glob("*.ipynb")))
    listed = {a.id for a in found}
    for name in folders:
        if name not in listed:
            nb = root / "source" / name / f"{name}.ipynb"
            s = notebook_summary(json.loads(nb.read_text(encoding="utf-8"))) if nb.exists() else {}
            line = {"id": name, "chapter": "book/<the chapter's page>", "title": s.get("title") or "...",
                    "parts": s.get("parts", 0), "points": s.get("points", 0)}
            if s.get("written_points"):
                line["written_points"] = s["written_points"]
            raise RegistryError(f"source/{name}/ has no line in {REGISTRY}: add {json.dumps(line, ensure_ascii=False)}")
    for a in found:
        path = root / a.notebook
        if not path.exists():
            raise RegistryError(f"{REGISTRY} lists {a.id!r} but {a.notebook} does not exist: write it "
                                f"(README, Adding an assignment), or remove the line")
        s = notebook_summary(json.loads(path.read_text(encoding="utf-8")))
        for key in ("title", "parts", "points", "written_points"):
            if s[key] != getattr(a, key):
                hint = ("its first line must be '# Assignment <n> · <title>'" if key == "title"
                        else "the nbgrader metadata of its graded cells")
                raise RegistryError(f"{REGISTRY}, assignment {a.id!r}: {key} is {getattr(a, key)!r}, but "
                                    f"{a.notebook} says {s[key]!r} ({hint}): make them agree")


def load(root: Path = ROOT) -> list[Assignment]:
    """The registry's assignments, in order, checked against ``source/``."""
    found = read(root)
    check_against_source(found, root)
    return found


def ids(root: Path = ROOT) -> list[str]:
    """The assignments' ids, in the registry's order (checked against ``source/``)."""
    return [a.id for a in load(root)]


def by_id(root: Path = ROOT) -> dict[str, Assignment]:
    return {a.id: a for a in load(root)}


# ---------------------------------------------------------------------------------------
# What derives from it in the book: _toc.yml's practice section and the page stubs
# ---------------------------------------------------------------------------------------


def stub_text(assignment_id: str) -> str:
    """The one-line stub ``book/practice/<id>.md`` (practice_pages.py makes the page)."""
    return (f"# Assignment `{assignment_id}`, in the browser\n\n"
            f"% The page is made when the book is built, from the released notebook\n"
            f"% exercises/{assignment_id}/{assignment_id}.ipynb, by book/_ext/practice_pages.py: "
            "this stub only names it.\n")


def toc_with_practice(toc: str, found: list[Assignment]) -> str:
    """``toc`` with its generated section (between the markers) listing ``found``'s pages.

    >>> toc = "    chapters:\\n      # BEGIN practice pages, x\\n      - file: old\\n      # END practice pages\\n"
    >>> print(toc_with_practice(toc, [Assignment("a", "book/x", "A", 1, 1)]), end="")
        chapters:
          # BEGIN practice pages, x
          - file: book/practice/a
          # END practice pages
    """
    lines = toc.splitlines(keepends=True)
    begin = [i for i, line in enumerate(lines) if line.strip().startswith(TOC_BEGIN.split(",")[0])]
    end = [i for i, line in enumerate(lines) if line.strip() == TOC_END]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        raise RegistryError(f"{TOC}: expected one generated section, from a line '{TOC_BEGIN}' to a "
                            f"line '{TOC_END}', under the practice pages' 'chapters:'")
    indent = lines[begin[0]][: len(lines[begin[0]]) - len(lines[begin[0]].lstrip())]
    body = [f"{indent}- file: {a.page}\n" for a in found]
    return "".join(lines[: begin[0] + 1] + body + lines[end[0]:])


def disagreements(root: Path = ROOT) -> list[str]:
    """What ``--sync`` would change: files of the book that disagree with the registry."""
    found = load(root)
    out = []
    toc = (root / TOC).read_text(encoding="utf-8")
    if toc_with_practice(toc, found) != toc:
        out.append(f"{TOC}: its practice pages are not the registry's, in its order")
    for a in found:
        stub = root / f"{a.page}.md"
        if not stub.exists() or stub.read_text(encoding="utf-8") != stub_text(a.id):
            out.append(f"{a.page}.md: missing or not the generated stub")
    listed = {f"{a.id}.md" for a in found}
    out += [f"{PRACTICE}/{p.name}: no assignment {p.stem!r} in {REGISTRY}"
            for p in sorted((root / PRACTICE).glob("*.md")) if p.name not in listed]
    return out


def sync(root: Path = ROOT) -> list[str]:
    """Rewrite ``_toc.yml``'s generated section and the stubs from the registry; remove
    stubs of assignments no longer listed. Writes only what changes; returns what it did."""
    found = load(root)
    done = []
    toc_path = root / TOC
    toc = toc_path.read_text(encoding="utf-8")
    if (new := toc_with_practice(toc, found)) != toc:
        toc_path.write_text(new, encoding="utf-8")
        done.append(f"{TOC} rewritten")
    for a in found:
        stub = root / f"{a.page}.md"
        if not stub.exists() or stub.read_text(encoding="utf-8") != stub_text(a.id):
            stub.parent.mkdir(parents=True, exist_ok=True)
            stub.write_text(stub_text(a.id), encoding="utf-8")
            done.append(f"{stub.relative_to(root).as_posix()} written")
    listed = {f"{a.id}.md" for a in found}
    for p in sorted((root / PRACTICE).glob("*.md")):
        if p.name not in listed:
            p.unlink()
            done.append(f"{PRACTICE}/{p.name} removed")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sync", action="store_true",
                        help="rewrite _toc.yml's practice pages and book/practice/*.md from the registry")
    args = parser.parse_args(argv)
    try:
        if args.sync:
            for line in sync():
                print(f"assignments.py: {line}")
            return 0
        problems = disagreements()
    except RegistryError as err:
        print(f"assignments.py: {err}", file=sys.stderr)
        return 1
    for line in problems:
        print(f"assignments.py: {line} (run: python autograder/assignments.py --sync)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
