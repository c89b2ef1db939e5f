"""Pre-tokenization for byte-level BPE: the regex patterns of GPT-2, GPT-4 (cl100k_base)
and GPT-4o (o200k_base), a fast way to run them, and the pre-token counts training uses.

A pre-tokenizer cuts text into *pieces*; BPE merges never cross a piece boundary. The
patterns are tiktoken's, and the pieces are their whole matches, found left to right:

>>> import regex
>>> regex.findall(GPT2_PATTERN, "Hello, world!  It's 2024")
['Hello', ',', ' world', '!', ' ', ' It', "'s", ' 2024']
>>> regex.findall(CL100K_PATTERN, "Hello, world!  It's 2024")
['Hello', ',', ' world', '!', ' ', ' It', "'s", ' ', '202', '4']

Every name here is also importable from :mod:`tokref.bytelevel`.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from typing import Literal

import regex

from .checks import specials_pattern

__all__ = [
    "GPT2_PATTERN",
    "CL100K_PATTERN",
    "O200K_PATTERN",
    "GPT2_PATTERN_STDLIB",
    "count_pretokens",
    "pieces_finder",
    "ascii_equivalent",
    "allowed_specials",
]

# The pre-tokenization patterns, copied verbatim from tiktoken 0.14.0
# (tiktoken_ext/openai_public.py: r50k_pat_str, cl100k_base, o200k_base).
# GPT2_PATTERN is tiktoken's r50k/gpt2 pattern, equivalent to the one in GPT-2's encoder.py:
# 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
GPT2_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


# ---------------------------------------------------------------------------------------
# The ASCII fast path
# ---------------------------------------------------------------------------------------

# The three OpenAI patterns restricted to ASCII text, for the standard `re` engine, which
# runs them 2-4 times faster than `regex` runs the Unicode originals. On ASCII text
# \p{L} is [A-Za-z], \p{N} is [0-9], \p{Lu}/\p{Ll} are [A-Z]/[a-z], \p{Lt}, \p{Lm},
# \p{Lo}, \p{M} match nothing, and \s is the six ASCII characters of Unicode's
# White_Space (`re`'s own \s would add \x1c-\x1f). Possessive quantifiers need
# Python 3.11. tests/test_pretokenize_fastpath.py checks each against the original on
# ASCII text.
_WS = r"\t\n\x0b\x0c\r "
ASCII_EQUIVALENTS: dict[str, str] = {
    GPT2_PATTERN: rf"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]++| ?[0-9]++| ?[^{_WS}A-Za-z0-9]++|[{_WS}]++$|[{_WS}]+(?![^{_WS}])|[{_WS}]""",
    CL100K_PATTERN: rf"""'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+| ?[^{_WS}A-Za-z0-9]++[\r\n]*+|[{_WS}]++$|[{_WS}]*[\r\n]|[{_WS}]+(?![^{_WS}])|[{_WS}]""",
    O200K_PATTERN: "|".join(
        [
            r"""[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[0-9]{1,3}""",
            rf""" ?[^{_WS}A-Za-z0-9]+[\r\n/]*""",
            rf"""[{_WS}]*[\r\n]+""",
            rf"""[{_WS}]+(?![^{_WS}])""",
            rf"""[{_WS}]+""",
        ]
    ),
}


def ascii_equivalent(pattern: str) -> re.Pattern[str] | None:
    """A standard-library ``re`` pattern that finds the same pieces as ``pattern`` on
    ASCII text, if ``pattern`` is one of the three OpenAI patterns (and Python has
    possessive quantifiers, 3.11+); ``None`` otherwise.

    >>> fast = ascii_equivalent(GPT2_PATTERN)  # None on Python 3.10
    >>> (fast or regex.compile(GPT2_PATTERN)).findall("It's 42!")
    ['It', "'s", ' 42', '!']
    >>> ascii_equivalent(r"\\w+") is None
    True
    """
    if sys.version_info < (3, 11) or pattern not in ASCII_EQUIVALENTS:
        return None
    return re.compile(ASCII_EQUIVALENTS[pattern], re.ASCII)


def pieces_finder(pattern: regex.Pattern[str]) -> Callable[[str], list[str]]:
    """``pattern.findall``, but always returning whole matches (as tiktoken does), even
    when the pattern has capture groups (``findall`` would return the groups); for the
    OpenAI patterns, ASCII text goes to an equivalent, faster ``re`` pattern
    (:func:`ascii_equivalent`).

    >>> find = pieces_finder(regex.compile(r"(\\p{L}+)|\\s+|."))
    >>> find("naïve cat!")
    ['naïve', ' ', 'cat', '!']
    """
    if pattern.groups:
        return lambda text: [m.group() for m in pattern.finditer(text)]
    fast = ascii_equivalent(pattern.pattern)
    if fast is None:
        return pattern.findall
    slow_findall, fast_findall = pattern.findall, fast.findall
    # str.isascii() is O(1) in CPython: a flag of the string object.
    return lambda text: fast_findall(text) if text.isascii() else slow_findall(text)


def count_pretokens(
    texts: Iterable[str], pattern: regex.Pattern[str], special_tokens: Collection[str] = ()
) -> Counter[str]:
    """How often each pre-token occurs in ``texts``; special-token text is cut out first,
    so no pre-token spans one.

    >>> count_pretokens(["hi hi<|e|>hi"], regex.compile(GPT2_PATTERN), ["<|e|>"])
    Counter({'hi': 2, ' hi': 1})
    """
    counts: Counter[str] = Counter()
    split = specials_pattern(special_tokens).split if special_tokens else None
    findall = pieces_finder(pattern)
    for text in texts:
        for chunk in split(text) if split is not None else (text,):
            counts.update(findall(chunk))
    return counts


def allowed_specials(
    text: str,
    special_tokens: Collection[str],
    allowed_special: Literal["all"] | Collection[str] = frozenset(),
    disallowed_special: Literal["all"] | Collection[str] = "all",
) -> set[str]:
    """The special tokens to cut ``text`` at, by tiktoken's rules: those of
    ``allowed_special`` (``"all"``: every one of ``special_tokens``).

    Text of a special token in ``disallowed_special`` (``"all"``, the default: every
    special token not allowed) raises ``ValueError`` wherever it occurs, even overlapping
    another special token, because text from users that contains, say,
    ``<|endoftext|>`` could otherwise inject a control token. The message is tiktoken's.

    >>> sorted(allowed_specials("a<|e|>", ["<|e|>", "<|f|>"], allowed_special="all"))
    ['<|e|>', '<|f|>']
    >>> allowed_specials("a<|e|>", ["<|e|>"], disallowed_special=())
    set()
    >>> allowed_specials("a<|e|>", ["<|e|>"])
    Traceback (most recent call last):
    ...
    ValueError: Encountered text corresponding to disallowed special token '<|e|>'.
    ...
    """
    specials = set(special_tokens)
    allowed = set(specials) if allowed_special == "all" else set(allowed_special)
    disallowed = specials - allowed if disallowed_special == "all" else set(disallowed_special)
    unknown = (allowed | disallowed) - specials
    if unknown:
        raise ValueError(f"not special tokens of this tokenizer: {sorted(unknown)}")
    m = specials_pattern(disallowed).search(text) if disallowed else None
    if m is not None:
        raise ValueError(
            f"Encountered text corresponding to disallowed special token {m.group()!r}.\n"
            f"If you want this text to be encoded as a special token, pass it to "
            f"`allowed_special`, e.g. `allowed_special={{{m.group()!r}, ...}}`.\n"
            f"If you want this text to be encoded as normal text, disable the check "
            f"for this token by passing `disallowed_special=(enc.special_tokens_set - "
            f"{{{m.group()!r}}})`.\n"
            "To disable this check for all special tokens, pass `disallowed_special=()`."
        )
    return allowed


# ---------------------------------------------------------------------------------------
# For the `bytelevel` assignment: GPT-2's pattern for the standard `re` module
# ---------------------------------------------------------------------------------------

# GPT2_PATTERN written for Python's own `re` module, which has no \p{...} classes and no
# `regex` (students of the `bytelevel` assignment have only the standard library):
# \p{L} becomes [^\W\d_] (a word character that is neither a digit nor "_"), \p{N}
# becomes \d, [^\s\p{L}\p{N}] becomes (?:[^\s\w]|_), and the possessive \s++$|...|\s
# ending becomes GPT-2's original \s+(?!\S)|\s+ (possessive and greedy agree here: no
# alternative can backtrack into a shorter match that succeeds).
#
# It gives the same pieces as GPT2_PATTERN (with `regex`) on every text without the
# following characters, which are exactly the code points where the classes of the two
# differ (tests/test_assignment_refs.py checks the classes of all 1,112,064 code points,
# the whole Shakespeare corpus and random texts):
#
# 1. numeric characters that are not decimal digits, Unicode categories Nl and No
#    ("²", "½", "Ⅻ", "①": 1,131 code points in Unicode 14): numbers (\p{N}) for
#    GPT2_PATTERN, letters for this one (str.isalnum() is true, str.isdecimal() false):
#    "x² 1½" is ["x", "²", " 1½"] with GPT2_PATTERN but ["x²", " 1", "½"] here;
# 2. U+001C..U+001F, the information separators, which `re` takes for whitespace
#    (str.isspace()) and `regex` does not (\p{White_Space}): "a\x1c\x1cb" is
#    ["a", "\x1c\x1c", "b"] with GPT2_PATTERN but ["a", "\x1c", "\x1c", "b"] here;
# 3. code points that Python's Unicode database (unicodedata.unidata_version, 14.0.0 in
#    Python 3.11) leaves unassigned but the newer one of `regex` makes letters or numbers.
#
# Everything else agrees, combining marks included (both split "e\u0301" into "e" and
# "\u0301"), as do digits of other scripts ("٣" is \d and \p{N}) and "_".
GPT2_PATTERN_STDLIB = r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"""
