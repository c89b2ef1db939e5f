"""Benchmark byte-level BPE on adversarial input: one long pre-token, tokref against tiktoken.

Run from the repository root::

    .venv/bin/python benchmarks/bench_adversarial.py               # every input, up to 1 MB (~1 min)
    .venv/bin/python benchmarks/bench_adversarial.py --max-mb 0.2  # only the inputs up to 200 kB
    .venv/bin/python benchmarks/bench_adversarial.py --help        # --repeat, --json FILE

Issue 21: BPE that scans every pair after every merge is quadratic in the length of one
pre-token, so a long run of letters, digits or spaces (a base64 blob, a DNA sequence, a
minified line) took tokref minutes where tiktoken takes milliseconds. tokref now merges
pieces from :data:`tokref.heapmerge.HEAP_MIN_BYTES` bytes on with a heap, as tiktoken
does from 100 bytes on.

Each input (seeded: :func:`adversarial_inputs`, :data:`KINDS`) is encoded with
``encode_ordinary`` by:

- **cl100k_base**: tokref's ``load_openai_encoding("cl100k_base")`` and tiktoken's
  ``Encoding`` built from the same ranks, pattern and special tokens (tiktoken cannot
  download its files here);
- **GPT-2 pattern**: GPT-2's own ranks (r50k) are not shipped, so a byte-level tokenizer
  of 8,000 trained by tokref on the shipped Shakespeare with GPT-2's pattern (what
  ``bench_bpe.py`` trains), against tiktoken and Hugging Face ``tokenizers`` built from
  its ranks (``to_huggingface``). GPT-2's pattern keeps a run of digits as one pre-token
  (cl100k cuts them in threes), hence the digits input.

tokref starts each run with an empty piece cache (cold: otherwise a repeated run only
looks the piece up). Times are the best of ``--repeat`` runs (of 1 for tokref on the
inputs over 200 kB, which take seconds), with the garbage collector paused. The ids of the three must be identical (exit
status 1 otherwise). Target: tokref within 20x of tiktoken on every input.
"""

from __future__ import annotations

import base64
import json
import os
import platform
import random
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

from _common import common_parser, timed

TARGET = 20.0  # tokref time / tiktoken time, at most


LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: Kind of input → a maker of ``n`` bytes of it (as UTF-8; about n for the CJK run).
KINDS: dict[str, Callable[[random.Random, int], str]] = {
    "random letters": lambda rng, n: "".join(rng.choices(LETTERS, k=n)),
    '"a" x': lambda rng, n: "a" * n,
    "base64 blob": lambda rng, n: base64.b64encode(rng.randbytes(n * 3 // 4)).decode(),
    "minified JS line": lambda rng, n: _minified(rng, n),
    "DNA": lambda rng, n: "".join(rng.choices("ACGT", k=n)),
    "CJK run": lambda rng, n: "".join(chr(rng.randrange(0x4E00, 0xA000)) for _ in range(n // 3)),
    "digits": lambda rng, n: "".join(rng.choices("0123456789", k=n)),
    "spaces": lambda rng, n: " " * n,
    "Latin-1 of random bytes": lambda rng, n: rng.randbytes(n * 2 // 3).decode("latin-1"),
}

#: The benchmark's inputs: (kind, bytes).
SIZES = [("random letters", n) for n in (10_000, 40_000, 160_000, 1_000_000)] + [
    ('"a" x', 100_000), ('"a" x', 1_000_000), ("base64 blob", 1_000_000), ("minified JS line", 1_000_000),
    ("DNA", 1_000_000), ("CJK run", 1_000_000), ("digits", 1_000_000), ("spaces", 100_000),
    ("Latin-1 of random bytes", 1_000_000),
]


def adversarial_inputs(max_bytes: int = 1_000_000, seed: int = 0) -> dict[str, str]:
    """Name → text for the inputs of :data:`SIZES` up to ``max_bytes`` bytes,
    deterministic for a seed."""
    rng = random.Random(seed)
    return {f"{kind} {n // 1000}k": KINDS[kind](rng, n) for kind, n in SIZES if n <= max_bytes}


def _minified(rng: random.Random, n: int) -> str:
    """A JavaScript-like line, minified: short names, calls, literals, operators, a space
    only after a keyword, no newline."""
    names = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz_$", k=rng.randint(1, 3))) for _ in range(200)]
    parts: list[str] = []
    size = 0
    while size < n:
        a, b, c = rng.choices(names, k=3)
        part = rng.choice([
            f"var {a}={b}({c},{rng.randint(0, 999)});",
            f"function {a}({b},{c}){{return {b}.{c}+{rng.random():.3f}}}",
            f"if(!{a}||{b}[{c}]===null){a}=\"{c}\";",
            f"{a}.{b}=function(){{return this.{c}?{a}:[{b},{c}]}};",
        ])
        parts.append(part)
        size += len(part)
    return "".join(parts)[:n]


def gpt2_pattern_tokenizer():
    """tokref's byte-level BPE of 8,000 on the shipped Shakespeare, GPT-2's pattern."""
    from tokref.bytelevel import GPT2_PATTERN, ByteLevelBPETokenizer
    from tokref.corpus import load_texts

    return ByteLevelBPETokenizer().train(load_texts("all"), vocab_size=8000, pattern=GPT2_PATTERN)


def tiktoken_of(tok):
    import tiktoken

    return tiktoken.Encoding(f"ref_{tok.name}", pat_str=tok.pattern, mergeable_ranks=tok.mergeable_ranks,
                             special_tokens=tok.special_tokens_map)


def huggingface_of(tok):
    import tokenizers

    return tokenizers.Tokenizer.from_str(json.dumps(tok.to_huggingface()))


def run(inputs: dict[str, str], encodings: dict[str, tuple[Any, Any, Any]], repeat: int) -> list[dict[str, Any]]:
    """Time every input under every encoding; one row per (encoding, input)."""
    rows = []
    for enc_name, (tok, tk, hf) in encodings.items():
        for name, text in inputs.items():
            n_bytes = len(text.encode("utf-8"))
            reps = repeat if n_bytes <= 200_000 else 1
            t_ref, ids = timed(lambda: tok.encode_ordinary(text), reps, setup=tok.clear_cache)
            t_tk, ids_tk = timed(lambda: tk.encode_ordinary(text), repeat)
            row = {"encoding": enc_name, "input": name, "bytes": n_bytes, "tokens": len(ids),
                   "tokref_s": t_ref, "tiktoken_s": t_tk, "ratio": t_ref / t_tk, "same": ids == ids_tk}
            if hf is not None:
                t_hf, enc = timed(lambda: hf.encode(text, add_special_tokens=False), repeat)
                row.update(tokenizers_s=t_hf, same=row["same"] and enc.ids == ids_tk)
            rows.append(row)
            hf_s = f"  tokenizers {row['tokenizers_s']:.4f} s" if hf is not None else ""
            print(f"  {enc_name:13} {name:36} tokref {t_ref:8.3f} s  tiktoken {t_tk:.4f} s  "
                  f"{row['ratio']:6.1f}x{hf_s}  same ids: {row['same']}", flush=True)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as the markdown table of benchmarks/README.md."""
    lines = ["| encoding | input | bytes | tokens | tokref (s) | tiktoken (s) | tokenizers (s) | tokref / tiktoken |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        hf = f"{r['tokenizers_s']:.4f}" if "tokenizers_s" in r else ""
        flag = "" if r["ratio"] <= TARGET else " (over 20x)"
        lines.append(f"| {r['encoding']} | {r['input']} | {r['bytes']:,} | {r['tokens']:,} | {r['tokref_s']:.3f} | "
                     f"{r['tiktoken_s']:.4f} | {hf} | {r['ratio']:.1f}×{flag} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = common_parser(__doc__)
    ap.add_argument("--max-mb", type=float, default=1.0, help="only the inputs up to this size")
    ap.add_argument("--no-gpt2", action="store_true", help="cl100k_base only (no training)")
    args = ap.parse_args(argv)

    import tiktoken
    import tokenizers

    import tokref
    from tokref.bytelevel import load_openai_encoding
    from tokref.heapmerge import HEAP_MIN_BYTES

    load = f"; load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs{load}")
    print(f"tokref {tokref.__version__} (heap from {HEAP_MIN_BYTES} bytes), tiktoken {tiktoken.__version__}, "
          f"tokenizers {tokenizers.__version__}\n")
    inputs = adversarial_inputs(int(args.max_mb * 1_000_000))
    cl100k = load_openai_encoding("cl100k_base")
    encodings = {"cl100k_base": (cl100k, tiktoken_of(cl100k), None)}
    if not args.no_gpt2:
        gpt2 = gpt2_pattern_tokenizer()
        encodings["GPT-2 pattern"] = (gpt2, tiktoken_of(gpt2), huggingface_of(gpt2))
    rows = run(inputs, encodings, args.repeat)
    print()
    print(markdown(rows))
    worst = max(rows, key=lambda r: r["ratio"])
    same = all(r["same"] for r in rows)
    print(f"\nids identical everywhere: {same}; worst ratio {worst['ratio']:.1f}x ({worst['encoding']}, "
          f"{worst['input']}); target <= {TARGET:g}x: {'met' if worst['ratio'] <= TARGET else 'MISSED'}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
