"""Lattices of one string at a time: Viterbi, all segmentations, forward–backward,
n-best and sampling, on a dict of piece scores.

These are the definitions, written for reading; the tokenizer encodes with the same
:class:`Pieces` (a trie of ids), and training runs the same computations on all words
at once with NumPy (:mod:`tokref.unigram.em`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import is_finite_number
from ..checks import check_text
from .checks import check_alpha, check_positive, check_rng

__all__ = [
    "UNK_PENALTY",
    "Pieces",
    "as_pieces",
    "viterbi",
    "segmentations",
    "forward_backward",
    "nbest_paths",
    "nbest",
    "sample_path",
    "sample",
]

UNK_PENALTY = 10.0  # an unknown character scores min(scores) - UNK_PENALTY, as in SentencePiece


class Pieces:
    """A vocabulary compiled for lattices: piece → key, the scores, a trie.

    ``keys[piece]`` is whatever the caller uses to name a piece (an id, or the piece
    itself); ``score[key]`` its score. ``trie`` maps a character to ``(key or None,
    subtrie)``, so the pieces starting at a position are found one character at a time,
    stopping at the first character no piece continues with. ``unk_score`` (default
    ``min(scores) - UNK_PENALTY``) scores a character that no piece covers.

    >>> model = Pieces({"a": 0, "ab": 1, "b": 2}, [-1.0, -1.5, -1.0])
    >>> model.unk_score
    -11.5
    >>> model.viterbi("abc")  # (key, start, end) nodes; key None: unknown character
    ([(1, 0, 2), (None, 2, 3)], -13.0)
    """

    __slots__ = ("keys", "score", "trie", "unk_score")

    def __init__(
        self,
        keys: dict[str, Any],
        score: Mapping[Any, float],
        unk_score: float | None = None,
    ) -> None:
        self.keys = keys
        self.score = score
        trie: dict[str, list[Any]] = {}
        for piece, key in keys.items():
            node = trie
            for ch in piece[:-1]:
                node = node.setdefault(ch, [None, {}])[1]
            node.setdefault(piece[-1], [None, {}])[0] = key
        self.trie = trie
        if unk_score is None:
            unk_score = min((score[k] for k in keys.values()), default=0.0) - UNK_PENALTY
        self.unk_score = unk_score

    def nodes(self, s: str) -> list[list[tuple[int, Any, float]]]:
        """For each start position, the ``(end, key, score)`` of the pieces there, shortest
        first; an unknown character is ``(start + 1, None, unk_score)``."""
        score = self.score
        n = len(s)
        out: list[list[tuple[int, Any, float]]] = []
        for i in range(n):
            here: list[tuple[int, Any, float]] = []
            node = self.trie
            for j in range(i, n):
                entry = node.get(s[j])
                if entry is None:
                    break
                key, node = entry
                if key is not None:
                    here.append((j + 1, key, score[key]))
            if not here or here[0][0] != i + 1:  # no one-character piece: unknown node
                here.insert(0, (i + 1, None, self.unk_score))
            out.append(here)
        return out

    def viterbi(self, s: str) -> tuple[list[tuple[Any, int, int]], float]:
        """The best path as ``(key, start, end)`` nodes (key ``None``: unknown), and its score.

        Ties: candidates reach each end position in order of their start, and only a
        strictly better score replaces the best so far, so the earliest start wins.
        """
        score, trie, unk = self.score, self.trie, self.unk_score
        n = len(s)
        best = [0.0] + [-math.inf] * n
        back = [-1] * (n + 1)
        what: list[Any] = [None] * (n + 1)
        for i in range(n):
            base = best[i]
            single = False
            node = trie
            for j in range(i, n):
                entry = node.get(s[j])
                if entry is None:
                    break
                key, node = entry
                if key is not None:
                    if j == i:
                        single = True
                    c = base + score[key]
                    if back[j + 1] < 0 or c > best[j + 1]:
                        best[j + 1], back[j + 1], what[j + 1] = c, i, key
            if not single:
                c = base + unk
                if back[i + 1] < 0 or c > best[i + 1]:
                    best[i + 1], back[i + 1], what[i + 1] = c, i, None
        path = []
        j = n
        while j > 0:
            i = back[j]
            path.append((what[j], i, j))
            j = i
        path.reverse()
        return path, best[n]

    def forward(self, s: str, alpha: float = 1.0) -> tuple[list[list[tuple[int, Any, float]]], list[float]]:
        """The lattice of ``s`` (ending at each position) and the forward log-sums
        ``fwd[j] = log Σ exp(alpha · score)`` over the paths of ``s[:j]``."""
        n = len(s)
        ending: list[list[tuple[int, Any, float]]] = [[] for _ in range(n + 1)]
        for i, here in enumerate(self.nodes(s)):
            for j, key, sc in here:
                ending[j].append((i, key, sc))
        fwd = [0.0] * (n + 1)
        for j in range(1, n + 1):
            fwd[j] = _logsumexp([fwd[i] + alpha * sc for i, _, sc in ending[j]])
        return ending, fwd


def _logsumexp(xs: Sequence[float]) -> float:
    """``log(Σ exp(x))`` of a non-empty sequence, without overflow (the largest term is
    factored out); ``-inf`` if every term is.

    >>> round(_logsumexp([math.log(1 / 3), math.log(1 / 9)]), 9) == round(math.log(4 / 9), 9)
    True
    """
    m = max(xs)
    if m == -math.inf:
        return m
    return m + math.log(math.fsum(math.exp(x - m) for x in xs))  # fsum: the same on every Python


def as_pieces(scores: Mapping[str, float], unk_score: float | None) -> Pieces:
    """``scores`` (piece → score) checked and compiled, each piece being its own key.

    >>> as_pieces({"a": -1.0, "ab": -2.0}, None).keys
    {'a': 'a', 'ab': 'ab'}
    """
    if not isinstance(scores, Mapping):
        raise TypeError(
            f"scores must be a dict mapping piece to log-probability, not {type(scores).__name__}"
        )
    for p, sc in scores.items():
        if not isinstance(p, str) or not p:
            raise TypeError(f"pieces must be non-empty str; found {p!r}")
        if not is_finite_number(sc):
            raise ValueError(f"the score of {p!r} must be a finite number, not {sc!r}")
    return Pieces({p: p for p in scores}, scores, unk_score)


def _unknown(key: Any, s: str, i: int) -> str:
    """The piece of a lattice node ``(key, i, j)`` of ``s`` built by :func:`as_pieces`: its
    key, or, for an unknown node (key ``None``), the character ``s[i]`` itself.

    >>> _unknown("ab", "abc", 0), _unknown(None, "abc", 2)
    ('ab', 'c')
    """
    return s[i] if key is None else key


def viterbi(
    text: str, scores: Mapping[str, float], *, unk_score: float | None = None
) -> tuple[list[str], float]:
    """The most probable segmentation of ``text`` into pieces of ``scores``, and its score.

    ``text`` is taken as is (no normalization, no ``▁``). A character that no piece
    covers is its own piece, scored ``unk_score`` (default ``min(scores) - 10``). Ties: the
    path whose last piece starts earliest wins, at every position. Here all three
    segmentations score -3; at the end, ``bc`` starts before ``c``:

    >>> viterbi("abc", {"a": -1.0, "b": -1.0, "c": -1.0, "ab": -2.0, "bc": -2.0})
    (['a', 'bc'], -3.0)
    """
    text = check_text(text)
    path, score = as_pieces(scores, unk_score).viterbi(text)
    return [_unknown(k, text, i) for k, i, _ in path], score


def segmentations(
    text: str, scores: Mapping[str, float], *, unk_score: float | None = None
) -> list[tuple[list[str], float]]:
    """Every segmentation of ``text`` with its score: exponentially many, for checking.

    >>> segmentations("ab", {"a": -1.0, "b": -1.0, "ab": -1.5})
    [(['a', 'b'], -2.0), (['ab'], -1.5)]
    """
    text = check_text(text)
    nodes = as_pieces(scores, unk_score).nodes(text)
    out: list[tuple[list[str], float]] = []

    def walk(i: int, acc: list[str], sc: float) -> None:
        if i == len(text):
            out.append((list(acc), sc))
            return
        for j, key, s in nodes[i]:
            acc.append(_unknown(key, text, i))
            walk(j, acc, sc + s)
            acc.pop()

    walk(0, [], 0.0)
    return out


def forward_backward(
    text: str, scores: Mapping[str, float], *, unk_score: float | None = None
) -> tuple[float, dict[str, float]]:
    """``log Z``, the log of the total probability of all segmentations of ``text``, and
    each piece's expected count under the posterior ``P(seg | text) = P(seg) / Z``.

    This is the E-step for one word, in log space; training runs the same computation
    on all words at once with NumPy.

    Three pieces of probability 1/3: ``[ab]`` has probability 1/3 and ``[a, b]`` 1/9, so
    ``Z = 4/9`` and the posteriors are 3/4 and 1/4:

    >>> third = math.log(1 / 3)
    >>> log_z, expected = forward_backward("ab", {"a": third, "b": third, "ab": third})
    >>> round(math.exp(log_z), 6), sorted((p, round(c, 6)) for p, c in expected.items())
    (0.444444, [('a', 0.25), ('ab', 0.75), ('b', 0.25)])
    """
    text = check_text(text)
    model = as_pieces(scores, unk_score)
    ending, fwd = model.forward(text)
    n = len(text)
    bwd = [0.0] * (n + 1)
    starting: list[list[tuple[int, Any, float]]] = [[] for _ in range(n + 1)]
    for j in range(n + 1):
        for i, key, sc in ending[j]:
            starting[i].append((j, key, sc))
    for i in range(n - 1, -1, -1):
        bwd[i] = _logsumexp([sc + bwd[j] for j, _, sc in starting[i]])
    log_z = fwd[n]
    expected: dict[str, float] = {}
    for i in range(n):
        for j, key, sc in starting[i]:
            p = math.exp(fwd[i] + sc + bwd[j] - log_z)
            piece = _unknown(key, text, i)
            expected[piece] = expected.get(piece, 0.0) + p
    return log_z, expected


def nbest_paths(model: Pieces, s: str, k: int) -> list[tuple[list[tuple[Any, int, int]], float]]:
    """The ``k`` best paths of ``s``: a k-best Viterbi, exact.

    Each position keeps its ``k`` best partial paths. Candidates are listed by start
    of the last node, then by the rank of the partial path before it, and sorted
    stably by score, so the first path is the Viterbi path and ties are deterministic.

    >>> nbest_paths(as_pieces({"a": -1.0, "b": -1.0, "ab": -1.5}, None), "ab", 5)
    [([('ab', 0, 2)], -1.5), ([('a', 0, 1), ('b', 1, 2)], -2.0)]
    """
    n = len(s)
    ending: list[list[tuple[int, Any, float]]] = [[] for _ in range(n + 1)]
    for i, here in enumerate(model.nodes(s)):
        for j, key, sc in here:
            ending[j].append((i, key, sc))
    # kbest[j]: list of (score, start, rank at start, key), best first
    kbest: list[list[tuple[float, int, int, Any]]] = [[(0.0, -1, -1, None)]]
    for j in range(1, n + 1):
        cands = [
            (prev[0] + sc, i, r, key)
            for i, key, sc in ending[j]
            for r, prev in enumerate(kbest[i])
        ]
        cands.sort(key=lambda c: -c[0])
        kbest.append(cands[:k])
    out = []
    for total, i, r, key in kbest[n]:
        path = []
        j, entry = n, (total, i, r, key)
        while j > 0:
            _, i, r, key = entry
            path.append((key, i, j))
            j, entry = i, kbest[i][r]
        path.reverse()
        out.append((path, total))
    return out


def nbest(
    text: str, scores: Mapping[str, float], k: int, *, unk_score: float | None = None
) -> list[tuple[list[str], float]]:
    """The ``k`` most probable segmentations of ``text``, best first (fewer if there are fewer).

    >>> nbest("ab", {"a": -1.0, "b": -1.0, "ab": -1.5}, 5)
    [(['ab'], -1.5), (['a', 'b'], -2.0)]
    """
    text = check_text(text)
    k = check_positive(k, name="k")
    if not text:
        return [([], 0.0)]
    return [
        ([_unknown(key, text, i) for key, i, _ in path], sc)
        for path, sc in nbest_paths(as_pieces(scores, unk_score), text, k)
    ]




def sample_path(model: Pieces, s: str, alpha: float, rng: random.Random) -> list[tuple[Any, int, int]]:
    """Forward-filtering backward-sampling: a path drawn with probability ∝ exp(alpha · score).

    Forward: ``fwd[j]`` sums all paths of ``s[:j]``. Backward: from the end, the last
    node ``(i, j)`` is drawn with probability ``exp(fwd[i] + alpha·score) / exp(fwd[j])``,
    then the same from ``i``. The product of these draws is exactly P(path)^alpha / Z.

    >>> model = as_pieces({"a": -1.0, "b": -1.0, "ab": -1.5}, None)
    >>> sample_path(model, "ab", 1.0, random.Random(0)) in ([("ab", 0, 2)], [("a", 0, 1), ("b", 1, 2)])
    True
    """
    ending, fwd = model.forward(s, alpha)
    path = []
    j = len(s)
    while j > 0:
        weights = [math.exp(fwd[i] + alpha * sc - fwd[j]) for i, _, sc in ending[j]]
        x = rng.random() * sum(weights)
        choice = len(weights) - 1
        for t, w in enumerate(weights):
            x -= w
            if x < 0:
                choice = t
                break
        i, key, _ = ending[j][choice]
        path.append((key, i, j))
        j = i
    path.reverse()
    return path


def sample(
    text: str,
    scores: Mapping[str, float],
    *,
    alpha: float = 1.0,
    seed: int | random.Random | None = None,
    unk_score: float | None = None,
) -> list[str]:
    """One segmentation of ``text`` drawn with probability ∝ ``P(seg) ** alpha``.

    >>> sample("ab", {"a": -1.0, "b": -1.0, "ab": -1.5}, seed=0) in (["ab"], ["a", "b"])
    True
    """
    text = check_text(text)
    path = sample_path(as_pieces(scores, unk_score), text, check_alpha(alpha), check_rng(seed))
    return [_unknown(k, text, i) for k, i, _ in path]