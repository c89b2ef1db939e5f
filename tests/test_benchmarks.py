"""The scaling benchmark's pieces: the corpus generator (deterministic, one stream whose
prefixes are the sizes, new words as it grows) and bench_scaling.py end to end on a tiny
grid. Nothing here is timed: the benchmark's times are its own business."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import gen_corpus  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[float, Path]:
    """Corpora of 0.05, 0.2 and 0.8 MB, seed 0, in a fresh cache (generated in one pass)."""
    return gen_corpus.corpus_paths([0.05, 0.2, 0.8], seed=0, cache_dir=tmp_path_factory.mktemp("cache"))


def test_the_generator_is_deterministic(tiny, tmp_path):
    again = gen_corpus.corpus_path(0.05, seed=0, cache_dir=tmp_path / "again")
    assert again.read_bytes() == tiny[0.05].read_bytes(), (
        "corpus_path(0.05, seed=0) wrote different bytes in two fresh caches; the same seed must give "
        "the same corpus"
    )
    other = gen_corpus.corpus_path(0.05, seed=1, cache_dir=tmp_path / "seed1")
    assert other.read_bytes() != tiny[0.05].read_bytes(), "seeds 0 and 1 gave the same 0.05 MB corpus"


def test_sizes_are_prefixes_of_one_stream_cut_at_a_newline(tiny):
    small, mid, big = (tiny[s].read_bytes() for s in (0.05, 0.2, 0.8))
    for size, data in ((0.05, small), (0.2, mid), (0.8, big)):
        limit = int(size * 1e6)
        assert limit - 1000 < len(data) <= limit, f"the {size} MB corpus has {len(data):,} bytes, not about {limit:,}"
        assert data.endswith(b"\n"), f"the {size} MB corpus ends with {data[-20:]!r}, not at a line's end"
        data.decode("utf-8")  # valid UTF-8, or this raises
    assert mid.startswith(small) and big.startswith(mid), (
        "with one seed a smaller corpus must be a prefix of a larger one (one stream, cut at each size)"
    )


def test_the_cache_is_reused(tiny):
    path = tiny[0.2]
    stamp = path.stat().st_mtime_ns
    again = gen_corpus.corpus_paths([0.2], seed=0, cache_dir=path.parent)[0.2]
    assert again == path and path.stat().st_mtime_ns == stamp, "a cached corpus was written again"
    assert f"v{gen_corpus.GENERATOR_VERSION}" in path.name and "seed0" in path.name and "0.2MB" in path.name


def test_distinct_pretokens_keep_growing(tiny):
    """Heaps' law: each 4x larger corpus has many new pre-tokens (repetition would have none)."""
    distinct = {s: gen_corpus.distinct_pretokens(p)[0] for s, p in tiny.items()}
    assert distinct[0.2] > 1.5 * distinct[0.05] and distinct[0.8] > 1.5 * distinct[0.2], (
        f"distinct GPT-2 pre-tokens by size (MB): {distinct}; each 4x larger corpus should have over 1.5x "
        "as many, as real text does (Heaps' law: about 2x for a 4x larger text)"
    )


def test_bench_scaling_runs_end_to_end_on_a_tiny_grid(tmp_path):
    out = tmp_path / "results.json"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bench_scaling.py"), "--sizes", "0.05", "--vocab-sizes", "300",
           "--no-sentencepiece", "--cache-dir", str(tmp_path / "cache"), "--json", str(out), "--timeout", "120"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    res = json.loads(out.read_text())
    assert res["failures"] == [], res["failures"]
    (row,) = res["train"]
    assert row["merges_1p_eq_2p"] is True, f"tokref's merges with 1 and 2 processes differ: {row}"
    assert row["tokref_1p"]["n_merges"] == 300 - 256, row["tokref_1p"]
    same = row["vs_tokenizers"]  # against tokenizers on the same pre-tokens
    assert same["k"] == same["n"] or same["tie"] is True, (
        f"tokref's merges differ from tokenizers' on the same pre-tokens at merge {same['k']} without a tie: {same}"
    )
    assert res["encode"]["ids_identical"] is True, res["encode"]
    assert res["memory"][0]["counts_bytes"] > 0 and res["memory"][0]["train_peak_bytes"] > 0, res["memory"]
    for part in ("Training", "Peak RSS", "Memory of tokref", "Encoding", "Targets"):
        assert part in proc.stdout, f"the output has no {part!r} section:\n{proc.stdout}"
