"""tokref.bytelevel: byte-level BPE, checked against tiktoken and Hugging Face tokenizers.

- Encoding exactness: tokenizers trained here (GPT-2 and cl100k patterns, with and
  without special tokens) give the same ids as ``tiktoken.Encoding`` built from their
  ranks, and as their exported ``tokenizer.json`` in ``tokenizers``; the real
  ``cl100k_base``/``o200k_base`` give tiktoken's ids on a varied test set, on held-out
  corpus text and on Hypothesis-generated text.
- Special tokens with tiktoken's semantics.
- Round trips (Hypothesis), files, bad input, offsets.

tiktoken cannot download its rank files here, so every reference ``tiktoken.Encoding``
is built from the same ranks, pattern and special tokens as the tokref tokenizer.
"""

from __future__ import annotations

import base64
import gzip
import json

import pytest
import regex
import tiktoken
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

import tokref
from tokref import NotTrainedError, Token, TokenizerFileError
from tokref.bpe import BPETokenizer
from tokref.bytelevel import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    O200K_PATTERN,
    ByteLevelBPETokenizer,
    bpe_encode_piece,
    bytes_to_unicode,
    count_pretokens,
    load_openai_encoding,
    load_tiktoken_ranks,
)
from tokref.corpus import load_text, load_texts
from tokref.merges import count_pairs, merge_pair
from tokref.ranks import bpe_split_piece

PROPERTY = settings(max_examples=150, derandomize=True, deadline=None, database=None)

SPECIALS = ["<|endoftext|>", "<|fim_middle|>", "[MASK]"]

# A varied test set: prose, code, whitespace (runs, trailing, \r\n), digits, scripts,
# emoji with skin tones and ZWJ sequences, flags, and special-token text.
TEST_TEXTS = [
    "",
    " ",
    "Hello world",
    "The quick brown fox jumps over the lazy dog. It's 5 o'clock; they'll say I'm late.",
    "SHOUTING DON'T WON'T I'LL YOU'RE WE'VE HE'D",  # cl100k's case-insensitive contractions
    "def f(x):\n    return x ** 2  # square\n\n\tif x>0: print(f'{x!r}')\n",
    "for (int i = 0; i < n; ++i) { a[i] += b[i]; }",
    "trailing spaces   ",
    "   leading spaces",
    "many     inner     spaces",
    "line one\r\nline two\r\n\r\nline four\r\n",
    "\n\n\n",
    "\t\t x \n  \n",
    "a \n b  \n  c",
    "0 1 12 123 1234 12345 123456 3.14159 10,000,000 2024-05-13",
    "١٢٣٤ ٥٦ ١٠٠٠ and １２３ fullwidth",
    "東京は日本の首都です。東京タワーは高い。",
    "안녕하세요 세계",
    "مرحبا بالعالم، كيف حالك؟",
    "नमस्ते दुनिया, आप कैसे हैं?",
    "e\u0301 ñ Ω ß ﬁ İstanbul",
    "👍 👍🏽 👍🏿 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️ 🧑🏽‍💻",
    "🇯🇵🇺🇸🇫🇷 flags",
    "nbsp\u00a0here\u2028line\u2029para\ufeffbom \x00\x01\x7f",
    "a" * 500,
    " " * 300 + "x",
    "x" + "\n" * 40,
    "Hello<|endoftext|>World",
    "<|endoftext|><|endoftext|> <|fim_middle|>  tail  ",
    "a [MASK] b[MASK]c <|endoftext|>\r\n",
    "<|endoftext",  # almost a special token: plain text
]

# Training text: Shakespeare plus the scripts and emoji of the test set (so that merges
# join bytes inside multi-byte characters) and the special tokens.
TRAIN_TEXTS = [
    load_texts("train")[0][:60_000],
    ("東京は日本の首都です。 مرحبا بالعالم नमस्ते दुनिया 👍🏽 👨‍👩‍👧 🇯🇵 \r\n\r\n 123456 " * 20),
    ("def f(x):\n    return x\n<|endoftext|>" * 20),
]


def reference(tok: ByteLevelBPETokenizer) -> tiktoken.Encoding:
    """tiktoken's encoder for the same ranks, pattern and special tokens."""
    return tiktoken.Encoding(
        f"ref_{tok.name}",
        pat_str=tok.pattern,
        mergeable_ranks=tok.mergeable_ranks,
        special_tokens=tok.special_tokens_map,
    )


def hf_from_tokref(tok: ByteLevelBPETokenizer, path) -> tokenizers.Tokenizer:
    tok.save_huggingface(path)
    return tokenizers.Tokenizer.from_file(str(path))


TRAINED_CONFIGS = [
    ("gpt2", GPT2_PATTERN, ()),
    ("gpt2+specials", GPT2_PATTERN, SPECIALS),
    ("cl100k", CL100K_PATTERN, ()),
    ("cl100k+specials", CL100K_PATTERN, SPECIALS),
]


@pytest.fixture(scope="module", params=TRAINED_CONFIGS, ids=[c[0] for c in TRAINED_CONFIGS])
def trained(request, tmp_path_factory):
    """(tokref tokenizer, tiktoken reference, tokenizers reference) for one configuration."""
    name, pattern, specials = request.param
    tok = ByteLevelBPETokenizer().train(
        TRAIN_TEXTS, vocab_size=256 + 500 + len(specials), pattern=pattern, special_tokens=specials
    )
    hf = hf_from_tokref(tok, tmp_path_factory.mktemp(name) / "tokenizer.json")
    return tok, reference(tok), hf


@pytest.fixture(scope="module")
def small() -> ByteLevelBPETokenizer:
    return ByteLevelBPETokenizer().train(TRAIN_TEXTS, vocab_size=256 + 300 + 3, special_tokens=SPECIALS)


@pytest.fixture(scope="module")
def small_tk(small) -> tiktoken.Encoding:
    return reference(small)


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def real(request):
    enc = load_openai_encoding(request.param)
    return enc, reference(enc)


@pytest.fixture(scope="module")
def cl100k():
    enc = load_openai_encoding("cl100k_base")
    return enc, reference(enc)


# ---------------------------------------------------------------------------
# Encoding exactness: trained tokenizers
# ---------------------------------------------------------------------------


def test_trained_tokenizers_are_what_was_asked(trained):
    tok, _, _ = trained
    n_specials = len(tok.special_tokens_map)
    assert tok.vocab_size == 256 + 500 + n_specials
    assert len(tok.merges) == 500
    assert sorted(tok.special_tokens_map.values()) == list(range(756, 756 + n_specials))
    # The training text made merges inside multi-byte characters.
    assert any(b[0] >= 0x80 for b in tok.mergeable_ranks if len(b) > 1)


def test_trained_matches_tiktoken_on_test_set(trained):
    tok, tk, _ = trained
    for text in TEST_TEXTS:
        assert tok.encode_ordinary(text) == tk.encode_ordinary(text), text
        assert tok.encode(text, allowed_special="all") == tk.encode(text, allowed_special="all"), text


def test_trained_matches_tokenizers_json_on_test_set(trained):
    tok, _, hf = trained
    for text in TEST_TEXTS:
        assert tok.encode(text, allowed_special="all") == hf.encode(text).ids, text


def test_trained_matches_tiktoken_on_heldout_text(trained):
    tok, tk, _ = trained
    text = load_text("heldout")[:100_000]
    ids = tok.encode_ordinary(text)
    assert ids == tk.encode_ordinary(text)
    assert tok.decode(ids) == text


def test_trained_cold_cache_gives_the_same_ids(trained):
    tok, tk, _ = trained
    text = TEST_TEXTS[3] + TEST_TEXTS[16]
    tok.clear_cache()
    assert tok.encode_ordinary(text) == tk.encode_ordinary(text)
    assert tok.encode_ordinary(text) == tk.encode_ordinary(text)  # warm


def test_encoding_survives_cache_eviction(monkeypatch, small, small_tk):
    import tokref.bytelevel as bl

    monkeypatch.setattr(bl, "_CACHE_LIMIT", 3)
    small.clear_cache()
    text = load_text("heldout")[:5_000]
    assert small.encode_ordinary(text) == small_tk.encode_ordinary(text)
    assert len(small._cache) <= 3
    small.clear_cache()


@PROPERTY
@given(st.text(max_size=80))
def test_trained_matches_tiktoken_on_any_text(small, small_tk, text):
    assert small.encode_ordinary(text) == small_tk.encode_ordinary(text)


@PROPERTY
@given(st.lists(st.one_of(st.text(max_size=10), st.sampled_from(SPECIALS)), max_size=8))
def test_trained_matches_tiktoken_with_specials_inserted(small, small_tk, parts):
    text = "".join(parts)
    assert small.encode(text, allowed_special="all") == small_tk.encode(text, allowed_special="all")


def test_trained_o200k_pattern_matches_tiktoken(tmp_path):
    tok = ByteLevelBPETokenizer().train(TRAIN_TEXTS, vocab_size=256 + 200, pattern=O200K_PATTERN)
    tk = reference(tok)
    hf = hf_from_tokref(tok, tmp_path / "t.json")
    for text in TEST_TEXTS:
        assert tok.encode_ordinary(text) == tk.encode_ordinary(text) == hf.encode(text).ids, text


def test_pattern_with_capture_groups_uses_whole_matches():
    # tiktoken and tokenizers use whole matches; regex.findall would return the group.
    pattern = r"(\p{L}+)|\s+|."
    tok = ByteLevelBPETokenizer().train(["hello world, hello!"], vocab_size=256 + 10, pattern=pattern)
    text = "hello world, hello!"
    assert tok.decode(tok.encode(text)) == text
    assert tok.encode(text) == reference(tok).encode(text)
    assert not any(b" " in a + b for a, b in tok.merges)  # spaces are pre-tokens of their own


# ---------------------------------------------------------------------------
# Encoding exactness: the real encodings
# ---------------------------------------------------------------------------


def test_cl100k_hello_world(cl100k):
    enc, _ = cl100k
    assert enc.encode("Hello world") == [9906, 1917]
    assert enc.decode([9906, 1917]) == "Hello world"
    assert enc.special_tokens_map["<|endoftext|>"] == 100257
    assert enc.encode("<|endoftext|>", allowed_special="all") == [100257]


def test_real_encodings_match_tiktoken_on_test_set(real):
    enc, tk = real
    for text in TEST_TEXTS:
        assert enc.encode_ordinary(text) == tk.encode_ordinary(text), text
        assert enc.encode(text, allowed_special="all") == tk.encode(text, allowed_special="all"), text


def test_real_encodings_match_tiktoken_on_heldout_corpus(real):
    enc, tk = real
    text = load_text("heldout")
    ids = enc.encode_ordinary(text)
    assert ids == tk.encode_ordinary(text)
    assert enc.decode(ids) == text
    assert len(ids) < len(text) / 3  # sanity: a real vocabulary compresses English


@PROPERTY
@given(st.text(max_size=60))
def test_cl100k_matches_tiktoken_on_any_text(cl100k, text):
    enc, tk = cl100k
    assert enc.encode_ordinary(text) == tk.encode_ordinary(text)


def test_real_encoding_vocab_sizes(real):
    enc, tk = real
    assert enc.vocab_size == tk.n_vocab
    assert len(enc.mergeable_ranks) == len(tk.token_byte_values())


@pytest.fixture(scope="module")
def cl100k_hf(cl100k, tmp_path_factory):
    return hf_from_tokref(cl100k[0], tmp_path_factory.mktemp("cl100k") / "tokenizer.json")


def test_cl100k_exports_to_tokenizers(cl100k, cl100k_hf):
    # cl100k's ids have holes (100256 and 100261-100275 are unused); the exported
    # tokenizer.json must still give every special token its own id. And its pattern
    # has \p{N}{1,3}+, which tokenizers' regex engine reads differently unless rewritten.
    enc, _ = cl100k
    for text in TEST_TEXTS + ["<|fim_prefix|>a<|fim_suffix|>b<|endofprompt|>", "1234567"]:
        assert cl100k_hf.encode(text).ids == enc.encode(text, allowed_special="all"), text


@PROPERTY
@given(st.text(max_size=40))
def test_cl100k_export_matches_on_any_text(cl100k, cl100k_hf, text):
    enc, _ = cl100k
    # tokenizers always treats added tokens as special; tiktoken only when allowed.
    assert cl100k_hf.encode(text).ids == enc.encode(text, allowed_special="all")


def test_unused_ids_decode_to_nothing(cl100k):
    enc, _ = cl100k
    assert enc.vocab_size == 100277
    assert enc.decode_bytes([100256, 100261]) == b""
    assert enc.decode([9906, 100256, 1917]) == "Hello world"


# ---------------------------------------------------------------------------
# Special tokens: tiktoken's semantics
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["x <|endoftext|> y", "[MASK]", "a<|fim_middle|>"])
def test_disallowed_special_raises_like_tiktoken(small, small_tk, text):
    with pytest.raises(ValueError, match="allowed_special") as ours:
        small.encode(text)
    with pytest.raises(ValueError) as theirs:
        small_tk.encode(text)
    assert "disallowed special token" in str(ours.value) and "disallowed special token" in str(theirs.value)
    special = next(s for s in SPECIALS if s in text)
    assert repr(special) in str(ours.value)


def test_allowed_and_disallowed_special_match_tiktoken(small, small_tk):
    text = "a<|endoftext|>b[MASK] c<|fim_middle|>"
    cases = [
        dict(allowed_special="all"),
        dict(allowed_special={"<|endoftext|>"}, disallowed_special=()),
        dict(allowed_special={"[MASK]", "<|fim_middle|>"}, disallowed_special=()),
        dict(disallowed_special=()),
        dict(allowed_special=set(SPECIALS)),
    ]
    for kw in cases:
        assert small.encode(text, **kw) == small_tk.encode(text, **kw), kw
    assert small.encode(text, allowed_special="all").count(small.special_tokens_map["[MASK]"]) == 1
    # disallowed_special=() encodes special text as ordinary text, as encode_ordinary does.
    assert small.encode(text, disallowed_special=()) == small.encode_ordinary(text)
    assert small.encode_ordinary(text) == small_tk.encode_ordinary(text)
    assert not set(small.encode_ordinary(text)) & set(small.special_tokens_map.values())
    # An allowed token is fine even when another disallowed one is absent from the text.
    assert small.encode("a[MASK]", allowed_special={"[MASK]"}) == small_tk.encode("a[MASK]", allowed_special={"[MASK]"})
    with pytest.raises(ValueError, match="allowed_special"):
        small.encode(text, allowed_special={"[MASK]"})


def test_overlapping_special_tokens_match_tiktoken():
    # "xy" and "yz" overlap in "xyz". tiktoken refuses if a disallowed token occurs
    # anywhere, and cuts the text at the leftmost *allowed* token.
    tok = ByteLevelBPETokenizer().train(["xyz abc"], vocab_size=256 + 4, special_tokens=["xy", "yz", "ab", "bc"])
    tk = reference(tok)
    for text, kw in [
        ("xyz", dict(allowed_special={"yz"}, disallowed_special=())),
        ("xyz", dict(allowed_special={"xy"}, disallowed_special=())),
        ("abc", dict(allowed_special={"bc"}, disallowed_special=())),
        ("xyzabc", dict(allowed_special={"yz", "ab"}, disallowed_special=())),
    ]:
        assert tok.encode(text, **kw) == tk.encode(text, **kw), (text, kw)
    assert tok.encode("xyz", allowed_special={"yz"}, disallowed_special=()) == [ord("x"), tok.special_tokens_map["yz"]]
    for text, kw in [("abc", dict(allowed_special={"ab"})), ("xyz", dict(allowed_special={"yz"}))]:
        with pytest.raises(ValueError):
            tk.encode(text, **kw)
        with pytest.raises(ValueError, match="allowed_special"):
            tok.encode(text, **kw)


def test_nested_special_tokens_prefer_the_longest():
    tok = ByteLevelBPETokenizer().train(["abc"], vocab_size=256 + 2, special_tokens=["<s>", "<s>x"])
    ids = tok.encode("<s>x<s>", allowed_special="all")
    assert ids == [tok.special_tokens_map["<s>x"], tok.special_tokens_map["<s>"]]


def test_unknown_special_tokens_in_arguments(small):
    with pytest.raises(ValueError, match="not special tokens of this tokenizer"):
        small.encode("x", allowed_special={"<|nope|>"})
    with pytest.raises(ValueError, match="not special tokens of this tokenizer"):
        small.encode("x", disallowed_special={"<|nope|>"})


def test_special_tokens_in_training_text_are_not_merged(small):
    # "<|endoftext|>" occurs 20 times in the training text, but only as a special token.
    assert not any(b"<|" in b or b"|>" in b for b in small.mergeable_ranks)
    assert small.encode("<|endoftext|>", allowed_special="all") == [small.special_tokens_map["<|endoftext|>"]]


# ---------------------------------------------------------------------------
# Round trips (Hypothesis)
# ---------------------------------------------------------------------------


@PROPERTY
@given(st.text())
def test_decode_encode_round_trip_any_text(small, text):
    ids = small.encode(text, allowed_special="all")
    assert small.decode(ids) == text
    assert small.decode_bytes(ids) == text.encode("utf-8")


@PROPERTY
@given(st.lists(st.one_of(st.text(max_size=20), st.sampled_from(SPECIALS)), max_size=10))
def test_round_trip_with_special_tokens_inserted(small, parts):
    text = "".join(parts)
    ids = small.encode(text, allowed_special="all")
    assert small.decode(ids) == text
    n_special = sum(ids.count(i) for i in small.special_tokens_map.values())
    assert n_special == sum(text.count(s) for s in SPECIALS)
    assert small.decode(small.encode(text, disallowed_special=())) == text


@PROPERTY
@given(st.lists(st.integers(0, 558), max_size=30))
def test_decode_bytes_of_any_ids(small, small_tk, ids):
    # Any id sequence decodes to the concatenation of its tokens' bytes; decode is that,
    # with invalid UTF-8 replaced (ids can split a character).
    raw = b"".join(small.decode_single_token_bytes(i) for i in ids)
    assert small.decode_bytes(ids) == raw
    assert small.decode(ids) == raw.decode("utf-8", errors="replace")
    assert small.decode(ids) == small_tk.decode(ids)
    assert small.decode_bytes(ids) == small_tk.decode_bytes(ids)


@PROPERTY
@given(st.binary(max_size=40))
def test_bpe_encode_piece_round_trips_bytes(small, data):
    ranks = small.mergeable_ranks
    ids = bpe_encode_piece(data, ranks)
    assert small.decode_bytes(ids) == data
    assert (ids == []) == (data == b"")


# ---------------------------------------------------------------------------
# Offsets
# ---------------------------------------------------------------------------


def check_offsets(tok, text, **kw):
    toks = tok.encode_with_offsets(text, **kw)
    assert [t.id for t in toks] == tok.encode(text, **kw)
    if not text:
        assert toks == []
        return toks
    assert toks[0].start == 0 and toks[-1].end == len(text)
    for prev, t in zip(toks, toks[1:]):
        # Spans are contiguous, except that tokens inside one character share its span.
        assert t.start in (prev.end, prev.end - 1), (prev, t)
        assert t.start <= t.end
    for t in toks:
        assert 0 <= t.start < t.end <= len(text)
        # The token's bytes are found in the UTF-8 of its span.
        assert tok.decode_single_token_bytes(t.id) in text[t.start : t.end].encode("utf-8")
        assert t.piece == tok.id_to_token(t.id)
    return toks


@pytest.mark.parametrize("text", TEST_TEXTS)
def test_offsets_cover_the_text(small, text):
    check_offsets(small, text, allowed_special="all")


@PROPERTY
@given(st.text(max_size=40))
def test_offsets_cover_any_text(cl100k, text):
    check_offsets(cl100k[0], text, disallowed_special=())


def test_offsets_when_bpe_splits_a_character():
    # Trained on one emoji with one merge: its 4 bytes F0 9F 98 80 become (F0 9F), 98,
    # 80 -- (F0, 9F) wins the three-way tie as the greatest bytes. All three tokens get
    # the span of the whole character.
    tok = ByteLevelBPETokenizer().train(["😀"], vocab_size=257)
    assert tok.merges == [(b"\xf0", b"\x9f")]
    toks = tok.encode_with_offsets("a😀b")
    assert [(t.start, t.end) for t in toks] == [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)]
    assert [t.piece for t in toks] == ["a", "\\xf0\\x9f", "\\x98", "\\x80", "b"]
    # Whole characters: "éé" is C3 A9 C3 A9; (C3, A9) 2 beats (A9, C3) 1.
    tok2 = ByteLevelBPETokenizer().train(["éé"], vocab_size=257)
    assert tok2.merges == [(b"\xc3", b"\xa9")]
    assert [(t.start, t.end) for t in tok2.encode_with_offsets("éé")] == [(0, 1), (1, 2)]
    # A token that ends inside one character and starts inside another: a rank table
    # (as from_tiktoken accepts) whose only multi-byte token is A9 C3.
    tok4 = ByteLevelBPETokenizer.from_tiktoken(
        {**{bytes([i]): i for i in range(256)}, b"\xa9\xc3": 256}, pattern=r"\X+"
    )
    # "éé" is C3 [A9 C3] A9: the middle token spans the end of one é and the start of
    # the next, so it gets both characters.
    toks = tok4.encode_with_offsets("éé")
    assert [t.id for t in toks] == [0xC3, 256, 0xA9]
    assert [(t.start, t.end) for t in toks] == [(0, 1), (0, 2), (1, 2)]


def test_offsets_of_special_tokens(small):
    text = "hi<|endoftext|>there"
    toks = small.encode_with_offsets(text, allowed_special="all")
    eot = next(t for t in toks if t.id == small.special_tokens_map["<|endoftext|>"])
    assert text[eot.start : eot.end] == "<|endoftext|>"
    assert isinstance(eot, Token)


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def test_save_load_round_trip_trained(trained, tmp_path):
    tok, tk, _ = trained
    path = tmp_path / "tok.json"
    tok.save(path)
    for back in (tokref.load(path), ByteLevelBPETokenizer.load(path)):
        assert type(back) is ByteLevelBPETokenizer
        assert back.merges == tok.merges
        assert back.mergeable_ranks == tok.mergeable_ranks
        assert back.special_tokens_map == tok.special_tokens_map
        assert back.pattern == tok.pattern
        for text in TEST_TEXTS:
            assert back.encode(text, allowed_special="all") == tk.encode(text, allowed_special="all")


def test_save_load_round_trip_from_tiktoken(cl100k, tmp_path):
    enc, tk = cl100k
    path = tmp_path / "cl100k.json"
    enc.save(path)
    back = tokref.load(path)
    assert back.name == "cl100k_base" and back.merges == []
    assert back.mergeable_ranks == enc.mergeable_ranks
    assert back.special_tokens_map == enc.special_tokens_map
    assert back.encode("Hello world") == [9906, 1917]
    text = load_text("heldout")[:20_000]
    assert back.encode_ordinary(text) == tk.encode_ordinary(text)


def test_from_tiktoken_recovers_the_merges(small):
    # A rank table does not list merges, but they can be recovered from it.
    imported = ByteLevelBPETokenizer.from_tiktoken(
        small.mergeable_ranks, pattern=small.pattern, special_tokens=small.special_tokens_map
    )
    assert imported.merges == []
    assert imported.merges_from_ranks() == small.merges
    assert imported.encode(TEST_TEXTS[3]) == small.encode(TEST_TEXTS[3])


def test_tiktoken_file_plain_and_gzipped(small, tmp_path):
    lines = [f"{base64.b64encode(b).decode()} {r}" for b, r in small.mergeable_ranks.items()]
    plain, gz = tmp_path / "t.tiktoken", tmp_path / "t.tiktoken.gz"
    plain.write_text("\n".join(lines) + "\n")
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, gz):
        assert load_tiktoken_ranks(path) == small.mergeable_ranks
        tok = ByteLevelBPETokenizer.from_tiktoken(path, pattern=GPT2_PATTERN)
        assert tok.encode(TEST_TEXTS[3]) == small.encode(TEST_TEXTS[3])


@pytest.mark.parametrize("line", ["not-base64!! 3", "YQ==", "YQ== x", "YQ== -1", "YQ== 1 2"])
def test_corrupt_tiktoken_file(tmp_path, line):
    path = tmp_path / "bad.tiktoken"
    path.write_text(f"YQ== 0\n{line}\n")
    with pytest.raises(TokenizerFileError, match="line 2"):
        load_tiktoken_ranks(path)


def test_gpt2_files_round_trip(trained, tmp_path):
    tok, tk, _ = trained
    v, m = tmp_path / "vocab.json", tmp_path / "merges.txt"
    tok.save_gpt2_files(v, m)
    back = ByteLevelBPETokenizer.from_gpt2_files(v, m, pattern=tok.pattern)
    assert back.mergeable_ranks == tok.mergeable_ranks
    assert back.special_tokens_map == tok.special_tokens_map
    assert back.merges_from_ranks() == tok.merges
    lines = m.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "#version: 0.2" and len(lines) == 1 + len(tok.merges)
    for text in TEST_TEXTS:
        assert back.encode(text, allowed_special="all") == tk.encode(text, allowed_special="all")


def write_gpt2_files(tmp_path, vocab: dict, merges: str):
    v, m = tmp_path / "vocab.json", tmp_path / "merges.txt"
    v.write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    m.write_text(merges, encoding="utf-8")
    return v, m


def small_gpt2_vocab() -> dict[str, int]:
    # Hand-written, in GPT-2's format: bytes_to_unicode characters, Ġ for a space.
    vocab = {c: b for b, c in bytes_to_unicode().items()}
    vocab.update({"Ġt": 256, "he": 257, "Ġthe": 258, "<|endoftext|>": 259})
    return vocab


def test_hand_written_gpt2_files(tmp_path):
    v, m = write_gpt2_files(tmp_path, small_gpt2_vocab(), "#version: 0.2\nĠ t\nh e\nĠt he\n")
    tok = ByteLevelBPETokenizer.from_gpt2_files(v, m)
    assert tok.special_tokens_map == {"<|endoftext|>": 259}
    assert tok.merges_from_ranks() == [(b" ", b"t"), (b"h", b"e"), (b" t", b"he")]
    assert tok.encode("the the") == [ord("t"), 257, 258]
    assert tok.encode("<|endoftext|>", allowed_special="all") == [259]
    assert tok.decode([258, 259]) == " the<|endoftext|>"
    assert tok.encode("the the") == reference(tok).encode("the the")


@pytest.mark.parametrize(
    "change, merges, match",
    [
        ("dup_id", None, "distinct"),
        ("special_on_merge_id", None, "already uses"),
        ("negative", None, "int >= 0"),
        ("huge", None, "nearly contiguous"),
        ("missing_byte", None, "lacks tokens"),
        ("list", None, "must map token strings to int ids"),
        ("str_id", None, "must map token strings to int ids"),
        (None, "#version: 0.2\nĠ t x\n", "expected two tokens"),
        (None, "#version: 0.2\nĠt he\n", "no earlier merge made"),
        (None, "#version: 0.2\nĠ 東\n", "outside GPT-2's byte table"),
    ],
)
def test_corrupt_gpt2_files(tmp_path, change, merges, match):
    vocab = small_gpt2_vocab()
    if change == "dup_id":
        vocab["he"] = 256
    elif change == "special_on_merge_id":
        vocab["<|endoftext|>"] = 257
    elif change == "negative":
        vocab["<|endoftext|>"] = -1
    elif change == "huge":
        vocab["<|endoftext|>"] = 10**12  # must not allocate a list of 10**12 entries
    elif change == "missing_byte":
        del vocab["h"]
    elif change == "list":
        vocab = list(vocab)
    elif change == "str_id":
        vocab["he"] = "257"
    v, m = write_gpt2_files(tmp_path, vocab, merges or "#version: 0.2\nĠ t\nh e\nĠt he\n")
    with pytest.raises(TokenizerFileError, match=match):
        ByteLevelBPETokenizer.from_gpt2_files(v, m)


def test_gpt2_files_that_are_not_text(tmp_path):
    v, m = write_gpt2_files(tmp_path, small_gpt2_vocab(), "#version: 0.2\nĠ t\n")
    m.write_bytes(b"#version: 0.2\n\xff\xfe t\n")
    with pytest.raises(TokenizerFileError, match="not UTF-8"):
        ByteLevelBPETokenizer.from_gpt2_files(v, m)
    v.write_bytes(b"{not json")
    with pytest.raises(TokenizerFileError, match="not a JSON vocabulary"):
        ByteLevelBPETokenizer.from_gpt2_files(v, m)


def corrupt_config(tok, mutate):
    data = json.loads(json.dumps(tok.to_dict()))
    mutate(data["config"])
    return data


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda c: c.pop("pattern"), "'pattern'"),
        (lambda c: c.update(pattern="(unclosed"), "not a valid regex"),
        (lambda c: c.update(pattern=3), "must be strings"),
        (lambda c: c.update(special_tokens=["<|endoftext|>"]), "special_tokens"),
        (lambda c: c.update(special_tokens={"<|endoftext|>": -1}), "special_tokens"),
        (lambda c: c.update(special_tokens={"<|endoftext|>": 10**12}), "nearly contiguous"),
        (lambda c: c.update(special_tokens={"<|endoftext|>": 300}), "already uses"),
        (lambda c: c.update(merges=None, ranks=None), "neither 'merges' nor 'ranks'"),
        (lambda c: c.update(merges="6162"), "list"),
        (lambda c: c["merges"].__setitem__(0, ["zz", "61"]), "tokenizer file"),
        (lambda c: c["merges"].__setitem__(0, ["61"]), "pair of hex"),
        (lambda c: c["merges"].__setitem__(0, ["6162", "63"]), "no earlier merge"),
        (lambda c: c["merges"].append(c["merges"][0]), "already exists"),
    ],
)
def test_corrupt_tokref_file(small, tmp_path, mutate, match):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(corrupt_config(small, mutate)))
    with pytest.raises(TokenizerFileError, match=match):
        tokref.load(path)


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda c: c["ranks"].__setitem__(0, ["00", -1]), r"\[hex, int\]"),
        (lambda c: c["ranks"].pop(0), "all 256 bytes"),
        (lambda c: c["ranks"].append(["abcd", 5]), "distinct"),
    ],
)
def test_corrupt_rank_table_file(small, tmp_path, mutate, match):
    imported = ByteLevelBPETokenizer.from_tiktoken(small.mergeable_ranks, pattern=small.pattern)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(corrupt_config(imported, mutate)))
    with pytest.raises(TokenizerFileError, match=match):
        tokref.load(path)


def test_loading_another_tokenizer_type_is_refused(tmp_path):
    path = tmp_path / "bpe.json"
    BPETokenizer().train("low lower", vocab_size=20).save(path)
    with pytest.raises(TokenizerFileError, match="not a ByteLevelBPETokenizer"):
        ByteLevelBPETokenizer.load(path)


# ---------------------------------------------------------------------------
# Bad input and the untrained state
# ---------------------------------------------------------------------------


def test_vocab_size_too_small():
    with pytest.raises(ValueError, match=r"vocab_size = 255 is too small.*need 256"):
        ByteLevelBPETokenizer().train("abc", vocab_size=255)
    with pytest.raises(ValueError, match=r"2 special tokens need 258"):
        ByteLevelBPETokenizer().train("abc", vocab_size=257, special_tokens=["<a>", "<b>"])
    # Exactly the bytes: no merges.
    assert ByteLevelBPETokenizer().train("abc", vocab_size=256).merges == []


@pytest.mark.parametrize("vocab_size", [300.0, "300", True, None])
def test_vocab_size_must_be_int(vocab_size):
    with pytest.raises(TypeError, match="vocab_size must be int"):
        ByteLevelBPETokenizer().train("abc", vocab_size=vocab_size)


@pytest.mark.parametrize("texts", [b"abc", 3, None, ["ok", 5], {"a": 1}])
def test_training_texts_must_be_str(texts):
    with pytest.raises(TypeError, match="must be"):
        ByteLevelBPETokenizer().train(texts, vocab_size=300)


def test_training_on_nothing():
    with pytest.raises(ValueError, match="empty corpus"):
        ByteLevelBPETokenizer().train(["", ""], vocab_size=300)


def test_bad_special_tokens_and_pattern():
    with pytest.raises(ValueError, match="distinct"):
        ByteLevelBPETokenizer().train("abc", vocab_size=300, special_tokens=["<a>", "<a>"])
    with pytest.raises(ValueError, match="empty string"):
        ByteLevelBPETokenizer().train("abc", vocab_size=300, special_tokens=[""])
    with pytest.raises(TypeError, match="sequence of str"):
        ByteLevelBPETokenizer().train("abc", vocab_size=300, special_tokens="<a>")
    with pytest.raises(TypeError, match="pattern must be str"):
        ByteLevelBPETokenizer().train("abc", vocab_size=300, pattern=None)
    with pytest.raises(regex.error):
        ByteLevelBPETokenizer().train("abc", vocab_size=300, pattern="(")


def test_encode_bad_text(small):
    with pytest.raises(TypeError, match=r"text must be str, not bytes; decode it first"):
        small.encode(b"abc")
    with pytest.raises(TypeError, match="text must be str, not int"):
        small.encode_ordinary(3)
    with pytest.raises(TypeError, match="text must be str, not NoneType"):
        small.encode_with_offsets(None)


def test_decode_bad_ids(small):
    n = small.vocab_size
    with pytest.raises(ValueError, match=rf"ids\[1\] = {n} is not a token id.*0\.\.{n - 1}"):
        small.decode([1, n])
    with pytest.raises(ValueError, match="is not a token id"):
        small.decode([-1])
    with pytest.raises(TypeError, match="must be int, not float"):
        small.decode([1.0])
    with pytest.raises(TypeError, match="must be a list of int, not str"):
        small.decode("12")
    with pytest.raises(TypeError, match="to decode one id, pass \\[id\\]"):
        small.decode(5)
    with pytest.raises(ValueError, match="is not a token id"):
        small.decode_single_token_bytes(n)


def test_token_lookups(small):
    assert small.token_to_id(b"a") == ord("a")
    assert small.token_to_id("<|endoftext|>") == small.special_tokens_map["<|endoftext|>"]
    first = small.merges[0]
    assert small.token_to_id(first[0] + first[1]) == 256
    assert small.id_to_token(256) == (first[0] + first[1]).decode("utf-8", "backslashreplace")
    assert small.id_to_token(0xC3) == "\\xc3"
    with pytest.raises(KeyError, match="not a token"):
        small.token_to_id("definitely not a single token")
    with pytest.raises(TypeError, match="token must be str or bytes"):
        small.token_to_id(3)
    with pytest.raises(TypeError, match="id must be int"):
        small.id_to_token("a")


@pytest.mark.parametrize(
    "use",
    [
        lambda t: t.encode("x"),
        lambda t: t.encode_ordinary("x"),
        lambda t: t.encode_with_offsets("x"),
        lambda t: t.decode([1]),
        lambda t: t.decode_bytes([1]),
        lambda t: t.merges,
        lambda t: t.mergeable_ranks,
        lambda t: t.vocab_size,
        lambda t: t.to_huggingface(),
        lambda t: t.save("never-written.json"),
        lambda t: t.save_gpt2_files("never-v.json", "never-m.txt"),
        lambda t: t.vocab,
        lambda t: t.pieces,
        lambda t: t.merge_ids,
        lambda t: t.token_bytes,
        lambda t: t.tie_key(1),
        lambda t: t.truncated(1),
        lambda t: t.unk_id,
    ],
)
def test_untrained_use_says_train_first(use, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NotTrainedError, match=r"call \.train\(texts\) first"):
        use(ByteLevelBPETokenizer())
    assert list(tmp_path.iterdir()) == []


def test_from_tiktoken_bad_ranks():
    ranks = {bytes([i]): i for i in range(256)}
    with pytest.raises(ValueError, match="lack single bytes"):
        ByteLevelBPETokenizer.from_tiktoken({b"a": 0}, pattern=GPT2_PATTERN)
    with pytest.raises(ValueError, match="distinct"):
        ByteLevelBPETokenizer.from_tiktoken({**ranks, b"ab": 5}, pattern=GPT2_PATTERN)
    with pytest.raises(TypeError, match="bytes to int"):
        ByteLevelBPETokenizer.from_tiktoken({**ranks, "ab": 256}, pattern=GPT2_PATTERN)
    with pytest.raises(TypeError, match="ranks_or_path"):
        ByteLevelBPETokenizer.from_tiktoken([1, 2], pattern=GPT2_PATTERN)
    with pytest.raises(ValueError, match="ids must be int >= 0"):
        ByteLevelBPETokenizer.from_tiktoken(ranks, pattern=GPT2_PATTERN, special_tokens={"<s>": -3})


def test_load_openai_encoding_unknown_name():
    with pytest.raises(ValueError, match="unknown encoding 'gpt5'.*cl100k_base"):
        load_openai_encoding("gpt5")


def test_repr():
    assert repr(ByteLevelBPETokenizer()) == "ByteLevelBPETokenizer(untrained)"
    assert repr(ByteLevelBPETokenizer().train("ab", vocab_size=257)) == "ByteLevelBPETokenizer(vocab_size=257)"


def test_patterns_and_specials_are_tiktokens(monkeypatch):
    # tiktoken's constructors download the rank files; with the download stubbed out they
    # still give the pattern and special tokens to compare with.
    import tiktoken_ext.openai_public as op

    from tokref.bytelevel import OPENAI_ENCODINGS

    monkeypatch.setattr(op, "load_tiktoken_bpe", lambda *a, **k: {})
    assert GPT2_PATTERN == op.r50k_base()["pat_str"] == op.r50k_pat_str
    for name, ctor in [("cl100k_base", op.cl100k_base), ("o200k_base", op.o200k_base)]:
        spec = ctor()
        assert OPENAI_ENCODINGS[name]["pattern"] == spec["pat_str"]
        assert OPENAI_ENCODINGS[name]["special_tokens"] == spec["special_tokens"]
    assert CL100K_PATTERN == op.cl100k_base()["pat_str"]
    assert O200K_PATTERN == op.o200k_base()["pat_str"]


# ---------------------------------------------------------------------------
# The vocabulary as strings: pieces and vocab are Hugging Face's
# ---------------------------------------------------------------------------


def test_vocab_is_what_tokenizers_gives(trained):
    tok, _, hf = trained
    assert hf.get_vocab() == tok.vocab
    loaded = tokenizers.Tokenizer.from_str(json.dumps(tok.to_huggingface()))
    assert loaded.get_vocab() == tok.vocab
    assert len(tok.vocab) == tok.vocab_size == len(tok.pieces)


def test_vocab_of_a_real_encoding_is_what_tokenizers_gives(cl100k, cl100k_hf):
    enc, _ = cl100k
    assert cl100k_hf.get_vocab() == enc.vocab
    # The unused ids (100256, 100261-100275) have no entry, and an empty piece.
    holes = [i for i in range(enc.vocab_size) if enc.token_bytes[i] == b""]
    assert holes == [100256, *range(100261, 100276)]
    assert len(enc.vocab) == enc.vocab_size - len(holes)
    assert not set(holes) & set(enc.vocab.values())
    assert all(enc.pieces[i] == "" for i in holes)


def test_pieces_are_gpt2_strings_of_the_token_bytes(small):
    table = bytes_to_unicode()
    pieces, token_bytes, specials = small.pieces, small.token_bytes, small.special_tokens_map
    assert len(pieces) == len(token_bytes) == small.vocab_size
    for i, (p, b) in enumerate(zip(pieces, token_bytes)):
        if i in specials.values():
            assert p.encode("utf-8") == b and specials[p] == i
        else:
            assert p == "".join(table[x] for x in b)
        assert small.vocab[p] == i  # pieces[i] is the key of id i
    assert pieces[ord(" ")] == "Ġ" and pieces[ord("\n")] == "Ċ" and pieces[ord("a")] == "a"
    # id_to_token keeps its readable form: the text of the bytes, not the piece.
    assert small.id_to_token(ord(" ")) == " " and small.id_to_token(0xC3) == "\\xc3"
    assert small.tokenize("a b") == ["a", " b"]


def test_vocab_and_pieces_survive_files(small, tmp_path):
    path = tmp_path / "tok.json"
    small.save(path)
    back = tokref.load(path)
    assert back.vocab == small.vocab and back.pieces == small.pieces
    assert back.token_bytes == small.token_bytes and back.merge_ids == small.merge_ids
    v, m = tmp_path / "vocab.json", tmp_path / "merges.txt"
    small.save_gpt2_files(v, m)
    assert json.loads(v.read_text(encoding="utf-8")) == small.vocab


def test_pieces_and_vocab_are_copies(small):
    small.pieces.append("not a piece")  # a space is never in a piece: it is written Ġ
    small.vocab["not a piece"] = 1
    small.token_bytes.append(b"x")
    assert "not a piece" not in small.vocab
    assert len(small.pieces) == len(small.token_bytes) == small.vocab_size


def test_a_special_token_keeps_its_name_when_a_piece_has_the_same(tmp_path):
    # "a" is also the piece of byte 97; in the vocabulary the special token wins, as in
    # the vocab of the exported tokenizer.json.
    tok = ByteLevelBPETokenizer().train(["abc"], vocab_size=256 + 1, special_tokens=["a"])
    assert tok.vocab["a"] == tok.special_tokens_map["a"] == 256
    assert tok.pieces[97] == tok.pieces[256] == "a"
    assert tok.to_huggingface()["model"]["vocab"]["a"] == 256


def test_byte_level_bpe_has_no_unknown_token():
    # Nothing is unknown: not even a token spelled "<unk>", nor a special token "<unk>".
    merged = ByteLevelBPETokenizer().train(["<unk> " * 50], vocab_size=256 + 4, pattern=r"\S+|\s+")
    special = ByteLevelBPETokenizer().train(["abc"], vocab_size=256 + 1, special_tokens=["<unk>"])
    assert b"<unk>" in merged.mergeable_ranks
    for tok in (merged, special):
        assert "<unk>" in tok.vocab
        assert tok.unk_token is None and tok.unk_id is None
        assert tokref.measure(tok, "plain text").unk_rate == 0
    assert merged.encode("<unk>") == [merged.vocab["<unk>"]]


# ---------------------------------------------------------------------------
# The merge explorer's surface: merge_ids, token_bytes, tie_key, truncated
# ---------------------------------------------------------------------------


def test_merge_ids_token_bytes_and_tie_key(small):
    by_bytes = [(small.token_to_id(a), small.token_to_id(b), 256 + k) for k, (a, b) in enumerate(small.merges)]
    assert small.merge_ids == by_bytes
    tb = small.token_bytes
    assert [(tb[a], tb[b]) for a, b, _ in small.merge_ids] == small.merges
    assert all(tb[new] == tb[a] + tb[b] for a, b, new in small.merge_ids)
    assert tb[small.special_tokens_map["[MASK]"]] == b"[MASK]"
    assert [small.tie_key(i) for i in range(small.vocab_size)] == tb
    with pytest.raises(TypeError, match="id must be int"):
        small.tie_key("a")
    with pytest.raises(ValueError, match="is not a token id"):
        small.tie_key(small.vocab_size)


def test_merge_ids_follow_the_trace():
    tok = ByteLevelBPETokenizer().train(TRAIN_TEXTS[:2], vocab_size=256 + 40, trace=True)
    assert tok.merge_ids == [(s.pair[0], s.pair[1], s.new_id) for s in tok.trace]
    # The tie rule compares tie_key: at every step, the merged pair beats each pair that
    # had the same count then (recounted from the words, merge by merge).
    counts = count_pretokens(TRAIN_TEXTS[:2], regex.compile(tok.pattern))
    words = {tuple(w.encode("utf-8")): c for w, c in counts.items()}
    for a, b, new in tok.merge_ids:
        pairs = count_pairs(words)
        top = max(pairs.values())
        tied = [p for p, c in pairs.items() if c == top]
        assert (a, b) == max(tied, key=lambda p: (tok.tie_key(p[0]), tok.tie_key(p[1])))
        words = {tuple(merge_pair(list(w), (a, b), new)): c for w, c in words.items()}


def test_merge_ids_of_a_rank_table_are_empty(cl100k, small):
    assert cl100k[0].merge_ids == []
    imported = ByteLevelBPETokenizer.from_tiktoken(small.mergeable_ranks, pattern=small.pattern)
    assert imported.merge_ids == [] and imported.token_bytes[:256 + 300] == small.token_bytes[:256 + 300]


@pytest.fixture(scope="module")
def traced():
    specials = ["<|endoftext|>", "[MASK]"]
    full = ByteLevelBPETokenizer().train(
        TRAIN_TEXTS, vocab_size=256 + len(specials) + 80, special_tokens=specials, trace=True
    )
    return full, specials


@pytest.mark.parametrize("k", [0, 1, 2, 17, 79, 80])
def test_truncated_is_training_stopped_early(traced, k):
    full, specials = traced
    fresh = ByteLevelBPETokenizer().train(
        TRAIN_TEXTS, vocab_size=256 + len(specials) + k, special_tokens=specials, trace=True
    )
    cut = full.truncated(k)
    assert cut.to_dict() == fresh.to_dict()
    assert cut.trace == fresh.trace == full.trace[:k]
    assert cut.special_tokens_map == {s: 256 + k + i for i, s in enumerate(specials)}
    assert cut.vocab == fresh.vocab and cut.pieces == fresh.pieces
    assert cut.merge_ids == full.merge_ids[:k]
    for text in TEST_TEXTS:
        assert cut.encode(text, allowed_special="all") == fresh.encode(text, allowed_special="all"), text
    assert type(cut) is ByteLevelBPETokenizer and cut is not full


def test_truncated_keeps_everything_when_asked_for_more(traced, tmp_path):
    full, _ = traced
    assert full.truncated(10**6).to_dict() == full.to_dict()
    # A loaded tokenizer has its merges (not its trace).
    path = tmp_path / "t.json"
    full.save(path)
    back = tokref.load(path)
    assert back.truncated(5).to_dict() == full.truncated(5).to_dict()
    assert back.truncated(5).trace is None


def test_truncated_encodes_like_bpe_encode_piece_with_max_rank(traced):
    full, _ = traced
    ranks = full.mergeable_ranks
    for k in (0, 3, 40):
        cut_ranks = full.truncated(k).mergeable_ranks
        for word in ["the", " thee", "東京", "👍🏽", "abracadabra"]:
            piece = word.encode("utf-8")
            assert bpe_encode_piece(piece, ranks, max_rank=256 + k) == bpe_encode_piece(piece, cut_ranks)


def test_truncated_needs_a_merge_list(cl100k, small):
    with pytest.raises(ValueError, match="rank table.*train one.*bpe_encode_piece"):
        cl100k[0].truncated(10)
    imported = ByteLevelBPETokenizer.from_tiktoken(small.mergeable_ranks, pattern=small.pattern)
    with pytest.raises(ValueError, match="merge list"):
        imported.truncated(0)
    # A table of the 256 bytes alone is the tokenizer before any merge.
    bytes_only = ByteLevelBPETokenizer.from_tiktoken(
        {bytes([i]): i for i in range(256)}, pattern=GPT2_PATTERN, special_tokens={"<s>": 300}
    )
    assert bytes_only.truncated(3).special_tokens_map == {"<s>": 256}
    with pytest.raises(ValueError, match="n_merges must be >= 0"):
        small.truncated(-1)
    with pytest.raises(TypeError, match="n_merges must be int"):
        small.truncated(True)


# ---------------------------------------------------------------------------
# bpe_encode_piece with max_rank, and the rank file reader
# ---------------------------------------------------------------------------


@PROPERTY
@given(st.binary(max_size=30), st.integers(0, 600))
def test_max_rank_is_the_table_cut_there(small, data, max_rank):
    ranks = small.mergeable_ranks
    cut = {b: r for b, r in ranks.items() if r < max_rank or len(b) == 1}
    ids = bpe_encode_piece(data, ranks, max_rank=max_rank)
    assert ids == bpe_encode_piece(data, cut)
    tb = small.token_bytes
    assert bpe_split_piece(data, ranks, max_rank=max_rank) == [tb[i] for i in ids]


def test_max_rank_on_a_real_table(cl100k):
    ranks = cl100k[0].mergeable_ranks
    piece = " tokenization".encode()
    assert bpe_encode_piece(piece, ranks, max_rank=2**40) == bpe_encode_piece(piece, ranks)
    assert len(bpe_encode_piece(piece, ranks, max_rank=0)) == len(piece)
    with pytest.raises(TypeError, match="max_rank must be int"):
        bpe_encode_piece(piece, ranks, max_rank="3")
    with pytest.raises(ValueError, match="max_rank must be >= 0"):
        bpe_encode_piece(piece, ranks, max_rank=-1)


@pytest.mark.parametrize(
    "layout",
    ["canonical", "no final newline", "crlf", "blank lines", "tabs", "non-canonical base64", "gzip"],
)
def test_tiktoken_file_layouts_read_alike(small, tmp_path, layout):
    # tiktoken's own layout takes a fast path; every other one the line-by-line reader.
    ranks = small.mergeable_ranks
    lines = [f"{base64.b64encode(b).decode()} {r}" for b, r in ranks.items()]
    text = "\n".join(lines) + "\n"
    if layout == "no final newline":
        text = text[:-1]
    elif layout == "crlf":
        text = text.replace("\n", "\r\n")
    elif layout == "blank lines":
        text = "\n" + text.replace("\n", "\n\n", 3)
    elif layout == "tabs":
        text = text.replace(" ", "\t")
    elif layout == "non-canonical base64":
        text = text.replace("YQ== 97", "YR== 97")  # b"a" with non-zero padding bits
    path = tmp_path / "t.tiktoken"
    raw = text.encode()
    path.write_bytes(gzip.compress(raw) if layout == "gzip" else raw)
    assert load_tiktoken_ranks(path) == ranks


def test_split_special_is_the_shared_one():
    import tokref.base
    import tokref.bytelevel

    assert tokref.bytelevel.split_special is tokref.base.split_special
    assert "split_special" in tokref.bytelevel.__all__


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "x \ud83d\ude00 y", "\udc80\udc80<|endoftext|>"])
def test_lone_surrogates_become_replacement_characters_as_in_tiktoken(small, small_tk, text):
    # A str can hold surrogates that have no UTF-8 form; tiktoken replaces them with
    # U+FFFD (and joins a valid pair) instead of failing, and so does tokref.
    assert small.encode_ordinary(text) == small_tk.encode_ordinary(text)
    assert small.encode(text, allowed_special="all") == small_tk.encode(text, allowed_special="all")
    assert list(small.encode_iterable([text[:1], text[1:]], allowed_special="all")) == \
        small_tk.encode(text, allowed_special="all")
