"""The options of Unigram training, checked once: :class:`UnigramTrainerOptions`.

``UnigramTokenizer.train`` builds one from its keyword arguments and hands it down (to
the corpus reader, the trainer, the installation of the vocabulary) instead of a dozen
loose arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base import UNK, is_finite_number
from ..checks import check_bool, check_int, check_special_tokens
from .checks import check_positive
from .normalize import check_normalization

__all__ = ["BYTE_PIECES", "DEFAULT_SPECIAL_TOKENS", "UnigramTrainerOptions"]

BYTE_PIECES: tuple[str, ...] = tuple(f"<0x{b:02X}>" for b in range(256))
DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = ("<unk>", "<s>", "</s>")


@dataclass(frozen=True)
class UnigramTrainerOptions:
    """Every option of :meth:`UnigramTokenizer.train <tokref.unigram.UnigramTokenizer.train>`,
    checked when the object is made (``TypeError``/``ValueError`` saying what to pass).

    The fields are ``train``'s keyword arguments, with its defaults (see its docstring);
    ``special_tokens`` is kept as a tuple and ``shrinking_factor`` as a float.
    ``unk_token`` is the piece unknown characters become without byte fallback (the
    tokenizer's ``unk_token``). Whether ``vocab_size`` leaves room for every character
    depends on the corpus, so that is checked when the corpus is read.

    >>> options = UnigramTrainerOptions(vocab_size=8000, special_tokens=["<unk>"])
    >>> options.special_tokens, options.n_meta, options.n_pieces
    (('<unk>',), 257, 7743)
    >>> options.meta_pieces[:3]
    ('<unk>', '<0x00>', '<0x01>')
    >>> UnigramTrainerOptions(vocab_size=8000, num_sub_iterations=0)
    Traceback (most recent call last):
    ...
    ValueError: num_sub_iterations must be at least 1, not 0
    """

    vocab_size: int
    byte_fallback: bool = True
    special_tokens: tuple[str, ...] = DEFAULT_SPECIAL_TOKENS
    normalization: str = "nfkc"
    add_dummy_prefix: bool = True
    split_by_whitespace: bool = True
    seed_size: int = 1_000_000
    shrinking_factor: float = 0.75
    num_sub_iterations: int = 2
    max_piece_length: int = 16
    progress: bool = False
    trace: bool = False
    unk_token: str = UNK

    def __post_init__(self) -> None:
        # In the order train has always checked them, so that a call with two bad
        # arguments reports the same one. The dataclass is frozen: normalized values
        # (an int from a NumPy integer, a tuple of special tokens) go in with
        # object.__setattr__, which only __post_init__ does.
        put = object.__setattr__
        put(self, "vocab_size", check_int(self.vocab_size, name="vocab_size"))
        for name in ("byte_fallback", "add_dummy_prefix", "split_by_whitespace", "progress", "trace"):
            check_bool(getattr(self, name), name=name)
        check_normalization(self.normalization)
        for name in ("seed_size", "num_sub_iterations", "max_piece_length"):
            put(self, name, check_positive(getattr(self, name), name=name))
        put(self, "shrinking_factor", _check_shrinking_factor(self.shrinking_factor))
        specials = check_special_tokens(self.special_tokens)
        put(self, "special_tokens", specials)
        if not self.byte_fallback and self.unk_token not in specials:
            raise ValueError(
                f"without byte fallback unknown characters need {self.unk_token!r}: add it to "
                "special_tokens, or pass byte_fallback=True"
            )
        if self.byte_fallback and set(specials) & set(BYTE_PIECES):
            clash = sorted(set(specials) & set(BYTE_PIECES))
            raise ValueError(f"special tokens {clash} are byte-fallback pieces; rename them")

    @property
    def meta_pieces(self) -> tuple[str, ...]:
        """The pieces before the learned ones, in id order: the special tokens, then
        (with byte fallback) ``<0x00>``…``<0xFF>``."""
        return self.special_tokens + (BYTE_PIECES if self.byte_fallback else ())

    @property
    def n_meta(self) -> int:
        """How many ids :attr:`meta_pieces` take."""
        return len(self.special_tokens) + (len(BYTE_PIECES) if self.byte_fallback else 0)

    @property
    def n_pieces(self) -> int:
        """How many learned pieces ``vocab_size`` leaves room for (at most)."""
        return self.vocab_size - self.n_meta

    @property
    def reserved(self) -> frozenset[str]:
        """Pieces training must not learn: they already have ids."""
        return frozenset(self.meta_pieces)


def _check_shrinking_factor(shrinking_factor: object) -> float:
    if not is_finite_number(shrinking_factor):
        raise TypeError(f"shrinking_factor must be a number, not {shrinking_factor!r}")
    if not 0 < shrinking_factor < 1:  # type: ignore[operator]
        raise ValueError(
            f"shrinking_factor must be between 0 and 1 (exclusive), not {shrinking_factor}; "
            "each pruning round keeps this fraction of the pieces (SentencePiece: 0.75)"
        )
    return float(shrinking_factor)  # type: ignore[arg-type]
