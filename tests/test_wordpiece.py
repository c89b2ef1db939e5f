"""tokref.wordpiece: BERT's WordPiece, checked against Hugging Face ``tokenizers``.

Encoding is compared with the BERT pipeline of ``tokenizers`` built from the same
vocabulary (ids, tokens, type ids, attention mask, special-tokens mask, offsets and
decoded text), on held-out Shakespeare, hand-picked edge cases, random text, and every
Unicode code point. Training is replayed by brute force (every count recomputed at
every step) and worked out by hand on a small example. Hypothesis checks the round trip
up to normalization.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors

import tokref
from tokref import NotTrainedError, TokenizerFileError, wordpiece
from tokref.corpus import load_texts
from tokref.wordpiece import (
    BERT_SPECIAL_TOKENS,
    WordPieceTokenizer,
    bert_normalize,
    bert_pre_tokenize,
    bert_pre_tokenize_with_offsets,
    best_wordpiece_pair,
    count_wordpiece_stats,
    is_bert_punctuation,
    is_bert_removed,
    is_cjk,
    join_words,
    merge_wordpiece_pair,
    train_wordpiece,
    wordpiece_decode,
    wordpiece_split,
)

PROPERTY = settings(max_examples=100, derandomize=True, deadline=None, database=None)

# Words in several scripts, so that the trained vocabularies know some non-ASCII pieces.
EXTRA = (
    "café naïve Ångström Straße İstanbul ΟΔΟΣ οδός résumé über Ærø façade coöperate "
    "中文 日本語のテキスト 한국어 Привет мир Ελληνικά "
) * 20

EDGE_TEXTS = [
    "",
    "   \t\n ",
    "Hello, world!",
    "café naïve Ångström CAFÉ NAÏVE",
    "e\u0301 E\u0301\u0316 x\u0316\u0301 cafe\u0301",  # combining marks, out of order
    "İstanbul ΟΔΟΣ Straße ǅ ﬁ ß",  # case mappings that change length, no final sigma
    "?!...---;;\"''``“quoted” «guillemets» ¿qué? ¡sí!",
    "$5 + 3 = 8 | a^b ~ c @ d # e",  # ASCII punctuation that Unicode calls symbols
    "中文 日本語のテキスト 한국어 混合text中文mixed",
    "\uf900\U0002f800 ㈀ ０１２",  # compatibility ideographs, parenthesized, fullwidth
    "a" * 100 + " " + "b" * 101 + " " + "thou" * 26,  # 100 is fine, 101 is [UNK]
    "é" * 101 + " " + "e\u0301" * 60,  # too long before or after NFD
    "😀 🤗 emoji👍 مرحبا بالعالم नमस्ते",  # unknown characters
    "a\x00b c\x0bd e\ufffdf g\u200bh i\ufeffj k\x7fl m\u00adn",  # removed characters
    "tab\there\nnew\rline\u3000ideographic\u00a0nbsp\u2028ls\u1680ogham",
    "\x85next\x1cfile\x1dgroup",  # Python calls these whitespace, BERT does not
    "[CLS] hello [SEP] [MASK] [mask] x[MASK]y [UNK] [PAD][PAD]",  # special tokens in text
    "thou art, my lord; and I'll not: 'tis so. Don't do not! we're I'm you've",
    "Ὀδυσσεύς ἄνδρα μοι ἔννεπε",
    "\U0001d16d\U0001d165 a\U0001d16d\U0001d165b",  # combining classes 226 and 216
    "ABC\u0345\u0301 a\u0300\u0307\u0323",
]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def to_hf(tok: WordPieceTokenizer) -> HFTokenizer:
    """The Hugging Face BERT pipeline with ``tok``'s vocabulary and settings."""
    hf = HFTokenizer(
        models.WordPiece(
            tok.vocab,
            unk_token="[UNK]",
            continuing_subword_prefix=tok.continuing_subword_prefix,
            max_input_chars_per_word=tok.max_input_chars_per_word,
        )
    )
    hf.normalizer = normalizers.BertNormalizer(
        clean_text=True,
        handle_chinese_chars=True,
        strip_accents=tok.strip_accents,
        lowercase=tok.lowercase,
    )
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls, sep = tok.vocab["[CLS]"], tok.vocab["[SEP]"]
    hf.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    hf.decoder = decoders.WordPiece(prefix=tok.continuing_subword_prefix, cleanup=True)
    hf.add_special_tokens(list(tok.special_tokens))
    return hf


def assert_same(tok, hf, text, pair=None, add_special_tokens=True):
    mine = tok.encode_plus(text, pair, add_special_tokens=add_special_tokens)
    theirs = hf.encode(text, pair, add_special_tokens=add_special_tokens)
    where = f"text={text[:60]!r} pair={pair and pair[:60]!r}"
    assert mine.tokens == theirs.tokens, where
    assert mine.ids == theirs.ids, where
    assert mine.offsets == theirs.offsets, where
    assert mine.token_type_ids == theirs.type_ids, where
    assert mine.attention_mask == theirs.attention_mask, where
    assert mine.special_tokens_mask == theirs.special_tokens_mask, where
    assert tok.encode(text, pair, add_special_tokens=add_special_tokens) == mine.ids
    for skip in (True, False):
        assert tok.decode(mine.ids, skip_special_tokens=skip) == hf.decode(
            theirs.ids, skip_special_tokens=skip
        ), where


def replay(steps, word_counts, prefix="##"):
    """Recount everything at every step of ``steps`` and check the choice; return the
    final segmentation of each word."""
    words: Counter[tuple[str, ...]] = Counter()
    for w, c in word_counts.items():
        words[(w[0], *(prefix + ch for ch in w[1:]))] += c
    for i, step in enumerate(steps):
        symbols, pairs = Counter(), Counter()
        for w, c in words.items():
            for s in w:
                symbols[s] += c
            for p in zip(w, w[1:]):
                pairs[p] += c
        # The tie rule, written out: score, then pair count, then the greatest strings.
        best = max(
            pairs, key=lambda p: (Fraction(pairs[p], symbols[p[0]] * symbols[p[1]]), pairs[p], p)
        )
        assert step.pair == best, f"step {i}: {step.pair} chosen, {best} is better"
        assert (step.pair_count, step.left_count, step.right_count) == (
            pairs[best], symbols[best[0]], symbols[best[1]]
        ), f"step {i}"
        # The module's own helpers agree with the recount.
        assert count_wordpiece_stats(words) == (dict(symbols), dict(pairs))
        assert best_wordpiece_pair(symbols, pairs) == best
        assert step.piece == best[0] + best[1][len(prefix):]
        nxt: Counter[tuple[str, ...]] = Counter()
        for w, c in words.items():
            nxt[tuple(merge_wordpiece_pair(w, best, prefix=prefix))] += c
        words = nxt
    return words


# ---------------------------------------------------------------------------
# Fixtures: vocabularies trained here (module scope: trained once)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return load_texts("train")[:1] + [EXTRA]


@pytest.fixture(scope="module")
def uncased(corpus) -> WordPieceTokenizer:
    return WordPieceTokenizer().train(corpus, 2000, trace=True)


@pytest.fixture(scope="module")
def cased(corpus) -> WordPieceTokenizer:
    return WordPieceTokenizer().train(corpus, 2000, lowercase=False)


@pytest.fixture(scope="module")
def heldout() -> list[str]:
    return load_texts("heldout")


FLAGS = [(True, None), (True, False), (False, False), (False, True)]


def variant(uncased, cased, lowercase, strip_accents) -> WordPieceTokenizer:
    base = uncased if lowercase else cased
    return WordPieceTokenizer.from_vocab(
        list(base.vocab), lowercase=lowercase, strip_accents=strip_accents
    )


# ---------------------------------------------------------------------------
# Encoding and decoding: identical to tokenizers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("lowercase", [True, False])
def test_heldout_identical_to_tokenizers(uncased, cased, heldout, lowercase):
    tok = uncased if lowercase else cased
    hf = to_hf(tok)
    if not lowercase:
        heldout = heldout[:2]  # the cased run is a spot check: half the works
    for work in heldout:
        assert_same(tok, hf, work)
    lines = [line for line in heldout[0].splitlines() if line.strip()][:300]
    for a, b in zip(lines[::2], lines[1::2]):
        assert_same(tok, hf, a, b)


@pytest.mark.parametrize("lowercase, strip_accents", FLAGS)
def test_edge_cases_identical_to_tokenizers(uncased, cased, lowercase, strip_accents):
    tok = variant(uncased, cased, lowercase, strip_accents)
    hf = to_hf(tok)
    for text in EDGE_TEXTS:
        assert_same(tok, hf, text)
        assert_same(tok, hf, text, add_special_tokens=False)
    for a, b in zip(EDGE_TEXTS, EDGE_TEXTS[1:]):
        assert_same(tok, hf, a, b)
        assert_same(tok, hf, a, b, add_special_tokens=False)


def test_strip_accents_none_follows_lowercase(uncased):
    words = list(uncased.vocab)
    assert WordPieceTokenizer.from_vocab(words, lowercase=True).strip_accents is True
    assert WordPieceTokenizer.from_vocab(words, lowercase=False).strip_accents is False
    assert bert_pre_tokenize("Café") == ["cafe"]
    assert bert_pre_tokenize("Café", lowercase=False) == ["Café"]
    assert bert_pre_tokenize("Café", strip_accents=False) == ["café"]
    assert bert_pre_tokenize("Café", lowercase=False, strip_accents=True) == ["Cafe"]


def test_offsets_of_reordered_marks_as_tokenizers():
    # tokenizers aligns NFD output by position, so when canonical ordering swaps two
    # marks, each takes the other's span. Spacing marks (Mc) survive strip_accents.
    chars = ["a", "b", "x", "\u0301", "\u0316", "\U0001d165", "\U0001d16d", "\u0345"]
    vocab = [*BERT_SPECIAL_TOKENS, *chars, *("##" + c for c in chars)]
    for lowercase, strip in FLAGS:
        tok = WordPieceTokenizer.from_vocab(vocab, lowercase=lowercase, strip_accents=strip)
        hf = to_hf(tok)
        for text in ["a\U0001d16d\U0001d165b", "x\u0301\u0316", "\U0001d16d\U0001d165"]:
            assert_same(tok, hf, text)
    # With strip_accents, NFD puts U+1D165 (class 216) before U+1D16D (226); its piece
    # gets the span of the character that stood there, U+1D16D.
    tok = WordPieceTokenizer.from_vocab(vocab)
    assert tok.encode_plus("a\U0001d16d\U0001d165b", add_special_tokens=False).offsets == [
        (0, 1), (1, 2), (2, 3), (3, 4)
    ]
    assert tok.tokenize("a\U0001d16d\U0001d165b") == ["a", "##\U0001d165", "##\U0001d16d", "##b"]


def test_overlapping_special_tokens_leftmost_longest():
    specials = ["[UNK]", "[CLS]", "[SEP]", "<s>", "<s><s>", "<s>x"]
    tok = WordPieceTokenizer().train(["a b <s> x"], 100, special_tokens=specials)
    hf = to_hf(tok)
    for text in ["<s><s><s>", "<s>x<s><s>x", "a<s>b", "<S>", "<s"]:
        assert_same(tok, hf, text)
    assert tok.tokenize("<s><s><s>x") == ["<s><s>", "<s>x"]


def test_vocab_txt_written_by_tokenizers_loads_identically(uncased, tmp_path):
    hf = to_hf(uncased)
    (vocab_file,) = hf.model.save(str(tmp_path))
    tok = WordPieceTokenizer.from_vocab(vocab_file)
    assert tok.vocab == uncased.vocab
    # and ours is read back by tokenizers
    uncased.save_vocab(tmp_path / "ours.txt")
    assert Path(tmp_path / "ours.txt").read_bytes() == Path(vocab_file).read_bytes()
    hf2 = to_hf(uncased)
    hf2.model = models.WordPiece.from_file(str(tmp_path / "ours.txt"), unk_token="[UNK]")
    assert_same(uncased, hf2, "Thou art more lovely and more temperate, Ångström.")


@PROPERTY
@given(st.text(max_size=80), st.one_of(st.none(), st.text(max_size=30)))
def test_random_text_identical_to_tokenizers(uncased, text, pair):
    assert_same(uncased, to_hf_cached(uncased), text, pair)


@PROPERTY
@given(
    st.text(
        alphabet=st.sampled_from("aAeéÉ\u0301\u0316İıΣσςß中,.!?' \t\x00\u200b[]SEPCLMKU#"),
        max_size=60,
    )
)
def test_tricky_alphabet_identical_to_tokenizers(cased, text):
    for lowercase, strip in FLAGS:
        tok = WordPieceTokenizer.from_vocab(
            list(cased.vocab), lowercase=lowercase, strip_accents=strip
        )
        assert_same(tok, to_hf_cached(tok), text)


_HF_CACHE: dict[tuple, HFTokenizer] = {}


def to_hf_cached(tok: WordPieceTokenizer) -> HFTokenizer:
    """to_hf, built once per vocabulary and settings (Hypothesis calls it per example)."""
    key = (tuple(tok.vocab), tok.lowercase, tok.strip_accents, tuple(tok.special_tokens))
    if key not in _HF_CACHE:
        _HF_CACHE[key] = to_hf(tok)
    return _HF_CACHE[key]


@PROPERTY
@given(st.lists(st.integers(0, 1999), max_size=40))
def test_decode_of_any_ids_identical_to_tokenizers(uncased, ids):
    hf = to_hf_cached(uncased)
    for skip in (True, False):
        assert uncased.decode(ids, skip_special_tokens=skip) == hf.decode(
            ids, skip_special_tokens=skip
        )


def test_decode_cleanup_rules_per_token():
    # cleanup runs on each token with its space, not on the joined text
    assert wordpiece_decode(["a", ".", "b", ",", "c", "?", "d", "!"]) == "a. b, c? d!"
    assert wordpiece_decode(["it", "'", "s"]) == "it ' s"  # " ' " never inside one token
    assert wordpiece_decode(["I", "'m", "do not", "'s", "'ve", "'re", "n't"]) == "I'm don't's've'ren't"
    assert wordpiece_decode(["a", "##b", "##c", "d"]) == "abc d"
    assert wordpiece_decode(["##a", "##b"]) == "##ab"
    assert wordpiece_decode(["a", "."], cleanup=False) == "a ."
    vocab = {t: i for i, t in enumerate(["[UNK]", "a", "'m", "do not", "' x", "."])}
    hf = HFTokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    hf.decoder = decoders.WordPiece()
    for ids in ([1, 2], [1, 3], [1, 4, 5], [5, 1, 5], [2, 3, 4]):
        assert wordpiece_decode([list(vocab)[i] for i in ids]) == hf.decode(ids)


# ---------------------------------------------------------------------------
# Every code point
# ---------------------------------------------------------------------------

ALL_CHARS = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]


def test_character_classes_match_tokenizers_on_every_code_point():
    """The module's tables against what tokenizers 0.23.3 does, on every character. Each
    probe is one big string; the tables are applied with their compiled patterns (the
    predicates is_bert_removed, is_bert_punctuation, is_cjk wrap the same patterns)."""
    clean = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False
    )
    chars = [c for c in ALL_CHARS if c != "a"]
    text = "a".join(chars)
    segments = clean.normalize_str(text).split("a")
    assert len(segments) == len(chars)
    removed = {c for c, s in zip(chars, segments) if s == ""}
    assert set(wordpiece.normalization.REMOVED_RE.findall(text)) == removed

    # punctuation: isolated by BertPreTokenizer; whitespace: dropped by it (the gaps
    # between its splits)
    splits = pre_tokenizers.BertPreTokenizer().pre_tokenize_str(text)
    punct = {s for s, _ in splits if len(s) == 1 and s != "a"}
    assert set(wordpiece.normalization.PUNCT_RE.findall(text)) == punct
    ends = [0] + [end for _, (_, end) in splits]
    starts = [start for _, (start, _) in splits] + [len(text)]
    spaces = {text[k] for e, s in zip(ends, starts) for k in range(e, s)}
    assert spaces == set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {
        chr(c) for c in range(0x2000, 0x200B)
    }

    cjk_norm = normalizers.BertNormalizer(
        clean_text=False, handle_chinese_chars=True, strip_accents=False, lowercase=False
    )
    chars = [c for c in ALL_CHARS if c != "\x01"]
    text = "\x01".join(chars)
    segments = cjk_norm.normalize_str(text).split("\x01")
    cjk = {c for c, s in zip(chars, segments) if s == f" {c} "}
    assert set(wordpiece.normalization.CJK_RE.findall(text)) == cjk
    # the public predicates are these patterns
    for c in "a\x00\u200b.$¿中かİ\U0001d165":
        assert is_bert_removed(c) == (c in removed)
        assert is_bert_punctuation(c) == (c in punct)
        assert is_cjk(c) == (c in cjk)


@pytest.mark.parametrize(
    "lowercase, strip_accents, sep",
    # after a letter; after a combining mark, which NFD reorders against other marks
    [(False, False, "a"), (True, True, "\u0316")],
)
@pytest.mark.slow
def test_normalizer_identical_on_every_code_point(lowercase, strip_accents, sep):
    hf = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents, lowercase=lowercase
    )
    text = sep.join(ALL_CHARS)
    assert bert_normalize(text, lowercase=lowercase, strip_accents=strip_accents) == (
        hf.normalize_str(text)
    )


def test_encoding_identical_on_every_17th_code_point(uncased):
    # Characters as words of their own, and glued to letters: ids and offsets.
    hf = to_hf(uncased)
    assert_same(uncased, hf, " ".join(ALL_CHARS[::17]))
    assert_same(uncased, hf, "x".join(ALL_CHARS[5::17]))


# ---------------------------------------------------------------------------
# The pipeline, piece by piece
# ---------------------------------------------------------------------------


def test_pre_tokenize_with_offsets_points_into_the_original():
    text = "Ça\u200b va?\tİyi 中文!"
    words = bert_pre_tokenize_with_offsets(text)
    assert words == [
        ("ca", 0, 2), ("va", 4, 6), ("?", 6, 7), ("iyi", 8, 11), ("中", 12, 13),
        ("文", 13, 14), ("!", 14, 15),
    ]
    assert [w for w, _, _ in words] == bert_pre_tokenize(text)
    # without strip_accents, "İ" lowercases to two characters, both from "İ"
    assert bert_pre_tokenize_with_offsets("İyi", strip_accents=False) == [("i\u0307yi", 0, 3)]


def test_wordpiece_split_is_greedy_longest_first():
    vocab = {"un", "##aff", "##able", "a", "##ff", "unaff", "##a", "##b"}
    assert wordpiece_split("unaffable", vocab) == ["unaff", "##able"]
    assert wordpiece_split("ab", vocab) == ["a", "##b"]
    # greedy, not optimal: "unaffab" is un|##aff|##a|##b... greedy takes "unaff" first
    assert wordpiece_split("unaffab", vocab) == ["unaff", "##a", "##b"]
    assert wordpiece_split("b", vocab) == ["[UNK]"]  # "b" can only continue a word
    assert wordpiece_split("a" * 5, vocab, max_input_chars_per_word=4) == ["[UNK]"]
    assert wordpiece_split("a" * 4, vocab, max_input_chars_per_word=4) == ["a", "##a", "##a", "##a"]


def test_join_words():
    assert join_words([]) == ""
    assert join_words(["a", ".", "b", "?", "c", "!", ",", "'", "(", ")"]) == "a. b? c!, ' ( )"


@PROPERTY
@given(
    st.text(
        alphabet=st.sampled_from(
            "abcXYZ çÉñÖ 中日 .,!?;:'\"()-$ \t\n\x00\u200b\u0301\u3000İß"
        ),
        max_size=120,
    )
)
def test_round_trip_up_to_normalization(text):
    """decode(encode(s)) == join_words(bert_pre_tokenize(s)) whenever no [UNK] occurs
    (and s contains no special token)."""
    tok = ROUND_TRIP_TOKENIZER
    for add in (True, False):
        ids = tok.encode(text, add_special_tokens=add)
        assume(tok.unk_id not in ids)
        words = bert_pre_tokenize(text, lowercase=tok.lowercase, strip_accents=tok.strip_accents)
        assert tok.decode(ids) == join_words(words)


# Trained on every character of the round-trip alphabet (both cases), so that only
# words longer than max_input_chars_per_word can be unknown.
ROUND_TRIP_TOKENIZER = WordPieceTokenizer().train(
    ["abcXYZ çÉñÖ 中日 .,!?;:'\"()-$ İß " * 3 + "abc" * 5, "ab ab ba çé"], 200,
    max_input_chars_per_word=40,
)


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


def test_hand_worked_example():
    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    steps = train_wordpiece(counts, 3)
    # Start: h ##u ##g x10, p ##u ##g x5, p ##u ##n x12, b ##u ##n x4, h ##u ##g ##s x5.
    # count: h 15, p 17, b 4, ##u 36, ##g 20, ##n 16, ##s 5.
    # pairs: (h,##u) 15 -> 15/(15*36) = 1/36;  (##u,##g) 20 -> 20/(36*20) = 1/36;
    #        (p,##u) 17 -> 17/(17*36) = 1/36;  (##u,##n) 16 -> 16/(36*16) = 1/36;
    #        (b,##u)  4 ->  4/(4*36)  = 1/36;  (##g,##s)  5 ->  5/(20*5)  = 1/20  <- best
    assert steps[0].pair == ("##g", "##s") and steps[0].score == Fraction(1, 20)
    # Now hugs is h ##u ##gs: ##g 15, ##s 0, ##gs 5; (##u,##g) 15, (##u,##gs) 5.
    # Every pair scores 1/36: (h,##u) 15/(15*36), (##u,##g) 15/(36*15), (p,##u) 17/(17*36),
    # (##u,##n) 16/(36*16), (b,##u) 4/(4*36), (##u,##gs) 5/(36*5). Tie: the highest pair
    # count wins, (p,##u) with 17.
    assert steps[1].pair == ("p", "##u") and steps[1].score == Fraction(1, 36)
    assert steps[1].pair_count == 17
    # Now pug is pu ##g, pun is pu ##n: p 0, ##u 19, pu 17.
    # (h,##u) 15/(15*19) = 1/19; (b,##u) 4/(4*19) = 1/19; (##u,##gs) 5/(19*5) = 1/19;
    # (pu,##n) 12/(17*16) = 3/68; (##u,##g) 10/(19*15) = 2/57; (pu,##g) 5/(17*15) = 1/51;
    # (##u,##n) 4/(19*16) = 1/76. Three tie at 1/19: (h,##u) occurs 15 times, the most.
    assert steps[2].pair == ("h", "##u") and steps[2].score == Fraction(1, 19)
    assert [s.piece for s in steps] == ["##gs", "pu", "hu"]
    replay(steps, counts)


def test_ties_fall_to_the_greatest_strings():
    # Every pair occurs once and every symbol once: all score 1, count 1; so the
    # greatest pair of strings goes first: ("c", "##d") > ("a", "##b").
    steps = train_wordpiece({"ab": 1, "cd": 1}, 2)
    assert [s.pair for s in steps] == [("c", "##d"), ("a", "##b")]


def test_exact_scores_not_floats():
    # A word "ab" seen n times scores n / (n * n) = 1/n. With n = 2**60 and 2**60 + 1
    # the two scores are different but the same float; comparing floats would fall to
    # the tie rule and take "cd", which occurs more often. The exact rule takes "ab".
    n = 2**60
    assert float(Fraction(1, n)) == float(Fraction(1, n + 1))
    counts = {"ab": n, "cd": n + 1}
    steps = train_wordpiece(counts, 2)
    assert [s.pair for s in steps] == [("a", "##b"), ("c", "##d")]
    assert [s.score for s in steps] == [Fraction(1, n), Fraction(1, n + 1)]
    replay(steps, counts)


@PROPERTY
@given(
    st.dictionaries(
        st.text(alphabet="aab", min_size=1, max_size=7),
        st.sampled_from([1, 1, 2, 3, 4, 6, 12]),
        min_size=1,
        max_size=10,
    ),
    st.integers(0, 30),
)
def test_every_step_has_the_best_score_tie_heavy(counts, n):
    replay(train_wordpiece(counts, n), counts)


@PROPERTY
@given(
    st.dictionaries(
        st.text(alphabet="abcdé", min_size=1, max_size=9),
        st.integers(1, 50),
        min_size=1,
        max_size=25,
    ),
    st.integers(0, 60),
)
def test_every_step_has_the_best_score(counts, n):
    steps = train_wordpiece(counts, n)
    replay(steps, counts)
    assert sum(s.new for s in steps) <= n


def test_every_step_has_the_best_score_on_shakespeare():
    text = load_texts("train")[0][:10_000]
    tok = WordPieceTokenizer().train(text, 300, trace=True)
    assert len(tok.trace) > 150
    replay(tok.trace, Counter(bert_pre_tokenize(text)))


def test_vocabulary_layout(uncased, corpus):
    pieces = list(uncased.vocab)
    assert pieces[:5] == list(BERT_SPECIAL_TOKENS)
    chars = sorted({ch for t in corpus for w in bert_pre_tokenize(t) for ch in w})
    plain = [p for p in pieces[5:] if len(p) == 1]
    assert plain == chars
    n = 5 + len(chars)
    inner = [c for c in chars if not is_bert_punctuation(c) and not is_cjk(c)]
    assert pieces[n:n + len(inner)] == ["##" + c for c in inner]
    merged = [s.piece for s in uncased.trace if s.new]
    assert pieces[n + len(inner):] == merged
    assert len(pieces) == 2000 == uncased.vocab_size
    assert uncased.merges == [s.pair for s in uncased.trace]


def test_pieces_already_known_do_not_count():
    # Making a piece that is already in the vocabulary (here: given as known) does not
    # grow it, so it does not count towards n_pieces.
    steps = train_wordpiece({"ab": 1, "cd": 2}, 1, known=["ab"])  # scores 1 and 1/2
    assert [(s.piece, s.new) for s in steps] == [("ab", False), ("cd", True)]


def test_lone_surrogates_are_ordinary_characters(uncased):
    # tokenizers cannot take them (not valid UTF-8); tokref treats them as letters.
    assert uncased.tokenize("a\ud800b") == ["[UNK]"]
    assert uncased.encode_plus("x \ud800").offsets == [(0, 0), (0, 1), (2, 3), (0, 0)]


def test_training_stops_when_no_pair_is_left():
    tok = WordPieceTokenizer().train("hello hello world", 10_000)
    assert tok.tokenize("hello world") == ["hello", "world"]
    assert tok.vocab_size < 10_000


def test_minimum_vocab_size_is_exact():
    # 5 specials + {a, b, !} + {##a, ##b} ("!" never continues a word) = 10
    tok = WordPieceTokenizer().train("ab ba!", 10)
    assert tok.merges == [] and tok.vocab_size == 10
    with pytest.raises(ValueError, match=r"vocab_size = 9 is too small.*need 10.*>= 10"):
        WordPieceTokenizer().train("ab ba!", 9)


def test_words_of_seen_characters_are_never_unknown():
    tok = WordPieceTokenizer().train("xa by", 13)
    assert tok.tokenize("ax yb") == ["a", "##x", "y", "##b"]


def test_special_tokens_in_training_text_are_not_words():
    tok = WordPieceTokenizer().train("[MASK] a [CLS]b", 100)
    assert "[" not in tok.vocab and "M" not in tok.vocab and "m" not in tok.vocab


def test_progress_bar_does_not_change_the_result(corpus):
    a = WordPieceTokenizer().train(corpus[1], 300)
    b = WordPieceTokenizer().train(corpus[1], 300, progress=True)
    assert a.vocab == b.vocab


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def test_save_and_load_round_trip(uncased, tmp_path):
    path = tmp_path / "wp.json"
    uncased.save(path)
    for loaded in (tokref.load(path), WordPieceTokenizer.load(path)):
        assert isinstance(loaded, WordPieceTokenizer)
        assert loaded.vocab == uncased.vocab
        assert loaded.merges == uncased.merges
        assert (loaded.lowercase, loaded.strip_accents) == (True, True)
        for text in EDGE_TEXTS:
            assert loaded.encode_plus(text) == uncased.encode_plus(text)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["type"] == "wordpiece" and data["format"] == "tokref"


def test_from_vocab_forms_agree(uncased, tmp_path):
    pieces = list(uncased.vocab)
    uncased.save_vocab(tmp_path / "vocab.txt")
    forms = [pieces, uncased.vocab, tmp_path / "vocab.txt", str(tmp_path / "vocab.txt")]
    for form in forms:
        tok = WordPieceTokenizer.from_vocab(form)
        assert tok.vocab == uncased.vocab
        assert tok.encode("Thou art more lovely") == uncased.encode("Thou art more lovely")


def test_vocab_txt_trailing_whitespace_and_crlf(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("[PAD]\r\n[UNK] \r\n[CLS]\n[SEP]\t\n[MASK]\na\n##b\n".encode())
    tok = WordPieceTokenizer.from_vocab(path)
    assert list(tok.vocab) == [*BERT_SPECIAL_TOKENS, "a", "##b"]
    assert tok.tokenize("ab") == ["a", "##b"]


@pytest.mark.parametrize(
    "config, match",
    [
        ({"vocab": "abc"}, "'vocab' must be a list"),
        ({"vocab": ["[UNK]", "a", "a"]}, "repeated"),
        ({"vocab": ["[UNK]", ""]}, "empty"),
        ({"vocab": []}, "empty"),
        ({"special_tokens": ["[UNK]", "[XYZ]"]}, r"not in the vocabulary"),
        ({"special_tokens": ["[CLS]"]}, r"must include '\[UNK\]'"),
        ({"lowercase": "yes"}, "'lowercase' must be true or false"),
        ({"strip_accents": None}, "'strip_accents' must be true or false"),
        ({"continuing_subword_prefix": ""}, "non-empty"),
        ({"continuing_subword_prefix": 3}, "non-empty"),
        ({"max_input_chars_per_word": 0}, ">= 1"),
        ({"max_input_chars_per_word": True}, ">= 1"),
        ({"max_input_chars_per_word": 1.5}, ">= 1"),
        ({"merges": [["a"]]}, "pairs"),
        ({"merges": "ab"}, "pairs"),
    ],
)
def test_corrupt_files_are_refused(tmp_path, config, match):
    good = WordPieceTokenizer().train("ab ba", 20).to_dict()
    good["config"].update(config)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=match):
        tokref.load(path)


def test_missing_config_key_is_refused(tmp_path):
    data = WordPieceTokenizer().train("ab ba", 20).to_dict()
    del data["config"]["vocab"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="no 'vocab' entry"):
        WordPieceTokenizer.load(path)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_untrained_is_refused():
    tok = WordPieceTokenizer()
    for call in (lambda: tok.encode("a"), lambda: tok.encode_plus("a"), lambda: tok.decode([0]),
                 lambda: tok.tokenize("a"), lambda: tok.save_vocab("x.txt"), lambda: tok.merges):
        with pytest.raises(NotTrainedError, match=r"call \.train"):
            call()
    assert repr(tok) == "WordPieceTokenizer(untrained)"


def test_bad_text_and_ids(uncased):
    with pytest.raises(TypeError, match=r"decode it first"):
        uncased.encode(b"bytes")
    with pytest.raises(TypeError, match="text must be str, not NoneType"):
        uncased.encode(None)
    with pytest.raises(TypeError, match="pair must be str"):
        uncased.encode_plus("a", 3)
    with pytest.raises(TypeError, match="add_special_tokens"):
        uncased.encode("a", add_special_tokens="yes")
    with pytest.raises(ValueError, match=r"ids\[1\] = 2000 is not a token id.*0\.\.1999"):
        uncased.decode([5, 2000])
    with pytest.raises(TypeError, match=r"to decode one id, pass \[id\]"):
        uncased.decode(5)
    with pytest.raises(TypeError, match="bool"):
        uncased.decode([True])


def test_bad_training_arguments():
    tok = WordPieceTokenizer()
    with pytest.raises(TypeError, match="vocab_size must be int"):
        tok.train("ab", "100")
    with pytest.raises(TypeError, match="lowercase must be True or False"):
        tok.train("ab", 100, lowercase="yes")
    with pytest.raises(TypeError, match="strip_accents must be True, False or None"):
        tok.train("ab", 100, strip_accents=1)
    with pytest.raises(ValueError, match=r"must include '\[UNK\]'"):
        tok.train("ab", 100, special_tokens=["[CLS]", "[SEP]"])
    with pytest.raises(ValueError, match="cannot be empty"):
        tok.train("ab", 100, continuing_subword_prefix="")
    with pytest.raises(ValueError, match="at least 1"):
        tok.train("ab", 100, max_input_chars_per_word=0)
    with pytest.raises(ValueError, match="empty corpus"):
        tok.train(["", ""], 100)
    with pytest.raises(ValueError, match="no words"):
        tok.train(" \x00 [MASK] ", 100)
    with pytest.raises(ValueError, match="starts with the continuing-subword prefix"):
        tok.train("xxa b", 100, continuing_subword_prefix="xx")
    with pytest.raises(TypeError, match="must be a str or an iterable of str, not int"):
        tok.train(42, 100)
    assert not tok.is_trained  # a failed training leaves the tokenizer untouched


def test_missing_template_tokens():
    tok = WordPieceTokenizer().train("ab", 20, special_tokens=["[UNK]"])
    assert tok.encode("ab", add_special_tokens=False) == tok.encode_plus(
        "ab", add_special_tokens=False).ids
    with pytest.raises(ValueError, match=r"no '\[CLS\]' token.*add_special_tokens=False"):
        tok.encode("ab")


def test_bad_vocabularies(tmp_path):
    with pytest.raises(ValueError, match=r"'a' appears twice in the vocabulary \(ids 1 and 2\)"):
        WordPieceTokenizer.from_vocab(["[UNK]", "a", "a"], special_tokens=["[UNK]"])
    with pytest.raises(ValueError, match=r"\['\[MASK\]'\] are not in the vocabulary"):
        WordPieceTokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"])
    with pytest.raises(ValueError, match=r"the id of 'a' is 5.*ids 0\.\.1"):
        WordPieceTokenizer.from_vocab({"[UNK]": 0, "a": 5}, special_tokens=["[UNK]"])
    with pytest.raises(ValueError, match="id 0 is given to both"):
        WordPieceTokenizer.from_vocab({"[UNK]": 0, "a": 0}, special_tokens=["[UNK]"])
    with pytest.raises(TypeError, match="vocab must map str to int"):
        WordPieceTokenizer.from_vocab({"[UNK]": "0"}, special_tokens=["[UNK]"])
    with pytest.raises(TypeError, match=r"vocab\[1\] must be str"):
        WordPieceTokenizer.from_vocab(["[UNK]", 3], special_tokens=["[UNK]"])
    with pytest.raises(TypeError, match="vocab must be a list of str"):
        WordPieceTokenizer.from_vocab(42)
    with pytest.raises(FileNotFoundError, match="no vocab.txt"):
        WordPieceTokenizer.from_vocab(tmp_path / "missing.txt")
    (tmp_path / "gap.txt").write_text("[UNK]\n\na\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2 .* is empty"):
        WordPieceTokenizer.from_vocab(tmp_path / "gap.txt", special_tokens=["[UNK]"])
    (tmp_path / "latin1.txt").write_bytes(b"[UNK]\ncaf\xe9\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        WordPieceTokenizer.from_vocab(tmp_path / "latin1.txt", special_tokens=["[UNK]"])
    tok = WordPieceTokenizer.from_vocab(["[UNK]", "a b "], special_tokens=["[UNK]"])
    with pytest.raises(ValueError, match="cannot be written to a vocab.txt"):
        tok.save_vocab(tmp_path / "out.txt")


def test_character_helpers_check_their_input():
    with pytest.raises(ValueError, match="one character"):
        is_bert_punctuation("ab")
    with pytest.raises(TypeError, match="one-character str"):
        is_cjk(0x4E00)
    with pytest.raises(TypeError, match="words must be a list"):
        join_words("abc")
    with pytest.raises(TypeError, match="tokens must be a list"):
        wordpiece_decode("abc")


def test_repr(uncased):
    assert repr(uncased) == "WordPieceTokenizer(vocab_size=2000, lowercase=True, strip_accents=True)"


# ---------------------------------------------------------------------------
# The subpackage: its Unicode tables (a data file), public helpers and import paths
# ---------------------------------------------------------------------------


def test_unicode_tables_file_loads_with_its_provenance():
    import re
    import unicodedata
    from importlib import resources

    from tokref.wordpiece import unicode_tables

    raw = json.loads(resources.files("tokref.wordpiece").joinpath("unicode_tables.json")
                     .read_text(encoding="utf-8"))
    about = " ".join(raw["about"])
    assert "tokenizers 0.23.3" in about and "make_unicode_tables.py" in about
    for version in ("9.0.0", "8.0.0", "17.0.0"):  # NFD, categories, lowercase
        assert f"Unicode {version}" in about
    assert set(raw["tables"]) == {"other", "punctuation", "nonspacing_mark", "cjk", "whitespace",
                                  "rust_white_space", "nfd", "combining_class", "lowercase"}
    for name, table in raw["tables"].items():
        assert table["about"], f"table {name} says nowhere where it comes from"
        (key, rows), = [(k, v) for k, v in table.items() if k != "about"]
        for row in rows:
            if key == "decompositions":
                assert len(row) == 2 and int(row[0], 16) <= 0x10FFFF and row[1].split()
            else:
                assert 0 <= int(row[0], 16) <= int(row[1], 16) <= 0x10FFFF

    tables = unicode_tables()
    assert set(tables) == {"other", "punctuation", "nonspacing_mark", "cjk", "whitespace"}

    def matches(name: str, ch: str) -> bool:
        return re.fullmatch(f"[{tables[name]}]", ch) is not None

    assert matches("other", "\x00") and matches("other", "\u200b") and matches("other", "\ufffd")
    assert not matches("other", "\t") and not matches("other", "a")
    assert matches("punctuation", "$") and matches("punctuation", "¿") and not matches("punctuation", "a")
    # Unicode 8.0, as tokenizers: U+2E43 is punctuation since Unicode 9.0 only
    assert unicodedata.category("\u2e43").startswith("P") and not matches("punctuation", "\u2e43")
    assert matches("nonspacing_mark", "\u0301") and not matches("nonspacing_mark", "e")
    assert matches("cjk", "中") and matches("cjk", "\U0002b920") and not matches("cjk", "か")
    assert not matches("cjk", "\U0002b820")  # the gap of tokenizers' is_chinese_char, kept
    assert matches("whitespace", "\u3000") and matches("whitespace", "\n")
    assert not matches("whitespace", "\x0b") and not matches("whitespace", "\x85")
    unicode_tables()["cjk"] = "a"  # each call returns a new dict
    assert unicode_tables() == tables


def test_per_character_helpers():
    from tokref.wordpiece import combining_class, lowercase_char, nfd_char

    assert lowercase_char("A") == "a" and lowercase_char("ß") == "ß"
    assert lowercase_char("Σ") == "σ"  # one character: no final-sigma rule
    assert lowercase_char("İ") == "i\u0307"
    assert lowercase_char("\ua7cb") == "\u0264"  # Unicode 16.0: Rust's, newer than any Python's
    assert lowercase_char("\u2c2f") == "\u2c5f"  # Unicode 14.0: not in Python 3.10's str.lower
    assert nfd_char("é") == "e\u0301" and nfd_char("a") == "a"
    assert nfd_char("\U00011938") == "\U00011938"  # a decomposition tokenizers' NFD lacks
    assert nfd_char("\uac01") == "\u1100\u1161\u11a8"  # a Hangul syllable, by arithmetic
    assert combining_class("\u0301") == 230 and combining_class("a") == 0
    assert combining_class("\u0c3c") == 0  # a mark tokenizers' NFD does not know


def test_unicode_tables_do_not_depend_on_the_python():
    """Python's unicodedata changes with the interpreter (13.0.0 in 3.10, 15.1.0 in 3.13):
    tokref.wordpiece reads none of it, and the table file is what the script reads off
    tokenizers 0.23.3, here, on this Python (its combining classes are the running Python's
    for Unicode 9.0.0's marks only, the same on every Python)."""
    import subprocess
    import sys

    import ast

    for path in Path(wordpiece.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert "unicodedata" not in names, f"{path.name} imports unicodedata"
    script = Path(__file__).resolve().parents[1] / "solutions" / "scripts" / "make_unicode_tables.py"
    out = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_unicode_tables_ship_as_package_data():
    from fnmatch import fnmatch

    tomllib = pytest.importorskip("tomllib")
    conf = tomllib.loads(
        (Path(__file__).resolve().parents[1] / "solutions" / "pyproject.toml").read_text(encoding="utf-8")
    )
    globs = conf["tool"]["setuptools"]["package-data"]["tokref"]
    assert any(fnmatch("wordpiece/unicode_tables.json", g) for g in globs)


def test_max_piece_chars_and_unk(uncased):
    pieces = uncased.pieces
    assert uncased.max_piece_chars == max(len(p) - 2 if p.startswith("##") else len(p) for p in pieces)
    assert uncased.unk_token == "[UNK]" and uncased.unk_id == uncased.token_to_id("[UNK]") == 1
    tok = WordPieceTokenizer.from_vocab(["[UNK]", "ab", "xx##abcd"], special_tokens=["[UNK]"],
                                        continuing_subword_prefix="xx##")
    assert tok.max_piece_chars == 5 and tok.unk_id == 0
    with pytest.raises(NotTrainedError):
        WordPieceTokenizer().max_piece_chars


def test_merge_wordpiece_pair_is_the_shared_merge_step():
    from tokref.merges import merge_pair

    word = ["h", "##u", "##u", "##u", "##g"]
    assert merge_wordpiece_pair(word, ("##u", "##u")) == ["h", "##uu", "##u", "##g"]
    assert merge_wordpiece_pair(word, ("##u", "##u")) == merge_pair(word, ("##u", "##u"), "##uu")
    assert merge_wordpiece_pair(["a", "x#b"], ("a", "x#b"), prefix="x#") == ["ab"]


def test_the_subpackage_keeps_the_import_paths():
    import importlib

    wp = importlib.import_module("tokref.wordpiece")
    # everything the old module tokref/wordpiece.py exported, and the assignment's references
    for name in ["BERT_SPECIAL_TOKENS", "WordPieceTokenizer", "WordPieceEncoding", "WordPieceStep",
                 "is_bert_punctuation", "is_bert_removed", "is_cjk", "bert_normalize",
                 "bert_pre_tokenize", "bert_pre_tokenize_with_offsets", "join_words",
                 "wordpiece_split", "wordpiece_decode", "wordpiece_score", "count_wordpiece_stats",
                 "best_wordpiece_pair", "merge_wordpiece_pair", "train_wordpiece",
                 "lowercase_char", "nfd_char", "combining_class", "unicode_tables"]:
        assert name in wp.__all__ and hasattr(wp, name), name
    assert callable(wp.wordpiece_pair_scores) and callable(wp.merge_wordpiece_words)
    assert tokref.WordPieceTokenizer is wp.WordPieceTokenizer
