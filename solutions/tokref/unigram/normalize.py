"""Unigram normalization: the text as the tokenizer sees it, before the dummy prefix and
``▁``, and the span of the input behind each normalized character (for offsets)."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

import regex

from ..checks import check_text

__all__ = [
    "WS",
    "NORMALIZATIONS",
    "Normalization",
    "check_normalization",
    "normalize",
    "normalized",
    "nfkc_aligned",
    "normalize_aligned",
]

WS = "\u2581"  # ▁, SentencePiece's meta-symbol for a space
NORMALIZATIONS = ("nfkc", "identity")
Normalization = Literal["nfkc", "identity"]

_GRAPHEME = regex.compile(r"\X")
# Standard-library `re`: its \s is exactly str.isspace, which str.split() uses (the
# `regex` module's \s is Unicode White_Space, which leaves out U+001C..U+001F).
_CHUNK = re.compile(r"\s+|\S+")
_NON_SPACE = re.compile(r"\S+")


def check_normalization(normalization: object) -> str:
    """``normalization`` if it is one of :data:`NORMALIZATIONS`, else a ``ValueError``.

    >>> check_normalization("identity")
    'identity'
    """
    if normalization not in NORMALIZATIONS:
        raise ValueError(
            f"normalization must be 'nfkc' or 'identity', not {normalization!r}"
        )
    return normalization  # type: ignore[return-value]


def normalized(text: str, normalization: str) -> str:
    """:func:`normalize` without the checks, for the encoder's hot path.

    >>> normalized(" a \\u3000 b ", "nfkc")
    'a b'
    """
    if normalization == "identity":
        return text
    return " ".join(unicodedata.normalize("NFKC", text).split())


def normalize(text: str, *, normalization: Normalization = "nfkc") -> str:
    """``text`` as the tokenizer sees it, before the dummy prefix and ``▁``.

    ``"nfkc"``: NFKC, whitespace runs to one space, ends stripped. ``"identity"``: as is.

    >>> normalize("  ﬁne\\t\\tday ")
    'fine day'
    >>> normalize("  ﬁne ", normalization="identity")
    '  ﬁne '
    """
    text = check_text(text)
    return normalized(text, check_normalization(normalization))


def nfkc_aligned(text: str) -> tuple[str, list[int], list[int]]:
    """NFKC of ``text`` and, for each of its characters, the span of ``text`` it came from.

    Each grapheme cluster (``regex``'s ``\\X``) is normalized on its own: NFKC never
    composes across clusters, so the pieces join to ``NFKC(text)``. In case some text
    breaks that (it is checked), whitespace-separated chunks are used, whose joins are
    always safe.

    >>> nfkc_aligned("ﬁ!")  # the ligature is one character of the input, two of NFKC
    ('fi!', [0, 0, 1], [1, 1, 2])
    """
    if text.isascii():  # NFKC leaves ASCII alone
        n = len(text)
        return text, list(range(n)), list(range(1, n + 1))
    target = unicodedata.normalize("NFKC", text)
    for pattern in (_GRAPHEME, _CHUNK):
        parts, starts, ends = [], [], []
        for m in pattern.finditer(text):
            piece = unicodedata.normalize("NFKC", m.group())
            parts.append(piece)
            starts.extend([m.start()] * len(piece))
            ends.extend([m.end()] * len(piece))
        if "".join(parts) == target:
            return target, starts, ends
    n = len(target)  # pragma: no cover - no known text gets here
    return target, [0] * n, [len(text)] * n


def normalize_aligned(
    text: str, normalization: str
) -> tuple[str, list[int], list[int]]:
    """``normalize(text)`` with the span of ``text`` behind each of its characters.

    A space that replaced a run of whitespace spans the whole run.

    >>> normalize_aligned(" a  b", "nfkc")
    ('a b', [1, 2, 4], [2, 4, 5])
    """
    if normalization == "identity":
        n = len(text)
        return text, list(range(n)), list(range(1, n + 1))
    return collapse_whitespace_aligned(*nfkc_aligned(text))


def collapse_whitespace_aligned(
    nf: str, st: list[int], en: list[int]
) -> tuple[str, list[int], list[int]]:
    """Normalized text with spans (``st[k]:en[k]`` behind character ``k``) → the same
    with leading and trailing whitespace dropped and each inner run of whitespace made
    one space that spans the run (SentencePiece's ``remove_extra_whitespaces``).

    >>> collapse_whitespace_aligned(" a  b", [0, 1, 2, 3, 4], [1, 2, 3, 4, 5])
    ('a b', [1, 2, 4], [2, 4, 5])
    """
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    prev_end = -1  # index in nf after the previous run of non-space characters
    for m in _NON_SPACE.finditer(nf):
        a, b = m.start(), m.end()
        if prev_end >= 0:
            out.append(" ")
            starts.append(st[prev_end])
            ends.append(en[a - 1])
        out.append(m.group())
        starts.extend(st[a:b])
        ends.extend(en[a:b])
        prev_end = b
    return "".join(out), starts, ends
