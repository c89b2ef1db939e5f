"""tokref.explorer on the Python side: the data each static page inlines, the widget
face after a simulated slider change, the protocol, and a student-like tokenizer.

The JavaScript twins are checked against the same Python code in a real browser by
tests/test_browser.py. The JavaScript renderers (token views, pills, cards, the merge
explorer's step) are checked against the Python ones here with node, when it is
installed, and in Chromium by tests/test_browser.py.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from html import unescape

import pytest
import regex

import tokref
from tokref import CharTokenizer, WordTokenizer
from tokref import explorer as ex
from tokref.bpe import BPETokenizer
from tokref.bytelevel import CL100K_PATTERN, GPT2_PATTERN, ByteLevelBPETokenizer
from tokref.corpus import load_texts
from tokref.explorer import (
    CompareExplorer,
    MergeExplorer,
    SupportsMergeTrace,
    SupportsTokenize,
    TradeoffExplorer,
    js_regex,
)
from tokref.explorer.faces import asset, script
from tokref.explorer.jsregex import parse_ranges

SAMPLE = "To-morrow, and to-morrow, and to-morrow,\nCreeps in this petty pace.  A café 🙂\tend"


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return [t[:40_000] for t in load_texts("train")[:3]]


@pytest.fixture(scope="module")
def bpe(corpus):
    return BPETokenizer().train(corpus, vocab_size=400, trace=True)


@pytest.fixture(scope="module")
def bytelevel(corpus):
    return ByteLevelBPETokenizer().train(corpus, vocab_size=256 + 300, trace=True)


def ids_in_html(html: str) -> list[int]:
    """Token ids in the order the rendered segmentation shows them (one per token)."""
    seg = re.search(r'<div class="tokx-seg[^"]*">(.*?)</div>', html, re.S).group(1)
    out, last = [], None
    for t, i in re.findall(r'data-t="(-?\d+)" data-id="(\d+)"', seg):
        if t != last:
            out.append(int(i))
            last = t
    return out


def inlined_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="[^"]+">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


# ---------------------------------------------------------------------------
# The protocol
# ---------------------------------------------------------------------------


def test_tokref_tokenizers_implement_the_protocol(bpe, bytelevel, corpus):
    for tok in (CharTokenizer().train(corpus), WordTokenizer().train(corpus), bpe, bytelevel):
        assert isinstance(tok, SupportsTokenize)
    assert isinstance(bpe, SupportsMergeTrace) and isinstance(bytelevel, SupportsMergeTrace)
    assert not isinstance("a string", SupportsTokenize)


def test_objects_outside_the_protocol_are_refused_with_a_hint(corpus):
    class EncodeOnly:
        def encode(self, text):
            return [0]

    with pytest.raises(TypeError, match=r"decode\(\), id_to_token\(\)"):
        CompareExplorer({"x": EncodeOnly()})
    with pytest.raises(TypeError, match="not the class"):
        CompareExplorer([CharTokenizer])
    with pytest.raises(TypeError, match="trace=True"):
        MergeExplorer(BPETokenizer().train(corpus, vocab_size=120), "abc")


# ---------------------------------------------------------------------------
# The merge explorer
# ---------------------------------------------------------------------------


def test_merge_explorer_bpe_is_exactly_tokref_after_k_merges(bpe, corpus):
    e = MergeExplorer(bpe, SAMPLE, corpus=corpus)
    K = e.data["K"]
    assert K == len(bpe.merges)
    for k in range(K + 1):
        assert e.ids_at(k) == bpe.truncated(k).encode(SAMPLE), k
    # The spans are tokref's offsets.
    k = K // 2
    tokens = bpe.truncated(k).encode_with_offsets(SAMPLE)
    assert [t[:3] for t in e.tokens_at(k)] == [[t.id, t.start, t.end] for t in tokens]


def test_merge_explorer_bytelevel_is_exactly_tokref_after_k_merges(bytelevel, corpus):
    e = MergeExplorer(bytelevel, SAMPLE, corpus=corpus)
    assert e.data["mode"] == "bytes"
    for k in range(e.data["K"] + 1):
        assert e.ids_at(k) == bytelevel.truncated(k).encode(SAMPLE), k


@pytest.mark.parametrize("which", ["bpe", "bytelevel"])
def test_pair_counts_replayed_over_the_training_corpus_are_trainings(which, bpe, bytelevel, corpus):
    tok = bpe if which == "bpe" else bytelevel
    e = MergeExplorer(tok, SAMPLE, corpus=corpus, top_n=4)
    d = e.data
    assert d["consistent"]
    for step, top, merge in zip(tok.trace, d["tops"], d["merges"]):
        # The top row is the merged pair, with the count training saw.
        assert top[:3] == [merge[0], merge[1], step.count]
        assert merge[2] == step.count
        counts = top[2::3]
        assert counts == sorted(counts, reverse=True)
    # Tokens of the corpus fall by the merged pair's count at every step, unless the
    # pair is (x, x): overlapping occurrences count twice but merge once.
    totals = d["corpus_tokens"]
    for a, b, s in zip(totals, totals[1:], tok.trace):
        assert a - b == s.count if s.pair[0] != s.pair[1] else 0 < a - b <= s.count


def test_merge_explorer_counts_without_a_corpus_come_from_the_sample(bpe):
    e = MergeExplorer(bpe, SAMPLE, max_steps=50)
    assert e.data["K"] == 50 and e.data["corpus_tokens"] is None
    assert "sample" in e.data["tops_label"]
    assert e.data["sample_tokens"][0] > e.data["sample_tokens"][50]


def test_merge_explorer_html_inlines_its_data_and_code(bpe, corpus):
    e = MergeExplorer(bpe, SAMPLE, corpus=corpus, start=7)
    page = e.to_html()
    data = inlined_data(page)
    assert data == json.loads(json.dumps(e.data))  # everything, "<" escaped as \u003c
    assert data["names"][data["merges"][0][3]] == "".join(bpe.merges[0])
    assert "window.TokX" in page and ".tokx-t{" in page
    assert '<script type="application/json"' in page and "</script>" not in page.split("-data\">", 1)[1].split("</script>")[0]
    # Nothing to fetch: no src/href, no URL but the SVG namespace.
    assert not re.search(r"<[a-zA-Z]+[^<>]*\s(src|href)\s*=", page)
    assert set(re.findall(r"https?://[^\s\"'<>)]+", page)) <= {"http://www.w3.org/2000/svg"}
    # The page shows step 7 before any JavaScript runs.
    assert ids_in_html(page) == bpe.truncated(7).encode(SAMPLE)


def test_merge_explorer_widget_after_a_slider_change(bpe, corpus):
    e = MergeExplorer(bpe, SAMPLE, corpus=corpus, start=0)
    w = e.widget()
    assert w.slider.max == e.data["K"]
    assert "No merge yet" in w.view.value
    w.slider.value = 5
    assert "Merge 5:" in w.view.value
    assert ids_in_html(w.view.value) == bpe.truncated(5).encode(SAMPLE)
    # The pieces merge 5 made are outlined.
    a, b = bpe.merges[4]
    new_id = bpe.token_to_id(a + b)
    outlined = re.findall(r'class="tokx-t tokx-new"[^>]*data-id="(\d+)"', w.view.value.split('class="tokx-seg"')[1])
    assert set(map(int, outlined)) <= {new_id}
    # The +1 button moves the slider.
    w.children[1].children[3].click()
    assert w.slider.value == 6 and "Merge 6:" in w.view.value


def test_the_face_depends_on_the_frontend(bpe):
    e = MergeExplorer(bpe, SAMPLE, max_steps=20)
    bundle = e._repr_mimebundle_()  # no kernel here: the static face
    assert "text/html" in bundle and "application/vnd.jupyter.widget-view+json" not in bundle
    try:
        ex.set_mode("widget")
        bundle = e._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert bundle["text/plain"].startswith("MergeExplorer(")
        ex.set_mode("static")
        assert "text/html" in e._repr_mimebundle_()
    finally:
        ex.set_mode("auto")
    with pytest.raises(ValueError):
        ex.set_mode("sometimes")


def test_save_html_writes_a_standalone_page(bpe, tmp_path):
    path = tmp_path / "merges.html"
    MergeExplorer(bpe, SAMPLE, max_steps=30).save_html(path)
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "TokX.mount" in page


# ---------------------------------------------------------------------------
# A student's tokenizer: minbpe-style byte-level BPE, its own ids, no offsets
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    pair: tuple[int, int]
    count: int
    new_id: int


def merge(ids, pair, new):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


class StudentBPE:
    """Byte-level BPE on the whole text (no pre-tokenizer), like minbpe's BasicTokenizer."""

    def __init__(self, text: str, n_merges: int, *, with_bytes: bool = False) -> None:
        self.merges: dict[tuple[int, int], int] = {}
        self.vocab = {i: bytes([i]) for i in range(256)}
        self.trace: list[Step] = []
        ids = list(text.encode("utf-8"))
        for k in range(n_merges):
            counts = Counter(zip(ids, ids[1:]))
            pair = max(counts, key=lambda p: (counts[p], p))
            new = 256 + k
            self.trace.append(Step(pair, counts[pair], new))
            self.merges[pair] = new
            self.vocab[new] = self.vocab[pair[0]] + self.vocab[pair[1]]
            ids = merge(ids, pair, new)
        if with_bytes:
            self.decode_single_token_bytes = self.vocab.__getitem__

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str, n_merges: int | None = None) -> list[int]:
        limit = 256 + (len(self.merges) if n_merges is None else n_merges)
        ids = list(text.encode("utf-8"))
        while len(ids) >= 2:
            pair = min(zip(ids, ids[1:]), key=lambda p: self.merges.get(p, float("inf")))
            if self.merges.get(pair, limit) >= limit:
                break
            ids = merge(ids, pair, self.merges[pair])
        return ids

    def decode(self, ids: list[int]) -> str:
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")

    def id_to_token(self, id: int) -> str:
        return self.vocab[id].decode("utf-8", errors="replace")


@pytest.fixture(scope="module")
def student(corpus) -> StudentBPE:
    return StudentBPE(corpus[0][:6_000], 120)


@pytest.mark.parametrize("with_bytes", [False, True])
def test_merge_explorer_on_a_students_tokenizer(corpus, with_bytes):
    s = StudentBPE(corpus[0][:6_000], 120, with_bytes=with_bytes)
    assert isinstance(s, SupportsMergeTrace)
    e = MergeExplorer(s, SAMPLE, corpus=[corpus[0][:20_000]])
    assert e.data["mode"] == ("bytes" if with_bytes else "pieces")
    for k in range(e.data["K"] + 1):
        assert e.ids_at(k) == s.encode(SAMPLE, k), k
    totals = e.data["corpus_tokens"]
    assert totals[0] == len(corpus[0][:20_000].encode()) and totals[-1] == len(s.encode(corpus[0][:20_000]))
    w = e.widget()
    w.slider.value = 17
    assert ids_in_html(w.view.value) == s.encode(SAMPLE, 17)
    assert "TokX.mount" in e.to_html()


def test_compare_explorer_with_a_student_and_tokref(student, bytelevel, corpus):
    char = CharTokenizer().train(corpus)
    e = CompareExplorer({"characters": char, "student": student, "byte-level": bytelevel}, text="hello")
    by_name = {t["name"]: t for t in e.data["tokenizers"]}
    assert by_name["characters"]["engine"] == "char" and by_name["byte-level"]["engine"] == "bytelevel"
    # No JavaScript twin: precomputed for the text and the samples, and said so.
    pre = by_name["student"]["pre"]
    assert set(pre) == {"hello", *e.data["samples"]}
    assert [t[0] for t in pre["hello"]["toks"]] == student.encode("hello")
    assert "Python only" in by_name["student"]["description"]
    # The widget re-encodes any text in Python, for every tokenizer.
    w = e.widget()
    w.textarea.value = "A café, 🙂!"
    cards = re.findall(r'data-name="([^"]+)" data-tokens="(\d+)" data-chars="(\d+)"', w.view.value)
    assert cards == [("characters", str(len(char.encode("A café, 🙂!"))), "10"),
                     ("student", str(len(student.encode("A café, 🙂!"))), "10"),
                     ("byte-level", str(len(bytelevel.encode("A café, 🙂!"))), "10")]
    w.show_ids.value = True
    assert 'class="tokx-id"' in w.view.value


def test_compare_views_and_split_characters(bytelevel, corpus):
    word = WordTokenizer().train(corpus, vocab_size=300)
    e = CompareExplorer({"words": word, "bytes": bytelevel})
    views = e.views("The café's  end")
    assert views["words"]["mode"] == "chars"
    assert [t[0] for t in views["words"]["toks"]] == word.encode("The café's  end")
    assert views["bytes"]["mode"] == "bytes"
    # 'é' is two bytes no merge of an ASCII corpus joins: drawn once, bytes in hex below.
    html = e._render_cards("café")
    assert '<span class="tokx-split-ch">é</span>' in html
    assert ">C3<" in html and ">A9<" in html and "\ufffd" not in html
    # Whitespace is visible.
    assert "␣" in e._render_cards("a b") and "⏎" in e._render_cards("a\nb") and "⇥" in e._render_cards("a\tb")


def test_compare_html_inlines_each_tokenizers_js_data(bpe, bytelevel, corpus):
    char = CharTokenizer().train(corpus)
    word = WordTokenizer().train(corpus, vocab_size=500)
    e = CompareExplorer({"c": char, "w": word, "b": bpe, "bl": bytelevel})
    data = inlined_data(e.to_html())
    specs = {t["name"]: t for t in data["tokenizers"]}
    assert specs["c"]["pieces"] == char.pieces
    assert specs["w"]["pieces"] == word.pieces and "re" in specs["w"]
    assert len(specs["b"]["merges"]) == 3 * len(bpe.merges)
    assert len(specs["bl"]["merges"]) == 2 * len(bytelevel.merges)
    # The character classes of the regexes are inlined once, by name.
    names = set(re.findall(r"\{\{(\w+)\}\}", json.dumps(data)))
    assert names and names <= set(data["classes"])


# ---------------------------------------------------------------------------
# The trade-off explorer
# ---------------------------------------------------------------------------


def test_tradeoff_points_are_measured_tokenizers(bpe, corpus):
    heldout = load_texts("heldout")[0][:30_000]
    char = CharTokenizer().train(corpus)
    e = TradeoffExplorer(bpe, heldout, sample=SAMPLE, references={"character": char}, n_points=12)
    points = e.data["points"]
    assert points[0][2] == 0 and points[-1][2] == len(bpe.merges)
    for V, n, k in points:
        t = bpe.truncated(k)
        assert (V, n) == (t.vocab_size, tokref.measure(t, heldout).n_tokens)
    assert e.data["refs"] == [{"name": "character", "V": char.vocab_size, "n": len(char.encode(heldout))}]
    i = len(points) // 2
    assert [t[0] for t in e.sample_tokens_at(i)] == bpe.truncated(points[i][2]).encode(SAMPLE)
    w = e.widget()
    w.slider.value = i
    w.width.value = 256
    assert f"{points[i][1]:,} tokens" in w.view.value
    assert f"{points[i][0]:,} ids × 256 = {points[i][0] * 256:,}" in w.view.value
    assert inlined_data(e.to_html())["points"] == points


def test_tradeoff_from_a_list_of_student_tokenizers(corpus):
    text = corpus[0][:5_000]
    small, large = StudentBPE(text, 20), StudentBPE(text, 80)
    e = TradeoffExplorer([large, small], corpus[1][:3_000], sample="to be or not")
    assert [p[0] for p in e.data["points"]] == [276, 336]
    assert e.data["points"][1][1] == len(large.encode(corpus[1][:3_000]))
    assert [t[0] for t in e.sample_tokens_at(0)] == small.encode("to be or not")
    e2 = TradeoffExplorer(large, corpus[1][:3_000], n_points=8)  # traced: every prefix
    for V, n, k in e2.data["points"]:
        assert n == len(large.encode(corpus[1][:3_000], k))


# ---------------------------------------------------------------------------
# Python regexes for JavaScript
# ---------------------------------------------------------------------------


def test_js_regex_translates_possessive_case_insensitive_and_dollar():
    spec = js_regex(CL100K_PATTERN)
    src = spec["source"]
    assert "++" not in src and "?+" not in src and "(?i" not in src
    assert re.search(r"\(\?=\(.*?\)\)\\\d", src)  # atomic groups by lookahead + backreference
    assert "(?=\\n?$)" in src
    # (?i:[sdmt]) also takes the long s and the Kelvin sign, as the regex module does.
    assert "\\u{17F}" in src and "\\u{212A}" in js_regex(r"(?i:k)")["source"]
    # Classes are the engine's own: regex's \s leaves out U+001C, re's takes it.
    assert "\\u{1C}" not in js_regex(r"\s", "regex")["classes"]["regex_s"]
    assert "\\u{1C}" in js_regex(r"\s", "re")["classes"]["re_s"]


@pytest.mark.parametrize("pattern", [r"(a)\1", r"\bword\b", r"(?P<x>a)", r"[[:alpha:]]"])
def test_js_regex_refuses_what_it_cannot_translate(pattern):
    with pytest.raises(ValueError, match="cannot translate"):
        js_regex(pattern)


def test_js_regex_classes_cover_what_the_engine_matches():
    spec = js_regex(GPT2_PATTERN)
    letters = parse_ranges(spec["classes"]["regex_p_L"])
    rng = random.Random(1)
    for c in rng.sample(range(0x30000), 3_000):
        inside = any(a <= c <= b for a, b in letters)
        assert inside == bool(regex.match(r"\p{L}", chr(c))), hex(c)


def test_the_static_assets_ship_with_the_package():
    assert "window.TokX" in script()
    assert ".tokx{" in asset("tokx.css")
    page = CompareExplorer([CharTokenizer().train("abc")]).to_html()
    assert unescape(page).count("<style>") == 1


def test_the_page_gets_the_generated_bundle_of_the_explorer_modules():
    """static/tokx.js is esbuild's bundle of book/_web/src/explorer (ES modules), says so
    in its first line, publishes window.TokX once, and is what the sources make now."""
    from pathlib import Path

    from tokref.explorer import faces

    static = Path(faces.__file__).parent / "static"
    assert sorted(p.name for p in static.iterdir()) == ["tokx.css", "tokx.js"]
    js = script()
    first = js.splitlines()[0]
    assert first.startswith("// Generated by book/_web/build.mjs (esbuild) from book/_web/src/explorer")
    assert js.count("window.TokX={") == 1 and "</script" not in js
    root = Path(__file__).resolve().parents[1]
    web = root / "book" / "_web"
    if shutil.which("node") is None or not (web / "node_modules" / "esbuild").is_dir():
        pytest.skip("no node or no book/_web/node_modules (`make web`): the bundle's freshness is not checked")
    out = subprocess.run(["node", str(web / "build.mjs"), "--check"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


@pytest.mark.slow
def test_a_kernel_gives_the_widget_to_a_person_and_html_to_a_build():
    """A frontend executes with allow_stdin=True and gets the widget; nbclient (myst-nb,
    nbconvert) executes with allow_stdin=False and gets the static HTML, so no widget
    is created and no widget state is saved into the notebook."""
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    code = ("from tokref.bpe import BPETokenizer\nfrom tokref.explorer import MergeExplorer\n"
            "tok = BPETokenizer().train('low lower newest widest ' * 20, vocab_size=40, trace=True)\n"
            "MergeExplorer(tok, 'lowest newer')\n")
    try:
        faces = {}
        for allow in (True, False):
            msg_id = kc.execute(code, allow_stdin=allow)
            while True:
                m = kc.get_iopub_msg(timeout=120)
                if m["parent_header"].get("msg_id") != msg_id:
                    continue
                if m["msg_type"] in ("execute_result", "display_data"):
                    faces[allow] = set(m["content"]["data"])
                assert m["msg_type"] != "error", m["content"]
                if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                    break
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert "application/vnd.jupyter.widget-view+json" in faces[True] and "text/html" not in faces[True]
    assert "text/html" in faces[False] and "application/vnd.jupyter.widget-view+json" not in faces[False]


# ---------------------------------------------------------------------------
# The WordPiece and Unigram twins: their data, and the Python side of their views
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wordpiece(corpus):
    from tokref.wordpiece import WordPieceTokenizer

    return WordPieceTokenizer().train(corpus + ["Ça va? naïve 你好"], vocab_size=600, lowercase=False)


@pytest.fixture(scope="module")
def unigram(corpus):
    from tokref.unigram import UnigramTokenizer

    return UnigramTokenizer().train(corpus, vocab_size=600)


TWIN_TEXTS = ["", "   ", SAMPLE, "Ça va? 你好，世界！ Привет 🙂👍🏽 naïve ﬁne ①\u00a0x", "[MASK] x[UNK]y ▁▁a",
              "ｶﾞ e\u0301 \u0378\u0301 \U000e0001 \x00\x85\u200b" + "w" * 130]


def test_wordpiece_and_unigram_have_twins_with_their_data(wordpiece, unigram):
    from tokref.unigram import UnigramTokenizer
    from tokref.wordpiece import WordPieceTokenizer

    e = CompareExplorer({"wp": wordpiece, "ug": unigram})
    data = inlined_data(e.to_html())
    wp, ug = data["tokenizers"]
    assert wp["engine"] == "wordpiece" and wp["pieces"] == wordpiece.pieces and wp["unk"] == wordpiece.unk_id
    assert wp["max_piece"] == wordpiece.max_piece_chars and not wp["lowercase"] and not wp["strip_accents"]
    assert set(wp["tables"]) == {"removed", "punct", "cjk", "ws"}  # cased: no case or NFD data
    assert "[CLS]" in wp["description"]  # says that [CLS]/[SEP] are left out
    assert ug["engine"] == "unigram" and ug["pieces"] == [unigram.id_to_token(i) for i in range(unigram.vocab_size)]
    assert ug["scores"] == unigram.scores[ug["first"]:] and ug["unk_score"] == unigram.unk_score
    assert {"space", "unassigned", "joins", "probe"} <= set(ug["tables"])
    # An uncased WordPiece carries the lowercasing and NFD tables; a subclass has no twin.
    uncased = WordPieceTokenizer().train("Hello World", vocab_size=40)
    spec = inlined_data(CompareExplorer({"u": uncased}).to_html())["tokenizers"][0]
    assert {"lower", "nfd", "ccc", "mn"} <= set(spec["tables"])

    class MyUnigram(UnigramTokenizer):
        kind = ""  # not registered: tokref's files keep loading as UnigramTokenizer

    sub = MyUnigram()
    sub._from_config(unigram.to_dict()["config"])
    assert "engine" not in inlined_data(CompareExplorer({"s": sub}).to_html())["tokenizers"][0]


def test_wordpiece_and_unigram_views_are_tokrefs_ids(wordpiece, unigram):
    """Without [CLS]/[SEP] for WordPiece (encode_with_offsets), and for Unigram with
    spans the JavaScript twin can compute (NFKC segments, not grapheme clusters)."""
    e = CompareExplorer({"wp": wordpiece, "ug": unigram})
    for text in TWIN_TEXTS:
        views = e.views(text)
        assert [t[0] for t in views["wp"]["toks"]] == wordpiece.encode(text, add_special_tokens=False)
        assert [t[0] for t in views["ug"]["toks"]] == unigram.encode(text)
        assert views["wp"]["mode"] == views["ug"]["mode"] == "chars"
        for v in views.values():
            assert all(0 <= t[1] <= t[2] <= len(text) for t in v["toks"]), (text, v)
    # Where grapheme clusters and NFKC segments agree, the spans are tokref's own.
    text = "A café, ﬁne  day"
    assert e.views(text)["ug"]["toks"] == [[t.id, t.start, t.end, 0] for t in unigram.encode_with_offsets(text)]
    # Byte fallback: the bytes of a character no piece covers, drawn under it.
    assert '<span class="tokx-split-ch">🙂</span>' in e._render_cards("a🙂")


def test_nfkc_segments_normalize_independently():
    import unicodedata

    from tokref.explorer.twins import nfkc_segments, nfkc_sets, unigram_aligned

    _, joins = nfkc_sets()
    rng = random.Random(3)
    pool = ([chr(c) for c in sorted(joins)][::7] + list("aeAEoO ，。カｶﾞﾟ가각ᄀ\u1161\u11a8\u0301\u0308\u0323\u0345ſẛ")
            + ["\u0378", "\U0001faff", "\U000e0001", "ﬁ", "①", "\u00a0", "\x1c", "\u2028", "\u1e9b\u0323"])
    for _ in range(20_000):
        s = "".join(rng.choice(pool) for _ in range(rng.randint(0, 8)))
        segs = nfkc_segments(s)
        assert "".join(s[a:b] for a, b in segs) == s
        assert "".join(unicodedata.normalize("NFKC", s[a:b]) for a, b in segs) == unicodedata.normalize("NFKC", s), s
        norm, st, en = unigram_aligned(s, "nfkc")
        assert norm == " ".join(unicodedata.normalize("NFKC", s).split()) and len(st) == len(en) == len(norm)


# ---------------------------------------------------------------------------
# The JavaScript renderers draw what the Python renderers draw
#
# static/view.js, merge.js and compare.js draw the token views, pills, cards and the
# merge explorer's step as pure functions of the state to an HTML string, exposed as
# window.TokX.html; tokref.explorer.render & co. draw the same from the same state.
# render_cases() are states; both sides must give the same string. Node runs them
# here when it is installed; tests/test_browser.py runs them in Chromium.
# ---------------------------------------------------------------------------

# Runs the cases in JavaScript: [renderer, arguments] -> HTML; a label argument is a
# dict {id: label}, "#id" for the others.
RENDER_JS = """(cases) => {
  const H = window.TokX.html;
  const lab = (labels) => (i) => (Object.prototype.hasOwnProperty.call(labels, i) ? labels[i] : "#" + i);
  return cases.map(([fn, a]) => {
    switch (fn) {
      case "vis": return H.vis(a[0]);
      case "pill": return H.pill(a[0], a[1], a[2]);
      case "view": return H.view(a[0], a[1], lab(a[2]), a[3]);
      case "card": return H.card(a[0], a[1], a[2], a[3], a[4], lab(a[5]), a[6], a[7]);
      case "mergeInfo": return H.mergeInfo(a[0], a[1], a[2], a[3], lab(a[4]));
      case "mergeStats": return H.mergeStats(a[0], a[1], a[2]);
      case "pairRows": return H.pairRows(a[0], a[1], lab(a[2]));
    }
    throw new Error("no renderer " + fn);
  });
}"""

RENDER_TEXTS = [
    "", "a", "To-morrow, and to-morrow,\n\tCreeps  in\r\n", "The café's crème brûlée — naïve? <b>&amp;</b> \"'",
    "Ça va? 你好，世界！ Привет 🙂👍🏽 👩‍👩‍👧 ﬁne ①\u00a0x\u2003y\u3000z\x1c\x85\u2028", "e\u0301 \u0378 \ue000 \U000e0001 \x00\x7f",
    "<unk> </w> [UNK] [MASK] ▁ ▁▁a", "Wherefore" * 5 + " " + "x" * 120, "1/16 1/8 Zürich 3.14159",
]


def _labels(tok, toks) -> dict[str, str]:
    return {str(t[0]): tok.id_to_token(t[0]) for t in toks if t[0] >= 0}


@pytest.fixture(scope="module")
def render_cases(corpus) -> list[list]:
    return build_render_cases(corpus)


def build_render_cases(corpus: list[str]) -> list[list]:
    """States drawn by both renderers: every mode (chars, bytes, pieces), unknown
    tokens, byte fallback, gaps, visible whitespace, multi-byte characters and emoji,
    HTML to escape, ids shown and hidden, the merge just taken, and numbers that round
    on a tie (6.25 -> 6.2, 1.125 -> 1.12, as Python formats them)."""
    from tokref.explorer.tradeoff import view_as_pieces
    from tokref.explorer.twins import view
    from tokref.unigram import UnigramTokenizer
    from tokref.wordpiece import WordPieceTokenizer

    small = [t[:8_000] for t in corpus]
    toks = [
        CharTokenizer().train(small),
        WordTokenizer().train(small, vocab_size=300),
        BPETokenizer().train(small, vocab_size=200),
        ByteLevelBPETokenizer().train(small, vocab_size=256 + 60),
        WordPieceTokenizer().train(small, vocab_size=200, lowercase=False),
        UnigramTokenizer().train(small, vocab_size=400),
        UnigramTokenizer().train(small, vocab_size=200, byte_fallback=False),
    ]
    cases: list[list] = [["vis", [text]] for text in RENDER_TEXTS]
    for tok in toks:
        for text in RENDER_TEXTS:
            v = view(tok, text)
            labels = _labels(tok, v["toks"])
            for show_ids in (False, True):
                cases.append(["view", [v, text, labels, show_ids]])
            cases.append(["view", [view_as_pieces(v), text, labels, True]])
            n = len(v["toks"])
            for max_n in {max(1, n), 16 * max(1, n), n + 3}:
                cases.append(["card", [f"<{type(tok).__name__}> & co", "what it \"is\" · Python only", tok.vocab_size,
                                       v, text, labels, max_n % 2 == 0, max_n]])
    # Views made by hand: the merge just taken, the unknown token, a gap, a character
    # whose bytes two tokens share, the same span for several tokens, ids with no label.
    text = "aé🙂 b\n"
    hand = {"1": "a", "2": "é", "3": "\U0001f642", "4": " b", "5": "<0xC3>", "6": "<0xA9>", "7": "<unk>", "8": "'\"<&>"}
    for v in ({"mode": "bytes", "toks": [[1, 0, 2, 1], [2, 2, 3, 0], [3, 3, 9, 2], [4, 9, 11, 0]]},
              {"mode": "bytes", "toks": [[1, 0, 1, 0], [5, 1, 2, 1], [6, 2, 3, 0], [9, 3, 5, 2]]},
              {"mode": "chars", "toks": [[5, 1, 2, 1], [6, 1, 2, 0], [7, 2, 3, 2], [8, 3, 4, 0], [99, 5, 6, 0]]},
              {"mode": "chars", "toks": [[8, 0, 1, 1], [4, 4, 6, 0]]},
              {"mode": "chars", "toks": [[4, 0, 1, 0], [8, 0, 1, 1], [2, 1, 2, 0], [99, 1, 2, 0]]},
              {"mode": "pieces", "toks": [[8, 0, 1, 1], [7, 1, 2, 2], [-1, 2, 3, 0], [1234567, 3, 4, 3]]}):
        for show_ids in (False, True):
            cases.append(["view", [v, text, hand, show_ids]])
    for i in [*range(0, 400, 7), -1, 65535, 1234567]:
        cases.append(["pill", [i, hand.get(str(i % 9), f"piece {i}\t\n"), " tokx-new" if i % 2 else ""]])
    # The merge explorer's step, at every k of a small run, with the counts of its data.
    e = MergeExplorer(BPETokenizer().train(small, vocab_size=150, trace=True), SAMPLE, corpus=small)
    d = e.data
    names = {str(i): name for i, name in enumerate(d["names"])}
    for k in range(d["K"] + 1):
        made = sum(1 for t in e.tokens_at(k) if t[3] & 1)
        cases.append(["mergeInfo", [k, d["merges"][k - 1] if k else d["merges"][0], d["count_label"], made, names]])
        cases.append(["pairRows", [d["tops"][max(0, k - 1)], d["merges"][max(0, k - 1)], names]])
        cases.append(["mergeStats", [d["sample_tokens"][k], d["n_chars"], [d["corpus_chars"], d["corpus_tokens"][k]]]])
    for n, chars in [(8, 9), (16, 1), (3, 7), (1, 1_234_567), (7, 10)]:
        cases.append(["mergeStats", [n, chars, None]])
        cases.append(["mergeStats", [n, chars, [chars * 3, n * 2]]])
    cases.append(["pairRows", [[1, 2, 16, 3, 4, 1, 5, 6, 3, 7, 8, 10], [3, 4], hand]])
    cases.append(["pairRows", [[], [1, 2], hand]])
    return cases


def python_markup(case: list) -> str:
    """What tokref.explorer's Python renderers draw for one of the cases."""
    from tokref.explorer.compare import card
    from tokref.explorer.merge import merge_info, merge_stats, pair_rows
    from tokref.explorer.render import pill, render_view, vis

    def lab(labels: dict[str, str]):
        return lambda i: labels.get(str(i), f"#{i}")

    fn, a = case
    if fn == "vis":
        return vis(a[0])
    if fn == "pill":
        return pill(*a)
    if fn == "view":
        return render_view(a[0], a[1], lab(a[2]), a[3])
    if fn == "card":
        return card(a[0], a[1], a[2], a[3], a[4], lab(a[5]), a[6], a[7])
    if fn == "mergeInfo":
        return merge_info(a[0], a[1], a[2], a[3], lab(a[4]))
    if fn == "mergeStats":
        return merge_stats(*a)
    assert fn == "pairRows"
    return pair_rows(a[0], a[1], lab(a[2]))


def assert_same_markup(cases: list[list], got: list[str]) -> None:
    assert len(got) == len(cases)
    kinds = Counter()
    for case, js in zip(cases, got):
        assert js == python_markup(case), case
        kinds[case[0]] += 1
    assert set(kinds) == {"vis", "pill", "view", "card", "mergeInfo", "pairRows", "mergeStats"}


def test_render_cases_cover_every_mode_and_mark(render_cases):
    drawn = "".join(python_markup(c) for c in render_cases)
    modes = {c[1][0]["mode"] for c in render_cases if c[0] == "view"}
    assert modes == {"chars", "bytes", "pieces"}
    for mark in ("␣", "⏎", "⇥", "␍", "·", "tokx-unk", "tokx-new", "tokx-split", "tokx-gap", "tokx-sfx",
                 'class="tokx-id"', "&lt;b&gt;", "&#x27;", "🙂", "👍🏽", "你好", ">F0<", ">C3<",
                 'width:6.2%', "1.12 characters per token"):
        assert mark in drawn, mark


@pytest.mark.skipif(shutil.which("node") is None, reason="no node: tests/test_browser.py runs the renderers in Chromium")
def test_javascript_renderers_draw_what_python_draws_in_node(render_cases, tmp_path):
    harness = tmp_path / "render.js"
    harness.write_text(
        "globalThis.window = globalThis;\n" + script()
        + "\nconst cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        + f"process.stdout.write(JSON.stringify(({RENDER_JS})(cases)));\n", encoding="utf-8")
    out = subprocess.run(["node", str(harness)], input=json.dumps(render_cases), capture_output=True, text=True,
                         encoding="utf-8", timeout=120)
    assert out.returncode == 0, out.stderr
    assert_same_markup(render_cases, json.loads(out.stdout))
