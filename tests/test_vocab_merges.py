"""ByteLevelBPETokenizer.from_vocab_merges (tokref.bytefiles.tables_from_vocab_merges) and
allowing_special: a vocabulary {id: bytes} plus a merge list, as CS336's tokenizer and
Hugging Face's vocab.json + merges.txt give them.

- Round trips: a tokref-trained tokenizer → (vocab, merges) → the same ids, with the
  special tokens in the vocabulary or not, found or listed.
- Other numberings: GPT-2's (bytes in bytes_to_unicode order), special token first
  (CS336's trained vocabularies); checked against tiktoken on the same ranks.
- Every error path, with its message.
- allowing_special, and CS336's get_tokenizer in three lines.
"""

from __future__ import annotations

import json

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from tokref import ByteLevelBPETokenizer, NotTrainedError, load
from tokref.bytefiles import bytes_to_unicode, tables_from_vocab_merges
from tokref.corpus import load_text
from tokref.pretokenize import CL100K_PATTERN

PROPERTY = settings(max_examples=100, derandomize=True, deadline=None, database=None)
SPECIALS = ["<|endoftext|>", "<|pad|>"]
TRAIN = load_text("train")[:40_000] + " naïve café 東京 😀 <|endoftext|> " * 20
HELDOUT = load_text("heldout")[:20_000]


@pytest.fixture(scope="module")
def tok() -> ByteLevelBPETokenizer:
    return ByteLevelBPETokenizer().train([TRAIN], vocab_size=256 + 300 + 2, special_tokens=SPECIALS)


def vocab_of(tok: ByteLevelBPETokenizer, *, specials: bool = True) -> dict[int, bytes]:
    vocab = dict(enumerate(tok.token_bytes))
    if not specials:
        for i in tok.special_tokens_map.values():
            del vocab[i]
    return vocab


def reference(tok: ByteLevelBPETokenizer) -> tiktoken.Encoding:
    return tiktoken.Encoding("ref", pat_str=tok.pattern, mergeable_ranks=tok.mergeable_ranks,
                             special_tokens=tok.special_tokens_map)


# ---------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------


def test_round_trip_of_a_trained_tokenizer(tok):
    same = ByteLevelBPETokenizer.from_vocab_merges(vocab_of(tok), tok.merges, special_tokens=SPECIALS)
    assert same.encode(HELDOUT) == tok.encode(HELDOUT)
    assert same.special_tokens_map == tok.special_tokens_map
    assert same.vocab == tok.vocab and same.vocab_size == tok.vocab_size
    assert same.merges == tok.merges  # training's numbering: the merge list is kept
    assert same.truncated(10).encode(HELDOUT[:500]) == tok.truncated(10).encode(HELDOUT[:500])
    assert same.name == "vocab_merges"


@PROPERTY
@given(st.lists(st.one_of(st.text(max_size=12), st.sampled_from(SPECIALS + [" the", "\n\n", "é"])), max_size=10))
def test_same_ids_on_any_text(tok, parts):
    text = "".join(parts)
    same = ByteLevelBPETokenizer.from_vocab_merges(vocab_of(tok), tok.merges)
    assert same.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
    assert same.encode(text, disallowed_special=()) == tok.encode(text, disallowed_special=())


def test_special_tokens_in_the_vocabulary_or_not(tok):
    ids = tok.special_tokens_map
    # In the vocabulary, not listed: every entry that no merge makes is a special token.
    assert ByteLevelBPETokenizer.from_vocab_merges(vocab_of(tok), tok.merges).special_tokens_map == ids
    # In the vocabulary and listed: they keep their ids, in any order.
    listed = ByteLevelBPETokenizer.from_vocab_merges(vocab_of(tok), tok.merges, special_tokens=SPECIALS[::-1])
    assert listed.special_tokens_map == ids
    # Absent: appended after the largest id, in the order given.
    absent = ByteLevelBPETokenizer.from_vocab_merges(vocab_of(tok, specials=False), tok.merges,
                                                     special_tokens=["<|pad|>", "<s>"])
    assert absent.special_tokens_map == {"<|pad|>": 556, "<s>": 557}
    # None at all: no special tokens, and their text is ordinary text.
    plain = ByteLevelBPETokenizer.from_vocab_merges(vocab_of(tok, specials=False), tok.merges, special_tokens=[])
    assert plain.special_tokens_map == {}
    assert plain.encode("<|endoftext|>") == tok.encode("<|endoftext|>", disallowed_special=())


def test_gpt2_numbering_of_the_bytes(tok, tmp_path):
    # GPT-2 numbers byte b by its place in bytes_to_unicode's order, not b.
    order = list(bytes_to_unicode())
    vocab = {order.index(b): bytes([b]) for b in range(256)}
    vocab |= {i: t for i, t in enumerate(tok.token_bytes) if i >= 256}
    gpt2 = ByteLevelBPETokenizer.from_vocab_merges(vocab, tok.merges)
    assert gpt2.token_to_id(b"!") == 0 and gpt2.token_to_id(b"\x00") == 188
    renumber = {b: order.index(b) for b in range(256)}
    want = [renumber.get(i, i) for i in tok.encode(HELDOUT)]
    assert gpt2.encode(HELDOUT) == want == reference(gpt2).encode(HELDOUT)
    assert gpt2.merges == [] and gpt2.merges_from_ranks() == tok.merges  # not training's ids
    gpt2.save(tmp_path / "t.json")
    assert load(tmp_path / "t.json").encode(HELDOUT) == want  # saved as a rank table


def test_special_token_first_numbering(tok):
    # CS336's trained vocabularies: <|endoftext|> at 0, the bytes at 1..256, merges after.
    vocab = {0: b"<|endoftext|>"} | {b + 1: bytes([b]) for b in range(256)}
    vocab |= {i + 1: t for i, t in enumerate(tok.token_bytes[:556]) if i >= 256}
    cs = ByteLevelBPETokenizer.from_vocab_merges(vocab, tok.merges, special_tokens=["<|endoftext|>"])
    text = HELDOUT[:3000] + "<|endoftext|>" + HELDOUT[-3000:]
    assert cs.encode(text, allowed_special="all") == reference(cs).encode(text, allowed_special="all")
    assert cs.decode(cs.encode(text, allowed_special="all")) == text
    assert cs.encode("<|endoftext|>", allowed_special="all") == [0]


def test_vocab_json_and_merges_txt_read_into_memory(tok, tmp_path):
    # Hugging Face's / GPT-2's files, read as CS336's tests read them.
    cl = ByteLevelBPETokenizer().train([TRAIN], vocab_size=256 + 200 + 1, pattern=CL100K_PATTERN,
                                       special_tokens=["<|endoftext|>"])
    cl.save_gpt2_files(tmp_path / "vocab.json", tmp_path / "merges.txt")
    decoder = {c: b for b, c in bytes_to_unicode().items()}
    raw = json.loads((tmp_path / "vocab.json").read_text(encoding="utf-8"))
    vocab = {i: s.encode() if s == "<|endoftext|>" else bytes(decoder[c] for c in s) for s, i in raw.items()}
    lines = (tmp_path / "merges.txt").read_text(encoding="utf-8").splitlines()[1:]
    merges = [tuple(bytes(decoder[c] for c in part) for part in line.split(" ")) for line in lines]
    mem = ByteLevelBPETokenizer.from_vocab_merges(vocab, merges, pattern=CL100K_PATTERN)
    files = ByteLevelBPETokenizer.from_gpt2_files(tmp_path / "vocab.json", tmp_path / "merges.txt",
                                                  pattern=CL100K_PATTERN)
    assert mem.encode(HELDOUT) == files.encode(HELDOUT) == cl.encode(HELDOUT)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

BYTES = {b: bytes([b]) for b in range(256)}
AB = [(b"a", b"b"), (b"ab", b"c")]
ABC = BYTES | {256: b"ab", 257: b"abc"}


@pytest.mark.parametrize("vocab, merges, specials, error, match", [
    ([b"a"], [], None, TypeError, "vocab must map int ids to bytes"),
    ({"a": 0}, [], None, TypeError, "keys must be int ids.*from_gpt2_files"),
    (BYTES | {-1: b"xy"}, [], None, ValueError, "negative id -1"),
    (BYTES | {256: "ab"}, [], None, TypeError, r"vocab\[256\] must be bytes, not str"),
    (BYTES | {256: b""}, [], None, ValueError, r"vocab\[256\] is b''"),
    (BYTES | {256: b"a"}, [], None, ValueError, "ids 97 and 256 have the same bytes b'a'"),
    ({i: b for i, b in BYTES.items() if i != 7}, [], None, ValueError, r"lacks the single byte b'\\x07'"),
    (ABC, [(b"a", "b")], None, TypeError, r"merges\[0\] must be a pair of bytes"),
    (ABC, [(b"a", b"b", b"c")], None, TypeError, r"merges\[0\] must be a pair of bytes"),
    (ABC, [(b"a", b"b"), (b"ab", b"cd")], None, ValueError, r"merges\[1\].*b'cd' is not in the vocabulary"),
    (ABC, [(b"ab", b"c"), (b"a", b"b")], None, ValueError, r"merges\[0\].*b'ab' is neither a single byte nor made"),
    (ABC, [(b"a", b"b"), (b"b", b"c")], None, ValueError, r"merges\[1\] makes b'bc', which is not in the vocabulary"),
    (BYTES | {256: b"ab", 257: b"abab"}, [(b"a", b"b"), (b"a", b"b")], None, ValueError, "made already"),
    (BYTES | {256: b"abc", 257: b"ab"}, AB, None, ValueError, "ids out of order"),
    (BYTES | {256: b"bc", 257: b"ab", 258: b"abc"}, [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")], None,
     ValueError, r"merges\[2\].*BPE by ranks.*splits b'abc' into \[b'a', b'bc'\]"),
    (ABC | {258: b"xyz"}, AB, ["<s>"], ValueError, r"vocab\[258\] = b'xyz' is neither.*nor in special_tokens"),
    (ABC | {258: b"\xff\xfe"}, AB, None, ValueError, r"vocab\[258\].*nor valid UTF-8"),
    (ABC, AB, ["ab"], ValueError, "special token 'ab' is also an ordinary token"),
    (ABC, AB, "<s>", TypeError, "special_tokens must be a sequence of str"),
    (ABC, AB, ["<s>", "<s>"], ValueError, "special tokens must be distinct"),
])
def test_inconsistent_input_is_refused(vocab, merges, specials, error, match):
    with pytest.raises(error, match=match):
        ByteLevelBPETokenizer.from_vocab_merges(vocab, merges, special_tokens=specials)


def test_the_good_cases_of_the_error_table_pass():
    ranks, specials, merges = tables_from_vocab_merges(ABC | {258: b"<s>"}, AB)
    assert (ranks[b"abc"], specials, merges) == (257, {"<s>": 258}, [(97, 98), (256, 99)])
    with pytest.raises(TypeError, match="pattern must be str"):
        ByteLevelBPETokenizer.from_vocab_merges(ABC, AB, pattern=None)


# ---------------------------------------------------------------------------
# allowing_special
# ---------------------------------------------------------------------------


def test_allowing_special(tok):
    text = "a<|endoftext|>b<|pad|>"
    eot, pad = tok.special_tokens_map["<|endoftext|>"], tok.special_tokens_map["<|pad|>"]
    with pytest.raises(ValueError, match="disallowed special token"):
        tok.encode(text)
    trusted = tok.allowing_special()
    assert trusted.encode(text) == tok.encode(text, allowed_special="all")
    assert eot in trusted.encode(text) and pad in trusted.encode(text)
    assert trusted.encode(text, allowed_special=(), disallowed_special=()) == tok.encode(text, disallowed_special=())
    assert trusted.tokenize("<|pad|>") == ["<|pad|>"]
    # A subset: the others stay disallowed.
    only_eot = tok.allowing_special({"<|endoftext|>"})
    assert only_eot.encode("a<|endoftext|>") == tok.encode("a<|endoftext|>", allowed_special="all")
    with pytest.raises(ValueError, match="'<\\|pad\\|>'"):
        only_eot.encode(text)
    # The original is unchanged; the copy shares its tables.
    with pytest.raises(ValueError):
        tok.encode(text)
    assert trusted._ranks is tok._ranks and trusted.vocab == tok.vocab


def test_allowing_special_errors(tok):
    with pytest.raises(TypeError, match=r"such as \{'<\|pad\|>'\}"):
        tok.allowing_special("<|pad|>")
    with pytest.raises(ValueError, match="not special tokens of this tokenizer"):
        tok.allowing_special({"<nope>"})
    with pytest.raises(NotTrainedError):
        ByteLevelBPETokenizer().allowing_special()


def test_cs336_get_tokenizer_in_three_lines(tok):
    def get_tokenizer(vocab, merges, special_tokens=None):
        tok = ByteLevelBPETokenizer.from_vocab_merges(vocab, merges, special_tokens=special_tokens)
        return tok.allowing_special("all")

    cs = get_tokenizer(vocab_of(tok, specials=False), tok.merges, ["<|endoftext|>", "<|endoftext|><|endoftext|>"])
    text = "Hello, how <|endoftext|><|endoftext|> are you?<|endoftext|>"
    pieces = [cs.decode([i]) for i in cs.encode(text)]
    assert pieces.count("<|endoftext|>") == 1 and pieces.count("<|endoftext|><|endoftext|>") == 1
    assert cs.decode(cs.encode(text)) == text
    assert list(cs.encode_iterable(text.splitlines(keepends=True))) == cs.encode(text)
