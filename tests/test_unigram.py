"""tokref.unigram: SentencePiece-style Unigram tokenization.

Exactness: with the same pieces and scores, Hugging Face ``tokenizers`` (``models.Unigram``
with a Metaspace pre-tokenizer) and SentencePiece (a model proto built here by hand)
give identical Viterbi segmentations on held-out Shakespeare plus accents, CJK, emoji
and unseen characters. The E-step, the M-step and Viterbi are checked on examples
worked out by hand, and the NumPy trainer against the one-string-at-a-time reference
functions; sampling against the exact distribution of a lattice enumerated in full;
training quality against SentencePiece's trainer (slow).
"""

from __future__ import annotations

import json
import math
import random
import re
import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokref
from tokref import NotTrainedError, TokenizerFileError
from tokref.corpus import load_texts
from tokref.unigram import (
    BYTE_PIECES,
    WS,
    Lattices,
    Pieces,
    Substrings,
    UnigramTokenizer,
    digamma,
    forward_backward,
    m_step,
    nbest,
    normalize,
    sample,
    seed_pieces,
    segmentations,
    viterbi,
)

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None, database=None)

EXTRA_LINES = [
    "café naïve résumé, Ångström: déjà vu!",
    "東京は日本の首都です。漢字とかなカナ",
    "Ελληνικά κείμενα και русский текст",
    "emoji 😀🎉👩\u200d👩\u200d👧 test",
    "ǅ ﬁ ① ㌀ Ⅻ ½ ＡＢＣ",  # NFKC changes all of these
    "zebra‽ qu€st ⊕ ∮ ẞ ŉ",
    "\tindented   and\u00a0spaced\u3000out  ",
    "ALL CAPS SHOUTING, THOU VILLAIN!",
]


def heldout_lines() -> list[str]:
    text = "\n".join(load_texts("heldout"))
    return [line for line in text.split("\n") if line.strip()] + EXTRA_LINES


@pytest.fixture(scope="module")
def small() -> UnigramTokenizer:
    """A tokenizer trained on two works (285 kB) at vocab 2,000: about 1.5 s."""
    return UnigramTokenizer().train(load_texts("train")[:2], 2000)


# ---------------------------------------------------------------------------
# Hand examples
# ---------------------------------------------------------------------------

THIRD = math.log(1 / 3)


def test_em_by_hand():
    # Corpus: the word "ab", 4 times. Pieces a, b, ab, each of probability 1/3.
    # Segmentations of "ab": [ab] with P = 1/3 and [a, b] with P = 1/9, so Z = 4/9 and
    # the posteriors are 3/4 and 1/4. Expected counts over the 4 words: ab 3, a 1, b 1.
    scores = {"a": THIRD, "b": THIRD, "ab": THIRD}
    log_z, expected = forward_backward("ab", scores)
    assert math.exp(log_z) == pytest.approx(4 / 9)
    assert {p: 4 * c for p, c in expected.items()} == pytest.approx({"ab": 3, "a": 1, "b": 1})
    # M-step (SentencePiece's Bayesian one): psi(count) - psi(total), total = 5. With
    # psi(n) = H(n-1) - gamma: psi(3) - psi(5) = -(1/3 + 1/4) = -7/12 and
    # psi(1) - psi(5) = -(1 + 1/2 + 1/3 + 1/4) = -25/12. (Plain EM: log 3/5, log 1/5.)
    new = m_step({"ab": 3.0, "a": 1.0, "b": 1.0})
    assert new == pytest.approx({"ab": -7 / 12, "a": -25 / 12, "b": -25 / 12}, abs=1e-9)
    # Second E-step: P([ab]) = e^(-7/12), P([a, b]) = e^(-50/12), so the posterior of
    # [ab] is 1 / (1 + e^(-43/12)) = 0.9730...
    _, expected2 = forward_backward("ab", new)
    assert expected2["ab"] == pytest.approx(1 / (1 + math.exp(-43 / 12)))
    assert expected2["a"] == pytest.approx(math.exp(-43 / 12) / (1 + math.exp(-43 / 12)))
    # Pieces expected fewer than 0.5 times are dropped by the M-step.
    assert m_step({"ab": 3.0, "a": 0.49}) == {"ab": 0.0}


def test_numpy_e_step_matches_the_hand_example():
    # The trainer's vectorized lattices on the same corpus: one word "ab" of count 4.
    # Pieces 0 = a, 1 = b, 2 = ab; edges (word, start, end, piece).
    lat = Lattices(
        np.array([2]), np.array([0, 0, 0]), np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([0, 1, 2])
    )
    expected, log_z = lat.expected_counts(np.full(3, THIRD), np.array([4.0]), 3)
    assert expected == pytest.approx([1.0, 1.0, 3.0])
    assert log_z == pytest.approx([math.log(4 / 9)])
    node_w, node_p, best = lat.viterbi(np.full(3, THIRD))
    assert node_p.tolist() == [2] and best == pytest.approx([THIRD])


def test_viterbi_by_hand():
    # Lattice of "▁abc": ▁ -3, a -2, b -2, c -2, ab -2.5, bc -3.5, ▁a -4, abc -7.
    # Best to each position: 1: [▁] -3; 2: [▁ a] -5 vs [▁a] -4 -> [▁a] -4;
    # 3: [▁a b] -6 vs [▁ ab] -5.5 -> -5.5; 4: [.. c] -7.5, [▁a bc] -7.5, [▁ abc] -10:
    # a tie at -7.5; "bc" starts before "c", so [▁a, bc] wins.
    scores = {"▁": -3.0, "a": -2.0, "b": -2.0, "c": -2.0, "ab": -2.5, "bc": -3.5, "▁a": -4.0, "abc": -7.0}
    assert viterbi("▁abc", scores) == (["▁a", "bc"], -7.5)
    best = max(s for _, s in segmentations("▁abc", scores))
    assert best == -7.5
    assert sorted(p for p, s in segmentations("▁abc", scores) if s == best) == [
        ["▁", "ab", "c"], ["▁a", "bc"]
    ]
    # An unknown character costs min(scores) - 10 = -17 and is its own piece.
    assert viterbi("▁aZ", scores) == (["▁a", "Z"], -4.0 - 17.0)
    assert viterbi("", scores) == ([], 0.0)


def test_digamma():
    assert digamma(1.0) == pytest.approx(-0.5772156649015329, abs=1e-9)
    assert digamma(0.5) == pytest.approx(-1.9635100260214235, abs=1e-9)
    x = np.array([0.5, 1.0, 3.0, 10.0, 1e6])
    expected = [-1.9635100260214235, -0.5772156649015329, 0.9227843350984671,
                2.251752589066721, 13.815510057964275]
    assert digamma(x) == pytest.approx(expected, abs=1e-9)


def test_seed_pieces_by_hand():
    # Words: ▁aba (followed by ▁ab), ▁ab twice (each ending its sentence).
    # "▁a" is always followed by "b" and "▁aba" occurs once: neither is a seed.
    # "▁ab" occurs 3 times, followed by "a" or by the end: 3 x 3 = 9; "ab" 3 x 2 = 6.
    assert seed_pieces({"▁aba▁ab": 1, "▁ab": 1}) == {"a": 4, "b": 3, "▁": 3, "▁ab": 9, "ab": 6}
    # A word always followed by the next word is not a suffix-tree node either; one
    # that also ends a sentence is.
    assert "▁to" not in seed_pieces({"▁to▁be": 2})
    assert "▁to" in seed_pieces({"▁to▁be": 2, "▁or▁to": 1})
    # Scripts do not mix: "b," is not a piece; digits are Common like punctuation.
    assert "b," not in seed_pieces({"▁ab,▁b,": 3})
    assert "12" in seed_pieces({"▁12▁123": 2})


def _valid_brute(s: str, split: bool) -> bool:
    from tokref.unigram import INHERITED, script

    prev = None
    for pos, ch in enumerate(s):
        if ch == WS:
            if pos > 0 and (split or pos == len(s) - 1):
                return False
            continue
        sc = script(ch)
        if sc == INHERITED:
            continue
        if prev is not None and sc != prev:
            return False
        prev = sc
    return True


@given(st.lists(st.tuples(st.text(alphabet="▁ab,1éα\u0301東あア", min_size=1, max_size=9),
                          st.integers(1, 3), st.sampled_from([-2, -3, ord("▁")])),
                min_size=1, max_size=6, unique_by=lambda t: t[0]), st.booleans())
@PROPERTY
def test_substrings_match_brute_force(items, split):
    # Every valid substring, its count, and whether two occurrences have different
    # followers (a word's end: the code it was given; -3: followers of both kinds).
    words = {w: c for w, c, _ in items}
    ends = {w: e for w, _, e in items}
    subs = Substrings(list(words), list(words.values()), [ends[w] for w in words], 4, split)
    counts: Counter[str] = Counter()
    followers: dict[str, set[object]] = {}
    for w, c in words.items():
        for i in range(len(w)):
            for j in range(i + 1, min(len(w), i + 4) + 1):
                if _valid_brute(w[i:j], split) or j == i + 1:
                    counts[w[i:j]] += c
                    after = ord(w[j]) if j < len(w) else ends[w]
                    followers.setdefault(w[i:j], set()).update(
                        ["x", "y"] if after == -3 else [after]
                    )
    got = {s: int(subs.count[k]) for k, s in enumerate(subs.strings) if subs.valid[k]}
    assert got == {s: c for s, c in counts.items() if len(s) == 1 or s[-1] != WS or not split}
    for k, s in enumerate(subs.strings):
        if subs.valid[k]:
            assert bool(subs.branching[k]) == (len(followers[s]) > 1), s


# ---------------------------------------------------------------------------
# The NumPy trainer against the reference functions
# ---------------------------------------------------------------------------


def _random_case(rng: random.Random):
    alphabet = "abc"
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(6)]
    pieces = list(alphabet) + sorted({
        "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 3))) for _ in range(8)
    })
    # Small integer scores make ties common, which tests the tie rule.
    scores = {p: float(-rng.randint(1, 4)) for p in pieces}
    return words, pieces, scores


def _lattices_of(words, pieces):
    ids = {p: i for i, p in enumerate(pieces)}
    edges = [(w, i, j, ids[s[i:j]]) for w, s in enumerate(words)
             for i in range(len(s)) for j in range(i + 1, len(s) + 1) if s[i:j] in ids]
    rows = np.array(edges, dtype=np.int64).T
    lens = np.array([len(s) for s in words], dtype=np.int64)
    return Lattices(lens, *rows)


@pytest.mark.parametrize("seed", range(30))
def test_numpy_lattices_match_reference(seed):
    rng = random.Random(seed)
    words, pieces, scores = _random_case(rng)
    counts = np.array([rng.randint(1, 5) for _ in words], dtype=np.float64)
    lat = _lattices_of(words, pieces)
    score = np.array([scores[p] for p in pieces])
    expected, log_z = lat.expected_counts(score, counts, len(pieces))
    want: Counter[str] = Counter()
    for w, c in zip(words, counts):
        z, e = forward_backward(w, scores)
        assert log_z[words.index(w)] == pytest.approx(z)
        for p, x in e.items():
            want[p] += c * x
    assert expected == pytest.approx([want[p] for p in pieces])
    node_w, node_p, best = lat.viterbi(score)
    for k, w in enumerate(words):
        ref, ref_score = viterbi(w, scores)
        got = [pieces[p] for p in node_p[node_w == k]][::-1]
        assert got == ref and best[k] == ref_score
    # Pieces' second-best segmentations, used by pruning: best without the whole piece.
    multi = np.array([i for i, p in enumerate(pieces) if len(p) > 1 and any(p in w for w in words)],
                     dtype=np.int64)
    inner = _lattices_of(words, pieces).inner(multi)
    a_w, a_p, a_best = inner.viterbi(score)
    for k, i in enumerate(multi):
        p = pieces[i]
        alts = [(seg, s) for seg, s in segmentations(p, scores) if seg != [p]]
        assert a_best[k] == max(s for _, s in alts)
        got = [pieces[x] for x in a_p[a_w == k]][::-1]
        assert got == viterbi(p, {q: s for q, s in scores.items() if q != p})[0]


# ---------------------------------------------------------------------------
# Exactness against Hugging Face tokenizers and SentencePiece
# ---------------------------------------------------------------------------


def hf_unigram(tok: UnigramTokenizer):
    from tokenizers import Tokenizer, models, pre_tokenizers

    hf = Tokenizer(models.Unigram(vocab=tok.pieces, unk_id=tok.unk_id, byte_fallback=True))
    # The text is normalized by tokref first; Metaspace adds the dummy prefix and turns
    # spaces into ▁, as tokref does.
    hf.pre_tokenizer = pre_tokenizers.Metaspace(replacement=WS, prepend_scheme="always", split=True)
    return hf


def _varint(x: int) -> bytes:
    out = bytearray()
    while True:
        b, x = x & 0x7F, x >> 7
        out.append(b | 0x80 if x else b)
        if not x:
            return bytes(out)


def _pb_bytes(field: int, data: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _pb_int(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _pb_float(field: int, value: float) -> bytes:
    return _varint(field << 3 | 5) + struct.pack("<f", value)


def sentencepiece_proto(tok: UnigramTokenizer) -> bytes:
    """A SentencePiece ModelProto (sentencepiece_model.proto) for ``tok``'s pieces, encoded
    by hand (protobuf itself is not installed): pieces = 1 {piece = 1, score = 2, type =
    3}, trainer_spec = 2 {model_type = 3 (UNIGRAM = 1), vocab_size = 4, byte_fallback =
    35}, normalizer_spec = 3 {name = 1, add_dummy_prefix = 3, remove_extra_whitespaces
    = 4, escape_whitespaces = 5}. Types: NORMAL 1, UNKNOWN 2, CONTROL 3, BYTE 6."""
    n_special = len(tok.special_tokens)
    out = bytearray()
    for i, (piece, score) in enumerate(tok.pieces):
        if i < n_special:
            kind = 2 if piece == "<unk>" else 3
        elif tok.byte_fallback and i < n_special + 256:
            kind = 6
        else:
            kind = 1
        out += _pb_bytes(1, _pb_bytes(1, piece.encode()) + _pb_float(2, score) + _pb_int(3, kind))
    out += _pb_bytes(2, _pb_int(3, 1) + _pb_int(4, tok.vocab_size) + _pb_int(35, int(tok.byte_fallback)))
    # "identity": the text is normalized by tokref first.
    out += _pb_bytes(3, _pb_bytes(1, b"identity") + _pb_int(3, 1) + _pb_int(4, 0) + _pb_int(5, 1))
    return bytes(out)


def _mismatches(tok: UnigramTokenizer, lines: list[str], encode) -> list[tuple[str, list[int], list[int]]]:
    out = []
    for line in lines:
        ours = tok.encode(line)
        theirs = encode(tok.normalize(line))
        if ours != theirs:
            out.append((line, ours, theirs))
    return out


def test_identical_to_hf_tokenizers(small):
    lines = heldout_lines()
    assert any(t.piece.startswith("<0x") for t in small.encode_with_offsets(EXTRA_LINES[1]))
    hf = hf_unigram(small)
    assert _mismatches(small, lines, lambda s: hf.encode(s).ids) == []


def _not_float32_ties(tok: UnigramTokenizer, mismatches) -> list:
    """The mismatches with SentencePiece that are not exact float64 ties.

    SentencePiece adds path scores in float32, tokref and tokenizers in float64, so a
    tie in float64 (``a + b + c`` against ``a + c + b``) can be broken by float32
    rounding instead of by the tie rule. On all 146,569 lines of the corpus, with the
    8,000 pieces trained on it, this happens once ("Beat---": ``- --`` or ``-- -``).
    """
    score = [s for _, s in tok.pieces]
    return [
        (line, ours, theirs) for line, ours, theirs in mismatches
        if sum(score[i] for i in ours) != sum(score[i] for i in theirs)
    ]


def test_identical_to_sentencepiece(small):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_proto(small))
    assert sp.get_piece_size() == small.vocab_size
    assert _not_float32_ties(small, _mismatches(small, heldout_lines(), sp.encode)) == []


def test_identical_on_ties():
    # Scores with many exact ties: the three implementations break them the same way.
    rng = random.Random(7)
    pieces = sorted({"".join(rng.choice("▁abc") for _ in range(rng.randint(1, 3))) for _ in range(60)})
    pieces = [p for p in pieces if WS not in p[1:]]
    tok = UnigramTokenizer.from_pieces(
        [(p, float(-rng.randint(1, 3))) for p in pieces], normalization="nfkc",
        add_dummy_prefix=True, split_by_whitespace=True, byte_fallback=True,
        special_tokens=("<unk>", "<s>", "</s>"),
    )
    lines = ["".join(rng.choice("abc  ") for _ in range(rng.randint(1, 30))) for _ in range(500)]
    hf = hf_unigram(tok)
    assert _mismatches(tok, lines, lambda s: hf.encode(s).ids) == []
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_proto(tok))
    assert _not_float32_ties(tok, _mismatches(tok, lines, sp.encode)) == []


# ---------------------------------------------------------------------------
# Training quality against SentencePiece's trainer
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_training_quality_close_to_sentencepiece(tmp_path, capfd):
    # Both train on the whole train split (4.6 MB) at vocab 8,000 with byte fallback;
    # held-out tokens per character must be within 2%. (Measured: 0.30300 and 0.30301,
    # 7,961 pieces in common; each trains in 6-10 s on 2 CPUs, the test takes 15-30 s.)
    import sentencepiece as spm

    texts = load_texts("train")
    corpus = tmp_path / "train.txt"
    corpus.write_text("\n".join(texts), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(tmp_path / "sp"), model_type="unigram",
        vocab_size=8000, byte_fallback=True, character_coverage=1.0, minloglevel=0,
    )
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    # The seed vocabulary is SentencePiece's, to the piece count.
    log = capfd.readouterr().err
    sp_seeds = int(re.search(r"Initialized (\d+) seed", log).group(1))
    sentences = Counter(
        WS + normalize(line).replace(" ", WS) for t in texts for line in t.split("\n") if line.strip()
    )
    assert len(seed_pieces(sentences)) == sp_seeds  # 75,850 with SentencePiece 0.2.3
    tok = UnigramTokenizer().train(texts, 8000, trace=True)
    assert tok.vocab_size == sp.get_piece_size() == 8000
    # EM follows SentencePiece's step by step: the same number of pieces after every
    # step, and the same objective up to its float32 sums. (SentencePiece 0.2.x stops
    # right after the last pruning; tokref, as the brief asks, runs a last EM round.)
    sp_steps = [(int(size), float(obj)) for size, obj in re.findall(r"EM sub_iter=\d+ size=(\d+) obj=([\d.]+)", log)]
    assert len(sp_steps) >= 8
    assert [s.size for s in tok.trace[: len(sp_steps)]] == [size for size, _ in sp_steps]
    for step, (_, obj) in zip(tok.trace, sp_steps):
        assert step.objective == pytest.approx(obj, rel=1e-3)
    lines = [line for line in "\n".join(load_texts("heldout")).split("\n") if line.strip()]
    n_chars = sum(map(len, lines))
    ours = sum(len(tok.encode(line)) for line in lines) / n_chars
    theirs = sum(map(len, sp.encode(lines))) / n_chars
    assert abs(ours / theirs - 1) < 0.02, (ours, theirs)
    # Most pieces are the same.
    sp_pieces = {sp.id_to_piece(i) for i in range(sp.get_piece_size())}
    assert len(sp_pieces & set(tok.vocab)) > 0.98 * 8000
    # And the trained model is still identical to both libraries' encoders.
    lines = heldout_lines()
    hf = hf_unigram(tok)
    assert _mismatches(tok, lines, lambda s: hf.encode(s).ids) == []
    sp_same = spm.SentencePieceProcessor(model_proto=sentencepiece_proto(tok))
    assert _not_float32_ties(tok, _mismatches(tok, lines, sp_same.encode)) == []


# ---------------------------------------------------------------------------
# Round trips, offsets, byte fallback
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_identity() -> UnigramTokenizer:
    return UnigramTokenizer().train(
        ["the cat sat on the mat", "  indented\ttabs and ▁ bars "], 300, normalization="identity"
    )


# Every code point, lone surrogates included.
ANY_TEXT = st.text(alphabet=st.characters(codec=None, categories=None), max_size=40)


@given(ANY_TEXT)
@PROPERTY
def test_round_trip_any_string(small, tiny_identity, text):
    assert small.decode(small.encode(text)) == small.normalize(text) == normalize(text)
    assert tiny_identity.decode(tiny_identity.encode(text)) == text


@given(st.text(alphabet="ab ▁\t\n\u00a0é\u0301ﬁ😀東<>", max_size=30))
@PROPERTY
def test_offsets_agree_with_encode(small, tiny_identity, text):
    for tok in (small, tiny_identity):
        tokens = tok.encode_with_offsets(text)
        assert [t.id for t in tokens] == tok.encode(text)
        for a, b in zip(tokens, tokens[1:]):
            assert a.start <= b.start and a.end <= b.end
        assert all(0 <= t.start <= t.end <= len(text) for t in tokens)


def test_offsets(small):
    text = "  To be,\n or not"
    tokens = small.encode_with_offsets(text)
    assert [t.piece for t in tokens] == small.tokenize(text)
    assert tokens[0].piece == "▁To" and (tokens[0].start, tokens[0].end) == (2, 4)
    # A ▁ that replaced a run of whitespace spans the run.
    spans = {t.piece: text[t.start : t.end] for t in tokens}
    assert spans["▁or"] == "\n or"
    # Identity normalization: the dummy ▁ is empty, each space is itself.
    tok = UnigramTokenizer().train(["ab ab"], 300, normalization="identity")
    tokens = tok.encode_with_offsets("ab  ab")
    assert [(t.piece, t.start, t.end) for t in tokens] == [
        ("▁ab", 0, 2), ("▁", 2, 3), ("▁ab", 3, 6)
    ]


def test_byte_fallback(small):
    ids = small.encode("€")  # never seen in training
    assert small.tokenize("€") == ["▁", "<0xE2>", "<0x82>", "<0xAC>"]
    assert small.decode(ids) == "€"
    assert small.vocab_size == 2000 and small.pieces[3] == ("<0x00>", 0.0)
    assert [p for p, _ in small.pieces[3:259]] == list(BYTE_PIECES)
    # A literal ▁ is not a space: it goes to its bytes and comes back as ▁.
    assert small.tokenize("a▁b")[1:4] == ["<0xE2>", "<0x96>", "<0x81>"]
    assert small.decode(small.encode("a ▁ b")) == "a ▁ b"
    # Lone surrogates are not Unicode text, but byte fallback still round-trips them
    # (as "surrogatepass" UTF-8).
    assert small.decode(small.encode("a\ud800b\udfff")) == "a\ud800b\udfff"
    # Special tokens are never matched in text.
    assert "<s>" not in small.tokenize("<s> hi </s>")


def cat_lines(n: int = 50) -> list[str]:
    rng = random.Random(0)
    words = ["the", "cat", "sat", "on", "mat", "hat", "that", "at"]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(2, 7))) for _ in range(n)]


def test_without_byte_fallback():
    tok = UnigramTokenizer().train(cat_lines(), 40, byte_fallback=False)
    assert tok.vocab_size < 40 and "<0x00>" not in tok.vocab
    # A run of unknown characters is one <unk>, as in SentencePiece and tokenizers.
    assert tok.tokenize("the zzq cat")[:3] == ["▁the", "▁", "<unk>"]
    tokens = tok.encode_with_offsets("the zzq cat")
    assert (tokens[2].start, tokens[2].end) == (4, 7)  # "zzq"
    assert tok.decode(tok.encode("the zzq cat")) == "the <unk> cat"
    assert tok.decode(tok.encode("the zzq cat"), skip_special_tokens=True) == "the  cat"


def test_no_spaces_needed():
    # Japanese has no spaces: each line is one "word", and pieces form inside it.
    rng = random.Random(0)
    vocab = ["東京", "京都", "大阪", "日本", "首都", "古都", "の", "は", "に", "です", "行きます"]
    lines = ["".join(rng.choice(vocab) for _ in range(rng.randint(3, 8))) for _ in range(300)]
    tok = UnigramTokenizer().train(lines, 300)
    assert {"東京", "首都", "行きます"} <= set(tok.vocab)
    assert tok.tokenize("京都に行きます") == ["▁京都", "に", "行きます"]
    assert tok.decode(tok.encode("東京の古都")) == "東京の古都"


def test_split_by_whitespace_false():
    tok = UnigramTokenizer().train(cat_lines(), 300, split_by_whitespace=False)
    assert "▁on▁mat" in tok.vocab
    assert tok.tokenize("sat on mat") == ["▁sat", "▁on▁mat"]
    assert tok.decode(tok.encode("the cat sat")) == "the cat sat"
    assert tok.decode(tok.encode("a ▁ b")) == "a ▁ b"


# ---------------------------------------------------------------------------
# n-best and sampling
# ---------------------------------------------------------------------------


def test_nbest_matches_enumeration():
    rng = random.Random(3)
    for _ in range(30):
        words, pieces, scores = _random_case(rng)
        w = words[0]
        k = rng.randint(1, 6)
        got = nbest(w, scores, k)
        everything = sorted(segmentations(w, scores), key=lambda s: -s[1])
        assert [s for _, s in got] == [s for _, s in everything[:k]]
        assert got[0] == viterbi(w, scores)
        assert len({tuple(seg) for seg, _ in got}) == len(got)


def test_encode_nbest(small):
    best = small.encode_nbest("To be or not", 5)
    assert best[0][0] == small.encode("To be or not")
    assert len(best) == 5 and [s for _, s in best] == sorted((s for _, s in best), reverse=True)
    assert all(small.decode(ids) == "To be or not" for ids, _ in best)
    # The score is the sum of the pieces' scores.
    scores = dict(small.pieces)
    assert best[1][1] == pytest.approx(sum(scores[small.id_to_token(i)] for i in best[1][0]))
    assert small.encode_nbest("", 3) == [([], 0.0)]


def test_sampling_matches_the_exact_distribution():
    # A hand lattice: "▁abc" with 9 pieces has 7 segmentations: [▁] then one of the 4 of
    # "abc", [▁a] then [b, c] or [bc], [▁ab, c]. P(seg) ∝ exp(alpha·score).
    scores = {"▁": -2.0, "a": -2.5, "b": -2.0, "c": -1.5, "▁a": -3.0, "ab": -2.2,
              "bc": -2.4, "abc": -4.0, "▁ab": -4.5}
    segs = segmentations("▁abc", scores)
    assert len(segs) == 7
    for alpha in (1.0, 0.3):
        weights = [math.exp(alpha * s) for _, s in segs]
        exact = {tuple(seg): w / sum(weights) for (seg, _), w in zip(segs, weights)}
        rng = random.Random(12345)
        n = 40_000
        draws = Counter(tuple(sample("▁abc", scores, alpha=alpha, seed=rng)) for _ in range(n))
        assert set(draws) <= set(exact)
        # Chi-square with 6 degrees of freedom: the 0.999 quantile is 22.46.
        chi2 = sum((draws[s] - n * p) ** 2 / (n * p) for s, p in exact.items())
        assert chi2 < 22.46, chi2
        assert max(abs(draws[s] / n - p) for s, p in exact.items()) < 0.01


def test_sample_encode(small):
    text = "To be or not to be, that is the question"
    rng = random.Random(0)
    draws = [small.sample_encode(text, alpha=0.1, seed=rng) for _ in range(50)]
    assert all(small.decode(ids) == text for ids in draws)
    assert len({tuple(d) for d in draws}) > 10  # alpha 0.1: quite random
    assert small.sample_encode(text, seed=5) == small.sample_encode(text, seed=5)
    # A large alpha concentrates on the Viterbi segmentation.
    assert small.sample_encode(text, alpha=100.0, seed=1) == small.encode(text)


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def test_save_load(small, tiny_identity, tmp_path):
    for tok in (small, tiny_identity):
        path = tmp_path / "tok.json"
        tok.save(path)
        back = tokref.load(path)
        assert isinstance(back, UnigramTokenizer)
        assert back.pieces == tok.pieces
        text = "  Thou art ▁ a ﬁne 東 fellow! "
        assert back.encode(text) == tok.encode(text)
        assert back.normalization == tok.normalization
        assert UnigramTokenizer.load(path).vocab == tok.vocab


def _corrupt(tok: UnigramTokenizer, tmp_path: Path, change) -> Path:
    data = tok.to_dict()
    change(data["config"])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c.update(normalization="nfc"), "normalization"),
        (lambda c: c.update(byte_fallback="yes"), "byte_fallback"),
        (lambda c: c["pieces"].append(["▁the", -1.0]), "repeated"),
        (lambda c: c["pieces"].append(["x", "-1.0"]), "finite"),
        (lambda c: c["pieces"].append(["x"]), "piece, score"),
        (lambda c: c["pieces"].append(["", -1.0]), "empty"),
        (lambda c: c["pieces"].append(["<s>", -1.0]), "special"),
        (lambda c: c["pieces"].append(["<0x41>", -1.0]), "byte"),
        (lambda c: c["pieces"].append(["a▁b", -1.0]), "split_by_whitespace"),
        (lambda c: c.update(pieces=[]), "non-empty"),
        (lambda c: c.pop("pieces"), "pieces"),
        (lambda c: c.update(byte_fallback=False, special_tokens=["<s>"]), "<unk>"),
    ],
)
def test_load_rejects_corrupt_files(small, tmp_path, change, message):
    path = _corrupt(small, tmp_path, change)
    with pytest.raises(TokenizerFileError, match=message):
        tokref.load(path)


def test_load_rejects_other_types(small, tmp_path):
    path = tmp_path / "char.json"
    tokref.CharTokenizer().train("abc").save(path)
    with pytest.raises(TokenizerFileError, match="not a UnigramTokenizer"):
        UnigramTokenizer.load(path)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_untrained():
    tok = UnigramTokenizer()
    with pytest.raises(NotTrainedError, match="train"):
        tok.encode("a")
    with pytest.raises(NotTrainedError):
        tok.encode_nbest("a", 2)
    with pytest.raises(NotTrainedError):
        tok.sample_encode("a")
    with pytest.raises(NotTrainedError):
        tok.pieces


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"vocab_size": "8000"}, TypeError, "vocab_size must be int"),
        ({"vocab_size": 100}, ValueError, r"pass vocab_size >= 2\d\d"),
        ({"vocab_size": 300, "byte_fallback": 1}, TypeError, "byte_fallback must be True or False"),
        ({"vocab_size": 300, "normalization": "nfc"}, ValueError, "'nfkc' or 'identity'"),
        ({"vocab_size": 300, "shrinking_factor": 1.0}, ValueError, "between 0 and 1"),
        ({"vocab_size": 300, "shrinking_factor": "x"}, TypeError, "shrinking_factor"),
        ({"vocab_size": 300, "num_sub_iterations": 0}, ValueError, "at least 1"),
        ({"vocab_size": 300, "max_piece_length": 2.5}, TypeError, "max_piece_length must be int"),
        ({"vocab_size": 300, "special_tokens": ["<s>"], "byte_fallback": False}, ValueError, "add it to"),
        ({"vocab_size": 300, "special_tokens": ["<0x41>"]}, ValueError, "byte-fallback"),
        ({"vocab_size": 300, "special_tokens": "<unk>"}, TypeError, "sequence of str"),
    ],
)
def test_train_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        UnigramTokenizer().train(["the cat sat"], **kwargs)


def test_bad_texts_and_ids(small):
    with pytest.raises(TypeError, match="decode it first"):
        UnigramTokenizer().train(b"bytes", 300)
    with pytest.raises(ValueError, match="empty corpus"):
        UnigramTokenizer().train([""], 300)
    with pytest.raises(ValueError, match="only whitespace"):
        UnigramTokenizer().train(["   \n "], 300)
    with pytest.raises(TypeError, match="decode it first"):
        small.encode(b"abc")
    with pytest.raises(TypeError, match="text must be str"):
        small.encode_nbest(None, 2)
    with pytest.raises(TypeError, match="k must be int"):
        small.encode_nbest("a", 2.0)
    with pytest.raises(ValueError, match="k must be at least 1"):
        small.encode_nbest("a", 0)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        small.sample_encode("a", alpha=0)
    with pytest.raises(TypeError, match="alpha"):
        small.sample_encode("a", alpha="big")
    with pytest.raises(TypeError, match="seed must be"):
        small.sample_encode("a", seed="x")
    with pytest.raises(ValueError, match="not a token id"):
        small.decode([small.vocab_size])
    with pytest.raises(TypeError, match="scores must be a dict"):
        viterbi("a", [("a", -1.0)])
    with pytest.raises(ValueError, match="finite"):
        viterbi("a", {"a": math.inf})
    with pytest.raises(TypeError, match="sentences must map"):
        seed_pieces({"a": 1.5})


def test_repr_and_vocab(small):
    assert repr(small) == "UnigramTokenizer(vocab_size=2000)"
    assert small.unk_id == 0 and small.special_tokens == ("<unk>", "<s>", "</s>")
    scores = [s for _, s in small.pieces[259:]]
    assert scores == sorted(scores, reverse=True)  # pieces by descending score
    assert all(s < 0 for s in scores)
    assert len(small.vocab) == 2000


# ---------------------------------------------------------------------------
# The options object, from_pieces, and the read-only views of the model
# ---------------------------------------------------------------------------


def test_trainer_options_are_checked_once_and_frozen():
    from dataclasses import FrozenInstanceError

    from tokref.unigram import UnigramTrainerOptions

    options = UnigramTrainerOptions(vocab_size=np.int64(300), special_tokens=["<unk>", "<s>"],
                                    shrinking_factor=1 / 2)
    assert options.vocab_size == 300 and type(options.vocab_size) is int
    assert options.special_tokens == ("<unk>", "<s>") and options.shrinking_factor == 0.5
    assert options.n_meta == 258 and options.n_pieces == 42
    assert options.meta_pieces == ("<unk>", "<s>", *BYTE_PIECES)
    assert options.reserved == frozenset(options.meta_pieces)
    assert UnigramTrainerOptions(vocab_size=10, byte_fallback=False).n_meta == 3
    with pytest.raises(FrozenInstanceError):
        options.vocab_size = 5  # type: ignore[misc]
    # The same checks and messages as train's.
    for kwargs, error, message in [
        ({"vocab_size": "8000"}, TypeError, "vocab_size must be int"),
        ({"vocab_size": 300, "trace": 1}, TypeError, "trace must be True or False"),
        ({"vocab_size": 300, "seed_size": 0}, ValueError, "seed_size must be at least 1"),
        ({"vocab_size": 300, "max_piece_length": True}, TypeError, "max_piece_length must be int"),
        ({"vocab_size": 300, "shrinking_factor": 0}, ValueError, "between 0 and 1"),
        ({"vocab_size": 300, "normalization": "NFKC"}, ValueError, "'nfkc' or 'identity'"),
        ({"vocab_size": 300, "byte_fallback": False, "special_tokens": ()}, ValueError, "'<unk>'"),
    ]:
        with pytest.raises(error, match=message):
            UnigramTrainerOptions(**kwargs)
    # train's signature is unchanged: every option is a keyword argument of train.
    import dataclasses
    import inspect

    params = inspect.signature(UnigramTokenizer.train).parameters
    fields = {f.name for f in dataclasses.fields(UnigramTrainerOptions)} - {"unk_token"}
    assert fields <= set(params)
    for f in dataclasses.fields(UnigramTrainerOptions):
        if f.name in params and f.name != "vocab_size":
            assert params[f.name].default == f.default, f.name


def test_train_hands_one_options_object_down(monkeypatch):
    import tokref.unigram.tokenizer as tokenizer_module

    seen = []
    real = tokenizer_module.train_pieces

    def spy(corpus, options):
        seen.append(options)
        return real(corpus, options)

    monkeypatch.setattr(tokenizer_module, "train_pieces", spy)
    tok = UnigramTokenizer().train(cat_lines(), 300, seed_size=50, trace=True)
    (options,) = seen
    assert (options.vocab_size, options.seed_size, options.trace) == (300, 50, True)
    assert tok.trace and all(step.size > 0 for step in tok.trace)


def test_from_pieces_rebuilds_a_trained_tokenizer(small, tiny_identity):
    for tok in (small, tiny_identity):
        config = tok.to_dict()["config"]
        first = len(tok.special_tokens) + 256
        rebuilt = UnigramTokenizer.from_pieces(
            tok.pieces[first:], normalization=config["normalization"],
            add_dummy_prefix=config["add_dummy_prefix"],
            split_by_whitespace=config["split_by_whitespace"],
            byte_fallback=config["byte_fallback"], special_tokens=tok.special_tokens,
        )
        assert rebuilt.to_dict() == tok.to_dict()
        text = "  Thou art ▁ a ﬁne 東 fellow! "
        assert rebuilt.encode(text) == tok.encode(text)
    as_dict = UnigramTokenizer.from_pieces({"▁": -1.0, "a": -2.0})
    assert as_dict.pieces[-2:] == [("▁", -1.0), ("a", -2.0)]


@pytest.mark.parametrize(
    "pieces, kwargs, error, message",
    [
        ([("a", -1.0), ("a", -2.0)], {}, ValueError, "repeated"),
        ([("a", "-1")], {}, TypeError, "piece, score"),
        ([("a", math.nan)], {}, TypeError, "finite"),
        ([("", -1.0)], {}, ValueError, "empty"),
        ([("<s>", -1.0)], {}, ValueError, "special"),
        ([("<0x41>", -1.0)], {}, ValueError, "byte"),
        ([("a▁b", -1.0)], {}, ValueError, "split_by_whitespace"),
        ([], {}, ValueError, "non-empty"),
        ("ab", {}, TypeError, "pieces must be a dict"),
        ([("a", -1.0)], {"byte_fallback": False, "special_tokens": ["<s>"]}, ValueError, "<unk>"),
        ([("a", -1.0)], {"add_dummy_prefix": "yes"}, TypeError, "add_dummy_prefix must be True or False"),
    ],
)
def test_from_pieces_rejects_bad_pieces(pieces, kwargs, error, message):
    with pytest.raises(error, match=message):
        UnigramTokenizer.from_pieces(pieces, **kwargs)
    # Allowed without split_by_whitespace.
    assert UnigramTokenizer.from_pieces([("a▁b", -1.0)], split_by_whitespace=False).vocab_size == 260


def test_public_views_of_the_model(small, tiny_identity):
    no_bytes = UnigramTokenizer().train(cat_lines(), 40, byte_fallback=False)
    for tok in (small, tiny_identity, no_bytes):
        scores = tok.scores
        assert scores == tok._scores and scores is not tok._scores  # a copy
        scores.append(1.0)
        assert len(tok.scores) == tok.vocab_size
        assert tok.scores == [s for _, s in tok.pieces]
        assert tok.unk_score == tok._model.unk_score
        assert tok.unk_score == min(tok.scores[len(tok.special_tokens) + (256 if tok.byte_fallback else 0):]) - 10
        assert tok.byte_base == (len(tok.special_tokens) if tok.byte_fallback else None)
        # The base class's unk_id is the id of "<unk>", as before.
        assert tok.unk_id == tok.vocab.get("<unk>") == tok._unk_id
        for text in ["", " ", "the cat sat", "  Thou art ▁ a ﬁne 東 fellow! ", "x\ty"]:
            norm = tok.normalize(text)
            units = tok.split_units(norm)
            assert units == tok._units(norm)
            prefixed = " " + norm if tok.add_dummy_prefix and norm else norm
            assert "".join(units) == prefixed
            ids: list[int] = []
            for unit in units:
                got, spans = tok.encode_unit(unit)
                assert (got, spans) == tok._encode_unit(unit)
                assert len(got) == len(spans)
                assert all(0 <= i < j <= len(unit) for i, j in spans)
                ids.extend(got)
            if tok.byte_fallback:
                assert ids == tok.encode(text)
    assert small.byte_base == 3 and small.pieces[small.byte_base + 0x41][0] == "<0x41>"
    with pytest.raises(TypeError, match="normalized must be str"):
        small.split_units(None)
    with pytest.raises(TypeError, match="unit must be str"):
        small.encode_unit(b" a")
    untrained = UnigramTokenizer()
    for view in ("scores", "unk_score", "byte_base", "unk_id"):
        with pytest.raises(NotTrainedError):
            getattr(untrained, view)
    with pytest.raises(NotTrainedError):
        untrained.encode_unit(" a")


def test_unk_id_follows_a_renamed_unk_token():
    class Renamed(UnigramTokenizer):
        unk_token = "[UNK]"

    tok = Renamed().train(cat_lines(), 40, byte_fallback=False, special_tokens=["[UNK]", "<s>"])
    assert tok.unk_id == 0 == tok._unk_id
    assert tok.tokenize("the zzq cat")[:3] == ["▁the", "▁", "[UNK]"]
    with pytest.raises(ValueError, match=r"need '\[UNK\]'"):
        Renamed().train(cat_lines(), 40, byte_fallback=False)
