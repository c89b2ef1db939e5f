"""BERT's normalization and pre-tokenization, exactly as Hugging Face ``tokenizers`` does
them (``BertNormalizer``, ``BertPreTokenizer``), with the alignments its offsets need.

Every Unicode table comes from ``unicode_tables.json``, read once at import, never from
Python's ``unicodedata``, whose version changes with the interpreter (13.0.0 in Python
3.10, 15.1.0 in 3.13): the tables ``tokenizers`` 0.23.3 actually uses, read off it by
``solutions/scripts/make_unicode_tables.py``. NFD and the combining classes are Unicode
9.0.0, the categories (what cleaning removes, punctuation, the marks accent stripping
drops) Unicode 8.0.0, lowercasing Rust's ``char::to_lowercase``, Unicode 17.0.0. So the
answers are the same on every Python. :func:`unicode_tables` gives the character classes
as regex character-class bodies.

>>> bert_pre_tokenize("Héllo, WORLD!! 中文")
['hello', ',', 'world', '!', '!', '中', '文']
>>> bert_normalize("ΟΔΟΣ İstanbul")  # one character at a time: no final sigma
'οδοσ istanbul'
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from ..base import check_bool, check_text

__all__ = [
    "is_bert_punctuation",
    "is_bert_removed",
    "is_cjk",
    "lowercase_char",
    "nfd_char",
    "combining_class",
    "unicode_tables",
    "bert_normalize",
    "bert_pre_tokenize",
    "bert_pre_tokenize_with_offsets",
]

# ---------------------------------------------------------------------------
# The tables: a JSON file, turned into regex classes and dicts here.
# ---------------------------------------------------------------------------

TABLES_FILE = "unicode_tables.json"


def _code_points(hexes: str) -> str:
    return "".join(chr(int(x, 16)) for x in hexes.split())


def _load_tables() -> dict[str, Any]:
    """The ``tables`` of ``unicode_tables.json``: ``ranges`` as (start, end) code points,
    ``classes`` as (start, end, class), ``mappings`` as (start, end, target string),
    ``decompositions`` as a dict. Checked enough that a damaged file fails here, at
    import, and not as a wrong answer later."""
    raw = resources.files(__package__).joinpath(TABLES_FILE).read_text(encoding="utf-8")
    out: dict[str, Any] = {}
    for name, table in json.loads(raw)["tables"].items():
        (key, rows), = [(k, v) for k, v in table.items() if k != "about"]
        try:
            if key == "decompositions":
                out[name] = {_code_points(cp): _code_points(d) for cp, d in rows}
                if not all(len(c) == 1 and d for c, d in out[name].items()):
                    raise ValueError
                continue
            parsed = [(int(row[0], 16), int(row[1], 16), *row[2:]) for row in rows]
            for row in parsed:
                width = 2 if key == "ranges" else 3
                if len(row) != width or not row[0] <= row[1] <= 0x10FFFF or (
                        key == "classes" and not 0 < row[2] < 256):
                    raise ValueError
            if key == "mappings":
                parsed = [(s, e, _code_points(t)) for s, e, t in parsed]
                if not all(len(t) == 1 or (s == e and t) for s, e, t in parsed):
                    raise ValueError
            out[name] = parsed
        except (ValueError, TypeError, IndexError):
            raise ValueError(f"{TABLES_FILE}: bad table {name!r}") from None
    return out


def _escape(cp: int) -> str:
    # Escapes, never the character itself: a class body that holds "]", "\\", "-" or "^"
    # literally could mean something else.
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def _class_body(ranges: list[tuple[int, int]]) -> str:
    """The body of a regex class matching ``ranges``, written as the module's tables were
    written before they moved to JSON (a two-character range as two characters)."""
    return "".join(
        _escape(s) if s == e else _escape(s) + _escape(e) if e == s + 1
        else f"{_escape(s)}-{_escape(e)}"
        for s, e in ranges
    )


_TABLES = _load_tables()
# Class bodies, keyed as unicode_tables() returns them.
_BODIES: dict[str, str] = {
    name: _class_body(_TABLES[name])
    for name in ("other", "punctuation", "nonspacing_mark", "cjk", "whitespace")
}

#: What BertNormalizer removes; what BertPreTokenizer isolates; CJK ideographs.
REMOVED_RE = re.compile(f"[{_BODIES['other']}]")
PUNCT_RE = re.compile(f"[{_BODIES['punctuation']}]")
CJK_RE = re.compile(f"[{_BODIES['cjk']}]")
#: A run of non-whitespace characters (of the original text).
CHUNK_RE = re.compile(f"[^{_BODIES['whitespace']}]+")
#: What Rust's str::trim_end removes, as a string for str.rstrip (see vocab.txt reading).
RUST_WHITE_SPACE = "".join(chr(c) for s, e in _TABLES["rust_white_space"] for c in range(s, e + 1))

_WORD_RE = re.compile(f"[{_BODIES['punctuation']}]|[^{_BODIES['punctuation']}]+")
_MN_RE = re.compile(f"[{_BODIES['nonspacing_mark']}]")
# NFD, canonical ordering and lowercasing, character by character, as dicts.
_NFD: dict[str, str] = _TABLES["nfd"]
_CCC: dict[str, int] = {
    chr(cp): ccc for start, end, ccc in _TABLES["combining_class"] for cp in range(start, end + 1)
}
_LOWER: dict[int, str] = {  # a str.translate table
    cp: target if len(target) > 1 else chr(ord(target) + cp - start)
    for start, end, target in _TABLES["lowercase"]
    for cp in range(start, end + 1)
}
_HANGUL_FIRST, _HANGUL_COUNT = 0xAC00, 11172  # syllables, decomposed by arithmetic
_HANGUL_RE = re.compile(f"[{_escape(_HANGUL_FIRST)}-{_escape(_HANGUL_FIRST + _HANGUL_COUNT - 1)}]")
# Text without these (nor Hangul syllables) is its own NFD: nothing decomposes, no mark to
# reorder. A set, not a regex: isdisjoint runs in C, many times faster than a big class.
_NFD_MAY_CHANGE = frozenset(_NFD) | frozenset(_CCC)

# Chunks that need none of the Unicode machinery: ASCII without control characters.
_ASCII_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_ASCII_PUNCT = r"!-/:-@\[-`{-~"  # the 32 characters of Rust's is_ascii_punctuation
_ASCII_WORD_RE = re.compile(f"[{_ASCII_PUNCT}]|[^{_ASCII_PUNCT}]+")


def unicode_tables() -> dict[str, str]:
    """The character classes of BERT's pipeline as regex class bodies (put them in
    ``[...]``): ``"other"`` (what cleaning removes), ``"punctuation"`` (what
    pre-tokenization isolates), ``"nonspacing_mark"`` (what accent stripping drops),
    ``"cjk"`` (the ideographs spaced out) and ``"whitespace"``. A new dict each call.

    >>> tables = unicode_tables()
    >>> sorted(tables)
    ['cjk', 'nonspacing_mark', 'other', 'punctuation', 'whitespace']
    >>> re.findall(f"[{tables['cjk']}]", "日本語のテキスト")
    ['日', '本', '語']
    """
    return {k: _BODIES[k] for k in ("other", "punctuation", "nonspacing_mark", "cjk", "whitespace")}


# ---------------------------------------------------------------------------
# Character classes and per-character operations.
# ---------------------------------------------------------------------------


def is_bert_punctuation(ch: str) -> bool:
    """Whether BERT's pre-tokenizer isolates ``ch``: ASCII punctuation (33–47, 58–64,
    91–96, 123–126, which includes ``$``, ``+``, ``<``, ``^``, ``|``...) or a Unicode
    punctuation character (category ``P*``, in the tables ``tokenizers`` uses).

    >>> [is_bert_punctuation(c) for c in "a.$¿-'’"]
    [False, True, True, True, True, True, True]
    """
    return PUNCT_RE.fullmatch(_check_char(ch)) is not None


def is_bert_removed(ch: str) -> bool:
    """Whether BERT's cleaning step removes ``ch``: ``\\x00``, ``\\ufffd`` and the
    categories Cc, Cf and Co, except ``\\t``, ``\\n`` and ``\\r`` (which become spaces).

    >>> [is_bert_removed(c) for c in "a\\x00\\t\\u200b\\ufffd\\x0b"]
    [False, True, False, True, True, True]
    """
    return REMOVED_RE.fullmatch(_check_char(ch)) is not None


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK ideograph that BERT surrounds by spaces (the CJK Unified
    Ideographs blocks; not kana, not hangul, which are written with spaces).

    >>> [is_cjk(c) for c in "中日本語かな한"]
    [True, True, True, True, False, False, False]
    """
    return CJK_RE.fullmatch(_check_char(ch)) is not None


def _check_char(ch: object) -> str:
    if not isinstance(ch, str):
        raise TypeError(f"expected a one-character str, not {type(ch).__name__}")
    if len(ch) != 1:
        raise ValueError(f"expected one character, got {len(ch)}: {ch[:20]!r}")
    return ch


def nfd_char(ch: str) -> str:
    """The canonical decomposition (NFD) of the character ``ch`` as ``tokenizers``' NFD
    gives it (Unicode 9.0.0: ``"\\U00011938"``, which decomposes since Unicode 13.0, does
    not). No check of ``ch``: normalization calls this once per character.

    >>> [nfd_char(c) for c in "éa"], nfd_char("\\U00011938"), nfd_char("한")
    (['e\\u0301', 'a'], '\\U00011938', '\\u1112\\u1161\\u11ab')
    """
    d = _NFD.get(ch)
    if d is not None:
        return d
    s = ord(ch) - _HANGUL_FIRST
    if 0 <= s < _HANGUL_COUNT:  # leading consonant, vowel, trailing consonant if any
        t = s % 28
        return chr(0x1100 + s // 588) + chr(0x1161 + s % 588 // 28) + (chr(0x11A7 + t) if t else "")
    return ch


def combining_class(ch: str) -> int:
    """The canonical combining class of ``ch`` as ``tokenizers``' NFD knows it (Unicode
    9.0.0): 0 for the marks added since, which it does not reorder (U+0C3C, Unicode 14.0).

    >>> combining_class("\\u0301"), combining_class("a"), combining_class("\\u0c3c")
    (230, 0, 0)
    """
    return _CCC.get(ch, 0)


def lowercase_char(ch: str) -> str:
    """The lowercase of the character ``ch`` as Rust's ``char::to_lowercase`` gives it
    (Unicode 17.0.0), which is what ``BertNormalizer`` applies to each character.

    One character at a time: no final-sigma rule (``"ΟΔΟΣ"`` becomes ``"οδοσ"``), and
    ``"İ"`` becomes ``"i"`` + U+0307. The table is ``lowercase`` of ``unicode_tables.json``,
    not ``str.lower``: Rust's Unicode is newer than any Python's (U+A7CB is Unicode 16.0).

    >>> lowercase_char("Σ"), lowercase_char("\\ua7cb"), lowercase_char("İ") == "i\\u0307"
    ('σ', 'ɤ', True)
    """
    return _LOWER.get(ord(ch), ch)


# ---------------------------------------------------------------------------
# Normalization and pre-tokenization, with alignments to the original text.
#
# A piece of normalized text is a pair (string, indices): ``indices[k]`` is the index in
# the original text of the character ``string[k]`` comes from. One index per character
# is all the offsets need: removal drops characters, decomposition and lowercasing only
# add characters, so every normalized character comes from exactly one original one.
# Whole-string operations (str.lower, regular expressions) do the work whenever they provably give
# the per-character answer; the per-character loops only run on the rest.
# ---------------------------------------------------------------------------

_Seg = tuple[str, list[int]]


def _drop(s: str, idx: list[int], pattern: re.Pattern[str]) -> _Seg:
    """``s`` without the characters ``pattern`` matches, with their indices."""
    gone = {m.start() for m in pattern.finditer(s)}
    if not gone:
        return s, idx
    keep = [k for k in range(len(s)) if k not in gone]
    return "".join(s[k] for k in keep), [idx[k] for k in keep]


def _canonical_order(s: str) -> list[tuple[str, int]]:
    """NFD of ``s`` as (character, change) pairs, canonically ordered: each character
    decomposes into a first character that replaces it (change 0) and added characters
    (change 1); then each run of non-starters is sorted by combining class, and the
    changes travel with the characters."""
    out: list[tuple[str, int]] = []
    for c in s:
        d = nfd_char(c)
        out.append((d[0], 0))
        out.extend((x, 1) for x in d[1:])
    k, n = 0, len(out)
    while k < n:
        if combining_class(out[k][0]) == 0:
            k += 1
            continue
        j = k
        while j < n and combining_class(out[j][0]) != 0:
            j += 1
        if j - k > 1:
            out[k:j] = sorted(out[k:j], key=lambda t: combining_class(t[0]))
        k = j
    return out


def _strip_accents(s: str, idx: list[int]) -> _Seg:
    """NFD, then drop non-spacing marks, keeping tokenizers' alignments."""
    if _NFD_MAY_CHANGE.isdisjoint(s) and _HANGUL_RE.search(s) is None:  # s is its own NFD
        return _drop(s, idx, _MN_RE)
    # tokenizers' NormalizedString.transform aligns by position: a replacing character
    # takes the alignment of the next original character, an added one that of the
    # previous. Reordering can therefore hand a mark its neighbour's alignment.
    chars: list[str] = []
    aligned: list[int] = []
    pos = 0
    for c, change in _canonical_order(s):
        if change:
            src = idx[pos - 1] if pos else idx[0]
        else:
            src = idx[pos]
            pos += 1
        if not _MN_RE.match(c):
            chars.append(c)
            aligned.append(src)
    return "".join(chars), aligned


def _lowercase(s: str, idx: list[int]) -> _Seg:
    low = s.translate(_LOWER)  # each character on its own, as lowercase_char
    # If no character changed length, the alignment is unchanged.
    if len(low) == len(s):
        return low, idx
    chars: list[str] = []
    aligned: list[int] = []
    for c, i in zip(s, idx):
        low = lowercase_char(c)
        chars.append(low)
        aligned.extend([i] * len(low))
    return "".join(chars), aligned


def _normalize_chunk(chunk: str, lowercase: bool, strip_accents: bool) -> list[tuple[bool, _Seg]]:
    """BertNormalizer on ``chunk``, a run of non-whitespace characters of the original
    text: its segments, each (is a CJK ideograph, (normalized text, indices in
    ``chunk``)). The normalizer writes a space between two segments."""
    s, idx = _drop(chunk, list(range(len(chunk))), REMOVED_RE)
    # CJK ideographs get spaces around them, so they are segments of their own; the
    # later steps cannot move anything across a space (it is a starter for NFD).
    segments: list[tuple[bool, _Seg]] = []
    pos = 0
    for m in CJK_RE.finditer(s):
        k = m.start()
        if k > pos:
            segments.append((False, (s[pos:k], idx[pos:k])))
        segments.append((True, (s[k], idx[k:k + 1])))
        pos = k + 1
    if pos < len(s) or not segments:
        segments.append((False, (s[pos:], idx[pos:])))
    if strip_accents:
        segments = [(cjk, _strip_accents(*seg)) for cjk, seg in segments]
    if lowercase:
        segments = [(cjk, _lowercase(*seg)) for cjk, seg in segments]
    return segments


def chunk_words(chunk: str, lowercase: bool, strip_accents: bool) -> list[_Seg]:
    """The words of ``chunk`` (a run of non-whitespace characters of the original text),
    each (word, index in ``chunk`` of each of its characters).

    >>> chunk_words("Œuvre,déjà", lowercase=True, strip_accents=True)
    [('œuvre', [0, 1, 2, 3, 4]), (',', [5]), ('deja', [6, 7, 8, 9])]
    """
    if chunk.isascii() and _ASCII_CONTROL_RE.search(chunk) is None:
        norm = chunk.lower() if lowercase else chunk
        return [
            (m.group(), list(range(m.start(), m.end())))
            for m in _ASCII_WORD_RE.finditer(norm)
        ]
    words: list[_Seg] = []
    for _, (s, idx) in _normalize_chunk(chunk, lowercase, strip_accents):
        for m in _WORD_RE.finditer(s):
            words.append((m.group(), idx[m.start():m.end()]))
    return words


def check_flags(lowercase: object, strip_accents: object) -> tuple[bool, bool]:
    """``(lowercase, strip_accents)`` checked, with ``strip_accents=None`` following
    ``lowercase``, as BERT's ``BasicTokenizer`` and ``BertNormalizer`` do.

    >>> check_flags(False, None)
    (False, False)
    """
    lowercase = check_bool(lowercase, name="lowercase")
    if strip_accents is None:
        return lowercase, lowercase
    if not isinstance(strip_accents, bool):
        # Not check_bool: None is allowed here, and the message says so.
        raise TypeError(
            f"strip_accents must be True, False or None (follow lowercase), "
            f"not {type(strip_accents).__name__}"
        )
    return lowercase, strip_accents


def bert_pre_tokenize_with_offsets(
    text: str, *, lowercase: bool = True, strip_accents: bool | None = None
) -> list[tuple[str, int, int]]:
    """The words of ``text`` after BERT normalization and pre-tokenization, each with the
    span ``text[start:end]`` it comes from.

    >>> bert_pre_tokenize_with_offsets("Café\\u200b au lait!")
    [('cafe', 0, 4), ('au', 6, 8), ('lait', 9, 13), ('!', 13, 14)]
    """
    text = check_text(text)
    lowercase, strip_accents = check_flags(lowercase, strip_accents)
    out = []
    for m in CHUNK_RE.finditer(text):
        base = m.start()
        for word, idx in chunk_words(m.group(), lowercase, strip_accents):
            out.append((word, base + idx[0], base + idx[-1] + 1))
    return out


def bert_pre_tokenize(
    text: str, *, lowercase: bool = True, strip_accents: bool | None = None
) -> list[str]:
    """The words of ``text`` after BERT normalization and pre-tokenization.

    >>> bert_pre_tokenize("Héllo, WORLD!! 中文")
    ['hello', ',', 'world', '!', '!', '中', '文']
    >>> bert_pre_tokenize("Héllo", lowercase=False)
    ['Héllo']
    """
    return [w for w, _, _ in bert_pre_tokenize_with_offsets(
        text, lowercase=lowercase, strip_accents=strip_accents)]


def bert_normalize(
    text: str, *, lowercase: bool = True, strip_accents: bool | None = None
) -> str:
    """``text`` as ``BertNormalizer(clean_text=True, handle_chinese_chars=True, ...)``
    returns it: cleaned, CJK ideographs spaced, accents stripped, lowercased.

    >>> bert_normalize("Ça\\tva?\\x00 中文")
    'ca va?  中  文 '
    """
    text = check_text(text)
    lowercase, strip_accents = check_flags(lowercase, strip_accents)
    out = []
    pos = 0
    for m in CHUNK_RE.finditer(text):
        out.append(" " * (m.start() - pos))  # each whitespace character is one space
        pos = m.end()
        for cjk, (s, _) in _normalize_chunk(m.group(), lowercase, strip_accents):
            out.append(f" {s} " if cjk else s)
    out.append(" " * (len(text) - pos))
    return "".join(out)
