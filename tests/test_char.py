"""tokref.char: the character-level helpers and CharTokenizer, by known answers and by
Hypothesis round-trip properties."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokref import CharTokenizer, NotTrainedError, Token
from tokref.char import (
    DEFAULT_SPECIAL_TOKENS,
    build_char_vocab,
    decode_chars,
    encode_chars,
    unk_rate,
)

# Deterministic and bounded: the same examples on every run, no example database.
PROPERTY = settings(max_examples=150, derandomize=True, deadline=None, database=None)


@pytest.fixture
def tok() -> CharTokenizer:
    # vocab: <pad> 0, <unk> 1, <bos> 2, <eos> 3, ' ' 4, 'a' 5, 'b' 6, 'c' 7
    return CharTokenizer().train(["abc", "c a"])


# ---------------------------------------------------------------------------
# Vocabulary and ids
# ---------------------------------------------------------------------------


def test_default_special_tokens_have_documented_ids():
    assert DEFAULT_SPECIAL_TOKENS == ("<pad>", "<unk>", "<bos>", "<eos>")
    tok = CharTokenizer().train("x")
    assert [tok.token_to_id(s) for s in ("<pad>", "<unk>", "<bos>", "<eos>")] == [0, 1, 2, 3]
    assert tok.unk_id == 1
    assert tok.special_tokens == DEFAULT_SPECIAL_TOKENS


def test_chars_follow_in_code_point_order(tok):
    assert tok.vocab == {"<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3, " ": 4, "a": 5, "b": 6, "c": 7}
    assert tok.vocab_size == 8
    # Code-point order, not locale or case order: 'Z' < 'a' < 'é' < '東' < '😀'.
    t2 = CharTokenizer().train(["😀é", "aZ東"])
    assert list(t2.vocab)[4:] == ["Z", "a", "é", "東", "😀"]


def test_ids_do_not_depend_on_text_order_or_repetition():
    a = CharTokenizer().train(["cab", "bbb"])
    b = CharTokenizer().train(iter(["b", "a", "c", "a"]))
    assert a.vocab == b.vocab


def test_build_char_vocab_known_answers():
    assert build_char_vocab(["abba", "cab"]) == {
        "<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3, "a": 4, "b": 5, "c": 6,
    }
    assert build_char_vocab("hello", special_tokens=["<unk>"]) == {"<unk>": 0, "e": 1, "h": 2, "l": 3, "o": 4}
    assert build_char_vocab("ba", special_tokens=[]) == {"a": 0, "b": 1}


def test_one_char_special_token_keeps_its_id():
    # A character equal to a one-character special token is not added twice.
    assert build_char_vocab("a|b", special_tokens=["|"]) == {"|": 0, "a": 1, "b": 2}


def test_custom_special_tokens_come_first_in_the_given_order():
    tok = CharTokenizer().train("ba", special_tokens=["[SEP]", "<unk>", "[CLS]"])
    assert tok.vocab == {"[SEP]": 0, "<unk>": 1, "[CLS]": 2, "a": 3, "b": 4}
    assert tok.special_tokens == ("[SEP]", "<unk>", "[CLS]")
    assert tok.unk_id == 1
    assert tok.encode("abz") == [3, 4, 1]


def test_special_tokens_may_be_an_iterator():
    tok = CharTokenizer().train("ba", special_tokens=iter(["<unk>", "<eos>"]))
    assert tok.special_tokens == ("<unk>", "<eos>")
    assert tok.vocab == {"<unk>": 0, "<eos>": 1, "a": 2, "b": 3}
    assert tok.decode([2, 1], skip_special_tokens=True) == "a"


def test_retraining_replaces_the_vocabulary():
    tok = CharTokenizer().train("abc")
    tok.train("xy", special_tokens=["<unk>"])
    assert tok.vocab == {"<unk>": 0, "x": 1, "y": 2}
    assert tok.encode("a") == [0]


def test_vocab_is_a_copy(tok):
    v = tok.vocab
    v["z"] = 99
    del v["a"]
    assert "z" not in tok.vocab and tok.token_to_id("a") == 5


# ---------------------------------------------------------------------------
# Unknown characters
# ---------------------------------------------------------------------------


def test_unknown_character_is_unk(tok):
    assert tok.encode("abz") == [5, 6, 1]
    assert tok.tokenize("abz") == ["a", "b", "<unk>"]
    assert tok.decode(tok.encode("abz")) == "ab<unk>"


def test_no_unk_token_gives_a_clear_error():
    tok = CharTokenizer().train("abc", special_tokens=["<pad>"])
    assert tok.unk_id is None
    assert tok.encode("cab") == [3, 1, 2]
    with pytest.raises(
        ValueError,
        match=r"character 'z' at position 2 is not in the vocabulary and the vocabulary has no "
        r"'<unk>' token; add '<unk>' to the special tokens or train on text that contains",
    ):
        tok.encode("abz")


def test_encode_chars_custom_unk_token():
    vocab = {"[UNK]": 0, "a": 1}
    assert encode_chars("ab", vocab, unk_token="[UNK]") == [1, 0]
    with pytest.raises(ValueError, match=r"has no '<unk>' token"):
        encode_chars("ab", vocab)


# ---------------------------------------------------------------------------
# Unicode: one token per code point
# ---------------------------------------------------------------------------


def test_emoji_cjk_and_combining_marks_are_single_code_points():
    family = "👨\u200d👩\u200d👧"  # one grapheme, five code points
    decomposed = unicodedata.normalize("NFD", "é")  # 'e' + U+0301
    assert len(decomposed) == 2
    text = "東京😀" + family + decomposed
    tok = CharTokenizer().train(text)
    pieces = tok.tokenize(text)
    assert pieces == list(text)
    assert len(pieces) == 3 + 5 + 2
    assert "\u0301" in tok.vocab and "\u200d" in tok.vocab and "😀" in tok.vocab
    assert tok.decode(tok.encode(text)) == text
    # NFC 'é' is a different code point from the decomposed pair, hence unknown.
    assert tok.tokenize("é") == ["<unk>"]


# ---------------------------------------------------------------------------
# encode_with_offsets, tokenize, token_to_id, id_to_token
# ---------------------------------------------------------------------------


def test_encode_with_offsets(tok):
    text = "a😀c"
    assert tok.encode_with_offsets(text) == [
        Token(5, "a", 0, 1),
        Token(1, "<unk>", 1, 2),  # the piece is <unk>, the span is the original character
        Token(7, "c", 2, 3),
    ]
    assert text[1:2] == "😀"
    assert tok.encode_with_offsets("") == []


def test_tokenize_and_encode_agree(tok):
    text = "cab a"
    assert tok.tokenize(text) == ["c", "a", "b", " ", "a"]
    assert tok.encode(text) == [7, 5, 6, 4, 5]
    assert [tok.token_to_id(p) for p in tok.tokenize(text)] == tok.encode(text)


def test_token_to_id(tok):
    assert tok.token_to_id("<eos>") == 3
    assert tok.token_to_id(" ") == 4
    with pytest.raises(KeyError, match=r"'z' is not in the vocabulary; use \.encode\(text\)"):
        tok.token_to_id("z")
    with pytest.raises(KeyError, match=r"'ab' is not in the vocabulary"):
        tok.token_to_id("ab")
    with pytest.raises(TypeError, match=r"token must be str, not int"):
        tok.token_to_id(5)
    with pytest.raises(TypeError, match=r"token must be str, not bytes; decode it first"):
        tok.token_to_id(b"a")


def test_id_to_token(tok):
    assert [tok.id_to_token(i) for i in range(8)] == ["<pad>", "<unk>", "<bos>", "<eos>", " ", "a", "b", "c"]
    assert tok.id_to_token(np.int64(5)) == "a"
    assert tok.id_to_token(np.uint16(7)) == "c"


@pytest.mark.parametrize("bad, tname", [(True, "bool"), (np.True_, "bool"), (5.0, "float"), ("5", "str"), (None, "NoneType")])
def test_id_to_token_rejects_non_integers(tok, bad, tname):
    with pytest.raises(TypeError, match=rf"^id must be int, not {tname}"):
        tok.id_to_token(bad)


def test_id_to_token_rejects_a_list(tok):
    with pytest.raises(TypeError, match=r"id must be int, not list .*for a list of ids use \.decode\(ids\)"):
        tok.id_to_token([5])


@pytest.mark.parametrize("bad", [-1, 8, 10**20])
def test_id_to_token_out_of_range(tok, bad):
    with pytest.raises(ValueError, match=rf"= {bad} is not a token id: this tokenizer's ids are 0\.\.7 \(vocab_size = 8\)"):
        tok.id_to_token(bad)


# ---------------------------------------------------------------------------
# decode
# ---------------------------------------------------------------------------


def test_decode_accepts_numpy_integer_ids(tok):
    assert tok.decode(np.array([7, 5, 6])) == "cab"
    assert tok.decode(np.array([7, 5, 6], dtype=np.int8)) == "cab"
    assert tok.decode([np.int64(7), np.uint32(5)]) == "ca"
    assert tok.decode((i for i in [5, 4, 6])) == "a b"
    assert tok.decode([]) == ""


@pytest.mark.parametrize("bad", [[5, True], [np.False_], [5.0], np.array([5.0, 6.0]), [np.float32(5)], ["5"]])
def test_decode_rejects_bools_and_floats(tok, bad):
    with pytest.raises(TypeError, match=r"ids\[\d\] (must be int|is a bool)"):
        tok.decode(bad)


@pytest.mark.parametrize("bad", [5, np.int64(5), np.array(5), "cab", None])
def test_decode_a_single_id_says_wrap_it(tok, bad):
    with pytest.raises(TypeError, match=r"ids must be a list of int.*pass \[id\]"):
        tok.decode(bad)


@pytest.mark.parametrize("bad", [-1, 8])
def test_decode_out_of_range(tok, bad):
    with pytest.raises(ValueError, match=r"ids\[1\] = .* is not a token id: this tokenizer's ids are 0\.\.7"):
        tok.decode([5, bad])


def test_decode_special_tokens_and_skip(tok):
    ids = [2, 7, 1, 5, 0, 0, 3]
    assert tok.decode(ids) == "<bos>c<unk>a<pad><pad><eos>"
    assert tok.decode(ids, skip_special_tokens=True) == "ca"
    custom = CharTokenizer().train("ab", special_tokens=["[S]", "<unk>"])
    assert custom.decode([0, 2, 1, 3], skip_special_tokens=True) == "ab"
    assert custom.decode([0, 2, 1, 3]) == "[S]a<unk>b"


# ---------------------------------------------------------------------------
# Input checks of train and encode
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("call", ["encode", "tokenize", "encode_with_offsets"])
def test_encode_rejects_non_strings(tok, call):
    with pytest.raises(TypeError, match=r"text must be str, not bytes; decode it first"):
        getattr(tok, call)(b"abc")
    with pytest.raises(TypeError, match=r"text must be str, not list"):
        getattr(tok, call)(["abc"])


def test_train_input_checks():
    with pytest.raises(TypeError, match=r"decode it first"):
        CharTokenizer().train(b"abc")
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, not int"):
        CharTokenizer().train(["a", 1])
    with pytest.raises(ValueError, match=r"empty corpus.*pass at least one non-empty string"):
        CharTokenizer().train([])
    with pytest.raises(ValueError, match=r"empty corpus"):
        CharTokenizer().train(["", ""])
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence of str"):
        CharTokenizer().train("a", special_tokens="<unk>")
    with pytest.raises(ValueError, match=r"must be distinct; repeated: \['<unk>'\]"):
        CharTokenizer().train("a", special_tokens=["<unk>", "<unk>"])
    with pytest.raises(ValueError, match=r"cannot be the empty string"):
        CharTokenizer().train("a", special_tokens=[""])


def test_failed_training_leaves_tokenizer_untrained():
    tok = CharTokenizer()
    with pytest.raises(ValueError):
        tok.train([""])
    with pytest.raises(NotTrainedError):
        tok.encode("a")


# ---------------------------------------------------------------------------
# The pure helpers
# ---------------------------------------------------------------------------


def test_encode_decode_chars_known_answers():
    vocab = {"<unk>": 0, "h": 1, "i": 2}
    assert encode_chars("hi!", vocab) == [1, 2, 0]
    assert decode_chars([1, 2, 0], vocab) == "hi<unk>"
    assert decode_chars(np.array([2, 1]), vocab) == "ih"
    assert encode_chars("", vocab) == []


def test_decode_chars_errors():
    with pytest.raises(ValueError, match=r"ids\[0\] = 3 is not a token id"):
        decode_chars([3], {"a": 0, "b": 2})
    with pytest.raises(ValueError, match=r"^id 1 is not in the vocabulary$"):
        decode_chars([0, 1], {"a": 0, "b": 2})  # a gap in the ids
    with pytest.raises(TypeError, match=r"vocab must be a dict mapping str to int, not list"):
        decode_chars([0], ["a"])
    with pytest.raises(TypeError, match=r"ids\[0\] is a bool"):
        decode_chars([True], {"a": 0, "b": 1})


def test_encode_chars_and_unk_rate_check_inputs():
    with pytest.raises(TypeError, match=r"vocab must be a dict mapping str to int, not str"):
        encode_chars("a", "abc")
    with pytest.raises(TypeError, match=r"text must be str, not bytes; decode it first"):
        encode_chars(b"a", {"a": 0})
    with pytest.raises(TypeError, match=r"vocab must be a dict"):
        unk_rate("a", None)
    with pytest.raises(TypeError, match=r"text must be str, not int"):
        unk_rate(1, {})


def test_unk_rate_known_answers():
    assert unk_rate("abcd", {"a": 0, "b": 1}) == 0.5
    assert unk_rate("", {"a": 0}) == 0.0
    assert unk_rate("zzz", {"a": 0}) == 1.0
    assert unk_rate("aaa", {"a": 0}) == 0.0


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

# Any Unicode text (Hypothesis leaves out lone surrogates, which str.encode refuses).
texts = st.text(min_size=1, max_size=40)


@PROPERTY
@given(corpus=texts, data=st.data())
def test_known_characters_round_trip(corpus, data):
    """Any string made only of characters in the vocabulary survives decode(encode(s)),
    with one id per code point and no special ids."""
    tok = CharTokenizer().train(corpus)
    s = data.draw(st.text(alphabet=sorted(set(corpus)), max_size=40), label="s")
    ids = tok.encode(s)
    assert len(ids) == len(s)
    assert all(i >= len(DEFAULT_SPECIAL_TOKENS) for i in ids)
    assert tok.decode(ids) == s
    assert tok.decode(ids, skip_special_tokens=True) == s


@PROPERTY
@given(corpus=texts, s=st.text(max_size=40))
def test_unknown_characters_become_unk(corpus, s):
    """In any string, exactly the characters outside the training text decode to <unk>."""
    tok = CharTokenizer().train(corpus)
    expected = "".join(c if c in corpus else "<unk>" for c in s)
    assert tok.decode(tok.encode(s)) == expected
    assert tok.decode(tok.encode(s), skip_special_tokens=True) == "".join(c for c in s if c in corpus)


@PROPERTY
@given(corpus=texts, s=st.text(max_size=40))
def test_offsets_cover_the_text_one_code_point_each(corpus, s):
    tok = CharTokenizer().train(corpus)
    tokens = tok.encode_with_offsets(s)
    assert [(t.start, t.end) for t in tokens] == [(i, i + 1) for i in range(len(s))]
    for t in tokens:
        assert t.piece == (s[t.start] if s[t.start] in corpus else "<unk>")
        assert tok.id_to_token(t.id) == t.piece


@PROPERTY
@given(corpus=st.lists(st.text(max_size=20), min_size=1, max_size=4).filter(any))
def test_vocabulary_is_specials_then_sorted_distinct_chars(corpus):
    tok = CharTokenizer().train(corpus)
    chars = list(tok.vocab)[len(DEFAULT_SPECIAL_TOKENS):]
    assert chars == sorted(set("".join(corpus)))
    assert list(tok.vocab.values()) == list(range(tok.vocab_size))
