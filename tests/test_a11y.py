"""What a screen reader and a keyboard get (issue 29), in Debian's chromium driven by
selenium, on the built book:

- each explorer's accessibility tree, as Chromium gives it to assistive technology
  (DevTools ``Accessibility.queryAXTree``): the token display read token by token with
  each id ("low id 263, "), every button named in words, play a toggle button
  (``pressed``), the slider's value as the screen shows it (``aria-valuetext``), one
  polite live region (the token display is not live) whose text after one step says
  the figures that changed. The merge explorer's tree after one step is written to
  ``_build/screenshots/merge-axtree.txt``;
- a keyboard-only walk through the ``practice`` page: the Tab order (toolbar, then each
  cell's buttons and editor), Shift+Enter runs a cell and the status says how it ended,
  Escape then Tab leaves the editor, Enter on Check my work puts focus on the report;
- the practice page's rough edges (issue 29's list): no "null" in a report (1), a Stop
  during the re-run loses nothing and the re-run runs each cell's latest code once (2,
  3), printing is bounded like the grader's, with a note, and fast (4), failure messages
  keep their spaces (5), Open notebook reports a failed save (7), refuses a huge cell
  (8) and loads no markdown cell or non-text source into a code editor (9), the old
  report goes when a new check starts and stays gone when it is stopped (10), the
  toolbar is sticky on a large screen and "1 point" is singular (11).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time

import pytest

from test_browser import (CHROMEDRIVER, CHROMIUM, ENABLE, HAVE_SELENIUM, SHOTS, chromium,  # noqa: F401
                          html_dir, server)
from test_practice_browser import click, open_practice, set_cells, status, wait_js

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason=f"no chromium/chromedriver: `{ENABLE}` enables the browser test"),
    pytest.mark.skipif(not HAVE_SELENIUM, reason="selenium is not installed: `make setup` installs it"),
]


@pytest.fixture(scope="module")
def drv():
    profile = tempfile.mkdtemp(prefix="tokref-a11y-chrome-")
    d = chromium(profile, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1280,1000")
    d.set_script_timeout(300)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


# ---------------------------------------------------------------------------
# The accessibility tree
# ---------------------------------------------------------------------------


def ax_nodes(d, selector: str, role: str | None = None) -> list[dict]:
    """The accessibility nodes under the element ``selector`` (of ``role``, if given)."""
    doc = d.execute_cdp_cmd("DOM.getDocument", {"depth": 0})
    node = d.execute_cdp_cmd("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": selector})
    assert node["nodeId"], f"no element {selector}"
    params: dict = {"nodeId": node["nodeId"]}
    if role:
        params["role"] = role
    return [n for n in d.execute_cdp_cmd("Accessibility.queryAXTree", params)["nodes"] if not n.get("ignored")]


def name(n: dict) -> str:
    return (n.get("name") or {}).get("value", "")


def prop(n: dict, key: str):
    return next((p["value"].get("value") for p in n.get("properties", []) if p["name"] == key), None)


def spoken(d, selector: str) -> str:
    """The text of ``selector`` as a screen reader walks it: its static texts, joined."""
    return "".join(name(n) for n in ax_nodes(d, selector, "StaticText"))


def valuetext(d, root: str) -> str:
    """The slider's aria-valuetext (what a screen reader says for its value). Read from the
    DOM: Chromium's DevTools tree reports a native range input's number there instead."""
    return d.execute_script(f"return document.querySelector('{root} input[type=range]').getAttribute('aria-valuetext')")


def live_text(d, root: str) -> str:
    regions = ax_nodes(d, root, "status")
    assert len(regions) == 1, f"{root}: {len(regions)} status regions"
    assert prop(regions[0], "live") == "polite"
    return spoken(d, f"{root} .tokx-live")


def open_explorer(d, base: str, page: str, kind: str) -> str:
    d.get(f"{base}/{page}")
    wait_js(d, f"return !!document.querySelector('.tokx-{kind}.tokx-live')", 30)
    root = f".tokx-{kind}"
    d.execute_script(f"document.querySelector('{root}').scrollIntoView()")
    return root


def check_token_display(d, seg: str) -> None:
    """Every token heard with its id: as many " id N, " as tokens, in their order."""
    ids = d.execute_script("""const out = []; let last = null;
        for (const e of document.querySelector(arguments[0]).querySelectorAll('[data-t]')) {
          if (e.dataset.t !== last) { out.push(+e.dataset.id); last = e.dataset.t; } }
        return out;""", seg)
    said = spoken(d, seg)
    heard = [int(i) for i in re.findall(r"id (\d+),", said)]
    assert ids and heard == ids, (heard[:10], ids[:10], said[:200])
    # The display itself is not a live region: a step must not re-read it.
    assert not [n for n in ax_nodes(d, seg) if prop(n, "live") not in (None, "off")]


def test_merge_explorer_tree(drv, server):
    root = open_explorer(drv, server, "book/04_bpe.html", "merge")
    buttons = ax_nodes(drv, root, "button")
    assert len(buttons) == 3 and all(re.search(r"[a-z]{3}", name(b)) for b in buttons), [name(b) for b in buttons]
    play = next(b for b in buttons if "play" in name(b))
    assert prop(play, "pressed") == "false"
    slider = ax_nodes(drv, root, "slider")[0]
    k0 = drv.execute_script(f"return document.querySelector('{root}').tokx.k")
    assert re.fullmatch(r"merge [\d,]+ of [\d,]+", valuetext(drv, root)), slider
    drv.execute_script(f"[...document.querySelectorAll('{root} button')].find(b => /merge on/.test(b.getAttribute('aria-label'))).click()")
    time.sleep(0.9)  # the live region speaks once the control is still (500 ms)
    said = live_text(drv, root)
    n = drv.execute_script(f"return document.querySelector('{root} .tokx-stats').textContent.split(' ')[0]")
    assert said.startswith(f"Merge {k0 + 1:,} of ") and f"{n} tokens for" in said, said
    assert len(said) < 200, said
    check_token_display(drv, f"{root} .tokx-seg")
    slider = ax_nodes(drv, root, "slider")[0]
    assert valuetext(drv, root).startswith(f"merge {k0 + 1:,} of"), slider
    # The tree after one step, for the record (the closing note quotes it).
    lines = []
    for node in ax_nodes(drv, root):
        role = node.get("role", {}).get("value", "")
        if role in ("StaticText", "InlineTextBox", "generic", "none", "LineBreak"):
            continue
        extra = {p["name"]: p["value"].get("value") for p in node.get("properties", [])
                 if p["name"] in ("pressed", "live", "valuetext", "atomic")}
        value = (node.get("value") or {}).get("value")
        lines.append(f"{role} {name(node)!r}" + (f" value={value!r}" if value not in (None, "") else "")
                     + (f" {extra}" if extra else ""))
    lines.append(f"live region text: {said!r}")
    lines.append("token display, as heard (start): " + spoken(drv, f"{root} .tokx-seg")[:300])
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "merge-axtree.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_compare_explorer_tree(drv, server):
    root = open_explorer(drv, server, "book/index.html", "compare")
    names = [name(b) for b in ax_nodes(drv, root, "button")]
    assert names and all(n.startswith("sample ") for n in names), names
    assert name(ax_nodes(drv, root, "textbox")[0]) == "text to tokenize"
    drv.execute_script(f"""const ta = document.querySelector('{root} textarea');
        ta.value = 'low lower lowest'; ta.dispatchEvent(new Event('input'));""")
    time.sleep(0.9)
    said = live_text(drv, root)
    cards = drv.execute_script(f"return [...document.querySelectorAll('{root} .tokx-card')].map(c => [c.dataset.name, c.dataset.tokens])")
    for card, tokens in cards:
        if tokens:
            assert f"{card}: {int(tokens):,} tokens" in said, (card, said)
    check_token_display(drv, f"{root} .tokx-card .tokx-seg")


def test_tradeoff_explorer_tree(drv, server):
    root = open_explorer(drv, server, "book/01_why_tokenize.html", "tradeoff")
    slider = ax_nodes(drv, root, "slider")[0]
    assert name(slider) == "vocabulary size"
    assert re.fullmatch(r"[\d,]+ ids", valuetext(drv, root)), slider
    drv.find_element("css selector", f"{root} input[type=range]").send_keys("\ue014")  # ArrowRight
    time.sleep(0.9)
    said = live_text(drv, root)
    vocab = drv.execute_script(f"return +document.querySelector('{root} .tokx-meters').dataset.vocab")
    assert said.startswith(f"{vocab:,} ids: ") and "tokens" in said, said
    assert valuetext(drv, root) == f"{vocab:,} ids"
    check_token_display(drv, f"{root} .tokx-seg")


# ---------------------------------------------------------------------------
# The practice page with the keyboard only
# ---------------------------------------------------------------------------


def focused(d) -> str:
    return d.execute_script("""const e = document.activeElement;
        if (e.closest('.cm-editor')) return 'editor:' + e.getAttribute('aria-label');
        if (e.id) return e.tagName.toLowerCase() + '#' + e.id;
        return e.tagName.toLowerCase() + ':' + (e.getAttribute('aria-label') || e.textContent).trim().slice(0, 60);""")


def press(d, *keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    chain = ActionChains(d)
    for k in keys:
        chain.send_keys(k)
    chain.perform()


def test_keyboard_walk_through_a_practice_page(drv, server):
    from selenium.webdriver.common.keys import Keys

    open_practice(drv, server, "practice")
    drv.execute_script("localStorage.clear()")
    drv.execute_script("[...document.querySelectorAll('#tp-root button')][0].focus()")
    order = [focused(drv)]
    while not order[-1].startswith("editor:") and len(order) < 40:
        press(drv, Keys.TAB)
        order.append(focused(drv))
    # The toolbar in order (Stop is disabled, so skipped), then the first cells' buttons and editor.
    assert order[:5] == ["button:Run all", "button:Check my work", "button:Reset assignment",
                         "button:Download notebook", "button:Open notebook…"], order
    editor = next((i for i, f in enumerate(order) if f.startswith("editor:")), None)
    assert editor is not None, order
    assert "Solution code practice-chat" in order[editor] and "Shift+Enter runs it" in order[editor], order
    assert order[editor - 2:editor] == ["button:Run cell", "button:Reset cell"], order
    # Shift+Enter in the editor runs its cell; the status says how it ended.
    while not focused(drv).startswith("editor:"):
        press(drv, Keys.SHIFT + Keys.TAB)
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(drv).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
    wait_js(drv, "return document.getElementById('tp-status').textContent === 'Ran practice-chat'", 120)
    # Escape, then Tab: out of the editor (Tab alone indents).
    press(drv, Keys.ESCAPE, Keys.TAB)
    assert not focused(drv).startswith("editor:"), focused(drv)
    # Check my work from the keyboard: the report takes focus when it is ready.
    drv.execute_script("[...document.querySelectorAll('#tp-root button')].find(b => b.textContent === 'Check my work').focus()")
    press(drv, Keys.ENTER)
    wait_js(drv, "return !!TokPractice.page.lastReport", 300)
    wait_js(drv, "return document.activeElement.id === 'tp-report'", 5)
    report = drv.find_element("id", "tp-report").text
    assert not report.rstrip().endswith("null") and "null" not in report.split("\n")[-1], report[-200:]  # point 1
    assert "of 1 point)" in report or "of 1 point " in report or "point" in report  # point 11: "1 point"
    assert "of 1 points" not in report, report
    ws = drv.execute_script("const m = document.querySelector('.tp-report-message');"
                            "return m && getComputedStyle(m).whiteSpace")
    assert ws in (None, "pre-wrap"), ws  # point 5
    # Point 10: a new check hides the old report at once; stopping it leaves no score.
    # (A cell that sleeps keeps the check running long enough to be seen and stopped.)
    set_cells(drv, {"practice-chat": "import time\ntime.sleep(8)\n"})
    click(drv, "Check my work")
    assert drv.execute_script("return document.getElementById('tp-report').hidden")
    # Progress per part, and Stop ends the check.
    wait_js(drv, "return /Check my work: running cell \\d+ of \\d+, part \\d/.test("
                 "document.getElementById('tp-status').textContent)", 120)
    click(drv, "Stop")
    wait_js(drv, "return /Check my work stopped \\(no score\\)/.test(document.getElementById('tp-status').textContent)", 10)
    assert drv.execute_script("return document.getElementById('tp-report').hidden")
    # Point 11: the toolbar stays in view when the page is scrolled down.
    drv.execute_script("window.scrollTo(0, document.body.scrollHeight / 2)")
    top = drv.execute_script("return document.getElementById('tp-root').getBoundingClientRect().top")
    assert 0 <= top < 200, top
    drv.execute_script("localStorage.clear()")


def run_cell(d, grade_id: str) -> None:
    d.execute_script("TokPractice.page.cells.find(c => c.gradeId === arguments[0])"
                     ".el.querySelector('.tp-cell-buttons button').click()", grade_id)


def output(d, grade_id: str) -> str:
    return d.execute_script("return TokPractice.page.cells.find(c => c.gradeId === arguments[0]).output.textContent",
                            grade_id)


def test_stop_replays_each_cell_once_and_a_stop_during_it_loses_nothing(drv, server):
    open_practice(drv, server, "practice")
    drv.execute_script("localStorage.clear()")
    slow = "import time\ntry:\n    N += 1\nexcept NameError:\n    N = 1\ntime.sleep(2)\nA = 42\n"
    set_cells(drv, {"practice-chat": slow, "practice-pad": "while True: pass"})
    for _ in range(2):  # two runs of one cell: the re-run makes it once
        run_cell(drv, "practice-chat")
        wait_js(drv, "return !TokPractice.py.busy", 120)
    run_cell(drv, "practice-pad")
    time.sleep(1)
    click(drv, "Stop")
    wait_js(drv, "return /Running again the cells run before/.test(document.getElementById('tp-status').textContent)", 60)
    click(drv, "Stop")  # during the re-run (practice-chat sleeps 2 s)
    wait_js(drv, "return !TokPractice.py.busy", 30)
    set_cells(drv, {"practice-pad": "print(A, N)"})
    run_cell(drv, "practice-pad")
    wait_js(drv, "return !TokPractice.py.busy && TokPractice.page.cells.find(c => c.gradeId === 'practice-pad')"
                 ".output.textContent.length > 0", 60)
    assert output(drv, "practice-pad").strip() == "42 1", output(drv, "practice-pad")
    # Point 4: printing is bounded like the grader's, says so, and stays fast.
    set_cells(drv, {"practice-pad": "for i in range(200000):\n    print(i)"})
    start = time.monotonic()
    run_cell(drv, "practice-pad")
    wait_js(drv, "return !TokPractice.py.busy", 120)
    seconds = time.monotonic() - start
    out = output(drv, "practice-pad")
    assert "Output truncated" in out and out.count("\n") < 1100, out[-300:]
    print(f"\n200,000 printed lines: {seconds:.1f} s")
    assert seconds < 30
    drv.execute_script("localStorage.clear()")


def test_open_notebook_checks_what_it_loads(drv, server):
    open_practice(drv, server, "practice")
    drv.execute_script("localStorage.clear()")
    before = drv.execute_script("return Object.fromEntries(TokPractice.page.cells.filter(c => c.editor)"
                                ".map(c => [c.gradeId, c.editor.getValue()]))")

    def open_nb(cells: list[dict]) -> str:
        nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
        drv.execute_async_script("""const [text, done] = arguments;
            TokPractice.openNotebook(new File([text], 'mine.ipynb')).then(() => done());""", json.dumps(nb))
        return status(drv)

    def cell(kind: str, gid: str, source) -> dict:
        return {"cell_type": kind, "metadata": {"nbgrader": {"grade_id": gid}}, "source": source}

    # A full browser storage: the status says the loaded code is not kept (point 7).
    drv.execute_script("window._setItem = Storage.prototype.setItem; Storage.prototype.setItem = function () {"
                       "throw new DOMException('the quota has been exceeded', 'QuotaExceededError'); };")
    said = open_nb([cell("markdown", "practice-chat", "# notes"), cell("code", "practice-pad", [{"x": 1}]),
                    cell("code", "practice-pack", "def pack(docs, row_length, eot_id):\n    return []\n")])
    drv.execute_script("Storage.prototype.setItem = window._setItem;")
    now = drv.execute_script("return Object.fromEntries(TokPractice.page.cells.filter(c => c.editor)"
                             ".map(c => [c.gradeId, c.editor.getValue()]))")
    assert now["practice-pack"].startswith("def pack(docs, row_length, eot_id):\n    return []")
    assert now["practice-chat"] == before["practice-chat"] and now["practice-pad"] == before["practice-pad"]  # point 9
    assert "Loaded 1 cell from mine.ipynb" in said and "practice-chat, practice-pad" in said, said
    assert "could not be saved" in said and "Download notebook" in said, said
    # A cell of megabytes is refused at once (point 8).
    start = time.monotonic()
    said = open_nb([cell("code", "practice-pad", "x = 1\n" * 500_000)])
    assert time.monotonic() - start < 3 and "more than the 200,000" in said, said
    drv.execute_script("localStorage.clear()")
