"""The JavaScript twins of tokref's tokenizers: the data each twin needs (:func:`js_spec`),
the Unicode tables for the WordPiece and Unigram twins, computed here by Python, and
:func:`view`, the tokens of a text as the explorers draw them (what a twin computes).

The browser's own Unicode tables (its regex ``\\p`` classes, ``toLowerCase``,
``normalize``) follow its Unicode version, not Python's nor Hugging Face's. The twins
therefore get every table they need from Python, as code-point ranges (a flat list
``[a0, b0, a1, b1, ...]``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from ..bpe import EOW
from ..word import WORD_PATTERN
from ..wordpiece import combining_class, lowercase_char, nfd_char, unicode_tables
from ..unigram.normalize import collapse_whitespace_aligned
from .jsregex import all_chars, engine_class, js_regex, to_ranges
from .protocols import encode_plain, tokref_kind, unk_id
from .render import UNK


def js_spec(tok: Any, regexes: dict[str, Any]) -> dict[str, Any] | None:
    """The data of the JavaScript twin of one of tokref's tokenizers (None: no twin).
    The character classes of its regexes are added to ``regexes``, shared by all."""
    kind = tokref_kind(tok)

    def rx(pattern: str, engine: str) -> dict[str, str]:
        spec = js_regex(pattern, engine)
        regexes.update(spec["classes"])
        return {"source": spec["source"]}

    if kind == "char":
        return {"engine": "char", "pieces": tok.pieces, "unk": tok.unk_id}
    if kind == "word":
        return {"engine": "word", "pieces": tok.pieces, "unk": tok.unk_id,
                "lowercase": tok.lowercase, "re": rx(WORD_PATTERN, "re")}
    if kind == "bpe":
        return {"engine": "bpe", "pieces": tok.pieces, "unk": tok.unk_id, "eow": tok.token_to_id(EOW),
                "merges": [x for m in tok.merge_ids for x in m], "ws": rx(r"\S+", "re")}
    if kind == "bytelevel":
        return _bytelevel_spec(tok, rx)
    if kind == "wordpiece":
        return wordpiece_spec(tok)
    if kind == "unigram":
        return unigram_spec(tok)
    return None


def _bytelevel_spec(tok: Any, rx: Any) -> dict[str, Any] | None:
    try:
        r = rx(tok.pattern, "regex")
    except ValueError:
        return None
    merges = tok.merge_ids
    if merges:
        return {"engine": "bytelevel", "merges": [x for a, b, _ in merges for x in (a, b)], "re": r}
    ranks = tok.mergeable_ranks
    if len(ranks) > 20_000:
        return None  # cl100k_base would inline megabytes: samples only
    return {"engine": "bytelevel", "ranks": [[b.hex(), i] for b, i in ranks.items()], "re": r}


# ---------------------------------------------------------------------------
# The WordPiece twin
# ---------------------------------------------------------------------------


def _flat(ranges: Iterable[tuple[int, int]]) -> list[int]:
    return [x for r in ranges for x in r]


@lru_cache(maxsize=None)
def _re_class(cls: str) -> tuple[tuple[int, int], ...]:
    """The code points the ``re`` class ``[cls]`` matches."""
    return engine_class("re", f"[{cls}]")


@lru_cache(maxsize=1)
def code_points() -> tuple[int, ...]:
    """Every code point but the surrogates."""
    return tuple(map(ord, all_chars()))


def map_runs(mapping: Mapping[int, str]) -> list[Any]:
    """``{code point: string}`` as a flat list [gap, value, ...]: ``gap`` is the distance
    from the previous code point; ``value`` an int (a single code point, as the offset
    from the key) or a string (several code points)."""
    out: list[Any] = []
    prev = 0
    for cp in sorted(mapping):
        v = mapping[cp]
        out += [cp - prev, ord(v) - cp if len(v) == 1 else v]
        prev = cp
    return out


@lru_cache(maxsize=1)
def _wordpiece_tables() -> dict[str, Any]:
    """The character classes of tokref.wordpiece (Hugging Face's tables, Unicode 8)."""
    t = unicode_tables()
    return {"removed": _flat(_re_class(t["other"])), "punct": _flat(_re_class(t["punctuation"])),
            "cjk": _flat(_re_class(t["cjk"])), "ws": _flat(_re_class(t["whitespace"]))}


@lru_cache(maxsize=1)
def _wordpiece_lower_table() -> list[Any]:
    """tokref.wordpiece's per-character lowercasing (Rust's char::to_lowercase), for
    every character it changes."""
    return map_runs({cp: lo for cp in code_points() if (lo := lowercase_char(chr(cp))) != chr(cp)})


@lru_cache(maxsize=1)
def _wordpiece_nfd_tables() -> dict[str, Any]:
    """What tokref.wordpiece's accent stripping needs: the NFD of every character that
    decomposes (Hangul syllables are left to the algorithm), the combining classes it
    sorts by, the non-spacing marks it drops."""
    nfd = {}
    ccc: list[list[int]] = []
    for cp in code_points():
        ch = chr(cp)
        if not 0xAC00 <= cp <= 0xD7A3:
            d = nfd_char(ch)
            if d != ch:
                nfd[cp] = d
        c = combining_class(ch) if unicodedata.combining(ch) else 0
        if c:
            if ccc and ccc[-1][1] == cp - 1 and ccc[-1][2] == c:
                ccc[-1][1] = cp
            else:
                ccc.append([cp, cp, c])
    return {"nfd": map_runs(nfd), "ccc": [x for r in ccc for x in r],
            "mn": _flat(_re_class(unicode_tables()["nonspacing_mark"]))}


def wordpiece_spec(tok: Any) -> dict[str, Any]:
    """The WordPiece twin's data: the vocabulary, the settings, the Unicode tables."""
    tables = dict(_wordpiece_tables())
    if tok.lowercase:
        tables["lower"] = _wordpiece_lower_table()
    if tok.strip_accents:
        tables.update(_wordpiece_nfd_tables())
    return {"engine": "wordpiece", "pieces": tok.pieces, "unk": tok.unk_id,
            "specials": sorted(tok.special_tokens, key=lambda s: (-len(s), s)),
            "prefix": tok.continuing_subword_prefix, "max_chars": tok.max_input_chars_per_word,
            "max_piece": tok.max_piece_chars, "lowercase": tok.lowercase, "strip_accents": tok.strip_accents,
            "tables": tables}


# ---------------------------------------------------------------------------
# The Unigram twin
#
# NFKC for the Unigram twin. Text is cut into segments that NFKC normalizes
# independently: a segment starts before every character whose NFKD starts with a
# starter (combining class 0) that composes with nothing before it, and a code point
# unassigned in Python's Unicode is a segment of its own. Each segment's NFKC is then
# the same in any Unicode version from Python's on (Unicode's normalization stability:
# the normalization of assigned characters never changes, and a new composite is
# excluded from composition), so the browser's String.normalize("NFKC") is used on
# segments of assigned characters, after checking that the browser knows Python's
# Unicode version. Unassigned code points stay as they are, as in Python.
# ---------------------------------------------------------------------------


def _composition_seconds() -> tuple[list[int], set[int]]:
    """The unassigned code points, and every code point that composes with a character
    before it (the second of a canonical pair, Hangul V and T jamo)."""
    unassigned = []
    second = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul V and T jamo
    for cp in code_points():
        ch = chr(cp)
        if unicodedata.category(ch) == "Cn":
            unassigned.append(cp)
            continue
        d = unicodedata.decomposition(ch)
        if d and not d.startswith("<"):
            parts = d.split()
            if len(parts) == 2 and unicodedata.normalize("NFC", "".join(chr(int(x, 16)) for x in parts)) == ch:
                second.add(int(parts[1], 16))
    return unassigned, second


@lru_cache(maxsize=1)
def nfkc_tables() -> dict[str, Any]:
    """The Unigram twin's NFKC data: unassigned code points, those that join the
    segment before them, a probe of Python's Unicode version."""
    unassigned, second = _composition_seconds()
    joins = set()
    for cp in code_points():
        ch = chr(cp)
        if unicodedata.combining(ch) or cp in second or unicodedata.decomposition(ch):
            first = unicodedata.normalize("NFKD", ch)[0]
            if unicodedata.combining(first) or ord(first) in second:
                joins.add(cp)
    # A character of Python's Unicode version that the browser must know: one that
    # version added with a compatibility decomposition.
    probe = next(chr(cp) for cp in range(0x10780, 0x107BB)
                 if unicodedata.category(chr(cp)) != "Cn" and unicodedata.normalize("NFKC", chr(cp)) != chr(cp))
    return {"unassigned": _flat(to_ranges(unassigned)), "joins": _flat(to_ranges(joins)),
            "probe": [probe, unicodedata.normalize("NFKC", probe)], "unicode": unicodedata.unidata_version}


@lru_cache(maxsize=1)
def nfkc_sets() -> tuple[frozenset[int], frozenset[int]]:
    """The unassigned code points and those that join the segment before them."""
    t = nfkc_tables()

    def expand(flat: list[int]) -> frozenset[int]:
        return frozenset(c for a, b in zip(flat[::2], flat[1::2]) for c in range(a, b + 1))

    return expand(t["unassigned"]), expand(t["joins"])


def nfkc_segments(text: str) -> list[tuple[int, int]]:
    """The segments of ``text`` that NFKC normalizes independently (see above)."""
    unassigned, joins = nfkc_sets()
    out: list[tuple[int, int]] = []
    start, prev_new = 0, False
    for i, ch in enumerate(text):
        cp = ord(ch)
        new = cp in unassigned
        if i and (new or prev_new or cp not in joins):
            out.append((start, i))
            start = i
        prev_new = new
    if text:
        out.append((start, len(text)))
    return out


@lru_cache(maxsize=1)
def _py_space() -> tuple[tuple[int, int], ...]:
    return engine_class("re", r"\s")  # str.isspace, which str.split() uses


def unigram_aligned(text: str, normalization: str) -> tuple[str, list[int], list[int]]:
    """tokref.unigram's normalization with the span of ``text`` behind each character;
    NFKC spans are the segments of :func:`nfkc_segments` (tokref's own
    ``encode_with_offsets`` uses grapheme clusters, which the twin cannot reproduce
    exactly; the ids are the same)."""
    n = len(text)
    if normalization == "identity":
        return text, list(range(n)), list(range(1, n + 1))
    parts, st, en = [], [], []
    for a, b in nfkc_segments(text):
        piece = unicodedata.normalize("NFKC", text[a:b])
        parts.append(piece)
        st += [a] * len(piece)
        en += [b] * len(piece)
    return collapse_whitespace_aligned("".join(parts), st, en)


def unigram_view(tok: Any, text: str) -> dict[str, Any]:
    """tokref.unigram.UnigramTokenizer.encode_with_offsets with the spans of
    :func:`unigram_aligned`: what the JavaScript twin computes."""
    norm, st, en = unigram_aligned(text, tok.normalization)
    if tok.add_dummy_prefix and norm:
        st = [st[0], *st]
        en = [st[0], *en]
    unk = unk_id(tok)
    fuse = None if tok.byte_fallback else unk
    toks: list[list[int]] = []
    o = 0
    for unit in tok.split_units(norm):
        ids, spans = tok.encode_unit(unit)
        for i, (a, b) in zip(ids, spans):
            if i == fuse and toks and toks[-1][0] == fuse:
                toks[-1][2] = en[o + b - 1]
            else:
                toks.append([i, st[o + a], en[o + b - 1], UNK if i == unk else 0])
        o += len(unit)
    return {"mode": "chars", "toks": toks}


def unigram_spec(tok: Any) -> dict[str, Any]:
    """The Unigram twin's data: pieces and scores, the settings, the Unicode tables."""
    first = len(tok.special_tokens) + (256 if tok.byte_fallback else 0)
    tables: dict[str, Any] = {"space": _flat(_py_space())}
    if tok.normalization == "nfkc":
        tables.update(nfkc_tables())
    pieces = [tok.id_to_token(i) for i in range(tok.vocab_size)]
    return {"engine": "unigram", "pieces": pieces, "scores": tok.scores[first:], "first": first,
            "n_special": len(tok.special_tokens), "unk": unk_id(tok), "unk_score": tok.unk_score,
            "byte_base": tok.byte_base, "byte_fallback": tok.byte_fallback,
            "normalization": tok.normalization, "dummy_prefix": tok.add_dummy_prefix,
            "split": tok.split_by_whitespace, "tables": tables}


# ---------------------------------------------------------------------------
# Views: the tokens of a text with the best offsets a tokenizer can give
# ---------------------------------------------------------------------------


def view(tok: object, text: str) -> dict[str, Any]:
    """The tokens of ``text`` with the best offsets ``tok`` can give: bytes for
    byte-level tokenizers, characters with ``encode_with_offsets``, else pieces."""
    unk = unk_id(tok)
    kind = tokref_kind(tok)
    single = getattr(tok, "decode_single_token_bytes", None)
    if kind == "bytelevel" or (kind is None and callable(single)):
        ids = encode_plain(tok, text)
        try:
            lens = [len(single(i)) for i in ids]  # type: ignore[misc]
        except Exception:  # noqa: BLE001
            lens = None
        if lens is not None and sum(lens) == len(text.encode("utf-8")):
            toks, pos = [], 0
            for i, n in zip(ids, lens):
                toks.append([i, pos, pos + n, UNK if i == unk else 0])
                pos += n
            return {"mode": "bytes", "toks": toks}
    if kind == "unigram":
        return unigram_view(tok, text)
    with_offsets = getattr(tok, "encode_with_offsets", None)
    if callable(with_offsets):
        try:
            # Byte-level: special-token text is plain text, whatever the tokenizer allows.
            ts = (with_offsets(text, allowed_special=(), disallowed_special=()) if kind == "bytelevel"
                  else with_offsets(text))
            toks = [[int(t.id), int(t.start), int(t.end), UNK if t.id == unk else 0] for t in ts]
            return {"mode": "chars", "toks": toks}
        except Exception:  # noqa: BLE001 - fall back to pieces
            pass
    ids = encode_plain(tok, text)
    return {"mode": "pieces", "toks": [[i, k, k + 1, UNK if i == unk else 0] for k, i in enumerate(ids)]}
