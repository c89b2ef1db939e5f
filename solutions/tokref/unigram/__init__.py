"""SentencePiece-style Unigram language-model tokenization (Kudo 2018; Kudo & Richardson 2018).

A Unigram tokenizer is a vocabulary of *pieces*, each with a log-probability (its
*score*). A segmentation of a string into pieces has the probability of a unigram
language model, the product of its pieces' probabilities, so its log-probability is the
sum of their scores. Encoding picks the most probable segmentation (Viterbi); training
(EM, then pruning) picks the pieces and their scores.

**The text pipeline** (SentencePiece's defaults, written down):

1. *Normalization*. ``"nfkc"`` (the default): Unicode NFKC, then every whitespace
   character (``str.isspace``) becomes a space, runs of spaces collapse to one and the
   ends are stripped (SentencePiece's ``nmt_nfkc`` with ``remove_extra_whitespaces``;
   unlike ``nmt_nfkc`` control characters are kept). ``"identity"``: the text as given.
2. *Dummy prefix* (``add_dummy_prefix=True``): a space is put before non-empty text, so
   ``"hello"`` and ``"say hello"`` both hold the piece ``"▁hello"``.
3. *Whitespace as a symbol*: every space becomes the meta-symbol ``▁`` (U+2581), which
   is part of the pieces. Nothing else splits the text, so text without spaces (Chinese,
   Japanese) needs no pre-tokenizer. With ``split_by_whitespace=True`` (the default) a
   piece holds ``▁`` only as its first character, so pieces never cross words.
4. A literal ``▁`` in the input is *not* a space: no piece matches it, and it is encoded
   by byte fallback (so it decodes back to ``▁``; SentencePiece would turn it into a space).

**Viterbi ties.** When two segmentations have the same score, the rule of SentencePiece
and Hugging Face ``tokenizers`` applies at every position: of the best paths ending
there, the one whose last piece starts earliest (the longest last piece) wins. Scores
are added left to right in float64, as ``tokenizers`` does, so the two give identical
segmentations for the same pieces and scores.

**Byte fallback.** A character that no piece covers gets an *unknown* node of score
``min(scores) - 10`` (SentencePiece's penalty). With ``byte_fallback=True`` it is written
as the pieces ``<0x00>``…``<0xFF>`` of its UTF-8 bytes, so ``decode(encode(s))`` gives
back ``tokenizer.normalize(s)`` for every string ``s`` (and ``s`` itself with
``normalization="identity"``); without byte fallback a run of unknown characters
becomes one ``<unk>``.

**Training** (``UnigramTokenizer.train``; SentencePiece's ``unigram_model_trainer``,
step by step in ``training.train_pieces``). The corpus becomes a multiset of words. The seed
vocabulary is every character and the substrings that cover most characters
(``seed_pieces``: counted exactly, where SentencePiece uses a suffix array). Then EM:
the E-step gives every piece its expected count (``forward_backward``, summed over the
words with their counts), the M-step SentencePiece's Bayesian scores ``ψ(count) −
ψ(total)`` (``m_step``). After every two EM steps, pruning removes the pieces whose
removal costs the corpus likelihood least, keeping 75% per round, until 1.1 ×
``vocab_size`` remain; after a last EM step the best pieces make the vocabulary. The
lattices of all words are run at once as flat NumPy arrays, so training takes about as
long as SentencePiece's C++ (see ``benchmarks/bench_unigram.py``).

**The modules.** ``normalize`` (the text as the tokenizer sees it), ``lattice`` (the
algorithms on one string: Viterbi, all segmentations, forward–backward, n-best,
sampling), ``seeds`` (the seed vocabulary), ``em`` (the M-step, and every word's
lattice at once as NumPy arrays), ``options`` (``UnigramTrainerOptions``, train's
arguments checked once), ``training`` (reading the corpus; EM and pruning),
``tokenizer`` (``UnigramTokenizer``), ``reference`` (the plain references of the
assignment's hidden tests), ``checks`` (shared argument checks). Everything public is
imported here, so ``from tokref.unigram import X`` works for all of them.

>>> scores = {"▁": -3.0, "a": -2.0, "b": -2.0, "ab": -2.5, "▁ab": -6.0}
>>> viterbi("▁ab", scores)
(['▁', 'ab'], -5.5)
>>> sorted(segmentations("▁ab", scores), key=lambda s: -s[1])
[(['▁', 'ab'], -5.5), (['▁ab'], -6.0), (['▁', 'a', 'b'], -7.0)]
"""

from __future__ import annotations

# Re-exported, so that every import from tokref.unigram keeps working: the names of
# __all__, and (outside it, as before) the constants, the assignment's references and
# the building blocks the tests use.
from ..base import UNK
from .em import EXPECTED_COUNT_THRESHOLD, EMStep, Lattices, digamma, m_step
from .lattice import (
    UNK_PENALTY,
    Pieces,
    forward_backward,
    nbest,
    sample,
    segmentations,
    viterbi,
)
from .normalize import NORMALIZATIONS, WS, Normalization, normalize
from .options import BYTE_PIECES, DEFAULT_SPECIAL_TOKENS, UnigramTrainerOptions
from .reference import expected_piece_counts, ml_m_step, prune_pieces
from .seeds import COMMON, INHERITED, Substrings, script, seed_pieces
from .tokenizer import UnigramTokenizer
from .training import DESIRED_VOCAB_FACTOR, MIN_SCORE_PENALTY_DELTA

__all__ = [
    "WS",
    "UNK_PENALTY",
    "BYTE_PIECES",
    "UnigramTokenizer",
    "UnigramTrainerOptions",
    "EMStep",
    "normalize",
    "viterbi",
    "segmentations",
    "forward_backward",
    "nbest",
    "sample",
    "digamma",
    "m_step",
    "seed_pieces",
]
