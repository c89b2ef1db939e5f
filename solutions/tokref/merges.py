"""The BPE training rule, shared by character-level and byte-level BPE.

**The rule** (Sennrich et al. 2016, with every choice written down so that results are
exactly reproducible):

1. The corpus is a multiset of *words* (pre-tokens), each a sequence of symbols, with a
   count. Pairs never cross a word boundary, so they never cross a pre-token or a
   special token either.
2. Count every adjacent pair inside each word, weighted by the word's count.
   Overlapping occurrences count: ``aaa`` holds two ``(a, a)``.
3. Merge the most frequent pair. **On a tie, take the lexicographically greatest pair**,
   comparing the two symbols' strings (``bytes`` for byte-level BPE) as Python
   compares tuples: ``(b"e", b"s") > (b"e", b"r")`` and ``(b"ab", b"c") > (b"a", b"bc")``.
4. Replace the pair in every word, left to right, without overlap: ``a a a`` becomes
   ``aa a``. The merged symbol is new; its id is the next free id.
5. Repeat until the requested number of merges is reached or no pair is left (a pair
   that occurs once is still merged).

>>> words = {(ord("h"), ord("u"), ord("g")): 10, (ord("p"), ord("u"), ord("g")): 5}
>>> count_pairs(words)[(ord("u"), ord("g"))]
15
>>> merge_pair([1, 1, 1], (1, 1), 9)
[9, 1]
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["count_pairs", "merge_pair", "best_pair", "train_merges", "MergeStep"]

K = TypeVar("K", bytes, str)


def count_pairs(words: Mapping[tuple[int, ...], int]) -> dict[tuple[int, int], int]:
    """Counts of adjacent symbol pairs, each word weighted by its count.

    >>> count_pairs({(1, 1, 1): 2, (1, 2): 1})
    {(1, 1): 4, (1, 2): 1}
    """
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for word, c in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += c
    return dict(counts)


def merge_pair(word: Sequence[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """``word`` with every occurrence of ``pair`` replaced by ``new_id``, left to right,
    without overlap.

    >>> merge_pair([1, 2, 1, 2, 2], (1, 2), 7)
    [7, 7, 2]
    """
    a, b = pair
    out: list[int] = []
    i, n = 0, len(word)
    while i < n:
        if i + 1 < n and word[i] == a and word[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def best_pair(
    counts: Mapping[tuple[int, int], int], key: Callable[[int], K]
) -> tuple[int, int]:
    """The most frequent pair; on a tie, the one whose ``(key(a), key(b))`` is greatest.

    This is the rule stated by its definition: O(number of pairs) per call. ``train_merges``
    gets the same answer from a heap.

    >>> best_pair({(1, 2): 3, (2, 1): 3, (0, 0): 1}, key=lambda i: "xyz"[i])
    (2, 1)
    """
    return max(counts, key=lambda p: (counts[p], key(p[0]), key(p[1])))


class _Desc(Generic[K]):
    """Reverses the order of a key, so that a min-heap pops the *greatest* key first."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[K, K]) -> None:
        self.key = key

    def __lt__(self, other: _Desc[K]) -> bool:
        return self.key > other.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.key == other.key


@dataclass(frozen=True)
class MergeStep:
    """One step of training: ``pair`` (as ids) was merged into ``new_id``; it occurred
    ``count`` times (weighted) when it was chosen."""

    rank: int
    pair: tuple[int, int]
    count: int
    new_id: int


def train_merges(
    words: Mapping[tuple[int, ...], int],
    symbols: list[K],
    n_merges: int,
    *,
    progress: bool = False,
    trace: list[MergeStep] | None = None,
) -> list[tuple[int, int]]:
    """Learn up to ``n_merges`` merges from ``words`` (symbol-id tuple → count).

    ``symbols[i]`` is the string (``bytes`` or ``str``) of symbol ``i``; it is extended
    in place with each merged symbol, whose id is its index. Returns the merges as id
    pairs in order; if ``trace`` is a list, a :class:`MergeStep` is appended per merge.

    Efficient: the pair counts are built once, then updated only for the words that
    contain the merged pair (``where`` indexes them); a heap with lazy deletion finds
    the best pair. A heap entry is stale when its count no longer equals the pair's
    current count; every change of a count pushes a fresh entry.

    >>> syms = [b"a", b"b"]
    >>> train_merges({(0, 0, 0, 1): 1}, syms, 2)
    [(0, 0), (2, 0)]
    >>> syms[2:]
    [b'aa', b'aaa']
    """
    if n_merges < 0:
        raise ValueError(f"n_merges must be >= 0, not {n_merges}")
    word_list = [list(w) for w in words]
    counts = list(words.values())
    pair_counts: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    for wi, w in enumerate(word_list):
        c = counts[wi]
        for pair in zip(w, w[1:]):
            pair_counts[pair] += c
            where[pair].add(wi)
    heap = [(-c, _Desc((symbols[p[0]], symbols[p[1]])), p) for p, c in pair_counts.items()]
    heapq.heapify(heap)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_merges, desc="merges", unit="merge")

    merges: list[tuple[int, int]] = []
    while len(merges) < n_merges and heap:
        neg, _, pair = heapq.heappop(heap)
        count = pair_counts.get(pair, 0)
        if count != -neg or count <= 0:
            continue  # stale entry
        a, b = pair
        new_id = len(symbols)
        symbols.append(symbols[a] + symbols[b])
        merges.append(pair)
        if trace is not None:
            trace.append(MergeStep(len(merges) - 1, pair, count, new_id))

        delta: dict[tuple[int, int], int] = defaultdict(int)
        for wi in where.pop(pair):
            w = word_list[wi]
            nw = merge_pair(w, pair, new_id)
            if len(nw) == len(w):
                continue  # the word lost this pair in an earlier merge
            c = counts[wi]
            for p in zip(w, w[1:]):
                delta[p] -= c
            for p in zip(nw, nw[1:]):
                delta[p] += c
                where[p].add(wi)
            word_list[wi] = nw
        for p, d in delta.items():
            if d == 0:
                continue
            c = pair_counts[p] + d
            if c > 0:
                pair_counts[p] = c
                heapq.heappush(heap, (-c, _Desc((symbols[p[0]], symbols[p[1]])), p))
            else:
                del pair_counts[p]
        pair_counts.pop(pair, None)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return merges
