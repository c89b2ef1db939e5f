"""Long pieces (issue 21): the heap kernels of ``tokref.heapmerge`` make the merges of
the scans they replace on long words, and tokref stays tiktoken's twin on adversarial
input.

- Hypothesis: random pieces and words over two or three letters (so the same pair recurs
  everywhere, "aaaa..." included), random rank tables with many equal ranks (even
  negative ones for the symbol kernels), lengths around the crossover and far above it:
  ``heap_bounds`` against the byte scan, ``heap_ranked_merges`` step by step against
  the character-level scan (every occurrence per step, odd ``new_symbol``\\ s included),
  ``heap_sample_merges`` against the dropout scan with the same seed: the same
  segmentation *and* the same random numbers drawn.
- Real tables: cl100k_base against tiktoken (built from the same ranks) on the inputs
  of ``benchmarks/bench_adversarial.py``, shortened, and under GPT-2's pattern; the
  tokenizers' encoders with the heap switched off (the threshold raised) give the same
  ids as with it.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import tokref.merges
import tokref.ranks
from tokref import BPETokenizer, ByteLevelBPETokenizer, load_openai_encoding
from tokref.corpus import load_text
from tokref.heapmerge import HEAP_MIN_BYTES, HEAP_MIN_SYMBOLS, heap_bounds, heap_ranked_merges, heap_sample_merges
from tokref.merges import (
    _iter_ranked_merges_scan,
    _sample_ranked_merges_scan,
    apply_ranked_merges,
    iter_ranked_merges,
    sample_ranked_merges,
)
from tokref.pretokenize import GPT2_PATTERN
from tokref.ranks import _bpe_bounds_scan, bpe_encode_piece, bpe_sample_piece, bpe_split_piece

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from bench_adversarial import KINDS  # noqa: E402

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None, database=None)
NO_LIMIT = 1 << 32


# ---------------------------------------------------------------------------------------
# Strategies: short alphabets, so that pairs repeat; tables with many equal ranks
# ---------------------------------------------------------------------------------------

def pieces(alphabet: bytes) -> st.SearchStrategy[bytes]:
    """Random pieces around the crossover, or a short unit repeated far above it."""
    letters = st.sampled_from([bytes([c]) for c in alphabet])
    random_piece = st.lists(letters, max_size=3 * HEAP_MIN_BYTES).map(b"".join)
    repeated = st.tuples(st.lists(letters, min_size=1, max_size=4).map(b"".join), st.integers(1, 600)).map(
        lambda t: t[0] * t[1])
    return st.one_of(random_piece, repeated)


def byte_tables(alphabet: bytes) -> st.SearchStrategy[dict[bytes, int]]:
    token = st.lists(st.sampled_from([bytes([c]) for c in alphabet]), min_size=2, max_size=6).map(b"".join)
    return st.dictionaries(token, st.integers(0, 12), max_size=40)


SYMBOLS = ["a", "b", "c", "ab", "aa", "ba", "bb", "abc", "aab", "aaaa"]


def symbol_words() -> st.SearchStrategy[list[str]]:
    letters = st.sampled_from("abc")
    random_word = st.lists(letters, max_size=3 * HEAP_MIN_SYMBOLS)
    repeated = st.tuples(st.lists(letters, min_size=1, max_size=3), st.integers(1, 200)).map(lambda t: t[0] * t[1])
    return st.one_of(random_word, repeated)


def pair_tables() -> st.SearchStrategy[dict[tuple[str, str], int]]:
    pair = st.tuples(st.sampled_from(SYMBOLS), st.sampled_from(SYMBOLS))
    return st.dictionaries(pair, st.integers(-3, 12), max_size=30)


# ---------------------------------------------------------------------------------------
# Byte-level: tiktoken's rule
# ---------------------------------------------------------------------------------------

@PROPERTY
@given(st.data(), st.sampled_from([b"ab", b"abc", b"a"]), st.sampled_from([None, 0, 3, 7]))
def test_heap_bounds_are_the_scans(data, alphabet, max_rank):
    piece = data.draw(pieces(alphabet), label="piece")
    ranks = data.draw(byte_tables(alphabet), label="ranks")
    limit = NO_LIMIT if max_rank is None else max_rank
    assert heap_bounds(piece, ranks, limit) == _bpe_bounds_scan(piece, ranks, limit)


@PROPERTY
@given(st.data(), st.sampled_from([b"ab", b"abc"]), st.sampled_from([None, 0, 5, 200]))
def test_public_piece_functions_above_the_crossover(data, alphabet, max_rank):
    ranks = {bytes([c]): 100 + c for c in alphabet} | data.draw(byte_tables(alphabet), label="ranks")
    piece = data.draw(pieces(alphabet), label="piece")
    limit = NO_LIMIT if max_rank is None else max_rank
    if ranks.get(piece, NO_LIMIT) < limit:
        return
    bounds = _bpe_bounds_scan(piece, ranks, limit)
    tokens = [piece[s:e] for s, e in zip(bounds, bounds[1:])]
    assert bpe_split_piece(piece, ranks, max_rank=max_rank) == tokens
    for method in ("scan", "heap"):
        assert bpe_split_piece(piece, ranks, max_rank=max_rank, method=method) == tokens
    assert bpe_encode_piece(piece, ranks, max_rank=max_rank) == [ranks[t] for t in tokens]


def test_split_methods_and_a_bad_one():
    ranks = {b"a": 0, b"aa": 1, b"aaa": 2}
    for method in ("auto", "scan", "heap"):
        assert bpe_split_piece(b"aaa", ranks, method=method) == [b"aaa"]  # a token is one token
        assert bpe_split_piece(b"aaaaa", ranks, max_rank=2, method=method) == [b"aa", b"aa", b"a"]
    with pytest.raises(ValueError, match="method must be 'auto', 'scan' or 'heap', not 'fast'"):
        bpe_split_piece(b"aa", ranks, method="fast")


def test_the_crossover_is_where_the_kernels_switch(monkeypatch):
    calls = []
    monkeypatch.setattr(tokref.ranks, "heap_bounds", lambda *a: calls.append(a) or heap_bounds(*a))
    ranks = {b"a": 0, b"aa": 1}
    bpe_encode_piece(b"a" * (HEAP_MIN_BYTES - 1), ranks)
    assert not calls
    bpe_encode_piece(b"a" * HEAP_MIN_BYTES, ranks)
    assert len(calls) == 1


# ---------------------------------------------------------------------------------------
# Character-level: every occurrence of the best pair per step
# ---------------------------------------------------------------------------------------

NEW_SYMBOLS = {
    "concatenation": None,
    "first two characters": lambda a, b, r: (a + b)[:2],  # new symbols equal to old ones
    "always a": lambda a, b, r: "a",  # a merge can make the pair it merged
    "rank": lambda a, b, r: f"<{r}>",
}


@PROPERTY
@given(symbol_words(), pair_tables(), st.sampled_from(sorted(NEW_SYMBOLS)), st.sampled_from([None, 0, 4]))
def test_heap_ranked_merges_step_by_step_are_the_scans(word, ranks, new, max_rank):
    limit = float("inf") if max_rank is None else max_rank
    new_symbol = NEW_SYMBOLS[new]
    heap = [(r, c, w()) for r, c, w in heap_ranked_merges(word, ranks, limit, new_symbol)]
    assert heap == list(_iter_ranked_merges_scan(word, ranks, limit, new_symbol))
    assert list(iter_ranked_merges(word, ranks, max_rank=max_rank, new_symbol=new_symbol)) == heap
    last = heap[-1][2] if heap else list(word)
    assert apply_ranked_merges(word, ranks, max_rank=max_rank, new_symbol=new_symbol) == last


@PROPERTY
@given(symbol_words(), pair_tables(), st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), st.integers(0, 2**32))
def test_heap_dropout_draws_what_the_scan_draws(word, ranks, dropout, seed):
    rank_of = lambda a, b: ranks.get((a, b))  # noqa: E731
    rng_heap, rng_scan = random.Random(seed), random.Random(seed)
    assert heap_sample_merges(word, rank_of, dropout, rng_heap) == _sample_ranked_merges_scan(
        word, rank_of, dropout, rng_scan)
    assert rng_heap.getstate() == rng_scan.getstate(), "the same random numbers, as many of them"
    rng = random.Random(seed)
    assert sample_ranked_merges(word, rank_of, dropout=dropout, rng=rng) == heap_sample_merges(
        word, rank_of, dropout, random.Random(seed))


# ---------------------------------------------------------------------------------------
# Real tables
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cl100k():
    return load_openai_encoding("cl100k_base")


def twin(tok: ByteLevelBPETokenizer, pattern: str | None = None) -> tiktoken.Encoding:
    return tiktoken.Encoding("ref", pat_str=pattern or tok.pattern, mergeable_ranks=tok.mergeable_ranks,
                             special_tokens=tok.special_tokens_map)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_cl100k_equals_tiktoken_on_adversarial_input(cl100k, kind):
    text = KINDS[kind](random.Random(1), 30_000)
    cl100k.clear_cache()
    assert cl100k.encode_ordinary(text) == twin(cl100k).encode_ordinary(text)


def test_gpt2_pattern_on_one_long_run_of_digits_and_letters(cl100k):
    gpt2 = ByteLevelBPETokenizer.from_tiktoken(cl100k.mergeable_ranks, pattern=GPT2_PATTERN)
    rng = random.Random(2)
    for text in ("".join(rng.choices("0123456789", k=30_000)), "x" + "ab" * 20_000, " " * 20_000 + "z"):
        assert gpt2.encode_ordinary(text) == twin(gpt2).encode_ordinary(text)


def test_real_pieces_heap_equals_scan_and_tiktoken(cl100k):
    ranks = cl100k.mergeable_ranks
    text = load_text("heldout")
    rng = random.Random(3)
    for _ in range(20):  # slices of real text as single pieces: many distinct merges
        start = rng.randrange(len(text) - 3000)
        piece = text[start : start + rng.randrange(HEAP_MIN_BYTES, 3000)].encode("utf-8")
        assert heap_bounds(piece, ranks, NO_LIMIT) == _bpe_bounds_scan(piece, ranks, NO_LIMIT)
    for piece in (b"a" * 5000, b" " * 5000, "日本語のテキスト".encode() * 100, bytes(range(256)) * 8):
        assert heap_bounds(piece, ranks, NO_LIMIT) == _bpe_bounds_scan(piece, ranks, NO_LIMIT)
        assert bpe_encode_piece(piece, ranks) == twin(cl100k)._encode_single_piece(piece)


def test_a_long_piece_is_not_quadratic(cl100k):
    # The scan took about 68 s on 100,000 "a" (issue 21); the heap takes well under 1 s.
    start = time.process_time()
    ids = bpe_encode_piece(b"a" * 200_000, cl100k.mergeable_ranks)
    assert time.process_time() - start < 15
    assert ids == twin(cl100k)._encode_single_piece(b"a" * 200_000)


@pytest.fixture
def scan_only(monkeypatch):
    """Switch the heap off: every word and piece is merged by the scan."""
    def switch():
        monkeypatch.setattr(tokref.ranks, "HEAP_MIN_BYTES", 1 << 62)
        monkeypatch.setattr(tokref.merges, "HEAP_MIN_SYMBOLS", 1 << 62)
    return switch


def test_tokenizers_give_the_same_ids_with_and_without_the_heap(cl100k, scan_only):
    rng = random.Random(4)
    long_words = " ".join("".join(rng.choices("abcdefgh", k=rng.randrange(10, 300))) for _ in range(30))
    text = load_text("heldout")[:3000] + " " + long_words
    char = BPETokenizer().train(load_text("train")[:100_000] + " " + long_words[:2000], 600)
    heap = (char.encode(text), char.sample_encode(text, dropout=0.2, seed=5),
            cl100k.encode(text), cl100k.sample_encode(text, dropout=0.2, seed=5),
            bpe_sample_piece(long_words.encode(), cl100k.mergeable_ranks, dropout=0.1, rng=random.Random(6)))
    scan_only()
    char.clear_cache()
    cl100k.clear_cache()
    scan = (char.encode(text), char.sample_encode(text, dropout=0.2, seed=5),
            cl100k.encode(text), cl100k.sample_encode(text, dropout=0.2, seed=5),
            bpe_sample_piece(long_words.encode(), cl100k.mergeable_ranks, dropout=0.1, rng=random.Random(6)))
    cl100k.clear_cache()
    assert heap == scan


def test_streaming_a_long_piece(cl100k):
    text = "".join(random.Random(7).choices("ACGT", k=100_000))
    chunks = [text[i : i + 4096] for i in range(0, len(text), 4096)]
    assert list(cl100k.encode_iterable(chunks)) == twin(cl100k).encode_ordinary(text)
