"""tokref.ngram: interpolated Kneser–Ney against a slow restatement of its formulas,
hand-checked values, normalisation on random corpora, bits per byte, and bad inputs."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokref import CharTokenizer
from tokref.corpus import load_text
from tokref.ngram import (
    FALLBACK_DISCOUNT,
    KENLM_FALLBACK_DISCOUNTS,
    KneserNeyLM,
    bits_per_byte,
    estimate_discount,
    evaluate_bits_per_byte,
    padded_ids,
)


# ---------------------------------------------------------------------------------------
# A slow, direct restatement of the module docstring's formulas (dicts and recursion)
# ---------------------------------------------------------------------------------------


class SlowKN:
    """Interpolated Kneser–Ney written out: every n-gram a tuple, every sum a loop."""

    def __init__(self, sequences, vocab_size, order, discount=None):
        self.V, self.n = vocab_size, order
        self.BOS, self.EOS = vocab_size + 1, vocab_size
        events = []  # the n symbols ending at each event: context + predicted token
        for seq in sequences:
            padded = [self.BOS] * (order - 1) + list(seq) + [self.EOS]
            for i in range(order - 1, len(padded)):
                events.append(tuple(padded[i - order + 1 : i + 1]))
        self.c = {order: Counter(events)}
        for k in range(order - 1, 0, -1):
            longer = {e[-(k + 1):] for e in events}  # distinct (k+1)-grams ending at events
            self.c[k] = Counter(g[1:] for g in longer)  # N1+(• g): distinct left neighbours
        self.D = {}
        for k, table in self.c.items():
            n1 = sum(1 for x in table.values() if x == 1)
            n2 = sum(1 for x in table.values() if x == 2)
            if discount is not None:
                self.D[k] = discount
            else:
                self.D[k] = n1 / (n1 + 2 * n2) if n1 and n2 else 0.5

    def p(self, k, h, w):
        if k == 0:
            return 1 / (self.V + 1)
        lower = self.p(k - 1, h[1:], w)
        items = {g: x for g, x in self.c[k].items() if g[:-1] == h}
        total, types = sum(items.values()), len(items)
        if total == 0:
            return lower
        d = self.D[k]
        return max(items.get(h + (w,), 0) - d, 0) / total + d * types / total * lower

    def prob(self, context, w):
        h = tuple(([self.BOS] * (self.n - 1) + list(context))[len(context):]) if self.n > 1 else ()
        return self.p(self.n, h, w)


@st.composite
def corpora(draw):
    vocab_size = draw(st.integers(1, 5))
    ids = st.integers(0, vocab_size - 1)
    seqs = draw(st.lists(st.lists(ids, max_size=8), min_size=1, max_size=6))
    if not any(seqs):
        seqs[0] = [draw(ids)]
    contexts = draw(st.lists(st.lists(ids, max_size=5), min_size=1, max_size=4))
    order = draw(st.integers(1, 4))
    discount = draw(st.one_of(st.none(), st.floats(0.05, 0.95)))
    return vocab_size, order, discount, seqs, contexts


@settings(max_examples=80, deadline=None)
@given(corpora())
def test_every_distribution_sums_to_one_and_matches_the_slow_restatement(case):
    vocab_size, order, discount, seqs, contexts = case
    lm = KneserNeyLM(order, vocab_size=vocab_size, discount=discount).fit(seqs)
    slow = SlowKN(seqs, vocab_size, order, discount)
    assert lm.discounts == pytest.approx(tuple(slow.D[k] for k in range(1, order + 1)), abs=1e-15)
    # Seen contexts (every prefix of a training sequence) and random ones.
    for context in contexts + [s[:i] for s in seqs for i in range(len(s) + 1)]:
        probs = [lm.prob(context, t) for t in range(vocab_size + 1)]
        assert math.fsum(probs) == pytest.approx(1.0, abs=1e-9), (
            f"order {order}, corpus {seqs}: P(. | {context}) sums to {math.fsum(probs)}, "
            "not 1 over the ids and EOS"
        )
        assert min(probs) > 0, f"P(. | {context}) = {probs}: every outcome must be possible"
        expected = [slow.prob(context, t) for t in range(vocab_size + 1)]
        assert probs == pytest.approx(expected, rel=1e-12, abs=1e-15), (
            f"order {order}, corpus {seqs}, context {context}: got {probs}, "
            f"the formulas written out give {expected}"
        )


@settings(max_examples=40, deadline=None)
@given(corpora())
def test_log2_prob_and_bits_are_the_chain_rule_over_prob(case):
    vocab_size, order, discount, seqs, contexts = case
    lm = KneserNeyLM(order, vocab_size=vocab_size, discount=discount).fit(seqs)
    for seq in contexts + seqs:
        chain = sum(math.log2(lm.prob(seq[:i], seq[i])) for i in range(len(seq)))
        chain += math.log2(lm.prob(seq, lm.eos_id))
        assert lm.log2_prob(seq) == pytest.approx(chain, rel=1e-12, abs=1e-12), seq
    total = -sum(lm.log2_prob(s) for s in contexts)
    assert lm.bits(contexts) == pytest.approx(total, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------------------
# Hand-checked values
# ---------------------------------------------------------------------------------------


def test_a_bigram_model_by_hand():
    # BOS 0 1 EOS and BOS 0 2 1 EOS; vocab_size 3, EOS = 3, BOS = 4, D = 1/2.
    lm = KneserNeyLM(2, vocab_size=3, discount=0.5).fit([[0, 1], [0, 2, 1]])
    D, uniform = Fraction(1, 2), Fraction(1, 4)
    # Unigram continuation counts N1+(• w): 0 <- {BOS}, 1 <- {0, 2}, 2 <- {0}, EOS <- {1}.
    cont = {0: 1, 1: 2, 2: 1, 3: 1}
    S1, T1 = sum(cont.values()), len(cont)
    p1 = {w: max(cont[w] - D, 0) / S1 + D * T1 / S1 * uniform for w in range(4)}
    assert p1 == {0: Fraction(1, 5), 1: Fraction(2, 5), 2: Fraction(1, 5), 3: Fraction(1, 5)}
    # Bigram raw counts after 0: (0, 1) = 1, (0, 2) = 1, so S = 2, T = 2.
    p2_after_0 = {w: max(c - D, 0) / 2 + D * 2 / 2 * p1[w]
                  for w, c in {0: 0, 1: 1, 2: 1, 3: 0}.items()}
    assert p2_after_0[1] == Fraction(9, 20)
    for w, p in p2_after_0.items():
        assert lm.prob([0], w) == pytest.approx(float(p), abs=1e-15), w
    assert lm.prob([], 0) == pytest.approx(float((2 - D) / 2 + D * 1 / 2 * p1[0]))  # 0.8
    assert lm.prob([2, 2, 1], 3) == pytest.approx(0.8)  # only the last id is context
    assert lm.log2_prob([0, 1]) == pytest.approx(math.log2(0.8 * 0.45 * 0.8))
    # After 2: only (2, 1), once: S = 1, T = 1.
    assert lm.prob([2], 1) == pytest.approx(float((1 - D) / 1 + D * 1 / 1 * p1[1]))


def test_the_discounts_are_n1_over_n1_plus_2_n2_per_order():
    lm = KneserNeyLM(3, vocab_size=4).fit([[0, 1, 2], [0, 1, 3]])
    # Order 3 raw counts: (B,B,0)=2 (B,0,1)=2 (0,1,2) (0,1,3) (1,2,E) (1,3,E) once: 4/(4+4).
    # Order 2 continuation counts: all six bigrams once: n2 = 0, so the fallback 0.5.
    # Order 1: 0 1 2 3 once each, EOS after {2, 3}: 4/(4+2).
    assert lm.discounts == pytest.approx((4 / 6, 0.5, 0.5))


def test_estimate_discount_is_the_models_discount_and_falls_back_without_n1_or_n2():
    assert estimate_discount([1, 1, 1, 2, 5]) == 0.6
    assert estimate_discount((c for c in [1, 2, 2])) == 1 / 5
    for counts in ([], [2, 4, 4], [1, 1, 3], [3]):  # n1 or n2 is zero
        assert estimate_discount(counts) == FALLBACK_DISCOUNT
    # One discount per order: the first of KenLM's three (counts 1, 2, 3+).
    assert FALLBACK_DISCOUNT == KENLM_FALLBACK_DISCOUNTS[0]
    lm = KneserNeyLM(3, vocab_size=4).fit([[0, 1, 2], [0, 1, 3], [2, 2, 1, 0]])
    tables = [SlowKN([[0, 1, 2], [0, 1, 3], [2, 2, 1, 0]], 4, 3).c[k] for k in (1, 2, 3)]
    assert lm.discounts == tuple(estimate_discount(t.values()) for t in tables)


@pytest.mark.parametrize("counts, error, match", [
    ("112", TypeError, "iterable of positive ints"),
    (5, TypeError, "iterable of positive ints"),
    ([1, 0], ValueError, r"counts\[1\] = 0"),
    ([1.0], ValueError, "positive ints"),
    ([True], ValueError, "positive ints"),
])
def test_estimate_discount_refuses_what_is_not_a_count_table(counts, error, match):
    with pytest.raises(error, match=match):
        estimate_discount(counts)


def test_order_1_is_the_discounted_unigram_interpolated_with_uniform():
    seqs = [[0, 1, 1], [2], [1]]
    lm = KneserNeyLM(1, vocab_size=4, discount=0.3).fit(seqs)
    counts = {0: 1, 1: 3, 2: 1, 3: 0, 4: 3}  # id 3 never seen; EOS (4) three times
    N, T, D = 8, 4, 0.3
    for w, c in counts.items():
        expected = (max(c - D, 0) + D * T / 5) / N
        assert lm.prob([], w) == pytest.approx(expected, abs=1e-15)
        assert lm.prob([2, 2], w) == pytest.approx(expected, abs=1e-15), "order 1 has no context"


def test_an_id_never_seen_in_training_is_still_possible():
    lm = KneserNeyLM(3, vocab_size=100).fit([[1, 2, 3, 1, 2, 3]] * 5)
    for context in ([], [1], [1, 2], [99, 98], [2, 99]):
        assert 0 < lm.prob(context, 50) < 1e-2, context
    assert math.isfinite(lm.log2_prob([98, 99, 97]))


def test_more_training_data_from_the_same_source_lowers_held_out_bits():
    rng = np.random.default_rng(7)
    V = 30
    trans = rng.dirichlet(np.full(V, 0.1), size=V)  # a first-order Markov source

    def sample(n_seqs):
        out = []
        for _ in range(n_seqs):
            s = [int(rng.integers(V))]
            for _ in range(int(rng.integers(5, 20))):
                s.append(int(rng.choice(V, p=trans[s[-1]])))
            out.append(s)
        return out

    heldout, train = sample(200), sample(2000)
    bits = [KneserNeyLM(2, vocab_size=V).fit(train[:n]).bits(heldout) for n in (20, 200, 2000)]
    assert bits[0] > bits[1] > bits[2], f"held-out bits for 20, 200, 2000 sequences: {bits}"


def test_a_higher_order_helps_on_english_characters():
    text = load_text("train")[:60_000].split("\n")
    held = load_text("heldout")[:20_000].split("\n")
    tok = CharTokenizer().train(text)
    bpb = [evaluate_bits_per_byte(tok, text, held, order=k) for k in (1, 2, 3)]
    assert 4.0 < bpb[0] < 5.0, f"order-1 bits per byte {bpb[0]}: about the letter entropy"
    assert bpb[0] > bpb[1] > bpb[2], f"orders 1, 2, 3 give {bpb} bits per byte"


# ---------------------------------------------------------------------------------------
# Inputs: kinds of sequences, padded_ids, bits per byte
# ---------------------------------------------------------------------------------------


def test_tuples_numpy_arrays_and_generators_give_the_same_model():
    seqs = [[0, 1, 2], [2, 1], []]
    base = KneserNeyLM(3, vocab_size=3).fit(seqs)
    for variant in ([tuple(s) for s in seqs], [np.array(s, dtype=np.int32) for s in seqs],
                    (list(s) for s in seqs), [[np.int64(i) for i in s] for s in seqs]):
        lm = KneserNeyLM(3, vocab_size=3).fit(variant)
        assert [lm.prob([1], t) for t in range(4)] == [base.prob([1], t) for t in range(4)]


def test_padded_ids():
    assert padded_ids([[0, 1], []], 2, 1).tolist() == [3, 0, 1, 2, 3, 2]
    assert padded_ids([[1]], 5, 3).tolist() == [6, 6, 6, 1, 5]
    assert padded_ids([[1]], 5, 0).tolist() == [1, 5]


def test_evaluate_bits_per_byte_is_the_models_bits_over_the_held_out_bytes():
    train = ["abcab", "bca", "ab"]
    held = ["abc", "é"]
    tok = CharTokenizer().train("abcé")
    lm = KneserNeyLM(2, vocab_size=tok.vocab_size).fit(tok.encode(t) for t in train)
    bits = lm.bits([tok.encode(t) for t in held])
    n_bytes = 3 + 2 + 2  # UTF-8 bytes of the texts, plus one per text for its end
    assert evaluate_bits_per_byte(tok, train, held, order=2) == pytest.approx(bits / n_bytes)
    assert evaluate_bits_per_byte(tok, "abcab", "abc", order=2) > 0


def test_bits_per_byte():
    assert bits_per_byte(10.0, 4) == 2.5
    assert bits_per_byte(0, 1) == 0.0


# ---------------------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(order=0, vocab_size=3), ValueError, "order must be >= 1"),
        (dict(order=2.0, vocab_size=3), TypeError, "order must be int"),
        (dict(order=True, vocab_size=3), TypeError, "order must be int"),
        (dict(order=2, vocab_size=3.0), TypeError, "vocab_size must be int"),
        (dict(order=2, vocab_size="3"), TypeError, "vocab_size must be int"),
        (dict(order=2, vocab_size=0), ValueError, "vocab_size must be >= 1"),
        (dict(order=2, vocab_size=3, discount=0), ValueError, "strictly between 0 and 1"),
        (dict(order=2, vocab_size=3, discount=1.0), ValueError, "strictly between 0 and 1"),
        (dict(order=2, vocab_size=3, discount=float("nan")), ValueError, "strictly between"),
        (dict(order=2, vocab_size=3, discount="0.5"), TypeError, "discount must be a number"),
        (dict(order=2, vocab_size=3, discount=True), TypeError, "discount must be a number"),
    ],
)
def test_bad_constructor_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        KneserNeyLM(**kwargs)


def test_vocab_size_is_required_and_keyword_only():
    with pytest.raises(TypeError):
        KneserNeyLM(3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        KneserNeyLM(3, 100)  # type: ignore[misc]


@pytest.mark.parametrize(
    "sequences, error, match",
    [
        ([], ValueError, "sequences is empty"),
        ([[], []], ValueError, "hold no token ids"),
        ([[0, 1], [2, 3]], ValueError, r"sequences\[1\]\[1\] = 3 is not a token id"),
        ([[0, -1]], ValueError, r"sequences\[0\]\[1\] = -1 is not a token id"),
        ([[0, True]], TypeError, r"sequences\[0\]\[1\] is a bool"),
        ([[0, 1.0]], TypeError, r"sequences\[0\]\[1\] must be int, not float"),
        (["ab"], TypeError, r"sequences\[0\] must be a sequence of token ids, not str"),
        ([5], TypeError, r"sequences\[0\] must be a sequence of token ids, not int"),
        ("ab", TypeError, "must be an iterable of id sequences"),
        (None, TypeError, "must be an iterable of id sequences"),
    ],
)
def test_bad_training_input(sequences, error, match):
    with pytest.raises(error, match=match):
        KneserNeyLM(2, vocab_size=3).fit(sequences)


def test_bad_queries():
    lm = KneserNeyLM(2, vocab_size=3)
    with pytest.raises(ValueError, match=r"call \.fit\(sequences\) first"):
        lm.prob([0], 1)
    lm.fit([[0, 1, 2]])
    with pytest.raises(ValueError, match="context.* = 3 is not a token id"):
        lm.prob([3], 1)
    with pytest.raises(ValueError, match="eos_id = 3"):
        lm.prob([0], 4)  # BOS is never predicted
    with pytest.raises(TypeError, match="token must be int"):
        lm.prob([0], 1.0)
    with pytest.raises(TypeError, match="context must be a sequence of token ids, not str"):
        lm.prob("ab", 1)
    with pytest.raises(ValueError, match=r"sequence\[0\] = 7 is not a token id"):
        lm.log2_prob([7])
    with pytest.raises(TypeError, match="iterable of id sequences"):
        lm.bits(3)


def test_bad_bits_per_byte_arguments():
    with pytest.raises(ValueError, match="n_bytes must be >= 1"):
        bits_per_byte(1.0, 0)
    with pytest.raises(TypeError, match="n_bytes must be int"):
        bits_per_byte(1.0, 2.0)
    with pytest.raises(ValueError, match="finite number >= 0"):
        bits_per_byte(-1.0, 2)
    with pytest.raises(ValueError, match="finite number >= 0"):
        bits_per_byte(float("inf"), 2)
    with pytest.raises(TypeError, match="total_bits must be a number"):
        bits_per_byte("1", 2)
    tok = CharTokenizer().train("ab")
    with pytest.raises(TypeError, match="the arguments are evaluate_bits_per_byte"):
        evaluate_bits_per_byte("ab", ["ab"], ["ab"])
    with pytest.raises(ValueError, match="nothing to score"):
        evaluate_bits_per_byte(tok, ["ab"], [""])
    with pytest.raises(ValueError, match="empty corpus"):
        evaluate_bits_per_byte(tok, [""], ["ab"])
