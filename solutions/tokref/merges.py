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
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Hashable, NamedTuple, TypeVar

from .base import check_int

__all__ = [
    "count_pairs",
    "merge_pair",
    "iter_ranked_merges",
    "apply_ranked_merges",
    "sample_ranked_merges",
    "best_pair",
    "train_merges",
    "train_merges_naive",
    "MergeResult",
    "MergeStep",
    "PairCounts",
    "Descending",
    "descending_key",
]

K = TypeVar("K", bytes, str)
S = TypeVar("S", bound=Hashable)  # a symbol: an id, a str or bytes


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


def merge_pair(word: Sequence[S], pair: tuple[S, S], new: S) -> list[S]:
    """``word`` with every occurrence of ``pair`` replaced by ``new``, left to right,
    without overlap. Symbols may be ids, strings or bytes: this is the one merge step of
    tokref, used by training, encoding, WordPiece and the explorer.

    >>> merge_pair([1, 2, 1, 2, 2], (1, 2), 7)
    [7, 7, 2]
    >>> merge_pair(["a", "a", "a"], ("a", "a"), "aa")  # no overlap: the third a stays
    ['aa', 'a']
    """
    a, b = pair
    out: list[S] = []
    i, n = 0, len(word)
    while i < n:
        if i + 1 < n and word[i] == a and word[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def iter_ranked_merges(
    word: Sequence[S],
    ranks: Mapping[tuple[S, S], int],
    *,
    max_rank: int | None = None,
    new_symbol: Callable[[S, S, int], S] | None = None,
) -> Iterator[tuple[int, int, list[S]]]:
    """Apply learnt merges to one word, yielding ``(rank, occurrences, word)`` after each.

    Repeatedly take the adjacent pair of lowest rank in ``ranks`` (only ranks below
    ``max_rank``, if given) and merge **every** occurrence of it, left to right without
    overlap (:func:`merge_pair`): the same pair elsewhere in the word has the same rank,
    so it would be merged next anyway. Stop when no adjacent pair has a rank. The merged
    symbol is ``new_symbol(a, b, rank)``, by default ``a + b``. ``occurrences`` is how
    many occurrences that merge replaced (what the merge explorer counts).

    >>> ranks = {("a", "a"): 0, ("aa", "b"): 1}
    >>> list(iter_ranked_merges(["a", "a", "a", "a", "b"], ranks))
    [(0, 2, ['aa', 'aa', 'b']), (1, 1, ['aa', 'aab'])]
    """
    limit = float("inf") if max_rank is None else max_rank
    get = ranks.get
    out = list(word)
    while len(out) > 1:
        best, best_i = limit, -1
        for i in range(len(out) - 1):
            r = get((out[i], out[i + 1]))
            if r is not None and r < best:
                best, best_i = r, i
        if best_i < 0:
            return
        a, b = out[best_i], out[best_i + 1]
        rank = int(best)
        merged = new_symbol(a, b, rank) if new_symbol is not None else a + b  # type: ignore[operator]
        n = len(out)
        out = merge_pair(out, (a, b), merged)
        yield rank, n - len(out), out


def apply_ranked_merges(
    word: Sequence[S],
    ranks: Mapping[tuple[S, S], int],
    *,
    max_rank: int | None = None,
    new_symbol: Callable[[S, S, int], S] | None = None,
) -> list[S]:
    """``word`` after every merge :func:`iter_ranked_merges` applies: the encoding of
    one word with learnt merges (character-level BPE, the ``bpe`` assignment's ids).

    >>> apply_ranked_merges(["l", "o", "w"], {("l", "o"): 0, ("lo", "w"): 1})
    ['low']
    >>> apply_ranked_merges([97, 97, 98], {(97, 97): 0}, new_symbol=lambda a, b, r: 256 + r)
    [256, 98]
    """
    out = list(word)
    for _, _, out in iter_ranked_merges(word, ranks, max_rank=max_rank, new_symbol=new_symbol):
        pass
    return out


def sample_ranked_merges(
    word: Sequence[S],
    rank_of: Callable[[S, S], int | None],
    *,
    dropout: float,
    rng: random.Random,
) -> list[S]:
    """BPE-dropout (Provilkov et al. 2020) on one word: the merges of ranked BPE, each
    skipped at random. ``rank_of(a, b)`` is the rank of merging adjacent symbols ``a``
    and ``b`` (``None``: no such merge); the merged symbol is ``a + b``.

    At each step, the candidate merges (every adjacent position whose pair has a rank)
    are considered in order of rank, the leftmost first on equal ranks, and each is
    skipped with probability ``dropout``; the first not skipped is applied at its
    position. When every candidate is skipped the word is done, as in the paper and in
    Hugging Face ``tokenizers``. ``dropout=0`` is plain BPE, one occurrence at a time
    (the same result as merging every occurrence of the best pair at once, which
    :func:`iter_ranked_merges` does); ``dropout=1`` leaves the word unmerged. The random
    draws come from ``rng`` only, so a seed reproduces a segmentation.

    >>> ranks = {("a", "b"): 0, ("ab", "c"): 1}
    >>> sample_ranked_merges(list("abc"), lambda a, b: ranks.get((a, b)), dropout=0.0, rng=random.Random(0))
    ['abc']
    >>> sample_ranked_merges(list("abc"), lambda a, b: ranks.get((a, b)), dropout=1.0, rng=random.Random(0))
    ['a', 'b', 'c']
    """
    out = list(word)
    while len(out) > 1:
        candidates = []
        for i in range(len(out) - 1):
            r = rank_of(out[i], out[i + 1])
            if r is not None:
                candidates.append((r, i))
        candidates.sort()
        for _, i in candidates:
            if rng.random() >= dropout:
                out[i : i + 2] = [out[i] + out[i + 1]]  # type: ignore[operator]
                break
        else:
            return out  # no candidate left, or every one skipped
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


class Descending(Generic[K]):
    """Reverses the order of a key, so that a min-heap pops the *greatest* key first:
    the heap key of the tie rule (of pairs with one count, the greatest
    ``(symbols[a], symbols[b])`` is merged). The merge explorer's replay uses it too.

    >>> sorted([Descending((b"a", b"b")), Descending((b"b", b"a"))])[0].key
    (b'b', b'a')
    """

    __slots__ = ("key",)

    def __init__(self, key: tuple[K, K]) -> None:
        self.key = key

    def __lt__(self, other: Descending[K]) -> bool:
        return self.key > other.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.key == other.key


def descending_key(symbol: K) -> K:
    """A string that sorts the other way round: ``descending_key(a) < descending_key(b)``
    exactly when ``a > b``, for ``bytes`` or ``str`` alike, and the keys are prefix-free,
    so ``descending_key(a) + descending_key(b)`` sorts the pairs ``(a, b)`` in descending
    order too. The heap of :func:`train_merges` orders pairs of equal count by it with
    comparisons in C (:class:`Descending` does the same in Python).

    Each unit (byte or character) ``x`` becomes two: ``1`` and its complement (``255 - x``
    or ``0x10FFFF - x``), and ``2`` ends the key. Where two keys first differ, either both
    hold a unit, whose complements compare reversed, or one has ended: its ``2`` beats the
    other's ``1``, so the longer string, the greater, comes first. The key of ``a + b`` is
    that of ``a`` without its end, then that of ``b``.

    >>> sorted([b"a", b"ab", b"b", b""], key=descending_key)
    [b'b', b'ab', b'a', b'']
    >>> descending_key("ab") == descending_key("a")[:-1] + descending_key("b")
    True
    """
    if isinstance(symbol, bytes):
        return bytes(b for x in symbol for b in (1, 255 - x)) + b"\x02"  # type: ignore[return-value]
    return "".join("\x01" + chr(0x10FFFF - ord(c)) for c in symbol) + "\x02"  # type: ignore[return-value]


@dataclass(frozen=True)
class MergeStep:
    """One step of training: ``pair`` (as ids) was merged into ``new_id``; it occurred
    ``count`` times (weighted) when it was chosen."""

    rank: int
    pair: tuple[int, int]
    count: int
    new_id: int


class PairCounts:
    """The adjacent-pair counts of a weighted corpus of words, kept exact as pairs merge.

    ``counts[pair]`` is the weighted number of occurrences of ``pair`` (only pairs that
    occur are keys); ``n_symbols`` is the weighted number of symbols, the corpus's
    length in tokens. ``merge`` updates both touching only the words that hold the pair
    (``where`` indexes them; it may also list words that no longer do), and only the
    pairs next to each occurrence.

    >>> pc = PairCounts({(1, 2, 1, 2): 1, (2, 1): 3})
    >>> pc.counts
    {(1, 2): 2, (2, 1): 4}
    >>> pc.merge((1, 2), 9)
    {(2, 1): 3, (9, 9): 1}
    >>> pc.n_symbols  # 10 symbols, less one per merged occurrence
    8
    """

    def __init__(self, words: Mapping[tuple[int, ...], int]) -> None:
        self.words = [list(w) for w in words]
        self.weights = list(words.values())
        counts: dict[tuple[int, int], int] = defaultdict(int)
        # Word indices per pair, as lists (a set costs several times the memory):
        # repeated and stale entries are allowed, and merge() skips them.
        where: dict[tuple[int, int], list[int]] = defaultdict(list)
        n_symbols = 0
        for wi, w in enumerate(self.words):
            c = self.weights[wi]
            n_symbols += c * len(w)
            for pair in zip(w, w[1:]):
                counts[pair] += c
                where[pair].append(wi)
        self.counts = dict(counts)
        self.where = where
        self.n_symbols = n_symbols

    def merge(self, pair: tuple[int, int], new_id: int) -> dict[tuple[int, int], int]:
        """Replace ``pair`` by ``new_id`` in every word, left to right, without overlap.

        Returns the pairs whose count changed, with their new count (0: gone). Only the
        pairs next to each occurrence change: (left, a) becomes (left, new) and
        (b, right) becomes (new, right); an occurrence right after another one sees the
        new symbol as its left neighbour, so "a b a b" ends with one (new, new).
        """
        a, b = pair
        words, weights, where = self.words, self.weights, self.where
        delta: dict[tuple[int, int], int] = defaultdict(int)
        merged = 0  # weighted occurrences replaced
        for wi in dict.fromkeys(where.pop(pair, ())):  # each word once
            w = words[wi]
            c = weights[wi]
            last = len(w) - 1  # a pair starts at 0..last-1
            # The a's left to visit, each found in C by index(); counting them first
            # spares the ValueError that would end the search (a raise costs more).
            todo = w.count(a) - (w[last] == a)
            i = 0
            while todo:
                i = w.index(a, i)
                todo -= 1
                if w[i + 1] == b:
                    if i > 0:
                        left = w[i - 1]
                        delta[left, a] -= c
                        delta[left, new_id] += c
                        where[left, new_id].append(wi)
                    if i + 2 <= last:
                        right = w[i + 2]
                        delta[b, right] -= c
                        delta[new_id, right] += c
                        where[new_id, right].append(wi)
                    w[i] = new_id
                    del w[i + 1]
                    last -= 1
                    merged += c
                    if a == b and i < last:  # the b just merged was one of the a's to visit
                        todo -= 1
                i += 1
        self.n_symbols -= merged
        delta.pop(pair, None)  # the merged pair is gone from every word
        counts = self.counts
        changed: dict[tuple[int, int], int] = {}
        for p, d in delta.items():
            if d == 0:
                continue
            c = counts.get(p, 0) + d
            if c > 0:
                counts[p] = c
            else:
                counts.pop(p, None)
                where.pop(p, None)  # no word holds it any more
            changed[p] = max(c, 0)
        counts.pop(pair, None)
        return changed


class MergeResult(NamedTuple, Generic[K]):
    """What :func:`train_merges` learnt: the merges as id pairs in order, the symbol table
    (the given symbols, then one per merge: ``symbols[new_id]``) and one
    :class:`MergeStep` per merge."""

    merges: list[tuple[int, int]]
    symbols: list[K]
    steps: list[MergeStep]


def train_merges(
    words: Mapping[tuple[int, ...], int],
    symbols: Sequence[K],
    n_merges: int,
    *,
    progress: bool = False,
    keep_steps: bool = True,
) -> MergeResult[K]:
    """Learn up to ``n_merges`` merges from ``words`` (symbol-id tuple → count).
    ``keep_steps=False`` leaves ``MergeResult.steps`` empty (a record per merge saved).

    ``symbols[i]`` is the string (``bytes`` or ``str``) of symbol ``i``, which the tie
    rule compares; each merged symbol gets the next id. Returns a :class:`MergeResult`;
    ``words`` and ``symbols`` are left as they were.

    Efficient: the pair counts are built once, then updated only around the occurrences
    of the merged pair (:class:`PairCounts`); a heap with lazy deletion finds the best
    pair. A heap entry is stale when its count no longer equals the pair's current
    count; every change of a count pushes a fresh entry, and the stale ones are dropped
    when they outnumber the live pairs.

    >>> merges, symbols, steps = train_merges({(0, 0, 0, 1): 1}, [b"a", b"b"], 2)
    >>> merges, symbols[2:]
    ([(0, 0), (2, 0)], [b'aa', b'aaa'])
    >>> steps[1]
    MergeStep(rank=1, pair=(2, 0), count=1, new_id=3)
    """
    n_merges = check_int(n_merges, name="n_merges", minimum=0)
    symbols = list(symbols)
    index = PairCounts(words)
    del words  # indexed: a caller's temporary can go now
    pair_counts = index.counts
    # Heap entries (-count, key of the pair, pair): the most frequent pair first, then the
    # greatest pair of symbol strings (descending_key; keys[i] is that of symbols[i]).
    keys = [descending_key(s) for s in symbols]
    heap = [(-c, keys[a] + keys[b], (a, b)) for (a, b), c in pair_counts.items()]
    heapq.heapify(heap)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_merges, desc="merges", unit="merge")

    merges: list[tuple[int, int]] = []
    steps: list[MergeStep] = []
    while len(merges) < n_merges and heap:
        neg, _, pair = heapq.heappop(heap)
        count = pair_counts.get(pair, 0)
        if count != -neg or count <= 0:
            continue  # stale entry
        new_id = len(symbols)
        symbols.append(symbols[pair[0]] + symbols[pair[1]])
        keys.append(keys[pair[0]][:-1] + keys[pair[1]])
        merges.append(pair)
        if keep_steps:
            steps.append(MergeStep(len(merges) - 1, pair, count, new_id))
        for p, c in index.merge(pair, new_id).items():
            if c > 0:
                heapq.heappush(heap, (-c, keys[p[0]] + keys[p[1]], p))
        if 2 * len(heap) > 3 * len(pair_counts) + 2048:
            # Many stale entries: keep the live ones (memory stays within 1.5 times the
            # live pairs; a rebuild follows at least half as many pushes: O(1) amortised).
            heap = [e for e in heap if pair_counts.get(e[2]) == -e[0]]
            heapq.heapify(heap)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return MergeResult(merges, symbols, steps)



def train_merges_naive(
    words: Mapping[tuple[int, ...], int], symbols: Sequence[K], n_merges: int
) -> MergeResult[K]:
    """:func:`train_merges` by the rule's definition: after every merge, count every
    pair again (:func:`count_pairs`), take :func:`best_pair` and merge it in every word
    (:func:`merge_pair`). The same result, in O(merges x symbols) time instead of time
    proportional to the occurrences each merge touches: the oracle of the tests, and the
    baseline chapter 10 profiles.

    >>> train_merges_naive({(0, 0, 0, 1): 1}, [b"a", b"b"], 2).merges
    [(0, 0), (2, 0)]
    """
    n_merges = check_int(n_merges, name="n_merges", minimum=0)
    symbols = list(symbols)
    current = dict(words)
    merges: list[tuple[int, int]] = []
    steps: list[MergeStep] = []
    while len(merges) < n_merges:
        counts = count_pairs(current)
        if not counts:
            break
        pair = best_pair(counts, key=symbols.__getitem__)
        new_id = len(symbols)
        symbols.append(symbols[pair[0]] + symbols[pair[1]])
        steps.append(MergeStep(len(merges), pair, counts[pair], new_id))
        merges.append(pair)
        merged: dict[tuple[int, ...], int] = defaultdict(int)
        for w, c in current.items():
            merged[tuple(merge_pair(w, pair, new_id))] += c
        current = dict(merged)
    return MergeResult(merges, symbols, steps)
