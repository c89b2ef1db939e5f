"""Scaling of byte-level BPE training: tokref (1 and 2 processes) against Hugging Face
tokenizers and SentencePiece, over corpus sizes and vocabulary sizes.

Run from the repository root::

    .venv/bin/python benchmarks/bench_scaling.py              # 1, 5, 25, 50 MB x 1k, 8k, 32k
    .venv/bin/python benchmarks/bench_scaling.py --sizes 1 5 --vocab-sizes 1000 8000
    .venv/bin/python benchmarks/bench_scaling.py --help       # --no-sentencepiece, --json FILE...

The corpora come from ``gen_corpus.py`` (an order-6 character Markov sample of the
shipped Shakespeare, cached in ``benchmarks/.cache/``; its docstring states the rule).

Every measurement runs in a fresh subprocess of this script (``--worker``), so each has
a clean heap, its own peak RSS, and a timeout:

- **Training**, for every size x vocabulary size, from the file: tokref
  ``ByteLevelBPETokenizer().train(path, vocab_size, processes=1)`` and ``processes=2``
  (the file streamed, pre-tokens counted in 1 or 2 processes); tokenizers' ``BpeTrainer``
  with the byte-level GPT-2 pre-tokenizer, ``Tokenizer.train([path])`` (it reads the file
  line by line and uses every core); SentencePiece BPE (``num_threads=2``,
  ``byte_fallback``), context only -- another algorithm, on characters, without the regex
  -- and skipped above ``--sp-max-mb`` (100: it holds every line of the corpus, about
  6 MB of RSS per MB). Wall time of the ``train`` call (garbage collector paused, as in
  bench_bpe.py), the best of ``--train-repeat`` (2) tries, the libraries taking turns so
  that a burst of load from other jobs does not hit every try of one. Peak RSS: the
  process's ``VmHWM``, for 2 processes plus ``getrusage(RUSAGE_CHILDREN).ru_maxrss``, the
  largest worker's (an upper bound of the peak of the sum).
- **Merges**: tokref's merges must be identical with 1 and 2 processes (exit status 1
  otherwise). Against tokenizers they are identical up to the first step where two pairs
  tie for the top count (the libraries break ties differently, tests/test_merges.py) --
  on the same pre-tokens: tokenizers' timed run reads the file line by line, which
  changes a few (a line ending in a space ends in the pre-token ``" \\n"``), so tokenizers
  is trained again, untimed, on the file cut only where tokref cuts it
  (``tokref.counting.iter_units``). The script finds the first differing merge and checks
  that it is a tie by recounting the pairs there from tokref's pre-token counts (exit
  status 1 if it is not); the same is shown, for information, against the timed run.
- **Memory against the counts**: in a separate subprocess (tracemalloc slows the code,
  so it never runs with the timing), the deep size of the pre-token ``Counter`` from
  ``tokref.counting.count_corpus(path, ...)`` (dict, keys and values), then
  tracemalloc's peak during ``train(path, vocab_size, processes=1)``; the target is a peak
  of at most 2x the counts.
- **Encoding** the ``--encode-size`` corpus (5 MB) with tokref's trained tokenizer
  (vocabulary 8,000, processes=1), single thread: tokref ``encode_ordinary`` cold (after
  ``clear_cache()``) and warm against tiktoken's ``encode_ordinary`` with the same ranks;
  the ids must be identical (exit status 1 otherwise).

Targets (issue 13): training at most 1.0x tokenizers' wall time at every size (the faster
of tokref's 1 and 2 processes, both printed); encoding at least 0.8x tiktoken's
single-thread throughput, cold; peak memory of training within 2x the pre-token counts'
own size. A missed target is printed, not an error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import mb_per_s, timed

TRAIN_TARGET = 1.0  # tokref training time / tokenizers training time, at most
ENCODE_TARGET = 0.8  # tokref cold encoding throughput / tiktoken throughput, at least
MEMORY_TARGET = 2.0  # tracemalloc peak of training / deep size of the counts, at most
DEFAULT_SIZES = (1, 5, 25, 50)
DEFAULT_VOCABS = (1000, 8000, 32000)


# ---------------------------------------------------------------------------------------
# Helpers shared by the workers
# ---------------------------------------------------------------------------------------


def deep_size(counts: dict) -> int:
    """Bytes held by a dict and its keys and values (each distinct object once: a
    small int such as 1 is shared by every key that occurs once)."""
    seen: set[int] = set()
    total = sys.getsizeof(counts)
    for key, value in counts.items():
        for obj in (key, value):
            if id(obj) not in seen:
                seen.add(id(obj))
                total += sys.getsizeof(obj)
    return total


def merges_digest(merges: list[tuple[bytes, bytes]]) -> str:
    h = hashlib.sha256()
    for a, b in merges:
        h.update(len(a).to_bytes(4, "little") + a + len(b).to_bytes(4, "little") + b)
    return h.hexdigest()


def save_merges(merges: list[tuple[bytes, bytes]], path: str) -> None:
    Path(path).write_text(json.dumps([[a.hex(), b.hex()] for a, b in merges]))


def load_merges(path: str | Path) -> list[tuple[bytes, bytes]]:
    return [(bytes.fromhex(a), bytes.fromhex(b)) for a, b in json.loads(Path(path).read_text())]


def ranks_of(merges: list[tuple[bytes, bytes]]) -> dict[bytes, int]:
    """tiktoken's mergeable_ranks of a tokref-trained tokenizer: bytes, then merge k as 256 + k."""
    ranks = {bytes([i]): i for i in range(256)}
    for a, b in merges:
        ranks[a + b] = len(ranks)
    return ranks


def peak_rss_mb() -> float:
    """This process's peak resident set size: VmHWM, the high-water mark of its own
    memory map. (``getrusage(RUSAGE_SELF).ru_maxrss`` would do, but Linux carries the
    parent's peak over into it across fork and exec, so a child of a large parent seems
    large.)"""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1024)


def children_peak_rss_mb() -> float:
    """The peak RSS of the largest child (and grandchild) reaped so far."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1024)


# ---------------------------------------------------------------------------------------
# Workers: each runs in its own fresh process (main() starts them)
# ---------------------------------------------------------------------------------------


def work_train(job: dict[str, Any]) -> dict[str, Any]:
    lib, path, vocab = job["lib"], job["path"], job["vocab"]
    if lib == "tokref":
        from tokref.bytelevel import GPT2_PATTERN, ByteLevelBPETokenizer

        def run():
            return ByteLevelBPETokenizer().train(Path(path), vocab, pattern=GPT2_PATTERN,
                                                 processes=job["processes"])
    elif lib in ("tokenizers", "tokenizers_units"):
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        def run():
            tok = Tokenizer(models.BPE())
            # ByteLevel with use_regex=True splits on GPT-2's pattern, as tokref's GPT2_PATTERN.
            tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
            trainer = trainers.BpeTrainer(
                vocab_size=vocab, show_progress=False,
                initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[],
            )
            if lib == "tokenizers":
                tok.train([path], trainer=trainer)  # the file, line by line
            else:
                # The file cut only where tokref may cut it: exactly tokref's pre-tokens.
                from tokref.counting import iter_units
                from tokref.pretokenize import GPT2_PATTERN

                tok.train_from_iterator(iter_units(Path(path), GPT2_PATTERN), trainer=trainer)
            return tok
    elif lib == "sentencepiece":
        import atexit
        import shutil

        import sentencepiece as spm

        model_dir = tempfile.mkdtemp(prefix="bench_sp_")
        atexit.register(shutil.rmtree, model_dir, True)

        def run():
            spm.SentencePieceTrainer.train(
                input=path, model_prefix=os.path.join(model_dir, "sp"), model_type="bpe",
                vocab_size=vocab, byte_fallback=True, num_threads=2, minloglevel=2,
            )
            return spm.SentencePieceProcessor(model_file=os.path.join(model_dir, "sp.model"))
    else:
        raise ValueError(f"unknown library {lib!r}")

    rss_before = peak_rss_mb()
    seconds, tok = timed(run)
    out: dict[str, Any] = {"seconds": seconds, "rss_before_mb": rss_before}
    # tokref's counting workers are forked children of this process, joined before
    # train() returns, so RUSAGE_CHILDREN below includes them.
    out["rss_self_mb"] = peak_rss_mb()
    out["rss_children_mb"] = children_peak_rss_mb()
    out["rss_mb"] = out["rss_self_mb"] + out["rss_children_mb"]
    if lib == "tokref":
        merges = tok.merges
    elif lib in ("tokenizers", "tokenizers_units"):
        from tokref.bytelevel import bytes_to_unicode

        to_byte = {c: b for b, c in bytes_to_unicode().items()}
        merges = [(bytes(to_byte[c] for c in a), bytes(to_byte[c] for c in b))
                  for a, b in json.loads(tok.to_str())["model"]["merges"]]
    else:
        out["vocab"] = tok.get_piece_size()
        return out
    out.update(n_merges=len(merges), digest=merges_digest(merges))
    save_merges(merges, job["merges_file"])
    return out


def work_memory(job: dict[str, Any]) -> dict[str, Any]:
    import tracemalloc

    from tokref.bytelevel import GPT2_PATTERN, ByteLevelBPETokenizer
    from tokref.counting import count_corpus

    path = Path(job["path"])
    counts = count_corpus(path, GPT2_PATTERN)
    out = {"distinct": len(counts), "pretokens": sum(counts.values()), "counts_bytes": deep_size(counts)}
    # What training turns the counts into: {tuple of byte values: count}.
    words = {tuple(w.encode("utf-8")): c for w, c in counts.items()}
    out["words_bytes"] = deep_size(words) + sum(
        sys.getsizeof(b) for b in {b for w in words for b in w}
    )
    del counts, words
    tracemalloc.start()
    ByteLevelBPETokenizer().train(path, job["vocab"], pattern=GPT2_PATTERN, processes=1)
    out["train_peak_bytes"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out["ratio"] = out["train_peak_bytes"] / out["counts_bytes"]
    return out


def work_ties(job: dict[str, Any]) -> dict[str, Any]:
    """At the first step k where tokref's and tokenizers' merges differ, the count of
    each library's pair among the pairs after tokref's first k merges (the same k merges
    for both), from tokref's pre-token counts of the file."""
    from tokref.bytelevel import GPT2_PATTERN
    from tokref.counting import count_corpus
    from tokref.ranks import bpe_encode_piece

    k = job["k"]
    ours, theirs = load_merges(job["tokref_merges"]), load_merges(job["tokenizers_merges"])
    ranks = ranks_of(ours)
    pairs: Counter[tuple[int, int]] = Counter()
    for word, c in count_corpus(Path(job["path"]), GPT2_PATTERN).items():
        ids = bpe_encode_piece(word.encode("utf-8"), ranks, max_rank=256 + k)
        for pair in zip(ids, ids[1:]):
            pairs[pair] += c

    def count(pair: tuple[bytes, bytes]) -> int | None:
        a, b = ranks.get(pair[0], 1 << 40), ranks.get(pair[1], 1 << 40)
        return pairs.get((a, b), 0) if a < 256 + k and b < 256 + k else None

    top = max(pairs.values())
    return {"k": k, "top": top, "tokref_count": count(ours[k]), "tokenizers_count": count(theirs[k]),
            "tokref_pair": [x.hex() for x in ours[k]], "tokenizers_pair": [x.hex() for x in theirs[k]]}


def work_encode(job: dict[str, Any]) -> dict[str, Any]:
    import tiktoken

    from tokref.bytelevel import GPT2_PATTERN, ByteLevelBPETokenizer

    text = Path(job["path"]).read_text(encoding="utf-8")
    ranks = ranks_of(load_merges(job["merges_file"]))
    tok = ByteLevelBPETokenizer.from_tiktoken(ranks, pattern=GPT2_PATTERN)
    enc = tiktoken.Encoding("tokref_trained", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    repeat = job["repeat"]
    t_cold, ids_cold = timed(lambda: tok.encode_ordinary(text), repeat, setup=tok.clear_cache)
    t_warm, ids_warm = timed(lambda: tok.encode_ordinary(text), repeat)
    t_tk, ids_tk = timed(lambda: enc.encode_ordinary(text), repeat)
    return {"bytes": len(text.encode("utf-8")), "tokens": len(ids_tk), "cold_s": t_cold, "warm_s": t_warm,
            "tiktoken_s": t_tk, "ids_identical": ids_cold == ids_tk and ids_warm == ids_tk}


WORKERS = {"train": work_train, "memory": work_memory, "ties": work_ties, "encode": work_encode}


def run_worker(job: dict[str, Any], timeout: float) -> dict[str, Any]:
    """Run one job in a fresh ``python bench_scaling.py --worker JOB``; its result, or
    ``{"error": ...}`` (``"timeout"`` if it ran out of time)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(job)]
    # A session of its own, so that a timeout ends the job's worker processes too.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"timeout after {timeout:g} s"}
    if proc.returncode != 0:
        tail = stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        return {"error": tail[0]}
    return json.loads(stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------
# The run: jobs started from here, one table per part
# ---------------------------------------------------------------------------------------

TRAINERS = (("tokref_1p", "tokref", 1), ("tokref_2p", "tokref", 2),
            ("tokenizers", "tokenizers", 0), ("sentencepiece", "sentencepiece", 0))


class Run:
    """The options, the corpora, a temporary folder for merges files, and what the run
    found: ``results`` (written by ``--json``) and ``failures`` (exit status 1)."""

    def __init__(self, args: argparse.Namespace, paths: dict[float, Path]) -> None:
        self.args, self.paths = args, paths
        self.tmp = tempfile.TemporaryDirectory(prefix="bench_scaling_")
        self.results: dict[str, Any] = {"train": [], "memory": []}
        self.failures: list[str] = []
        self.loads: list[float] = []  # 1-minute load averages around each job of a row

    def merges_file(self, name: str, size: float, vocab: int) -> str:
        return os.path.join(self.tmp.name, f"{name}-{size:g}-{vocab}.json")

    def job(self, job: dict[str, Any]) -> dict[str, Any]:
        self.loads.append(os.getloadavg()[0])
        result = run_worker(job, self.args.timeout)
        self.loads.append(os.getloadavg()[0])
        return result


def ok(r: dict[str, Any] | None) -> dict[str, Any] | None:
    """A job's result if it succeeded, else None."""
    return r if r and "error" not in r else None


def fmt_s(r: dict[str, Any] | None) -> str:
    return "-" if r is None else "error" if "error" in r else f"{r['seconds']:.2f}"


def fmt_x(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def train_row(run: Run, size: float, vocab: int) -> dict[str, Any]:
    """Train every library at one size and vocabulary size; ratios and the merges checks."""
    args, path = run.args, str(run.paths[size])
    row: dict[str, Any] = {"size_mb": size, "vocab": vocab, "bytes": run.paths[size].stat().st_size}
    run.loads = []
    jobs = {key: {"kind": "train", "lib": lib, "path": path, "vocab": vocab, "processes": procs,
                  "merges_file": run.merges_file(key, size, vocab)}
            for key, lib, procs in TRAINERS
            if not (lib == "sentencepiece" and (args.no_sentencepiece or size > args.sp_max_mb))}
    tries: dict[str, list[dict[str, Any]]] = {key: [] for key in jobs}
    for _ in range(args.train_repeat):  # round robin: a burst of load does not hit one library's every try
        for key, job in jobs.items():
            tries[key].append(run.job(job))
    for key, _, _ in TRAINERS:
        row[key] = best_try(run, tries[key], f"{key} at {size:g} MB, vocab {vocab}") if key in jobs else None
    t1, t2, hf = ok(row["tokref_1p"]), ok(row["tokref_2p"]), ok(row["tokenizers"])
    row["ratio_1p"] = t1["seconds"] / hf["seconds"] if t1 and hf else None
    row["ratio_2p"] = t2["seconds"] / hf["seconds"] if t2 and hf else None
    row["speedup_2p"] = t1["seconds"] / t2["seconds"] if t1 and t2 else None
    row["merges_1p_eq_2p"] = t1["digest"] == t2["digest"] if t1 and t2 else None
    if row["merges_1p_eq_2p"] is False:
        run.failures.append(f"tokref's merges differ between 1 and 2 processes at {size:g} MB, vocab {vocab}")
    # tokenizers reads a file line by line: other pre-tokens than tokref's at some line
    # ends. For the merges, train it again (untimed) on exactly tokref's pre-tokens.
    row["vs_tokenizers_file"] = compare_with_tokenizers(run, size, vocab, "tokenizers") if t1 and hf else None
    row["vs_tokenizers"] = None
    if t1:
        same_input = run.job({"kind": "train", "lib": "tokenizers_units", "path": path, "vocab": vocab,
                              "processes": 0, "merges_file": run.merges_file("tokenizers_units", size, vocab)})
        if "error" in same_input:
            run.failures.append(f"tokenizers on tokref's pre-tokens at {size:g} MB, vocab {vocab}: {same_input['error']}")
        else:
            c = row["vs_tokenizers"] = compare_with_tokenizers(run, size, vocab, "tokenizers_units")
            if c["k"] < c["n"] and not c["tie"]:
                run.failures.append(f"on the same pre-tokens, tokref's and tokenizers' merges differ at merge "
                                    f"{c['k']} without a tie ({size:g} MB, vocab {vocab}): {c}")
    row["load"] = max(run.loads)
    return row


def best_try(run: Run, tries: list[dict[str, Any]], label: str) -> dict[str, Any]:
    """The fastest of a trainer's tries, with every try's time and the largest peak RSS;
    a failure if one failed (SentencePiece's refusals are only printed) or if the tries
    learnt different merges."""
    good = [t for t in tries if "error" not in t]
    if len(good) < len(tries) and not label.startswith("sentencepiece"):
        run.failures.append(f"{label}: {next(t for t in tries if 'error' in t)['error']}")
    if not good:
        return tries[0]
    best = dict(min(good, key=lambda t: t["seconds"]))
    best.update(tries_s=[t["seconds"] for t in good], rss_mb=max(t["rss_mb"] for t in good))
    if len({t.get("digest") for t in good}) > 1:
        run.failures.append(f"{label}: the tries learnt different merges")
    return best


def compare_with_tokenizers(run: Run, size: float, vocab: int, theirs_key: str) -> dict[str, Any]:
    """Where tokref's merges (1 process) first differ from those of ``theirs_key``, and
    whether that step is a tie: ``{"k": merges equal before it, "n": merges compared,
    "tie": ...}`` (``tie`` None if they never differ)."""
    ours_file, theirs_file = run.merges_file("tokref_1p", size, vocab), run.merges_file(theirs_key, size, vocab)
    ours, theirs = load_merges(ours_file), load_merges(theirs_file)
    n = min(len(ours), len(theirs))
    k = next((i for i in range(n) if ours[i] != theirs[i]), n)
    out: dict[str, Any] = {"k": k, "n": n, "n_tokref": len(ours), "n_tokenizers": len(theirs), "tie": None}
    if k < n:
        found = run.job({"kind": "ties", "path": str(run.paths[size]), "k": k,
                         "tokref_merges": ours_file, "tokenizers_merges": theirs_file})
        out["step"] = found
        out["tie"] = "error" not in found and found["tokref_count"] == found["tokenizers_count"] == found["top"]
    return out


def fmt_agree(c: dict[str, Any] | None) -> str:
    if c is None:
        return "-"
    if c["k"] == c["n"]:
        return f"all {c['n']:,}" + ("" if c["n_tokref"] == c["n_tokenizers"] else
                                     f" (of {c['n_tokref']:,} / {c['n_tokenizers']:,})")
    return f"{c['k']:,} + {'tie' if c['tie'] else 'no tie'}"


def training(run: Run) -> None:
    print(f"\nTraining (wall s, the best of {run.args.train_repeat}, each in a fresh process; every library reads the "
          "file by path; load: the highest 1-minute load average seen before or after one of the row's jobs,\n  "
          "which take 1 or 2 of the cores themselves)")
    print(f"  {'MB':>5} {'vocab':>6} {'load':>4} | {'tokref 1p':>9} {'tokref 2p':>9} {'tokenizers':>10} {'sentencepiece':>13} | "
          f"{'1p/tok':>6} {'2p/tok':>6} {'2p speed-up':>11} | {'1p=2p':>5} {'= tok':>13} {'= tok file':>13}")
    for size in run.results["sizes"]:
        for vocab in run.results["vocab_sizes"]:
            r = train_row(run, size, vocab)
            run.results["train"].append(r)
            same = "-" if r["merges_1p_eq_2p"] is None else "yes" if r["merges_1p_eq_2p"] else "NO"
            print(f"  {size:>5g} {vocab:>6} {r['load']:>4.1f} | {fmt_s(r['tokref_1p']):>9} {fmt_s(r['tokref_2p']):>9} "
                  f"{fmt_s(r['tokenizers']):>10} {fmt_s(r['sentencepiece']):>13} | "
                  f"{fmt_x(r['ratio_1p']):>6} {fmt_x(r['ratio_2p']):>6} {fmt_x(r['speedup_2p']):>11} | "
                  f"{same:>5} {fmt_agree(r['vs_tokenizers']):>13} {fmt_agree(r['vs_tokenizers_file']):>13}",
                  flush=True)
    print("  = tok: how many of tokref's first merges equal tokenizers' on the same pre-tokens (trained untimed on\n"
          "  the file cut where tokref cuts it), and whether the next step is a tie for the top count, where the\n"
          "  libraries' tie rules differ; = tok file: the same against the timed run, which reads the file line by\n"
          "  line, so a line ending in a space ends in the pre-token ' \\n', where the whole text has ' ', '\\n'\n"
          "  when a word follows.")
    args = run.args
    if not args.no_sentencepiece and any(s > args.sp_max_mb for s in run.results["sizes"]):
        print(f"  sentencepiece skipped above {args.sp_max_mb:g} MB (--sp-max-mb): it holds every line of the "
              "corpus (about 6 MB of RSS per MB)")
    for r in run.results["train"]:
        for key, _, _ in TRAINERS:
            if r[key] and "error" in r[key]:
                print(f"  {key} at {r['size_mb']:g} MB, vocab {r['vocab']}: {r[key]['error']}")

    print("\nPeak RSS of the training process, MB (tokref 2p: the parent's plus the largest worker's)")
    print(f"  {'MB':>5} {'vocab':>6} | {'tokref 1p':>9} {'tokref 2p':>9} {'tokenizers':>10} {'sentencepiece':>13}")
    for r in run.results["train"]:
        cells = ["-" if not r[k] else "error" if "error" in r[k] else f"{r[k]['rss_mb']:.0f}" for k, _, _ in TRAINERS]
        print(f"  {r['size_mb']:>5g} {r['vocab']:>6} | {cells[0]:>9} {cells[1]:>9} {cells[2]:>10} {cells[3]:>13}")


def memory(run: Run) -> None:
    vocab = run.results["vocab_sizes"][-1]
    print(f"\nMemory of tokref's training against its pre-token counts (tracemalloc, processes=1, vocab {vocab:,})")
    print(f"  {'MB':>5} | {'distinct':>9} {'counts MB':>9} {'words MB':>8} {'train peak MB':>13} {'peak/counts':>11}")
    for size in run.results["sizes"]:
        m = run.job({"kind": "memory", "path": str(run.paths[size]), "vocab": vocab})
        m["size_mb"] = size
        run.results["memory"].append(m)
        if "error" in m:
            run.failures.append(f"memory at {size:g} MB: {m['error']}")
            print(f"  {size:>5g} | error: {m['error']}")
            continue
        print(f"  {size:>5g} | {m['distinct']:>9,} {m['counts_bytes'] / 1e6:>9.1f} {m['words_bytes'] / 1e6:>8.1f} "
              f"{m['train_peak_bytes'] / 1e6:>13.1f} {m['ratio']:>10.2f}x", flush=True)
    print("  (counts: the Counter with its keys and values; words: the same counts as {tuple of byte values: "
          "count}, what train_merges starts from)")


def encoding(run: Run, size: float, vocab: int) -> None:
    merges = run.merges_file("tokref_1p", size, vocab)
    if not os.path.exists(merges):  # not in the grid: train it
        merges = run.merges_file("tokref_encode", size, vocab)
        trained = run.job({"kind": "train", "lib": "tokref", "path": str(run.paths[size]), "vocab": vocab,
                           "processes": 1, "merges_file": merges})
    if os.path.exists(merges):
        enc = run.job({"kind": "encode", "path": str(run.paths[size]), "merges_file": merges,
                       "repeat": run.args.repeat})
    else:
        enc = {"error": f"no tokenizer to encode with: {trained.get('error', 'no merges written')}"}
    run.results["encode"] = enc
    print(f"\nEncoding the {size:g} MB corpus with tokref's trained vocabulary of {vocab:,}, single thread "
          f"(best of {run.args.repeat})")
    if "error" in enc:
        run.failures.append(f"encoding: {enc['error']}")
        print(f"  error: {enc['error']}")
        return
    n = enc["bytes"]
    print(f"  tokref cold {enc['cold_s']:7.3f} s  {mb_per_s(n, enc['cold_s']):6.2f} MB/s  (empty piece cache)")
    print(f"  tokref warm {enc['warm_s']:7.3f} s  {mb_per_s(n, enc['warm_s']):6.2f} MB/s  (every piece cached)")
    print(f"  tiktoken    {enc['tiktoken_s']:7.3f} s  {mb_per_s(n, enc['tiktoken_s']):6.2f} MB/s  (encode_ordinary)")
    print(f"  {enc['tokens']:,} tokens; tokref and tiktoken ids identical: {enc['ids_identical']}")
    enc["ratio_cold"], enc["ratio_warm"] = enc["tiktoken_s"] / enc["cold_s"], enc["tiktoken_s"] / enc["warm_s"]
    print(f"  throughput tokref/tiktoken: cold {enc['ratio_cold']:.2f}x, warm {enc['ratio_warm']:.2f}x")
    if not enc["ids_identical"]:
        run.failures.append("tokref's and tiktoken's ids differ")


def targets(run: Run) -> None:
    res = run.results
    print("\nTargets (issue 13)")
    cells = [(r, min(x for x in (r["ratio_1p"], r["ratio_2p"]) if x is not None))
             for r in res["train"] if r["ratio_1p"] is not None or r["ratio_2p"] is not None]
    if cells:
        worst_row, worst = max(cells, key=lambda c: c[1])
        met = sum(x <= TRAIN_TARGET for _, x in cells)
        res["train_target_met"] = met == len(cells)
        print(f"  training <= {TRAIN_TARGET:g}x tokenizers' time (the faster of 1 and 2 processes): "
              f"{met} of {len(cells)} cells; worst {worst:.2f}x at {worst_row['size_mb']:g} MB, vocab "
              f"{worst_row['vocab']:,}: {'met' if res['train_target_met'] else 'MISSED'}")
    speedups = [r["speedup_2p"] for r in res["train"] if r["speedup_2p"] is not None]
    if speedups:
        print(f"  (speed-up of 2 processes over 1: {min(speedups):.2f}x to {max(speedups):.2f}x)")
    enc = res.get("encode", {})
    if "ratio_cold" in enc:
        res["encode_target_met"] = enc["ratio_cold"] >= ENCODE_TARGET
        print(f"  encoding >= {ENCODE_TARGET:g}x tiktoken's throughput, cold: {enc['ratio_cold']:.2f}x: "
              f"{'met' if res['encode_target_met'] else 'MISSED'}")
    mems = [m for m in res["memory"] if "ratio" in m]
    if mems:
        worst_m = max(mems, key=lambda m: m["ratio"])
        res["memory_target_met"] = worst_m["ratio"] <= MEMORY_TARGET
        print(f"  training's peak memory <= {MEMORY_TARGET:g}x the counts: worst {worst_m['ratio']:.2f}x at "
              f"{worst_m['size_mb']:g} MB: {'met' if res['memory_target_met'] else 'MISSED'}")


def tokref_commit() -> str:
    """The repository's commit, and whether tokref's sources differ from it (the
    workers import the working tree's tokref as they start)."""
    root = Path(__file__).resolve().parent.parent

    def git(*cmd: str) -> str:
        return subprocess.run(["git", "-C", str(root), *cmd], capture_output=True, text=True).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "solutions/tokref")
    except OSError:
        return "commit unknown"
    return f"commit {head}" + (", tokref modified since" if dirty else "") if head else "commit unknown"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=list(DEFAULT_SIZES), help="corpus sizes, MB")
    ap.add_argument("--vocab-sizes", type=int, nargs="+", default=list(DEFAULT_VOCABS))
    ap.add_argument("--no-sentencepiece", action="store_true", help="skip SentencePiece")
    ap.add_argument("--sp-max-mb", type=float, default=100, help="skip SentencePiece above this size")
    ap.add_argument("--encode-size", type=float, default=None,
                    help="MB of the encoding corpus (default 5 if among --sizes, else the largest size below 5, "
                         "else the smallest)")
    ap.add_argument("--encode-vocab", type=int, default=None,
                    help="vocabulary of the encoding tokenizer (default 8000 if among --vocab-sizes, else the largest)")
    ap.add_argument("--train-repeat", type=int, default=2,
                    help="training runs of each library, each in a fresh process; the fastest is reported")
    ap.add_argument("--repeat", type=int, default=3, help="encoding runs; the best is reported")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per subprocess")
    ap.add_argument("--seed", type=int, default=0, help="corpus generator seed")
    ap.add_argument("--cache-dir", type=Path, default=None, help="corpus cache (default benchmarks/.cache)")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers to FILE as JSON")
    ap.add_argument("--worker", metavar="JOB", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        job = json.loads(args.worker)
        print(json.dumps(WORKERS[job["kind"]](job)))
        return 0

    import sentencepiece
    import tiktoken
    import tokenizers

    import tokref
    from gen_corpus import CACHE_DIR, corpus_paths

    t_start = time.perf_counter()
    sizes, vocabs = sorted(set(args.sizes)), sorted(set(args.vocab_sizes))
    enc_size = args.encode_size
    if enc_size is None:
        enc_size = 5.0 if 5 in sizes else max([s for s in sizes if s <= 5], default=sizes[0])
    enc_vocab = args.encode_vocab or (8000 if 8000 in vocabs else vocabs[-1])
    load = os.getloadavg()[0]
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
          f"load average {load:.2f}")
    print(f"tokref {tokref.__version__} ({tokref_commit()}), tokenizers {tokenizers.__version__}, "
          f"sentencepiece {sentencepiece.__version__}, tiktoken {tiktoken.__version__}")
    t0 = time.perf_counter()
    paths = corpus_paths(sizes + [enc_size], args.seed, args.cache_dir or CACHE_DIR)
    print(f"corpora (gen_corpus.py, seed {args.seed}) ready in {time.perf_counter() - t0:.1f} s: "
          + ", ".join(f"{s:g} MB" for s in paths))
    run = Run(args, paths)
    run.results.update(sizes=sizes, vocab_sizes=vocabs, load_start=load)
    try:
        training(run)
        memory(run)
        encoding(run, enc_size, enc_vocab)
        targets(run)
    finally:
        run.tmp.cleanup()
    total = time.perf_counter() - t_start
    run.results.update(total_seconds=total, load_end=os.getloadavg()[0], failures=run.failures)
    print(f"\nTotal run time {total / 60:.1f} min; load average {run.results['load_end']:.2f} at the end")
    for f in run.failures:
        print(f"FAILED: {f}")
    if args.json:
        Path(args.json).write_text(json.dumps(run.results, indent=1))
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main())
