"""Benchmark what exactness on every code point costs the pre-tokenizer, in one run.

Run from the repository root::

    .venv/bin/python benchmarks/bench_pretokenize.py              # about a minute
    .venv/bin/python benchmarks/bench_pretokenize.py --repeat 30  # steadier minima

Issue 28: ``regex`` carries a newer Unicode than tiktoken, so tokref's pre-tokenizer uses
tiktoken's classes (Unicode 16.0.0, ``tokref.unicode_classes``). ``pieces_finder`` runs a
pattern with ``regex``'s own (fast) tables unless the text holds one of the code points
where the two disagree (``disputed_chars``), and then the frozen pattern, whose explicit
classes ``regex`` matches several times slower. This measures, for cl100k_base and
o200k_base, on non-ASCII text (ASCII text takes the ``re`` fast path, unchanged):

- ``findall``: the pattern's own ``findall`` (what tokref ran before, inexact);
- ``finder``: ``pieces_finder`` (the check, then the same ``findall``);
- ``frozen``: the frozen pattern's ``findall`` (what a text with a disputed code point pays);
- ``encode``: tokref's warm ``encode_ordinary`` (pieces cached), to put the check's cost in
  proportion.

Texts: the parallel corpus of chapter 9 (139 messages in 28 languages) repeated to 1 MB;
the held-out Shakespeare with every "e" made "é" (Latin-1); its 5,000 first non-ASCII
messages one by one (the per-call cost). Times are CPU times of this process (steadier
than wall times on a shared machine), the best of ``--repeat`` runs, the arms alternating
(the frozen pattern: one run).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import regex

from tokref.bytelevel import load_openai_encoding
from tokref.corpus import load_text
from tokref.pretokenize import CL100K_PATTERN, O200K_PATTERN, compile_frozen, pieces_finder

DATA = Path(__file__).resolve().parents[1] / "solutions" / "tokref" / "data" / "parallel"


def texts() -> dict[str, list[str]]:
    messages = json.loads((DATA / "sphinx_messages.json").read_text(encoding="utf-8"))["messages"]
    lines = [v for m in messages for v in m.values() if isinstance(v, str)]
    multi = "\n".join(lines)
    return {
        "multilingual 1 MB": [multi * (1_000_000 // len(multi.encode()) + 1)],
        "Latin-1 0.45 MB": [load_text("heldout").replace("e", "é")],
        "5,000 short texts": [m for m in lines * 10 if not m.isascii()][:5000],
    }


def best(arms: dict[str, Callable[[str], object]], batch: list[str], repeat: int) -> dict[str, float]:
    times = dict.fromkeys(arms, float("inf"))
    for _ in range(repeat):
        for name, f in arms.items():
            start = time.process_time()
            for text in batch:
                f(text)
            times[name] = min(times[name], time.process_time() - start)
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs per arm (default 15)")
    args = parser.parse_args(argv)
    for name, pattern in (("cl100k_base", CL100K_PATTERN), ("o200k_base", O200K_PATTERN)):
        enc = load_openai_encoding(name)
        compiled = regex.compile(pattern)
        frozen = compile_frozen(pattern)
        for label, batch in texts().items():
            for text in batch:
                enc.encode_ordinary(text)  # fill the piece cache: "encode" is warm
            t = best({"findall": compiled.findall, "finder": pieces_finder(compiled),
                      "encode": enc.encode_ordinary}, batch, args.repeat)
            t |= best({"frozen": frozen.findall}, batch, 1)  # seconds: its magnitude only
            check = t["finder"] - t["findall"]
            print(f"{name:11s} {label:18s} findall {t['findall'] * 1e3:7.1f} ms  finder "
                  f"{t['finder'] * 1e3:7.1f} ms (x{t['finder'] / t['findall']:.2f})  frozen "
                  f"{t['frozen'] * 1e3:7.1f} ms (x{t['frozen'] / t['findall']:.1f})  encode "
                  f"{t['encode'] * 1e3:7.1f} ms (check {100 * check / t['encode']:+.1f}%)", flush=True)


if __name__ == "__main__":
    main()
