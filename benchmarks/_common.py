"""What the benchmark scripts share: timing, throughput, profiling and their options.

The scripts run as ``python benchmarks/bench_<x>.py``, so this folder is on ``sys.path``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any], repeat: int = 1, setup: Callable[[], Any] | None = None) -> tuple[float, Any]:
    """The best wall time of ``repeat`` calls (``setup`` runs untimed before each), and
    the last result. The garbage collector is paused while timing, as timeit does."""
    best, result = float("inf"), None
    for _ in range(repeat):
        if setup is not None:
            setup()
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            result = fn()
            best = min(best, time.perf_counter() - t0)
        finally:
            gc.enable()
    return best, result


def mb_per_s(n_bytes: int, seconds: float) -> float:
    return n_bytes / seconds / 1e6


def profile(label: str, fn: Callable[[], Any], top: int) -> None:
    """Run ``fn`` under cProfile and print the ``top`` functions by own time."""
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    text = out.getvalue()
    print(f"\n--- cProfile: {label} (sorted by own time) ---")
    print(text[text.index("   ncalls") :].rstrip())


def common_parser(doc: str | None) -> argparse.ArgumentParser:
    """The options every benchmark takes; a script adds its own."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=3, help="encoding runs; the best is reported")
    ap.add_argument("--train-repeat", type=int, default=1, help="training runs; the best is reported")
    ap.add_argument("--profile", action="store_true", help="cProfile tokref's training and encoding")
    ap.add_argument("--top", type=int, default=15, help="functions shown per profile")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers to FILE as JSON")
    return ap
