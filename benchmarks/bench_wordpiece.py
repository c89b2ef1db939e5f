"""Benchmark WordPiece: tokref against Hugging Face tokenizers, same vocabulary, same output.

Run from the repository root::

    .venv/bin/python benchmarks/bench_wordpiece.py              # the full benchmark (~1 min)
    .venv/bin/python benchmarks/bench_wordpiece.py --profile    # plus cProfile of tokref
    .venv/bin/python benchmarks/bench_wordpiece.py --help

Training (for reference; the two do not learn the same vocabulary): tokref's
WordPieceTokenizer (the likelihood score, exact) and tokenizers' WordPieceTrainer (which
is BPE by frequency, converted to WordPiece) learn 8,000 entries from the training split
of the shipped Shakespeare, with the same normalizer and pre-tokenizer.

Encoding: tokref's vocabulary is loaded into a tokenizers BERT pipeline (BertNormalizer,
BertPreTokenizer, WordPiece, [CLS]/[SEP] template), and both encode the held-out split:
line by line with ``encode`` (single thread: tokenizers parallelizes only batches), as
whole works, and, for tokenizers, line by line with ``encode_batch`` (Rust threads; noted,
not compared). tokref is timed with an empty chunk cache (cold) and a full one (warm).
The ids must be identical.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any
from _common import common_parser, mb_per_s, profile, timed




def hf_pipeline(vocab: dict[str, int] | None, lowercase: bool = True):
    """A tokenizers BERT pipeline; with ``vocab=None`` an untrained one for the trainer."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    if vocab:
        model = models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100)
    else:
        model = models.WordPiece(unk_token="[UNK]")
    tok = Tokenizer(model)
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=lowercase, lowercase=lowercase
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    if vocab:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
        )
        tok.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    return tok


def train_tokenizers(texts: list[str], vocab_size: int):
    from tokenizers import trainers

    tok = hf_pipeline(None)
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        show_progress=False,
        special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return tok






def main(argv: list[str] | None = None) -> int:
    ap = common_parser(__doc__)
    args = ap.parse_args(argv)

    import tokenizers

    import tokref
    from tokref.corpus import load_texts
    from tokref.wordpiece import WordPieceTokenizer

    train = load_texts("train")
    works = load_texts("heldout")
    lines = [line for w in works for line in w.splitlines() if line.strip()]
    n_train = sum(len(t.encode("utf-8")) for t in train)
    n_enc = sum(len(t.encode("utf-8")) for t in works)
    n_lines = sum(len(t.encode("utf-8")) for t in lines)
    V = args.vocab_size

    load = f"; load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs{load}")
    print(f"tokref {tokref.__version__}, tokenizers {tokenizers.__version__}")
    print(f"training: {len(train)} works, {n_train / 1e6:.2f} MB; vocab_size {V:,}")
    print(f"encoding: {len(works)} held-out works, {n_enc / 1e6:.3f} MB, "
          f"{len(lines):,} non-empty lines ({n_lines / 1e6:.3f} MB)\n")
    results: dict[str, Any] = {"train_bytes": n_train, "encode_bytes": n_enc, "vocab_size": V}

    # -- training ------------------------------------------------------------
    print("Training (reference only: different algorithms, different vocabularies)")
    t_tokref, tok = timed(lambda: WordPieceTokenizer().train(train, V), args.train_repeat)
    print(f"  tokref WordPiece (score)    {t_tokref:7.2f} s  {mb_per_s(n_train, t_tokref):6.2f} MB/s  "
          f"(vocab {tok.vocab_size:,}, {len(tok.merges):,} merges)")
    t_hf, hf_trained = timed(lambda: train_tokenizers(train, V), args.train_repeat)
    threads = os.environ.get("RAYON_NUM_THREADS", str(os.cpu_count()))
    print(f"  tokenizers WordPieceTrainer {t_hf:7.2f} s  {mb_per_s(n_train, t_hf):6.2f} MB/s  "
          f"(vocab {hf_trained.get_vocab_size():,}; BPE by frequency; Rust, up to {threads} threads)")
    print(f"  ratio tokref/tokenizers training time: {t_tokref / t_hf:.2f}x")
    results.update(train_tokref_s=t_tokref, train_tokenizers_s=t_hf, train_ratio=t_tokref / t_hf)

    # -- encoding ------------------------------------------------------------
    hf = hf_pipeline(tok.vocab)
    print("\nEncoding the held-out split with tokref's vocabulary, single thread")
    rows = []

    def bench(label, n_bytes, mine, theirs):
        t_cold, ids_cold = timed(mine, args.repeat, setup=tok.clear_cache)
        t_warm, ids_warm = timed(mine, args.repeat)
        t_hf, ids_hf = timed(theirs, args.repeat)
        same = ids_cold == ids_hf and ids_warm == ids_hf
        n_tok = sum(map(len, ids_hf))
        print(f"  {label}: {n_tok:,} tokens; ids identical: {same}")
        print(f"    tokref cold  {t_cold:7.3f} s  {mb_per_s(n_bytes, t_cold):6.2f} MB/s  (empty chunk cache)")
        print(f"    tokref warm  {t_warm:7.3f} s  {mb_per_s(n_bytes, t_warm):6.2f} MB/s  (every chunk cached)")
        print(f"    tokenizers   {t_hf:7.3f} s  {mb_per_s(n_bytes, t_hf):6.2f} MB/s  (Tokenizer.encode)")
        print(f"    ratio tokref/tokenizers throughput: cold {t_hf / t_cold:.2f}x, warm {t_hf / t_warm:.2f}x")
        rows.append(same)
        key = label.split()[0]
        results.update({f"{key}_tokref_cold_s": t_cold, f"{key}_tokref_warm_s": t_warm,
                        f"{key}_tokenizers_s": t_hf, f"{key}_ids_identical": same})

    bench("lines (one encode call per line)", n_lines,
          lambda: [tok.encode(line) for line in lines],
          lambda: [e.ids for e in map(hf.encode, lines)])
    # tokenizers' encode also computes tokens, offsets, type ids and masks: so does
    # tokref's encode_plus, timed here for a like-for-like number.
    t_plus, plus = timed(lambda: [tok.encode_plus(line) for line in lines], args.repeat,
                         setup=tok.clear_cache)
    same_plus = [p.offsets for p in plus] == [e.offsets for e in map(hf.encode, lines)]
    print(f"    tokref encode_plus, cold {t_plus:7.3f} s  {mb_per_s(n_lines, t_plus):6.2f} MB/s  "
          f"(ids, tokens, offsets, type ids, masks; offsets identical: {same_plus}); "
          f"ratio {results['lines_tokenizers_s'] / t_plus:.2f}x")
    results.update(lines_tokref_encode_plus_cold_s=t_plus)
    rows.append(same_plus)

    bench("works (one encode call per work)", n_enc,
          lambda: [tok.encode(w) for w in works],
          lambda: [hf.encode(w).ids for w in works])

    t_batch, enc_batch = timed(lambda: hf.encode_batch(lines), args.repeat)
    same_batch = [e.ids for e in enc_batch] == [tok.encode(line) for line in lines]
    print(f"  lines, tokenizers encode_batch (Rust threads, up to {threads}): {t_batch:7.3f} s  "
          f"{mb_per_s(n_lines, t_batch):6.2f} MB/s; ids identical: {same_batch} "
          "(tokref has no batch API: its batch is the loop above)")
    results.update(lines_tokenizers_batch_s=t_batch)

    if args.profile:
        profile("tokref training", lambda: WordPieceTokenizer().train(train, V), args.top)
        tok.clear_cache()
        profile("tokref encoding lines, cold cache", lambda: [tok.encode(x) for x in lines], args.top)

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if all(rows) and same_batch else 1


if __name__ == "__main__":
    sys.exit(main())
