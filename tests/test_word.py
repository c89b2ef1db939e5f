"""tokref.word: WORD_PATTERN, the word-level helpers, detokenize and WordTokenizer, by
known answers and by Hypothesis round-trip properties.

What a word tokenizer guarantees (and what the properties below check):

- Whitespace is dropped at encoding time, so ``decode`` cannot give back the original
  spacing; ``detokenize`` guesses it. The guarantee is on tokens: for every text ``s``
  whose words (``split_words(s)``) are all in the vocabulary (for instance any text of
  the training corpus), ``split_words(decode(encode(s))) == split_words(s)``, hence
  also ``encode(decode(encode(s))) == encode(s)``.
- With ``lowercase=True`` the same holds against ``split_words(s, lowercase=True)``,
  provided each lowercased word is still one match of ``WORD_PATTERN``. That proviso is
  real: ``'İ'.lower()`` is ``'i'`` plus U+0307 COMBINING DOT ABOVE, which is not a
  word character, so ``'İstanbul'`` lowercases to a piece that re-splits in three.
- The offsets always point into the original text, lowercased or not.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tokref import NotTrainedError, Token, WordTokenizer
from tokref.word import (
    WORD_PATTERN,
    build_word_vocab,
    count_words,
    detokenize,
    encode_words,
    oov_rate,
    split_words,
)

PROPERTY = settings(max_examples=150, derandomize=True, deadline=None, database=None)
SPECIALS = ["<pad>", "<unk>", "<bos>", "<eos>"]


# ---------------------------------------------------------------------------
# WORD_PATTERN / split_words
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, words", [
    # contractions and archaic elisions stay whole, with either apostrophe
    ("Don't you know?", ["Don't", "you", "know", "?"]),
    ("O'er the hills, o’er the sea", ["O'er", "the", "hills", ",", "o’er", "the", "sea"]),
    ("rock'n'roll", ["rock'n'roll"]),
    # an apostrophe not between word characters is punctuation
    ("'tis the dogs' day", ["'", "tis", "the", "dogs", "'", "day"]),
    ("’Tis", ["’", "Tis"]),
    ("a''b", ["a", "'", "'", "b"]),
    # the left single quotation mark is never an apostrophe
    ("o‘er", ["o", "‘", "er"]),
    # digits are word characters; '.' and ',' inside numbers are punctuation
    ("3.14 and 1,000", ["3", ".", "14", "and", "1", ",", "000"]),
    ("abc123 x_y 50% -5", ["abc123", "x_y", "50", "%", "-", "5"]),
    # letters of any script
    ("naïve café Москва Ελλάδα 東京", ["naïve", "café", "Москва", "Ελλάδα", "東京"]),
    # a run of punctuation is one token per character
    ("Wait?!...", ["Wait", "?", "!", ".", ".", "."]),
    ("-- (yes) —", ["-", "-", "(", "yes", ")", "—"]),
    ("😀 ok", ["😀", "ok"]),
    # whitespace of any kind separates and disappears
    ("a\tb\nc\u00a0d\u3000e", ["a", "b", "c", "d", "e"]),
    ("", []),
    (" \t\n ", []),
])
def test_split_words_known_answers(text, words):
    assert split_words(text) == words
    assert re.findall(WORD_PATTERN, text) == words


def test_combining_mark_is_not_a_word_character():
    # NFD 'é' = 'e' + U+0301; WORD_PATTERN uses stdlib `re`, whose \w excludes marks.
    assert split_words("cafe\u0301") == ["cafe", "\u0301"]


def test_split_words_lowercase():
    assert split_words("To BE, or Not", lowercase=True) == ["to", "be", ",", "or", "not"]
    # Split first, then lowercase: the word boundaries come from the original text.
    assert split_words("İstanbul", lowercase=True) == ["i\u0307stanbul"]
    assert split_words("İstanbul".lower()) == ["i", "\u0307", "stanbul"]


def test_split_words_checks_inputs():
    with pytest.raises(TypeError, match=r"text must be str, not bytes; decode it first"):
        split_words(b"a b")
    with pytest.raises(TypeError, match=r"lowercase must be True or False, not int"):
        split_words("a", lowercase=1)
    with pytest.raises(TypeError, match=r"lowercase must be True or False, not NoneType"):
        split_words("a", lowercase=None)


# ---------------------------------------------------------------------------
# count_words / build_word_vocab
# ---------------------------------------------------------------------------


def test_count_words():
    assert count_words("a b a") == {"a": 2, "b": 1}
    assert count_words(["The cat.", "the CAT"]) == {"The": 1, "cat": 1, ".": 1, "the": 1, "CAT": 1}
    assert count_words(["The cat.", "the CAT"], lowercase=True) == {"the": 2, "cat": 2, ".": 1}
    assert type(count_words("a")) is dict


def test_count_words_checks_inputs():
    with pytest.raises(ValueError, match=r"empty corpus"):
        count_words([])
    with pytest.raises(TypeError, match=r"texts\[0\] must be str"):
        count_words([1])


def test_vocab_by_descending_count_ties_by_code_point():
    counts = {"b": 2, "a": 2, "B": 2, "c": 5, "é": 1, "z": 1, ".": 1}
    assert build_word_vocab(counts, special_tokens=["<unk>"]) == {
        "<unk>": 0, "c": 1, "B": 2, "a": 3, "b": 4, ".": 5, "z": 6, "é": 7,
    }


def test_vocab_does_not_depend_on_dict_order():
    counts = {"x": 1, "y": 1, "w": 3, "v": 1}
    reordered = dict(reversed(list(counts.items())))
    assert list(build_word_vocab(counts)) == list(build_word_vocab(reordered)) == SPECIALS + ["w", "v", "x", "y"]


def test_vocab_size_counts_the_special_tokens():
    counts = {"b": 2, "a": 2, "c": 1}
    assert build_word_vocab(counts, vocab_size=3, special_tokens=["<unk>"]) == {"<unk>": 0, "a": 1, "b": 2}
    assert build_word_vocab(counts, vocab_size=5) == {**{s: i for i, s in enumerate(SPECIALS)}, "a": 4}
    assert len(build_word_vocab(counts, vocab_size=100)) == 4 + 3  # never padded


def test_vocab_size_too_small_for_the_special_tokens():
    with pytest.raises(ValueError, match=r"vocab_size = 4 is too small: the 4 special tokens and one word need 5; pass vocab_size >= 5"):
        build_word_vocab({"a": 1}, vocab_size=4)
    with pytest.raises(ValueError, match=r"pass vocab_size >= 2"):
        build_word_vocab({"a": 1}, vocab_size=1, special_tokens=["<unk>"])
    with pytest.raises(TypeError, match=r"vocab_size must be int or None, not float"):
        build_word_vocab({"a": 1}, vocab_size=10.0)
    with pytest.raises(TypeError, match=r"vocab_size must be int or None, not bool"):
        build_word_vocab({"a": 1}, vocab_size=True)


def test_min_freq_cut_off():
    counts = {"a": 3, "b": 2, "c": 1}
    assert list(build_word_vocab(counts, min_freq=2, special_tokens=[])) == ["a", "b"]
    assert list(build_word_vocab(counts, min_freq=3, special_tokens=[])) == ["a"]
    assert list(build_word_vocab(counts, min_freq=4, special_tokens=[])) == []
    with pytest.raises(ValueError, match=r"min_freq must be at least 1, not 0"):
        build_word_vocab(counts, min_freq=0)
    with pytest.raises(TypeError, match=r"min_freq must be int, not float"):
        build_word_vocab(counts, min_freq=1.5)
    with pytest.raises(TypeError, match=r"min_freq must be int, not bool"):
        build_word_vocab(counts, min_freq=True)


def test_special_tokens_are_not_repeated_as_words():
    assert build_word_vocab({"<unk>": 9, "a": 1}, special_tokens=["<unk>"]) == {"<unk>": 0, "a": 1}


def test_build_word_vocab_checks_counts():
    with pytest.raises(TypeError, match=r"counts must be a dict mapping str to int, not list"):
        build_word_vocab([("a", 1)])
    with pytest.raises(TypeError, match=r"counts must map str to int; found 'a': True"):
        build_word_vocab({"a": True})
    with pytest.raises(TypeError, match=r"counts must map str to int; found 1: 2"):
        build_word_vocab({1: 2})
    with pytest.raises(TypeError, match=r"counts must map str to int; found 'a': 1.0"):
        build_word_vocab({"a": 1.0})


# ---------------------------------------------------------------------------
# encode_words / oov_rate
# ---------------------------------------------------------------------------


def test_encode_words_and_oov_rate():
    vocab = {"<unk>": 0, "the": 1, ".": 2}
    assert encode_words("the dog.", vocab) == [1, 0, 2]
    assert encode_words("The dog.", vocab, lowercase=True) == [1, 0, 2]
    assert encode_words("x", {"[UNK]": 7}, unk_token="[UNK]") == [7]
    assert oov_rate("the cat sat", {"the": 0, "sat": 1}) == pytest.approx(1 / 3)
    assert oov_rate("The", {"the": 0}) == 1.0
    assert oov_rate("The", {"the": 0}, lowercase=True) == 0.0
    assert oov_rate("  ", {"the": 0}) == 0.0


def test_encode_words_and_oov_rate_check_inputs():
    with pytest.raises(ValueError, match=r"word 'dog' is not in the vocabulary and the vocabulary has no '<unk>' token; add '<unk>'"):
        encode_words("the dog", {"the": 1})
    with pytest.raises(TypeError, match=r"vocab must be a dict mapping str to int, not set"):
        encode_words("a", {"a"})
    with pytest.raises(TypeError, match=r"vocab must be a dict mapping str to int, not list"):
        oov_rate("a", ["a"])
    with pytest.raises(TypeError, match=r"text must be str, not bytes"):
        oov_rate(b"a", {})


# ---------------------------------------------------------------------------
# detokenize
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("words, text", [
    ([], ""),
    (["hello"], "hello"),
    (["Hello", ",", "world", "!"], "Hello, world!"),
    (["It", "ended", "."], "It ended."),
    (["Wait", "?", "!", ".", ".", "."], "Wait?!..."),
    (["a", ";", "b", ":", "c"], "a; b: c"),
    (["he", "said", "(", "softly", ")", "."], "he said (softly)."),
    (["[", "1", "]", "and", "{", "x", "}"], "[1] and {x}"),
    (['"', "Stay", ",", '"', "he", "said", "."], '"Stay," he said.'),
    (["he", "said", '"', "hi", '"', "."], 'he said "hi".'),
    # straight double quotes alternate: open, close, open, close
    (['"', "a", '"', "b", '"', "c", '"'], '"a" b "c"'),
    (["(", '"', "a", '"', ")"], '("a")'),
    (["costs", "$", "5", "or", "50", "%"], "costs $5 or 50%"),
    (["¿", "Qué", "?", "¡", "Sí", "!"], "¿Qué? ¡Sí!"),
    (["«", "oui", "»"], "«oui»"),
    (["‘", "Tis", "’", "ok"], "‘Tis’ ok"),
    (["don't", "o'er"], "don't o'er"),
    # the guess is wrong for split numbers and bare apostrophes: spacing is lost for good
    (["3", ".", "14"], "3. 14"),
    (["dogs", "'", "day"], "dogs' day"),
    (["'", "tis"], "' tis"),
    (["a", "-", "b", "—", "c"], "a - b — c"),
])
def test_detokenize_spacing(words, text):
    assert detokenize(words) == text


def test_detokenize_accepts_any_iterable_of_str():
    assert detokenize(("a", ".")) == "a."
    assert detokenize(w for w in ["(", "a", ")"]) == "(a)"


def test_detokenize_checks_inputs():
    with pytest.raises(TypeError, match=r"words must be a list of str, not str; to split a text into words use split_words\(text\)"):
        detokenize("hello")
    with pytest.raises(TypeError, match=r"words must be a list of str, not int"):
        detokenize(3)
    with pytest.raises(TypeError, match=r"words\[1\] must be str, not int"):
        detokenize(["a", 1])


# ---------------------------------------------------------------------------
# WordTokenizer
# ---------------------------------------------------------------------------


@pytest.fixture
def tok() -> WordTokenizer:
    return WordTokenizer().train(["the cat sat on the mat.", "The dog sat!"])


def test_vocabulary_by_frequency_then_string(tok):
    assert tok.vocab == {
        "<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3,
        "sat": 4, "the": 5,                      # count 2
        "!": 6, ".": 7, "The": 8, "cat": 9, "dog": 10, "mat": 11, "on": 12,  # count 1
    }
    assert tok.vocab_size == 13
    assert tok.unk_id == 1
    assert tok.lowercase is False


def test_vocab_size_and_min_freq_in_train():
    corpus = ["the cat sat on the mat.", "The dog sat!"]
    assert list(WordTokenizer().train(corpus, vocab_size=7).vocab) == SPECIALS + ["sat", "the", "!"]
    assert list(WordTokenizer().train(corpus, min_freq=2).vocab) == SPECIALS + ["sat", "the"]
    assert WordTokenizer().train(corpus, vocab_size=5, min_freq=2).vocab_size == 5


def test_train_input_checks():
    with pytest.raises(ValueError, match=r"pass vocab_size >= 5"):
        WordTokenizer().train("a b", vocab_size=4)
    with pytest.raises(ValueError, match=r"pass vocab_size >= 3"):
        WordTokenizer().train("a b", vocab_size=2, special_tokens=["<unk>", "<pad>"])
    with pytest.raises(ValueError, match=r"no word occurs at least min_freq = 3 times; lower min_freq"):
        WordTokenizer().train("a b a", min_freq=3)
    with pytest.raises(ValueError, match=r"the corpus has no words \(only whitespace\); pass text with at least one word"):
        WordTokenizer().train([" ", "\n\t"])
    with pytest.raises(ValueError, match=r"empty corpus"):
        WordTokenizer().train("")
    with pytest.raises(TypeError, match=r"lowercase must be bool, not str"):
        WordTokenizer().train("a", lowercase="yes")
    with pytest.raises(TypeError, match=r"decode it first"):
        WordTokenizer().train(b"a b")
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence of str"):
        WordTokenizer().train("a", special_tokens="<unk>")
    with pytest.raises(ValueError, match=r"repeated: \['<unk>'\]"):
        WordTokenizer().train("a", special_tokens=["<unk>", "<unk>"])


def test_failed_training_leaves_tokenizer_untrained():
    tok = WordTokenizer()
    with pytest.raises(ValueError):
        tok.train("a", min_freq=2)
    with pytest.raises(NotTrainedError):
        tok.encode("a")


def test_special_tokens_may_be_an_iterator():
    tok = WordTokenizer().train("b a b", special_tokens=iter(["<unk>", "<s>"]))
    assert tok.special_tokens == ("<unk>", "<s>")
    assert tok.vocab == {"<unk>": 0, "<s>": 1, "b": 2, "a": 3}
    assert tok.decode([1, 3, 0], skip_special_tokens=True) == "a"


def test_encode_oov_is_unk(tok):
    assert tok.encode("the bird sat.") == [5, 1, 4, 7]
    assert tok.tokenize("the bird sat.") == ["the", "<unk>", "sat", "."]
    assert tok.tokenize("THE cat") == ["<unk>", "cat"]  # case-sensitive by default


def test_no_unk_token_gives_a_clear_error():
    tok = WordTokenizer().train("the cat", special_tokens=["<pad>"])
    assert tok.unk_id is None
    assert tok.encode("the cat") == [2, 1]
    with pytest.raises(ValueError, match=r"word 'dog' is not in the vocabulary and this tokenizer has no '<unk>' token; retrain with '<unk>'"):
        tok.encode("the dog")


def test_encode_with_offsets(tok):
    text = "The  bird\tsat!"
    assert tok.encode_with_offsets(text) == [
        Token(8, "The", 0, 3),
        Token(1, "<unk>", 5, 9),
        Token(4, "sat", 10, 13),
        Token(6, "!", 13, 14),
    ]
    assert text[5:9] == "bird"


def test_lowercase_vocabulary_and_offsets_into_the_original_text():
    tok = WordTokenizer().train(["The CAT", "the cat İstanbul"], lowercase=True)
    assert tok.lowercase is True
    assert tok.vocab == {"<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3, "cat": 4, "the": 5, "i\u0307stanbul": 6}
    text = "İstanbul THE Cat?"
    tokens = tok.encode_with_offsets(text)
    assert tokens == [
        Token(6, "i\u0307stanbul", 0, 8),  # the piece has 9 code points, the span 8
        Token(5, "the", 9, 12),
        Token(4, "cat", 13, 16),
        Token(1, "<unk>", 16, 17),
    ]
    assert [text[t.start:t.end] for t in tokens] == ["İstanbul", "THE", "Cat", "?"]


def test_lowercase_istanbul_is_the_documented_exception_to_the_round_trip():
    tok = WordTokenizer().train("İstanbul", lowercase=True)
    decoded = tok.decode(tok.encode("İstanbul"))
    assert decoded == "i\u0307stanbul"
    assert split_words(decoded) != split_words("İstanbul", lowercase=True)


def test_decode(tok):
    assert tok.decode(tok.encode("the cat sat on the mat.")) == "the cat sat on the mat."
    assert tok.decode(tok.encode("The  dog\nsat !")) == "The dog sat!"
    assert tok.decode(tok.encode("the bird sat.")) == "the <unk> sat."
    assert tok.decode([2, 5, 9, 7, 3]) == "<bos> the cat. <eos>"
    assert tok.decode([2, 5, 9, 7, 3], skip_special_tokens=True) == "the cat."
    assert tok.decode([]) == ""


def test_decode_checks_ids(tok):
    with pytest.raises(ValueError, match=r"ids\[0\] = 13 is not a token id: this tokenizer's ids are 0\.\.12"):
        tok.decode([13])
    with pytest.raises(TypeError, match=r"ids\[0\] is a bool"):
        tok.decode([True])
    with pytest.raises(TypeError, match=r"pass \[id\]"):
        tok.decode(5)


def test_encode_checks_text(tok):
    with pytest.raises(TypeError, match=r"text must be str, not bytes; decode it first"):
        tok.encode(b"the cat")
    with pytest.raises(TypeError, match=r"text must be str, not NoneType"):
        tok.tokenize(None)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

_WORD = re.compile(WORD_PATTERN)


def _is_word(piece: str) -> bool:
    """A word, not a punctuation mark (both are single WORD_PATTERN matches)."""
    return re.match(r"\w", piece) is not None


def _round_trip_holds(tok: WordTokenizer, s: str, expected_words: list[str]) -> None:
    ids = tok.encode(s)
    assert tok.unk_id not in ids
    decoded = tok.decode(ids)
    assert split_words(decoded) == expected_words
    assert tok.encode(decoded) == ids


@PROPERTY
@given(s=st.text(max_size=60))
def test_round_trip_of_any_training_text(s):
    """Any text, encoded by a tokenizer trained on it, decodes to the same tokens."""
    assume(split_words(s))
    tok = WordTokenizer().train(s)
    _round_trip_holds(tok, s, split_words(s))


VOCAB_WORDS = ["the", "The", "don't", "o'er", "O’er", "naïve", "東京", "Straße", "3", "14", "x_y", "İ"]
PUNCTUATION = list(".,;:!?)]}%…»’'([{¿¡«‘$#\"-—/*")


@st.composite
def vocabulary_texts(draw):
    """Texts made of VOCAB_WORDS and PUNCTUATION. Two neighbours are glued (no space)
    only where that cannot merge them into one word: never two words, and never a word
    and an apostrophe (``o`` + ``'`` + ``er`` would read as ``o'er``)."""
    piece = st.one_of(
        st.sampled_from(VOCAB_WORDS),
        st.sampled_from(PUNCTUATION),
        st.sampled_from(["'", "’", '"']),  # the pieces whose spacing is hardest to guess
    )
    pieces = draw(st.lists(piece, min_size=1, max_size=25))
    out = [pieces[0]]
    for prev, cur in zip(pieces, pieces[1:]):
        apostrophe = prev in ("'", "’") or cur in ("'", "’")
        gluable = not (_is_word(prev) and _is_word(cur)) and not apostrophe
        sep = draw(st.sampled_from(["", " "] if gluable else [" ", "  ", "\n", "\t"]))
        out.append(sep + cur)
    return pieces, "".join(out)


@PROPERTY
@given(data=vocabulary_texts())
def test_round_trip_of_texts_built_from_the_vocabulary(data):
    pieces, s = data
    assert split_words(s) == pieces  # the construction is what we think it is
    tok = WordTokenizer().train(" ".join(VOCAB_WORDS + PUNCTUATION))
    _round_trip_holds(tok, s, pieces)


@PROPERTY
@given(s=st.text(max_size=60))
def test_round_trip_lowercase(s):
    lowered = split_words(s, lowercase=True)
    assume(lowered)
    # The guarantee's proviso: each lowercased word is still one word ('İ' is not).
    assume(all(_WORD.fullmatch(w) for w in lowered))
    tok = WordTokenizer().train(s, lowercase=True)
    _round_trip_holds(tok, s, lowered)


@PROPERTY
@given(corpus=st.text(max_size=40), s=st.text(max_size=40), lowercase=st.booleans())
def test_offsets_point_into_the_text(corpus, s, lowercase):
    assume(split_words(corpus))
    tok = WordTokenizer().train(corpus, lowercase=lowercase)
    tokens = tok.encode_with_offsets(s)
    words = split_words(s)
    assert len(tokens) == len(words)
    pos = 0
    for t, w in zip(tokens, words):
        assert s[pos:t.start].strip() == ""  # only whitespace is skipped
        assert s[t.start:t.end] == w
        piece = w.lower() if lowercase else w
        assert t.piece == (piece if piece in tok.vocab else "<unk>")
        assert t.id == tok.vocab[t.piece]
        pos = t.end
    assert s[pos:].strip() == ""
