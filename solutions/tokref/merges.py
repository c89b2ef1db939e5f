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
from types import GenericAlias
from typing import Generic, Hashable, NamedTuple, TypeVar

from .checks import check_int
from .heapmerge import HEAP_MIN_SYMBOLS, heap_ranked_merges, heap_sample_merges

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
    "descending_key",
    "merge_order",
    "PairHeap",
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
    word = list(word)
    limit = float("inf") if max_rank is None else max_rank
    if len(word) >= HEAP_MIN_SYMBOLS:
        for rank, merged, current in heap_ranked_merges(word, ranks, limit, new_symbol):
            yield rank, merged, current()
    else:
        yield from _iter_ranked_merges_scan(word, ranks, limit, new_symbol)


def _iter_ranked_merges_scan(
    word: Sequence[S],
    ranks: Mapping[tuple[S, S], int],
    limit: float,
    new_symbol: Callable[[S, S, int], S] | None,
) -> Iterator[tuple[int, int, list[S]]]:
    """:func:`iter_ranked_merges` by the rule's definition, the oracle of the heap
    (:func:`tokref.heapmerge.heap_ranked_merges`): look at every pair for the lowest
    rank after every merge, O(n) each time; the fastest way for a short word."""
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
    word = list(word)
    if len(word) >= HEAP_MIN_SYMBOLS:  # the word only at the end, not after every step
        limit = float("inf") if max_rank is None else max_rank
        current = None
        for _, _, current in heap_ranked_merges(word, ranks, limit, new_symbol):
            pass
        return word if current is None else current()
    out = word
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

    A long word is merged with a heap (:func:`tokref.heapmerge.heap_sample_merges`),
    which considers the candidates, and draws the random numbers, in the same order:
    the same seed gives the same segmentation either way.
    """
    word = list(word)
    if len(word) >= HEAP_MIN_SYMBOLS:
        return heap_sample_merges(word, rank_of, dropout, rng)
    return _sample_ranked_merges_scan(word, rank_of, dropout, rng)


def _sample_ranked_merges_scan(
    word: Sequence[S], rank_of: Callable[[S, S], int | None], dropout: float, rng: random.Random
) -> list[S]:
    """:func:`sample_ranked_merges` by the rule's definition, the oracle of the heap: at
    every step, every candidate, sorted. O(n log n) per merge; fastest on short words."""
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

    The rule stated by its definition, independently of :func:`merge_order` (whose keys
    it checks): O(number of pairs) per call, the test oracle's choice
    (:func:`train_merges_naive`). ``train_merges`` gets the same answer from :class:`PairHeap`.

    >>> best_pair({(1, 2): 3, (2, 1): 3, (0, 0): 1}, key=lambda i: "xyz"[i])
    (2, 1)
    """
    return max(counts, key=lambda p: (counts[p], key(p[0]), key(p[1])))


def descending_key(symbol: K) -> K:
    """A string that sorts the other way round: ``descending_key(a) < descending_key(b)``
    exactly when ``a > b``, for ``bytes`` or ``str`` alike, and the keys are prefix-free,
    so ``descending_key(a) + descending_key(b)`` sorts the pairs ``(a, b)`` in descending
    order too. :func:`merge_order` orders pairs of equal count by it, with comparisons
    in C.

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


def merge_order(count: int, left: K, right: K) -> tuple[int, K]:
    """**The tie rule**, as the one sort key every ordered structure uses: the smaller the
    key, the sooner the pair merges. The most frequent pair first; of pairs with one
    count, the greatest ``(left, right)`` pair of symbol strings (rule 3 of the module
    docstring). ``left`` and ``right`` are :func:`descending_key` of the two symbols
    (callers that order many pairs compute them once per symbol).

    >>> k = {s: descending_key(s) for s in (b"e", b"r", b"s")}
    >>> sorted([(5, b"e", b"r"), (5, b"e", b"s"), (7, b"r", b"e")],
    ...        key=lambda t: merge_order(t[0], k[t[1]], k[t[2]]))
    [(7, b'r', b'e'), (5, b'e', b's'), (5, b'e', b'r')]
    """
    return (-count, left + right)


class PairHeap(Generic[K]):
    """The live pairs of ``counts`` in the order of the tie rule (:func:`merge_order`): a
    min-heap with lazy deletion, the one priority structure of training and of the merge
    explorer's replay.

    ``counts`` is the live table (``PairCounts.counts``, updated in place by its
    ``merge``); ``keys[i]`` is the :func:`descending_key` of symbol ``i`` (a list that
    training extends with :meth:`add_symbol`, or a mapping). An entry is stale when its
    count is no longer the pair's count: :meth:`update` pushes a fresh entry for every
    changed count, :meth:`pop` and :meth:`top` skip stale ones, and the stale entries are
    dropped once they outnumber the live pairs by half (memory within 1.5 times the live
    pairs; a rebuild follows at least half as many pushes: O(1) amortised).

    >>> counts = {(0, 1): 2, (1, 0): 2, (0, 0): 1}
    >>> heap = PairHeap(counts, [descending_key(b"a"), descending_key(b"b")])
    >>> heap.top(2)
    [((1, 0), 2), ((0, 1), 2)]
    >>> counts[(1, 0)] = 1; heap.update({(1, 0): 1})
    >>> heap.pop()
    ((0, 1), 2)
    """

    def __init__(self, counts: Mapping[tuple[int, int], int], keys: Sequence[K] | Mapping[int, K]) -> None:
        self.counts = counts
        self.keys = keys
        self.heap = [(*merge_order(c, keys[a], keys[b]), (a, b)) for (a, b), c in counts.items()]
        heapq.heapify(self.heap)

    def add_symbol(self, a: int, b: int) -> None:
        """Give the next symbol, ``a`` + ``b`` merged, its key (training's ``keys`` list)."""
        keys = self.keys
        keys.append(keys[a][:-1] + keys[b])  # type: ignore[union-attr]  # descending_key(s_a + s_b)

    def update(self, changed: Mapping[tuple[int, int], int]) -> None:
        """Push the pairs whose count changed (a count of 0: gone, nothing to push)."""
        heap, keys = self.heap, self.keys
        for (a, b), c in changed.items():
            if c > 0:  # (*merge_order(c, keys[a], keys[b]), (a, b)), inlined: millions of pushes
                heapq.heappush(heap, (-c, keys[a] + keys[b], (a, b)))
        if 2 * len(heap) > 3 * len(self.counts) + 2048:
            counts = self.counts
            self.heap = [e for e in heap if counts.get(e[2]) == -e[0]]
            heapq.heapify(self.heap)

    def pop(self) -> tuple[tuple[int, int], int] | None:
        """The next pair to merge and its count, taken off the heap; None when none is left."""
        heap, counts = self.heap, self.counts
        while heap:
            neg, _, pair = heapq.heappop(heap)
            if counts.get(pair, 0) == -neg > 0:
                return pair, -neg
        return None

    def top(self, n: int) -> list[tuple[tuple[int, int], int]]:
        """The ``n`` next pairs with their counts, left on the heap."""
        found, seen = [], set()
        heap, counts = self.heap, self.counts
        while heap and len(found) < n:
            entry = heapq.heappop(heap)
            if counts.get(entry[2], 0) == -entry[0] > 0 and entry[2] not in seen:
                seen.add(entry[2])
                found.append(entry)
        for entry in found:
            heapq.heappush(heap, entry)
        return [(pair, -neg) for neg, _, pair in found]


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


class MergeResult(NamedTuple):
    """What :func:`train_merges` learnt: the merges as id pairs in order, the symbol table
    (the given symbols, then one per merge: ``symbols[new_id]``) and one
    :class:`MergeStep` per merge."""

    merges: list[tuple[int, int]]
    symbols: list[K]
    steps: list[MergeStep]

    # MergeResult[bytes] (or [K]) as for a generic class: a NamedTuple cannot also subclass
    # Generic before Python 3.11 (TypeError at import), so the subscript is spelt out.
    __class_getitem__ = classmethod(GenericAlias)


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
    of the merged pair (:class:`PairCounts`); :class:`PairHeap` finds the best pair.

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
    heap = PairHeap(index.counts, [descending_key(s) for s in symbols])

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_merges, desc="merges", unit="merge")

    merges: list[tuple[int, int]] = []
    steps: list[MergeStep] = []
    while len(merges) < n_merges and (best := heap.pop()) is not None:
        pair, count = best
        new_id = len(symbols)
        symbols.append(symbols[pair[0]] + symbols[pair[1]])
        heap.add_symbol(*pair)
        merges.append(pair)
        if keep_steps:
            steps.append(MergeStep(len(merges) - 1, pair, count, new_id))
        heap.update(index.merge(pair, new_id))
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
