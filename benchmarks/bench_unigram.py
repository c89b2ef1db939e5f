"""Benchmark Unigram tokenization: tokref against SentencePiece and Hugging Face tokenizers.

Run from the repository root::

    .venv/bin/python benchmarks/bench_unigram.py              # the full benchmark (~1 min)
    .venv/bin/python benchmarks/bench_unigram.py --profile    # plus cProfile of tokref
    .venv/bin/python benchmarks/bench_unigram.py --help

Training: tokref's UnigramTokenizer and SentencePiece's trainer (model_type=unigram,
byte_fallback, character_coverage 1.0, one thread per CPU) learn a vocabulary of
8,000 from the same corpus (all of the shipped Shakespeare, 5.06 MB); both tokenizers
then encode the held-out works, and their tokens per character are compared.

Encoding: the lines of the whole corpus, by tokref (cold cache, then warm), by
SentencePiece loaded with tokref's trained pieces (a model proto built here) and by
``tokenizers``' Unigram model with the same pieces, all single-threaded. SentencePiece
and ``tokenizers`` get the text already normalized by tokref (their normalizers are
set to identity), tokref the raw lines (its timing includes normalization). tokref and
``tokenizers`` must give the same ids; SentencePiece too, except where a float64 tie
is broken by its float32 sums (the exit status is 1 otherwise).

Target (issue brief): tokref's training at most 5x SentencePiece's wall time.
"""

from __future__ import annotations

import os

# Single-threaded encoding for tokenizers (must be set before it is imported).
os.environ.setdefault("RAYON_NUM_THREADS", "1")

import json  # noqa: E402
import platform  # noqa: E402
import struct  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402
from _common import common_parser, mb_per_s, profile, timed  # noqa: E402

TRAIN_TARGET = 5.0  # tokref training time / SentencePiece training time, at most




def train_sentencepiece(corpus_file: str, vocab_size: int, model_dir: str):
    import sentencepiece as spm

    prefix = os.path.join(model_dir, "sp")
    spm.SentencePieceTrainer.train(
        input=corpus_file,
        model_prefix=prefix,
        model_type="unigram",
        vocab_size=vocab_size,
        byte_fallback=True,
        character_coverage=1.0,
        num_threads=os.cpu_count() or 1,
        minloglevel=2,  # quiet
    )
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


def _varint(x: int) -> bytes:
    out = bytearray()
    while True:
        b, x = x & 0x7F, x >> 7
        out.append(b | 0x80 if x else b)
        if not x:
            return bytes(out)


def sentencepiece_proto(tok) -> bytes:
    """tokref's pieces as a SentencePiece ModelProto, protobuf-encoded by hand (see
    tests/test_unigram.py): identity normalizer, dummy prefix, byte fallback."""

    def field(num: int, payload: bytes) -> bytes:
        return _varint(num << 3 | 2) + _varint(len(payload)) + payload

    def integer(num: int, v: int) -> bytes:
        return _varint(num << 3) + _varint(v)

    n_special = len(tok.special_tokens)
    out = bytearray()
    for i, (piece, score) in enumerate(tok.pieces):
        kind = (2 if piece == "<unk>" else 3) if i < n_special else 6 if i < n_special + 256 else 1
        body = field(1, piece.encode()) + _varint(2 << 3 | 5) + struct.pack("<f", score) + integer(3, kind)
        out += field(1, body)
    out += field(2, integer(3, 1) + integer(4, tok.vocab_size) + integer(35, 1))
    out += field(3, field(1, b"identity") + integer(3, 1) + integer(4, 0) + integer(5, 1))
    return bytes(out)






def main(argv: list[str] | None = None) -> int:
    ap = common_parser(__doc__)
    args = ap.parse_args(argv)

    import sentencepiece as spm
    import tokenizers
    from tokenizers import Tokenizer, models, pre_tokenizers

    import tokref
    from tokref.corpus import load_texts
    from tokref.unigram import WS, UnigramTokenizer

    texts = load_texts("all")
    n_train = sum(len(t.encode("utf-8")) for t in texts)
    V = args.vocab_size
    load = f"; load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs{load}")
    print(f"tokref {tokref.__version__}, sentencepiece {spm.__version__}, tokenizers {tokenizers.__version__}")
    print(f"corpus: {len(texts)} works, {n_train / 1e6:.2f} MB; vocab_size {V:,}\n")
    results: dict[str, Any] = {"corpus_bytes": n_train, "vocab_size": V}

    # -- training ------------------------------------------------------------
    print("Training")
    t_tok, tok = timed(lambda: UnigramTokenizer().train(texts, V), args.train_repeat)
    print(f"  tokref        {t_tok:7.2f} s  {mb_per_s(n_train, t_tok):6.2f} MB/s  (vocab {tok.vocab_size:,}; "
          "Python + NumPy, 1 thread)")
    with tempfile.TemporaryDirectory() as tmp:
        corpus_file = Path(tmp) / "corpus.txt"
        corpus_file.write_text("\n".join(texts), encoding="utf-8")
        t_sp, sp_trained = timed(lambda: train_sentencepiece(str(corpus_file), V, tmp), args.train_repeat)
    print(f"  sentencepiece {t_sp:7.2f} s  {mb_per_s(n_train, t_sp):6.2f} MB/s  (vocab "
          f"{sp_trained.get_piece_size():,}; C++, {os.cpu_count()} threads)")
    train_ratio = t_tok / t_sp
    print(f"  ratio tokref/sentencepiece training time: {train_ratio:.2f}x "
          f"(target <= {TRAIN_TARGET:g}x: {'met' if train_ratio <= TRAIN_TARGET else 'MISSED'})")
    results.update(train_tokref_s=t_tok, train_sentencepiece_s=t_sp, train_ratio=train_ratio)

    held = [line for line in "\n".join(load_texts("heldout")).split("\n") if line.strip()]
    n_chars = sum(map(len, held))
    tpc_tok = sum(len(tok.encode(line)) for line in held) / n_chars
    tpc_sp = sum(map(len, sp_trained.encode(held))) / n_chars
    print(f"  held-out tokens per character: tokref {tpc_tok:.4f}, sentencepiece {tpc_sp:.4f} "
          f"({100 * (tpc_tok / tpc_sp - 1):+.2f}%)")
    common = len(set(tok.vocab) & {sp_trained.id_to_piece(i) for i in range(sp_trained.get_piece_size())})
    print(f"  pieces in common: {common:,} of {V:,}")
    results.update(heldout_tpc_tokref=tpc_tok, heldout_tpc_sentencepiece=tpc_sp, pieces_in_common=common)

    # -- encoding ------------------------------------------------------------
    lines = [line for line in "\n".join(texts).split("\n") if line.strip()]
    n_enc = sum(len(line.encode("utf-8")) for line in lines)
    normalized = [tok.normalize(line) for line in lines]
    sp = spm.SentencePieceProcessor(model_proto=sentencepiece_proto(tok))
    hf = Tokenizer(models.Unigram(vocab=tok.pieces, unk_id=tok.unk_id, byte_fallback=True))
    hf.pre_tokenizer = pre_tokenizers.Metaspace(replacement=WS, prepend_scheme="always", split=True)
    print(f"\nEncoding the corpus's {len(lines):,} lines ({n_enc / 1e6:.2f} MB) with tokref's pieces, "
          "single thread")

    def encode_tokref() -> list[list[int]]:
        return [tok.encode(line) for line in lines]

    t_cold, ids_cold = timed(encode_tokref, args.repeat, setup=tok.clear_cache)
    t_warm, ids_warm = timed(encode_tokref, args.repeat)
    t_sp_enc, ids_sp = timed(lambda: sp.encode(normalized, num_threads=1), args.repeat)
    t_hf, encs = timed(lambda: hf.encode_batch(normalized, add_special_tokens=False), args.repeat)
    ids_hf = [e.ids for e in encs]
    score = [s for _, s in tok.pieces]
    diff_hf = sum(a != b for a, b in zip(ids_cold, ids_hf))
    diff_sp = [(a, b) for a, b in zip(ids_cold, ids_sp) if a != b]
    # SentencePiece adds scores in float32: a float64 tie may be broken by rounding.
    ties_sp = sum(sum(score[i] for i in a) == sum(score[i] for i in b) for a, b in diff_sp)
    same = ids_cold == ids_warm and diff_hf == 0 and ties_sp == len(diff_sp)
    n_tokens = sum(map(len, ids_cold))
    print(f"  tokref cold   {t_cold:7.3f} s  {mb_per_s(n_enc, t_cold):6.2f} MB/s  (empty word cache)")
    print(f"  tokref warm   {t_warm:7.3f} s  {mb_per_s(n_enc, t_warm):6.2f} MB/s  (every word cached)")
    print(f"  sentencepiece {t_sp_enc:7.3f} s  {mb_per_s(n_enc, t_sp_enc):6.2f} MB/s  (encode, num_threads=1)")
    print(f"  tokenizers    {t_hf:7.3f} s  {mb_per_s(n_enc, t_hf):6.2f} MB/s  "
          f"(encode_batch, RAYON_NUM_THREADS={os.environ['RAYON_NUM_THREADS']})")
    print(f"  {n_tokens:,} tokens; lines whose ids differ from tokref's: tokenizers {diff_hf}, "
          f"sentencepiece {len(diff_sp)} ({ties_sp} of them exact float64 ties that its float32 "
          "sums break the other way)")
    for label, t in (("sentencepiece", t_sp_enc), ("tokenizers", t_hf)):
        print(f"  ratio tokref/{label} throughput: cold {t / t_cold:.2f}x, warm {t / t_warm:.2f}x")
    results.update(
        encode_tokref_cold_s=t_cold, encode_tokref_warm_s=t_warm, encode_sentencepiece_s=t_sp_enc,
        encode_tokenizers_s=t_hf, lines_differing_tokenizers=diff_hf,
        lines_differing_sentencepiece=len(diff_sp), sentencepiece_float32_ties=ties_sp,
    )

    if args.profile:
        profile("tokref training", lambda: UnigramTokenizer().train(texts, V), args.top)
        tok.clear_cache()
        profile("tokref encoding, cold cache", encode_tokref, args.top)

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
