"""tokref.stream and ByteLevelBPETokenizer.encode_iterable: streaming gives the ids of the
whole text, however the input is cut, in bounded memory.

- The safe-cut rule, on every short string of one character of each class the patterns
  distinguish, and against a restatement of it as a regex of positions.
- encode_iterable == encode("".join(chunks)) under Hypothesis (random texts from an
  alphabet of the hard cases, random cuts, str or bytes chunks, tiny blocks so that the
  streamer really cuts) for tokenizers trained with the GPT-2, cl100k, o200k and stdlib
  patterns and a custom one, and for the real cl100k_base and o200k_base; special tokens
  cut in half, CRLF cut between \\r and \\n, characters cut between bytes, whitespace runs,
  files; and against tiktoken on real text.
- The trap: encoding line by line is not the same (``"\\n\\n\\n"``).
- Memory: the blocks the streamer encodes stay within block + the longest stretch
  without a cut + one chunk; ids come out before the input ends; time is linear.
- Bad input.
"""

from __future__ import annotations

import io
import itertools
import time

import pytest
import regex
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import tokref.stream as stream
from tokref import ByteLevelBPETokenizer, NotTrainedError, load_openai_encoding
from tokref.corpus import load_text
from tokref.pretokenize import CL100K_PATTERN, GPT2_PATTERN, GPT2_PATTERN_STDLIB, O200K_PATTERN

PROPERTY = settings(max_examples=120, derandomize=True, deadline=None, database=None)

SPECIALS = ["<|endoftext|>", "<|e|>", "<|e|><|e|>", "[M]"]

# The hard cases: whitespace runs and CRLF, letters of several scripts and cases,
# combining marks, contractions, digits of several kinds, punctuation, "_" and the word
# characters that are not letters (ZWJ, "‿"), CJK, emoji with modifiers and ZWJ, and
# special-token text whole and in pieces.
PIECES = [
    " ", "  ", "\n", "\n\n\n", "\r\n", "\r", "\t", "\u00a0", "\u3000",
    "a", "Z", "word", "Word", " the", "ß", "é", "e\u0301", "\u0301", "Ω", "жук", "ǅ", "ʰ",
    "'", "'s", "'ll", "'S", "don't", "1", "42", "12345", "٣", "²", "Ⅻ",
    ".", ",", "!", "?", "-", "_", "/", "(", ")", "<", "|", ">",
    "東京", "한국", "😀", "👍🏽", "👨\u200d👩\u200d👧", "\u200d", "‿",
    "<|endoftext|>", "<|endo", "ftext|>", "<|e|>", "<|e", "|>", "[M]", "[",
]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
BLOCKS = st.sampled_from([1, 2, 3, 5, 8, 64, stream.BLOCK])
OPTIONS = [
    {},  # specials disallowed: text with special-token text raises
    {"allowed_special": "all"},
    {"disallowed_special": ()},
    {"allowed_special": {"<|e|>"}, "disallowed_special": {"[M]"}},
]

TRAIN = load_text("train")[:30_000] + "".join(PIECES) * 5
PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
    "stdlib": GPT2_PATTERN_STDLIB,
    "custom": r"\S+|\s+",
}


@pytest.fixture(scope="module")
def every() -> list[ByteLevelBPETokenizer]:
    """One tokenizer trained with each pattern, then the real cl100k_base and o200k_base."""
    trained = [
        ByteLevelBPETokenizer().train([TRAIN], vocab_size=256 + 150 + len(SPECIALS), pattern=p,
                                      special_tokens=SPECIALS)
        for p in PATTERNS.values()
    ]
    return trained + [load_openai_encoding("cl100k_base"), load_openai_encoding("o200k_base")]


@pytest.fixture(scope="module", params=list(PATTERNS))
def trained(request, every) -> ByteLevelBPETokenizer:
    return every[list(PATTERNS).index(request.param)]


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def real(request) -> ByteLevelBPETokenizer:
    return load_openai_encoding(request.param)


def outcome(fn):
    """The ids fn() returns, or "ValueError" if it raises one (disallowed special tokens)."""
    try:
        return list(fn())
    except ValueError:
        return "ValueError"


def cut(seq, points):
    points = sorted(set(p % (len(seq) + 1) for p in points))
    return [seq[a:b] for a, b in zip([0, *points], [*points, len(seq)])]


def check_stream(tok, text, chunks, block, options):
    want = outcome(lambda: tok.encode(text, **options))
    got = outcome(lambda: stream.encode_iterable(tok, chunks, block=block, **options))
    assert got == want, (
        f"encode_iterable({chunks!r}, block={block}, {options}) gave {got}, but "
        f"encode({text!r}) gives {want}; streaming must give the ids of the whole text"
    )


# ---------------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------------

# One character of each of the 13 classes into which \s, \p{L} (Lu, Ll, Lt, Lm, Lo),
# \p{N}, \p{M}, \w, \d, [^\W\d_] and [^\s\w] cut Unicode (computed once over all code
# points with `regex`), and each literal character the patterns name.
CLASSES = list("'stdmlverSTLVERſ \n\r\t\u00a0\x0b/_.<1²Ⅻ\u0301東ʰǅ\u200d‿👍aA")
HARDEST = list("'sa A.\n\r1\u0301東\u200d")
COMPILED = {n: regex.compile(p) for n, p in PATTERNS.items() if n != "custom"}


def test_safe_cuts_split_every_short_string_exactly():
    checked = 0
    strings = itertools.chain(
        ("".join(t) for n in (2, 3) for t in itertools.product(CLASSES, repeat=n)),
        ("".join(t) for t in itertools.product(HARDEST, repeat=4)),
    )
    for text in strings:
        for i in range(1, len(text)):
            if not stream.is_safe_cut(text, i):
                continue
            checked += 1
            for name, pat in COMPILED.items():
                assert pat.findall(text[:i]) + pat.findall(text[i:]) == pat.findall(text), (
                    f"{name}: {text!r} cut at {i} pre-tokenizes differently from the whole; "
                    "a safe cut must leave the pieces unchanged"
                )
    assert checked > 10_000


# The rule restated as zero-width positions (independent of stream's two-character regex).
POSITIONS = regex.compile(r"(?<=\S)(?= )|(?<=\p{L})(?=_|[^\s\w\p{L}\p{N}\p{M}'])")


@PROPERTY
@given(TEXTS)
def test_last_safe_cut_is_the_last_position_of_the_rule(text):
    positions = [m.start() for m in POSITIONS.finditer(text) if 0 < m.start() < len(text)]
    assert stream.last_safe_cut(text) == (positions[-1] if positions else 0), text
    assert [i for i in range(len(text) + 1) if stream.is_safe_cut(text, i)] == positions, text


def test_no_cut_inside_or_across_a_special_token():
    text = "Hi <|endoftext|> there"
    assert stream.is_safe_cut(text, 2) and stream.is_safe_cut(text, 16)
    # "t|" inside the special token is a letter before punctuation: rule 2 alone allows it.
    i = text.index("|>")
    assert stream.is_safe_cut(text, i) and not stream.is_safe_cut(text, i, ["<|endoftext|>"])
    assert stream.last_safe_cut("Say <|endoftext", ["<|endoftext|>"]) == 3
    assert stream.last_safe_cut("word", ["<|endoftext|>"]) == 0
    assert not stream.is_safe_cut("a b", 0) and not stream.is_safe_cut("a b", 3)


# ---------------------------------------------------------------------------
# Streaming equals whole-text encoding
# ---------------------------------------------------------------------------


@PROPERTY
@given(TEXTS, st.lists(st.integers(0, 400), max_size=8), BLOCKS, st.sampled_from(OPTIONS))
def test_random_cuts_of_str_chunks(trained, text, points, block, options):
    check_stream(trained, text, cut(text, points), block, options)


@PROPERTY
@given(TEXTS, st.lists(st.integers(0, 400), max_size=8), BLOCKS, st.sampled_from(OPTIONS))
def test_random_cuts_of_utf8_bytes(trained, text, points, block, options):
    # Byte cuts fall inside multi-byte characters as often as not.
    check_stream(trained, text, cut(text.encode("utf-8"), points), block, options)


# Special tokens, their pieces and their overlaps ("<|e|><|e|>" is one token), densely.
SPECIAL_TEXTS = st.lists(st.sampled_from(["<|e|>", "<|e", "|>", "<", "<|endoftext|>", "[M]", "[", "M]", "a", " b", "\n"]),
                         max_size=16).map("".join)


@PROPERTY
@given(SPECIAL_TEXTS, st.lists(st.integers(0, 200), max_size=6), BLOCKS, st.sampled_from(OPTIONS))
def test_random_cuts_through_special_tokens(trained, text, points, block, options):
    check_stream(trained, text, cut(text, points), block, options)


@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(TEXTS, st.lists(st.integers(0, 400), max_size=6), BLOCKS)
def test_random_cuts_real_encodings(real, text, points, block):
    check_stream(real, text, cut(text, points), block, {"allowed_special": "all"})
    check_stream(real, text, cut(text.encode("utf-8"), points), block, {"disallowed_special": ()})


def every_cut(text):
    """The text cut at every pair of positions (two or three chunks)."""
    for i, j in itertools.combinations_with_replacement(range(len(text) + 1), 2):
        yield [text[:i], text[i:j], text[j:]]


@pytest.mark.parametrize("options", [
    {"allowed_special": "all"},
    {"allowed_special": {"<|e|>", "<|e|><|e|>"}, "disallowed_special": ()},
])
def test_allowed_special_cut_in_half_is_one_token(trained, options):
    text = "Hello <|endoftext|><|e|><|e|> x<|e|>."
    want = trained.encode(text, **options)
    for chunks in every_cut(text):
        for block in (1, 4):
            check_stream(trained, text, chunks, block, options)
    if options["allowed_special"] == "all":
        assert want.count(trained.special_tokens_map["<|endoftext|>"]) == 1
    assert want.count(trained.special_tokens_map["<|e|><|e|>"]) == 1  # the longest wins


def test_overlapping_special_tokens_are_matched_as_in_the_whole_text():
    # Streaming must find the special tokens the scan of the whole text finds (leftmost,
    # then longest): after "<a" the text may still become "<ab>", which "ab>x" overlaps.
    specials = ["<a", "<ab>", "b>xy"]
    tok = ByteLevelBPETokenizer().train(["xyz xyz xyb>xyz"], vocab_size=256 + 10 + 3, pattern=r"\S+|\s+",
                                        special_tokens=specials)
    assert tok.encode("xyz") == [tok.token_to_id("xyz")]  # so a wrong cut in "xy|z" shows
    for text in ("q<ab>xyz w", "q<ab>xy", "<a<ab>xyb>xy"):
        for chunks in every_cut(text):
            for block in (1, 2, 3):
                check_stream(tok, text, chunks, block, {"allowed_special": "all"})


def test_disallowed_special_cut_in_half_still_raises(trained):
    text = "text <|endoftext|> more"
    for chunks in every_cut(text):
        for block in (1, 3, stream.BLOCK):
            with pytest.raises(ValueError, match="disallowed special token"):
                list(stream.encode_iterable(trained, chunks, block=block))
    with pytest.raises(ValueError, match="disallowed special token"):
        list(trained.encode_iterable(["text <|endo", "ftext|> more"]))
    # A disallowed token overlapping an allowed one raises too, as encode does.
    options = {"allowed_special": {"<|e|>"}, "disallowed_special": {"<|e|><|e|>"}}
    for chunks in every_cut("a<|e|><|e|>b"):
        with pytest.raises(ValueError):
            list(stream.encode_iterable(trained, chunks, block=2, **options))


def test_crlf_cut_between_cr_and_lf(every):
    text = "line one\r\nline two.\r\n\r\n  indented\r\nend\r\n"
    for tok in every:
        for i in [k + 1 for k, ch in enumerate(text) if ch == "\r"]:
            for block in (1, 2, 5, 64):
                check_stream(tok, text, [text[:i], text[i:]], block, {})


def test_multibyte_characters_cut_between_bytes(every):
    text = "日本語のテキスト, héllo wörld 😀👍🏽 👨‍👩‍👧 done"
    data = text.encode("utf-8")
    for tok in every:
        for i in range(len(data) + 1):
            check_stream(tok, text, [data[:i], data[i:]], 4, {})
        check_stream(tok, text, [data[i : i + 1] for i in range(len(data))], 3, {})  # byte by byte


def test_long_whitespace_runs(every):
    text = "x" + " " * 3000 + "y\n" + "\n" * 2000 + "z \t \t" * 300 + "  end  "
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    for tok in every:
        check_stream(tok, text, chunks, 64, {})
    # A run of spaces has no cut inside: its block is longer than the block size.
    blocks = list(stream.iter_blocks(chunks, pattern=GPT2_PATTERN, block=64))
    assert "".join(blocks) == text
    assert any(" " * 3000 in b for b in blocks)


def test_files_of_lines(every):
    trained = every[0]
    text = load_text("heldout")[:20_000]
    assert list(trained.encode_iterable(io.StringIO(text))) == trained.encode(text)
    assert list(trained.encode_iterable(io.BytesIO(text.encode("utf-8")))) == trained.encode(text)
    # One str or bytes is one chunk.
    assert list(trained.encode_iterable(text[:500])) == trained.encode(text[:500])
    assert list(trained.encode_iterable(text[:500].encode())) == trained.encode(text[:500])
    assert list(trained.encode_iterable([])) == []


def test_custom_pattern_is_exact_and_cuts_only_after_allowed_specials():
    tok = ByteLevelBPETokenizer().train([TRAIN], vocab_size=256 + 100, pattern=r"\S+|\s+",
                                        special_tokens=["<|endoftext|>"])
    text = "a  b\n\n\nc" * 50 + "<|endoftext|>" + "d e" * 50
    lines = text.splitlines(keepends=True)
    for options in ({"allowed_special": "all"}, {"disallowed_special": ()}):
        check_stream(tok, text, lines, 8, options)
    allowed = list(stream.iter_blocks(lines, pattern=tok.pattern, special_tokens=["<|endoftext|>"],
                                      allowed=["<|endoftext|>"], block=8))
    assert allowed == [text[: text.index("d e")], text[text.index("d e") :]]
    assert list(stream.iter_blocks(lines, pattern=tok.pattern, block=8)) == [text]


def test_matches_tiktoken_on_real_text(real):
    text = load_text("heldout")[:150_000] + "\n\n<|endoftext|>\n\n" + load_text("heldout")[-50_000:]
    enc = tiktoken.Encoding(real.name, pat_str=real.pattern, mergeable_ranks=real.mergeable_ranks,
                            special_tokens=real.special_tokens_map)
    lines = text.splitlines(keepends=True)
    assert list(real.encode_iterable(lines, allowed_special="all")) == enc.encode(text, allowed_special="all")
    assert list(real.encode_iterable(lines, disallowed_special=())) == enc.encode(text, disallowed_special=())


def test_allowing_special_is_the_default_of_encode_iterable(every):
    trained = every[0]
    text = "a<|endoftext|>b<|e|>"
    trusted = trained.allowing_special()
    assert list(trusted.encode_iterable([text[:5], text[5:]])) == trusted.encode(text)
    assert trained.special_tokens_map["<|endoftext|>"] in trusted.encode(text)
    with pytest.raises(ValueError, match="disallowed"):
        list(trusted.encode_iterable([text], allowed_special=()))
    with pytest.raises(ValueError, match="disallowed"):
        list(trained.encode_iterable([text]))


# ---------------------------------------------------------------------------
# The trap: line by line
# ---------------------------------------------------------------------------


def test_line_by_line_is_not_whole_text_encoding(every):
    # GPT-2's pattern: a whitespace run gives its last character to the next word, unless
    # it ends the text, so "a\n\n\n" alone pre-tokenizes differently from inside "a\n\n\nb".
    assert regex.findall(GPT2_PATTERN, "a\n\n\nb") == ["a", "\n\n", "\n", "b"]
    assert regex.findall(GPT2_PATTERN, "a\n\n\n") == ["a", "\n\n\n"]
    text = "To be.\n\n\nOr not\n\n\nto be.\n"
    lines = text.splitlines(keepends=True)
    for tok in every:
        if tok.pattern == r"\S+|\s+":
            continue  # its whitespace runs do not look ahead: line by line happens to agree
        naive = [i for line in lines for i in tok.encode(line)]
        assert naive != tok.encode(text), f"{tok.pattern[:20]}: line by line should differ here"
        assert list(tok.encode_iterable(lines)) == tok.encode(text)


# ---------------------------------------------------------------------------
# Memory and time
# ---------------------------------------------------------------------------


def test_blocks_stay_within_block_plus_the_longest_uncuttable_stretch():
    text = load_text("all")[:1_000_000]
    lines = text.splitlines(keepends=True)
    cuts = [m.start() for m in POSITIONS.finditer(text)]
    stretch = max(b - a for a, b in zip([0, *cuts], [*cuts, len(text)]))
    for block in (1_000, 8_192):
        blocks = list(stream.iter_blocks(lines, pattern=GPT2_PATTERN, block=block))
        assert "".join(blocks) == text
        bound = block + stretch + max(map(len, lines))
        assert max(map(len, blocks)) <= bound, (
            f"a block of {max(map(len, blocks))} characters; the bound is block ({block}) + "
            f"the longest stretch without a cut ({stretch}) + the longest chunk"
        )
        assert len(blocks) >= len(text) // (2 * block)


def test_ids_come_out_before_the_input_ends(every):
    trained = every[0]  # GPT-2's pattern: with a pattern of its own, it could cut only after specials
    consumed = 0

    def lines():
        nonlocal consumed
        for line in itertools.cycle(["The quick brown fox,\n", "  jumps over the lazy dog.\n\n"]):
            consumed += 1
            yield line

    ids = trained.encode_iterable(lines())
    next(ids)
    assert consumed < stream.BLOCK // 10, f"{consumed} lines were read before the first id"


def test_a_long_stretch_without_cuts_takes_linear_time():
    # 100,000 one-character chunks of digits: no safe cut anywhere. A streamer that
    # searched the whole buffer again for every chunk would take minutes.
    start = time.perf_counter()
    blocks = list(stream.iter_blocks(itertools.repeat("7", 100_000), pattern=GPT2_PATTERN, block=16))
    assert blocks == ["7" * 100_000]
    assert time.perf_counter() - start < 5


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_chunks(every):
    trained = every[0]
    with pytest.raises(TypeError, match=r"chunks\[1\] must be str or bytes, not int"):
        list(trained.encode_iterable(["ok", 3]))
    with pytest.raises(UnicodeDecodeError, match="at byte 3 of the stream"):
        list(trained.encode_iterable([b"ab", b"c\xff"]))
    with pytest.raises(UnicodeDecodeError, match="at byte 2 of the stream"):
        list(trained.encode_iterable([b"ab\xe2", b"\x82"]))  # the character ends early
    with pytest.raises(UnicodeDecodeError, match="unexpected end of data at byte 2"):
        list(trained.encode_iterable([b"ab\xe2\x82"]))
    with pytest.raises(ValueError, match=r"chunks\[1\] is str, but the bytes before it end inside"):
        list(trained.encode_iterable([b"ab\xe2", "x"]))


def test_bad_options_raise_at_the_call(every):
    trained = every[0]
    with pytest.raises(ValueError, match="not special tokens of this tokenizer"):
        trained.encode_iterable(["x"], allowed_special={"<nope>"})  # before any next()
    with pytest.raises(ValueError, match="block must be >= 1"):
        stream.encode_iterable(trained, ["x"], block=0)
    with pytest.raises(NotTrainedError):
        ByteLevelBPETokenizer().encode_iterable(["x"])
    with pytest.raises(TypeError, match="i must be int"):
        stream.is_safe_cut("a b", "1")
