"""Counting the pre-tokens of a large corpus: streamed from a file, split over processes,
merged exactly.

Byte-level BPE training starts from ``{pre-token: count}``; everything after that works
on the distinct pre-tokens only, so the counts are all training needs to hold. This
module gets them without holding the corpus: a file is read in blocks, and the blocks
can be counted by several processes at once, because a count is a sum.

**Where the corpus may be cut.** Counting the parts must give the counts of the whole, so
a cut may fall only where the pre-tokenizer would end a piece anyway and start the next
one the same way whatever came before. Elsewhere it changes the counts: cutting
``"hello"`` after ``"hel"`` counts the pieces ``"hel"`` and ``"lo"``, which the text does
not hold; and GPT-2's pattern splits ``"a\\n\\n\\nb"`` into ``"a", "\\n\\n", "\\n", "b"``
(a run of whitespace leaves its last character to the word after it), so a cut after the
third newline turns the two middle pieces into one ``"\\n\\n\\n"``. The safe places are

- between documents: pre-tokens never cross texts (``train(["a", "b"])`` counts the two
  separately), so every document boundary is a cut;
- right after a special token: special-token text is cut out before pre-tokenizing;
- the *safe cuts* of :mod:`tokref.stream` (a space after a non-space, a non-letter after
  a letter...), proved there for the GPT-2, cl100k_base and o200k_base patterns. With
  another pattern a document is cut only after special tokens.

:func:`iter_units` makes those pieces (blocks of about :data:`~tokref.stream.BLOCK`
characters); :func:`count_corpus` counts them in this process or in ``processes``
workers, each keeping its own ``Counter`` and sending it back once at the end, where the
counts are added: integer sums, so the result is exactly that of one process, and the
merges learnt from it are identical.

**Memory.** One block per worker in flight (the queue is bounded), one document of an
iterable at a time, and the counts: the corpus itself is never held.

>>> from tokref.pretokenize import GPT2_PATTERN
>>> count_corpus(["the cat", "the hat<|e|>the"], GPT2_PATTERN, ["<|e|>"])
Counter({'the': 3, ' cat': 1, ' hat': 1})
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sys
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any, Union

import regex

from .checks import check_int, check_text, iter_texts
from .pretokenize import count_pretokens as count_pretokens_in
from .stream import BLOCK, decode_chunks, iter_blocks

__all__ = ["Corpus", "READ_SIZE", "iter_documents", "iter_units", "count_corpus"]

#: A training corpus: one text, an iterable of texts (documents), or a UTF-8 file's path.
Corpus = Union[str, Iterable[str], "os.PathLike[str]"]

#: Bytes read from a file at a time: about one block (tokref.stream.BLOCK characters).
READ_SIZE = 1 << 16


def iter_documents(texts: Corpus, *, name: str = "texts") -> Iterator[str]:
    """The documents of a corpus, one at a time: a ``str`` is one document, an iterable
    yields its items (checked as they come, :func:`tokref.checks.iter_texts`), a path
    (``os.PathLike``, e.g. ``pathlib.Path``) is one document read from a UTF-8 file in
    pieces of :data:`READ_SIZE` bytes (decoded incrementally: a character may straddle
    two reads).

    Raises ``TypeError`` for anything else and ``ValueError`` once the corpus turns out to
    hold no text.

    >>> list(iter_documents(iter(["a", "b"])))
    ['a', 'b']
    """
    accepted = "a str, an iterable of str or a path (pathlib.Path)"
    if isinstance(texts, os.PathLike):
        path = Path(texts)
        if not path.is_file():
            raise FileNotFoundError(f"{name}: no such file {str(path)!r}; pass the path of a UTF-8 text file")
        # A path is ONE text, as if read whole: its pieces are joined back by iter_units.
        yield from iter_texts(decode_chunks(_read(path)), name=name, accepted=accepted)
    else:
        fix = "decode it first (texts.decode('utf-8')) or pass the file's pathlib.Path"
        yield from iter_texts(texts, name=name, accepted=accepted, fix_bytes=fix)


def _read(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        while chunk := f.read(READ_SIZE):
            yield chunk


def iter_units(
    texts: Corpus, pattern: str, special_tokens: Collection[str] = (), *, block: int = BLOCK
) -> Iterator[str]:
    """The corpus cut into units whose pre-token counts add up to the corpus's: each
    document (a path's whole text is one) cut at safe cuts into blocks of about
    ``block`` characters (module docstring).

    >>> from tokref.pretokenize import GPT2_PATTERN
    >>> list(iter_units(["It's a dog, the end", "x"], GPT2_PATTERN, block=8))
    ["It's a", ' dog, the', ' end', 'x']
    """
    specials = list(special_tokens)
    if isinstance(texts, os.PathLike):
        # The file's pieces are parts of one text: join them, then cut where it is safe.
        yield from iter_blocks(iter_documents(texts), pattern=pattern, special_tokens=specials,
                               allowed=specials, block=block)
        return
    for doc in iter_documents(texts):
        if len(doc) <= block:
            yield doc
        else:
            yield from iter_blocks([doc], pattern=pattern, special_tokens=specials, allowed=specials, block=block)


def count_corpus(
    texts: Corpus,
    pattern: str,
    special_tokens: Collection[str] = (),
    *,
    processes: int = 1,
    progress: bool = False,
) -> Counter[str]:
    """How often each pre-token of ``pattern`` occurs in the corpus ``texts`` (a str,
    an iterable of documents, or a path), special-token text cut out first: the counts
    of :func:`tokref.pretokenize.count_pretokens` on the whole corpus, exactly, without
    holding it. ``processes > 1`` counts in that many worker processes (module docstring);
    ``progress=True`` shows a tqdm bar of the characters counted.

    >>> from tokref.pretokenize import GPT2_PATTERN
    >>> count_corpus("a a a", GPT2_PATTERN) == count_corpus("a a a", GPT2_PATTERN, processes=2)
    True
    """
    pattern = check_text(pattern, name="pattern")
    processes = check_int(processes, name="processes", minimum=1)
    compiled = regex.compile(pattern)
    specials = list(special_tokens)
    units = iter_units(texts, pattern, specials)
    bar = _progress_bar(texts) if progress else None
    if bar is not None:
        units = _advancing(units, bar)
    try:
        if processes == 1:
            return count_pretokens_in(units, compiled, specials)
        return _count_in_workers(units, pattern, specials, processes)
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(texts: Corpus) -> Any:
    from tqdm.auto import tqdm

    total = Path(texts).stat().st_size if isinstance(texts, os.PathLike) else None
    unit = "B" if total is not None else "char"
    return tqdm(total=total, desc="counting pre-tokens", unit=unit, unit_scale=True)


def _advancing(units: Iterable[str], bar: Any) -> Iterator[str]:
    for u in units:
        bar.update(len(u) if bar.unit == "char" else len(u.encode("utf-8")))
        yield u


# ---------------------------------------------------------------------------------------
# Worker processes
# ---------------------------------------------------------------------------------------

#: Units sent to a worker at once (about 256k characters): few messages, and small
#: enough that the workers finish together.
_BATCH = 4


def _count_in_workers(units: Iterable[str], pattern: str, specials: list[str], processes: int) -> Counter[str]:
    # fork on Linux: the workers start at once, and a script needs no
    # `if __name__ == "__main__":` guard (spawn and forkserver re-run the main module).
    # The children only count and send back a Counter, which no lock of another thread
    # of the parent (a Jupyter kernel has some) can block. Elsewhere: spawn, the safe
    # default of macOS and Windows, where the guard is needed.
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    jobs = ctx.Queue(maxsize=2 * processes)  # bounded: the reader waits for the workers
    results = ctx.Queue()
    workers = [ctx.Process(target=_worker, args=(pattern, specials, jobs, results), daemon=True)
               for _ in range(processes)]
    for w in workers:
        w.start()
    try:
        batch: list[str] = []
        for unit in units:
            batch.append(unit)
            if len(batch) == _BATCH:
                _send(jobs, batch, workers)
                batch = []
        if batch:
            _send(jobs, batch, workers)
        for _ in workers:
            _send(jobs, None, workers)
        parts = [_receive(results, workers) for _ in workers]
    except BaseException:
        for w in workers:
            w.terminate()
        raise
    finally:
        for w in workers:
            w.join()
    errors = [p for p in parts if isinstance(p, BaseException)]
    if errors:
        raise errors[0]
    # Add the smaller counters into the largest: integer sums, exact in any order.
    parts.sort(key=len, reverse=True)
    total = parts[0]
    for part in parts[1:]:
        for piece, c in part.items():
            total[piece] += c
    return total


def _send(jobs: Any, item: list[str] | None, workers: list[Any]) -> None:
    # A worker that died (killed, out of memory) never takes another job: wait for room
    # in the queue a second at a time, and give up when one is gone.
    while True:
        try:
            return jobs.put(item, timeout=1.0)
        except queue.Full:
            _check_alive(workers)


def _receive(results: Any, workers: list[Any]) -> Any:
    while True:
        try:
            return results.get(timeout=1.0)
        except queue.Empty:
            _check_alive(workers)


def _check_alive(workers: list[Any]) -> None:
    dead = [w.exitcode for w in workers if w.exitcode is not None and w.exitcode != 0]
    if dead:
        raise RuntimeError(
            f"a pre-token counting process died (exit code {dead[0]}) before sending its "
            "counts: out of memory, or killed? Retry with processes=1 to see the error"
        )


def _worker(pattern: str, specials: list[str], jobs: Any, results: Any) -> None:
    units = (u for batch in iter(jobs.get, None) for u in batch)
    try:
        counts = count_pretokens_in(units, regex.compile(pattern), specials)
    except BaseException as e:  # sent back and raised in the parent
        for _ in units:  # keep taking jobs, so that the parent never waits on a full queue
            pass
        results.put(e)
        return
    results.put(counts)
