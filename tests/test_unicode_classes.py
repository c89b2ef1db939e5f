"""The pre-tokenizer's character classes are tiktoken's on every code point, whatever
Unicode the installed ``regex`` carries (tokref/unicode_classes.py, Unicode 16.0.0).

Every code point 0..0x10FFFF is tested except the 2,048 surrogates U+D800..U+DFFF: a Rust
string (tiktoken's) cannot hold them, tiktoken replaces each by U+FFFD before matching, and
tokref's byte-level encoder does the same (tests/test_bytelevel.py), so no pattern ever sees
one. Assigned and unassigned code points alike: an unassigned one is in no class.

1. Each class (\\p{L}, \\p{N}, \\p{Lu}, \\p{Ll}, \\p{Lt}, \\p{Lm}, \\p{Lo}, \\p{M}, \\s) as
   tiktoken matches it (read off an encoding whose pattern is the class alone: tiktoken
   encodes only what the pattern matches) equals the frozen table, and the frozen class
   compiled by ``regex`` (``freeze_classes``) matches exactly those, in and out of ``[...]``.
2. The real cl100k_base and o200k_base give tiktoken's ids for every code point where the
   installed ``regex`` disagrees with tiktoken, in the contexts that tell a letter, a number,
   a mark, a case or a space apart, and for the issue's ``"\\u058c.x"``.
"""

from __future__ import annotations

import pytest
import regex
import tiktoken

from tokref.bytelevel import load_openai_encoding
from tokref.pretokenize import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    O200K_PATTERN,
    code_points,
    disputed_chars,
    freeze_classes,
    pieces_finder,
    regex_disagreements,
)
from tokref.unicode_classes import CLASSES, REGEX_DISAGREES, UNICODE_VERSION

EVERY = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
BYTE_RANKS = {bytes([b]): b for b in range(256)}


def tiktoken_members(pattern: str) -> str:
    """The characters of EVERY that ``pattern`` matches in tiktoken, one match each."""
    enc = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=BYTE_RANKS,
                            special_tokens={})
    return enc.decode_bytes(enc.encode_ordinary(EVERY)).decode("utf-8")


def test_unicode_version_is_stated():
    assert UNICODE_VERSION == "16.0.0"
    assert len(EVERY) == 0x110000 - 0x800


def ends(points: set[int]) -> str:
    """Both ends of every run of ``points`` and their outer neighbours, and every 64th
    point: where a wrongly written range would show (surrogates left out)."""
    picked = set()
    for c in points:
        if c - 1 not in points or c + 1 not in points:
            picked |= {c - 1, c, c + 1}
        elif c % 64 == 0:
            picked.add(c)
    return "".join(chr(c) for c in sorted(picked) if 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF)


BOUNDARIES = ends(set().union(*(code_points(ranges) for ranges in CLASSES.values())))


@pytest.mark.parametrize("name", list(CLASSES))
def test_class_is_tiktokens_on_every_code_point(name):
    """The table is tiktoken's class on every code point, and regex runs the frozen class
    as the table says (alone and inside a set, negated or not) at every range's ends."""
    theirs = tiktoken_members(name)
    table = code_points(CLASSES[name])
    assert sorted(table) == [ord(c) for c in theirs]
    probe = ends(table)
    members = "".join(c for c in probe if ord(c) in table)
    assert "".join(regex.findall(freeze_classes(name), probe)) == members
    assert "".join(regex.findall(freeze_classes(rf"[\x00{name}]"), probe)) == members
    others = "".join(c for c in probe if ord(c) not in table)
    assert "".join(regex.findall(freeze_classes(rf"[^{name}]"), probe)) == others
    upper = name.replace("p", "P") if name != r"\s" else r"\S"
    assert "".join(regex.findall(freeze_classes(upper), probe)) == others


def test_disputed_chars_are_where_regex_disagrees():
    """The recorded disagreements of this regex are what a scan finds, and none is ASCII
    (pieces_finder's ASCII path does not look for them)."""
    found = regex_disagreements()
    if regex.__version__ in REGEX_DISAGREES:
        assert found == code_points(REGEX_DISAGREES[regex.__version__])
    assert {ord(c) for c in disputed_chars()} == found
    assert min(found, default=0x80) >= 0x80
    assert "\u058c" in disputed_chars() or regex.__version__ != "2026.11.19"


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def real(request):
    enc = load_openai_encoding(request.param)
    tk = tiktoken.Encoding(f"ref_{enc.name}", pat_str=enc.pattern,
                           mergeable_ranks=enc.mergeable_ranks, special_tokens={})
    return enc, tk


def test_issue_reproduction(real):
    enc, tk = real
    ids = enc.encode_ordinary("\u058c.x")
    assert ids == tk.encode_ordinary("\u058c.x")
    assert [enc.decode([i]) for i in ids[-2:]] == [".", "x"]  # not ".x": U+058C is no letter
    if enc.name == "o200k_base":
        assert ids == [146, 234, 13, 87]  # the issue's figures


# Around each disputed code point c: a letter, a number, an upper/lower case letter, a
# mark, punctuation, spaces and newlines on either side, and the contraction suffix.
CONTEXTS = ["{}.x", "x{}", "a{}b", "A{}a", "{}A", "1{}2", " {}", "{} ", "\n{}\n",
            ".{}.", "{}'s", "e\u0301{}", "{}\u0301"]


def test_real_encodings_match_tiktoken_where_regex_disagrees(real):
    """The ends of every run of code points where regex disagrees with tiktoken (and every
    64th inside), in every context."""
    enc, tk = real
    disputed = ends({ord(c) for c in disputed_chars()})
    texts = ["".join(context.format(c) for c in disputed[i:i + 100])
             for context in CONTEXTS for i in range(0, len(disputed), 100)]
    got = [enc.encode_ordinary(text) for text in texts]
    assert got == tk.encode_ordinary_batch(texts)


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN],
                         ids=["gpt2", "cl100k", "o200k"])
def test_pieces_finder_cuts_as_the_frozen_pattern(pattern):
    """pieces_finder (regex's own classes where it agrees, the frozen pattern elsewhere)
    cuts as the frozen pattern at the ends of every class's runs."""
    find, frozen = pieces_finder(regex.compile(pattern)), regex.compile(freeze_classes(pattern))
    for context in ["{}.x", "A{}a", " {}"]:
        for i in range(0, len(BOUNDARIES), 500):
            text = "".join(context.format(c) for c in BOUNDARIES[i:i + 500])
            assert find(text) == frozen.findall(text), text
