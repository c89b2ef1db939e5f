"""SentencePiece-style Unigram language-model tokenization (Kudo 2018; Kudo & Richardson 2018).

A Unigram tokenizer is a vocabulary of *pieces*, each with a log-probability (its
*score*). A segmentation of a string into pieces has the probability of a unigram
language model, the product of its pieces' probabilities, so its log-probability is the
sum of their scores. Encoding picks the most probable segmentation (Viterbi); training
(EM, then pruning) picks the pieces and their scores.

**The text pipeline** (SentencePiece's defaults, written down):

1. *Normalization*. ``"nfkc"`` (the default): Unicode NFKC, then every whitespace
   character (``str.isspace``) becomes a space, runs of spaces collapse to one and the
   ends are stripped (SentencePiece's ``nmt_nfkc`` with ``remove_extra_whitespaces``;
   unlike ``nmt_nfkc`` control characters are kept). ``"identity"``: the text as given.
2. *Dummy prefix* (``add_dummy_prefix=True``): a space is put before non-empty text, so
   ``"hello"`` and ``"say hello"`` both hold the piece ``"▁hello"``.
3. *Whitespace as a symbol*: every space becomes the meta-symbol ``▁`` (U+2581), which
   is part of the pieces. Nothing else splits the text, so text without spaces (Chinese,
   Japanese) needs no pre-tokenizer. With ``split_by_whitespace=True`` (the default) a
   piece holds ``▁`` only as its first character, so pieces never cross words.
4. A literal ``▁`` in the input is *not* a space: no piece matches it, and it is encoded
   by byte fallback (so it decodes back to ``▁``; SentencePiece would turn it into a space).

**Viterbi ties.** When two segmentations have the same score, the rule of SentencePiece
and Hugging Face ``tokenizers`` applies at every position: of the best paths ending
there, the one whose last piece starts earliest (the longest last piece) wins. Scores
are added left to right in float64, as ``tokenizers`` does, so the two give identical
segmentations for the same pieces and scores.

**Byte fallback.** A character that no piece covers gets an *unknown* node of score
``min(scores) - 10`` (SentencePiece's penalty). With ``byte_fallback=True`` it is written
as the pieces ``<0x00>``…``<0xFF>`` of its UTF-8 bytes, so ``decode(encode(s))`` gives
back ``tokenizer.normalize(s)`` for every string ``s`` (and ``s`` itself with
``normalization="identity"``); without byte fallback a run of unknown characters
becomes one ``<unk>``.

**Training** (``UnigramTokenizer.train``; SentencePiece's ``unigram_model_trainer``,
step by step in ``_train_pieces``). The corpus becomes a multiset of words. The seed
vocabulary is every character and the substrings that cover most characters
(``seed_pieces``: counted exactly, where SentencePiece uses a suffix array). Then EM:
the E-step gives every piece its expected count (``forward_backward``, summed over the
words with their counts), the M-step SentencePiece's Bayesian scores ``ψ(count) −
ψ(total)`` (``m_step``). After every two EM steps, pruning removes the pieces whose
removal costs the corpus likelihood least, keeping 75% per round, until 1.1 ×
``vocab_size`` remain; after a last EM step the best pieces make the vocabulary. The
lattices of all words are run at once as flat NumPy arrays, so training takes about as
long as SentencePiece's C++ (see ``benchmarks/bench_unigram.py``).

>>> scores = {"▁": -3.0, "a": -2.0, "b": -2.0, "ab": -2.5, "▁ab": -6.0}
>>> viterbi("▁ab", scores)
(['▁', 'ab'], -5.5)
>>> sorted(segmentations("▁ab", scores), key=lambda s: -s[1])
[(['▁', 'ab'], -5.5), (['▁ab'], -6.0), (['▁', 'a', 'b'], -7.0)]
"""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import regex

from .base import (
    Token,
    Tokenizer,
    TokenizerFileError,
    check_piece_list,
    check_special_tokens,
    check_text,
    check_texts,
    is_finite_number,
)

__all__ = [
    "WS",
    "UNK_PENALTY",
    "BYTE_PIECES",
    "UnigramTokenizer",
    "EMStep",
    "normalize",
    "viterbi",
    "segmentations",
    "forward_backward",
    "nbest",
    "sample",
    "digamma",
    "m_step",
    "seed_pieces",
]

WS = "\u2581"  # ▁, SentencePiece's meta-symbol for a space
UNK_PENALTY = 10.0  # an unknown character scores min(scores) - UNK_PENALTY, as in SentencePiece
BYTE_PIECES: tuple[str, ...] = tuple(f"<0x{b:02X}>" for b in range(256))
DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = ("<unk>", "<s>", "</s>")
UNK = "<unk>"
NORMALIZATIONS = ("nfkc", "identity")
Normalization = Literal["nfkc", "identity"]

# SentencePiece's training constants.
EXPECTED_COUNT_THRESHOLD = 0.5  # the M-step drops a piece expected fewer times than this
DESIRED_VOCAB_FACTOR = 1.1  # EM + pruning stops at 1.1 x vocab_size pieces, then the best are kept
MIN_SCORE_PENALTY_DELTA = 0.0001  # spreads the scores of characters EM dropped

# Characters that stand for a literal ▁ inside the lattice, where ▁ means a space: the
# first one that is in no piece is used (it never matches, so it is byte-encoded).
_SENTINELS = ("\uffff", "\ufffe", "\U0010ffff", "\U0010fffe", "\U000fffff", "\U000ffffe")


def _sentinels() -> Iterable[str]:
    yield from _SENTINELS
    yield from map(chr, range(0xF0000, 0xFFFFE))  # private use: there are more than pieces
_CACHE_LIMIT = 1 << 20  # words cached by encode before the cache is cleared
_GRAPHEME = regex.compile(r"\X")
# Standard-library `re`: its \s is exactly str.isspace, which str.split() uses (the
# `regex` module's \s is Unicode White_Space, which leaves out U+001C..U+001F).
_CHUNK = re.compile(r"\s+|\S+")
_NON_SPACE = re.compile(r"\S+")
_WORD = re.compile("\u2581[^\u2581]*|[^\u2581]+")  # a word starts at each ▁


# ---------------------------------------------------------------------------
# Normalization
# ---------------------------------------------------------------------------


def _check_normalization(normalization: object) -> str:
    if normalization not in NORMALIZATIONS:
        raise ValueError(
            f"normalization must be 'nfkc' or 'identity', not {normalization!r}"
        )
    return normalization  # type: ignore[return-value]


def normalize(text: str, *, normalization: Normalization = "nfkc") -> str:
    """``text`` as the tokenizer sees it, before the dummy prefix and ``▁``.

    ``"nfkc"``: NFKC, whitespace runs to one space, ends stripped. ``"identity"``: as is.

    >>> normalize("  ﬁne\\t\\tday ")
    'fine day'
    >>> normalize("  ﬁne ", normalization="identity")
    '  ﬁne '
    """
    text = check_text(text)
    if _check_normalization(normalization) == "identity":
        return text
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _nfkc_aligned(text: str) -> tuple[str, list[int], list[int]]:
    """NFKC of ``text`` and, for each of its characters, the span of ``text`` it came from.

    Each grapheme cluster (``regex``'s ``\\X``) is normalized on its own: NFKC never
    composes across clusters, so the pieces join to ``NFKC(text)``. In case some text
    breaks that (it is checked), whitespace-separated chunks are used, whose joins are
    always safe.
    """
    if text.isascii():  # NFKC leaves ASCII alone
        n = len(text)
        return text, list(range(n)), list(range(1, n + 1))
    target = unicodedata.normalize("NFKC", text)
    for pattern in (_GRAPHEME, _CHUNK):
        parts, starts, ends = [], [], []
        for m in pattern.finditer(text):
            piece = unicodedata.normalize("NFKC", m.group())
            parts.append(piece)
            starts.extend([m.start()] * len(piece))
            ends.extend([m.end()] * len(piece))
        if "".join(parts) == target:
            return target, starts, ends
    n = len(target)  # pragma: no cover - no known text gets here
    return target, [0] * n, [len(text)] * n


def _normalize_aligned(
    text: str, normalization: str
) -> tuple[str, list[int], list[int]]:
    """``normalize(text)`` with the span of ``text`` behind each of its characters.

    A space that replaced a run of whitespace spans the whole run.
    """
    if normalization == "identity":
        n = len(text)
        return text, list(range(n)), list(range(1, n + 1))
    nf, st, en = _nfkc_aligned(text)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    prev_end = -1  # index in nf after the previous run of non-space characters
    for m in _NON_SPACE.finditer(nf):
        a, b = m.start(), m.end()
        if prev_end >= 0:
            out.append(" ")
            starts.append(st[prev_end])
            ends.append(en[a - 1])
        out.append(m.group())
        starts.extend(st[a:b])
        ends.extend(en[a:b])
        prev_end = b
    return "".join(out), starts, ends


# ---------------------------------------------------------------------------
# Lattices: the pure algorithms, on one string at a time
# ---------------------------------------------------------------------------


class _Pieces:
    """A vocabulary compiled for lattices: piece → key, the scores, a trie.

    ``keys[piece]`` is whatever the caller uses to name a piece (an id, or the piece
    itself); ``score[key]`` its score. ``trie`` maps a character to ``(key or None,
    subtrie)``, so the pieces starting at a position are found one character at a time,
    stopping at the first character no piece continues with.
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
    m = max(xs)
    if m == -math.inf:
        return m
    return m + math.log(sum(math.exp(x - m) for x in xs))


def _as_pieces(scores: Mapping[str, float], unk_score: float | None) -> _Pieces:
    if not isinstance(scores, Mapping):
        raise TypeError(
            f"scores must be a dict mapping piece to log-probability, not {type(scores).__name__}"
        )
    for p, sc in scores.items():
        if not isinstance(p, str) or not p:
            raise TypeError(f"pieces must be non-empty str; found {p!r}")
        if not is_finite_number(sc):
            raise ValueError(f"the score of {p!r} must be a finite number, not {sc!r}")
    return _Pieces({p: p for p in scores}, scores, unk_score)


def _unknown(key: Any, s: str, i: int) -> str:
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
    path, score = _as_pieces(scores, unk_score).viterbi(text)
    return [_unknown(k, text, i) for k, i, _ in path], score


def segmentations(
    text: str, scores: Mapping[str, float], *, unk_score: float | None = None
) -> list[tuple[list[str], float]]:
    """Every segmentation of ``text`` with its score: exponentially many, for checking.

    >>> segmentations("ab", {"a": -1.0, "b": -1.0, "ab": -1.5})
    [(['a', 'b'], -2.0), (['ab'], -1.5)]
    """
    text = check_text(text)
    nodes = _as_pieces(scores, unk_score).nodes(text)
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
    model = _as_pieces(scores, unk_score)
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


def _nbest_paths(model: _Pieces, s: str, k: int) -> list[tuple[list[tuple[Any, int, int]], float]]:
    """The ``k`` best paths of ``s``: a k-best Viterbi, exact.

    Each position keeps its ``k`` best partial paths. Candidates are listed by start
    of the last node, then by the rank of the partial path before it, and sorted
    stably by score, so the first path is the Viterbi path and ties are deterministic.
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
    k = _check_k(k)
    if not text:
        return [([], 0.0)]
    return [
        ([_unknown(key, text, i) for key, i, _ in path], sc)
        for path, sc in _nbest_paths(_as_pieces(scores, unk_score), text, k)
    ]


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be int, not {type(k).__name__}")
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    return k


def _check_alpha(alpha: object) -> float:
    if not is_finite_number(alpha):
        raise TypeError(f"alpha must be a finite number, not {alpha!r}")
    if alpha <= 0:  # type: ignore[operator]
        raise ValueError(
            f"alpha must be > 0, not {alpha}: segmentations are sampled with probability "
            "proportional to P(seg) ** alpha (1.0: the model's own distribution; "
            "small: closer to uniform)"
        )
    return float(alpha)  # type: ignore[arg-type]


def _check_rng(seed: object) -> random.Random:
    if isinstance(seed, random.Random):
        return seed
    if seed is None or (isinstance(seed, int) and not isinstance(seed, bool)):
        return random.Random(seed)
    raise TypeError(f"seed must be None, an int or a random.Random, not {type(seed).__name__}")


def _sample_path(model: _Pieces, s: str, alpha: float, rng: random.Random) -> list[tuple[Any, int, int]]:
    """Forward-filtering backward-sampling: a path drawn with probability ∝ exp(alpha · score).

    Forward: ``fwd[j]`` sums all paths of ``s[:j]``. Backward: from the end, the last
    node ``(i, j)`` is drawn with probability ``exp(fwd[i] + alpha·score) / exp(fwd[j])``,
    then the same from ``i``. The product of these draws is exactly P(path)^alpha / Z.
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
    path = _sample_path(_as_pieces(scores, unk_score), text, _check_alpha(alpha), _check_rng(seed))
    return [_unknown(k, text, i) for k, i, _ in path]


# ---------------------------------------------------------------------------
# The M-step
# ---------------------------------------------------------------------------


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
    logsum = digamma(sum(kept.values()))
    return {p: digamma(c) - logsum for p, c in kept.items()}


# ---------------------------------------------------------------------------
# Seed pieces
# ---------------------------------------------------------------------------

_INHERITED = -2
_COMMON = 0
# Scripts told apart when checking that a piece does not mix scripts (SentencePiece's
# split_by_unicode_script). Hiragana and Katakana count as Han, as in SentencePiece.
_SCRIPTS = (
    "Common", "Inherited", "Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic",
    "Syriac", "Thaana", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil",
    "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Tibetan", "Myanmar",
    "Georgian", "Hangul", "Ethiopic", "Cherokee", "Khmer", "Mongolian", "Han", "Hiragana",
    "Katakana", "Bopomofo", "Yi", "Coptic", "Runic", "Ogham", "Tifinagh", "Javanese",
)
_SCRIPT_RE = regex.compile("|".join(f"(?P<{s}>\\p{{Script={s}}})" for s in _SCRIPTS))
_script_cache: dict[str, int] = {}
_script_ids: dict[str, int] = {}  # script name -> a small positive int


def _script(ch: str) -> int:
    """A small int naming the Unicode script of ``ch`` (``_COMMON``, ``_INHERITED``, ...).

    Scripts outside ``_SCRIPTS`` are told apart by the first word of the character's
    name, which is the script's name for almost all letters.
    """
    s = _script_cache.get(ch)
    if s is None:
        if ch == "\u30fc":  # the prolonged sound mark is Common, but goes with Katakana
            name = "Han"
        else:
            m = _SCRIPT_RE.match(ch)
            if m is not None:
                name = m.lastgroup or "Common"
            else:
                name = "?" + unicodedata.name(ch, "?").split(" ")[0]
        if name in ("Hiragana", "Katakana"):
            name = "Han"
        if name == "Common":
            s = _COMMON
        elif name == "Inherited":
            s = _INHERITED
        else:
            s = _script_ids.setdefault(name, len(_script_ids) + 1)
        _script_cache[ch] = s
    return s


class _Substrings:
    """Every valid substring of a set of words, with its occurrences.

    ``strings[k]`` is substring ``k`` (characters included), ``count[k]`` its number of
    occurrences (each word weighted by its count) and ``branching[k]`` whether it is
    right-branching: two of its occurrences are followed by different characters.
    What follows the end of word ``w`` is ``ends[w]``: a code point (``ord("▁")``: the
    next word of its sentence), ``END`` (the end of a sentence) or ``ENDS_VARY`` (it
    varies). ``word, start, end, sid`` list every occurrence: the lattice edges of the
    words, once the pieces are chosen among the substrings.

    Valid, as SentencePiece's ``IsValidSentencePiece``: at most ``max_piece_length``
    characters; ``▁`` only first (without ``split_by_whitespace``: anywhere but last);
    one Unicode script (an Inherited character takes the previous one's, ``▁`` has
    none, Hiragana and Katakana count as Han). So the substrings starting at ``i`` are
    valid up to an end ``lim[i]``, found for all ``i`` in one right-to-left scan; Python
    only looks the substrings up in a dict, NumPy does the rest.
    """

    END = -2
    ENDS_VARY = -3

    def __init__(
        self, words: Sequence[str], counts: Sequence[int], ends: Sequence[int],
        max_piece_length: int, split_by_whitespace: bool,
    ) -> None:
        index: dict[str, int] = {}
        setdefault = index.setdefault
        sids: list[int] = []
        lims: list[int] = []
        cache = _script_cache
        L = max_piece_length
        for w in words:
            n = len(w)
            lim = [0] * n
            ws_next = n  # the first ▁ after i
            c_next, c_script = n, 0  # the first scripted character after i, and its script
            change = n  # the first character after c_next with another script
            for i in range(n - 1, -1, -1):
                ch = w[i]
                s = None if ch == WS else cache.get(ch)
                if s is None and ch != WS:
                    s = _script(ch)
                if s is None or s == _INHERITED:
                    end = change
                else:
                    end = c_next if c_next < n and c_script != s else change
                    change, c_next, c_script = end, i, s
                if split_by_whitespace and ws_next < end:
                    end = ws_next
                lim[i] = min(end, i + L)
                if ch == WS:
                    ws_next = i
            sids += [setdefault(w[i:j], len(index)) for i in range(n) for j in range(i + 1, lim[i] + 1)]
            lims += lim
        self.strings = strings = list(index)
        self.index = index
        self.length = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        # A piece may not end with ▁ (only without split_by_whitespace can one try).
        self.valid = np.array([len(s) == 1 or s[-1] != WS for s in strings], dtype=bool)

        lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        total = int(lens.sum())
        first_pos = np.cumsum(lens) - lens
        within = np.arange(total) - np.repeat(first_pos, lens)  # i, for every position
        pos_word = np.repeat(np.arange(len(words)), lens)
        n_occ = np.array(lims, dtype=np.int64) - within
        self.word = np.repeat(pos_word, n_occ)
        self.start = np.repeat(within, n_occ)
        self.end = self.start + 1 + (np.arange(int(n_occ.sum())) - np.repeat(np.cumsum(n_occ) - n_occ, n_occ))
        self.sid = np.array(sids, dtype=np.int64)
        weights = np.asarray(counts, dtype=np.float64)[self.word]
        self.count = np.rint(np.bincount(self.sid, weights=weights, minlength=len(strings))).astype(np.int64)
        # Followers: the code point after each occurrence, -1 at the end of a word.
        cp = np.frombuffer("".join(words).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        off = np.cumsum(lens + 1) - (lens + 1)
        codes = np.full(total + len(words), -1, dtype=np.int64)
        codes[np.repeat(off, lens) + within] = cp
        follower = codes[off[self.word] + self.end]
        at_end = follower == -1
        follower[at_end] = np.asarray(ends, dtype=np.int64)[self.word[at_end]]
        fmin = np.full(len(strings), np.iinfo(np.int64).max, dtype=np.int64)
        fmax = np.full(len(strings), self.ENDS_VARY - 1, dtype=np.int64)
        np.minimum.at(fmin, self.sid, follower)
        np.maximum.at(fmax, self.sid, follower)
        self.branching = (fmin == self.ENDS_VARY) | (fmin != fmax)

    def seeds(self, seed_size: int, reserved: frozenset[str] = frozenset()) -> list[int]:
        """The seed pieces as substring ids: the characters by descending count (then
        code point), then the ``seed_size`` best candidates by ``count × length`` (then
        by the string), a candidate being right-branching (so seen at least twice)."""
        strings, count, length = self.strings, self.count, self.length
        chars = [int(k) for k in np.flatnonzero(length == 1) if strings[k] not in reserved]
        chars.sort(key=lambda k: (-count[k], strings[k]))
        ok = (length >= 2) & (count >= 2) & self.branching & self.valid
        score = count * length
        cand = [int(k) for k in np.flatnonzero(ok) if strings[k] not in reserved]
        cand.sort(key=lambda k: (-score[k], strings[k]))
        return chars + cand[:seed_size]


def _split_sentences(
    sentences: Mapping[str, int], split_by_whitespace: bool
) -> tuple[Counter[str], dict[str, set[int]]]:
    """Words (cut before each ``▁``) with their counts and what follows each: the next
    word's ``▁``, or the end of its sentence. Without ``split_by_whitespace`` the units
    are the sentences."""
    words: Counter[str] = Counter()
    ends: dict[str, set[int]] = {}
    for sentence, c in sentences.items():
        parts = _WORD.findall(sentence) if split_by_whitespace else [sentence] if sentence else []
        for k, w in enumerate(parts):
            words[w] += c
            ends.setdefault(w, set()).add(ord(WS) if k + 1 < len(parts) else _Substrings.END)
    return words, ends


def _end_codes(words: Sequence[str], ends: Mapping[str, set[int]]) -> list[int]:
    return [next(iter(e)) if len(e) == 1 else _Substrings.ENDS_VARY for e in map(ends.__getitem__, words)]


def seed_pieces(
    sentences: Mapping[str, int],
    *,
    seed_size: int = 1_000_000,
    max_piece_length: int = 16,
    split_by_whitespace: bool = True,
) -> dict[str, int]:
    """The seed vocabulary of Unigram training, from normalized sentences (spaces as
    ``▁``) with their counts: piece → score, best first.

    Every character, scored by its count; then the ``seed_size`` best substrings of at
    least two characters, scored ``count × length`` (the characters they cover). As in
    SentencePiece, a candidate is a valid piece (``▁`` only first, one Unicode script,
    at most ``max_piece_length`` characters) that is *right-branching*: two of its
    occurrences are followed by different characters, the end of a sentence counting
    as one. These are the internal nodes of the corpus's suffix tree, which
    SentencePiece reads off an enhanced suffix array; here every substring of every
    distinct word is counted, weighted by the word's count, which finds the same
    strings (on the train split: the same 75,767). Ties: by the piece, in code-point
    order.

    Here ``▁a`` is always followed by ``b``, and ``▁aba`` occurs once:

    >>> seed_pieces({"▁aba▁ab": 1, "▁ab": 1})
    {'a': 4, 'b': 3, '▁': 3, '▁ab': 9, 'ab': 6}
    """
    if not isinstance(sentences, Mapping):
        raise TypeError(
            f"sentences must be a dict mapping str to int, not {type(sentences).__name__}"
        )
    for w, c in sentences.items():
        if not isinstance(w, str) or isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise TypeError(f"sentences must map str to int >= 1; found {w!r}: {c!r}")
    words, ends = _split_sentences(sentences, split_by_whitespace)
    order = list(words)
    subs = _Substrings(
        order, [words[w] for w in order], _end_codes(order, ends), max_piece_length,
        split_by_whitespace,
    )
    return {
        subs.strings[k]: int(subs.count[k] * (subs.length[k] if subs.length[k] > 1 else 1))
        for k in subs.seeds(seed_size)
    }


# ---------------------------------------------------------------------------
# Training: all the words' lattices at once, as flat NumPy arrays
# ---------------------------------------------------------------------------


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


class _Lattices:
    """The lattices of many strings ("words") at once.

    Word ``w`` has positions ``off[w] .. off[w] + lens[w]`` in one flat array; an edge is
    a piece ``pid`` from position ``start`` to ``end`` of word ``word``. The edges are kept
    in *forward order* (by end, then word, then start); ``b_perm`` lists them in
    backward order (by start, then word, then end). A forward pass goes through the
    edges ending ``t`` characters into their word, t = 1, 2, ...: all words advance at
    once, and each group of edges with the same target position is reduced with
    ``reduceat``. Within a group edges come by start, earliest first. ``subset`` keeps
    both orders without sorting again.
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

    def subset(self, keep: np.ndarray) -> _Lattices:
        """The same words with only the edges whose piece ``keep`` (indexed by id) holds."""
        m = keep[self.pid]
        renumber = np.cumsum(m) - 1
        b = self.b_perm[m[self.b_perm]]
        return _Lattices(
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
        """Best paths of every word, with the tie rule of ``_Pieces.viterbi``.

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

    def inner(self, pieces: np.ndarray) -> _Lattices:
        """The lattices of the strings of ``pieces`` (ids), without the edge spanning each
        whole piece: where the second-best segmentation of a piece is its best.

        Each piece is cut out of a word it occurs in, edges and all, so no string is
        looked up again.
        """
        if pieces.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return _Lattices(empty, empty, empty, empty, empty)
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
        return _Lattices(
            (j0 - i0).astype(np.int64), owner[inside], (s - a)[inside], (e - a)[inside],
            self.pid[pos][inside],
        )


def _train_pieces(
    word_counts: Mapping[str, int],
    ends: Mapping[str, set[int]],
    n_pieces: int,
    *,
    vocab_size: int,
    required: Sequence[str],
    reserved: frozenset[str],
    seed_size: int,
    shrinking_factor: float,
    num_sub_iterations: int,
    max_piece_length: int,
    split_by_whitespace: bool,
    progress: bool,
    trace: list[EMStep] | None = None,
) -> list[tuple[str, float]]:
    """SentencePiece's Unigram trainer on ``word_counts`` (lattice strings → counts;
    ``ends``: what follows each, see ``_Substrings``).

    Returns at most ``n_pieces`` ``(piece, score)``, best first, every character of
    ``required`` included. The steps, as ``unigram_model_trainer.cc``:

    1. Seed: ``seed_pieces``; scores ``log(score / Σ score)``.
    2. Repeat: ``num_sub_iterations`` times E-step (forward–backward over every word,
       weighted by its count) and M-step (``m_step``). Stop once at most
       ``1.1 × vocab_size`` pieces remain. Else prune: segment every word (Viterbi) to
       get each piece's count ``f``; for each piece, its best segmentation without
       itself (its *alternative*); a piece whose own best segmentation is not itself
       goes, as does one never used. The loss of removing piece ``i`` is
       ``F_i · (log p_i − Σ_{n ∈ alt_i} log p'_n)`` with ``F_i = f_i / Σ count`` and
       ``p'`` the probabilities after ``f_i`` moves to the alternative's pieces. Keep the
       characters, then the pieces of highest loss, ``max(1.1 × vocab_size,
       shrinking_factor × size)`` in all.
    3. Finalize: the required characters (scores kept, or, for those EM dropped, the
       minimum score less 0.0001, 0.0002, ... by descending count), then the
       best-scored pieces.

    A character whose expected count falls under 0.5, or that no Viterbi path uses, is
    dropped by SentencePiece, whose lattices then give such a character an unknown
    node scored ``min(scores) - 10``; here the character stays in the lattices with
    exactly that score (it is *demoted*), which is the same lattice.
    """
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc="unigram EM", unit="iter")

    words = sorted(word_counts, key=lambda w: (-word_counts[w], w))
    counts = np.array([word_counts[w] for w in words], dtype=np.float64)
    subs = _Substrings(
        words, [word_counts[w] for w in words], _end_codes(words, ends), max_piece_length,
        split_by_whitespace,
    )
    seed_ids = np.array(subs.seeds(seed_size, reserved), dtype=np.int64)
    n = len(seed_ids)
    pieces = [subs.strings[k] for k in seed_ids]
    ids = {p: i for i, p in enumerate(pieces)}
    is_char = subs.length[seed_ids] == 1
    raw = (subs.count * subs.length)[seed_ids].astype(np.float64)  # characters: length 1
    logp = np.log(raw) - np.log(raw.sum())
    alive = np.ones(n, dtype=bool)
    demoted = np.zeros(n, dtype=bool)
    pid_of = np.full(len(subs.strings), -1, dtype=np.int64)
    pid_of[seed_ids] = np.arange(n)
    occ = pid_of[subs.sid]
    m = occ >= 0
    lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    full = _Lattices(lens, subs.word[m], subs.start[m], subs.end[m], occ[m])
    del subs, occ, m
    lat = full
    alt_full: _Lattices | None = None
    alt_owner = np.zeros(0, dtype=np.int64)
    desired = int(vocab_size * DESIRED_VOCAB_FACTOR)
    total = counts.sum()

    def scores_now() -> np.ndarray:
        # Removed pieces score -inf: the lattices drop their edges only now and then.
        kept = alive & ~demoted
        sc = np.where(kept, logp, -np.inf)
        sc[demoted] = logp[kept].min() - UNK_PENALTY
        return sc

    def shrink(lat: _Lattices) -> _Lattices:
        dead = 1.0 - alive[lat.pid].mean() if lat.pid.size else 0.0
        return lat.subset(alive) if dead > 0.2 else lat

    for round_ in range(1 << 30):
        for sub in range(num_sub_iterations):
            expected, log_z = lat.expected_counts(scores_now(), counts, n)
            # M-step
            low = alive & ~demoted & (expected < EXPECTED_COUNT_THRESHOLD)
            if not (alive & ~demoted & ~low).any():  # a corpus too small for the threshold
                low = alive & ~demoted & (expected <= 0)
            alive &= ~(low & ~is_char)
            demoted |= low & is_char
            kept = alive & ~demoted
            logp = np.where(kept, digamma(np.where(kept, expected, 1.0)) - digamma(expected[kept].sum()), 0.0)
            lat = shrink(lat)
            obj = -float((counts * log_z).sum() / total)
            if trace is not None:
                trace.append(EMStep(round_, sub, int(kept.sum()), obj))
            if bar is not None:
                bar.set_postfix(size=int(kept.sum()), obj=f"{obj:.4f}")
                bar.update(1)
        size = int((alive & ~demoted).sum())
        if size <= desired:
            break

        # Prune.
        score = scores_now()
        node_w, node_p, _ = lat.viterbi(score)
        freq = np.bincount(node_p, weights=counts[node_w], minlength=n)
        kept = alive & ~demoted
        multi = np.flatnonzero(kept & ~is_char)
        if alt_full is None:  # built once: pieces only disappear
            alt_full = full.inner(multi)
            alt_owner = multi
        alt = alt_full.subset(alive)
        a_w, a_p, a_best = alt.viterbi(score)
        # pieces whose own best segmentation is split, or that no path uses, go
        alt_score = np.full(n, -np.inf)
        alt_score[alt_owner] = a_best
        own = alive & ~is_char & ~demoted
        split = own & (alt_score > score)
        unused = own & (freq == 0)
        alive &= ~(split | unused)
        demoted |= alive & is_char & (freq == 0)
        cand = np.flatnonzero(alive & ~is_char & ~demoted)

        fsum = freq.sum()
        owner = alt_owner[a_w]
        alt_len = np.bincount(owner, minlength=n)
        with np.errstate(divide="ignore"):  # log(0) for unused pieces, which are not candidates
            logprob_alt = np.bincount(owner, weights=np.log(freq[a_p] + freq[owner]), minlength=n)
        f = freq[cand]
        logsum_alt = np.log(fsum + f * (alt_len[cand] - 1))
        loss = (f / total) * (
            (np.log(f) - np.log(fsum)) - (logprob_alt[cand] - alt_len[cand] * logsum_alt)
        )
        n_chars = int((alive & is_char & ~demoted).sum())
        pruned_size = max(desired, int(shrinking_factor * size))
        order = np.lexsort((cand, -loss))
        keep_cand = cand[order[: max(0, pruned_size - n_chars)]]
        new_alive = np.zeros(n, dtype=bool)
        new_alive[keep_cand] = True
        alive = (alive & is_char) | new_alive
        lat = shrink(lat)

    if bar is not None:
        bar.close()

    # Finalize.
    kept = alive & ~demoted
    min_score = float(logp[kept].min())
    final: dict[str, float] = {}
    penalty = 0.0
    for ch in required:
        i = ids.get(ch)
        if i is not None and kept[i]:
            final[ch] = float(logp[i])
        else:
            # SentencePiece adds the steps, so that rarer characters score *higher*
            # than the minimum (and than every piece, in a corpus so small that EM kept
            # only whole words); its comment says rarer ones should get more penalty,
            # which subtracting does.
            penalty += MIN_SCORE_PENALTY_DELTA
            final[ch] = min_score - penalty
    rest = [(float(logp[i]), pieces[i]) for i in np.flatnonzero(kept & ~is_char)]
    rest.sort(key=lambda x: (-x[0], x[1]))
    for sc, p in rest:
        if len(final) >= n_pieces:
            break
        final.setdefault(p, sc)
    # SentencePiece stores scores as float32.
    out = [(p, float(np.float32(sc))) for p, sc in final.items()]
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


# ---------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    return value


def _check_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {value}")
    return value


def _training_units(
    texts: list[str], normalization: str, add_dummy_prefix: bool, split_by_whitespace: bool
) -> Counter[tuple[str, bool]]:
    """The corpus as ``(unit, last) → count``, spaces still ``" "``: the units are words
    (each space starts one) with ``split_by_whitespace``, else sentences; ``last`` says
    the unit ends its sentence. As in SentencePiece, a sentence is a line; with
    ``"nfkc"`` a line break is whitespace anyway."""
    counter: Counter[tuple[str, bool]] = Counter()
    nfkc = normalization == "nfkc"
    for t in texts:
        if nfkc:
            t = unicodedata.normalize("NFKC", t)
        for line in t.split("\n"):
            if nfkc:
                if add_dummy_prefix and split_by_whitespace:  # the common case, made fast
                    ws = line.split()
                    if ws:
                        counter.update((" " + w, False) for w in ws[:-1])
                        counter[" " + ws[-1], True] += 1
                    continue
                line = " ".join(line.split())
            if not line:
                continue
            s = " " + line if add_dummy_prefix else line
            if not split_by_whitespace:
                counter[s, True] += 1
                continue
            parts = s.split(" ")
            units = [" " + p for p in parts[1:]]
            if parts[0]:
                units.insert(0, parts[0])
            counter.update((u, False) for u in units[:-1])
            counter[units[-1], True] += 1
    return counter


class UnigramTokenizer(Tokenizer):
    """SentencePiece's Unigram model: pieces with log-probabilities, Viterbi encoding,
    EM training, byte fallback, n-best and sampled segmentations.

    Ids: the special tokens first, then (with byte fallback) ``<0x00>``…``<0xFF>``, then
    the pieces by descending score, as in a SentencePiece model. Special tokens are
    never matched in text (SentencePiece's control symbols): add ``<s>``/``</s>`` ids
    yourself.

    >>> CORPUS = ["low lower lowest", "newer newest", "lower newer", "lowest low newest"]
    >>> tok = UnigramTokenizer().train(CORPUS, 300)
    >>> tok.tokenize("lowest newer")
    ['▁lowest', '▁newer']
    >>> tok.decode(tok.encode("new slow"))
    'new slow'
    >>> tok.tokenize("é")  # never seen: its UTF-8 bytes
    ['▁', '<0xC3>', '<0xA9>']
    """

    kind = "unigram"

    def __init__(self) -> None:
        super().__init__()
        self.normalization: str = "nfkc"
        self.add_dummy_prefix = True
        self.split_by_whitespace = True
        self.byte_fallback = True
        self._scores: list[float] = []
        self._model: _Pieces | None = None
        self._byte_base = -1
        self._unk_id: int | None = None
        self._sentinel = _SENTINELS[0]
        self._byte_of: dict[str, int] = {}
        self._cache: dict[str, tuple[tuple[int, ...], tuple[tuple[int, int], ...]]] = {}
        self.trace: list[EMStep] | None = None

    # -- training -------------------------------------------------------------

    def train(
        self,
        texts: str | Iterable[str],
        vocab_size: int,
        *,
        byte_fallback: bool = True,
        special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
        normalization: Normalization = "nfkc",
        add_dummy_prefix: bool = True,
        split_by_whitespace: bool = True,
        seed_size: int = 1_000_000,
        shrinking_factor: float = 0.75,
        num_sub_iterations: int = 2,
        max_piece_length: int = 16,
        progress: bool = False,
        trace: bool = False,
    ) -> UnigramTokenizer:
        """Learn ``vocab_size`` ids from ``texts`` (a string or an iterable of strings); returns ``self``.

        ``vocab_size`` counts the special tokens and, with ``byte_fallback``, the 256 byte
        pieces; it must leave room for every character of the corpus, and it is an upper
        bound (a corpus too small to offer that many pieces gives fewer). The corpus is
        read as SentencePiece reads it: lines are sentences, normalized
        (``normalization``, ``add_dummy_prefix``: see the module docstring) and cut into
        words before each space (``split_by_whitespace``; with False, pieces may span
        words, like ``"▁of▁the"``, and whole sentences are the training units).

        The training options are SentencePiece's, with its defaults: the vocabulary is
        seeded with ``seed_size`` substrings of at most ``max_piece_length`` characters;
        ``num_sub_iterations`` EM steps run before each pruning round, which keeps
        ``shrinking_factor`` of the pieces. ``progress`` shows a tqdm bar of the EM steps;
        ``trace=True`` keeps them in ``self.trace`` (a list of ``EMStep``). The
        algorithm, step by step, is in ``_train_pieces``.
        """
        texts = check_texts(texts)
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
            raise TypeError(f"vocab_size must be int, not {type(vocab_size).__name__}")
        byte_fallback = _check_bool(byte_fallback, "byte_fallback")
        add_dummy_prefix = _check_bool(add_dummy_prefix, "add_dummy_prefix")
        split_by_whitespace = _check_bool(split_by_whitespace, "split_by_whitespace")
        progress = _check_bool(progress, "progress")
        trace = _check_bool(trace, "trace")
        normalization = _check_normalization(normalization)  # type: ignore[assignment]
        seed_size = _check_int(seed_size, "seed_size", 1)
        num_sub_iterations = _check_int(num_sub_iterations, "num_sub_iterations", 1)
        max_piece_length = _check_int(max_piece_length, "max_piece_length", 1)
        if not is_finite_number(shrinking_factor):
            raise TypeError(f"shrinking_factor must be a number, not {shrinking_factor!r}")
        if not 0 < shrinking_factor < 1:
            raise ValueError(
                f"shrinking_factor must be between 0 and 1 (exclusive), not {shrinking_factor}; "
                "each pruning round keeps this fraction of the pieces (SentencePiece: 0.75)"
            )
        specials = check_special_tokens(special_tokens)
        if not byte_fallback and UNK not in specials:
            raise ValueError(
                f"without byte fallback unknown characters need {UNK!r}: add it to "
                "special_tokens, or pass byte_fallback=True"
            )
        if byte_fallback and set(specials) & set(BYTE_PIECES):
            clash = sorted(set(specials) & set(BYTE_PIECES))
            raise ValueError(f"special tokens {clash} are byte-fallback pieces; rename them")

        units = _training_units(texts, normalization, add_dummy_prefix, split_by_whitespace)
        # A literal ▁ and any one-character special token can be in no piece: they
        # split the units, which is exact since no piece can cross them.
        blocked = {WS} | {s for s in specials if len(s) == 1}
        splitter = re.compile("([" + re.escape("".join(sorted(blocked))) + "]+)")
        words: Counter[str] = Counter()
        ends: dict[str, set[int]] = {}
        for (u, last), c in units.items():
            parts = splitter.split(u)  # part, separator, part, ...
            for k in range(0, len(parts), 2):
                if not parts[k]:
                    continue
                w = parts[k].replace(" ", WS)
                words[w] += c
                if k + 1 < len(parts):
                    end = ord(parts[k + 1][0])
                else:
                    end = _Substrings.END if last else ord(WS)
                ends.setdefault(w, set()).add(end)
        if not words:
            raise ValueError(
                "the corpus has no characters to learn from (only whitespace); "
                "pass text with at least one non-space character"
            )
        chars: Counter[str] = Counter()
        for w, c in words.items():
            for ch in w:
                chars[ch] += c
        required = [ch for ch, _ in sorted(chars.items(), key=lambda x: (-x[1], x[0]))]
        if WS not in chars:  # spaces must always be encodable as a piece
            required.append(WS)
        n_meta = len(specials) + (256 if byte_fallback else 0)
        minimum = n_meta + len(required)
        if vocab_size < minimum:
            raise ValueError(
                f"vocab_size = {vocab_size} is too small: the {len(specials)} special tokens"
                + (", the 256 byte pieces" if byte_fallback else "")
                + f" and the {len(required)} distinct characters of the corpus need "
                f"{minimum}; pass vocab_size >= {minimum}"
            )
        reserved = frozenset(specials) | (frozenset(BYTE_PIECES) if byte_fallback else frozenset())
        steps: list[EMStep] | None = [] if trace else None
        pieces = _train_pieces(
            words,
            ends,
            vocab_size - n_meta,
            vocab_size=vocab_size,
            required=required,
            reserved=reserved,
            seed_size=seed_size,
            shrinking_factor=float(shrinking_factor),
            num_sub_iterations=num_sub_iterations,
            max_piece_length=max_piece_length,
            split_by_whitespace=split_by_whitespace,
            progress=progress,
            trace=steps,
        )
        self.trace = steps
        self._install(
            normalization, add_dummy_prefix, split_by_whitespace, byte_fallback, specials, pieces
        )
        return self

    def _install(
        self,
        normalization: str,
        add_dummy_prefix: bool,
        split_by_whitespace: bool,
        byte_fallback: bool,
        specials: tuple[str, ...],
        pieces: list[tuple[str, float]],
    ) -> None:
        meta = [*specials, *(BYTE_PIECES if byte_fallback else ())]
        self._set_vocab([*meta, *(p for p, _ in pieces)])
        self.normalization = normalization
        self.add_dummy_prefix = add_dummy_prefix
        self.split_by_whitespace = split_by_whitespace
        self.byte_fallback = byte_fallback
        self.special_tokens = specials
        self._scores = [0.0] * len(meta) + [sc for _, sc in pieces]
        self._byte_base = len(specials) if byte_fallback else -1
        self._byte_of = {p: b for b, p in enumerate(BYTE_PIECES)} if byte_fallback else {}
        self._unk_id = self._ids.get(UNK)
        first = len(meta)
        keys = {p: first + i for i, (p, _) in enumerate(pieces)}
        self._model = _Pieces(keys, self._scores)
        used = set().union(*map(set, keys))
        self._sentinel = next(c for c in _sentinels() if c not in used)
        self._cache = {}

    # -- the vocabulary -------------------------------------------------------

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """``(piece, log-probability)`` for every id, in id order; special and byte pieces score 0.0."""
        self._require_trained()
        return list(zip(self._pieces, self._scores))

    @property
    def unk_id(self) -> int | None:
        """The id of ``<unk>``, or ``None`` if this vocabulary has none."""
        self._require_trained()
        return self._unk_id

    def normalize(self, text: str) -> str:
        """``text`` as this tokenizer normalizes it: what ``decode(encode(text))`` returns."""
        self._require_trained()
        return normalize(text, normalization=self.normalization)  # type: ignore[arg-type]

    # -- encoding -------------------------------------------------------------

    def _norm(self, text: str) -> str:
        if self.normalization == "identity":
            return text
        return " ".join(unicodedata.normalize("NFKC", text).split())

    def _units(self, norm: str) -> list[str]:
        """The prefixed text cut before every space (or whole, without split_by_whitespace);
        the units still hold spaces, not ``▁``."""
        s = " " + norm if self.add_dummy_prefix and norm else norm
        if not s:
            return []
        if not self.split_by_whitespace:
            return [s]
        parts = s.split(" ")
        units = [" " + p for p in parts[1:]]
        if parts[0]:
            units.insert(0, parts[0])
        return units

    def _lattice_string(self, unit: str) -> str:
        # A literal ▁ becomes the sentinel (in no piece), then spaces become ▁.
        if WS in unit:
            unit = unit.replace(WS, self._sentinel)
        return unit.replace(" ", WS)

    def _path_ids(
        self, unit: str, path: list[tuple[Any, int, int]]
    ) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        """Ids and unit-relative spans of a path; unknown characters become bytes or ``<unk>``."""
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        for key, i, j in path:
            if key is not None:
                ids.append(key)
                spans.append((i, j))
            elif self.byte_fallback:
                # The unit's own character: a space gives <0x20>, a literal ▁ its 3 bytes.
                for b in unit[i].encode("utf-8", "surrogatepass"):
                    ids.append(self._byte_base + b)
                    spans.append((i, j))
            else:
                assert self._unk_id is not None
                ids.append(self._unk_id)
                spans.append((i, j))
        return tuple(ids), tuple(spans)

    def _encode_unit(self, unit: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        hit = self._cache.get(unit)
        if hit is None:
            assert self._model is not None
            path, _ = self._model.viterbi(self._lattice_string(unit))
            hit = self._path_ids(unit, path)
            if self.split_by_whitespace:
                if len(self._cache) >= _CACHE_LIMIT:
                    self._cache.clear()
                self._cache[unit] = hit
        return hit

    def _fuse_unk(self, ids: list[int]) -> list[int]:
        unk = self._unk_id
        if self.byte_fallback or unk is None or unk not in ids:
            return ids
        return [x for k, x in enumerate(ids) if not (x == unk and k and ids[k - 1] == unk)]

    def _encode(self, text: str) -> list[int]:
        out: list[int] = []
        cache = self._cache
        for unit in self._units(self._norm(text)):
            hit = cache.get(unit)
            out.extend((hit or self._encode_unit(unit))[0])
        return self._fuse_unk(out)

    def _encode_with_offsets(self, text: str) -> list[Token]:
        norm, st, en = _normalize_aligned(text, self.normalization)
        if self.add_dummy_prefix and norm:  # the dummy space is empty, where the text starts
            st = [st[0], *st]
            en = [st[0], *en]
        out: list[Token] = []
        o = 0
        pieces = self._pieces
        unk = None if self.byte_fallback else self._unk_id
        for unit in self._units(norm):
            ids, spans = self._encode_unit(unit)
            for id_, (i, j) in zip(ids, spans):
                if id_ == unk and out and out[-1].id == unk:
                    out[-1] = Token(unk, pieces[unk], out[-1].start, en[o + j - 1])
                else:
                    out.append(Token(id_, pieces[id_], st[o + i], en[o + j - 1]))
            o += len(unit)
        return out

    def _prepare(self, text: object) -> list[str]:
        self._require_trained()
        return self._units(self._norm(check_text(text)))

    def encode_nbest(self, text: str, k: int) -> list[tuple[list[int], float]]:
        """The ``k`` most probable encodings of ``text``, best first, each with its
        log-probability (the sum of its pieces' scores; an unknown character scores
        ``min(scores) - 10``). The first is ``encode(text)``.

        >>> CORPUS = ["low lower lowest", "newer newest", "lower newer", "lowest low newest"]
        >>> tok = UnigramTokenizer().train(CORPUS, 300)
        >>> [([tok.id_to_token(i) for i in ids], round(score, 2))
        ...  for ids, score in tok.encode_nbest("lower", 3)]
        [(['▁low', 'er'], -3.55), (['▁low', 'e', 'r'], -5.76), (['▁', 'l', 'o', 'w', 'er'], -11.01)]
        """
        units = self._prepare(text)
        k = _check_k(k)
        if not units:
            return [([], 0.0)]
        s = "".join(units)
        assert self._model is not None
        out = []
        for path, score in _nbest_paths(self._model, self._lattice_string(s), k):
            out.append((self._fuse_unk(list(self._path_ids(s, path)[0])), score))
        return out

    def sample_encode(
        self,
        text: str,
        *,
        alpha: float = 0.1,
        seed: int | random.Random | None = None,
    ) -> list[int]:
        """Subword regularization: an encoding of ``text`` drawn at random, a segmentation
        having probability ∝ ``P(seg) ** alpha`` (forward-filtering backward-sampling).

        ``alpha`` near 0 samples nearly uniformly, 1.0 from the model's own distribution;
        ``seed`` is an int, a ``random.Random`` (reused across calls) or None. Words are
        sampled independently, which is exact: no piece crosses a ``▁``.

        >>> CORPUS = ["low lower lowest", "newer newest", "lower newer", "lowest low newest"]
        >>> tok = UnigramTokenizer().train(CORPUS, 300)
        >>> {tok.decode(tok.sample_encode("lower newest", seed=s)) for s in range(5)}
        {'lower newest'}
        """
        units = self._prepare(text)
        alpha = _check_alpha(alpha)
        rng = _check_rng(seed)
        out: list[int] = []
        assert self._model is not None
        for unit in units:
            path = _sample_path(self._model, self._lattice_string(unit), alpha, rng)
            out.extend(self._path_ids(unit, path)[0])
        return self._fuse_unk(out)

    # -- decoding -------------------------------------------------------------

    def _join(self, pieces: list[str]) -> str:
        buf = bytearray()
        byte_of = self._byte_of
        for p in pieces:
            b = byte_of.get(p)
            if b is not None:
                buf.append(b)
            else:
                buf += p.replace(WS, " ").encode("utf-8", "surrogatepass")
        try:
            text = buf.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:  # bytes that are not UTF-8: only from hand-made ids
            text = buf.decode("utf-8", "replace")
        if self.add_dummy_prefix and text.startswith(" "):
            text = text[1:]
        return text

    # -- files ----------------------------------------------------------------

    def _to_config(self) -> dict[str, Any]:
        first = len(self.special_tokens) + (256 if self.byte_fallback else 0)
        return {
            "normalization": self.normalization,
            "add_dummy_prefix": self.add_dummy_prefix,
            "split_by_whitespace": self.split_by_whitespace,
            "byte_fallback": self.byte_fallback,
            "special_tokens": list(self.special_tokens),
            "pieces": [[p, sc] for p, sc in zip(self._pieces[first:], self._scores[first:])],
        }

    def _from_config(self, config: dict[str, Any]) -> None:
        normalization = config["normalization"]
        if normalization not in NORMALIZATIONS:
            raise TokenizerFileError(
                f"'normalization' must be 'nfkc' or 'identity', not {normalization!r}"
            )
        flags = {}
        for name in ("add_dummy_prefix", "split_by_whitespace", "byte_fallback"):
            if not isinstance(config[name], bool):
                raise TokenizerFileError(f"{name!r} must be true or false")
            flags[name] = config[name]
        specials = tuple(check_piece_list(config["special_tokens"], name="special_tokens"))
        raw = config["pieces"]
        if not isinstance(raw, list) or not raw:
            raise TokenizerFileError("'pieces' must be a non-empty list of [piece, score]")
        pieces: list[tuple[str, float]] = []
        for k, item in enumerate(raw):
            if (
                not isinstance(item, list)
                or len(item) != 2
                or not isinstance(item[0], str)
                or not is_finite_number(item[1])
            ):
                raise TokenizerFileError(
                    f"'pieces'[{k}] must be [piece, score] with a finite score, not {item!r}"
                )
            p = item[0]
            if not p:
                raise TokenizerFileError(f"'pieces'[{k}] is the empty string")
            if flags["split_by_whitespace"] and WS in p[1:]:
                raise TokenizerFileError(
                    f"'pieces'[{k}] = {p!r} has ▁ after its first character, which "
                    "split_by_whitespace forbids"
                )
            pieces.append((p, float(item[1])))
        names = [p for p, _ in pieces]
        if len(set(names)) != len(names):
            raise TokenizerFileError("'pieces' has repeated entries")
        clash = set(names) & (set(specials) | (set(BYTE_PIECES) if flags["byte_fallback"] else set()))
        if clash:
            raise TokenizerFileError(
                f"'pieces' repeats special or byte-fallback pieces: {sorted(clash)[:5]}"
            )
        if flags["byte_fallback"] and set(specials) & set(BYTE_PIECES):
            raise TokenizerFileError("'special_tokens' holds byte-fallback pieces")
        if not flags["byte_fallback"] and UNK not in specials:
            raise TokenizerFileError(
                f"without byte fallback the special tokens must include {UNK!r}"
            )
        self._install(
            normalization,
            flags["add_dummy_prefix"],
            flags["split_by_whitespace"],
            flags["byte_fallback"],
            specials,
            pieces,
        )


# ---------------------------------------------------------------------------
# References for the hidden tests of the `unigram` assignment: EM and pruning on a
# small corpus of words ({word: count}), by definition, one word at a time.
# ---------------------------------------------------------------------------


def _check_covered_corpus(corpus: object, scores: object) -> Mapping[str, int]:
    """Check ``corpus`` ({word: count}) and ``scores``, and that every character of
    every word is a piece, so that no word needs an unknown node."""
    if not isinstance(corpus, Mapping):
        raise TypeError(f"corpus must be a dict {{word: count}}, not {type(corpus).__name__}")
    _as_pieces(scores, None)  # type: ignore[arg-type]  # checks the pieces and scores
    for w, c in corpus.items():
        if not isinstance(w, str) or not w:
            raise TypeError(f"the words of corpus must be non-empty str; found {w!r}")
        if isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise ValueError(f"each count must be an int >= 1; {w!r} has {c!r}")
        missing = sorted({ch for ch in w if ch not in scores})  # type: ignore[operator]
        if missing:
            raise ValueError(
                f"every character of every word must be a piece; {w!r} has {missing}"
            )
    return corpus


def expected_piece_counts(
    corpus: Mapping[str, int], scores: Mapping[str, float]
) -> dict[str, float]:
    """The E-step on a corpus: for every piece of ``scores`` (in its order), the number of
    times it is expected in the segmentations of the words of ``corpus`` ({word: count}),
    each word's expected counts (``forward_backward``) weighted by its count; ``0.0`` for
    a piece in no word's lattice. Every character of every word must be a piece.

    >>> third = math.log(1 / 3)
    >>> counts = expected_piece_counts({"ab": 4, "b": 1}, {"a": third, "b": third, "ab": third, "c": third})
    >>> {p: round(c, 9) for p, c in counts.items()}
    {'a': 1.0, 'b': 2.0, 'ab': 3.0, 'c': 0.0}
    """
    _check_covered_corpus(corpus, scores)
    out = dict.fromkeys(scores, 0.0)
    for w, c in corpus.items():
        _, expected = forward_backward(w, scores)
        for piece, e in expected.items():
            out[piece] += c * e
    return out


def ml_m_step(expected: Mapping[str, float]) -> dict[str, float]:
    """The plain maximum-likelihood M-step: ``math.log(count / total)`` for every piece
    whose expected count is above 0 (in the order of ``expected``), ``total`` being the
    sum of all the counts. Pieces expected 0 times are dropped. (Training in
    :class:`UnigramTokenizer` uses SentencePiece's Bayesian ``m_step`` instead.)

    >>> ml_m_step({"a": 1.0, "b": 3.0, "c": 0.0})
    {'a': -1.3862943611198906, 'b': -0.2876820724517809}
    """
    if not isinstance(expected, Mapping):
        raise TypeError(f"expected must be a dict {{piece: count}}, not {type(expected).__name__}")
    for p, c in expected.items():
        if not is_finite_number(c) or c < 0:
            raise ValueError(f"expected counts must be finite numbers >= 0; {p!r} has {c!r}")
    total = sum(expected.values())
    if total <= 0:
        raise ValueError("the expected counts sum to 0: there is nothing to estimate from")
    return {p: math.log(c / total) for p, c in expected.items() if c > 0}


def prune_pieces(
    corpus: Mapping[str, int], scores: Mapping[str, float], keep: int
) -> dict[str, float]:
    """One pruning round by the Viterbi likelihood of ``corpus`` ({word: count}).

    ``L(s) = Σ count × viterbi(word, s)[1]``, summed in the order of ``corpus``. The loss
    of a piece ``p`` of two or more characters is ``L(scores) − L(scores without p)``
    (the other scores unchanged). The ``keep`` pieces of highest loss are kept (ties: in
    code-point order of the pieces), and every one-character piece; the result has
    their scores unchanged, in the order of ``scores``.

    >>> scores = {"a": -2.0, "b": -2.0, "ab": -3.0, "ba": -3.5, "bb": -5.0}
    >>> prune_pieces({"ab": 2, "bab": 1}, scores, 1)  # losses: ab 2.5, ba 0.0, bb 0.0
    {'a': -2.0, 'b': -2.0, 'ab': -3.0}
    """
    _check_covered_corpus(corpus, scores)
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
        raise ValueError(f"keep must be an int >= 0, not {keep!r}")

    def likelihood(s: Mapping[str, float]) -> float:
        total = 0.0
        for w, c in corpus.items():
            total += c * viterbi(w, s)[1]
        return total

    base = likelihood(scores)
    loss = {
        p: base - likelihood({q: v for q, v in scores.items() if q != p})
        for p in scores
        if len(p) > 1
    }
    kept = set(sorted(loss, key=lambda p: (-loss[p], p))[:keep])
    return {p: v for p, v in scores.items() if len(p) == 1 or p in kept}


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
