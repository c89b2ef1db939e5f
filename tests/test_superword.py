"""SuperBPE's two-stage trainer (tokref.superword): the stage-2 pieces equal Hugging Face's
Split(isolated) on the authors' regex; the fast trainer equals the recount-everything
oracle on seeded random corpora; the authors' filters; clear errors."""

from __future__ import annotations

import random

import pytest
import regex

from tokref.bytelevel import ByteLevelBPETokenizer
from tokref.superword import (
    SUPERBPE_SPLIT_PATTERN, SUPERWORD_PATTERN, continue_merges, continue_merges_naive, is_superword_allowed,
    stage2_words, train_superword,
)

ALPHABET = "ab c  de.,:!?\n1234é中/-"


def _random_texts(seed: int, n: int = 6, length: int = 60) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, length))) for _ in range(n)]


def test_pieces_equal_huggingface_split_isolated() -> None:
    tokenizers = pytest.importorskip("tokenizers")
    split = tokenizers.pre_tokenizers.Split(
        pattern=tokenizers.Regex(SUPERBPE_SPLIT_PATTERN), behavior="isolated", invert=False)
    pat = regex.compile(SUPERWORD_PATTERN)
    rng = random.Random(0)
    cases = ["Note: the cat -- sat 12345 times...\n  and\n", "a  b   c\t\n", "¿Qué? 3.14, 1/2"]
    cases += ["".join(rng.choice(ALPHABET + "\t\r") for _ in range(rng.randint(0, 40))) for _ in range(3000)]
    for text in cases:
        assert pat.findall(text) == [p for p, _ in split.pre_tokenize_str(text)], text


@pytest.mark.parametrize("seed", range(12))
def test_fast_equals_oracle(seed: int) -> None:
    texts = _random_texts(seed)
    rng = random.Random(seed)
    t = rng.randint(0, 12)
    stage1 = ByteLevelBPETokenizer().train(texts, 256 + t)
    pairs = [(a, b) for a, b, _ in stage1.merge_ids]
    words = stage2_words(texts)
    n = len(stage1.token_bytes) + rng.randint(0, 25)
    max_words = rng.choice([1, 2, 4])
    fast = continue_merges(words, stage1.token_bytes, pairs, n, max_words=max_words)
    slow = continue_merges_naive(words, stage1.token_bytes, pairs, n, max_words=max_words)
    assert fast.merges == slow.merges and fast.symbols == slow.symbols and fast.steps == slow.steps


def test_stage1_is_kept_and_superwords_cross_spaces() -> None:
    text = "of the king. of the queen. of the realm, of the sea\n" * 5
    tok = train_superword(text, 256 + 30, transition=10)
    base = ByteLevelBPETokenizer().train(text, 256 + 10)
    assert tok.token_bytes[: 256 + 10] == base.token_bytes
    assert any(b" " in t.strip() for t in tok.token_bytes[256 + 10:])
    assert tok.decode(tok.encode(text)) == text
    full = ByteLevelBPETokenizer().train(text, 256 + 15)
    assert len(full.token_bytes) == 256 + 15  # stage 1 alone fills the vocabulary here
    assert train_superword(text, 256 + 15, transition=15).token_bytes == full.token_bytes


def test_filters() -> None:
    assert not is_superword_allowed(b"Note: it")
    assert is_superword_allowed(b"Note:it") and is_superword_allowed(b" a b c d")
    assert not is_superword_allowed(b" a b c d e")
    assert not is_superword_allowed(b"a b c", max_words=2)
    words = {tuple(b"x: y"): 10, tuple(b"p q"): 1}
    syms = [bytes([i]) for i in range(256)]
    made = continue_merges(words, syms, [], 256 + 10).symbols[256:]
    assert all(b": " not in s for s in made) and b"p q" in made


def test_errors() -> None:
    with pytest.raises(ValueError, match="transition"):
        train_superword("abc", 256 + 2, transition=3)
    with pytest.raises(ValueError, match="does not make symbol"):
        continue_merges({}, [bytes([i]) for i in range(256)] + [b"xy"], [(97, 98)], 300)
    with pytest.raises(TypeError):
        train_superword("abc", 256 + 2, transition="1")  # type: ignore[arg-type]


def test_stage1_given_equals_trained() -> None:
    texts = _random_texts(99, n=8)
    big = ByteLevelBPETokenizer().train(texts, 256 + 12)
    for t in (0, 5, 12):
        a = train_superword(texts, 256 + 20, transition=t)
        b = train_superword(texts, 256 + 20, transition=t, stage1=big)
        assert a.token_bytes == b.token_bytes
