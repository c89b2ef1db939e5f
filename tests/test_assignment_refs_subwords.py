"""The reference functions that the hidden tests of the `wordpiece` and `unigram`
assignments compare students with, checked against their definitions:

- ``tokref.wordpiece.wordpiece_pair_scores`` (wordpiece, Part 2): every pair's score
  ``count(ab) / (count(a) * count(b))`` as an exact ``Fraction``;
- ``tokref.wordpiece.merge_wordpiece_words`` (wordpiece, Part 4): one merge in a corpus
  of segmented words. Applied with ``best_wordpiece_pair`` again and again (what the
  assignment's Parts 3 and 4 do), it learns the same pieces as ``train_wordpiece``, the
  efficient trainer;
- ``tokref.unigram.expected_piece_counts`` (unigram, Part 3): the E-step on a corpus,
  equal to the posterior-weighted counts over every segmentation, listed by brute force;
- ``tokref.unigram.ml_m_step`` (unigram, Part 4): the plain maximum-likelihood M-step
  (training itself uses SentencePiece's digamma variant, ``m_step``); one EM step with it
  never lowers the corpus likelihood;
- ``tokref.unigram.prune_pieces`` (unigram, Part 5): one pruning round by the Viterbi
  likelihood, against the best segmentations listed by brute force.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from tokgrade.grading import random_corpus, random_texts
from tokref.unigram import (
    expected_piece_counts,
    forward_backward,
    ml_m_step,
    prune_pieces,
    segmentations,
    viterbi,
)
from tokref.wordpiece import (
    best_wordpiece_pair,
    count_wordpiece_stats,
    merge_wordpiece_words,
    train_wordpiece,
    wordpiece_pair_scores,
)

# ---------------------------------------------------------------------------------------
# WordPiece
# ---------------------------------------------------------------------------------------


def symbols(word: str) -> tuple[str, ...]:
    return (word[0], *("##" + c for c in word[1:]))


def random_words(seed: int) -> dict[tuple[str, ...], int]:
    """A seeded corpus of segmented words, half of them from two or three letters."""
    rng = random.Random(seed)
    if seed % 2:
        texts = random_texts(seed, n=rng.randint(1, 6), max_len=rng.choice([6, 12, 24]),
                             alphabet=rng.choice(["ab ", "aab ", "abc "]))
    else:
        texts = random_corpus(seed, n_texts=rng.randint(1, 3))
    counts = Counter(" ".join(texts).split())
    return {symbols(w): c for w, c in counts.items()}


@pytest.mark.parametrize("seed", range(60))
def test_pair_scores_are_the_definition(seed):
    words = random_words(seed)
    scores = wordpiece_pair_scores(words)
    sym, pairs = Counter(), Counter()
    for w, c in words.items():
        for s in w:
            sym[s] += c
        for i in range(len(w) - 1):
            pairs[w[i], w[i + 1]] += c
    assert scores == {p: Fraction(n, sym[p[0]] * sym[p[1]]) for p, n in pairs.items()}
    assert all(type(s) is Fraction for s in scores.values())


def test_pair_scores_of_the_course_example():
    words = {symbols("hug"): 10, symbols("pug"): 5, symbols("pun"): 12, symbols("bun"): 4,
             symbols("hugs"): 5}
    scores = wordpiece_pair_scores(words)
    assert scores.pop(("##g", "##s")) == Fraction(1, 20)
    assert set(scores.values()) == {Fraction(1, 36)}


def test_merge_wordpiece_words_merges_left_to_right_and_adds_counts():
    words = {("a", "##a", "##a", "##a"): 2, ("b", "##a"): 1, ("aa", "##a", "##a"): 3}
    assert merge_wordpiece_words(words, ("##a", "##a")) == {
        ("a", "##aa", "##a"): 2, ("b", "##a"): 1, ("aa", "##aa"): 3}
    assert merge_wordpiece_words(words, ("a", "##a")) == {("aa", "##a", "##a"): 5, ("b", "##a"): 1}
    assert words == {("a", "##a", "##a", "##a"): 2, ("b", "##a"): 1, ("aa", "##a", "##a"): 3}
    # The merged symbol is a + b[2:], always: the '#' of a word's own characters stays.
    assert merge_wordpiece_words({("a", "###"): 1}, ("a", "###")) == {("a#",): 1}


@pytest.mark.parametrize("seed", range(40))
def test_best_pair_and_merge_learn_what_train_wordpiece_learns(seed):
    """The assignment's training step (best_pair, then merge_pair), repeated, makes the
    pieces of the efficient trainer, in the same order."""
    rng = random.Random(seed)
    texts = (random_texts(seed, n=5, max_len=16, alphabet=rng.choice(["ab ", "abc "]))
             if seed % 2 else random_corpus(seed, n_texts=2))
    counts = dict(Counter(" ".join(texts).split()))
    n = rng.choice([1, 5, 20, 50])
    steps = train_wordpiece(counts, n)
    words = {symbols(w): c for w, c in counts.items()}
    made: list[str] = []
    seen = {s for w in words for s in w}
    while len(made) < n:
        sym, pairs = count_wordpiece_stats(words)
        if not pairs:
            break
        a, b = best_wordpiece_pair(sym, pairs)
        scores = wordpiece_pair_scores(words)
        assert scores[a, b] == max(scores.values())
        words = merge_wordpiece_words(words, (a, b))
        piece = a + b[2:]
        if piece not in seen:
            seen.add(piece)
            made.append(piece)
    assert made == [s.piece for s in steps if s.new]


def test_wordpiece_helpers_check_their_input():
    with pytest.raises(TypeError, match="dict"):
        wordpiece_pair_scores([("a", "##b")])
    with pytest.raises(TypeError, match="non-empty tuple"):
        wordpiece_pair_scores({"ab": 1})
    with pytest.raises(ValueError, match="int >= 1"):
        wordpiece_pair_scores({("a", "##b"): 0})
    with pytest.raises(TypeError, match="pair"):
        merge_wordpiece_words({("a", "##b"): 1}, ["a", "##b"])
    with pytest.raises(ValueError, match="prefix"):
        merge_wordpiece_words({("a", "##b"): 1}, ("a", "##b"), prefix="")


# ---------------------------------------------------------------------------------------
# Unigram
# ---------------------------------------------------------------------------------------


def random_unigram(seed: int) -> tuple[dict[str, int], dict[str, float]]:
    """A seeded corpus of short words and a piece table with every character; scores
    that tie (multiples of 0.5) or log-probabilities."""
    rng = random.Random(seed)
    texts = random_texts(seed, n=rng.randint(1, 5), max_len=rng.choice([5, 8]),
                         alphabet=rng.choice(["ab ", "abc ", "aab "]))
    corpus = dict(Counter(" ".join(texts).split())) or {"a": 1}
    chars = sorted(set("".join(corpus)))
    subs = sorted({w[i:j] for w in corpus for i in range(len(w)) for j in range(i + 2, len(w) + 1)})
    pieces = chars + rng.sample(subs, min(len(subs), rng.randint(0, 12)))
    if seed % 2:
        scores = {p: -rng.choice([0.5, 1.0, 1.5, 2.0, 3.0]) for p in pieces}
    else:
        w = [rng.random() + 0.01 for _ in pieces]
        scores = {p: math.log(x / sum(w)) for p, x in zip(pieces, w)}
    return corpus, scores


@pytest.mark.parametrize("seed", range(60))
def test_expected_piece_counts_are_the_posterior_weighted_counts(seed):
    corpus, scores = random_unigram(seed)
    expected = dict.fromkeys(scores, 0.0)
    for word, count in corpus.items():
        segs = segmentations(word, scores)
        z = sum(math.exp(s) for _, s in segs)
        for seg, s in segs:
            for piece in seg:
                expected[piece] += count * math.exp(s) / z
    got = expected_piece_counts(corpus, scores)
    assert list(got) == list(scores)
    assert all(type(c) is float for c in got.values())
    for piece in scores:
        assert math.isclose(got[piece], expected[piece], rel_tol=1e-9, abs_tol=1e-12), piece


@pytest.mark.parametrize("seed", range(60))
def test_one_ml_em_step_never_lowers_the_likelihood(seed):
    """EM's guarantee holds from probabilities that add up to 1 (as the assignment says):
    the tables of multiples of 0.5 are normalised first."""
    corpus, scores = random_unigram(seed)
    log_total = math.log(sum(math.exp(s) for s in scores.values()))
    scores = {p: s - log_total for p, s in scores.items()}

    def likelihood(s: dict[str, float]) -> float:
        return sum(c * forward_backward(w, s)[0] for w, c in corpus.items())

    new = ml_m_step(expected_piece_counts(corpus, scores))
    assert math.isclose(sum(math.exp(s) for s in new.values()), 1.0, rel_tol=1e-12)
    assert likelihood(new) >= likelihood(scores) - 1e-9
    again = ml_m_step(expected_piece_counts(corpus, new))
    assert likelihood(again) >= likelihood(new) - 1e-9


def test_ml_m_step():
    assert ml_m_step({"a": 1.0, "b": 3.0, "c": 0.0}) == {"a": math.log(1 / 4), "b": math.log(3 / 4)}
    with pytest.raises(ValueError, match=">= 0"):
        ml_m_step({"a": -1.0, "b": 2.0})
    with pytest.raises(ValueError, match="sum to 0"):
        ml_m_step({"a": 0.0})
    with pytest.raises(TypeError, match="dict"):
        ml_m_step([("a", 1.0)])


@pytest.mark.parametrize("seed", range(60))
def test_prune_pieces_is_the_definition(seed):
    corpus, scores = random_unigram(seed)

    def likelihood(s: dict[str, float]) -> float:
        # The best segmentation's score, by brute force.
        return sum(c * max(sc for _, sc in segmentations(w, s)) for w, c in corpus.items())

    base = likelihood(scores)
    multi = [p for p in scores if len(p) > 1]
    loss = {p: base - likelihood({q: v for q, v in scores.items() if q != p}) for p in multi}
    assert all(x >= -1e-12 for x in loss.values())
    for keep in range(len(multi) + 2):
        got = prune_pieces(corpus, scores, keep)
        kept = [p for p in got if len(p) > 1]
        assert [p for p in got if len(p) == 1] == [p for p in scores if len(p) == 1]
        assert len(kept) == min(keep, len(multi))
        assert all(got[p] == scores[p] for p in got)
        # No piece left out has a higher loss than a piece kept (ties: the earlier string).
        for p in multi:
            if p not in got:
                for q in kept:
                    assert (-loss[q], q) < (-loss[p], p) or math.isclose(loss[q], loss[p], abs_tol=1e-9)


def test_prune_pieces_example_and_viterbi_sum():
    scores = {"a": -2.0, "b": -2.0, "ab": -3.0, "ba": -3.5, "bb": -5.0}
    assert prune_pieces({"ab": 2, "bab": 1}, scores, 1) == {"a": -2.0, "b": -2.0, "ab": -3.0}
    assert prune_pieces({"ab": 2, "bab": 1}, scores, 2) == {"a": -2.0, "b": -2.0, "ab": -3.0, "ba": -3.5}
    assert viterbi("bab", scores) == (["b", "ab"], -5.0)


def test_unigram_helpers_check_their_input():
    scores = {"a": -1.0, "ab": -1.0}
    with pytest.raises(ValueError, match="every character"):
        expected_piece_counts({"ab": 1}, scores)
    with pytest.raises(ValueError, match="every character"):
        prune_pieces({"abc": 1}, {"a": -1.0, "b": -1.0}, 1)
    with pytest.raises(TypeError, match="dict"):
        expected_piece_counts(["a"], {"a": -1.0})
    with pytest.raises(ValueError, match="int >= 1"):
        expected_piece_counts({"a": 0}, {"a": -1.0})
    with pytest.raises(TypeError, match="non-empty str"):
        expected_piece_counts({"": 1}, {"a": -1.0})
    with pytest.raises(ValueError, match="finite"):
        expected_piece_counts({"a": 1}, {"a": math.nan})
    with pytest.raises(ValueError, match="keep"):
        prune_pieces({"a": 1}, {"a": -1.0}, -1)
