"""The book's explorers in a real browser: Debian's chromium, driven by selenium and
chromedriver, reading the built book from a local server.

For every page: the explorers are visible and started, the console has no error, and
no request goes to any host but 127.0.0.1 (every request Chrome makes for the page is
read from its performance log, i.e. the DevTools Network events). Then:

- the merge explorers of chapters 4 and 5: moving the slider to step k shows exactly
  the tokens tokref's own encoder gives with the page's first k merges;
- the comparison explorer of the preface: typing updates token and character counts
  that match tokref, and each JavaScript twin (char, word, BPE, byte-level BPE,
  WordPiece, Unigram) agrees with tokref's Python on hundreds of random strings, as do
  the translations of the GPT-2, cl100k_base, o200k_base and word patterns; so do the
  WordPiece and Unigram twins in their other settings (lowercasing and accent
  stripping; no byte fallback, identity normalization), run on the page with data
  made in the test;
- the trade-off explorer of chapter 1 moves with its slider and its width menu;
- on pages made by the test (no book needed), the JavaScript renderers give the Python
  renderers' markup character for character for the same states, and each explorer,
  once its JavaScript has run, shows what its widget face draws after the same move.

And the reader's book (issue 11): the sidebar toggle shows and hides the table of
contents at 1280 px and at 400 px; one search field, no extra top bar; every page with
math typesets it (mjx-container) with MathJax served by the site itself; at 1280 px no
code block needs a horizontal scroll bar and no table, output or figure sticks out of
the text column (with every folded cell opened).

Screenshots of each explorer, and of chapter 4 at 1280 px and 400 px with its table of
contents open, go to _build/screenshots/; the update times of the
2,000-merge explorers are printed. Without chromium and chromedriver the test is
skipped; `apt-get install -y chromium chromium-driver` enables it.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import regex

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("TOKREF_BOOK_HTML", ROOT / "_build" / "html"))
SHOTS = HTML.parent / "screenshots"
ENABLE = "apt-get install -y chromium chromium-driver"

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
CHROMEDRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason=f"no chromium/chromedriver: `{ENABLE}` enables the browser test"),
    pytest.mark.skipif(not HAVE_SELENIUM,
                       reason="selenium is not installed: `make setup` installs requirements.txt"),
]

def console_errors(entries: list[dict]) -> list[dict]:
    """Every error the console logged: none is allowed (the theme's two old ones, a
    Thebe script included twice and an empty colour mode, are fixed at their cause by
    book/_ext/tokbook.py and html_context.default_mode in _config.yml)."""
    return [e for e in entries if e["level"] in ("SEVERE", "ERROR")]


def _toc_pages() -> list[str]:
    """The pages of _toc.yml, as paths of the built site."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(entries: list) -> None:
        for e in entries or []:
            if "file" in e:
                files.append(e["file"])
            walk(e.get("chapters") or e.get("sections"))
            for part in e.get("parts") or []:
                walk(part.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [f"{f}.html" for f in files]


# Page -> number of explorers on it (None: any number, each must start).
EXPLORERS = {
    "book/index.html": 1,
    "book/01_why_tokenize.html": 1,
    "book/04_bpe.html": 1,
    "book/05_byte_level_bpe.html": 1,
}
PAGES = {page: EXPLORERS.get(page) for page in dict.fromkeys([*_toc_pages(), *EXPLORERS])}


# ---------------------------------------------------------------------------
# Fixtures: the book, a local server, a browser
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def html_dir() -> Path:
    if not (HTML / "index.html").exists():
        exe = ROOT / ".venv" / "bin" / "jupyter-book"
        cmd = [str(exe) if exe.exists() else "jupyter-book", "build", ".", "--warningiserror", "--keep-going"]
        result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
        assert result.returncode == 0, "the book did not build:\n" + result.stdout[-5000:] + result.stderr[-5000:]
    return HTML


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/favicon.ico":  # Chrome asks for it; the book has none
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="module")
def server(html_dir: Path):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(html_dir)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def chromium(profile: str, *extra: str):
    """Headless Debian chromium with a fresh profile, its console and network logged
    (without the background-networking flags it keeps calling Google's hosts)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", "--disable-default-apps", "--disable-extensions",
                f"--user-data-dir={profile}", "--force-device-scale-factor=1", *extra):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


@pytest.fixture(scope="module")
def driver():
    profile = tempfile.mkdtemp(prefix="tokx-chrome-")
    drv = chromium(profile, "--window-size=1280,1800")
    drv.set_script_timeout(120)
    drv.get("about:blank")  # leave the browser's own start page, and forget its requests
    drv.get_log("performance")
    drv.get_log("browser")
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def requested_urls(drv) -> list[str]:
    """Every URL the page requested since the last call (DevTools Network events)."""
    urls = []
    for entry in drv.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            p = msg["params"]
            urls.append(p["request"]["url"] if "request" in p else p["url"])
    return urls


def open_page(drv, base: str, page: str) -> dict:
    drv.get_log("performance")  # drop what came before
    drv.get_log("browser")
    drv.get(f"{base}/{page}")
    drv.execute_async_script(
        "const done = arguments[0];"
        "const ok = () => document.readyState === 'complete';"
        "(function wait(){ ok() ? setTimeout(done, 300) : setTimeout(wait, 50); })();")
    return {"urls": requested_urls(drv), "console": drv.get_log("browser")}


def explorer(drv, kind: str):
    return drv.find_element("css selector", f".tokx.tokx-{kind}")


def page_data(drv, el) -> dict:
    return drv.execute_script("return JSON.parse(document.getElementById(arguments[0].id + '-data').textContent)", el)


SEG_IDS = """
const seg = arguments[0].querySelector(arguments[1]);
const out = []; let last = null;
for (const e of seg.querySelectorAll('[data-t]')) {
  if (e.dataset.t !== last) { out.push(+e.dataset.id); last = e.dataset.t; }
}
return out;"""


def shoot(el, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    el.parent.execute_script("document.activeElement && document.activeElement.blur();"
                             "arguments[0].scrollIntoView({block: 'center'})", el)
    el.screenshot(str(path))
    return path


# ---------------------------------------------------------------------------
# Every page: offline, no console errors, explorers started
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_page_is_offline_clean_and_its_explorers_start(driver, server, page):
    load = open_page(driver, server, page)
    foreign = [u for u in load["urls"]
               if urlsplit(u).scheme not in ("data", "blob", "about") and urlsplit(u).hostname != "127.0.0.1"]
    assert not foreign, f"{page} requested other hosts: {foreign}"
    assert any(u.endswith(page) for u in load["urls"]), "the performance log saw no request at all"
    errors = console_errors(load["console"])
    assert not errors, f"console errors on {page}: {errors}"
    # No widget state was saved into the book, so no widget manager is loaded.
    assert "application/vnd.jupyter.widget" not in driver.page_source
    roots = driver.find_elements("css selector", ".tokx")
    if PAGES[page] is not None:
        assert len(roots) == PAGES[page]
    for root in roots:
        assert root.is_displayed() and root.size["height"] > 150
        assert "tokx-live" in root.get_attribute("class"), "the explorer's JavaScript did not start"


# ---------------------------------------------------------------------------
# The merge explorers
# ---------------------------------------------------------------------------


def tokenizer_from_page(data: dict):
    """tokref's tokenizer with the page's merges (``truncate(k)`` keeps the first k)."""
    from tokref.bpe import BPETokenizer
    from tokref.bytelevel import ByteLevelBPETokenizer

    src, names, merges = data["source"], data["names"], data["merges"]
    if src["type"] == "bpe":
        specials = names[: src["n_special"]]
        alphabet = names[src["n_special"]: src["n_base"] - 1]
        pairs = [[names[a], names[b]] for a, b, _, _ in merges]

        def truncate(k: int):
            return BPETokenizer.from_dict({"format": "tokref", "version": 1, "type": "bpe", "config": {
                "special_tokens": specials, "alphabet": alphabet, "merges": pairs[:k]}})
        return truncate
    assert src["type"] == "bytelevel"
    vocab = [bytes([i]) for i in range(256)]
    for a, b, _, new in merges:
        assert new == len(vocab)
        vocab.append(vocab[a] + vocab[b])
    pairs = [[vocab[a].hex(), vocab[b].hex()] for a, b, _, _ in merges]

    def truncate(k: int):
        return ByteLevelBPETokenizer.from_dict({"format": "tokref", "version": 1, "type": "bytelevel_bpe", "config": {
            "name": "page", "pattern": src["pattern"], "special_tokens": {}, "merges": pairs[:k], "ranks": None}})
    return truncate


@pytest.mark.parametrize("page", ["book/04_bpe.html", "book/05_byte_level_bpe.html"])
def test_merge_slider_shows_what_tokref_makes_with_k_merges(driver, server, page, capsys):
    open_page(driver, server, page)
    root = explorer(driver, "merge")
    data = page_data(driver, root)
    K, text = data["K"], data["text"]
    assert K >= 2000, "the book's merge explorers show at least 2,000 merges"
    truncate = tokenizer_from_page(data)
    slider = root.find_element("css selector", "input[type=range]")
    rng = random.Random(5)
    steps = [0, 1, 2, 3, 5, 10, 40, 100, 300, 1000, K - 1, K] + rng.sample(range(K), 12)
    for k in steps:
        driver.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", slider, k)
        shown = driver.execute_script(SEG_IDS, root, ".tokx-seg")
        assert shown == truncate(k).encode(text), f"step {k}"
        info = root.find_element("css selector", ".tokx-info").text
        if k:
            a, b, count, new = data["merges"][k - 1]
            assert f"Merge {k:,}:" in info and f"id {new}" in info and f"count {count:,}" in info
            first = root.find_elements("css selector", ".tokx-table tr")[1]
            assert "tokx-chosen" in (first.get_attribute("class") or "")
    # The keyboard moves the slider too.
    from selenium.webdriver.common.keys import Keys

    driver.execute_script("arguments[0].value = 40; arguments[0].dispatchEvent(new Event('input'))", slider)
    slider.send_keys(Keys.ARROW_RIGHT)
    assert driver.execute_script("return arguments[0].tokx.k", root) == 41
    assert driver.execute_script(SEG_IDS, root, ".tokx-seg") == truncate(41).encode(text)
    # Update times on the static page (printed, not asserted).
    script_ms, paint_ms = [], []
    for k in rng.sample(range(K + 1), 40):
        script_ms.append(driver.execute_script("arguments[0].tokx.set(arguments[1]); return arguments[0].tokx.lastUpdateMs", root, k))
        paint_ms.append(driver.execute_async_script(
            "const [root, k, done] = arguments; const t0 = performance.now(); root.tokx.set(k);"
            "requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0)));", root, k))
    with capsys.disabled():
        print(f"\n{page}: {K:,}-merge explorer, update over 40 random steps: script mean "
              f"{statistics.mean(script_ms):.1f} ms (max {max(script_ms):.1f}), to the next frame mean "
              f"{statistics.mean(paint_ms):.1f} ms (max {max(paint_ms):.1f})")
    driver.execute_script("arguments[0].tokx.set(60)", root)
    shoot(root, "merge_" + Path(page).stem)


def test_merge_explorer_plays(driver, server):
    open_page(driver, server, "book/04_bpe.html")
    root = explorer(driver, "merge")
    driver.execute_script("arguments[0].tokx.set(0)", root)
    root.find_element("css selector", ".tokx-btn").click()  # ▶
    time.sleep(0.8)
    k = driver.execute_script("return arguments[0].tokx.k", root)
    root.find_element("css selector", ".tokx-btn").click()  # pause
    assert k > 3
    assert console_errors(driver.get_log("browser")) == []


# ---------------------------------------------------------------------------
# The comparison explorer
# ---------------------------------------------------------------------------


def tokenizers_from_page(data: dict) -> dict:
    """tokref's Python tokenizers rebuilt from the data each JavaScript twin uses."""
    from tokref.base import Tokenizer
    from tokref.bpe import EOW
    from tokref.word import WORD_PATTERN

    out = {}
    for t in data["tokenizers"]:
        pieces = t.get("pieces")
        if t["engine"] == "char":
            n = next(i for i, p in enumerate(pieces) if len(p) == 1)
            config = {"special_tokens": pieces[:n], "chars": pieces[n:]}
            kind = "char"
        elif t["engine"] == "word":
            n = next(i for i, p in enumerate(pieces) if re.fullmatch(WORD_PATTERN, p))
            config = {"lowercase": t["lowercase"], "pattern": WORD_PATTERN, "special_tokens": pieces[:n],
                      "words": pieces[n:]}
            kind = "word"
        elif t["engine"] == "wordpiece":
            config = {"lowercase": t["lowercase"], "strip_accents": t["strip_accents"],
                      "continuing_subword_prefix": t["prefix"], "max_input_chars_per_word": t["max_chars"],
                      "special_tokens": t["specials"], "vocab": pieces, "merges": []}
            kind = "wordpiece"
        elif t["engine"] == "unigram":
            config = {"normalization": t["normalization"], "add_dummy_prefix": t["dummy_prefix"],
                      "split_by_whitespace": t["split"], "byte_fallback": t["byte_fallback"],
                      "special_tokens": pieces[:t["n_special"]],
                      "pieces": [[p, sc] for p, sc in zip(pieces[t["first"]:], t["scores"])]}
            kind = "unigram"
        elif t["engine"] == "bpe":
            n_base = pieces.index(EOW) + 1
            n = next(i for i, p in enumerate(pieces) if len(p) == 1)
            m = t["merges"]
            config = {"special_tokens": pieces[:n], "alphabet": pieces[n:n_base - 1],
                      "merges": [[pieces[m[i]], pieces[m[i + 1]]] for i in range(0, len(m), 3)]}
            kind = "bpe"
        else:
            vocab = [bytes([i]) for i in range(256)]
            m = t["merges"]
            hexes = []
            for i in range(0, len(m), 2):
                hexes.append([vocab[m[i]].hex(), vocab[m[i + 1]].hex()])
                vocab.append(vocab[m[i]] + vocab[m[i + 1]])
            from tokref.bytelevel import GPT2_PATTERN

            config = {"name": "page", "pattern": GPT2_PATTERN, "special_tokens": {}, "merges": hexes, "ranks": None}
            kind = "bytelevel_bpe"
        out[t["name"]] = Tokenizer.from_dict({"format": "tokref", "version": 1, "type": kind, "config": config})
    return out


def card_state(driver, root) -> dict:
    return driver.execute_script("""
const out = {};
for (const c of arguments[0].querySelectorAll('.tokx-card')) {
  const ids = []; let last = null;
  for (const e of c.querySelectorAll('.tokx-seg [data-t]')) { if (e.dataset.t !== last) { ids.push(+e.dataset.id); last = e.dataset.t; } }
  out[c.dataset.name] = {tokens: +c.dataset.tokens, chars: +c.dataset.chars, ids, stats: c.querySelector('.tokx-cardstats').textContent};
}
return out;""", root)


def plain_ids(tok, text: str) -> list[int]:
    """tokref's ids of ``text`` as the comparison shows them: WordPiece without [CLS]/[SEP],
    byte-level BPE with special tokens read as text."""
    kind = getattr(tok, "kind", "")
    if kind == "wordpiece":
        return tok.encode(text, add_special_tokens=False)
    if kind == "bytelevel_bpe" or type(tok).__name__ == "ByteLevelBPETokenizer":
        return tok.encode(text, disallowed_special=())
    return tok.encode(text)


# Random strings for the twins: ASCII, Latin accents (composed and not), CJK, Cyrillic,
# punctuation, emoji, whitespace and control characters, special tokens, characters
# that NFKC changes or composes, unassigned code points, long words.
TWIN_POOL = (list("abcdefghijklmnopqrstuvwxyzABCZ   \n\n\t\r.,;:!?'’\"-_()[]$%0123456789éüß—…ſKİı\u00a0\u2003\u3000\x1c\x85")
             + list("\x00\x7f\u200b\ufffd\u0301\u0308\u0323\u0345ΣΟΔÅǄẞ")
             + ["Thou", " thee", "'s", "'LL", "don't", "🙂", "👍🏽", "你好", "世界。", "Привет", "e\u0301", "  ", "1234567",
                "</w>", "[MASK]", "[UNK]", "<unk>", "▁", "ﬁ", "①", "ｶﾞ", "ﾊﾝｶｸ", "가", "ᄀ\u1161\u11a8", "\u0378",
                "\U000e0001", "\ue000", "\u1e9b\u0323", "\U0001d165\U0001d16d", "naïve", "Çà", "x" * 110,
                "Wherefore" * 4])


def random_texts(seed, n: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(TWIN_POOL) for _ in range(rng.randint(0, 24))) for _ in range(n)]


def test_typing_into_the_comparison_box_matches_tokref(driver, server):
    from selenium.webdriver.common.keys import Keys

    from tokref.explorer.twins import view

    open_page(driver, server, "book/index.html")
    root = explorer(driver, "compare")
    data = page_data(driver, root)
    assert {t["engine"] for t in data["tokenizers"]} == {"char", "word", "bpe", "bytelevel", "wordpiece", "unigram"}
    assert data["tokenizers"][3]["re"]["source"]  # byte-level's pattern is in the page
    toks = tokenizers_from_page(data)
    box = root.find_element("css selector", "textarea")

    def check(text: str) -> None:
        # A text box keeps line breaks as "\n" only (HTML normalises "\r\n").
        assert driver.execute_script("return arguments[0].value", box) == text.replace("\r\n", "\n")
        text = text.replace("\r\n", "\n")
        state = card_state(driver, root)
        for name, tok in toks.items():
            ids = plain_ids(tok, text)
            assert state[name]["ids"] == ids, (name, text)
            assert state[name]["tokens"] == len(ids) and state[name]["chars"] == len(text), (name, text)
            cpt = f"{len(text) / len(ids):.2f}" if ids else "–"
            assert state[name]["stats"] == f"{len(ids):,} tokens · {len(text):,} chars · {cpt} chars/token"

    # Real key presses (chromedriver types characters of the Basic Multilingual Plane).
    box.clear()
    # (No tab: in a text box the Tab key moves the focus, as it should.)
    typed = "Thou art more lovely, Zoë — and more temperate:\n  Rough winds do shake!"
    box.send_keys(typed)
    assert box.get_attribute("value") == typed
    check(typed)
    box.send_keys(Keys.BACK_SPACE * 3)
    check(typed[:-3])
    # Characters outside the BMP (and anything else) through the input event.
    for text in ["Ça va? 你好，世界！ Привет, мир! 🙂👍🏽 naïve café", "", "   ", "x\r\ny \t z\u00a0w",
                 "[MASK] ﬁne ①ｶﾞ e\u0301 ▁ " + "Wherefore" * 14]:
        driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", box, text)
        check(text)
    # A sample button, and the id toggle.
    root.find_elements("css selector", ".tokx-chip")[1].click()
    check(data["samples"][1])
    root.find_element("css selector", "input[type=checkbox]").click()
    assert root.find_elements("css selector", ".tokx-id")
    shoot(root, "compare_index")

    # Each JavaScript twin against tokref's Python on hundreds of random strings.
    texts = random_texts(11, 400)
    got = driver.execute_script(
        "const [d, texts] = arguments; return d.tokenizers.map(t => texts.map(x => TokX.encode(t, x, d.classes)));",
        data, texts)
    for spec, views in zip(data["tokenizers"], got):
        tok = toks[spec["name"]]
        for text, v in zip(texts, views):
            assert v == view(tok, text), (spec["name"], text)
            assert [t[0] for t in v["toks"]] == plain_ids(tok, text), (spec["name"], text)


def test_wordpiece_and_unigram_twins_in_their_other_settings(driver, server):
    """The book shows a cased WordPiece and an NFKC Unigram with byte fallback; these
    are the other branches of the twins: lowercasing and accent stripping (with their
    inlined tables), lowercasing alone, and Unigram without byte fallback (fused
    <unk>), with identity normalization and without the dummy prefix."""
    from tokref.corpus import load_texts
    from tokref.explorer import CompareExplorer
    from tokref.explorer.twins import view
    from tokref.unigram import UnigramTokenizer
    from tokref.wordpiece import WordPieceTokenizer

    corpus = [t[:50_000] for t in load_texts("train")[:2]] + ["Ça va? naïve crème brûlée ÀÉÎÕÜ İstanbul ΟΔΟΣ 你好世界 ﾊﾝｶｸ"]
    toks = {
        "uncased": WordPieceTokenizer().train(corpus, vocab_size=700),
        "lowercase only": WordPieceTokenizer().train(corpus, vocab_size=700, strip_accents=False),
        "unk": UnigramTokenizer().train(corpus, vocab_size=500, byte_fallback=False),
        "identity": UnigramTokenizer().train(corpus, vocab_size=500, normalization="identity",
                                             add_dummy_prefix=False, split_by_whitespace=False),
    }
    data = CompareExplorer(toks, text="x").data
    if "TokX" not in (driver.execute_script("return Object.keys(window).filter(k => k === 'TokX')") or []):
        open_page(driver, server, "book/index.html")
    texts = random_texts(12, 400)
    got = driver.execute_script(
        "const [d, texts] = arguments; return d.tokenizers.map(t => texts.map(x => TokX.encode(t, x, d.classes)));",
        data, texts)
    for (name, tok), views in zip(toks.items(), got):
        for text, v in zip(texts, views):
            assert v == view(tok, text), (name, text)
            assert [t[0] for t in v["toks"]] == plain_ids(tok, text), (name, text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "word", "gpt2_stdlib"])
def test_js_pretokenizers_match_python(driver, server, name):
    from tokref.bytelevel import CL100K_PATTERN, GPT2_PATTERN, GPT2_PATTERN_STDLIB, O200K_PATTERN
    from tokref.explorer import js_regex
    from tokref.word import WORD_PATTERN

    pattern, engine = {"gpt2": (GPT2_PATTERN, "regex"), "cl100k_base": (CL100K_PATTERN, "regex"),
                       "o200k_base": (O200K_PATTERN, "regex"), "word": (WORD_PATTERN, "re"),
                       "gpt2_stdlib": (GPT2_PATTERN_STDLIB, "re")}[name]
    mod = regex if engine == "regex" else re
    if "TokX" not in (driver.execute_script("return Object.keys(window).filter(k => k === 'TokX')") or []):
        open_page(driver, server, "book/index.html")
    rng = random.Random(name)
    pool = (list("aZé ſKkSsİıßǅʰ\n\r\t \u00a0\u2003\u3000\x1c\x1f\x85\u2028'’\"-_.,;:!?()[]{}$€0123456789²½٣७/")
            + ["e\u0301", "🙂", "👍🏽", "你好", "Привет", "ﬁ", "\ufeff", "x\u200dy", "'s", "'LL", "'Ve", "dON'T",
               "CamelCase", "HELLOworld", "   ", "\n\n", "12345678", "a/b/\n"])
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 30))) for _ in range(800)]
    texts += ["I've paid $1234567 for 3.14159 apples... HELLO  world!\n    x = f(y)", "  trailing  \n", "a\n", "\n", ""]
    spec = js_regex(pattern, engine)
    got = driver.execute_script(
        "const [spec, texts] = arguments; const re = TokX.compileRegex(spec);"
        "return texts.map(t => TokX.findall(re, t).map(m => [m[0], m[1], m[2]]));", spec, texts)
    for text, matches in zip(texts, got):
        want = [[m.start(), m.end(), m.group()] for m in mod.finditer(pattern, text)]
        assert matches == want, (name, text)


# ---------------------------------------------------------------------------
# The trade-off explorer
# ---------------------------------------------------------------------------


def test_tradeoff_explorer_follows_its_slider_and_width(driver, server):
    from selenium.webdriver.support.ui import Select

    open_page(driver, server, "book/01_why_tokenize.html")
    root = explorer(driver, "tradeoff")
    data = page_data(driver, root)
    slider = root.find_element("css selector", "input[type=range]")
    meters = root.find_element("css selector", ".tokx-meters")
    chars = next(r for r in data["refs"] if r["name"] == "character")
    for i in [0, len(data["points"]) // 3, len(data["points"]) - 1]:
        driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", slider, i)
        V, n, k = data["points"][i]
        assert int(meters.get_attribute("data-tokens")) == n and int(meters.get_attribute("data-vocab")) == V
        text = meters.text
        assert f"{n:,} tokens" in text and f"{V:,} ids × 768 = {V * 768:,}" in text
        assert f"({n / chars['n']:.3f})²" in text
    Select(root.find_element("css selector", "select")).select_by_value("2048")
    V = data["points"][-1][0]
    assert f"{V:,} ids × 2,048 = {V * 2048:,}" in meters.text
    driver.execute_script("arguments[0].tokx.set(arguments[0].tokx.i - 0)", root)
    assert console_errors(driver.get_log("browser")) == []
    start = data["start"]
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", slider, start)
    Select(root.find_element("css selector", "select")).select_by_value("768")
    shoot(root, "tradeoff_01_why_tokenize")


# ---------------------------------------------------------------------------
# The JavaScript renderers draw what the Python renderers draw (pages made here: these
# tests need no built book)
# ---------------------------------------------------------------------------

# Python's markup read back by the browser, as it reads the page's: [innerHTML of the
# first element matching each selector].
READ_BACK = """
const [html, selectors] = arguments;
const t = document.createElement("template");
t.innerHTML = html;
return selectors.map((s) => { const e = t.content.querySelector(s); return e ? e.innerHTML : null; });"""
SHOWN = "return arguments[1].map((s) => arguments[0].querySelector(s).innerHTML);"


def test_javascript_renderers_draw_what_python_draws(driver):
    """window.TokX.html gives, character for character, the markup of tokref.explorer's
    Python renderers for the same state (the cases of tests/test_explorer.py)."""
    from test_explorer import RENDER_JS, assert_same_markup, build_render_cases

    from tokref.corpus import load_texts
    from tokref.explorer.faces import script

    cases = build_render_cases([t[:40_000] for t in load_texts("train")[:3]])
    driver.get("about:blank")
    driver.execute_script(script())
    assert_same_markup(cases, driver.execute_script(f"return ({RENDER_JS})(arguments[0]);", cases))


def mounted(drv, explorer, path: Path):
    """Open ``explorer``'s standalone page; its root once the JavaScript has started."""
    explorer.save_html(path)
    drv.get(path.as_uri())
    root = drv.find_element("css selector", ".tokx")
    assert "tokx-live" in root.get_attribute("class"), "the explorer's JavaScript did not start"
    return root


def test_mounted_explorers_show_what_python_draws(driver, tmp_path):
    """The static face after its JavaScript has run shows what the widget face draws
    (its HTML after the same slider move or typing):
    the cards of the comparison for typed text (ids shown or not), the merge explorer's
    step (the merge, the sample, the counts, the table of pairs) and the trade-off's
    sample, at several positions of their sliders."""
    from test_explorer import RENDER_TEXTS, SAMPLE, StudentBPE

    from tokref import CharTokenizer, WordTokenizer
    from tokref.bpe import BPETokenizer
    from tokref.bytelevel import ByteLevelBPETokenizer
    from tokref.corpus import load_texts
    from tokref.explorer import CompareExplorer, MergeExplorer, TradeoffExplorer
    from tokref.unigram import UnigramTokenizer
    from tokref.wordpiece import WordPieceTokenizer

    corpus = [t[:20_000] for t in load_texts("train")[:3]]
    bpe = BPETokenizer().train(corpus, vocab_size=300, trace=True)
    bl = ByteLevelBPETokenizer().train(corpus, vocab_size=256 + 200, trace=True)
    e = CompareExplorer({"character": CharTokenizer().train(corpus), "word": WordTokenizer().train(corpus, vocab_size=500),
                         "BPE": bpe, "byte-level": bl, "WordPiece": WordPieceTokenizer().train(corpus, vocab_size=400),
                         "Unigram": UnigramTokenizer().train(corpus, vocab_size=400)})
    root = mounted(driver, e, tmp_path / "compare.html")
    w = e.widget()
    for text in RENDER_TEXTS:
        for show_ids in (False, True):
            typed = driver.execute_script(
                "const [root, text, ids] = arguments; root.querySelector('input[type=checkbox]').checked = ids;"
                "const ta = root.querySelector('textarea'); ta.value = text; ta.dispatchEvent(new Event('input'));"
                "return ta.value;", root, text, show_ids)
            w.textarea.value, w.show_ids.value = typed, show_ids
            want = driver.execute_script(READ_BACK, w.view.value, [".tokx-cards"])
            assert driver.execute_script(SHOWN, root, [".tokx-cards"]) == want, (text, show_ids)

    student = StudentBPE(corpus[0][:6_000], 60, with_bytes=True)
    parts = [".tokx-info", ".tokx-seg", ".tokx-stats", ".tokx-caption", ".tokx-table"]
    for name, m in {"bpe": MergeExplorer(bpe, SAMPLE, corpus=corpus),
                    "bytelevel": MergeExplorer(bl, SAMPLE + " Zürich — naïve? 🙂", corpus=corpus),
                    "student": MergeExplorer(student, SAMPLE),
                    "student-pieces": MergeExplorer(StudentBPE(corpus[0][:6_000], 60), SAMPLE)}.items():
        root = mounted(driver, m, tmp_path / f"merge-{name}.html")
        w = m.widget()
        K = m.data["K"]
        for k in sorted({0, 1, 2, 3, 5, 10, K // 2, K - 1, K}):
            driver.execute_script("arguments[0].tokx.set(arguments[1])", root, k)
            w.slider.value = k
            want = driver.execute_script(READ_BACK, w.view.value, parts)
            assert driver.execute_script(SHOWN, root, parts) == want, (name, k)

    parts = [".tokx-caption", ".tokx-seg"]
    for name, t in {"bpe": TradeoffExplorer(bpe, corpus[1][:5_000], sample=SAMPLE, n_points=12),
                    "list": TradeoffExplorer([bpe, bl, student], corpus[1][:5_000], sample=SAMPLE),
                    "student": TradeoffExplorer(student, corpus[1][:5_000], sample=SAMPLE + " 🙂", n_points=8)}.items():
        root = mounted(driver, t, tmp_path / f"tradeoff-{name}.html")
        w = t.widget()
        for i in range(len(t.data["points"])):
            driver.execute_script("arguments[0].tokx.set(arguments[1])", root, i)
            w.slider.value = i
            want = driver.execute_script(READ_BACK, w.view.value, parts)
            assert driver.execute_script(SHOWN, root, parts) == want, (name, i)
    assert console_errors(driver.get_log("browser")) == []


# ---------------------------------------------------------------------------
# The reader's book: navigation, math, width (issue 11)
# ---------------------------------------------------------------------------

CHAPTER_PAGES = [p for p in PAGES if re.search(r"book/0\d_", p)]
SHOT_PAGE = "book/04_bpe.html"  # the chapter whose screenshots are saved

# Where the primary sidebar (the table of contents) is, and whether a reader sees it.
SIDEBAR = """
const s = document.querySelector('#pst-primary-sidebar, .bd-sidebar-primary');
if (!s) return null;
const r = s.getBoundingClientRect(), cs = getComputedStyle(s);
return {left: r.left, right: r.right, width: r.width,
        shown: cs.visibility !== 'hidden' && cs.display !== 'none' && +cs.opacity > 0
               && r.width > 100 && r.right > 100 && r.left < innerWidth - 100};"""


def at_width(drv, width: int, height: int = 1800) -> None:
    """Resize the window so that the page is `width` CSS pixels wide (the resize is
    asynchronous, and a headless window may keep a minimum outer width: ask again)."""
    for _ in range(30):
        if drv.execute_script("return innerWidth") == width:
            return
        drv.set_window_size(width + drv.execute_script("return outerWidth - innerWidth"), height)
        time.sleep(0.1)
    assert drv.execute_script("return innerWidth") == width, "the window did not resize"


@pytest.fixture
def narrow_then_back(driver):
    yield driver
    at_width(driver, 1280)  # the other tests read pages at 1280 px


def visible_toggle(drv):
    toggles = [b for b in drv.find_elements("css selector", ".primary-toggle") if b.is_displayed()]
    assert len(toggles) == 1, f"{len(toggles)} visible sidebar toggles; want exactly one"
    return toggles[0]


def sidebar_after_click(drv, toggle) -> dict:
    toggle.click()
    time.sleep(0.6)  # the theme's slide transition
    return drv.execute_script(SIDEBAR)


@pytest.mark.parametrize("width", [1280, 400])
def test_sidebar_toggle_shows_and_hides_the_contents(narrow_then_back, server, width):
    """At 1280 px the table of contents is shown and the toggle hides it (and shows it
    again); at 400 px it is hidden and the toggle opens it. A screenshot of the chapter
    with the contents open is saved at each width."""
    drv = narrow_then_back
    at_width(drv, width)
    open_page(drv, server, SHOT_PAGE)
    before = drv.execute_script(SIDEBAR)
    assert before is not None, "no primary sidebar on the page"
    assert before["shown"] is (width >= 1280), (
        f"at {width} px the table of contents should start {'shown' if width >= 1280 else 'hidden'}: {before}")
    toggle = visible_toggle(drv)
    after = sidebar_after_click(drv, toggle)
    assert after["shown"] is not before["shown"], (
        f"clicking the sidebar toggle at {width} px changed nothing: before {before}, after {after}")
    if not after["shown"]:  # desktop: collapsed; a second click brings it back
        again = sidebar_after_click(drv, visible_toggle(drv))
        assert again["shown"], f"a second click at {width} px did not show the contents again: {again}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    drv.save_screenshot(str(SHOTS / f"chapter_{width}px_sidebar_open.png"))
    if width < 1280:  # the phone overlay closes again (a tap on the page beside it)
        overlay = drv.find_element("css selector", ".overlay-primary")
        drv.execute_script("arguments[0].click()", overlay)
        time.sleep(0.6)
        assert not drv.execute_script(SIDEBAR)["shown"], "the opened contents did not close"
    assert console_errors(drv.get_log("browser")) == []


def test_one_search_field(driver, server):
    """One search field on a chapter at 1280 px (the sidebar's), not a second top bar."""
    at_width(driver, 1280)
    open_page(driver, server, SHOT_PAGE)
    fields = [e for e in driver.find_elements(
        "css selector", "input[type=search], .search-button-field, .search-button__button")
        if e.is_displayed()]
    assert len(fields) == 1, f"{len(fields)} visible search fields/buttons: {[f.get_attribute('outerHTML')[:120] for f in fields]}"
    headers = [e for e in driver.find_elements("css selector", "header.bd-header, #pst-header, nav.bd-header")
               if e.is_displayed() and e.size["height"] > 0]
    assert not headers, "a top navigation bar is shown (it held only a second search box)"


def pages_with_math(html_dir: Path) -> list[str]:
    return [p for p in PAGES if 'class="math' in (html_dir / p).read_text(encoding="utf-8")]


def test_math_is_typeset_from_the_site(driver, server, html_dir):
    """Every page with math loads MathJax from the site (_static/mathjax) and typesets
    each formula (one mjx-container per math element); zero requests elsewhere."""
    pages = pages_with_math(html_dir)
    assert pages, "no page of the book has math ({math} directive or role)"
    for page in pages:
        load = open_page(driver, server, page)
        mathjax = [u for u in load["urls"] if "mathjax" in u.lower()]
        assert mathjax and all(urlsplit(u).hostname == "127.0.0.1" and "/_static/mathjax/" in u
                               for u in mathjax), f"{page}: MathJax not loaded from the site: {mathjax}"
        foreign = [u for u in load["urls"] if urlsplit(u).scheme in ("http", "https")
                   and urlsplit(u).hostname != "127.0.0.1"]
        assert not foreign, f"{page} requested other hosts: {foreign}"
        driver.execute_async_script(
            "const done = arguments[0]; const t0 = Date.now();"
            "(function wait(){ if (window.MathJax && MathJax.startup && MathJax.startup.promise)"
            "  MathJax.startup.promise.then(() => done(true));"
            " else if (Date.now() - t0 > 20000) done(false); else setTimeout(wait, 50); })();")
        counts = driver.execute_script(
            "return {math: document.querySelectorAll('div.math, span.math').length,"
            " typeset: document.querySelectorAll('mjx-container').length,"
            " errors: document.querySelectorAll('mjx-merror, [data-mjx-error]').length}")
        assert counts["math"] > 0 and counts["typeset"] >= counts["math"], f"{page}: math not typeset: {counts}"
        assert counts["errors"] == 0, f"{page}: MathJax reported {counts['errors']} TeX errors"
        assert console_errors(driver.get_log("browser")) == []


# Opens every folded cell (hide-input / hide-output) so hidden code is measured too.
UNFOLD = "document.querySelectorAll('details').forEach(d => d.open = true);"
OVERFLOW = """
const article = document.querySelector('article.bd-article') || document.querySelector('main');
const col = article.getBoundingClientRect();
const out = [];
const scrolls = (e) => { for (let p = e; p && p !== article; p = p.parentElement) {
  const ox = getComputedStyle(p).overflowX;
  if ((ox === 'auto' || ox === 'scroll') && p.getBoundingClientRect().right <= col.right + 1) return true; }
  return false; };
for (const pre of article.querySelectorAll('.cell_input pre, .cell_output pre, div.highlight pre')) {
  if (pre.scrollWidth > pre.clientWidth + 1) {
    const line = pre.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '');
    out.push({kind: 'code', width: pre.scrollWidth, box: pre.clientWidth, line: line.slice(0, 100)});
  }
}
for (const t of article.querySelectorAll('table')) {
  const r = t.getBoundingClientRect();
  if (r.width && r.right > col.right + 1 && !scrolls(t))
    out.push({kind: 'table', width: Math.round(r.width), column: Math.round(col.width),
              head: t.textContent.trim().slice(0, 80)});
}
for (const e of article.querySelectorAll('.cell_output, .cell_input, figure, img')) {
  const r = e.getBoundingClientRect();
  if (r.width && r.right > col.right + 1 && !scrolls(e))
    out.push({kind: e.tagName.toLowerCase() + '.' + e.className, right: Math.round(r.right), column: Math.round(col.right)});
}
return {column: Math.round(col.width), overflow: out};"""


@pytest.mark.parametrize("page", CHAPTER_PAGES)
def test_nothing_is_wider_than_the_text_column(driver, server, page):
    """At 1280 px, with every folded cell opened: no code block (cell input or output)
    needs horizontal scrolling (lines of at most 80 characters fit), and no table,
    output or figure sticks out of the text column unless it scrolls inside its own box."""
    at_width(driver, 1280)
    open_page(driver, server, page)
    driver.execute_script(UNFOLD)
    time.sleep(0.2)
    got = driver.execute_script(OVERFLOW)
    assert got["column"] >= 600, f"{page}: the text column is only {got['column']} px wide"
    assert not got["overflow"], (
        f"{page}: {len(got['overflow'])} blocks are wider than the {got['column']} px text column at "
        f"1280 px (the rule: code and printed lines of at most 80 characters): {got['overflow'][:8]}")


def test_screenshots_were_saved():
    if not SHOTS.exists():
        pytest.skip("no screenshots yet (run the whole module)")
    names = {p.name for p in SHOTS.glob("*.png")}
    assert {"merge_04_bpe.png", "merge_05_byte_level_bpe.png", "compare_index.png",
            "tradeoff_01_why_tokenize.png", "chapter_1280px_sidebar_open.png",
            "chapter_400px_sidebar_open.png"} <= names, names


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-s", "-q"]))
