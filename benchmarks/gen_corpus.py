"""Benchmark corpora of any size, sampled from the shipped Shakespeare (5.06 MB).

Run from the repository root::

    .venv/bin/python benchmarks/gen_corpus.py                  # 1, 5, 25 and 50 MB, seed 0
    .venv/bin/python benchmarks/gen_corpus.py --sizes 0.05 2   # any sizes, in MB (10**6 bytes)

prints each file with its distinct GPT-2 pre-tokens (the growth the scaling benchmark
needs); ``bench_scaling.py`` imports :func:`corpus_paths`.

**The rule (one for every size).** The corpus of N MB with seed s is the first
N x 10**6 bytes of one endless stream, cut back to its last newline, so with the same
seed a smaller corpus is a prefix of a larger one. The stream is a sample of a character
Markov model fitted to the source: the 42 works of ``tokref.corpus.load_texts("all")``
joined by blank lines (plus one at the end), read as a cycle. It is sampled fast by
*copying runs*: the state is a position of the source; copy the next ``l`` characters
(``l`` uniform in 1..8), then jump to a position of the source, picked uniformly among
all those whose preceding characters are the last ones written -- the last 6
(order 6), or with probability 0.06 only the last 3 (a back-off to order 3). So each
character follows its 6 (sometimes 3) predecessors as it does somewhere in Shakespeare.
A context always occurs (the position just reached has it), the draws come in blocks of
a fixed size from ``numpy.random.default_rng(seed)``, and nothing else is random: same
seed, same bytes, on any machine with the same numpy.

**Why the back-off.** Text must keep gaining new words as it grows (Heaps' law: about
``K * n**beta`` distinct words in ``n`` words; the shipped corpus has 15,413 distinct
GPT-2 pre-tokens in its first MB and 36,351 in all 5.06 MB, beta ~ 0.5), or the pre-token
counts -- all that training holds -- would stop growing, and a 50 MB run would measure
10 copies of a 5 MB one. Repetition has no new words at all; order 6 alone has few,
because 6 characters nearly fix the word they are in: measured 16.6k, 30.9k, 41.1k and
43.5k distinct pre-tokens at 1, 5, 25 and 50 MB (+6 % for the last doubling). New words
appear at the junctions, where a word can continue as another word with the same last
characters does (" pluckingham", " unprovidence", " Cythereabouts": 0.7 % of the
pre-tokens of the 1 MB sample are not in Shakespeare); the order-3 back-off makes that
happen often enough, and its rate, 0.06, was chosen so that the 5 MB sample has as many distinct
pre-tokens as the real corpus (36.6k against 36.4k). Then they keep growing: 17.8k,
36.6k, 65.2k and 84.9k at 1, 5, 25 and 50 MB (beta 0.45, 0.36, 0.38 between the sizes;
printed by this script). A sample of a fixed 5 MB source cannot invent names and rare
words as a larger real corpus would, so its growth is somewhat slower than real text's.

Why not the real corpus's prefixes for the small sizes: one rule for every size keeps the
sizes comparable (the works are in alphabetical order, so a 1 MB prefix would be the
first eight, from All's Well to Henry IV Part 1; every sample mixes all 42).

**Cost.** The model is one sort of the source's positions by their 6 preceding bytes,
most recent byte first, so the positions sharing a 3-byte context form one range of the
same order too: five ``int32`` arrays of the source's length (100 MB for 5 MB); the
process peaks at 290 MB while sorting. Sampling is a Python loop of a few array look-ups
per run (11 million runs for 50 MB), written to disk block by block: 50 MB took 12 s on
the 2-core machine of benchmarks/README.md at load average 2.5, and the smaller sizes
come in the same pass. Files are cached in ``benchmarks/.cache/`` (gitignored) under a
name holding the generator's version, the seed and the size, and reused when present.
"""

from __future__ import annotations

import argparse
import array
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

#: Bump when the rule changes: cached files carry it in their names.
GENERATOR_VERSION = 1
ORDER = 6  #: characters of context at a junction
BACKOFF_ORDER = 3  #: characters of context at a back-off junction
BACKOFF_RATE = 0.06  #: probability that a junction backs off
MAX_RUN = 8  #: characters copied per run: uniform in 1..MAX_RUN
BLOCK = 1 << 16  #: runs drawn at a time (fixed: the stream must not depend on the size)
DEFAULT_SIZES = (1, 5, 25, 50)
CACHE_DIR = Path(__file__).resolve().parent / ".cache"

__all__ = ["corpus_path", "corpus_paths", "generate", "stream_blocks", "distinct_pretokens"]


def source_bytes() -> bytes:
    """The source of the model: the shipped works joined by blank lines, plus a blank
    line at the end, where the cycle joins the last work to the first."""
    from tokref.corpus import load_texts

    return ("\n\n".join(load_texts("all")) + "\n\n").encode("utf-8")


class _Model:
    """The sorted positions and, for each position, the range of positions sharing its
    context (order 6 and order 3) in that sorted list."""

    def __init__(self, source: bytes) -> None:
        a = np.frombuffer(source, dtype=np.uint8)
        n = len(a)
        # key[q]: the ORDER bytes before q (cyclically), the most recent one most
        # significant, so that positions sharing a shorter context are contiguous too.
        key = np.zeros(n, dtype=np.uint64)
        for j in range(1, ORDER + 1):
            key <<= np.uint64(8)
            key |= np.roll(a, j)
        perm = np.argsort(key, kind="stable").astype(np.int32)
        key = key[perm]
        self.n = n
        self.perm = array.array("i", perm.tobytes())
        self.start, self.count = self._ranges(key, perm)
        key >>= np.uint64(8 * (ORDER - BACKOFF_ORDER))
        self.start_low, self.count_low = self._ranges(key, perm)
        del key, perm
        # Copies may run past the end: append the first MAX_RUN bytes (the cycle).
        self.text = np.concatenate([a, a[:MAX_RUN]])

    @staticmethod
    def _ranges(sorted_keys: np.ndarray, perm: np.ndarray) -> tuple[array.array, array.array]:
        n = len(sorted_keys)
        first = np.empty(n, dtype=bool)
        first[0] = True
        np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=first[1:])
        starts = np.flatnonzero(first).astype(np.int32)
        counts = np.diff(np.append(starts, np.int32(n)))
        group = np.cumsum(first, dtype=np.int32) - 1
        start = np.empty(n, dtype=np.int32)
        count = np.empty(n, dtype=np.int32)
        start[perm] = starts[group]
        count[perm] = counts[group]
        return array.array("i", start.tobytes()), array.array("i", count.tobytes())


def stream_blocks(seed: int = 0, source: bytes | None = None) -> Iterator[bytes]:
    """The endless stream of the module docstring, in blocks of ``BLOCK`` runs."""
    m = _Model(source_bytes() if source is None else source)
    rng = np.random.default_rng(seed)
    n, perm = m.n, m.perm
    start, count, start_low, count_low = m.start, m.count, m.start_low, m.count_low
    # The first run starts as if the stream followed the end of the source.
    p = perm[start[0] + int(rng.random() * count[0])]
    while True:
        lengths = rng.integers(1, MAX_RUN + 1, BLOCK)
        picks = rng.random(BLOCK).tolist()
        backoff = (rng.random(BLOCK) < BACKOFF_RATE).tolist()
        runs = []
        add = runs.append
        for length, u, low in zip(lengths.tolist(), picks, backoff):
            add(p)
            q = p + length
            if q >= n:
                q -= n
            if low:
                p = perm[start_low[q] + int(u * count_low[q])]
            else:
                p = perm[start[q] + int(u * count[q])]
        # Gather the runs' bytes at once: run i is text[runs[i] : runs[i] + lengths[i]].
        offsets = np.cumsum(lengths) - lengths
        idx = np.repeat(np.asarray(runs, dtype=np.int64) - offsets, lengths) + np.arange(int(lengths.sum()))
        yield m.text[idx].tobytes()


def _file_name(size_mb: float, seed: int) -> str:
    return f"shakespeare-markov-v{GENERATOR_VERSION}-seed{seed}-{size_mb:g}MB.txt"


def corpus_path(size_mb: float, seed: int = 0, cache_dir: Path = CACHE_DIR) -> Path:
    """The cached corpus of ``size_mb`` MB (generated first if it is missing)."""
    return corpus_paths([size_mb], seed, cache_dir)[size_mb]


def corpus_paths(sizes: Iterable[float], seed: int = 0, cache_dir: Path = CACHE_DIR) -> dict[float, Path]:
    """``{size: path}`` for every size in MB, generating the missing ones in one pass."""
    sizes = sorted(set(sizes))
    if not sizes or sizes[0] <= 0:
        raise ValueError(f"sizes must be positive numbers of MB, got {sizes}")
    paths = {s: cache_dir / _file_name(s, seed) for s in sizes}
    missing = [s for s in sizes if not paths[s].exists()]
    if missing:
        generate({s: paths[s] for s in missing}, seed)
    return paths


def generate(targets: dict[float, Path], seed: int = 0) -> None:
    """Write the corpus of each size ``{size_mb: path}``: one pass over the stream, each
    file written to a temporary name and renamed when complete."""
    todo = sorted(targets.items())
    for _, path in todo:
        path.parent.mkdir(parents=True, exist_ok=True)
    open_files = [(int(s * 1e6), path, path.with_name(path.name + f".tmp{os.getpid()}")) for s, path in todo]
    handles = {tmp: tmp.open("wb") for _, _, tmp in open_files}
    written, last_newline = 0, -1  # stream offsets
    try:
        for block in stream_blocks(seed):
            for n_bytes, path, tmp in list(open_files):
                f = handles[tmp]
                f.write(block[: max(0, n_bytes - written)])
                if written + len(block) >= n_bytes:
                    nl = block.rfind(b"\n", 0, n_bytes - written)
                    cut = written + nl + 1 if nl >= 0 else last_newline + 1
                    f.truncate(cut if cut > 0 else n_bytes)
                    f.close()
                    os.replace(tmp, path)
                    open_files.remove((n_bytes, path, tmp))
            if not open_files:
                return
            nl = block.rfind(b"\n")
            if nl >= 0:
                last_newline = written + nl
            written += len(block)
    finally:
        for _, _, tmp in open_files:
            handles[tmp].close()
            tmp.unlink(missing_ok=True)


def distinct_pretokens(path: Path, processes: int = 1) -> tuple[int, int]:
    """(distinct, total) GPT-2 pre-tokens of a UTF-8 file, counted by tokref streaming it."""
    from tokref.counting import count_corpus
    from tokref.pretokenize import GPT2_PATTERN

    counts = count_corpus(Path(path), GPT2_PATTERN, processes=processes)
    return len(counts), sum(counts.values())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=list(DEFAULT_SIZES), help="MB (10**6 bytes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-count", action="store_true", help="do not count the pre-tokens")
    ap.add_argument("--processes", type=int, default=2, help="processes counting pre-tokens")
    ap.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    paths = corpus_paths(args.sizes, args.seed, args.cache_dir)
    print(f"{len(paths)} corpora ready in {time.perf_counter() - t0:.1f} s (seed {args.seed}; "
          f"generated only if not cached in {args.cache_dir})")
    if args.no_count:
        for s, path in paths.items():
            print(f"  {s:>6g} MB  {path.stat().st_size:>12,} bytes  {path}")
        return 0
    print("\nDistinct GPT-2 pre-tokens (Heaps' law: distinct ~ K * total**beta)")
    print(f"  {'MB':>6}  {'bytes':>12}  {'pre-tokens':>12}  {'distinct':>9}  {'beta':>5}  file")
    prev = None
    for s, path in paths.items():
        distinct, total = distinct_pretokens(path, args.processes)
        beta = "" if prev is None else f"{math.log(distinct / prev[0]) / math.log(total / prev[1]):.2f}"
        print(f"  {s:>6g}  {path.stat().st_size:>12,}  {total:>12,}  {distinct:>9,}  {beta:>5}  {path.name}")
        prev = (distinct, total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
