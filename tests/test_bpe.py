"""tokref.bpe: Sennrich's character-level BPE with the end-of-word marker ``</w>``.

The low/lower/newest/widest example is worked out by hand to the last merge; training
runs are replayed by brute force (every pair recounted at every step); encoding is
checked against the segmentation training itself produced; Hypothesis checks the round
trip on whitespace-normalised text.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokref
from tokref import NotTrainedError, TokenizerFileError
from tokref.bpe import EOW, BPETokenizer, apply_merges, word_counts
from tokref.corpus import load_texts
from tokref.merges import count_pairs, merge_pair

PROPERTY = settings(max_examples=100, derandomize=True, deadline=None, database=None)

SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def replay(tok: BPETokenizer, counts: dict[str, int]) -> dict[str, list[str]]:
    """Recount every pair at every step of ``tok.trace`` and check the choice; return
    each training word's final segmentation (as piece strings)."""
    specials = list(tok.special_tokens)
    base = sorted({ch for w in counts for ch in w}) + [EOW]
    symbols = specials + base
    ids = {s: i for i, s in enumerate(symbols)}
    words: Counter[tuple[int, ...]] = Counter()
    for w, c in counts.items():
        words[(*(ids[ch] for ch in w), ids[EOW])] += c
    for i, step in enumerate(tok.trace):
        pc = count_pairs(words)
        top = max(pc.values())
        expected = max((p for p, c in pc.items() if c == top), key=lambda p: (symbols[p[0]], symbols[p[1]]))
        assert step.pair == expected, f"step {i}"
        assert step.count == top
        symbols.append(symbols[step.pair[0]] + symbols[step.pair[1]])
        nxt: Counter[tuple[int, ...]] = Counter()
        for w, c in words.items():
            nxt[tuple(merge_pair(w, step.pair, step.new_id))] += c
        words = nxt
    final = {"".join(symbols[i] for i in k): [symbols[i] for i in k] for k in words}
    return {w: final[w + EOW] for w in counts}


# ---------------------------------------------------------------------------
# The worked example, extended to the last merge
# ---------------------------------------------------------------------------


def test_sennrich_example_by_hand():
    # Words (with </w>): l o w </w> x5, l o w e r </w> x2, n e w e s t </w> x6,
    # w i d e s t </w> x3. Ids: <unk> 0, the 10 characters d e i l n o r s t w, </w>.
    #
    # Pair counts: (e,s) 9, (s,t) 9, (t,</w>) 9, (w,e) 8, (l,o) 7, (o,w) 7, (n,e) 6,
    # (e,w) 6, (w,</w>) 5, (w,i) 3, (i,d) 3, (d,e) 3, (e,r) 2, (r,</w>) 2.
    #  1. three-way tie at 9: the greatest first symbol is "t": (t, </w>).
    #  2. (e,s) 9 and (s,t</w>) 9: "s" > "e": (s, t</w>).
    #  3. (e, st</w>) 9.  Now newest = n e w est</w>, so (w,e) falls to 2 (lower only).
    #  4. (l,o) 7 and (o,w) 7: "o" > "l": (o, w).   5. (l, ow) 7.
    #  6. (n,e) 6, (e,w) 6, (w,est</w>) 6: "w" is greatest: (w, est</w>).
    #  7. (n,e) 6 and (e,west</w>) 6: "n" > "e": (n, e).   8. (ne, west</w>) 6.
    #  9. (low, </w>) 5.
    # 10. (w,i) 3, (i,d) 3, (d,est</w>) 3: "w": (w, i).  11. (wi, d).  12. (wid, est</w>).
    # 13. (low,e) 2, (e,r) 2, (r,</w>) 2: "r" > "low" > "e": (r, </w>).
    # 14. (low,e) 2 and (e,r</w>) 2: "low" > "e": (low, e).  15. (lowe, r</w>).
    # Then every word is one symbol and training stops, whatever vocab_size asked for.
    tok = BPETokenizer().train(SENNRICH, vocab_size=100, trace=True)
    assert [a + " " + b for a, b in tok.merges] == [
        "t </w>", "s t</w>", "e st</w>", "o w", "l ow",
        "w est</w>", "n e", "ne west</w>", "low </w>",
        "w i", "wi d", "wid est</w>", "r </w>", "low e", "lowe r</w>",
    ]  # fmt: skip
    assert [s.count for s in tok.trace] == [9, 9, 9, 7, 7, 6, 6, 6, 5, 3, 3, 3, 2, 2, 2]
    assert tok.vocab_size == 12 + 15
    assert list(tok.vocab)[:12] == ["<unk>", "d", "e", "i", "l", "n", "o", "r", "s", "t", "w", "</w>"]
    assert [s.new_id for s in tok.trace] == list(range(12, 27))
    for w in SENNRICH:
        assert tok.tokenize(w) == [w + EOW]
    replay(tok, SENNRICH)


def test_sennrich_example_doctest_and_unseen_words():
    tok = BPETokenizer().train(SENNRICH, vocab_size=17)  # 12 base ids + 5 merges
    assert [a + " " + b for a, b in tok.merges] == ["t </w>", "s t</w>", "e st</w>", "o w", "l ow"]
    assert tok.tokenize("lowest") == ["low", "est</w>"]
    assert tok.tokenize("newer") == ["n", "e", "w", "e", "r", "</w>"]
    assert tok.tokenize("slow") == ["s", "low", "</w>"]
    # 'x' was never seen: <unk>; the marker survives.
    assert tok.tokenize("lox") == ["l", "o", "<unk>", "</w>"]
    assert tok.decode(tok.encode("lowest low")) == "lowest low"
    full = BPETokenizer().train(SENNRICH, vocab_size=100)
    assert full.tokenize("lowest newer") == ["low", "est</w>", "ne", "w", "e", "r</w>"]


def test_word_end_and_word_inside_are_different_symbols():
    tok = BPETokenizer().train(SENNRICH, vocab_size=100)
    assert tok.token_to_id("low</w>") != tok.token_to_id("low")
    assert tok.tokenize("low lower") == ["low</w>", "lower</w>"]


# ---------------------------------------------------------------------------
# Brute force and the training segmentation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_merges", [0, 1, 40, 150])
def test_brute_force_on_shakespeare(n_merges):
    text = load_texts("train")[0][:15_000]
    counts = word_counts(text)
    tok = BPETokenizer().train(counts, vocab_size=len(set("".join(counts))) + 2 + n_merges, trace=True)
    assert len(tok.merges) == n_merges
    segs = replay(tok, counts)
    # Encoding a training word gives the segmentation training ended with.
    for w in list(counts)[:300]:
        assert tok.tokenize(w) == segs[w], w


@PROPERTY
@given(
    st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=6), st.integers(1, 5), min_size=1, max_size=8),
    st.integers(0, 30),
)
def test_brute_force_hypothesis(counts, n_merges):
    n_base = len(set("".join(counts))) + 2
    tok = BPETokenizer().train(counts, vocab_size=n_base + n_merges, trace=True)
    segs = replay(tok, counts)
    for w in counts:
        assert tok.tokenize(w) == segs[w]
        assert tok.decode(tok.encode(w)) == w
    if len(tok.merges) < n_merges:  # stopped early: every word is one symbol
        assert all(len(s) == 1 for s in segs.values())


# ---------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)


@PROPERTY
@given(TEXT, st.integers(0, 60))
def test_round_trip_whitespace_normalised(text, n_merges):
    # Decoding restores the words separated by single spaces.
    if not text.split():
        return
    n_base = len(set("".join(text.split()))) + 2
    tok = BPETokenizer().train(text, vocab_size=n_base + n_merges)
    assert tok.decode(tok.encode(text)) == " ".join(text.split())
    # Any text over the same characters round-trips too.
    other = " ".join(reversed(text.split()))
    assert tok.decode(tok.encode(other)) == " ".join(other.split())


@PROPERTY
@given(TEXT)
def test_offsets(text):
    tok = BPETokenizer().train("the cat sat on the mat, lower newest" + "\n" + text, vocab_size=80)
    toks = tok.encode_with_offsets(text)
    assert [t.id for t in toks] == tok.encode(text)
    # The pieces of each word cover exactly its characters.
    words = iter(text.split())
    rebuilt = []
    for t in toks:
        span = text[t.start : t.end]
        assert span == t.piece.removesuffix(EOW), (t, span)
        rebuilt.append(span)
        if t.piece.endswith(EOW):
            assert "".join(rebuilt) == next(words)
            rebuilt = []
    assert next(words, None) is None


def test_offsets_with_unknown_characters():
    tok = BPETokenizer().train("ab ab", vocab_size=20)
    text = "  aXb ab"
    toks = tok.encode_with_offsets(text)
    assert [(t.piece, t.start, t.end) for t in toks] == [
        ("a", 2, 3), ("<unk>", 3, 4), ("b</w>", 4, 5), ("ab</w>", 6, 8),
    ]  # fmt: skip


# ---------------------------------------------------------------------------
# apply_merges and word_counts
# ---------------------------------------------------------------------------


def test_apply_merges_lowest_rank_first_and_every_occurrence():
    ranks = {("a", "b"): 1, ("b", "c"): 0, ("a", "bc"): 2}
    # (b,c) has the lower rank, so it wins over (a,b) although (a,b) is leftmost.
    assert apply_merges(["a", "b", "c"], ranks) == ["abc"]
    assert apply_merges(["a", "b", "a", "b"], ranks) == ["ab", "ab"]
    assert apply_merges(["x"], ranks) == ["x"]
    assert apply_merges([], ranks) == []


def test_word_counts():
    assert word_counts(["a b\ta\n", "b  a"]) == Counter({"a": 3, "b": 2})
    with pytest.raises(TypeError):
        word_counts([b"a"])


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def test_save_load_round_trip(tmp_path):
    tok = BPETokenizer().train(load_texts("train")[1][:20_000], vocab_size=300, special_tokens=("<unk>", "<pad>"))
    path = tmp_path / "bpe.json"
    tok.save(path)
    back = tokref.load(path)
    assert type(back) is BPETokenizer
    assert back.merges == tok.merges and back.vocab == tok.vocab
    assert back.special_tokens == ("<unk>", "<pad>")
    text = load_texts("heldout")[0][:3_000]
    assert back.encode(text) == tok.encode(text)


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda c: c.update(merges=[["l", "o", "w"]]), "pairs"),
        (lambda c: c.update(merges=[["lo", "w"]]), "no earlier merge"),
        (lambda c: c.update(alphabet=["ab"]), "single characters"),
        (lambda c: c.update(alphabet=["a", "a"]), "repeated"),
        (lambda c: c.update(special_tokens=[""]), "empty string"),
        (lambda c: c.pop("alphabet"), "'alphabet'"),
    ],
)
def test_corrupt_files(tmp_path, mutate, match):
    tok = BPETokenizer().train(SENNRICH, vocab_size=17)
    data = tok.to_dict()
    mutate(data["config"])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TokenizerFileError, match=match):
        tokref.load(path)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_vocab_size_too_small():
    with pytest.raises(ValueError, match=r"vocab_size = 11 is too small: 1 special tokens and 11 base symbols.*need 12"):
        BPETokenizer().train(SENNRICH, vocab_size=11)
    with pytest.raises(TypeError, match="vocab_size must be int"):
        BPETokenizer().train(SENNRICH, vocab_size=20.0)


@pytest.mark.parametrize(
    "counts, match",
    [
        ({"a b": 1}, "without spaces"),
        ({"": 1}, "non-empty"),
        ({"a": 0}, "positive"),
        ({"a": True}, "positive"),
        ({}, "empty"),
    ],
)
def test_bad_word_counts(counts, match):
    with pytest.raises(ValueError, match=match):
        BPETokenizer().train(counts, vocab_size=50)


def test_bad_texts():
    with pytest.raises(TypeError, match="decode it first"):
        BPETokenizer().train(b"abc", vocab_size=50)
    with pytest.raises(ValueError, match="only whitespace"):
        BPETokenizer().train("   \n ", vocab_size=50)
    tok = BPETokenizer().train("abc", vocab_size=50)
    with pytest.raises(TypeError, match="text must be str"):
        tok.encode(["abc"])
    with pytest.raises(ValueError, match="is not a token id"):
        tok.decode([10_000])


def test_end_of_word_marker_in_training_text_is_refused():
    # A merge of the characters < / w > would make a piece that decodes as a word end.
    with pytest.raises(ValueError, match="end-of-word marker"):
        BPETokenizer().train("a</w>b c", vocab_size=60)
    with pytest.raises(ValueError, match="end-of-word marker"):
        BPETokenizer().train({"x</w>": 3}, vocab_size=60)
    with pytest.raises(ValueError, match="cannot be a special token"):
        BPETokenizer().train("abc", vocab_size=60, special_tokens=("<unk>", EOW))
    # Encoding such text with a tokenizer trained on other text still round-trips.
    tok = BPETokenizer().train("a<b a<b x/w> </ww>> </x", vocab_size=80)
    for text in ["x</w>", "</w></w>", "a</w>b"]:
        assert tok.decode(tok.encode(text)) == text


def test_no_unk_token():
    tok = BPETokenizer().train("ab", vocab_size=10, special_tokens=())
    assert tok.unk_id is None
    # (a,b) and (b,</w>) tie; ("b", "</w>") is greater, then (a, b</w>).
    assert tok.merges == [("b", "</w>"), ("a", "b</w>")]
    assert tok.tokenize("ab") == ["ab</w>"]
    with pytest.raises(ValueError, match="no '<unk>' token"):
        tok.encode("az")


def test_untrained():
    tok = BPETokenizer()
    for use in (lambda: tok.encode("a"), lambda: tok.decode([0]), lambda: tok.merges, lambda: tok.vocab):
        with pytest.raises(NotTrainedError, match="train"):
            use()


# ---------------------------------------------------------------------------
# The public surface: merge ids, base size, tie key, truncated(k)
# ---------------------------------------------------------------------------


def test_public_views_of_a_trained_tokenizer():
    tok = BPETokenizer().train(SENNRICH, vocab_size=17)
    assert tok.pieces == [tok.id_to_token(i) for i in range(tok.vocab_size)]
    assert tok.vocab == {p: i for i, p in enumerate(tok.pieces)}
    assert tok.unk_id == tok.token_to_id("<unk>") == 0 and tok.unk_token == "<unk>"
    assert tok.base_vocab_size == tok.token_to_id(EOW) + 1 == 1 + len(set("".join(SENNRICH))) + 1
    assert [(tok.pieces[a], tok.pieces[b]) for a, b, _ in tok.merge_ids] == tok.merges
    assert all(tok.pieces[new] == tok.pieces[a] + tok.pieces[b] for a, b, new in tok.merge_ids)
    assert tok.tie_key(tok.token_to_id("e")) == "e"
    pieces = tok.pieces
    pieces.append("mutated")  # a copy: the tokenizer is not changed
    assert tok.vocab_size == 17
    assert BPETokenizer().train("a b", vocab_size=5, special_tokens=()).unk_id is None


def test_clear_cache_changes_nothing_but_time():
    tok = BPETokenizer().train(SENNRICH, vocab_size=17)
    ids = tok.encode("lowest newer wider")
    tok.clear_cache()
    assert tok.encode("lowest newer wider") == ids


@pytest.mark.parametrize("k", [0, 1, 3, 10, 40])
def test_truncated_equals_a_tokenizer_trained_to_k_merges(k):
    texts = [load_texts("train")[0][:20_000]]
    big = BPETokenizer().train(texts, vocab_size=400, trace=True)
    n_base = big.base_vocab_size
    small = BPETokenizer().train(texts, vocab_size=n_base + k, trace=True)
    cut = big.truncated(k)
    assert cut.to_dict() == small.to_dict()
    assert cut.merges == big.merges[:k] == small.merges
    assert cut.trace == small.trace
    sample = load_texts("heldout")[0][:3_000]
    assert cut.encode(sample) == small.encode(sample)
    assert cut.truncated(k + 5).merges == cut.merges  # asking for more than it has
    assert big.merges == BPETokenizer().train(texts, vocab_size=400).merges  # big unchanged


def test_truncated_checks_its_argument():
    tok = BPETokenizer().train(SENNRICH, vocab_size=17)
    with pytest.raises(ValueError, match="n_merges must be >= 0"):
        tok.truncated(-1)
    with pytest.raises(TypeError, match="n_merges must be int"):
        tok.truncated(2.0)
    with pytest.raises(NotTrainedError):
        BPETokenizer().truncated(1)
