"""References for the hidden tests of the ``unigram`` assignment: EM and pruning on a
small corpus of words (``{word: count}``), by definition, one word at a time.

They are slow and plain on purpose: each is what a student's function must return.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..base import is_finite_number
from ..checks import is_integer
from .lattice import as_pieces, forward_backward, viterbi

__all__ = ["expected_piece_counts", "ml_m_step", "prune_pieces"]


def _check_covered_corpus(corpus: object, scores: object) -> Mapping[str, int]:
    """Check ``corpus`` ({word: count}) and ``scores``, and that every character of
    every word is a piece, so that no word needs an unknown node.

    >>> _check_covered_corpus({"ab": 2}, {"a": -1.0, "b": -1.0})
    {'ab': 2}
    >>> _check_covered_corpus({"abc": 1}, {"a": -1.0, "b": -1.0})
    Traceback (most recent call last):
    ...
    ValueError: every character of every word must be a piece; 'abc' has ['c']
    """
    if not isinstance(corpus, Mapping):
        raise TypeError(f"corpus must be a dict {{word: count}}, not {type(corpus).__name__}")
    as_pieces(scores, None)  # type: ignore[arg-type]  # checks the pieces and scores
    for w, c in corpus.items():
        if not isinstance(w, str) or not w:
            raise TypeError(f"the words of corpus must be non-empty str; found {w!r}")
        if not is_integer(c) or c < 1:
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
    total = math.fsum(expected.values())  # exact: the same on every Python (3.12's sum() differs)
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
    # A ValueError for a wrong type too, with the wording the assignment's tests match.
    if not is_integer(keep) or keep < 0:  # type: ignore[operator]
        raise ValueError(f"keep must be an int >= 0, not {keep!r}")
    keep = int(keep)

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
