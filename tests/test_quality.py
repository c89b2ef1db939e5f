"""tokref.quality: Rényi entropy and efficiency on hand-checked distributions, the
proportion of continued words for every tokenizer of the course, and bad inputs."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from tokref import (
    BPETokenizer,
    ByteLevelBPETokenizer,
    CharTokenizer,
    NotTrainedError,
    UnigramTokenizer,
    WordPieceTokenizer,
    WordTokenizer,
    measure,
)
from tokref.corpus import load_text
from tokref.quality import (
    QualityStats,
    continued_words,
    measure_quality,
    renyi_efficiency,
    renyi_entropy,
)

SENTENCE = "The king's horses, unsee'n ones."


@pytest.fixture(scope="module")
def tokenizers():
    """One small tokenizer of each kind, trained on the first 400 lines of the corpus."""
    text = "\n".join(load_text("train").split("\n")[:400])
    return {
        "char": CharTokenizer().train(text),
        "word": WordTokenizer().train(text),
        "bpe": BPETokenizer().train(text, 300),
        "bytelevel": ByteLevelBPETokenizer().train(text, 300),
        "wordpiece": WordPieceTokenizer().train(text, 300),
        "unigram": UnigramTokenizer().train(text, 400),
    }


def shannon(counts):
    p = np.array([c for c in counts if c > 0], dtype=float)
    p /= p.sum()
    return float(-(p * np.log2(p)).sum())


# ---------------------------------------------------------------------------------------
# Rényi entropy and efficiency
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0, 0.5, 1, 1 + 1e-9, 2, 2.5, 7, 1000, math.inf])
@pytest.mark.parametrize("vocab_size", [2, 3, 50])
def test_a_uniform_distribution_over_the_vocabulary_has_efficiency_1(alpha, vocab_size):
    counts = [7] * vocab_size
    assert renyi_entropy(counts, alpha=alpha) == pytest.approx(math.log2(vocab_size), abs=1e-12)
    assert renyi_efficiency(counts, vocab_size, alpha=alpha) == pytest.approx(1.0, abs=1e-12)
    # The same ids used equally, inside a vocabulary twice as large: half the bits of log2 |V|.
    if vocab_size == 50:
        assert renyi_efficiency(counts, 2500, alpha=alpha) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("alpha", [0, 0.5, 1, 2.5, math.inf])
def test_one_token_has_entropy_and_efficiency_0(alpha):
    assert renyi_entropy({17: 40}, alpha=alpha) == 0.0
    assert renyi_efficiency([0, 40, 0], 1000, alpha=alpha) == 0.0


def test_hand_computed_values():
    counts = {"a": 2, "b": 1, "c": 1}  # p = 1/2, 1/4, 1/4
    assert renyi_entropy(counts, alpha=1) == pytest.approx(1.5, abs=1e-15)
    assert renyi_entropy(counts, alpha=2) == pytest.approx(-math.log2(3 / 8), abs=1e-15)
    assert renyi_entropy(counts, alpha=0) == pytest.approx(math.log2(3), abs=1e-15)
    assert renyi_entropy(counts, alpha=math.inf) == pytest.approx(1.0, abs=1e-15)
    h = 1 / (1 - 2.5) * math.log2(0.5**2.5 + 2 * 0.25**2.5)
    assert renyi_entropy(counts) == pytest.approx(h, abs=1e-14), "the default alpha is 2.5"
    assert renyi_efficiency(counts, 8) == pytest.approx(h / 3, abs=1e-14)
    # Probabilities and counts give the same entropy; zeros are ignored.
    assert renyi_entropy([0.5, 0.25, 0.25, 0.0], alpha=2.5) == pytest.approx(h, abs=1e-14)


def test_alpha_1_is_shannon_and_the_limit_is_smooth():
    rng = np.random.default_rng(3)
    for _ in range(20):
        counts = rng.integers(0, 50, size=int(rng.integers(2, 40))).tolist() + [1]
        h1 = renyi_entropy(counts, alpha=1)
        assert h1 == pytest.approx(shannon(counts), abs=1e-12)
        # Near alpha = 1: H_{1+t} = H_1 - t ln2/2 Var(log2 p) + O(t^2), computed without
        # cancellation (a naive 1/(1-alpha) log2 sum p^alpha is only good to ~1e-10 here).
        p = np.array([c for c in counts if c], dtype=float)
        p /= p.sum()
        var = float(p @ np.log2(p) ** 2 - (p @ np.log2(p)) ** 2)
        for t in (1e-6, -1e-6):
            expected = h1 - t * math.log(2) / 2 * var
            got = renyi_entropy(counts, alpha=1 + t)
            assert abs(got - expected) < 1e-9, (
                f"counts {counts}: H at alpha = 1 {t:+g} is {got}, the expansion gives {expected}"
            )
            assert abs(got - h1) < 1e-5


def test_renyi_entropy_falls_as_alpha_grows():
    rng = random.Random(11)
    for _ in range(50):
        counts = [rng.randint(0, 30) for _ in range(rng.randint(1, 20))] + [rng.randint(1, 5)]
        hs = [renyi_entropy(counts, alpha=a) for a in (0, 0.3, 0.9, 1, 1.2, 2, 2.5, 10, 300, math.inf)]
        assert all(a >= b - 1e-12 for a, b in zip(hs, hs[1:])), f"counts {counts}: {hs}"
        assert hs[-2] == pytest.approx(hs[-1], rel=0.02), "alpha = 300 is close to min-entropy"


# ---------------------------------------------------------------------------------------
# Continued words
# ---------------------------------------------------------------------------------------


def test_continued_words_by_hand():
    assert continued_words("the cat", [(0, 3), (3, 5), (5, 7)]) == (2, 1)
    assert continued_words("a  b", [(0, 2), (2, 4)]) == (2, 0), "spaces belong to no word"
    assert continued_words("a  b", [(0, 1), (1, 2), (2, 3), (3, 4)]) == (2, 0)
    assert continued_words("ab", [(0, 1), (0, 1), (1, 2)]) == (1, 1)
    assert continued_words("ab cd", [(0, 5)]) == (2, 0), "one token over two words: one each"
    assert continued_words("ab cd", [(0, 4), (4, 5)]) == (2, 1)
    assert continued_words("x", [(0, 0), (1, 1), (0, 1)]) == (1, 0), "empty spans overlap nothing"
    assert continued_words("  \n", [(0, 3)]) == (0, 0)
    assert continued_words("", []) == (0, 0)
    assert continued_words("é\tü", [(0, 1), (0, 1), (2, 3)]) == (2, 1)


def slow_continued(text, spans):
    words = [(i, i + len(w)) for i, w in _word_positions(text)]
    return len(words), sum(
        1 for ws, we in words if sum(1 for s, e in spans if s < we and ws < e) >= 2
    )


def _word_positions(text):
    out, i = [], 0
    for w in text.split():
        i = text.index(w, i)
        out.append((i, w))
        i += len(w)
    return out


# The hand examples: SENTENCE's tokens (text spans) for each tokenizer and the words two
# or more of them fall on. The words: The | king's | horses, | unsee'n | ones.
HAND = {
    "char": (5, None),  # every word has two characters or more
    "word": (2, ["The", "king's", "horses", ",", "unsee'n", "ones", "."]),  # horses, ones.
    "bpe": (4, ["The", "k", "ing", "'s", "h", "or", "s", "es,", "un", "se", "e", "'", "n",
                "on", "es", "."]),  # all but The
    "bytelevel": (5, ["T", "h", "e", " ", "k", "ing", "'", "s", " h", "or", "s", "es", ",",
                      " ", "u", "n", "se", "e", "'", "n", " o", "n", "es", "."]),
    "wordpiece": (5, ["Th", "e", "king", "'", "s", "h", "o", "r", "s", "e", "s", ",", "uns",
                      "e", "e", "'", "n", "on", "e", "s", "."]),
    "unigram": (4, ["The", " ", "k", "ing", "'", "s", " ", "h", "o", "r", "s", "es", ",", " ",
                    "u", "n", "se", "e", "'", "n", " ", "on", "es", "."]),  # all but The
}


@pytest.mark.parametrize("kind", sorted(HAND))
def test_continued_words_for_every_tokenizer_of_the_course(tokenizers, kind):
    tok = tokenizers[kind]
    expected, spans_text = HAND[kind]
    tokens = tok.encode_with_offsets(SENTENCE)
    if spans_text is not None:
        assert [SENTENCE[t.start:t.end] for t in tokens] == spans_text, (
            f"{kind}: the hand example assumes these tokens; the tokenizer changed"
        )
    q = measure_quality(tok, SENTENCE)
    assert q.n_words == 5
    assert q.n_continued_words == expected, (
        f"{kind} splits {SENTENCE!r} as {[SENTENCE[t.start:t.end] for t in tokens]}: "
        f"{q.n_continued_words} continued words, expected {expected}"
    )
    assert q.continued_words == expected / 5


def test_a_character_split_into_bytes_makes_a_continued_word(tokenizers):
    tok = tokenizers["bytelevel"]
    tokens = tok.encode_with_offsets("日 a")
    assert [(t.start, t.end) for t in tokens][:3] == [(0, 1)] * 3, "three byte tokens for 日"
    assert measure_quality(tok, "日 a").n_continued_words == 1


@pytest.mark.parametrize("kind", sorted(HAND))
def test_continued_words_agree_with_a_slow_restatement_on_corpus_lines(tokenizers, kind):
    tok = tokenizers[kind]
    held = [line for line in load_text("heldout").split("\n")[200:260] if line.strip()]
    total_words = total_continued = 0
    for line in held:
        spans = [(t.start, t.end) for t in tok.encode_with_offsets(line)]
        words, cont = continued_words(line, spans)
        assert (words, cont) == slow_continued(line, spans), f"{kind} on {line!r}"
        total_words += words
        total_continued += cont
    q = measure_quality(tok, held)
    assert (q.n_words, q.n_continued_words) == (total_words, total_continued)


# ---------------------------------------------------------------------------------------
# measure_quality: measure's fields reused, the token distribution's entropies
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(HAND))
def test_measure_quality_extends_measure(tokenizers, kind):
    tok = tokenizers[kind]
    held = load_text("heldout").split("\n")[:120]
    q = measure_quality(tok, held)
    s = measure(tok, held)
    assert isinstance(q, QualityStats)
    for field, value in s.as_dict().items():
        assert getattr(q, field) == value, f"{kind}: {field} is {getattr(q, field)}, measure says {value}"
    counts = Counter(i for line in held for i in tok.encode(line))
    assert q.renyi_entropy == pytest.approx(renyi_entropy(counts, alpha=2.5), abs=1e-12)
    assert q.shannon_entropy == pytest.approx(shannon(counts.values()), abs=1e-12)
    assert q.renyi_efficiency == pytest.approx(renyi_efficiency(counts, tok.vocab_size), abs=1e-12)
    assert q.shannon_efficiency == pytest.approx(q.shannon_entropy / math.log2(tok.vocab_size))
    assert 0 < q.renyi_efficiency < q.shannon_efficiency < 1
    row = q.as_dict()
    for key in ("continued_words", "renyi_efficiency", "shannon_efficiency", "tokens_per_word",
                "vocab_utilisation", "alpha", "n_continued_words"):
        assert key in row, key
    assert measure_quality(tok, held, alpha=1).renyi_entropy == pytest.approx(q.shannon_entropy)


class EncodeOnly:
    """A tokenizer seen through encode and vocab_size only (like a tiktoken wrapper)."""

    def __init__(self, tok):
        self.encode = tok.encode
        self.vocab_size = tok.vocab_size


def test_a_tokenizer_without_offsets_has_no_continued_words(tokenizers):
    tok = tokenizers["bytelevel"]
    q = measure_quality(EncodeOnly(tok), SENTENCE)
    full = measure_quality(tok, SENTENCE)
    assert q.n_continued_words is None and q.continued_words is None
    assert q.as_dict()["continued_words"] is None
    assert (q.n_tokens, q.renyi_entropy) == (full.n_tokens, full.renyi_entropy)


def test_texts_can_be_one_string_a_list_or_a_generator(tokenizers):
    tok = tokenizers["bpe"]
    lines = ["to be or not", "to be"]
    a = measure_quality(tok, lines)
    assert measure_quality(tok, iter(lines)) == a
    assert measure_quality(tok, "to be or not").n_words == 4


def test_text_without_tokens():
    tok = WordTokenizer().train("a b")
    q = measure_quality(tok, "   ")
    assert (q.n_tokens, q.n_words, q.renyi_entropy, q.continued_words) == (0, 0, 0.0, 0.0)


# ---------------------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "alpha, error, match",
    [(-1, ValueError, "alpha must be >= 0"), (math.nan, ValueError, "alpha must be >= 0"),
     ("2.5", TypeError, "alpha must be a number"), (True, TypeError, "alpha must be a number"),
     (None, TypeError, "alpha must be a number")],
)
def test_bad_alpha(alpha, error, match, tokenizers):
    with pytest.raises(error, match=match):
        renyi_entropy([1, 2], alpha=alpha)
    with pytest.raises(error, match=match):
        measure_quality(tokenizers["char"], "ab", alpha=alpha)


@pytest.mark.parametrize(
    "counts, error, match",
    [([], ValueError, "no positive entry"), ([0, 0], ValueError, "no positive entry"),
     ([1, -1], ValueError, "finite and >= 0"), ([1, math.inf], ValueError, "finite and >= 0"),
     ([1, math.nan], ValueError, "finite and >= 0"), ("abc", TypeError, "counts must be a mapping"),
     (5, TypeError, "counts must be a mapping"), ([1, "2"], TypeError, "counts must be numbers"),
     ([True, 2], TypeError, "counts must be numbers"), ({"a": None}, TypeError, "counts must be numbers")],
)
def test_bad_counts(counts, error, match):
    with pytest.raises(error, match=match):
        renyi_entropy(counts)
    with pytest.raises(error, match=match):
        renyi_efficiency(counts, 10)


def test_bad_vocab_size_for_efficiency():
    with pytest.raises(ValueError, match="vocab_size must be >= 2"):
        renyi_efficiency([3], 1)
    with pytest.raises(TypeError, match="vocab_size must be int"):
        renyi_efficiency([3], 4.0)
    with pytest.raises(ValueError, match="3 outcomes with a positive count but vocab_size is 2"):
        renyi_efficiency([1, 1, 1], 2)
    with pytest.raises(TypeError):
        renyi_efficiency([1, 1], 4, 2.5)  # alpha is keyword-only


def test_bad_tokenizers_and_texts(tokenizers):
    with pytest.raises(TypeError, match="the arguments are measure"):
        measure_quality("ab", tokenizers["char"])
    with pytest.raises(TypeError, match="pass an instance"):
        measure_quality(CharTokenizer, "ab")
    with pytest.raises(TypeError, match="must have an encode"):
        measure_quality(object(), "ab")
    with pytest.raises(NotTrainedError):
        measure_quality(CharTokenizer(), "ab")
    with pytest.raises(ValueError, match="nothing to measure"):
        measure_quality(tokenizers["char"], ["", ""])
    with pytest.raises(TypeError, match="must be a str or an iterable of str"):
        measure_quality(tokenizers["char"], b"ab")


def test_bad_spans():
    with pytest.raises(ValueError, match=r"token span \(2, 5\) is not inside the text"):
        continued_words("abc", [(2, 5)])
    with pytest.raises(ValueError, match="start <= end"):
        continued_words("abc", [(2, 1)])
    with pytest.raises(TypeError, match="text must be str"):
        continued_words(b"abc", [])
