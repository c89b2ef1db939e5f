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

import functools
import re
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Literal

import regex

from .checks import specials_pattern
from .unicode_classes import CLASSES, REGEX_DISAGREES, UNICODE_VERSION

__all__ = [
    "GPT2_PATTERN",
    "CL100K_PATTERN",
    "O200K_PATTERN",
    "GPT2_PATTERN_STDLIB",
    "UNICODE_VERSION",
    "freeze_classes",
    "compile_frozen",
    "disputed_chars",
    "holds_disputed",
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
# Character classes frozen to tiktoken's Unicode
# ---------------------------------------------------------------------------------------

# The patterns above stay as tiktoken writes them (they are saved in tokenizer files and
# handed to tiktoken as they are), but compiled as they are, their classes are those of the
# installed `regex`, which carries the newest Unicode (17.0.0 in regex 2026.11.19), while
# tiktoken's Rust engine has the Unicode of its crate regex-syntax (16.0.0): U+058C,
# assigned in 17.0, is \p{Lm} for one and nothing for the other, so "\u058c.x" would be
# cut differently. freeze_classes writes tiktoken's classes (unicode_classes.py, read off
# tiktoken on every code point by solutions/scripts/make_pretokenize_classes.py) into the
# pattern; tests/test_unicode_classes.py compares them with tiktoken on every code point.
#
# `regex` matches such explicit classes (hundreds of ranges) 6 to 36 times slower than its
# own \p{..} tables, so pieces_finder uses the frozen pattern only for a text holding one
# of the code points where the installed `regex` disagrees with tiktoken (disputed_chars:
# 17,560 in regex 2026.11.19, none of them ASCII; holds_disputed looks for them in about
# 17 ms per MB); on any other text the two patterns find the same pieces, and the readable
# one, with regex's own tables, is the fast one.
_ESCAPE = regex.compile(r"\\(?:[pP]\{\w+\}|.)", regex.S)
_RANGE = re.compile(r"\\[uU]([0-9a-f]+)(?:-\\[uU]([0-9a-f]+))?")


def freeze_classes(pattern: str) -> str:
    """``pattern`` with the classes of the OpenAI patterns (``\\p{L}``, ``\\p{N}``,
    ``\\p{Lu}``, ``\\p{Ll}``, ``\\p{Lt}``, ``\\p{Lm}``, ``\\p{Lo}``, ``\\p{M}``,
    ``\\s``, their negations ``\\P{..}`` and ``\\S``) written out as explicit
    code-point ranges of Unicode 16.0.0, tiktoken's, inside or outside ``[...]``.

    Anything else is kept as written, and so is a negated class inside ``[...]`` (which
    a set cannot spell), so other patterns keep ``regex``'s meaning for what they use.

    >>> freeze_classes(r"\\p{Lt}+|[^\\s\\p{Lt}]")  # doctest: +ELLIPSIS
    '[\\\\u01c5\\\\u01c8...\\\\u1ffc]+|[^\\\\u0009-\\\\u000d\\\\u0020...\\\\u1ffc]'
    >>> regex.findall(freeze_classes(r"\\p{L}+|."), "\\u058c.x")  # Unicode 17's U+058C
    ['\\u058c', '.', 'x']
    """
    out: list[str] = []
    i, in_set = 0, False
    while i < len(pattern):
        if pattern[i] == "\\":
            escape = _ESCAPE.match(pattern, i)
            token = escape.group() if escape else pattern[i:]
            positive = token[:2].lower() + token[2:]  # \P{L} -> \p{L}, \S -> \s
            negated = positive != token
            body = CLASSES.get(positive)
            if body is None or (negated and in_set):
                out.append(token)
            elif in_set:
                out.append(body)
            else:
                out.append(f"[^{body}]" if negated else f"[{body}]")
            i += len(token)
            continue
        if pattern[i] == "[" and not in_set:
            # A "]" right after "[" or "[^" is a literal, not the end of the set.
            opening = regex.match(r"\[\^?\]?", pattern[i:]).group()
            out.append(opening)
            i, in_set = i + len(opening), True
            continue
        if pattern[i] == "]" and in_set:
            in_set = False
        out.append(pattern[i])
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=32)
def compile_frozen(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """``pattern`` compiled by ``regex`` with its classes frozen to tiktoken's
    (:func:`freeze_classes`). Slow to compile and to run; :func:`pieces_finder` uses it
    only where the installed ``regex`` and tiktoken disagree.

    >>> compile_frozen(O200K_PATTERN).findall("\\u058c.x")  # tiktoken's pieces
    ['\\u058c.', 'x']
    >>> regex.findall(O200K_PATTERN, "\\u058c.x")  # regex's Unicode 17.0 makes it a letter
    ['\\u058c', '.x']
    """
    return regex.compile(freeze_classes(pattern), flags)


def code_points(ranges: str) -> set[int]:
    """The code points of a class body written by freeze_classes (``\\u0041-\\u005a...``)."""
    found: set[int] = set()
    for first, last in _RANGE.findall(ranges):
        found.update(range(int(first, 16), int(last or first, 16) + 1))
    return found


def regex_disagreements(classes: Mapping[str, str] = CLASSES) -> set[int]:
    """The code points (surrogates excluded) that the installed ``regex`` puts in another
    class than ``classes`` (class name -> ranges) for any class: one scan per class of a
    string of every code point (about a second)."""
    # Surrogates become NUL, which is in no class: position i holds code point i.
    every = "".join(map(chr, range(0xD800))) + "\0" * 0x800 + "".join(map(chr, range(0xE000, 0x110000)))
    differ: set[int] = set()
    for name, ranges in classes.items():
        theirs = {i for m in regex.finditer(name + "+", every) for i in range(*m.span())}
        differ |= theirs ^ code_points(ranges)
    return differ


@functools.cache
def disputed_chars() -> frozenset[str]:
    """The characters whose class (:func:`freeze_classes`) the installed ``regex`` does not
    share with tiktoken: those recorded for this version of ``regex``, else computed.

    >>> "\\u058c" in disputed_chars() or regex.__version__ != "2026.11.19", "a" in disputed_chars()
    (True, False)
    """
    known = REGEX_DISAGREES.get(regex.__version__)
    points = code_points(known) if known is not None else regex_disagreements()
    return frozenset(map(chr, points))


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
    when the pattern has capture groups (``findall`` would return the groups), with
    tiktoken's classes (a text holding one of :func:`disputed_chars` goes to the frozen
    pattern, :func:`compile_frozen`); for the OpenAI patterns, ASCII text goes to an
    equivalent, faster ``re`` pattern (:func:`ascii_equivalent`).

    >>> find = pieces_finder(regex.compile(r"(\\p{L}+)|\\s+|."))
    >>> find("naïve cat!")
    ['naïve', ' ', 'cat', '!']
    >>> pieces_finder(regex.compile(O200K_PATTERN))("\\u058c.x")  # tiktoken's pieces
    ['\\u058c.', 'x']
    """
    if pattern.groups:
        return lambda text: [m.group() for m in _exact(pattern, text).finditer(text)]
    fast = ascii_equivalent(pattern.pattern)
    if freeze_classes(pattern.pattern) == pattern.pattern or not disputed_chars():
        unicode_findall = pattern.findall  # no class to freeze, or regex agrees with tiktoken
    else:
        search = _candidates().search  # (see holds_disputed)
        findall = pattern.findall

        def unicode_findall(text: str) -> list[str]:
            # holds_disputed inline, as its common case: no candidate at all.
            if search(text) is None or not holds_disputed(text):
                return findall(text)
            return compile_frozen(pattern.pattern, pattern.flags).findall(text)
    if fast is None:
        return unicode_findall
    fast_findall = fast.findall
    # str.isascii() is O(1) in CPython: a flag of the string object.
    return lambda text: fast_findall(text) if text.isascii() else unicode_findall(text)


def _exact(pattern: regex.Pattern[str], text: str) -> regex.Pattern[str]:
    """``pattern``, or its frozen twin if ``text`` holds a disputed character."""
    if not holds_disputed(text):
        return pattern
    return compile_frozen(pattern.pattern, pattern.flags)


def holds_disputed(text: str, *, start: int = 0) -> bool:
    """Whether ``text`` holds one of :func:`disputed_chars`, quickly: the standard ``re``
    finds the disputed characters below U+10000 with a bitmap (5 to 8 times faster than
    a set lookup per character), and every character above, whose few occurrences in
    most texts (emoji) are looked up one by one. ``start``: look only from there on.

    >>> holds_disputed("naïve café 👍" * 200), holds_disputed("\\u058c") == ("\\u058c" in disputed_chars())
    (False, True)
    """
    disputed = disputed_chars()
    return any(m.group() in disputed for m in _candidates().finditer(text, start))


@functools.cache
def _candidates() -> re.Pattern[str]:
    """The disputed characters below U+10000, and any character above (``re`` matches a
    set of such characters with a bitmap, but tries a set's other ranges one by one)."""
    bmp = "".join(re.escape(c) for c in sorted(disputed_chars()) if ord(c) < 0x10000)
    return re.compile(f"[{bmp}\\U00010000-\\U0010ffff]")


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
