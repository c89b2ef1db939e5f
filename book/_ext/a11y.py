"""WCAG 2.1 AA fixes for what the book's packages write (listed in _config.yml under
sphinx.local_extensions; tests/test_axe.py checks every page with axe-core).

Each fix is made here, in the course, because the markup comes from an installed
package (never edited) and has no setting:

- **Folded cells** (myst-nb): the ``<summary>`` of a ``hide-input`` cell shows "Show
  code cell source" but is named "Toggle hidden content" by an ``aria-label``, which a
  speech-input user cannot say (WCAG 2.5.3, axe ``label-content-name-mismatch``). The
  label is dropped: the visible text names it.
- **The bibliography** (sphinxcontrib-bibtex): its entries carry ``role="doc-biblioentry"``,
  deprecated in DPUB-ARIA 1.1, inside a ``role="list"`` that then has no list items
  (axe ``aria-deprecated-role``, ``aria-required-children``): they become list items.
- **The search button** (pydata-sphinx-theme): named "Search" while it shows "Search
  Ctrl+K" (WCAG 2.5.3): its name becomes what it shows.
- **Formulas** (MathJax 3): each formula is a Tab stop by default (its menu); 96 extra
  stops in chapter 11 alone. ``inTabOrder: false`` keeps the assistive MathML that
  screen readers read and drops the stops (WCAG 2.4.3).
- **Scrolling boxes**: a code block or a table wider than the column scrolls in its box,
  which a keyboard can only scroll if it can focus it (WCAG 2.1.1, axe
  ``scrollable-region-focusable``): the static page makes each one a Tab stop; with
  JavaScript, ``a11y.js`` keeps the stop only where the box scrolls at the window's width.
- ``a11y.css`` (book/_static): reflow at 320 px (long inline code and addresses wrap).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

# (pattern, replacement) over a page's body (html-page-context: the page's own markup).
BODY_FIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'(<summary\b[^>]*?)\s+aria-label="Toggle hidden content"'), r"\1"),
    (re.compile(r'role="doc-biblioentry"'), 'role="listitem"'),
    # Boxes that may scroll sideways (code, tables) are Tab stops in the static page, so
    # that without JavaScript a keyboard can scroll them at any width (WCAG 2.1.1); with
    # it, a11y.js and the theme keep the stop only on a box that does scroll.
    (re.compile(r"<pre>"), '<pre tabindex="0" data-a11y-tab="">'),
    (re.compile(r'<div class="pst-scrollable-table-container">'),
     '<div class="pst-scrollable-table-container" tabindex="0" data-a11y-tab="">'),
)
# The same over the whole written file (the theme's templates: the search button).
PAGE_FIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'(<button\b[^>]*\bsearch-button-field\b[^>]*?)\baria-label="Search"'),
     r'\1aria-label="Search Ctrl+K"'),
)


def fix_html(text: str, fixes: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    """``text`` with every ``(pattern, replacement)`` of ``fixes`` applied.

    >>> fix_html('<summary class="x" aria-label="Toggle hidden content">', BODY_FIXES)
    '<summary class="x">'
    """
    for pattern, replacement in fixes:
        text = pattern.sub(replacement, text)
    return text


def _fix_body(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    if isinstance(context.get("body"), str):
        context["body"] = fix_html(context["body"], BODY_FIXES)


def _fix_written_pages(app: Sphinx, exc: Exception | None) -> None:
    """The theme's own markup is in the templates, not the body: fix the written files
    (idempotent, so pages an incremental build did not rewrite are left as they are)."""
    if exc is not None or app.builder.format != "html":
        return
    for path in Path(app.outdir).rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        fixed = fix_html(text, PAGE_FIXES)
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")


def _mathjax_out_of_tab_order(app: Sphinx, config: Any) -> None:
    """MathJax 3's formulas out of the Tab order (their menu stays on right-click)."""
    mj = dict(config.mathjax3_config or {})
    options = dict(mj.get("options") or {})
    menu = dict(options.get("menuOptions") or {})
    settings = dict(menu.get("settings") or {})
    settings.setdefault("inTabOrder", False)
    menu["settings"] = settings
    options["menuOptions"] = menu
    mj["options"] = options
    config.mathjax3_config = mj


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _mathjax_out_of_tab_order)
    app.connect("html-page-context", _fix_body, priority=900)
    app.connect("build-finished", _fix_written_pages)
    app.add_css_file("a11y.css")
    app.add_js_file("a11y.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
