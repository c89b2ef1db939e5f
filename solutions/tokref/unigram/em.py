"""EM on all the words of a corpus at once: the Bayesian M-step (``digamma``,
``m_step``) and :class:`Lattices`, every word's lattice as flat NumPy arrays, with the
forward–backward E-step and Viterbi that training runs on them."""

from __future__ import annotations

import math

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EXPECTED_COUNT_THRESHOLD", "EMStep", "digamma", "m_step", "Lattices"]

EXPECTED_COUNT_THRESHOLD = 0.5  # the M-step drops a piece expected fewer times than this


def digamma(x: Any) -> Any:
    """The digamma function ψ(x) for x > 0 (a float or a NumPy array).

    The recurrence ψ(x) = ψ(x + 1) − 1/x lifts x to at least 7, then the asymptotic
    series in x − ½ is used: the approximation SentencePiece uses, good to 1e-10.

    >>> round(digamma(1.0), 9)  # -γ
    -0.577215665
    >>> round(digamma(5.0) - digamma(3.0), 9)  # 1/3 + 1/4
    0.583333333
    """
    x = np.asarray(x, dtype=np.float64)
    result = np.zeros_like(x)
    for _ in range(7):
        small = x < 7
        if not small.any():
            break
        result = np.where(small, result - 1.0 / np.where(small, x, 1.0), result)
        x = np.where(small, x + 1.0, x)
    x = x - 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result = result + (
        np.log(x) + xx2 / 24.0 - 7.0 / 960.0 * xx4 + 31.0 / 8064.0 * xx4 * xx2
        - 127.0 / 30720.0 * xx4 * xx4
    )
    return float(result) if result.ndim == 0 else result


def m_step(
    expected: Mapping[str, float], *, threshold: float = EXPECTED_COUNT_THRESHOLD
) -> dict[str, float]:
    """New scores from expected counts, SentencePiece's Bayesian M-step.

    Pieces expected fewer than ``threshold`` times are dropped; the others get
    ``ψ(count) − ψ(total)`` (ψ = digamma), the expected log-probability under a
    Dirichlet posterior: close to ``log(count / total)`` for large counts, lower for
    rare pieces, which acts as a sparse prior (Liang & Klein 2007).

    >>> {p: round(s, 4) for p, s in m_step({"ab": 3.0, "a": 1.0, "b": 1.0, "c": 0.2}).items()}
    {'ab': -0.5833, 'a': -2.0833, 'b': -2.0833}
    """
    kept = {p: c for p, c in expected.items() if c >= threshold}
    if not kept:
        return {}
    logsum = digamma(math.fsum(kept.values()))  # exact: the same on every Python
    return {p: digamma(c) - logsum for p, c in kept.items()}


@dataclass(frozen=True)
class EMStep:
    """One EM step of training: pruning round ``round`` (0 before any pruning), its
    ``sub_iteration``-th EM step; after its M-step ``size`` pieces remain. ``objective``
    is the corpus's negative log-likelihood per word before the step, what
    SentencePiece logs as ``obj``."""

    round: int
    sub_iteration: int
    size: int
    objective: float


class Lattices:
    """The lattices of many strings ("words") at once.

    Word ``w`` has positions ``off[w] .. off[w] + lens[w]`` in one flat array; an edge is
    a piece ``pid`` from position ``start`` to ``end`` of word ``word``. The edges are kept
    in *forward order* (by end, then word, then start); ``b_perm`` lists them in
    backward order (by start, then word, then end). A forward pass goes through the
    edges ending ``t`` characters into their word, t = 1, 2, ...: all words advance at
    once, and each group of edges with the same target position is reduced with
    ``reduceat``. Within a group edges come by start, earliest first. ``subset`` keeps
    both orders without sorting again.

    One word ``"ab"`` seen 4 times, pieces 0 = ``a``, 1 = ``b``, 2 = ``ab`` of probability
    1/3 each: ``[ab]`` has probability 1/3 and ``[a, b]`` 1/9, so ``ab`` is expected
    4 × 3/4 times:

    >>> lat = Lattices(np.array([2]), np.array([0, 0, 0]), np.array([0, 1, 0]),
    ...                np.array([1, 2, 2]), np.array([0, 1, 2]))
    >>> expected, log_z = lat.expected_counts(np.log(np.full(3, 1 / 3)), np.array([4.0]), 3)
    >>> expected.round(6).tolist(), round(float(np.exp(log_z[0])), 6)
    ([1.0, 1.0, 3.0], 0.444444)
    """

    def __init__(
        self, lens: np.ndarray, word: np.ndarray, start: np.ndarray, end: np.ndarray,
        pid: np.ndarray, b_perm: np.ndarray | None = None,
    ) -> None:
        if b_perm is None:
            # Sort by (word, start, end) unless already so, then stably by end (forward
            # order) and by start (backward order): small-int keys, radix sorts.
            big = int(lens.max(initial=0)) + 1
            key = (word * big + start) * big + end
            if key.size and (key[1:] < key[:-1]).any():
                o = np.argsort(key, kind="stable")
                word, start, end, pid = word[o], start[o], end[o], pid[o]
            small = np.int16 if big < 2**15 else np.int64
            f = np.argsort(end.astype(small), kind="stable")
            b = np.argsort(start.astype(small), kind="stable")
            inverse = np.empty_like(f)
            inverse[f] = np.arange(f.size)
            word, start, end, pid, b_perm = word[f], start[f], end[f], pid[f], inverse[b]
        self.lens = lens
        self.off = np.cumsum(lens + 1) - (lens + 1)
        self.n_pos = int((lens + 1).sum())
        self.word, self.start, self.end, self.pid, self.b_perm = word, start, end, pid, b_perm
        base = self.off[word]
        self.src = base + start
        self.dst = base + end
        self.f_steps = self._steps(end, self.dst)
        self.b_src = self.src[b_perm]
        self.b_dst = self.dst[b_perm]
        self.b_pid = pid[b_perm]
        self.b_steps = self._steps(start[b_perm], self.b_src)[::-1]

    @staticmethod
    def _steps(t: np.ndarray, key: np.ndarray) -> list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]:
        """For each value of ``t`` (sorted): its edge slice ``[a, b)``, the group starts
        (relative to ``a``), the group lengths, and each group's ``key`` position."""
        if t.size == 0:
            return []
        starts = np.concatenate([[0], np.flatnonzero(key[1:] != key[:-1]) + 1])
        t_bounds = np.concatenate([[0], np.flatnonzero(t[1:] != t[:-1]) + 1, [t.size]])
        g_bounds = np.searchsorted(starts, t_bounds)
        glens = np.diff(np.concatenate([starts, [t.size]]))
        steps = []
        for s in range(len(t_bounds) - 1):
            a, b = int(t_bounds[s]), int(t_bounds[s + 1])
            lo, hi = g_bounds[s], g_bounds[s + 1]
            gs = starts[lo:hi]
            steps.append((a, b, gs - a, glens[lo:hi], key[gs]))
        return steps

    def subset(self, keep: np.ndarray) -> Lattices:
        """The same words with only the edges whose piece ``keep`` (indexed by id) holds."""
        m = keep[self.pid]
        renumber = np.cumsum(m) - 1
        b = self.b_perm[m[self.b_perm]]
        return Lattices(
            self.lens, self.word[m], self.start[m], self.end[m], self.pid[m], renumber[b]
        )

    def forward(self, score: np.ndarray) -> np.ndarray:
        """Log-sum of the paths reaching every position."""
        alpha = np.full(self.n_pos, -np.inf)
        alpha[self.off] = 0.0
        return _log_sum_sweep(alpha, self.f_steps, self.src, score[self.pid])

    def backward(self, score: np.ndarray) -> np.ndarray:
        """Log-sum of the paths from every position to the end of its word."""
        beta = np.full(self.n_pos, -np.inf)
        beta[self.off + self.lens] = 0.0
        return _log_sum_sweep(beta, self.b_steps, self.b_dst, score[self.b_pid])

    def expected_counts(
        self, score: np.ndarray, counts: np.ndarray, n_pieces: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The E-step: each piece's expected count over all words (weighted by ``counts``),
        and each word's ``log Z``."""
        alpha = self.forward(score)
        beta = self.backward(score)
        log_z = alpha[self.off + self.lens]
        w = self.word
        post = np.exp(alpha[self.src] + score[self.pid] + beta[self.dst] - log_z[w])
        expected = np.bincount(self.pid, weights=post * counts[w], minlength=n_pieces)
        return expected, log_z

    def viterbi(self, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Best paths of every word, with the tie rule of ``Pieces.viterbi``.

        Returns ``(word, pid)`` of every node on the best paths and every word's best score.
        """
        best = np.full(self.n_pos, -np.inf)
        best[self.off] = 0.0
        edge = np.full(self.n_pos, -1, dtype=np.int64)
        sc = score[self.pid]
        never = np.iinfo(np.int64).max
        for a, b, gs, glen, dst in self.f_steps:
            v = best[self.src[a:b]] + sc[a:b]
            m = np.maximum.reduceat(v, gs)
            idx = np.where(v == np.repeat(m, glen), np.arange(a, b), never)
            edge[dst] = np.minimum.reduceat(idx, gs)
            best[dst] = m
        words = np.flatnonzero(self.lens > 0)
        cur = self.off[words] + self.lens[words]
        out_w, out_p = [], []
        while cur.size:
            e = edge[cur]
            out_w.append(words)
            out_p.append(self.pid[e])
            cur = self.src[e]
            more = cur != self.off[words]
            cur, words = cur[more], words[more]
        node_w = np.concatenate(out_w) if out_w else np.zeros(0, np.int64)
        node_p = np.concatenate(out_p) if out_p else np.zeros(0, np.int64)
        return node_w, node_p, best[self.off + self.lens]

    def inner(self, pieces: np.ndarray) -> Lattices:
        """The lattices of the strings of ``pieces`` (ids), without the edge spanning each
        whole piece: where the second-best segmentation of a piece is its best.

        Each piece is cut out of a word it occurs in, edges and all, so no string is
        looked up again.
        """
        if pieces.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return Lattices(empty, empty, empty, empty, empty)
        first = np.full(int(self.pid.max(initial=-1)) + 1, -1, dtype=np.int64)
        uniq, idx = np.unique(self.pid, return_index=True)
        first[uniq] = idx  # the first edge of each piece
        e0 = first[pieces]
        w0, i0, j0 = self.word[e0], self.start[e0], self.end[e0]
        by_word = np.argsort(self.word, kind="stable")
        bounds = np.searchsorted(self.word[by_word], np.arange(len(self.lens) + 1))
        lo, hi = bounds[w0], bounds[w0 + 1]
        n_each = hi - lo
        owner = np.repeat(np.arange(len(pieces)), n_each)
        within = np.arange(n_each.sum()) - np.repeat(np.cumsum(n_each) - n_each, n_each)
        pos = by_word[np.repeat(lo, n_each) + within]
        s, e = self.start[pos], self.end[pos]
        a, b = i0[owner], j0[owner]
        inside = (s >= a) & (e <= b) & ~((s == a) & (e == b))
        return Lattices(
            (j0 - i0).astype(np.int64), owner[inside], (s - a)[inside], (e - a)[inside],
            self.pid[pos][inside],
        )



def _log_sum_sweep(
    vals: np.ndarray, steps: Sequence[tuple], neighbour: np.ndarray, sc: np.ndarray
) -> np.ndarray:
    """One pass of forward (or backward) over the lattice, a group of edges per step:
    ``vals[out] = logsumexp(vals[neighbour] + sc)`` over each group's edges, in place."""
    for a, b, gs, glen, out in steps:
        v = vals[neighbour[a:b]] + sc[a:b]
        m = np.maximum.reduceat(v, gs)
        s = np.add.reduceat(np.exp(v - np.repeat(m, glen)), gs)
        vals[out] = m + np.log(s)
    return vals