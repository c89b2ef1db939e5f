"""Unigram training, SentencePiece's ``unigram_model_trainer`` step by step: the corpus
read as words (:func:`read_corpus`), then seeds, EM and pruning (:func:`train_pieces`).

Every step takes the one :class:`~tokref.unigram.options.UnigramTrainerOptions` that
``UnigramTokenizer.train`` built from its arguments.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from .em import EXPECTED_COUNT_THRESHOLD, EMStep, Lattices, digamma
from .lattice import UNK_PENALTY
from .normalize import WS
from .options import UnigramTrainerOptions
from .seeds import Substrings, end_codes

__all__ = [
    "DESIRED_VOCAB_FACTOR",
    "MIN_SCORE_PENALTY_DELTA",
    "TrainingCorpus",
    "read_corpus",
    "train_pieces",
]

# SentencePiece's training constants (the M-step's threshold is in .em).
DESIRED_VOCAB_FACTOR = 1.1  # EM + pruning stops at 1.1 x vocab_size pieces, then the best are kept
MIN_SCORE_PENALTY_DELTA = 0.0001  # spreads the scores of characters EM dropped


# ---------------------------------------------------------------------------
# The corpus, as training sees it
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingCorpus:
    """A corpus read for training.

    ``words`` maps each lattice string (spaces as ``▁``) to its count; ``ends[w]`` holds
    what follows ``w`` somewhere (a code point, or ``Substrings.END`` at the end of a
    sentence); ``required`` lists every character, most frequent first (then by code
    point), and ``▁`` even if the corpus has no space: each must get a piece.
    """

    words: Counter[str]
    ends: dict[str, set[int]]
    required: list[str]


def read_corpus(texts: list[str], options: UnigramTrainerOptions) -> TrainingCorpus:
    """``texts`` read as SentencePiece reads them: lines are sentences, normalized, cut
    into words before each space (with ``split_by_whitespace``), spaces as ``▁``.

    Raises ``ValueError`` if the corpus has nothing but whitespace, or if
    ``options.vocab_size`` leaves no room for one of its characters.

    >>> corpus = read_corpus(["to be or", "not to be"], UnigramTrainerOptions(vocab_size=300))
    >>> corpus.words
    Counter({'▁to': 2, '▁be': 2, '▁or': 1, '▁not': 1})
    >>> corpus.required[:4], sorted(corpus.ends["▁be"])  # ▁be ends a line, and is followed by ▁or
    (['▁', 'o', 't', 'b'], [-2, 9601])
    """
    units = _training_units(texts, options)
    words, ends = _lattice_words(units, options.special_tokens)
    if not words:
        raise ValueError(
            "the corpus has no characters to learn from (only whitespace); "
            "pass text with at least one non-space character"
        )
    chars: Counter[str] = Counter()
    for w, c in words.items():
        for ch in w:
            chars[ch] += c
    required = [ch for ch, _ in sorted(chars.items(), key=lambda x: (-x[1], x[0]))]
    if WS not in chars:  # spaces must always be encodable as a piece
        required.append(WS)
    minimum = options.n_meta + len(required)
    if options.vocab_size < minimum:
        raise ValueError(
            f"vocab_size = {options.vocab_size} is too small: the "
            f"{len(options.special_tokens)} special tokens"
            + (", the 256 byte pieces" if options.byte_fallback else "")
            + f" and the {len(required)} distinct characters of the corpus need "
            f"{minimum}; pass vocab_size >= {minimum}"
        )
    return TrainingCorpus(words, ends, required)


def _training_units(texts: list[str], options: UnigramTrainerOptions) -> Counter[tuple[str, bool]]:
    """The corpus as ``(unit, last) → count``, spaces still ``" "``: the units are words
    (each space starts one) with ``split_by_whitespace``, else sentences; ``last`` says
    the unit ends its sentence. As in SentencePiece, a sentence is a line; with
    ``"nfkc"`` a line break is whitespace anyway."""
    counter: Counter[tuple[str, bool]] = Counter()
    nfkc = options.normalization == "nfkc"
    add_dummy_prefix, split_by_whitespace = options.add_dummy_prefix, options.split_by_whitespace
    for t in texts:
        if nfkc:
            t = unicodedata.normalize("NFKC", t)
        for line in t.split("\n"):
            if nfkc:
                if add_dummy_prefix and split_by_whitespace:  # the common case, made fast
                    ws = line.split()
                    if ws:
                        counter.update((" " + w, False) for w in ws[:-1])
                        counter[" " + ws[-1], True] += 1
                    continue
                line = " ".join(line.split())
            if not line:
                continue
            s = " " + line if add_dummy_prefix else line
            if not split_by_whitespace:
                counter[s, True] += 1
                continue
            parts = s.split(" ")
            units = [" " + p for p in parts[1:]]
            if parts[0]:
                units.insert(0, parts[0])
            counter.update((u, False) for u in units[:-1])
            counter[units[-1], True] += 1
    return counter


def _lattice_words(
    units: Counter[tuple[str, bool]], specials: tuple[str, ...]
) -> tuple[Counter[str], dict[str, set[int]]]:
    """The units as lattice strings (``▁`` for spaces) with their counts and followers.

    A literal ``▁`` and any one-character special token can be in no piece: they split
    the units, which is exact since no piece can cross them.
    """
    blocked = {WS} | {s for s in specials if len(s) == 1}
    splitter = re.compile("([" + re.escape("".join(sorted(blocked))) + "]+)")
    words: Counter[str] = Counter()
    ends: dict[str, set[int]] = {}
    for (u, last), c in units.items():
        parts = splitter.split(u)  # part, separator, part, ...
        for k in range(0, len(parts), 2):
            if not parts[k]:
                continue
            w = parts[k].replace(" ", WS)
            words[w] += c
            if k + 1 < len(parts):
                end = ord(parts[k + 1][0])
            else:
                end = Substrings.END if last else ord(WS)
            ends.setdefault(w, set()).add(end)
    return words, ends


# ---------------------------------------------------------------------------
# EM and pruning: all the words' lattices at once, as flat NumPy arrays
# ---------------------------------------------------------------------------


def train_pieces(
    corpus: TrainingCorpus, options: UnigramTrainerOptions
) -> tuple[list[tuple[str, float]], list[EMStep] | None]:
    """SentencePiece's Unigram trainer on ``corpus``; returns the pieces and, with
    ``options.trace``, the EM steps (else ``None``).

    The pieces are at most ``options.n_pieces`` ``(piece, score)``, best first, every
    character of ``corpus.required`` included. The steps, as ``unigram_model_trainer.cc``:

    1. Seed: ``seed_pieces``; scores ``log(score / Σ score)``.
    2. Repeat: ``num_sub_iterations`` times E-step (forward–backward over every word,
       weighted by its count) and M-step (``m_step``). Stop once at most
       ``1.1 × vocab_size`` pieces remain. Else prune: segment every word (Viterbi) to
       get each piece's count ``f``; for each piece, its best segmentation without
       itself (its *alternative*); a piece whose own best segmentation is not itself
       goes, as does one never used. The loss of removing piece ``i`` is
       ``F_i · (log p_i − Σ_{n ∈ alt_i} log p'_n)`` with ``F_i = f_i / Σ count`` and
       ``p'`` the probabilities after ``f_i`` moves to the alternative's pieces. Keep the
       characters, then the pieces of highest loss, ``max(1.1 × vocab_size,
       shrinking_factor × size)`` in all.
    3. Finalize: the required characters (scores kept, or, for those EM dropped, the
       minimum score less 0.0001, 0.0002, ... by descending count), then the
       best-scored pieces.

    A character whose expected count falls under 0.5, or that no Viterbi path uses, is
    dropped by SentencePiece, whose lattices then give such a character an unknown
    node scored ``min(scores) - 10``; here the character stays in the lattices with
    exactly that score (it is *demoted*), which is the same lattice.

    >>> options = UnigramTrainerOptions(vocab_size=270, special_tokens=["<unk>"], trace=True)
    >>> corpus = read_corpus(["low lower lowest"] * 3, options)
    >>> pieces, steps = train_pieces(corpus, options)
    >>> [p for p, _ in pieces][:4], len(pieces) <= options.n_pieces, steps[0].round
    (['▁lowe', '▁low', 'r', 's'], True, 0)
    """
    em = _EMTrainer(corpus, options)
    steps: list[EMStep] | None = [] if options.trace else None
    bar = None
    if options.progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc="unigram EM", unit="iter")
    desired = int(options.vocab_size * DESIRED_VOCAB_FACTOR)
    try:
        for round_ in itertools.count():
            for sub in range(options.num_sub_iterations):
                step = em.em_step(round_, sub)
                if steps is not None:
                    steps.append(step)
                if bar is not None:
                    bar.set_postfix(size=step.size, obj=f"{step.objective:.4f}")
                    bar.update(1)
            if em.size <= desired:
                break
            em.prune(desired, options.shrinking_factor)
    finally:
        if bar is not None:
            bar.close()
    return em.finalize(corpus.required, options.n_pieces), steps


class _EMTrainer:
    """The state of one training run over the seed pieces (numbered ``0..n-1``).

    ``logp`` are the pieces' log-probabilities; ``alive`` says which are still in the
    vocabulary and ``demoted`` which characters EM dropped (they stay in the lattices
    as unknown nodes, see :func:`train_pieces`). ``lat`` holds the words' lattices;
    pruning only ever removes pieces, so it is cut down now and then rather than built
    again.
    """

    def __init__(self, corpus: TrainingCorpus, options: UnigramTrainerOptions) -> None:
        word_counts = corpus.words
        words = sorted(word_counts, key=lambda w: (-word_counts[w], w))
        self.counts = np.array([word_counts[w] for w in words], dtype=np.float64)
        self.total = self.counts.sum()
        subs = Substrings(
            words, [word_counts[w] for w in words], end_codes(words, corpus.ends),
            options.max_piece_length, options.split_by_whitespace,
        )
        seed_ids = np.array(subs.seeds(options.seed_size, options.reserved), dtype=np.int64)
        self.n = n = len(seed_ids)
        self.pieces = [subs.strings[k] for k in seed_ids]
        self.ids = {p: i for i, p in enumerate(self.pieces)}
        self.is_char = subs.length[seed_ids] == 1
        raw = (subs.count * subs.length)[seed_ids].astype(np.float64)  # characters: length 1
        self.logp = np.log(raw) - np.log(raw.sum())
        self.alive = np.ones(n, dtype=bool)
        self.demoted = np.zeros(n, dtype=bool)
        # The seeds' occurrences are the edges of the lattices.
        pid_of = np.full(len(subs.strings), -1, dtype=np.int64)
        pid_of[seed_ids] = np.arange(n)
        occ = pid_of[subs.sid]
        m = occ >= 0
        lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        self.full = Lattices(lens, subs.word[m], subs.start[m], subs.end[m], occ[m])
        self.lat = self.full
        # The lattices of each piece without itself, built at the first pruning.
        self.alt_full: Lattices | None = None
        self.alt_owner = np.zeros(0, dtype=np.int64)

    @property
    def size(self) -> int:
        """How many pieces are in the vocabulary now."""
        return int((self.alive & ~self.demoted).sum())

    def scores(self) -> np.ndarray:
        """The scores the lattices use now."""
        # Removed pieces score -inf: the lattices drop their edges only now and then.
        kept = self.alive & ~self.demoted
        sc = np.where(kept, self.logp, -np.inf)
        sc[self.demoted] = self.logp[kept].min() - UNK_PENALTY
        return sc

    def _shrink(self, lat: Lattices) -> Lattices:
        dead = 1.0 - self.alive[lat.pid].mean() if lat.pid.size else 0.0
        return lat.subset(self.alive) if dead > 0.2 else lat

    def em_step(self, round_: int, sub: int) -> EMStep:
        """One E-step and M-step; what SentencePiece would log of it."""
        expected, log_z = self.lat.expected_counts(self.scores(), self.counts, self.n)
        alive, demoted, is_char = self.alive, self.demoted, self.is_char
        low = alive & ~demoted & (expected < EXPECTED_COUNT_THRESHOLD)
        if not (alive & ~demoted & ~low).any():  # a corpus too small for the threshold
            low = alive & ~demoted & (expected <= 0)
        alive &= ~(low & ~is_char)
        demoted |= low & is_char
        kept = alive & ~demoted
        self.logp = np.where(
            kept, digamma(np.where(kept, expected, 1.0)) - digamma(expected[kept].sum()), 0.0
        )
        self.lat = self._shrink(self.lat)
        obj = -float((self.counts * log_z).sum() / self.total)
        return EMStep(round_, sub, int(kept.sum()), obj)

    def prune(self, desired: int, shrinking_factor: float) -> None:
        """One pruning round: drop the pieces that are never used or never their own best
        segmentation, then keep the characters and the pieces of highest loss,
        ``max(desired, shrinking_factor × size)`` in all."""
        size = self.size
        score = self.scores()
        node_w, node_p, _ = self.lat.viterbi(score)
        freq = np.bincount(node_p, weights=self.counts[node_w], minlength=self.n)
        if self.alt_full is None:  # built once: pieces only disappear
            multi = np.flatnonzero(self.alive & ~self.demoted & ~self.is_char)
            self.alt_full = self.full.inner(multi)
            self.alt_owner = multi
        a_w, a_p, a_best = self.alt_full.subset(self.alive).viterbi(score)
        # pieces whose own best segmentation is split, or that no path uses, go
        alt_score = np.full(self.n, -np.inf)
        alt_score[self.alt_owner] = a_best
        own = self.alive & ~self.is_char & ~self.demoted
        split = own & (alt_score > score)
        unused = own & (freq == 0)
        self.alive &= ~(split | unused)
        self.demoted |= self.alive & self.is_char & (freq == 0)
        cand = np.flatnonzero(self.alive & ~self.is_char & ~self.demoted)
        loss = self._removal_loss(cand, freq, self.alt_owner[a_w], a_p)
        n_chars = int((self.alive & self.is_char & ~self.demoted).sum())
        pruned_size = max(desired, int(shrinking_factor * size))
        order = np.lexsort((cand, -loss))
        keep_cand = cand[order[: max(0, pruned_size - n_chars)]]
        new_alive = np.zeros(self.n, dtype=bool)
        new_alive[keep_cand] = True
        self.alive = (self.alive & self.is_char) | new_alive
        self.lat = self._shrink(self.lat)

    def _removal_loss(
        self, cand: np.ndarray, freq: np.ndarray, owner: np.ndarray, a_p: np.ndarray
    ) -> np.ndarray:
        """The loss of removing each piece of ``cand`` (see :func:`train_pieces`), from the
        Viterbi counts ``freq`` and the alternatives' nodes (``owner``: the piece each
        node is an alternative of; ``a_p``: its piece)."""
        n = self.n
        fsum = freq.sum()
        alt_len = np.bincount(owner, minlength=n)
        with np.errstate(divide="ignore"):  # log(0) for unused pieces, which are not candidates
            logprob_alt = np.bincount(owner, weights=np.log(freq[a_p] + freq[owner]), minlength=n)
        f = freq[cand]
        logsum_alt = np.log(fsum + f * (alt_len[cand] - 1))
        return (f / self.total) * (
            (np.log(f) - np.log(fsum)) - (logprob_alt[cand] - alt_len[cand] * logsum_alt)
        )

    def finalize(self, required: list[str], n_pieces: int) -> list[tuple[str, float]]:
        """The vocabulary: the required characters, then the best-scored pieces, at most
        ``n_pieces`` in all, by descending score (float32, as SentencePiece stores them)."""
        kept = self.alive & ~self.demoted
        logp = self.logp
        min_score = float(logp[kept].min())
        final: dict[str, float] = {}
        penalty = 0.0
        for ch in required:
            i = self.ids.get(ch)
            if i is not None and kept[i]:
                final[ch] = float(logp[i])
            else:
                # SentencePiece adds the steps, so that rarer characters score *higher*
                # than the minimum (and than every piece, in a corpus so small that EM kept
                # only whole words); its comment says rarer ones should get more penalty,
                # which subtracting does.
                penalty += MIN_SCORE_PENALTY_DELTA
                final[ch] = min_score - penalty
        rest: list[tuple[float, Any]] = [
            (float(logp[i]), self.pieces[i]) for i in np.flatnonzero(kept & ~self.is_char)
        ]
        rest.sort(key=lambda x: (-x[0], x[1]))
        for sc, p in rest:
            if len(final) >= n_pieces:
                break
            final.setdefault(p, sc)
        # SentencePiece stores scores as float32.
        out = [(p, float(np.float32(sc))) for p, sc in final.items()]
        out.sort(key=lambda x: (-x[1], x[0]))
        return out
