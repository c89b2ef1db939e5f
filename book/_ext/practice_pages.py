"""The practice pages: every assignment, runnable in the reader's browser.

``book/practice/<a>.md`` is a one-line stub (so that the table of contents and Sphinx
know the page); when Sphinx reads it, :func:`practice_page` replaces its text with a
MyST page made from the **released** notebook ``exercises/<a>/<a>.ipynb`` — never from
``source/``, so a page cannot hold a solution or a hidden test:

- markdown cells become the page's prose, rendered as the book renders markdown (links
  to chapters, ``../../book/04_bpe.md``, become links to the chapter pages);
- code cells become ``<div class="tp-cell">`` blocks holding the code highlighted by
  Pygments (readable with no JavaScript); ``practice/practice.js`` turns solution
  cells into editors and adds Run buttons and outputs; written-answer cells hold their
  markdown;
- a ``<script type="application/json" id="tp-data">`` carries the cells and where the
  page's files are (``practice.js`` reads it).

At the end of the build the files a page needs are copied under ``_static/practice/``:
the released notebook (the template of *Download notebook*), its ``selfcheck.json.gz``
and data files, and the Python the worker runs: the grading runtime ``tokgrade``
(``solutions/tokgrade/*.py``, copied unchanged; standard library only, nothing of the
reference ``tokref``).
``book/_web/dist`` (Pyodide, the CodeMirror bundle and ``practice/practice.js``, bundled
by esbuild from ``book/_web/src``; made by ``make web`` with packages from the npm
registry) is added to the static files; the build fails if it is missing.
"""

from __future__ import annotations

import functools
import html
import json
import re
import runpy
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

LOG = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
WEB_DIST = ROOT / "book" / "_web" / "dist"
TOKGRADE = ROOT / "solutions" / "tokgrade"
PAGE_PREFIX = "book/practice/"
# What the worker imports: the grading runtime's files, unchanged (as in the grading sandbox).
RUNTIME = tuple(f"tokgrade/{p.name}" for p in sorted(TOKGRADE.glob("*.py")))
NOT_DATA = {"check.py", "selfcheck.json.gz", "tokgrade.zip", "README.md"}
CHAPTER_LINK = re.compile(r"\]\(\.\./\.\./book/([\w-]+)\.md\)")
# A fenced example in a notebook may be abbreviated ("..." in a JSON file): highlighted, but
# never a build error (Sphinx's :force:), as Jupyter shows it.
FENCE = re.compile(r"^(```+)(\w+)[ \t]*$", re.M)


@functools.cache
def cell_timeouts(root: Path) -> dict[str, int]:
    """Each assignment's practice-page watchdog, in seconds (``cell_timeout`` in its line of
    ``source/assignments.json``): the registry read and checked once per course, not per page."""
    runpy.run_path(str(root / "autograder" / "_load.py"))  # the course's package, by location
    from autograder import assignments

    return {a.id: a.cell_timeout for a in assignments.load(root)}


def assignment_of(docname: str) -> str | None:
    """The assignment of a practice page's docname.

    >>> assignment_of("book/practice/chars"), assignment_of("book/04_bpe")
    ('chars', None)
    """
    return docname[len(PAGE_PREFIX):] if docname.startswith(PAGE_PREFIX) else None


def _text(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def cell_kind(cell: dict[str, Any]) -> str | None:
    """``setup``, ``solution``, ``test``, ``code`` or ``answer``; None for prose."""
    meta = cell["metadata"].get("nbgrader", {})
    if cell["cell_type"] == "markdown":
        return "answer" if meta.get("solution") else None
    if meta.get("solution"):
        return "solution"
    if meta.get("grade"):
        return "test"
    return "setup" if meta.get("grade_id", "").endswith("-setup") else "code"


def _fence(content: str, char: str = "`") -> str:
    """A fence longer than any run of ``char`` in ``content``."""
    runs = [len(m) for m in re.findall(re.escape(char) + "+", content)]
    return char * max(3, max(runs, default=0) + 1)


def _raw_html(markup: str) -> str:
    fence = _fence(markup)
    return f"{fence}{{raw}} html\n{markup}\n{fence}\n"


def highlighted(code: str) -> str:
    """``code`` highlighted by Pygments, in the markup Sphinx gives a Python code block."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    body = highlight(code, PythonLexer(), HtmlFormatter(nowrap=True))
    return (f'<div class="highlight-python notranslate"><div class="highlight"><pre>{body}</pre>'
            "</div></div>")


def test_summary(code: str) -> str:
    """What a test cell checks: its docstring's first line (nbgrader's course101 starts
    every test cell with one).

    >>> test_summary("'''Part 1, basic: the ids.'''\\nassert True")
    'Part 1, basic: the ids.'
    """
    import ast

    try:
        doc = ast.get_docstring(ast.parse(code))
    except SyntaxError:
        doc = None
    return doc.strip().splitlines()[0] if doc else "The tests"


def cell_markup(index: int, cell: dict[str, Any], kind: str) -> str:
    grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
    code = _text(cell)
    inner = (f'<pre class="tp-answer-source">{html.escape(code)}</pre>' if kind == "answer"
             else highlighted(code))
    if kind == "test":  # folded: what it checks (its docstring) shows, its code on demand
        inner = (f'<details class="tp-test-code"><summary>{html.escape(test_summary(code))} '
                 f'<span class="tp-test-lines">({code.count(chr(10)) + 1} lines of tests)</span></summary>\n'
                 f'{inner}\n</details>')
    label = {"solution": "Your code", "test": "Tests (read-only)", "answer": "Your answer",
             "setup": "Set-up (read-only)", "code": "Code (read-only)"}[kind]
    return (f'<div class="tp-cell tp-{kind}" data-index="{index}" data-kind="{kind}" '
            f'data-grade-id="{html.escape(grade_id)}">\n<div class="tp-cell-label">{label}'
            f'{f" · <code>{html.escape(grade_id)}</code>" if grade_id else ""}</div>\n{inner}\n</div>')


def page_data(assignment: str, nb: dict[str, Any], files: list[str], *, root: Path = ROOT) -> dict[str, Any]:
    """What ``practice.js`` reads from the page (``tp-data``), for the assignment of the
    course at ``root`` (its line of ``source/assignments.json`` gives the watchdog's time)."""
    cell_timeout = cell_timeouts(Path(root))[assignment]
    cells = []
    for index, cell in enumerate(nb["cells"]):
        kind = cell_kind(cell)
        if kind is None:
            continue
        meta = cell["metadata"].get("nbgrader", {})
        cells.append({"index": index, "kind": kind, "grade_id": meta.get("grade_id", f"cell-{index}"),
                      "source": _text(cell), "points": meta.get("points", 0)})
    title = re.search(r"^# +(.+)$", _text(nb["cells"][0]), re.M)
    return {"version": 1, "assignment": assignment, "title": title.group(1) if title else assignment,
            "notebook": f"{assignment}.ipynb", "notebook_url": f"{assignment}/{assignment}.ipynb",
            "selfcheck_url": f"{assignment}/selfcheck.json.gz", "files": files, "runtime": list(RUNTIME),
            "cell_timeout": cell_timeout, "cells": cells}


def data_files(assignment: str, exercises: Path = EXERCISES) -> list[str]:
    """The files released with the notebook that it opens (a corpus, say)."""
    folder = exercises / assignment
    return sorted(p.name for p in folder.iterdir()
                  if p.is_file() and p.suffix != ".ipynb" and p.name not in NOT_DATA)


def pyodide_summary() -> dict[str, Any]:
    """Version and bytes of the vendored Pyodide (``book/_web/dist/pyodide/MANIFEST.json``)."""
    manifest = WEB_DIST / "pyodide" / "MANIFEST.json"
    if not manifest.exists():
        raise ExtensionError(f"{manifest} is missing: the practice pages need Pyodide, which "
                             "`make web` installs from the npm registry (Node.js and npm needed)")
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return {"version": data["pyodide"], "bytes": sum(f["size"] for f in data["files"].values())}


def intro(assignment: str, nb: dict[str, Any]) -> str:
    """The admonition that says what the page does, with the figures of this build."""
    pyodide = pyodide_summary()
    mb = pyodide["bytes"] / 1e6
    return f"""
:::{{admonition}} Practise here, in your browser
:class: tip tp-intro

This page is the released notebook `{assignment}.ipynb`. Write your code in the cells
marked *Your code* and press **Run** (or Shift+Enter) to run a cell: Python
(Pyodide {pyodide["version"]}, the standard library only, like the assignment) runs in your browser, with no
install, no server and no network. The first Run downloads Python once ({mb:.1f} MB);
after that it comes from the browser's cache. Your code is kept in this browser, per
assignment, until you press **Reset assignment**.

**Check my work** starts a fresh Python, runs every cell in order, and then runs your
functions on a self-check: the hidden tests' kinds of cases, on seeds of their own,
compared with the answers of the course's reference exactly as the grader compares
them. It shows the points each part would earn. It is a self-check: an instructor
grades the notebook you hand in (**Download notebook**) in a sandbox, with other seeds.
Without a browser, `python check.py` in the assignment's folder does the same.

What is tested where: when the notebook is graded, *every* test cell runs its checks
again and compares types exactly (a `Counter` where a `dict` is asked for, or a tuple
where a list is, passes a check that only compares with `==` but scores 0 for that cell);
the *breadth* cells add hidden tests on seeded random inputs. Check my work does both.

The notebook's words, on this page: *interrupt the kernel* is **Stop**; *Restart Kernel
and Run All Cells* is **Check my work** (or **Run all**); *save* happens by itself, in
this browser; *submit* is **Download notebook**, then hand the file in as your course asks.
:::
"""


def prose(markdown: str) -> str:
    """A markdown cell as the page's MyST: links to chapters, and fences that never fail.

    >>> print(prose("See [Chapter 4](../../book/04_bpe.md).\\n```json\\n{...}\\n```"))
    See [Chapter 4](../04_bpe.md).
    ```{code-block} json
    :force:
    {...}
    ```
    """
    markdown = CHAPTER_LINK.sub(r"](../\1.md)", markdown)
    return FENCE.sub(lambda m: f"{m.group(1)}{{code-block}} {m.group(2)}\n:force:", markdown)


def practice_page(assignment: str) -> str:
    """The MyST text of the practice page of ``assignment``."""
    path = EXERCISES / assignment / f"{assignment}.ipynb"
    if not path.exists():
        raise ExtensionError(f"no released notebook {path}: run `make exercises`")
    nb = json.loads(path.read_text(encoding="utf-8"))
    data = json.dumps(page_data(assignment, nb, data_files(assignment)), ensure_ascii=False)
    data = data.replace("</", "<\\/")  # nothing in it may close the <script> element
    blocks = []
    for index, cell in enumerate(nb["cells"]):
        kind = cell_kind(cell)
        if kind is None:
            blocks.append(prose(_text(cell)))
        else:
            blocks.append(_raw_html(cell_markup(index, cell, kind)))
        if index == 0:  # the title and the notebook's introduction, then what the page does
            blocks.append(intro(assignment, nb))
            blocks.append(_raw_html('<div id="tp-root" class="tp-root"></div>\n'
                                    f'<script type="application/json" id="tp-data">{data}</script>'))
    return "\n\n".join(blocks) + "\n"


def _source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    assignment = assignment_of(docname)
    if assignment is None:
        return
    app.env.note_dependency(str(EXERCISES / assignment / f"{assignment}.ipynb"))
    source[0] = practice_page(assignment)


def _page_assets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if assignment_of(pagename) is None:
        return
    app.add_css_file("practice.css")
    # Deferred: the page reads first; the editors appear once the bundle has run.
    app.add_js_file("practice/editor.js", loading_method="defer")
    app.add_js_file("practice/practice.js", loading_method="defer")


def _add_static(app: Sphinx) -> None:
    pyodide_summary()  # fails the build, saying what to run, when Pyodide is missing
    for bundle in ("editor.js", "practice.js"):
        if not (WEB_DIST / "practice" / bundle).exists():
            raise ExtensionError(f"{WEB_DIST / 'practice' / bundle} is missing: `make web` bundles it "
                                 "from book/_web/src (Node.js and npm needed)")
    if str(WEB_DIST) not in app.config.html_static_path:
        app.config.html_static_path.append(str(WEB_DIST))


def copy_assets(outdir: Path, assignments: list[str]) -> None:
    """Everything the practice pages fetch, under ``<outdir>/_static/practice/``."""
    target = outdir / "_static" / "practice"
    for rel in RUNTIME:
        dest = target / "py" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TOKGRADE / Path(rel).name, dest)
    for assignment in assignments:
        dest = target / assignment
        dest.mkdir(parents=True, exist_ok=True)
        for name in [f"{assignment}.ipynb", "selfcheck.json.gz", *data_files(assignment)]:
            shutil.copyfile(EXERCISES / assignment / name, dest / name)


def _build_finished(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    pages = sorted(filter(None, map(assignment_of, app.env.found_docs)))
    copy_assets(Path(app.outdir), pages)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _add_static)
    app.connect("source-read", _source_read)
    app.connect("html-page-context", _page_assets)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
