"""WCAG 2.1 AA on every page of the built book (issue 29): axe-core, pinned in
book/_web/package-lock.json and installed from the npm registry by `make web`, injected
into Debian's chromium by selenium, with the WCAG 2.0 and 2.1 A and AA rules.

Every page found in _build/html (so pages added later are covered without a list) is
checked with and without JavaScript, light and dark, at 1280 and 320 CSS px: a page is
loaded twice (scripts on, scripts off) and the views of a load are made by resizing the
viewport and switching the theme. The loads with scripts run here, those without in
test_axe_static.py (two files: pytest-xdist runs them side by side). With scripts, every
page is checked at 1280 light and dark and at 320 light, and at 320 dark the pages of
NARROW_DARK (what changes at 320 px is the theme's header and sidebar, the same on every
page). Without JavaScript the page is the static markup (the explorers' and the practice
pages' pre-rendered faces) and the theme cannot switch: it is light (data-theme="light"
in the markup), at 1280 and 320 px. At 320 px the page must also reflow: no horizontal
scroll of the page (WCAG 1.4.10).

Any violation fails, listed with its rule, nodes and mode. A self-test plants two
violations (an image without alt text, a token of too little contrast) and checks that
the same function reports them. The sweep's seconds are printed.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from test_browser import (CHROMEDRIVER, CHROMIUM, ENABLE, HAVE_SELENIUM, HTML, ROOT, chromium,  # noqa: F401
                          html_dir, server)

AXE = ROOT / "book" / "_web" / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason=f"no chromium/chromedriver: `{ENABLE}` enables the browser test"),
    pytest.mark.skipif(not HAVE_SELENIUM, reason="selenium is not installed: `make setup` installs it"),
]

# WCAG 2.0 and 2.1, levels A and AA; label-content-name-mismatch (WCAG 2.5.3, level A) is
# one of axe's "experimental" rules, which a tag selection leaves out: it is asked for by name.
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "rules": {"label-content-name-mismatch": {"enabled": True}},
    "resultTypes": ["violations"],
}
WIDE, NARROW, HEIGHT = 1280, 320, 900
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}
# Dark at 320 px, with scripts: the book's start, a chapter with explorers, a practice page.
NARROW_DARK = {"book/index.html", "book/04_bpe.html", "book/practice/chars.html"}


def built_pages(html: Path) -> list[str]:
    """Every page of the built site, as paths relative to it."""
    return sorted(p.relative_to(html).as_posix() for p in html.rglob("*.html")
                  if not SKIP_DIRS & set(p.relative_to(html).parts))


@pytest.fixture(scope="module")
def axe_source() -> str:
    assert AXE.exists(), f"{AXE} is missing: `make web` installs axe-core (book/_web/package.json)"
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="tokref-axe-chrome-")
    drv = chromium(profile, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                   f"--window-size={WIDE},{HEIGHT}")
    drv.set_script_timeout(120)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def set_width(drv, width: int) -> None:
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})


def set_theme(drv, mode: str) -> None:
    # What the theme's switcher does (pydata-sphinx-theme: data-theme and data-mode on <html>).
    drv.execute_script("document.documentElement.dataset.theme = arguments[0];"
                       "document.documentElement.dataset.mode = arguments[0];", mode)


def run_axe(drv, axe_source: str) -> list[dict]:
    """The violations of the page as it is now: [{id, impact, help, nodes: [target...]}]."""
    return drv.execute_async_script(
        """const [src, options, done] = arguments;
        if (!window.axe) { const s = document.createElement("script"); s.textContent = src; document.head.append(s); }
        // The page's own readiness signal (a11y.js): its scripts done, no transition
        // running and the Tab stops fitted to the layout of this width and theme. A page
        // without it (none in the book) gets two frames.
        const ready = window.TokA11y ? window.TokA11y.settled()
          : new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r({ settled: true }))));
        ready.then((state) => {
          if (!state.settled) { done([{ id: "not-settled", impact: "serious", count: 1, nodes: [],
            help: `the page's layout kept changing for ${state.frames} frames (a11y.js settled())` }]); return; }
          window.axe.run(document, options).then(
            (r) => done(r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.slice(0, 8).map((n) => n.target.join(" ") + " :: " + (n.failureSummary || "").slice(0, 240)),
              count: v.nodes.length }))),
            (e) => done([{ id: "axe-error", help: String(e), nodes: [], count: 1 }]));
        });""", axe_source, AXE_OPTIONS)


def page_overflow(drv) -> int:
    """How many CSS px the page is wider than the viewport (reflow)."""
    return drv.execute_script("return document.documentElement.scrollWidth - window.innerWidth")


def load(drv, base: str, page: str, scripts: bool) -> None:
    drv.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not scripts})
    set_width(drv, WIDE)
    drv.get(f"{base}/{page}")
    if not scripts:  # the static page is loaded; scripts back on for axe, not for the page
        drv.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    drv.execute_async_script(
        "const done = arguments[0];"
        "(function wait(){ document.readyState === 'complete' ? setTimeout(done, 150) : setTimeout(wait, 50); })();")
    set_theme(drv, "light")


def sweep_page(drv, base: str, page: str, axe_source: str, scripts: bool) -> list[str]:
    """Every violation of ``page`` loaded with (or without) its scripts, in the views of
    a load (the module's docstring says which), as lines of text."""
    problems = []
    load(drv, base, page, scripts)
    for width, mode in views(page, scripts):
        # The theme first, then the width: a theme switched at 320 px has finished its CSS
        # transitions by the time the page is wide again (switched at 1280 px, axe once
        # read the search button's colours mid-transition, 3.49:1, on two pages).
        set_theme(drv, mode)
        set_width(drv, width)
        where = f"{page} [{'JS' if scripts else 'no JS'}, {mode}, {width} px]"
        for v in run_axe(drv, axe_source):
            problems.append(f"{where} {v['id']} ({v['impact']}, {v['count']} nodes): {v['help']}\n    "
                            + "\n    ".join(v["nodes"]))
        if width == NARROW and mode == "light":
            over = page_overflow(drv)
            if over > 1:
                problems.append(f"{where} reflow: the page is {over} px wider than the {NARROW} px viewport")
    return problems


def views(page: str, scripts: bool) -> list[tuple[int, str]]:
    """The (width, theme) views of one load of ``page``."""
    if not scripts:
        return [(WIDE, "light"), (NARROW, "light")]
    narrow_dark = [(NARROW, "dark")] if page in NARROW_DARK else []
    return [(WIDE, "light"), (NARROW, "light"), *narrow_dark, (WIDE, "dark")]  # dark set at 320 px


def sweep(drv, base: str, html: Path, axe_source: str, scripts: bool) -> None:
    """The whole site, one kind of load; fails listing every problem. The two kinds run
    as two test files (this one with scripts, test_axe_static.py without), so that
    pytest-xdist gives each its own core."""
    pages = built_pages(html)
    assert len(pages) >= 20, pages
    assert NARROW_DARK <= set(pages), NARROW_DARK - set(pages)
    start = time.monotonic()
    problems: list[str] = []
    for page in pages:
        problems += sweep_page(drv, base, page, axe_source, scripts)
    seconds = time.monotonic() - start
    kind = "with JavaScript" if scripts else "without JavaScript"
    print(f"\naxe sweep {kind}: {len(pages)} pages, {sum(len(views(p, scripts)) for p in pages)} views "
          f"in {seconds:.1f} s")
    (html.parent / f"axe-sweep-{'js' if scripts else 'static'}.json").write_text(
        json.dumps({"pages": len(pages), "seconds": round(seconds, 1), "problems": problems}, indent=1) + "\n")
    assert not problems, f"{len(problems)} accessibility problems {kind}:\n" + "\n".join(problems)


def test_every_page_with_javascript_has_no_axe_violation(browser, server, html_dir, axe_source):
    sweep(browser, server, html_dir, axe_source, scripts=True)


def test_the_sweep_reports_a_planted_violation(browser, server, axe_source):
    """The check itself works: an image without alt text and a token whose suffix has too
    little contrast, planted in a page, are reported by the same function."""
    load(browser, server, "book/04_bpe.html", True)
    assert run_axe(browser, axe_source) == []
    browser.execute_script("""
        const seg = document.querySelector('.tokx-seg');
        const img = document.createElement('img');
        img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw='; img.width = 20; img.height = 20;
        seg.before(img);
        const t = seg.querySelector('.tokx-t');
        const low = document.createElement('span'); low.className = 'tokx-sfx'; low.textContent = 'low';
        low.style.color = '#c8c8c8';
        t.append(low);""")
    found = {v["id"] for v in run_axe(browser, axe_source)}
    assert {"image-alt", "color-contrast"} <= found, found
