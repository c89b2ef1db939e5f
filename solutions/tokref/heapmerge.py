"""Ranked merges on one long word with a heap: the same merges as the simple scans of
:mod:`tokref.ranks` and :mod:`tokref.merges`, in O(n log n) instead of O(n²).

The scans find the lowest-ranked adjacent pair by looking at every pair, once per merge:
a word of n symbols takes up to n merges, so n² pair looks. A pre-token of real text
has a few bytes and the scan (a ``min`` in C) is the fastest way, but one long piece —
a minified line, a base64 blob, 100,000 ``a`` — makes it quadratic (issue 21). tiktoken
0.13 switched pieces of 100 bytes and more to a heap (its ``_byte_pair_merge_large``);
these kernels mirror it:

- every adjacent pair that has a rank is a heap entry ``(rank, start)``, packed in one
  int ``rank << shift | start`` so that the heap compares ints in C: the lowest rank
  comes first and, among equal ranks, the **leftmost** start, the scans' tie rule;
- the word is a linked list of parts (a part knows its neighbours), so a merge changes
  O(1) entries: the merged part's pair with its new right neighbour, and the pair of
  its left neighbour, are pushed anew;
- an entry is not removed when its pair changes: ``keys[start]`` holds the one valid
  key of each start, and a popped entry that differs from it is stale and skipped.

The order of the merges, hence the result, is that of the scans (the tests compare them
with Hypothesis, on rank tables full of equal-rank repeats, and with tiktoken). Ranks
must be ints. The callers use these above a length where they are faster than the scan
(measured: :data:`HEAP_MIN_BYTES`, :data:`HEAP_MIN_SYMBOLS`).

>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3}
>>> heap_bounds(b"aabab", ranks, 1 << 32)  # ab (the leftmost), ab, then aab is not a token
[0, 1, 3, 5]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from heapq import heapify, heappop, heappush
from itertools import compress
from typing import TypeVar

__all__ = ["HEAP_MIN_BYTES", "HEAP_MIN_SYMBOLS", "heap_bounds", "heap_ranked_merges", "heap_sample_merges"]

S = TypeVar("S", bound=Hashable)  # a symbol: an id, a str or bytes

#: Pieces of this many bytes or more are merged with a heap (:func:`heap_bounds`) by
#: ``tokref.ranks.bpe_encode_piece`` and ``bpe_split_piece``, shorter ones by the scan.
#: Measured with cl100k_base (CPU time per piece, best of 15 runs of 400 pieces, 2-core
#: x86_64, Python 3.11), heap/scan: 1.13-1.32 at 12 bytes, 1.00-1.27 at 16, 0.96-1.16 at
#: 24, 0.90-1.11 at 32, 0.77-0.97 at 48, 0.68-0.82 at 64 (the ranges: random letters,
#: slices of Shakespeare, "aaa..."). tiktoken switches at 100 bytes, in Rust. Pre-tokens
#: of text are nearly all shorter than 16 bytes (Shakespeare's: 99.9 %).
HEAP_MIN_BYTES = 32

#: Words of this many symbols or more are merged with a heap by ``tokref.merges``'
#: iter_ranked_merges, apply_ranked_merges and sample_ranked_merges; shorter ones by the
#: scan. Measured with a BPETokenizer of 8,000 trained on the shipped Shakespeare (CPU time
#: per word, best of 7 runs of 200 words, 2-core x86_64, Python 3.11), heap/scan for
#: apply_ranked_merges and for sample_ranked_merges at dropout 0.1: 1.33-1.70 and 1.12-1.25
#: at 8 symbols, 0.87-1.45 and 0.77-1.14 at 16, 0.65-0.99 and 0.57-1.05 at 24, 0.28-0.78
#: and 0.24-0.91 at 64 (the ranges: random letters, Shakespeare without spaces, "aaa...",
#: whose few distinct merges suit the scan). Words of text are shorter than 16.
HEAP_MIN_SYMBOLS = 16


def heap_bounds(
    piece: bytes | str, ranks: Mapping[bytes, int] | Mapping[str, int], limit: int
) -> list[int]:
    """The start of every token of ``piece``, then ``len(piece)``: tiktoken's rule (the
    adjacent pair whose concatenation has the lowest rank in ``ranks``, below ``limit``,
    merged first; the leftmost on a tie), as ``tokref.ranks.bpe_split_piece`` gives it.
    ``piece`` may also be a ``str`` with ``str`` ranks: the same rule on characters (the
    reference of the ``speed`` assignment's Part 4; ``tests/test_assignment_refs_speed.py``).

    >>> heap_bounds(b"aaaa", {b"a": 0, b"aa": 1}, 1 << 32)
    [0, 2, 4]
    >>> heap_bounds("aaab", {"aa": 0, "ab": 1}, 1 << 32)  # aa (the leftmost), then a + b
    [0, 2, 4]
    """
    n = len(piece)
    get = ranks.get
    pair_ranks = [get(piece[i : i + 2], limit) for i in range(n - 1)]  # `limit`: no rank
    if not pair_ranks or min(pair_ranks) >= limit:
        return list(range(n + 1))  # nothing to merge (a run of bytes the table never joins)
    shift = n.bit_length()  # a start fits in the low `shift` bits of a key
    mask = (1 << shift) - 1
    heap = [r << shift | i for i, r in enumerate(pair_ranks) if r < limit]
    keys = [-1] * n  # keys[i]: the valid key of the pair at i; -1: none (never a key)
    for k in heap:
        keys[k & mask] = k
    heapify(heap)
    end = list(range(1, n + 1))  # end[i]: the end of the part that starts at i
    prev = list(range(-1, n - 1))  # prev[i]: the start of the part before it
    while heap:
        k = heappop(heap)
        i = k & mask
        if keys[i] != k:
            continue  # stale: the pair at i changed (or i was merged into its left)
        j = end[i]  # merge piece[i:j] with piece[j:m]
        m = end[j]
        end[i] = m
        end[j] = 0  # j is no longer a start
        keys[j] = -1
        if m < n:  # the merged part and the part after it
            prev[m] = i
            r = get(piece[i : end[m]], limit)
            keys[i] = k = r << shift | i
            if r < limit:
                heappush(heap, k)
        else:
            keys[i] = -1
        if i:  # the part before and the merged part
            h = prev[i]
            r = get(piece[h:m], limit)
            keys[h] = k = r << shift | h
            if r < limit:
                heappush(heap, k)
    bounds = list(compress(range(n), end))  # the starts still alive (end 0: merged away)
    bounds.append(n)
    return bounds


class _Parts:
    """A word as a linked list of parts, for the two symbol kernels below: ``sym[i]`` is
    the symbol of the part that starts at ``i`` (alive: ``alive[i]``), ``nxt``/``prv``
    its neighbours (``n`` and -1 at the ends), ``keys[i]`` the valid heap key of the pair
    that starts at ``i`` (None: none; a rank may be negative, and so may a key)."""

    __slots__ = ("sym", "n", "nxt", "prv", "alive", "keys", "shift", "mask", "heap")

    def __init__(self, word: Sequence[S], rank_of: Callable[[S, S], int | None], limit: float) -> None:
        self.sym = sym = list(word)
        self.n = n = len(sym)
        self.nxt = list(range(1, n + 1))
        self.prv = list(range(-1, n - 1))
        self.alive = bytearray(b"\x01") * n
        self.shift = shift = n.bit_length()
        self.mask = (1 << shift) - 1
        self.keys = keys = [None] * n  # type: list[int | None]
        heap = []
        for i, r in enumerate(map(rank_of, sym, sym[1:])):
            if r is not None and r < limit:
                keys[i] = k = r << shift | i
                heap.append(k)
        heapify(heap)
        self.heap = heap

    def word(self) -> list[S]:
        return list(compress(self.sym, self.alive))

    def join(self, i: int, new: S) -> None:
        """Merge the part at ``i`` with the next one into ``new`` (no keys updated but
        the absorbed part's)."""
        q = self.nxt[i]
        self.sym[i] = new
        self.alive[q] = 0
        self.keys[q] = None
        nq = self.nxt[i] = self.nxt[q]
        if nq < self.n:
            self.prv[nq] = i

    def rekey(self, i: int, rank_of: Callable[[S, S], int | None], limit: float) -> None:
        """Give the pair that starts at part ``i`` its current key, pushed if it changed."""
        nq = self.nxt[i]
        r = rank_of(self.sym[i], self.sym[nq]) if nq < self.n else None
        k = r << self.shift | i if r is not None and r < limit else None
        if k != self.keys[i]:
            self.keys[i] = k
            if k is not None:
                heappush(self.heap, k)


def heap_ranked_merges(
    word: Sequence[S],
    ranks: Mapping[tuple[S, S], int],
    limit: float,
    new_symbol: Callable[[S, S, int], S] | None = None,
) -> Iterator[tuple[int, int, Callable[[], list[S]]]]:
    """The steps of ``tokref.merges.iter_ranked_merges``: take the adjacent pair of
    lowest rank below ``limit`` (the leftmost on a tie) and merge **every** occurrence of
    it, left to right without overlap, into ``new_symbol(a, b, rank)`` (default
    ``a + b``). Yields ``(rank, occurrences, word)`` after each step, ``word()`` giving
    the word as a new list (only if asked: ``apply_ranked_merges`` needs the last one).

    All occurrences of the pair have its rank, so they are among the heap's next entries,
    those of that rank, in left-to-right order. They are all taken off the heap before
    any is merged, so that a pair this step makes waits for the next step, as in
    ``merge_pair``; the pairs around them are re-keyed once the step is done.

    >>> [(r, c, w()) for r, c, w in heap_ranked_merges("aaab", {("a", "a"): 0, ("aa", "a"): 1}, 9)]
    [(0, 1, ['aa', 'a', 'b']), (1, 1, ['aaa', 'b'])]
    """
    get = ranks.get
    rank_of = lambda a, b: get((a, b))  # noqa: E731
    parts = _Parts(word, rank_of, limit)
    heap, keys, sym, nxt, prv, alive = parts.heap, parts.keys, parts.sym, parts.nxt, parts.prv, parts.alive
    shift, mask = parts.shift, parts.mask
    while heap:
        k = heappop(heap)
        i = k & mask
        if keys[i] != k:
            continue
        keys[i] = None
        rank = k >> shift
        a, b = sym[i], sym[nxt[i]]
        found, others = [i], []
        while heap and heap[0] >> shift == rank:
            k = heappop(heap)
            p = k & mask
            if keys[p] == k:
                keys[p] = None
                if sym[p] == a and sym[nxt[p]] == b:
                    found.append(p)
                else:
                    others.append(k)
        new = new_symbol(a, b, rank) if new_symbol is not None else a + b  # type: ignore[operator]
        merged, touched = 0, []
        for p in found:
            if alive[p]:  # else it was the right half of the occurrence before it
                parts.join(p, new)
                merged += 1
                touched.append(p)
                if p:
                    touched.append(prv[p])
        for k in others:  # pairs of this rank but not this pair: back into the heap
            p = k & mask
            if alive[p]:
                keys[p] = k
                heappush(heap, k)
        for p in touched:
            if alive[p]:
                parts.rekey(p, rank_of, limit)
        yield rank, merged, parts.word


def heap_sample_merges(
    word: Sequence[S],
    rank_of: Callable[[S, S], int | None],
    dropout: float,
    rng: random.Random,
) -> list[S]:
    """``tokref.merges.sample_ranked_merges`` (BPE-dropout) with a heap: each step pops
    the candidate merges in order of rank, the leftmost first on a tie, drawing
    ``rng.random()`` for each until one is not skipped (``>= dropout``); that one is
    merged (one occurrence, into ``a + b``), the skipped ones go back. The candidates are
    considered, and the random numbers drawn, in the scan's order, so a seed gives the
    scan's segmentation. Every candidate skipped ends the word.

    >>> rank_of = {("a", "b"): 0, ("ab", "c"): 1}.get
    >>> heap_sample_merges("abc", lambda a, b: rank_of((a, b)), 0.0, random.Random(0))
    ['abc']
    """
    limit = float("inf")
    parts = _Parts(word, rank_of, limit)
    heap, keys, sym, nxt, prv, mask = parts.heap, parts.keys, parts.sym, parts.nxt, parts.prv, parts.mask
    draw = rng.random
    while True:
        skipped = []
        i = -1
        while heap:
            k = heappop(heap)
            p = k & mask
            if keys[p] != k:
                continue
            keys[p] = None
            if draw() >= dropout:
                i = p
                break
            skipped.append(k)
        if i < 0:
            return parts.word()  # no candidate left, or every one skipped
        parts.join(i, sym[i] + sym[nxt[i]])  # type: ignore[operator]
        left = prv[i]
        for k in skipped:  # unchanged pairs keep their key; the two around i are re-keyed
            p = k & mask
            if parts.alive[p] and p != left:
                keys[p] = k
                heappush(heap, k)
        parts.rekey(i, rank_of, limit)
        if left >= 0:
            parts.rekey(left, rank_of, limit)
