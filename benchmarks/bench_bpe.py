"""Benchmark byte-level BPE: tokref against Hugging Face tokenizers, SentencePiece and tiktoken.

Run from the repository root::

    .venv/bin/python benchmarks/bench_bpe.py                # the full benchmark (~1 min)
    .venv/bin/python benchmarks/bench_bpe.py --profile      # plus cProfile of tokref
    .venv/bin/python benchmarks/bench_bpe.py --help

Training: tokref's ByteLevelBPETokenizer, tokenizers' BpeTrainer (byte-level, the same
GPT-2 pattern) and SentencePiece (model_type=bpe) learn a vocabulary of 8,000 from the
same corpus (all of the shipped Shakespeare, 5.06 MB). Encoding: the whole corpus,
encoded by tokref (cold cache, then warm) and by tiktoken built from tokref's trained
ranks (single thread, ``encode_ordinary``); both must give the same ids.

Targets (issue 3): tokref's training at most 2x tokenizers' wall time; tokref's
encoding at least 0.5x tiktoken's single-thread throughput.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any
from _common import common_parser, mb_per_s, profile, timed

TRAIN_TARGET = 2.0  # tokref training time / tokenizers training time, at most
ENCODE_TARGET = 0.5  # tokref encode throughput / tiktoken throughput, at least




def train_tokref(texts: list[str], vocab_size: int):
    from tokref.bytelevel import GPT2_PATTERN, ByteLevelBPETokenizer

    return ByteLevelBPETokenizer().train(texts, vocab_size=vocab_size, pattern=GPT2_PATTERN)


def train_tokenizers(texts: list[str], vocab_size: int):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    # ByteLevel with use_regex=True splits on GPT-2's pattern, as tokref's GPT2_PATTERN.
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return tok


def train_sentencepiece(corpus_file: str, vocab_size: int, model_dir: str):
    import sentencepiece as spm

    prefix = os.path.join(model_dir, "sp")
    spm.SentencePieceTrainer.train(
        input=corpus_file,
        model_prefix=prefix,
        model_type="bpe",
        vocab_size=vocab_size,
        byte_fallback=True,  # no unknown characters, like byte-level BPE
        num_threads=2,
        minloglevel=2,  # quiet
        # input_sentence_size: the default (0, every line of the corpus)
    )
    return spm.SentencePieceProcessor(model_file=prefix + ".model")






def main(argv: list[str] | None = None) -> int:
    ap = common_parser(__doc__)
    ap.add_argument("--no-sentencepiece", action="store_true", help="skip SentencePiece training")
    args = ap.parse_args(argv)

    import sentencepiece
    import tiktoken
    import tokenizers

    import tokref
    from tokref.corpus import load_text, load_texts

    texts = load_texts("all")
    text = load_text("all")  # the works joined by blank lines: what is encoded
    n_train = sum(len(t.encode("utf-8")) for t in texts)
    n_enc = len(text.encode("utf-8"))
    V = args.vocab_size

    load = f"; load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs{load}")
    print(f"tokref {tokref.__version__}, tokenizers {tokenizers.__version__}, "
          f"sentencepiece {sentencepiece.__version__}, tiktoken {tiktoken.__version__}")
    print(f"corpus: {len(texts)} works, {n_train / 1e6:.2f} MB; vocab_size {V:,}\n")

    results: dict[str, Any] = {"corpus_bytes": n_train, "encode_bytes": n_enc, "vocab_size": V}

    # -- training ------------------------------------------------------------
    print("Training")
    t_tokref, tok = timed(lambda: train_tokref(texts, V), args.train_repeat)
    print(f"  tokref      {t_tokref:7.2f} s  {mb_per_s(n_train, t_tokref):6.2f} MB/s  "
          f"({len(tok.merges):,} merges)")
    t_hf, hf = timed(lambda: train_tokenizers(texts, V), args.train_repeat)
    hf_threads = os.environ.get("RAYON_NUM_THREADS", str(os.cpu_count()))
    print(f"  tokenizers  {t_hf:7.2f} s  {mb_per_s(n_train, t_hf):6.2f} MB/s  "
          f"(vocab {hf.get_vocab_size():,}; Rust, up to {hf_threads} threads)")
    results.update(train_tokref_s=t_tokref, train_tokenizers_s=t_hf)
    if not args.no_sentencepiece:
        with tempfile.TemporaryDirectory() as tmp:
            corpus_file = Path(tmp) / "corpus.txt"
            corpus_file.write_text("\n".join(texts), encoding="utf-8")
            t_sp, sp = timed(lambda: train_sentencepiece(str(corpus_file), V, tmp), args.train_repeat)
        print(f"  sentencepiece {t_sp:5.2f} s  {mb_per_s(n_train, t_sp):6.2f} MB/s  "
              f"(vocab {sp.get_piece_size():,}; C++, 2 threads, byte_fallback)")
        results["train_sentencepiece_s"] = t_sp
    train_ratio = t_tokref / t_hf
    print(f"  ratio tokref/tokenizers training time: {train_ratio:.2f}x "
          f"(target <= {TRAIN_TARGET:g}x: {'met' if train_ratio <= TRAIN_TARGET else 'MISSED'})")
    results["train_ratio"] = train_ratio

    # -- encoding ------------------------------------------------------------
    print(f"\nEncoding the whole corpus ({n_enc / 1e6:.2f} MB), single thread")
    enc = tiktoken.Encoding(
        "tokref_trained", pat_str=tok.pattern, mergeable_ranks=tok.mergeable_ranks, special_tokens={}
    )
    t_cold, ids_cold = timed(lambda: tok.encode_ordinary(text), args.repeat, setup=tok.clear_cache)
    t_warm, ids_warm = timed(lambda: tok.encode_ordinary(text), args.repeat)
    t_tk, ids_tk = timed(lambda: enc.encode_ordinary(text), args.repeat)
    same = ids_cold == ids_tk and ids_warm == ids_tk
    print(f"  tokref cold {t_cold:7.3f} s  {mb_per_s(n_enc, t_cold):6.2f} MB/s  (empty piece cache)")
    print(f"  tokref warm {t_warm:7.3f} s  {mb_per_s(n_enc, t_warm):6.2f} MB/s  (every piece cached)")
    print(f"  tiktoken    {t_tk:7.3f} s  {mb_per_s(n_enc, t_tk):6.2f} MB/s  (encode_ordinary)")
    print(f"  {len(ids_tk):,} tokens; tokref and tiktoken ids identical: {same}")
    cold_ratio, warm_ratio = t_tk / t_cold, t_tk / t_warm
    for label, r in (("cold", cold_ratio), ("warm", warm_ratio)):
        print(f"  ratio tokref/tiktoken throughput, {label}: {r:.2f}x "
              f"(target >= {ENCODE_TARGET:g}x: {'met' if r >= ENCODE_TARGET else 'MISSED'})")
    results.update(
        encode_tokref_cold_s=t_cold, encode_tokref_warm_s=t_warm, encode_tiktoken_s=t_tk,
        encode_ratio_cold=cold_ratio, encode_ratio_warm=warm_ratio, ids_identical=same,
    )

    if args.profile:
        profile("tokref training", lambda: train_tokref(texts, V), args.top)
        tok.clear_cache()
        profile("tokref encoding, cold cache", lambda: tok.encode_ordinary(text), args.top)
        profile("tokref encoding, warm cache", lambda: tok.encode_ordinary(text), args.top)

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
