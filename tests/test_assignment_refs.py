"""The reference functions that the hidden tests of the `bpe` and `bytelevel` assignments
compare students with, beyond the tokenizers themselves:

- ``tokref.merges.encode_with_merges`` and ``decode_with_merges`` (bpe, Parts 4 and 5):
  encoding by merge rank, minbpe's way. For merges learnt by ``train_merges`` it agrees
  with tiktoken's rule (the lowest-ranked *concatenation* first, what
  ``ByteLevelBPETokenizer`` does) on every text tried here, tie-heavy corpora included;
  for a hand-made rank table the two can differ, and one test shows how.
- ``tokref.bytelevel.GPT2_PATTERN_STDLIB`` (bytelevel, Part 3): GPT-2's pattern for the
  standard ``re`` module. It gives the same pieces as ``GPT2_PATTERN`` with ``regex``
  except on the characters listed in its comment, which are exactly the code points
  where the character classes of the two differ (checked for every code point).
- ``tokref.bytelevel.split_special`` (bytelevel, Part 4): the same cuts as
  ``ByteLevelBPETokenizer.encode(..., allowed_special="all")``.
"""

from __future__ import annotations

import random
import re
import sys
import unicodedata
from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokref.bytelevel import (
    GPT2_PATTERN,
    GPT2_PATTERN_STDLIB,
    ByteLevelBPETokenizer,
    bpe_encode_piece,
    split_special,
)
from tokref.corpus import load_text
from tokref.grading import random_corpus, random_texts
from tokref.merges import decode_with_merges, encode_with_merges, merge_pair, train_merges

PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)
BYTES = [bytes([i]) for i in range(256)]


def words_of(texts: list[str]) -> dict[tuple[int, ...], int]:
    """Whitespace-separated words as tuples of bytes, with their counts."""
    return dict(Counter(tuple(w.encode("utf-8")) for w in " ".join(texts).split()))


def random_training(seed: int) -> tuple[list[str], list[tuple[int, int]], list[bytes]]:
    """A seeded corpus (a third of them full of ties), the merges learnt from it (up to
    80) and the bytes of every id."""
    rng = random.Random(seed)
    if seed % 3 == 0:
        texts = random_texts(seed, n=rng.randint(1, 8), max_len=rng.choice([8, 20, 40]),
                             alphabet=rng.choice(["ab ", "aab ", "abc ", "abcd  "]))
    elif seed % 3 == 1:
        texts = random_texts(seed, n=rng.randint(1, 5))
    else:
        texts = random_corpus(seed, n_texts=rng.randint(1, 4))
    merges, symbols, _ = train_merges(words_of(texts), BYTES, rng.randint(0, 80))
    return texts, merges, symbols


# ---------------------------------------------------------------------------
# encode_with_merges
# ---------------------------------------------------------------------------


def minbpe_encode(ids: list[int], merges: list[tuple[int, int]]) -> list[int]:
    """minbpe's ``RegexTokenizer._encode_chunk``, verbatim in spirit: the pair of lowest
    merge index first, all its occurrences at once."""
    index = {p: k for k, p in enumerate(merges)}
    ids = list(ids)
    while len(ids) >= 2:
        stats = set(zip(ids, ids[1:]))
        pair = min(stats, key=lambda p: index.get(p, float("inf")))
        if pair not in index:
            break
        ids = merge_pair(ids, pair, 256 + index[pair])
    return ids


def apply_in_order(ids: list[int], merges: list[tuple[int, int]]) -> list[int]:
    """What training does to a word: merge 0 everywhere, then merge 1, and so on."""
    for k, pair in enumerate(merges):
        ids = merge_pair(ids, pair, 256 + k)
    return ids


def test_encode_with_merges_by_hand():
    a, b, c = 97, 98, 99
    assert encode_with_merges([a, a, a, b], [(a, a), (256, b)]) == [256, a, b]
    assert encode_with_merges([a, b, c], [(b, c), (a, b)]) == [a, 256]  # rank, not position
    assert encode_with_merges([a, b, c], [(a, b), (b, c)]) == [256, c]
    assert encode_with_merges([], [(a, b)]) == [] and encode_with_merges([a], []) == [a]
    # A pair listed twice keeps its first rank; first_id moves every new id.
    assert encode_with_merges([a, b], [(a, b), (a, b)]) == [256]
    assert encode_with_merges((a, b, a, b), [(a, b), (10, 10)], first_id=10) == [11]


@pytest.mark.parametrize("seed", range(150))
def test_encode_with_merges_replays_training_and_agrees_with_minbpe_and_tiktoken(seed):
    texts, merges, symbols = random_training(seed)
    ranks = {s: i for i, s in enumerate(symbols)}
    assert len(ranks) == len(symbols), "training made the same bytes twice"
    rng = random.Random(seed)
    samples = texts + random_texts(10_000 + seed, n=3) + [" ".join(texts)]
    samples += ["".join(rng.choice("ab c") for _ in range(rng.randint(0, 50)))]
    for text in samples:
        ids = list(text.encode("utf-8"))
        got = encode_with_merges(ids, merges)
        assert got == minbpe_encode(ids, merges) == apply_in_order(ids, merges)
        # tiktoken's rule on the same vocabulary: the lowest-ranked concatenation first.
        assert got == (bpe_encode_piece(bytes(ids), ranks) if ids else [])
        assert b"".join(symbols[i] for i in got) == bytes(ids)


@pytest.mark.parametrize("seed", range(40))
def test_encode_with_merges_is_bytelevel_bpe_without_pretokenization(seed):
    """With the pattern [\\s\\S]+ every text is one piece, so ByteLevelBPETokenizer
    (tiktoken's rule) must give the ids of encode_with_merges (the merges' rule)."""
    rng = random.Random(seed)
    texts = random_texts(seed, n=rng.randint(1, 6), alphabet=rng.choice([None, "ab ", "abc\n"]))
    tok = ByteLevelBPETokenizer().train(texts, vocab_size=256 + rng.randint(0, 60), pattern=r"[\s\S]+")
    ranks = tok.mergeable_ranks
    merges = [(ranks[a], ranks[b]) for a, b in tok.merges]
    for text in texts + random_texts(20_000 + seed, n=3):
        assert tok.encode(text) == encode_with_merges(list(text.encode("utf-8")), merges)


def test_the_two_rules_differ_on_a_hand_made_vocabulary():
    """Not a training result: "abc" made as (a, bc) although "ab" came first. The merge
    rule never joins (ab, c); tiktoken's rule does, since b"ab" + b"c" is a token."""
    a, b, c = 97, 98, 99
    merges = [(a, b), (b, c), (a, 257)]  # 256 = ab, 257 = bc, 258 = a + bc = abc
    ranks = {**{s: i for i, s in enumerate(BYTES)}, b"ab": 256, b"bc": 257, b"abc": 258}
    assert encode_with_merges([a, b, c], merges) == [256, c]
    assert bpe_encode_piece(b"abc", ranks) == [258]


def test_encode_with_merges_checks_its_input():
    with pytest.raises(TypeError, match="ids must be a list of int"):
        encode_with_merges(b"ab", [])
    with pytest.raises(TypeError, match="ids must hold int"):
        encode_with_merges([97, True], [])
    with pytest.raises(TypeError, match=r"merges\[0\] must be a pair of int"):
        encode_with_merges([97], [(97, 98, 99)])
    with pytest.raises(TypeError, match="merges must be a list"):
        encode_with_merges([97], {(97, 98): 0})
    with pytest.raises(TypeError, match="first_id must be int"):
        encode_with_merges([97], [], first_id=2.0)
    with pytest.raises(ValueError, match="first_id must be >= 0"):
        encode_with_merges([97], [], first_id=-1)


# ---------------------------------------------------------------------------
# decode_with_merges
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(60))
def test_decode_with_merges_inverts_encoding_and_replaces_cut_characters(seed):
    texts, merges, symbols = random_training(seed)
    for text in texts + random_texts(30_000 + seed, n=2):
        ids = encode_with_merges(list(text.encode("utf-8")), merges)
        assert decode_with_merges(ids, merges) == text
        for i in ids:  # one id alone: its bytes, invalid UTF-8 replaced
            assert decode_with_merges([i], merges) == symbols[i].decode("utf-8", errors="replace")


def test_decode_with_merges_by_hand_and_errors():
    merges = [(104, 105), (256, 33)]
    assert decode_with_merges([257, 32, 256], merges) == "hi! hi"
    assert decode_with_merges([], []) == ""
    assert decode_with_merges([0xE2, 0x82], []) == "\ufffd"  # two bytes of €: one U+FFFD
    with pytest.raises(ValueError, match="unknown id 258: the ids are 0..257"):
        decode_with_merges([258], merges)
    with pytest.raises(ValueError, match="unknown id -1"):
        decode_with_merges([-1], merges)
    with pytest.raises(ValueError, match="no earlier merge made"):
        decode_with_merges([97], [(97, 256)])
    with pytest.raises(TypeError, match="ids must hold int"):
        decode_with_merges(["a"], [])


# ---------------------------------------------------------------------------
# GPT2_PATTERN_STDLIB
# ---------------------------------------------------------------------------

ALL_CHARS = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)


def members(module, cls: str) -> set[int]:
    """The code points that the character class ``cls`` matches with ``module`` (re or regex)."""
    return {ord(m.group()) for m in module.finditer(cls, ALL_CHARS)}


def classes_differ() -> set[int]:
    """Code points whose class differs between the two patterns: letter, number,
    whitespace, or other (the classes every alternative of the patterns is made of;
    "other" is what is none of the three, plus "_" for the stdlib pattern)."""
    everything = {ord(ch) for ch in ALL_CHARS}
    letter, number, space = (members(regex, c) for c in (r"\p{L}", r"\p{N}", r"\s"))
    gpt2 = [letter, number, space, everything - letter - number - space]
    letter, number, space, word = (members(re, c) for c in (r"[^\W\d_]", r"\d", r"\s", r"\w"))
    stdlib = [letter, number, space, (everything - space - word) | {ord("_")}]
    return set().union(*(a ^ b for a, b in zip(gpt2, stdlib)))


def documented_differences() -> set[int]:
    """The characters listed in the comment of GPT2_PATTERN_STDLIB."""
    numerals = {ord(ch) for ch in ALL_CHARS if unicodedata.category(ch) in ("Nl", "No")}
    unassigned_here = {c for c in members(regex, r"[\p{L}\p{N}]") if unicodedata.category(chr(c)) == "Cn"}
    return numerals | {0x1C, 0x1D, 0x1E, 0x1F} | unassigned_here


def test_stdlib_pattern_classes_differ_exactly_where_documented():
    differ = classes_differ()
    assert differ == documented_differences()
    numerals = {ord(ch) for ch in ALL_CHARS if unicodedata.category(ch) in ("Nl", "No")}
    assert numerals <= differ and {0x1C, 0x1D, 0x1E, 0x1F} <= differ
    if unicodedata.unidata_version == "14.0.0":
        assert len(numerals) == 1131  # the number in the comment
    # Combining marks, other scripts' digits and "_" are not among them.
    assert not {0x301, 0x308, ord("٣"), ord("_"), ord("\xa0"), 0x85, 0x2028} & differ


def test_stdlib_pattern_gives_the_pieces_of_gpt2_pattern_on_the_corpus():
    text = load_text("all")
    assert re.findall(GPT2_PATTERN_STDLIB, text) == regex.findall(GPT2_PATTERN, text)


AGREEING = st.characters(
    exclude_categories=("Cs", "Nl", "No"), exclude_characters="\x1c\x1d\x1e\x1f"
).filter(lambda ch: not (unicodedata.category(ch) == "Cn" and regex.match(r"[\p{L}\p{N}]", ch)))
STRUCTURE = st.sampled_from(
    [" ", "  ", "\n", "\t", "\r\n", "\xa0", "\u3000", "'", "'s", "'ll", "'re", "'S", "_", "1",
     "٣", "a", "Z", "é", "e\u0301", ".", "!?", "😀", "中"]
)


@PROPERTY
@given(st.lists(st.one_of(STRUCTURE, AGREEING), max_size=25).map("".join))
def test_stdlib_pattern_agrees_on_every_text_without_the_documented_characters(text):
    assert re.findall(GPT2_PATTERN_STDLIB, text) == regex.findall(GPT2_PATTERN, text)


@pytest.mark.parametrize(
    "text, gpt2, stdlib",
    [
        ("x² 1½", ["x", "²", " 1½"], ["x²", " 1", "½"]),
        ("Ⅻ1", ["Ⅻ1"], ["Ⅻ", "1"]),
        ("a\x1c\x1cb", ["a", "\x1c\x1c", "b"], ["a", "\x1c", "\x1c", "b"]),
    ],
)
def test_stdlib_pattern_differs_on_the_documented_characters(text, gpt2, stdlib):
    assert regex.findall(GPT2_PATTERN, text) == gpt2
    assert re.findall(GPT2_PATTERN_STDLIB, text) == stdlib


# ---------------------------------------------------------------------------
# split_special
# ---------------------------------------------------------------------------


def test_split_special_by_hand():
    assert split_special("xabcd", ["ab", "abc", "bcd"]) == [("x", False), ("abc", True), ("d", False)]
    assert split_special("xabcd", ["bcd", "ab"]) == [("x", False), ("ab", True), ("cd", False)]
    assert split_special("aaaaa", {"aa": 1, "aaa": 2}) == [("aaa", True), ("aa", True)]
    assert split_special("<s><s>", ("<s>",)) == [("<s>", True), ("<s>", True)]
    assert split_special("", []) == [] and split_special("abc", set()) == [("abc", False)]


def test_split_special_checks_its_input():
    with pytest.raises(TypeError, match="text must be str"):
        split_special(b"abc", [])
    with pytest.raises(TypeError, match="special_tokens must be a collection of str"):
        split_special("abc", "<s>")
    with pytest.raises(TypeError, match="special tokens must be str"):
        split_special("abc", [b"<s>"])
    with pytest.raises(ValueError, match="cannot be the empty string"):
        split_special("abc", ["<s>", ""])


SPECIAL_SETS = [("<|endoftext|>",), ("ab", "abc", "bcd"), ("<|a|>", "<|a|>b", "|>"), ("a",), ("aa", "aaa")]


@PROPERTY
@given(st.sampled_from(SPECIAL_SETS), st.lists(st.sampled_from(list("abcd <|>x")), max_size=30).map("".join))
def test_split_special_chunks_join_to_the_text_and_are_cut_leftmost_longest(specials, text):
    chunks = split_special(text, specials)
    assert "".join(c for c, _ in chunks) == text
    assert all(c for c, _ in chunks)
    pos = 0
    for chunk, special in chunks:
        starts = [t for t in specials if text.startswith(t, pos)]
        if special:
            assert chunk == max(starts, key=len)  # the longest of those starting here
        else:  # no special token starts anywhere inside a text chunk
            assert not any(text.startswith(t, p) for t in specials for p in range(pos, pos + len(chunk)))
        pos += len(chunk)


@pytest.mark.parametrize("seed", range(40))
def test_split_special_cuts_as_the_tokenizer_does(seed):
    rng = random.Random(seed)
    specials = SPECIAL_SETS[seed % len(SPECIAL_SETS)]
    texts = random_texts(seed, n=4, alphabet="abcd <|>")
    tok = ByteLevelBPETokenizer().train(texts, vocab_size=256 + len(specials) + 30, special_tokens=specials)
    ids_of = tok.special_tokens_map
    for _ in range(5):
        text = "".join(t + rng.choice(specials) for t in rng.sample(texts, 3))
        expected = tok.encode(text, allowed_special="all")
        got = []
        for chunk, special in split_special(text, specials):
            got.extend([ids_of[chunk]] if special else tok.encode_ordinary(chunk))
        assert got == expected
