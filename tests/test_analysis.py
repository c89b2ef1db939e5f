"""tokref.analysis.measure: every field on hand-computed examples, the duck-typed protocol,
and bad inputs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tokref import CharTokenizer, NotTrainedError, TokenizationStats, WordTokenizer, measure


def _fields(stats: TokenizationStats) -> dict:
    return dataclasses.asdict(stats)


# ---------------------------------------------------------------------------
# Hand-computed examples
# ---------------------------------------------------------------------------


def test_char_tokenizer_single_text():
    tok = CharTokenizer().train("abc")  # 4 specials + a b c: vocab_size 7, <unk> = 1
    s = measure(tok, "ab ca d")
    # 7 characters, each one token; ' ', ' ', 'd' are unknown; ids used: a b c <unk>.
    assert _fields(s) == dict(
        n_chars=7, n_bytes=7, n_words=3, n_tokens=7, n_unk=3, n_distinct_ids=4, vocab_size=7
    )
    assert s.chars_per_token == 1.0
    assert s.bytes_per_token == 1.0
    assert s.tokens_per_word == pytest.approx(7 / 3)
    assert s.unk_rate == pytest.approx(3 / 7)
    assert s.vocab_utilisation == pytest.approx(4 / 7)


def test_char_tokenizer_several_texts_with_non_ascii():
    tok = CharTokenizer().train("abc")
    s = measure(tok, ["ab", "é c"])
    # chars 2 + 3; bytes 2 + (2 + 1 + 1); words 1 + 2; unknown 'é' and ' '.
    assert _fields(s) == dict(
        n_chars=5, n_bytes=6, n_words=3, n_tokens=5, n_unk=2, n_distinct_ids=4, vocab_size=7
    )
    assert s.bytes_per_token == pytest.approx(6 / 5)
    assert s.tokens_per_word == pytest.approx(5 / 3)


def test_a_text_with_only_whitespace_counts_characters_but_no_words():
    tok = CharTokenizer().train("abc")
    s = measure(tok, ["abc", "  \n"])
    assert _fields(s) == dict(
        n_chars=6, n_bytes=6, n_words=1, n_tokens=6, n_unk=3, n_distinct_ids=4, vocab_size=7
    )
    assert s.tokens_per_word == 6.0
    assert s.unk_rate == 0.5


def test_word_tokenizer():
    tok = WordTokenizer().train("the cat sat.")  # specials, '.', cat, sat, the: vocab_size 8
    s = measure(tok, "The cat sat on the mat.")
    # tokens: The(unk) cat sat on(unk) the mat(unk) . -> 7 tokens, 3 unknown;
    # whitespace words: The cat sat on the mat. -> 6; ids used: unk cat sat the . -> 5.
    assert _fields(s) == dict(
        n_chars=23, n_bytes=23, n_words=6, n_tokens=7, n_unk=3, n_distinct_ids=5, vocab_size=8
    )
    assert s.chars_per_token == pytest.approx(23 / 7)
    assert s.tokens_per_word == pytest.approx(7 / 6)
    assert s.unk_rate == pytest.approx(3 / 7)
    assert s.vocab_utilisation == pytest.approx(5 / 8)


def test_word_tokenizer_whitespace_only_text_gives_zero_ratios_not_errors():
    tok = WordTokenizer().train("the cat")
    s = measure(tok, " \t\n ")
    assert _fields(s) == dict(
        n_chars=4, n_bytes=4, n_words=0, n_tokens=0, n_unk=0, n_distinct_ids=0, vocab_size=6
    )
    assert (s.chars_per_token, s.bytes_per_token, s.tokens_per_word, s.unk_rate, s.vocab_utilisation) == (0.0,) * 5


def test_distinct_ids_are_counted_across_texts():
    tok = WordTokenizer().train("a b c")
    s = measure(tok, ["a b", "b c", "a"])
    assert (s.n_tokens, s.n_distinct_ids, s.n_words) == (5, 3, 5)
    assert s.vocab_utilisation == pytest.approx(3 / 7)


def test_tokenizer_without_unk_counts_no_unknowns():
    tok = CharTokenizer().train("ab", special_tokens=[])
    s = measure(tok, "abba")
    assert (s.n_unk, s.unk_rate, s.n_distinct_ids, s.vocab_size) == (0, 0.0, 2, 2)
    assert s.vocab_utilisation == 1.0


def test_texts_may_be_a_generator():
    tok = CharTokenizer().train("ab")
    assert measure(tok, (t for t in ["ab", "ba"])).n_tokens == 4


def test_as_dict_and_frozen():
    tok = CharTokenizer().train("abc")
    d = measure(tok, "ab ca d").as_dict()
    assert list(d) == [
        "n_chars", "n_bytes", "n_words", "n_tokens", "n_unk", "n_distinct_ids", "vocab_size",
        "chars_per_token", "bytes_per_token", "tokens_per_word", "unk_rate", "vocab_utilisation",
    ]
    assert d["n_unk"] == 3 and d["vocab_utilisation"] == pytest.approx(4 / 7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        measure(tok, "a").n_tokens = 5  # type: ignore[misc]


# ---------------------------------------------------------------------------
# The protocol: any object with encode() and vocab_size (unk_id optional)
# ---------------------------------------------------------------------------


class ByteTokenizer:
    """A duck-typed tokenizer: UTF-8 bytes as ids, no unknown token."""

    vocab_size = 256

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))


class FirstLetterTokenizer:
    """Duck-typed, with an unk_id: one token per whitespace word, its first letter if a..c."""

    vocab_size = 4
    unk_id = 3

    def encode(self, text: str) -> list[int]:
        return [{"a": 0, "b": 1, "c": 2}.get(w[0], 3) for w in text.split()]


def test_duck_typed_tokenizer_without_unk_id():
    s = measure(ByteTokenizer(), ["hé", "é"])
    assert _fields(s) == dict(
        n_chars=3, n_bytes=5, n_words=2, n_tokens=5, n_unk=0, n_distinct_ids=3, vocab_size=256
    )
    assert s.bytes_per_token == 1.0
    assert s.chars_per_token == pytest.approx(3 / 5)


def test_duck_typed_tokenizer_with_unk_id():
    s = measure(FirstLetterTokenizer(), "apple zebra cherry yak apple")
    assert _fields(s) == dict(
        n_chars=28, n_bytes=28, n_words=5, n_tokens=5, n_unk=2, n_distinct_ids=3, vocab_size=4
    )
    assert s.unk_rate == pytest.approx(2 / 5)


def test_numpy_ids_and_vocab_size_are_accepted():
    class NumpyIds:
        vocab_size = np.int64(10)

        def encode(self, text):
            return [np.int64(len(w)) for w in text.split()]

    s = measure(NumpyIds(), "ab abc ab")
    assert (s.n_tokens, s.n_distinct_ids, s.vocab_size) == (3, 2, 10)


# ---------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, 3, object()])
def test_tokenizer_without_encode(bad):
    with pytest.raises(TypeError, match=r"tokenizer must have an encode\(text\) method; got"):
        measure(bad, "abc")


def test_arguments_swapped():
    # str has an encode() method of its own: without a check this failed much later.
    tok = CharTokenizer().train("abc")
    with pytest.raises(TypeError, match=r"tokenizer must be a tokenizer, not str; the arguments are measure\(tokenizer, texts\)"):
        measure("abc", tok)


def test_class_instead_of_instance():
    with pytest.raises(TypeError, match=r"not the class CharTokenizer; pass an instance, for example CharTokenizer\(\)\.train\(texts\)"):
        measure(CharTokenizer, "abc")


def test_untrained_tokenizer():
    with pytest.raises(NotTrainedError, match=r"call \.train\(texts\) first"):
        measure(CharTokenizer(), "abc")


def test_bad_texts():
    tok = CharTokenizer().train("abc")
    with pytest.raises(TypeError, match=r"decode it first"):
        measure(tok, b"abc")
    with pytest.raises(TypeError, match=r"texts\[1\] must be str"):
        measure(tok, ["a", 1])
    with pytest.raises(TypeError, match=r"texts must be a str or an iterable of str"):
        measure(tok, 5)
    for empty in ("", [], ["", ""]):
        with pytest.raises(ValueError, match=r"^nothing to measure: texts holds no characters; pass at least one non-empty string$"):
            measure(tok, empty)


@pytest.mark.parametrize("vocab_size, exc, match", [
    (None, TypeError, r"tokenizer\.vocab_size must be an int, the number of token ids; got NoneType"),
    ("256", TypeError, r"tokenizer\.vocab_size must be an int.*got str"),
    (256.0, TypeError, r"tokenizer\.vocab_size must be an int.*got float"),
    (True, TypeError, r"tokenizer\.vocab_size must be an int.*got bool"),
    (0, ValueError, r"tokenizer\.vocab_size must be at least 1, not 0"),
])
def test_bad_vocab_size(vocab_size, exc, match):
    tok = ByteTokenizer()
    tok.vocab_size = vocab_size
    with pytest.raises(exc, match=match):
        measure(tok, "abc")


def test_missing_vocab_size():
    class NoVocabSize:
        def encode(self, text):
            return [0]

    with pytest.raises(TypeError, match=r"tokenizer\.vocab_size must be an int.*got NoneType"):
        measure(NoVocabSize(), "abc")


@pytest.mark.parametrize("ids, match", [
    ([0, 256], r"tokenizer\.encode returned 256, which is not a token id in 0\.\.255 \(vocab_size = 256\)"),
    ([-1], r"tokenizer\.encode returned -1, which is not a token id"),
    ([1.5], r"tokenizer\.encode returned 1\.5, which is not a token id"),
    (["a"], r"tokenizer\.encode returned 'a', which is not a token id"),
])
def test_encode_returning_non_ids(ids, match):
    class Bad(ByteTokenizer):
        def encode(self, text):
            return ids

    with pytest.raises(ValueError, match=match):
        measure(Bad(), "abc")


def test_encode_returning_a_non_list():
    class Bad(ByteTokenizer):
        def encode(self, text):
            return "abc"

    with pytest.raises(TypeError, match=r"tokenizer\.encode must return a list of int, not str"):
        measure(Bad(), "abc")
