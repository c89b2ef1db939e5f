"""tokref.base: the input checks every public function uses, the untrained state, and the
tokenizer files (save/load round trip, and every kind of broken or hostile file)."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import tokref
import tokref.base as base
from tokref import (
    CharTokenizer,
    NotTrainedError,
    Token,
    Tokenizer,
    TokenizerFileError,
    WordTokenizer,
)
from tokref.base import (
    check_ids,
    check_special_tokens,
    check_text,
    check_texts,
    check_vocab_size,
)
from tokref.word import WORD_PATTERN

SAMPLE = "The cat sat, didn't it? Ça va — 東京 😀!"


# ---------------------------------------------------------------------------
# check_text / check_texts
# ---------------------------------------------------------------------------


def test_check_text_returns_str_unchanged():
    s = "héllo"
    assert check_text(s) is s


@pytest.mark.parametrize("bad", [b"abc", bytearray(b"abc")])
def test_check_text_bytes_says_decode(bad):
    with pytest.raises(TypeError, match=r"text must be str, not (bytes|bytearray); decode it first"):
        check_text(bad)


@pytest.mark.parametrize("bad, tname", [(None, "NoneType"), (3, "int"), (["a"], "list")])
def test_check_text_other_types(bad, tname):
    with pytest.raises(TypeError, match=rf"^text must be str, not {tname}$"):
        check_text(bad)


def test_check_text_uses_the_argument_name():
    with pytest.raises(TypeError, match=r"^token must be str"):
        check_text(1, name="token")


def test_check_texts_accepts_str_and_iterables():
    assert check_texts("one") == ["one"]
    assert check_texts(["a", ""]) == ["a", ""]
    assert check_texts(("a", "b")) == ["a", "b"]
    assert check_texts(t for t in ["x", "y"]) == ["x", "y"]
    assert check_texts(["", " "]) == ["", " "]  # whitespace is text


def test_check_texts_bytes_says_decode():
    with pytest.raises(TypeError, match=r"decode it first"):
        check_texts(b"abc")


def test_check_texts_names_the_bad_item():
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, not bytes; pass a str"):
        check_texts(["ok", b"no"])


@pytest.mark.parametrize("bad", [3, None, {"a": 1}, 2.5])
def test_check_texts_rejects_non_iterables_and_dicts(bad):
    with pytest.raises(TypeError, match=r"texts must be a str or an iterable of str"):
        check_texts(bad)


@pytest.mark.parametrize("empty", ["", [], [""], ["", ""], iter([])])
def test_check_texts_rejects_empty_corpus(empty):
    with pytest.raises(ValueError, match=r"empty corpus.*pass at least one non-empty string"):
        check_texts(empty)


# ---------------------------------------------------------------------------
# check_ids
# ---------------------------------------------------------------------------


def test_check_ids_accepts_iterables_of_integers_and_returns_plain_ints():
    assert check_ids((0, 2), 3) == [0, 2]
    assert check_ids(iter([1]), 3) == [1]
    assert check_ids([], 3) == []
    out = check_ids(np.array([0, 1, 2], dtype=np.int64), 3)
    assert out == [0, 1, 2] and all(type(i) is int for i in out)
    out = check_ids([np.int32(1), np.uint8(2)], 3)
    assert out == [1, 2] and all(type(i) is int for i in out)


@pytest.mark.parametrize("bad", [True, False, np.True_])
def test_check_ids_rejects_bools(bad):
    with pytest.raises(TypeError, match=r"ids\[1\]"):
        check_ids([0, bad], 3)


@pytest.mark.parametrize("bad", [1.0, np.float64(1.0), "1", None])
def test_check_ids_rejects_non_integers(bad):
    with pytest.raises(TypeError, match=rf"ids\[0\] must be int, not {type(bad).__name__}"):
        check_ids([bad], 3)


def test_check_ids_rejects_float_arrays():
    with pytest.raises(TypeError, match=r"ids\[0\] must be int, not float64"):
        check_ids(np.array([1.0, 2.0]), 3)


@pytest.mark.parametrize("bad", [3, np.int64(3), np.array(3), "abc", b"ab", None])
def test_check_ids_rejects_a_single_id_or_a_string(bad):
    with pytest.raises(TypeError, match=r"ids must be a list of int.*to decode one id, pass \[id\]"):
        check_ids(bad, 5)


@pytest.mark.parametrize("bad", [-1, 3, 10**30])
def test_check_ids_out_of_range(bad):
    with pytest.raises(ValueError, match=rf"ids\[1\] = {bad} is not a token id: .* ids are 0\.\.2 \(vocab_size = 3\)"):
        check_ids([0, bad], 3)


# ---------------------------------------------------------------------------
# check_vocab_size / check_special_tokens
# ---------------------------------------------------------------------------


def test_check_vocab_size():
    assert check_vocab_size(None, 5, reason="r") is None
    assert check_vocab_size(5, 5, reason="r") == 5
    with pytest.raises(ValueError, match=r"vocab_size = 4 is too small: the specials need 5; pass vocab_size >= 5"):
        check_vocab_size(4, 5, reason="the specials")
    for bad in (True, 5.0, "5"):
        with pytest.raises(TypeError, match=r"vocab_size must be int or None"):
            check_vocab_size(bad, 1, reason="r")


def test_check_special_tokens():
    assert check_special_tokens(["<a>", "<b>"]) == ("<a>", "<b>")
    assert check_special_tokens(s for s in ["<a>"]) == ("<a>",)
    assert check_special_tokens([]) == ()
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence of str, for example"):
        check_special_tokens("<unk>")
    with pytest.raises(TypeError, match=r"special_tokens must be a sequence of str"):
        check_special_tokens(None)
    with pytest.raises(TypeError, match=r"special tokens must be str, not int"):
        check_special_tokens(["<a>", 1])
    with pytest.raises(ValueError, match=r"cannot be the empty string"):
        check_special_tokens(["<a>", ""])
    with pytest.raises(ValueError, match=r"must be distinct; repeated: \['<a>'\]"):
        check_special_tokens(["<a>", "<b>", "<a>"])


# ---------------------------------------------------------------------------
# Untrained tokenizers
# ---------------------------------------------------------------------------

UNTRAINED_CALLS = {
    "encode": lambda t: t.encode("a"),
    "decode": lambda t: t.decode([0]),
    "tokenize": lambda t: t.tokenize("a"),
    "encode_with_offsets": lambda t: t.encode_with_offsets("a"),
    "token_to_id": lambda t: t.token_to_id("a"),
    "id_to_token": lambda t: t.id_to_token(0),
    "vocab": lambda t: t.vocab,
    "vocab_size": lambda t: t.vocab_size,
    "unk_id": lambda t: t.unk_id,
    "to_dict": lambda t: t.to_dict(),
}


@pytest.mark.parametrize("cls", [CharTokenizer, WordTokenizer])
@pytest.mark.parametrize("call", list(UNTRAINED_CALLS))
def test_untrained_tokenizer_says_train_first(cls, call):
    tok = cls()
    assert not tok.is_trained
    with pytest.raises(NotTrainedError, match=rf"this {cls.__name__} has no vocabulary yet; call \.train\(texts\) first"):
        UNTRAINED_CALLS[call](tok)


@pytest.mark.parametrize("cls", [CharTokenizer, WordTokenizer])
def test_untrained_save_writes_nothing(cls, tmp_path):
    path = tmp_path / "t.json"
    with pytest.raises(NotTrainedError, match=r"call \.train\(texts\) first"):
        cls().save(path)
    assert not path.exists()


def test_error_classes_are_value_errors():
    # Callers that catch ValueError (the documented contract) catch these too.
    assert issubclass(NotTrainedError, ValueError)
    assert issubclass(TokenizerFileError, ValueError)


def test_repr_and_is_trained():
    tok = CharTokenizer()
    assert repr(tok) == "CharTokenizer(untrained)"
    tok.train("ab")
    assert tok.is_trained
    assert repr(tok) == "CharTokenizer(vocab_size=6)"


def test_token_is_frozen():
    t = Token(1, "a", 0, 1)
    with pytest.raises(AttributeError):
        t.id = 2  # type: ignore[misc]


# ---------------------------------------------------------------------------
# Files: round trips
# ---------------------------------------------------------------------------


def _trained() -> list[Tokenizer]:
    corpus = ["The cat sat, didn't it?", "Ça va — 東京 😀!", "the end. The END"]
    return [
        CharTokenizer().train(corpus),
        CharTokenizer().train(corpus, special_tokens=["[PAD]", "<unk>", "[SEP]"]),
        CharTokenizer().train(corpus, special_tokens=[]),
        WordTokenizer().train(corpus),
        WordTokenizer().train(corpus, lowercase=True, vocab_size=9),
        WordTokenizer().train(corpus, special_tokens=("<unk>",), min_freq=2),
    ]


@pytest.mark.parametrize("index", range(6))
@pytest.mark.parametrize("loader", ["tokref.load", "Tokenizer.load", "cls.load"])
def test_save_load_round_trip(tmp_path, index, loader):
    tok = _trained()[index]
    path = tmp_path / "tok.json"
    tok.save(path)
    load = {"tokref.load": tokref.load, "Tokenizer.load": Tokenizer.load, "cls.load": type(tok).load}[loader]
    back = load(path)
    assert type(back) is type(tok)
    assert back.vocab == tok.vocab
    assert list(back.vocab) == list(tok.vocab)  # same id order
    assert back.special_tokens == tok.special_tokens
    assert getattr(back, "lowercase", None) == getattr(tok, "lowercase", None)
    try:
        expected = tok.encode(SAMPLE)
    except ValueError:  # no <unk>: the sample has unseen characters
        sample = "The cat sat"
        expected = tok.encode(sample)
        assert back.encode(sample) == expected
    else:
        assert back.encode(SAMPLE) == expected
    assert back.decode(expected) == tok.decode(expected)


def test_save_accepts_str_path_and_writes_readable_utf8(tmp_path):
    tok = CharTokenizer().train("é東😀")
    path = str(tmp_path / "c.json")
    tok.save(path)
    raw = (tmp_path / "c.json").read_text(encoding="utf-8")
    assert "東" in raw and "😀" in raw  # written as text, not \u escapes
    assert json.loads(raw) == tok.to_dict()


def test_to_dict_known_answer():
    assert CharTokenizer().train("ba", special_tokens=["<unk>"]).to_dict() == {
        "format": "tokref",
        "version": 1,
        "type": "char",
        "config": {"special_tokens": ["<unk>"], "chars": ["a", "b"]},
    }
    assert WordTokenizer().train("b a b", special_tokens=["<unk>"], lowercase=True).to_dict() == {
        "format": "tokref",
        "version": 1,
        "type": "word",
        "config": {
            "lowercase": True,
            "pattern": WORD_PATTERN,
            "special_tokens": ["<unk>"],
            "words": ["b", "a"],
        },
    }


def test_from_dict_round_trip_in_memory():
    tok = WordTokenizer().train("to be or not to be")
    back = Tokenizer.from_dict(tok.to_dict())
    assert type(back) is WordTokenizer and back.vocab == tok.vocab


@pytest.mark.parametrize("bad", [123, None, ["a.json"]])
def test_save_and_load_reject_non_paths(bad):
    tok = CharTokenizer().train("a")
    with pytest.raises(TypeError, match=r"path must be a str or os.PathLike"):
        tok.save(bad)
    with pytest.raises(TypeError, match=r"path must be a str or os.PathLike"):
        tokref.load(bad)


# ---------------------------------------------------------------------------
# Files: the wrong class
# ---------------------------------------------------------------------------


def test_char_load_of_word_file_is_refused(tmp_path):
    path = tmp_path / "w.json"
    WordTokenizer().train("a b").save(path)
    with pytest.raises(
        TokenizerFileError,
        match=r"this file holds a WordTokenizer \(type 'word'\), not a CharTokenizer; load it with tokref\.load\(path\)",
    ):
        CharTokenizer.load(path)


def test_word_load_of_char_file_is_refused(tmp_path):
    path = tmp_path / "c.json"
    CharTokenizer().train("a b").save(path)
    with pytest.raises(TokenizerFileError, match=r"holds a CharTokenizer.*not a WordTokenizer"):
        WordTokenizer.load(path)


# ---------------------------------------------------------------------------
# Files: corrupt, foreign and hostile content
# ---------------------------------------------------------------------------


def _good(kind: str = "char") -> dict:
    if kind == "char":
        return CharTokenizer().train("abc").to_dict()
    return WordTokenizer().train("a b c").to_dict()


def _write(tmp_path, content) -> str:
    path = tmp_path / "tok.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return str(path)


def _load_fails(tmp_path, content, match, cls=None):
    path = _write(tmp_path, content)
    with pytest.raises(TokenizerFileError, match=match):
        (cls or tokref).load(path)


def test_corrupt_json(tmp_path):
    _load_fails(tmp_path, "{this is not json", r"is not valid JSON .*was it written by Tokenizer\.save\?")


def test_empty_file(tmp_path):
    _load_fails(tmp_path, b"", r"is not valid JSON")


def test_truncated_file(tmp_path):
    path = tmp_path / "tok.json"
    CharTokenizer().train("hello world").save(path)
    raw = path.read_bytes()
    for cut in (1, len(raw) // 2, len(raw) - 1):
        _load_fails(tmp_path, raw[:cut], r"is not valid JSON")


def test_not_utf8(tmp_path):
    _load_fails(tmp_path, b'{"format": "tokref\xff"}', r"is not UTF-8 text")


@pytest.mark.parametrize("value, tname", [([], "list"), ("tokref", "str"), (1, "int"), (None, "NoneType")])
def test_json_that_is_not_an_object(tmp_path, value, tname):
    _load_fails(tmp_path, json.dumps(value), rf"a tokenizer file holds a JSON object, not a {tname}")


def test_wrong_format_tag(tmp_path):
    data = _good()
    data["format"] = "huggingface"
    _load_fails(tmp_path, data, r"not a tokref tokenizer file .*use the matching from_\* constructor")
    del data["format"]
    _load_fails(tmp_path, data, r"not a tokref tokenizer file")


def test_newer_version_says_upgrade(tmp_path):
    data = _good()
    data["version"] = 2
    _load_fails(tmp_path, data, r"format version 2, newer than this tokref reads \(1\); upgrade tokref")


@pytest.mark.parametrize("version, match", [
    (0, r"invalid format version 0"),
    (-3, r"invalid format version -3"),
    ("1", r"'version' must be an integer"),
    (1.0, r"'version' must be an integer"),
    (True, r"'version' must be an integer"),
    (None, r"'version' must be an integer"),
])
def test_bad_version(tmp_path, version, match):
    data = _good()
    data["version"] = version
    _load_fails(tmp_path, data, match)


def test_unknown_type_lists_the_known_ones(tmp_path):
    data = _good()
    data["type"] = "sentencepiece9"
    _load_fails(tmp_path, data, r"unknown tokenizer type 'sentencepiece9'; this tokref knows \[.*'char'.*'word'.*\]")
    data["type"] = 7
    _load_fails(tmp_path, data, r"'type' must be a string")


def test_missing_or_bad_config(tmp_path):
    data = _good()
    data["config"] = ["a"]
    _load_fails(tmp_path, data, r"'config' must be a JSON object")
    del data["config"]
    _load_fails(tmp_path, data, r"the file has no 'config'")


@pytest.mark.parametrize("kind, key", [("char", "chars"), ("char", "special_tokens"), ("word", "words"), ("word", "lowercase")])
def test_missing_config_entry_is_named(tmp_path, kind, key):
    data = _good(kind)
    del data["config"][key]
    _load_fails(tmp_path, data, rf"invalid '{kind}' tokenizer file: its 'config' has no '{key}' entry")


def test_deeply_nested_json(tmp_path):
    depth = 100_000
    _load_fails(tmp_path, "[" * depth + "]" * depth, r"nested too deeply")
    _load_fails(tmp_path, '{"a":' * depth + "1" + "}" * depth, r"nested too deeply")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_json_constants(tmp_path, constant):
    raw = json.dumps(_good()).replace('"version": 1', f'"version": {constant}')
    assert constant in raw
    _load_fails(tmp_path, raw, rf"not strict JSON: the file contains {constant}")


def test_overflowing_float(tmp_path):
    raw = json.dumps(_good()).replace('"version": 1', '"version": 1e999')
    _load_fails(tmp_path, raw, r"not strict JSON: the number 1e999 is not finite")


def test_huge_integer(tmp_path):
    raw = json.dumps(_good()).replace('"version": 1', '"version": ' + "9" * 5000)
    _load_fails(tmp_path, raw, r"is not a tokenizer file")


@pytest.mark.parametrize("kind, key, value, match", [
    ("char", "chars", ["a", "b", "a"], r"'chars' has repeated entries"),
    ("char", "special_tokens", ["<unk>", "<unk>"], r"'special_tokens' has repeated entries"),
    ("word", "words", ["a", "b", "a"], r"'words' has repeated entries"),
    ("char", "chars", ["a", 1], r"'chars' must be a list of strings"),
    ("char", "chars", "abc", r"'chars' must be a list of strings"),
    ("char", "chars", {"a": 0}, r"'chars' must be a list of strings"),
    ("char", "special_tokens", [None], r"'special_tokens' must be a list of strings"),
    ("word", "words", ["a", ["b"]], r"'words' must be a list of strings"),
    ("word", "words", ["a", ""], r"'words' contains an empty string"),
    ("char", "special_tokens", ["", "<unk>"], r"'special_tokens' contains an empty string"),
    ("char", "chars", ["ab"], r"every entry of 'chars' must be one character"),
    ("char", "chars", ["<unk>"], r"every entry of 'chars' must be one character"),
    ("word", "words", ["<unk>"], r"'words' and 'special_tokens' overlap"),
    ("word", "words", [], r"the vocabulary has no words"),
    ("word", "lowercase", "yes", r"'lowercase' must be true or false"),
    ("word", "lowercase", 1, r"'lowercase' must be true or false"),
    ("word", "pattern", r"\S+", r"written with another word pattern"),
])
def test_hostile_config_content(tmp_path, kind, key, value, match):
    data = _good(kind)
    data["config"][key] = value
    _load_fails(tmp_path, data, match)


def test_char_overlap_and_empty_vocabulary(tmp_path):
    data = _good("char")
    data["config"]["special_tokens"] = ["a"]
    _load_fails(tmp_path, data, r"'chars' and 'special_tokens' overlap")
    data["config"] = {"special_tokens": [], "chars": []}
    _load_fails(tmp_path, data, r"the vocabulary is empty")


def test_special_tokens_only_char_file_loads(tmp_path):
    # The boundary of the previous test: specials without chars is a valid (if useless) file.
    data = _good("char")
    data["config"]["chars"] = []
    tok = tokref.load(_write(tmp_path, data))
    assert tok.vocab == {"<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3}
    assert tok.encode("z") == [1]


# -- pickles: refused, and never unpickled -----------------------------------

UNPICKLED: list[str] = []


def _record(tag: str) -> str:
    UNPICKLED.append(tag)
    return tag


class Payload:
    """Unpickling this calls _record: the stand-in for os.system in a real attack."""

    def __reduce__(self):
        return (_record, ("the payload ran",))


def _no_unpickling(*args, **kwargs):
    raise AssertionError("tokref must never unpickle a tokenizer file")


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_file_is_refused_without_unpickling(tmp_path, monkeypatch, protocol):
    monkeypatch.setattr(pickle, "loads", _no_unpickling)
    monkeypatch.setattr(pickle, "load", _no_unpickling)
    monkeypatch.setattr(pickle, "Unpickler", _no_unpickling)
    UNPICKLED.clear()
    # A pickle of what a naive save() would have written, with a payload inside.
    raw = pickle.dumps({"format": "tokref", "payload": Payload()}, protocol=protocol)
    path = _write(tmp_path, raw)
    for load in (tokref.load, CharTokenizer.load, WordTokenizer.load, Tokenizer.load):
        with pytest.raises(TokenizerFileError) as info:
            load(path)
        if protocol >= 2:  # these start with the PROTO opcode b"\x80"
            assert "looks like a pickle" in str(info.value)
            assert "pickles can run code" in str(info.value)
    assert UNPICKLED == []


# -- missing and huge files ---------------------------------------------------


def test_missing_file(tmp_path):
    path = tmp_path / "nope.json"
    with pytest.raises(FileNotFoundError, match=r"no tokenizer file at .*nope\.json"):
        tokref.load(path)
    with pytest.raises(FileNotFoundError, match=r"no tokenizer file at"):
        CharTokenizer.load(str(path))


def test_huge_file_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    CharTokenizer().train("abc").save(path)
    size = path.stat().st_size
    monkeypatch.setattr(base, "MAX_FILE_BYTES", size)
    assert tokref.load(path).vocab_size == 7  # exactly at the limit: read
    monkeypatch.setattr(base, "MAX_FILE_BYTES", size - 1)

    def no_read(self):
        raise AssertionError("read the file although it is too large")

    monkeypatch.setattr(type(path), "read_bytes", no_read)
    with pytest.raises(TokenizerFileError, match=rf"is {size:,} bytes, more than any tokenizer file needs .*refusing to read it"):
        tokref.load(path)


def test_default_size_limit_is_generous_but_finite():
    assert 10 * 2**20 <= base.MAX_FILE_BYTES <= 2**30


def test_a_subclass_does_not_take_over_its_parents_files(tmp_path):
    """A subclass inheriting `kind` is not registered: loading still gives the parent."""
    from tokref import CharTokenizer, load

    class MyChars(CharTokenizer):  # inherits kind = "char"
        pass

    path = tmp_path / "t.json"
    MyChars().train("abc").save(path)
    assert type(load(path)) is CharTokenizer


def test_two_classes_cannot_claim_one_kind():
    from tokref.base import Tokenizer

    with pytest.raises(TypeError, match="kind 'char' is taken by CharTokenizer"):
        class Impostor(Tokenizer):
            kind = "char"
