"""The reference functions that the hidden tests of the `bytelevel` (and `capstone`)
assignments compare students with, beyond the tokenizers themselves:

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

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokref.bytelevel import (
    GPT2_PATTERN,
    GPT2_PATTERN_STDLIB,
    ByteLevelBPETokenizer,
    split_special,
)
from tokref.corpus import load_text
from tokgrade.grading import random_texts

PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)


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
