"""Merges replayed: the sample segmented after every number of merges, the pair counts
when each merge was chosen, and the total tokens of a corpus after each merge.

A segmentation over all steps is a list of *nodes* ``[id, start, end, birth, death]``:
a token alive from step ``birth`` up to (not including) step ``death``. The sample
after *k* merges is the nodes with ``birth <= k < death``.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import regex

from ..bpe import EOW, apply_merges, word_counts
from ..bytelevel import bpe_encode_piece
from ..merges import PairCounts, PairHeap, descending_key, iter_ranked_merges, merge_order


# ---------------------------------------------------------------------------
# The sample after k merges
# ---------------------------------------------------------------------------


def states_to_nodes(states: list[tuple[int, list[tuple[int, int, int]]]], n_steps: int) -> list[list[int]]:
    """[(first step, tokens (id, start, end)), ...] -> nodes [id, start, end, birth, death]."""
    nodes: list[list[int]] = []
    open_: dict[tuple[int, int, int], int] = {}
    for k, toks in states:
        now = set(toks)
        for t in [t for t in open_ if t not in now]:
            nodes.append([*t, open_.pop(t), k])
        for t in toks:
            if t not in open_:
                open_[t] = k
    for t, b in open_.items():
        nodes.append([*t, b, n_steps + 1])
    return nodes


def bpe_sample_nodes(tok: Any, text: str, n_steps: int) -> list[list[int]]:
    """The nodes of ``text`` for tokref's BPETokenizer: each word encoded as tokref
    encodes it with the first k merges (rank order), at every k where it changes.
    Offsets are in characters."""
    merges = tok.merges
    ranks = {m: r for r, m in enumerate(merges)}
    by_concat: dict[str, list[int]] = defaultdict(list)
    for r, (a, b) in enumerate(merges[:n_steps]):
        by_concat[a + b].append(r)
    ids, unk = tok.vocab, tok.unk_id
    nodes: list[list[int]] = []
    pos = 0
    for word in text.split():
        start = text.index(word, pos)
        pos = start + len(word)
        s = word + EOW
        # The steps where this word can change: after a merge that makes one of its substrings.
        cands = sorted({r for i in range(len(s)) for j in range(i + 2, len(s) + 1) for r in by_concat.get(s[i:j], ())})
        states = []
        for k in [0, *(c + 1 for c in cands)]:
            pieces = apply_merges([*word, EOW], ranks, max_rank=k)
            toks, off = [], start
            for p in pieces:
                i = ids.get(p)
                if i is None:
                    i = unk if unk is not None else -1
                n = 1 if (i == unk or i == -1) else len(p.removesuffix(EOW))
                toks.append((i, off, min(off + n, pos)))
                off += n
            if not states or states[-1][1] != toks:
                states.append((k, toks))
        nodes += states_to_nodes(states, n_steps)
    return nodes


def tiktoken_parts(piece: bytes, ranks: Mapping[bytes, int], limit: int) -> list[int]:
    """The ranks tokref.bytelevel encodes ``piece`` into with only the ranks below
    ``limit``: the whole piece if it is one of them, else tiktoken's byte-pair rule."""
    whole = ranks.get(piece)
    if whole is not None and whole < limit:
        return [whole]
    return bpe_encode_piece(piece, ranks, max_rank=limit)


def bytelevel_sample_nodes(ranks: Mapping[bytes, int], pattern: regex.Pattern[str], text: str,
                           n_steps: int) -> list[list[int]]:
    """The nodes of ``text`` for byte-level BPE with mergeable ``ranks`` (merge k makes
    rank 256 + k) and pre-tokenization ``pattern``. Offsets are in bytes."""
    length = {r: len(b) for b, r in ranks.items()}
    nodes: list[list[int]] = []
    byte_pos = 0
    char_pos = 0
    for m in pattern.finditer(text):
        byte_pos += len(text[char_pos : m.start()].encode("utf-8"))
        piece = m.group().encode("utf-8")
        char_pos = m.end()
        cands = sorted({
            r for i in range(len(piece)) for j in range(i + 2, len(piece) + 1)
            if (r := ranks.get(piece[i:j])) is not None and 256 <= r < 256 + n_steps
        })
        states = []
        for k in [0, *(c - 255 for c in cands)]:
            toks, off = [], byte_pos
            for r in tiktoken_parts(piece, ranks, 256 + k):
                toks.append((r, off, off + length[r]))
                off += length[r]
            if not states or states[-1][1] != toks:
                states.append((k, toks))
        nodes += states_to_nodes(states, n_steps)
        byte_pos += len(piece)
    return nodes


def trace_index(trace: Sequence[Any]) -> dict[int, tuple[int, tuple[int, int]]]:
    """new id -> (step, pair) of the first merge that made it."""
    index: dict[int, tuple[int, tuple[int, int]]] = {}
    for r, s in enumerate(trace):
        index.setdefault(int(s.new_id), (r, (int(s.pair[0]), int(s.pair[1]))))
    return index


def tree_nodes(ids: Sequence[int], index: Mapping[int, tuple[int, tuple[int, int]]], n_steps: int,
               lengths: Callable[[int], int] | None) -> list[list[int]]:
    """Undo merges: every token of the full encoding as the tree of merges that made it.

    A node made by merge r is alive for steps r+1 up to its parent's merge; leaves
    from step 0. Returns nodes [id, start, end, birth, death, root] with offsets in
    leaves (``lengths is None``) or in the units of ``lengths(id)``; ``root`` is the
    position of the final token the node belongs to.
    """
    nodes: list[list[int]] = []
    pos = 0

    def walk(i: int, death: int, below: float, root: int) -> tuple[int, int]:
        nonlocal pos
        entry = index.get(i)
        if entry is None or entry[0] >= below:  # a leaf (or a trace that loops)
            n = lengths(i) if lengths is not None else 1
            s = pos
            pos += n
            nodes.append([i, s, pos, 0, death, root])
            return s, pos
        r, (a, b) = entry
        birth = r + 1
        s, _ = walk(a, min(death, birth), r, root)
        _, e = walk(b, min(death, birth), r, root)
        if birth < death:
            nodes.append([i, s, e, birth, death, root])
        return s, e

    for root, top in enumerate(ids):
        walk(int(top), n_steps + 1, math.inf, root)
    return nodes


def traced_sample_nodes(tok: Any, ids: Sequence[int], index: Mapping[int, tuple[int, tuple[int, int]]],
                        n_steps: int, text: str) -> tuple[str, list[list[int]]]:
    """(mode, nodes with their root) of ``text`` encoded as ``ids`` by a traced tokenizer
    that is not tokref's, by undoing merges: in bytes if ``decode_single_token_bytes``
    gives the lengths of the tokens (they must add up to the text's), else in pieces."""
    single = getattr(tok, "decode_single_token_bytes", None)
    if callable(single):
        try:
            nodes = tree_nodes(ids, index, n_steps, lambda i: len(single(i)))
            if max((n[2] for n in nodes), default=0) == len(text.encode("utf-8")):
                return "bytes", nodes
        except Exception:  # noqa: BLE001 - a student's method may raise anything
            pass
    return "pieces", tree_nodes(ids, index, n_steps, None)


def sort_nodes(nodes: list[list[int]]) -> list[list[int]]:
    """Nodes in the order the page reads them: by start, end, birth."""
    return sorted(nodes, key=lambda n: (n[1], n[2], n[3]))


def _running_sums(diff: Sequence[int], n_steps: int) -> list[int]:
    out, run = [], 0
    for k in range(n_steps + 1):
        run += diff[k]
        out.append(run)
    return out


def counts_per_step(nodes: Sequence[Sequence[int]], n_steps: int) -> list[int]:
    """The number of tokens alive at each step 0..n_steps."""
    diff = [0] * (n_steps + 2)
    for n in nodes:
        b, d = n[3], min(n[4], n_steps + 1)
        if b <= n_steps:
            diff[b] += 1
            diff[d] -= 1
    return _running_sums(diff, n_steps)


# ---------------------------------------------------------------------------
# Pair counts at every step: replay the merges over a corpus
# ---------------------------------------------------------------------------


def replay_counts(
    words: Mapping[tuple[int, ...], int],
    merges: Sequence[tuple[int, int, int]],
    key: Callable[[int], Any],
    top_n: int,
) -> tuple[list[list[int]], list[int]]:
    """Apply ``merges`` (a, b -> new) in order to ``words`` (id tuple -> count).

    Returns, for every step k, the ``top_n`` pairs by count when merge k was taken
    (ties broken as in training, on ``key`` of each id) as a flat [a, b, count, ...]
    list, and the total number of tokens after k merges (k = 0..len(merges)).
    """
    index = PairCounts(words)
    ids = {i for w in words for i in w} | {i for m in merges for i in m}
    heap = PairHeap(index.counts, {i: descending_key(key(i)) for i in ids})
    tops: list[list[int]] = []
    totals = [index.n_symbols]
    for a, b, new_id in merges:
        tops.append([x for p, c in heap.top(top_n) for x in (p[0], p[1], c)])
        heap.update(index.merge((a, b), new_id))
        totals.append(index.n_symbols)
    return tops, totals


def generic_tops(nodes: Sequence[Sequence[int]], n_steps: int, top_n: int,
                 label: Callable[[int], str]) -> list[list[int]]:
    """Top pairs of adjacent tokens inside each final token of the sample, at each step
    (``nodes`` from :func:`tree_nodes`, with their root)."""
    by_root: dict[int, list[Sequence[int]]] = defaultdict(list)
    changes: dict[int, set[int]] = defaultdict(set)
    for n in nodes:
        by_root[n[5]].append(n)
        if n[3] <= n_steps:
            changes[n[3]].add(n[5])
        if n[4] <= n_steps:
            changes[n[4]].add(n[5])
    per_root: dict[int, Counter[tuple[int, int]]] = {}
    total: Counter[tuple[int, int]] = Counter()
    tops: list[list[int]] = []
    current: list[int] = []
    for k in range(n_steps):
        roots = set(by_root) if k == 0 else changes.get(k, set())
        if roots:
            for r in roots:
                if r in per_root:
                    total.subtract(per_root[r])
                alive = sorted((n for n in by_root[r] if n[3] <= k < n[4]), key=lambda n: n[1])
                c = Counter((a[0], b[0]) for a, b in zip(alive, alive[1:]))
                per_root[r] = c
                total.update(c)
            best = heapq.nsmallest(
                top_n, ((p, c) for p, c in total.items() if c > 0),
                key=lambda pc: merge_order(pc[1], descending_key(label(pc[0][0])),
                                           descending_key(label(pc[0][1]))),
            )
            current = [x for (a, b), c in best for x in (a, b, c)]
        tops.append(current)
    return tops


def tree_totals(id_counts: Mapping[int, int], index: Mapping[int, tuple[int, tuple[int, int]]],
                n_steps: int) -> list[int]:
    """Total tokens after k merges, k = 0..n_steps, of texts whose full encoding has
    ``id_counts``, by undoing merges (exact for BPE that applies merges in rank order)."""
    diff = [0] * (n_steps + 2)
    for top, freq in id_counts.items():
        for n in tree_nodes([top], index, n_steps, None):
            if n[3] <= n_steps:
                diff[n[3]] += freq
                diff[min(n[4], n_steps + 1)] -= freq
    return _running_sums(diff, n_steps)


def bpe_prefix_totals(tok: Any, texts: Iterable[str], n_steps: int) -> list[int]:
    """Tokens of ``texts`` with the first k merges of a BPETokenizer, for every k.

    Encoding applies merges in rank order and every merge it makes has a higher rank
    than the one before, so the encoding with k merges is the full encoding stopped
    before the first merge of rank >= k: one pass over the distinct words gives all k.
    """
    ranks = {m: r for r, m in enumerate(tok.merges)}
    diff = [0] * (n_steps + 1)
    total = 0
    for word, c in word_counts(texts).items():
        w = [*word, EOW]
        total += c * len(w)
        for rank, merged, _ in iter_ranked_merges(w, ranks, max_rank=n_steps):
            diff[rank] += c * merged
    totals = [total]
    for k in range(n_steps):
        totals.append(totals[-1] - diff[k])
    return totals
