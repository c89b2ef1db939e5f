"""SuperBPE's training (tokref.superword) against ordinary byte-level BPE on the same corpus.

    .venv/bin/python benchmarks/bench_superword.py                 # the 5 MB corpus, about 10 min
    .venv/bin/python benchmarks/bench_superword.py --plays 2       # the first two plays only

Trains ordinary byte-level BPE (GPT-2 pattern) to --vocab-size, then SuperBPE to the same
size with the transition point at --transition of the merges, and prints both wall
times, their ratio, and the bytes per token of each on the held-out plays.
"""

from __future__ import annotations

import time

from _common import common_parser

from tokref.bytelevel import ByteLevelBPETokenizer
from tokref.corpus import load_texts
from tokref.superword import train_superword


def main() -> None:
    ap = common_parser(__doc__)
    ap.add_argument("--transition", type=float, default=0.8, help="share of the merges in stage 1")
    ap.add_argument("--plays", type=int, default=0, help="train on the first N plays only (0: all 42)")
    args = ap.parse_args()
    texts = load_texts("all")
    if args.plays:
        texts = texts[: args.plays]
    held = load_texts("heldout")
    n = sum(len(t.encode("utf-8")) for t in texts)
    t0 = time.perf_counter()
    ordinary = ByteLevelBPETokenizer().train(texts, args.vocab_size)
    t_ord = time.perf_counter() - t0
    t_merges = round(args.transition * (args.vocab_size - 256))
    t0 = time.perf_counter()
    superword = train_superword(texts, args.vocab_size, transition=t_merges)
    t_sw = time.perf_counter() - t0
    n_held = sum(len(t.encode("utf-8")) for t in held)
    print(f"corpus {n / 1e6:.2f} MB, vocabulary {args.vocab_size:,}, transition {t_merges:,} merges")
    print(f"  ordinary byte-level BPE  {t_ord:7.1f} s")
    print(f"  SuperBPE (both stages)   {t_sw:7.1f} s   ({t_sw / t_ord:.1f}x)")
    for name, tok in (("ordinary", ordinary), ("superword", superword)):
        tokens = sum(len(tok.encode_ordinary(t)) for t in held)
        print(f"  {name:9s} bytes per token on the held-out plays: {n_held / tokens:.3f}")


if __name__ == "__main__":
    main()
