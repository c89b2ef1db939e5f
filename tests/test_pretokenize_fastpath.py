"""The ASCII fast path of byte-level pre-tokenization gives exactly the pieces of the
`regex` original (tokref.pretokenize.ASCII_EQUIVALENTS)."""

from __future__ import annotations

import sys

import pytest
import regex
from hypothesis import given, settings, strategies as st

from tokref.bytelevel import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from tokref.pretokenize import ascii_equivalent, pieces_finder
from tokref.corpus import load_text

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="possessive quantifiers need 3.11")
PATTERNS = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}

# Every ASCII character, with the ones the patterns treat specially made likely.
ascii_text = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0, max_codepoint=127),
        st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x1f'sdmtlvreSDMTLVRE0123456789/_")),
    ),
    max_size=60,
)
ASCII_CASES = [
    "", " ", "  ", "a  b", "x\n\n  y", "trailing   ", "I'm we'LL they've DON'T",
    "1234567 3.14159 ", "def f(x):\n    return x**2\r\n", "__init__ a_b", "\x1c\x1d \x1f",
    "HTTPServer getURL iPhone", "a/b\n/c", "!!! ??? ...\n\n\n", "'s's 'S", "\t\t\n \x0b",
]


@pytest.mark.parametrize("name", PATTERNS)
@pytest.mark.parametrize("text", ASCII_CASES)
def test_known_cases(name: str, text: str) -> None:
    pattern = PATTERNS[name]
    assert ascii_equivalent(pattern).findall(text) == regex.findall(pattern, text)


@pytest.mark.parametrize("name", PATTERNS)
@settings(max_examples=300, derandomize=True, deadline=None, database=None)
@given(text=ascii_text)
def test_any_ascii_text(name: str, text: str) -> None:
    pattern = PATTERNS[name]
    assert ascii_equivalent(pattern).findall(text) == regex.findall(pattern, text)


@pytest.mark.parametrize("name", PATTERNS)
def test_corpus(name: str) -> None:
    text = load_text("heldout")
    assert text.isascii()
    assert ascii_equivalent(PATTERNS[name]).findall(text) == regex.findall(PATTERNS[name], text)


def test_non_ascii_text_takes_the_regex_path() -> None:
    findall = pieces_finder(regex.compile(GPT2_PATTERN))
    # \p{L} includes "é" and "ï"; the ASCII pattern would cut the words there.
    assert findall("café au lait") == ["café", " au", " lait"]
    assert findall("naïve x") == ["naïve", " x"]


def test_other_patterns_have_no_fast_path() -> None:
    assert ascii_equivalent(r"\w+|\s+") is None
