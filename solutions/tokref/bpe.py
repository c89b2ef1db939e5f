"""Character-level BPE, as in Sennrich, Haddow and Birch (2016).

Words are the whitespace-separated strings of the text. Each word is spelt as its
characters followed by the end-of-word marker ``</w>``, so that ``low`` as a word and
``low`` inside ``lower`` are different symbols once merged (``low</w>`` vs ``low``), and
decoding knows where the spaces go. Training counts words, then learns merges with the
rule of :mod:`tokref.merges` (ties: the lexicographically greatest pair of symbol
strings; ``"</w>"`` compares as that string). Encoding applies the learned merges to
each word in rank order: repeatedly merge the adjacent pair that was learnt earliest.

Ids: the special tokens first (default: just ``<unk>``, for characters never seen in
training), then the base symbols (the training characters in code-point order, then
``</w>``), then one id per merge, in order.

>>> tok = BPETokenizer().train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, vocab_size=17)
>>> [a + " " + b for a, b in tok.merges]  # three ties at 9, then two at 7
['t </w>', 's t</w>', 'e st</w>', 'o w', 'l ow']
>>> tok.tokenize("lowest")
['low', 'est</w>']
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .base import (
    Token,
    Tokenizer,
    TokenizerFileError,
    check_piece_list,
    check_int,
    check_probability,
    check_rng,
    check_special_tokens,
    check_text,
    check_texts,
    is_integer,
)
from .merges import MergeStep, apply_ranked_merges, sample_ranked_merges, train_merges

__all__ = ["EOW", "BPETokenizer", "word_counts", "apply_merges"]

EOW = "</w>"


def word_counts(texts: str | Iterable[str]) -> Counter[str]:
    """Whitespace-separated words of ``texts`` with their counts.

    >>> word_counts("the cat the")
    Counter({'the': 2, 'cat': 1})
    """
    counts: Counter[str] = Counter()
    for t in check_texts(texts):
        counts.update(t.split())
    return counts


def apply_merges(
    symbols: Sequence[str],
    ranks: Mapping[tuple[str, str], int],
    *,
    max_rank: int | None = None,
) -> list[str]:
    """Merge ``symbols`` with learnt merges: repeatedly the adjacent pair of lowest rank
    (leftmost on a tie), until no adjacent pair was learnt. With ``max_rank``, only the
    merges of rank below it count: the segmentation after the first ``max_rank`` merges.

    >>> apply_merges(["l", "o", "w", "</w>"], {("l", "o"): 0, ("lo", "w"): 1})
    ['low', '</w>']
    >>> apply_merges(["l", "o", "w", "</w>"], {("l", "o"): 0, ("lo", "w"): 1}, max_rank=1)
    ['lo', 'w', '</w>']
    """
    return apply_ranked_merges(symbols, ranks, max_rank=max_rank)


class BPETokenizer(Tokenizer):
    """Sennrich-style BPE over characters with an end-of-word marker ``</w>``."""

    kind = "bpe"

    def __init__(self) -> None:
        super().__init__()
        self._merges: list[tuple[str, str]] = []
        self._ranks: dict[tuple[str, str], int] = {}
        self.trace: list[MergeStep] | None = None

    def train(
        self,
        texts: str | Iterable[str] | Mapping[str, int],
        vocab_size: int,
        *,
        special_tokens: Sequence[str] = ("<unk>",),
        progress: bool = False,
        trace: bool = False,
    ) -> BPETokenizer:
        """Learn merges until the vocabulary has ``vocab_size`` entries (specials, base
        symbols and merges), or no pair is left; returns ``self``.

        ``texts`` is a string, an iterable of strings, or a ready ``{word: count}`` dict.
        """
        specials = check_special_tokens(special_tokens)
        if isinstance(texts, Mapping):
            counts = dict(texts)
            for w, c in counts.items():
                if not isinstance(w, str) or not w or any(ch.isspace() for ch in w):
                    raise ValueError(f"word counts must have non-empty words without spaces; got {w!r}")
                if not is_integer(c) or c < 1:
                    raise ValueError(f"word counts must be positive ints; got {w!r}: {c!r}")
            if not counts:
                raise ValueError("cannot train on an empty corpus: the word counts are empty")
        else:
            counts = word_counts(texts)
            if not counts:
                raise ValueError("the corpus has no words (only whitespace); pass some text")
        marked = next((w for w in counts if EOW in w), None)
        if marked is not None:
            # A merge of its characters would make a piece that decodes as a word end.
            raise ValueError(
                f"the word {marked!r} contains the end-of-word marker {EOW!r}, which "
                "training text cannot contain; remove or replace it"
            )
        base = sorted({ch for w in counts for ch in w} - set(specials)) + [EOW]
        if EOW in specials:
            raise ValueError(f"{EOW!r} is the end-of-word marker and cannot be a special token")
        vocab_size = check_int(vocab_size, name="vocab_size")
        need = len(specials) + len(base)
        if vocab_size < need:
            raise ValueError(
                f"vocab_size = {vocab_size} is too small: {len(specials)} special tokens and "
                f"{len(base)} base symbols (characters and {EOW!r}) need {need}"
            )
        symbols = [*specials, *base]
        ids = {s: i for i, s in enumerate(symbols)}
        words = Counter()
        for w, c in counts.items():
            words[(*(ids[ch] for ch in w), ids[EOW])] += c
        merges, symbols, steps = train_merges(words, symbols, vocab_size - need, progress=progress)
        self.special_tokens = specials
        self.trace = steps if trace else None
        self._set_state(symbols[:need], [(symbols[a], symbols[b]) for a, b in merges])
        return self

    def _set_state(self, base_vocab: list[str], merges: list[tuple[str, str]]) -> None:
        pieces = list(base_vocab)
        seen = set(pieces)
        for a, b in merges:
            if a not in seen or b not in seen:
                raise ValueError(f"merge {(a, b)} uses a symbol no earlier merge made")
            pieces.append(a + b)
            seen.add(a + b)
        # Two different merges can produce the same string ("ab"+"c", "a"+"bc"); the
        # vocabulary keeps one id per string, the first.
        unique = list(dict.fromkeys(pieces))
        self._set_vocab(unique)
        self._merges = list(merges)
        self._ranks = {m: r for r, m in enumerate(merges)}

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The learnt merges, in order."""
        self._require_trained()
        return list(self._merges)

    @property
    def merge_ids(self) -> list[tuple[int, int, int]]:
        """The merges as ids: ``(a, b, new)`` where ``new`` is the id of the piece
        ``a + b`` (two merges that make the same string share the first one's id).

        >>> tok = BPETokenizer().train("ab ab", vocab_size=6)
        >>> tok.merges, tok.merge_ids
        ([('b', '</w>'), ('a', 'b</w>')], [(2, 3, 4), (1, 4, 5)])
        """
        self._require_trained()
        ids = self._ids
        return [(ids[a], ids[b], ids[a + b]) for a, b in self._merges]

    @property
    def base_vocab_size(self) -> int:
        """The number of ids before the first merge: special tokens, characters, ``</w>``."""
        self._require_trained()
        return self._ids[EOW] + 1

    def tie_key(self, id: int) -> str:
        """What training compares when two pairs tie: the piece of ``id``, as a string."""
        return self.id_to_token(id)

    def truncated(self, n_merges: int) -> BPETokenizer:
        """This tokenizer after its first ``n_merges`` merges: the same specials and
        alphabet, the first ``n_merges`` merges (all of them if there are fewer). It is
        the tokenizer that training would have returned had it stopped there (the first
        merges of a run do not depend on when it stops), and the trace is cut to match.

        >>> tok = BPETokenizer().train("low lower lowest", vocab_size=20)
        >>> tok.truncated(2).merges == tok.merges[:2]
        True
        """
        self._require_trained()
        n_merges = check_int(n_merges, name="n_merges", minimum=0)
        out = BPETokenizer()
        out.special_tokens = self.special_tokens
        out._set_state(self._pieces[: self.base_vocab_size], self._merges[:n_merges])
        if self.trace is not None:
            out.trace = self.trace[:n_merges]
        return out

    def _encode_word(self, word: str) -> tuple[int, ...]:
        ids = self._cache.get(word)
        if ids is None:
            ids = self._cache[word] = self._ids_of(apply_merges([*word, EOW], self._ranks))
        return ids

    def _ids_of(self, pieces: list[str]) -> tuple[int, ...]:
        unk = self._ids.get(self.unk_token)
        out = []
        for p in pieces:
            id_ = self._ids.get(p)
            if id_ is None:
                # Only a single unseen character can be missing: merges only join
                # known symbols.
                if unk is None:
                    raise ValueError(
                        f"character {p!r} was not seen in training and this tokenizer "
                        "has no '<unk>' token; retrain with '<unk>' among the special tokens"
                    )
                id_ = unk
            out.append(id_)
        return tuple(out)

    def sample_encode(
        self, text: str, *, dropout: float = 0.1, seed: int | random.Random | None = None
    ) -> list[int]:
        """BPE-dropout (Provilkov et al. 2020): an encoding of ``text`` in which every
        applicable merge is skipped with probability ``dropout`` at each step
        (:func:`tokref.merges.sample_ranked_merges`), so the same word gets varied
        segmentations from one call to the next: subword regularization for training.
        ``dropout=0`` is ``encode``; ``dropout=1`` spells every word in characters.
        ``seed`` is an int, a ``random.Random`` (continued across calls) or None.

        >>> tok = BPETokenizer().train("low lower lowest " * 3, vocab_size=30)
        >>> tok.sample_encode("lowest", dropout=0.0) == tok.encode("lowest")
        True
        >>> tok.tokenize("lowest"), tok.decode(tok.sample_encode("lowest", seed=1))
        (['lowest</w>'], 'lowest')
        """
        self._require_trained()
        text = check_text(text)
        dropout = check_probability(dropout, name="dropout")
        rng = check_rng(seed)
        rank_of = lambda a, b: self._ranks.get((a, b))  # noqa: E731
        out: list[int] = []
        for word in text.split():
            out.extend(self._ids_of(sample_ranked_merges([*word, EOW], rank_of, dropout=dropout, rng=rng)))
        return out

    def _encode_with_offsets(self, text: str) -> list[Token]:
        out: list[Token] = []
        unk = self._ids.get(self.unk_token)
        pos = 0
        for word in text.split():
            start = text.index(word, pos)
            pos = start + len(word)
            offset = start
            for id_ in self._encode_word(word):
                piece = self._pieces[id_]
                # A piece covers its characters, minus the marker; <unk> covers one.
                n = 1 if id_ == unk else len(piece.removesuffix(EOW))
                out.append(Token(id_, piece, offset, min(offset + n, pos)))
                offset += n
        return out

    def _join(self, pieces: list[str]) -> str:
        return "".join(p.replace(EOW, " ") for p in pieces).rstrip(" ")

    def _to_config(self) -> dict[str, Any]:
        n = len(self.special_tokens)
        base_end = self._pieces.index(EOW) + 1
        return {
            "special_tokens": list(self.special_tokens),
            "alphabet": self._pieces[n:base_end - 1],
            "merges": [list(m) for m in self._merges],
        }

    def _from_config(self, config: dict[str, Any]) -> None:
        specials = check_piece_list(config["special_tokens"], name="special_tokens")
        alphabet = check_piece_list(config["alphabet"], name="alphabet")
        merges = config["merges"]
        if not isinstance(merges, list) or not all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m) for m in merges
        ):
            raise TokenizerFileError("'merges' must be a list of [str, str] pairs")
        if any(len(c) != 1 for c in alphabet) or set(alphabet) & set(specials):
            raise TokenizerFileError("'alphabet' must be single characters, none a special token")
        self.special_tokens = tuple(specials)
        self._set_state([*specials, *alphabet, EOW], [(a, b) for a, b in merges])
