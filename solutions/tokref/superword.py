r"""Superword tokens: SuperBPE's two-stage curriculum (Liu et al. 2025) on byte-level BPE.

**Stage 1** is ordinary byte-level BPE (:meth:`ByteLevelBPETokenizer.train`): the text
is cut into pre-tokens by a regex (GPT-2's here), so no merge crosses a space, and
training stops after ``transition`` merges: the *transition point* ``t``.

**Stage 2** cuts the same text again, far more coarsely, replays the ``t`` stage-1
merges on the new pieces in their order, then goes on merging with the same rule
(:mod:`tokref.merges`: most frequent pair; on a tie the greatest pair of byte strings)
until the vocabulary is full. Pairs may now join across spaces: ``" of"`` + ``" the"``
becomes the superword ``" of the"``.

What the authors' code does, read from it (github.com/PythonNut/superbpe,
``scripts/extend_tokenizer.sh``; their fork of Hugging Face ``tokenizers``,
github.com/alisawuffles/tokenizers-superbpe, ``BpeTrainer::do_train_extend``), and is
done here the same way:

1. Stage 2's pre-tokenizer is ``Split(SUPERBPE_SPLIT_PATTERN, behavior="isolated")``:
   each match of ``\p{N}{1,3}`` (runs of at most three digits), `` ?[^\s\p{L}\p{N}]{2,}[\r\n/]*``
   (runs of two or more punctuation marks, with an optional space before them and any
   newlines or slashes after) and `` +(?!\S)`` (spaces not followed by a non-space: the
   spaces before a newline, or all but the last of several) is a piece of its own, and
   the text *between* matches is a piece too. So letters, single spaces, single
   punctuation marks and newlines join freely; digits and runs of punctuation stay
   apart. ``SUPERWORD_PATTERN`` finds the same pieces with ``findall`` (tiktoken's way),
   by adding a last alternative that takes characters up to the next match.
2. Two kinds of merges are never made in stage 2 (their commit "limit to 4-word tokens
   and special case colon", used for every released SuperBPE tokenizer, ``mw4_colon``):
   a merge whose token contains ``b": "`` (a colon then a space), and one whose token
   holds more than ``max_words`` (4) words, a word being a non-empty run of bytes
   between space bytes (:func:`is_superword_allowed`). A refused pair is passed over
   and the next best one is taken.
3. A stage-2 merge whose bytes are already a token (``(" of", " the")`` after
   ``(" of ", "the")``) merges the words into that token's id and adds no new token;
   training stops when the vocabulary has ``vocab_size`` tokens, as Hugging Face does.

One difference, on purpose: the fork skips a stage-1 merge whose pair no longer occurs
after stage 2's re-cutting and so may keep fewer than ``t`` of them; here all ``t`` are
kept, so the superword tokenizer always contains the stage-1 tokenizer.

>>> tok = train_superword(["the cat. the cat. the cat sat."], 256 + 8, transition=4)
>>> [t for t in tok.token_bytes[256:] if b" " in t.strip()]
[b'the cat', b'the cat.', b'the cat. ']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence

from .bytelevel import ByteLevelBPETokenizer
from .checks import check_int, check_special_tokens, check_vocab_size
from .counting import Corpus, count_corpus
from .merges import MergeResult, MergeStep, PairCounts, PairHeap, best_pair, count_pairs, descending_key, merge_pair
from .pretokenize import GPT2_PATTERN

__all__ = [
    "SUPERBPE_SPLIT_PATTERN",
    "SUPERWORD_PATTERN",
    "is_superword_allowed",
    "stage2_words",
    "continue_merges",
    "continue_merges_naive",
    "train_superword",
]

#: The authors' stage-2 ``Split`` regex (``behavior="isolated"``): matches are pieces,
#: and so is the text between them.
SUPERBPE_SPLIT_PATTERN = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"

#: The same pieces as a ``findall`` pattern: a match of the split pattern, or else
#: characters up to where the next match starts (tested equal to Hugging Face's Split).
SUPERWORD_PATTERN = rf"{SUPERBPE_SPLIT_PATTERN}|(?:(?!{SUPERBPE_SPLIT_PATTERN})[\s\S])+"


def is_superword_allowed(token: bytes, *, max_words: int = 4) -> bool:
    """Whether stage 2 may make ``token``: it holds no ``b": "`` and at most ``max_words``
    words (non-empty runs of bytes between spaces), the authors' two filters.

    >>> is_superword_allowed(b" of the"), is_superword_allowed(b"Note: the")
    (True, False)
    >>> is_superword_allowed(b" a b c d e"), is_superword_allowed(b" a b c d")
    (False, True)
    """
    if b": " in token:
        return False
    return sum(1 for w in token.split(b" ") if w) <= max_words


def stage2_words(
    texts: Corpus, special_tokens: Collection[str] = (), *, processes: int = 1
) -> dict[tuple[int, ...], int]:
    """The stage-2 pieces of ``texts`` (``SUPERWORD_PATTERN``) as byte tuples with counts.

    >>> stage2_words("the cat sat. 12345")
    {(116, 104, 101, 32, 99, 97, 116, 32, 115, 97, 116, 46, 32): 1, (49, 50, 51): 1, (52, 53): 1}
    """
    counts = count_corpus(texts, SUPERWORD_PATTERN, special_tokens, processes=processes)
    return {tuple(w.encode("utf-8")): c for w, c in counts.items()}


def _check_stage1(symbols: Sequence[bytes], merges: Sequence[tuple[int, int]]) -> list[bytes]:
    symbols = list(symbols)
    if len(symbols) != 256 + len(merges):
        raise ValueError(
            f"symbols holds {len(symbols)} strings but 256 bytes and {len(merges)} merges make "
            f"{256 + len(merges)}; pass the stage-1 tokenizer's token_bytes and merge pairs"
        )
    for k, (a, b) in enumerate(merges):
        if not (0 <= a < 256 + k and 0 <= b < 256 + k) or symbols[a] + symbols[b] != symbols[256 + k]:
            raise ValueError(f"stage-1 merge {k} ({a}, {b}) does not make symbol {256 + k}")
    return symbols


def continue_merges(
    words: Mapping[tuple[int, ...], int],
    symbols: Sequence[bytes],
    merges: Sequence[tuple[int, int]],
    n_tokens: int,
    *,
    max_words: int = 4,
) -> MergeResult[bytes]:
    """Stage 2: replay the stage-1 ``merges`` (id pairs; ``symbols`` = the 256 bytes and
    one string per merge) on ``words`` (byte tuples → counts, usually
    :func:`stage2_words`), then merge by the tie rule of :mod:`tokref.merges`, passing
    over pairs :func:`is_superword_allowed` refuses, until there are ``n_tokens``
    symbols (or no pair is left). A pair whose bytes are already a symbol merges into it.

    Returns every merge in order (stage 1's first) with the step of each new one.

    >>> syms = [bytes([i]) for i in range(256)]
    >>> r = continue_merges({tuple(b"a b a b"): 1}, syms, [], 258)
    >>> r.symbols[256:], r.merges
    ([b'a ', b'a b'], [(97, 32), (256, 98)])
    """
    symbols = _check_stage1(symbols, merges)
    n_tokens = check_int(n_tokens, name="n_tokens", minimum=len(symbols))
    max_words = check_int(max_words, name="max_words", minimum=1)
    index = PairCounts(words)
    for k, pair in enumerate(merges):
        index.merge(pair, 256 + k)
    ids = {s: i for i, s in enumerate(symbols)}
    keys = [descending_key(s) for s in symbols]
    heap = PairHeap(index.counts, keys)
    out, steps = list(merges), []
    while len(symbols) < n_tokens and (best := heap.pop()) is not None:
        pair, count = best
        token = symbols[pair[0]] + symbols[pair[1]]
        if not is_superword_allowed(token, max_words=max_words):
            continue  # refused for good: its token is the same whenever it comes back
        new_id = ids.get(token)
        if new_id is None:
            new_id = ids[token] = len(symbols)
            symbols.append(token)
            heap.add_symbol(*pair)
            steps.append(MergeStep(len(out), pair, count, new_id))
        out.append(pair)
        heap.update(index.merge(pair, new_id))
    return MergeResult(out, symbols, steps)


def continue_merges_naive(
    words: Mapping[tuple[int, ...], int],
    symbols: Sequence[bytes],
    merges: Sequence[tuple[int, int]],
    n_tokens: int,
    *,
    max_words: int = 4,
) -> MergeResult[bytes]:
    """:func:`continue_merges` by its definition, recounting every pair after every
    merge: the tests' oracle.

    >>> syms = [bytes([i]) for i in range(256)]
    >>> continue_merges_naive({tuple(b"a b a b"): 1}, syms, [], 258).merges
    [(97, 32), (256, 98)]
    """
    symbols = _check_stage1(symbols, merges)
    n_tokens = check_int(n_tokens, name="n_tokens", minimum=len(symbols))
    current = dict(words)

    def merge_everywhere(pair: tuple[int, int], new_id: int) -> None:
        nonlocal current
        merged: dict[tuple[int, ...], int] = defaultdict(int)
        for w, c in current.items():
            merged[tuple(merge_pair(w, pair, new_id))] += c
        current = dict(merged)

    for k, pair in enumerate(merges):
        merge_everywhere(pair, 256 + k)
    out, steps = list(merges), []
    while len(symbols) < n_tokens:
        counts = {p: c for p, c in count_pairs(current).items()
                  if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)}
        if not counts:
            break
        pair = best_pair(counts, key=symbols.__getitem__)
        token = symbols[pair[0]] + symbols[pair[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
            steps.append(MergeStep(len(out), pair, counts[pair], new_id))
        out.append(pair)
        merge_everywhere(pair, new_id)
    return MergeResult(out, symbols, steps)


def train_superword(
    texts: Corpus,
    vocab_size: int,
    *,
    transition: int,
    pattern: str = GPT2_PATTERN,
    max_words: int = 4,
    special_tokens: Collection[str] = (),
    processes: int = 1,
    stage1: ByteLevelBPETokenizer | None = None,
) -> ByteLevelBPETokenizer:
    """A SuperBPE tokenizer of ``vocab_size`` tokens: ``transition`` merges of ordinary
    byte-level BPE under ``pattern`` (stage 1), then superword merges on
    ``SUPERWORD_PATTERN``'s pieces (stage 2, :func:`continue_merges`). The result is a
    :class:`ByteLevelBPETokenizer` whose pattern is ``SUPERWORD_PATTERN``: it encodes as
    any byte-level tokenizer does (tiktoken's rule: lowest-ranked bytes first).
    ``transition = vocab_size - 256 - len(special_tokens)`` gives stage 1 alone.
    ``stage1``: a byte-level tokenizer already trained on ``texts`` with ``pattern`` and at
    least ``transition`` merges, whose first ``transition`` are used (``truncated``), so
    that a sweep over transition points trains stage 1 once.

    >>> tok = train_superword("to be or not to be", 256 + 6, transition=3)
    >>> tok.tokenize("to be or")
    ['to be o', 'r']
    """
    specials = check_special_tokens(special_tokens)
    vocab_size = check_int(vocab_size, name="vocab_size")
    reason = f"the 256 byte tokens and {len(specials)} special tokens"
    check_vocab_size(vocab_size, 256 + len(specials), reason=reason)
    n_merges = vocab_size - 256 - len(specials)
    transition = check_int(transition, name="transition", minimum=0)
    if transition > n_merges:
        raise ValueError(
            f"transition = {transition} is beyond the {n_merges} merges that vocab_size = "
            f"{vocab_size} leaves; choose 0 <= transition <= {n_merges}"
        )
    if stage1 is None:
        stage1 = ByteLevelBPETokenizer().train(texts, 256 + transition, pattern=pattern, processes=processes,
                                               trace=True)
    elif not isinstance(stage1, ByteLevelBPETokenizer) or len(stage1.merge_ids) < transition:
        raise ValueError(
            f"stage1 must be a ByteLevelBPETokenizer trained with at least transition = {transition} merges")
    else:
        stage1 = stage1.truncated(transition)
    words = stage2_words(texts, specials, processes=processes)
    learnt = continue_merges(words, stage1.token_bytes, [(a, b) for a, b, _ in stage1.merge_ids],
                             256 + n_merges, max_words=max_words)
    n = len(learnt.symbols)
    # A rank table, as tiktoken's: the merge list of stage 2 may join pairs that tiktoken's
    # rule (lowest-ranked bytes first) would reach another way, which from_vocab_merges refuses.
    tok = ByteLevelBPETokenizer.from_tiktoken(
        dict(zip(learnt.symbols, range(n))), pattern=SUPERWORD_PATTERN,
        special_tokens={s: n + i for i, s in enumerate(specials)}, name="superbpe")
    tok.trace = list(stage1.trace or []) + learnt.steps  # the new tokens' steps, stage 1's first
    return tok
