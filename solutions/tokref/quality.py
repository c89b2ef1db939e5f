r"""Intrinsic measures of a tokenizer on held-out text, as the literature defines them.

``measure_quality(tokenizer, texts)`` returns one frozen dataclass, ``QualityStats``,
that extends ``tokref.analysis.measure``'s ``TokenizationStats`` (bytes and characters
per token, fertility, unknown rate, vocabulary utilisation; ``measure`` computes them)
with:

- **Proportion of continued words** (Rust et al. 2021, *How Good is Your Tokenizer?*):
  the fraction of whitespace-separated words (``str.split``'s words) that the tokenizer
  splits into two tokens or more. Tokens are mapped to words by their character offsets
  on the running text: a token belongs to every word its span ``[start, end)``
  overlaps, so a token that covers a leading space and a word (GPT-2's ``"Ġworld"``)
  belongs to that word, a token of whitespace only belongs to none, and two byte tokens
  that share one character's span (byte-level BPE split it) both count for its word. It
  needs ``encode_with_offsets`` (every tokref tokenizer has it); for a tokenizer without
  it (a ``tiktoken`` wrapper) the measure is ``None``.
- **Rényi entropy** of the token unigram distribution ``p`` (token counts over the text,
  normalised), in bits: ``H_α(p) = 1 / (1 - α) · log2 Σ_i p_i^α``; ``α → 1`` gives
  Shannon's ``H(p) = -Σ_i p_i log2 p_i``, ``α = 0`` the log of the support, ``α = ∞``
  ``-log2 max_i p_i``.
- **Rényi efficiency** (Zouhar et al. 2023, *Tokenization and the Noiseless Channel*),
  as the authors' ``tokenization-scorer`` package computes it: ``H_α(p) / log2 |V|``, the
  entropy of the unigram distribution as a fraction of the largest possible, that of a
  uniform distribution over the vocabulary ``V``. Here ``|V|`` is always the tokenizer's
  ``vocab_size``, ids the text never uses included (the package takes the number of
  distinct tokens in the text unless it is given the vocabulary size). 1 means every id
  is used equally often; 0 means one id is all there is. The authors recommend
  ``α = 2.5``, which penalises both very frequent and very rare tokens and correlated
  best with BLEU in their machine-translation experiments; ``α = 1`` gives *Shannon
  efficiency*.

>>> round(renyi_entropy([1, 1, 1, 1]), 6), round(renyi_efficiency([1, 1, 1, 1], 4), 6)
(2.0, 1.0)
>>> renyi_efficiency([5, 0, 0, 0], 4)          # one token only: no information
0.0
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np

from .analysis import SupportsEncode, TokenizationStats, measure
from .checks import check_int, check_text

__all__ = [
    "QualityStats",
    "measure_quality",
    "renyi_entropy",
    "renyi_efficiency",
    "continued_words",
    "DEFAULT_ALPHA",
]

#: The order Zouhar et al. (2023) recommend for Rényi efficiency.
DEFAULT_ALPHA = 2.5


@dataclass(frozen=True)
class QualityStats(TokenizationStats):
    """``TokenizationStats`` plus continued words and the token distribution's entropies.

    ``n_continued_words`` is ``None`` when the tokenizer has no ``encode_with_offsets``.
    Entropies are in bits, of the token unigram distribution of the measured text.
    """

    n_continued_words: int | None
    alpha: float
    renyi_entropy: float
    shannon_entropy: float

    @property
    def continued_words(self) -> float | None:
        """Fraction of words split into two tokens or more (Rust et al. 2021)."""
        if self.n_continued_words is None:
            return None
        return self.n_continued_words / self.n_words if self.n_words else 0.0

    @property
    def renyi_efficiency(self) -> float:
        """``renyi_entropy / log2(vocab_size)`` (Zouhar et al. 2023); NaN for one id."""
        return _per_log2(self.renyi_entropy, self.vocab_size)

    @property
    def shannon_efficiency(self) -> float:
        """``shannon_entropy / log2(vocab_size)``: Rényi efficiency at ``α = 1``."""
        return _per_log2(self.shannon_entropy, self.vocab_size)

    def as_dict(self) -> dict[str, Any]:
        """Counts, entropies and ratios in one flat dict (a table row)."""
        names = ("continued_words", "renyi_efficiency", "shannon_efficiency")
        extra = {k: getattr(self, k) for k in names}
        return {**super().as_dict(), **extra}


def _per_log2(bits: float, vocab_size: int) -> float:
    return bits / math.log2(vocab_size) if vocab_size > 1 else math.nan


class _Recorder:
    """The tokenizer as ``measure`` sees it, keeping what ``measure`` does not: the count
    of every id and, where offsets exist, the continued words. One encoding serves both."""

    def __init__(self, tokenizer: SupportsEncode) -> None:
        self._tok = tokenizer
        with_offsets = getattr(tokenizer, "encode_with_offsets", None)
        self._with_offsets = with_offsets if callable(with_offsets) else None
        self.counts: Counter[int] = Counter()
        self.n_continued: int | None = 0 if self._with_offsets is not None else None

    @property
    def vocab_size(self) -> object:
        return self._tok.vocab_size

    @property
    def unk_id(self) -> object:
        return getattr(self._tok, "unk_id", None)

    def encode(self, text: str) -> list[int]:
        ids = self._tok.encode(text)
        if isinstance(ids, list):  # measure refuses anything else, with the reason
            self.counts.update(ids)
        if self._with_offsets is not None:
            spans = [(t.start, t.end) for t in self._with_offsets(text)]
            self.n_continued += continued_words(text, spans)[1]  # type: ignore[operator]
        return ids


def measure_quality(
    tokenizer: SupportsEncode, texts: str | Iterable[str], *, alpha: float = DEFAULT_ALPHA
) -> QualityStats:
    """Encode ``texts`` (a string or an iterable of strings) with ``tokenizer`` once and
    measure it: ``tokref.analysis.measure``'s fields, continued words, and the Rényi
    (order ``alpha``) and Shannon entropies and efficiencies of its token distribution
    (the ids ``encode`` returns, as ``measure`` counts them: BERT's ``[CLS]`` and ``[SEP]``
    included; continued words come from ``encode_with_offsets``, which has no added tokens).

    >>> from tokref import CharTokenizer
    >>> tok = CharTokenizer().train("ab ba")      # 4 specials, ' ', a, b: 7 ids
    >>> q = measure_quality(tok, "ab ab ba")
    >>> q.n_tokens, q.n_words, q.n_continued_words, q.continued_words
    (8, 3, 3, 1.0)
    >>> round(q.shannon_entropy, 4), round(q.renyi_efficiency, 4)  # counts a 3, b 3, ' ' 2
    (1.5613, 0.5455)
    """
    alpha = _check_alpha(alpha)
    encode = getattr(tokenizer, "encode", None)
    if isinstance(tokenizer, (str, bytes, bytearray, type)) or not callable(encode):
        measure(tokenizer, texts)  # refuses it, saying why (one implementation of the checks)
        raise TypeError(f"tokenizer must be a trained tokenizer, not {type(tokenizer).__name__}")
    recorder = _Recorder(tokenizer)
    stats = measure(recorder, texts)
    counts = list(recorder.counts.values())
    return QualityStats(
        **{f: getattr(stats, f) for f in TokenizationStats.__dataclass_fields__},
        n_continued_words=recorder.n_continued,
        alpha=alpha,
        renyi_entropy=renyi_entropy(counts, alpha=alpha) if counts else 0.0,
        shannon_entropy=renyi_entropy(counts, alpha=1.0) if counts else 0.0,
    )


def continued_words(text: str, spans: Iterable[Sequence[int]]) -> tuple[int, int]:
    """``(n_words, n_continued)``: the whitespace-separated words of ``text`` and how
    many of them two or more of the token ``spans`` (``(start, end)`` character offsets)
    overlap. A span that covers a space and a word overlaps the word; an empty span
    overlaps nothing.

    >>> continued_words("the cat", [(0, 3), (3, 5), (5, 7)])  # the | " c" | at
    (2, 1)
    >>> continued_words("a  b", [(0, 2), (2, 4)])           # "a " and " b": one each
    (2, 0)
    """
    text = check_text(text)
    words = [(m.start(), m.end()) for m in _WORD_RE.finditer(text)]
    ends = [e for _, e in words]
    hits = [0] * len(words)
    for span in spans:
        start, end = span
        if not 0 <= start <= end <= len(text):
            raise ValueError(
                f"token span {tuple(span)} is not inside the text (0..{len(text)}); "
                "spans are (start, end) character offsets with start <= end"
            )
        i = bisect_right(ends, start)  # the first word that ends after the span starts
        while i < len(words) and words[i][0] < end:
            hits[i] += 1
            i += 1
    return len(words), sum(1 for h in hits if h >= 2)


# The words of str.split(): Python's \s and str.isspace() agree on every code point.
_WORD_RE = re.compile(r"\S+")


def renyi_entropy(
    counts: Mapping[Any, float] | Iterable[float], *, alpha: float = DEFAULT_ALPHA
) -> float:
    """``H_α = 1 / (1 - α) · log2 Σ p_i^α`` in bits, ``p`` the normalised ``counts`` (a
    mapping's values, or an iterable of non-negative numbers; zeros are ignored).
    ``α = 1`` is Shannon entropy; near it the sum is taken as ``log1p`` of ``expm1`` terms,
    so ``H_{1 + 1e-6}`` is accurate to about ``1e-15``, not cancelled to ``1e-10``.

    >>> round(renyi_entropy({"a": 2, "b": 1, "c": 1}, alpha=1), 4)   # Shannon: 1.5 bits
    1.5
    >>> round(renyi_entropy([2, 1, 1], alpha=2), 4)                 # -log2(1/4+1/16+1/16)
    1.415
    """
    alpha = _check_alpha(alpha)
    p = _distribution(counts)
    lnp = np.log(p)
    t = alpha - 1.0
    if alpha == 1.0:
        nats = float(-(p * lnp).sum())
    elif math.isinf(alpha):
        nats = float(-lnp.max())
    elif abs(t) < 0.5:  # ln Σ p^α = ln(1 + Σ p (p^t - 1)), exact near α = 1
        nats = -math.log1p(float(np.sum(p * np.expm1(t * lnp)))) / t
    else:  # log-sum-exp: no underflow for a large α
        top = float(lnp.max())
        nats = -(alpha * top + math.log(float(np.sum(np.exp(alpha * (lnp - top)))))) / t
    return max(nats / math.log(2), 0.0) + 0.0  # + 0.0 turns -0.0 into 0.0


def renyi_efficiency(
    counts: Mapping[Any, float] | Iterable[float], vocab_size: int, *, alpha: float = DEFAULT_ALPHA
) -> float:
    """``renyi_entropy(counts, alpha=alpha) / log2(vocab_size)`` (Zouhar et al. 2023): 1
    for a uniform distribution over all ``vocab_size`` ids, 0 for a single id.

    >>> round(renyi_efficiency([2, 1, 1], 4, alpha=2), 4)          # 1.415 / 2 bits
    0.7075
    """
    p = _distribution(counts)
    vocab_size = check_int(vocab_size, name="vocab_size", minimum=2)
    if len(p) > vocab_size:
        raise ValueError(
            f"counts has {len(p)} outcomes with a positive count but vocab_size is "
            f"{vocab_size}; vocab_size must be at least the number of ids counted"
        )
    return renyi_entropy(p, alpha=alpha) / math.log2(vocab_size)


def _distribution(counts: object) -> np.ndarray:
    """The positive entries of ``counts`` (a mapping's values, or numbers), normalised."""
    if isinstance(counts, Mapping):
        values = list(counts.values())
    elif isinstance(counts, (str, bytes, bytearray)) or not isinstance(counts, Iterable):
        raise TypeError(
            "counts must be a mapping (a Counter of ids) or an iterable of numbers, "
            f"not {type(counts).__name__}"
        )
    else:
        values = list(counts)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (Real, np.number)):
            raise TypeError(f"counts must be numbers, found {v!r} ({type(v).__name__})")
    arr = np.asarray(values, dtype=np.float64)
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0):
        bad = next(v for v in values if not math.isfinite(v) or v < 0)
        raise ValueError(f"counts must be finite and >= 0, found {bad!r}")
    arr = arr[arr > 0]
    if not arr.size:
        raise ValueError("counts has no positive entry: an empty distribution has no entropy")
    return arr / arr.sum()


def _check_alpha(alpha: object) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise TypeError(
            f"alpha must be a number >= 0 (2.5 is Zouhar et al.'s), not {type(alpha).__name__}"
        )
    if math.isnan(alpha) or alpha < 0:
        raise ValueError(f"alpha must be >= 0 (1 for Shannon, 2.5 for Zouhar et al.), not {alpha}")
    return float(alpha)
