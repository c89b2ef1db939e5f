"""Ready-made WordPiece vocabularies: a BERT ``vocab.txt`` (read and written as Hugging
Face reads it), a list of pieces, or a dict piece → id.

>>> vocab_from_dict({"[UNK]": 1, "a": 0})
['a', '[UNK]']
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..checks import is_integer
from .normalization import RUST_WHITE_SPACE

__all__: list[str] = []  # helpers of WordPieceTokenizer.from_vocab and save_vocab


def check_pieces(pieces: list[str]) -> None:
    """Refuse an empty vocabulary, an empty piece, or a piece listed twice.

    >>> check_pieces(["[UNK]", "a", "a"])
    Traceback (most recent call last):
    ...
    ValueError: the piece 'a' appears twice in the vocabulary (ids 1 and 2)
    """
    if not pieces:
        raise ValueError("the vocabulary is empty")
    if "" in pieces:
        raise ValueError(f"the vocabulary has an empty piece (id {pieces.index('')})")
    if len(set(pieces)) != len(pieces):
        first: dict[str, int] = {}
        for i, p in enumerate(pieces):
            if p in first:
                raise ValueError(
                    f"the piece {p!r} appears twice in the vocabulary (ids {first[p]} and {i})"
                )
            first[p] = i


def vocab_from_dict(vocab: Mapping[str, int]) -> list[str]:
    """The pieces of a dict piece → id in id order; the ids must be exactly 0..n-1.

    >>> vocab_from_dict({"b": 1, "a": 0})
    ['a', 'b']
    """
    pieces: list[str | None] = [None] * len(vocab)
    for p, i in vocab.items():
        if not isinstance(p, str) or not is_integer(i):
            raise TypeError(f"vocab must map str to int; found {p!r}: {i!r}")
        if not 0 <= i < len(vocab):
            raise ValueError(
                f"the id of {p!r} is {i}, but a vocabulary of {len(vocab)} pieces has ids "
                f"0..{len(vocab) - 1}; renumber it"
            )
        if pieces[i] is not None:
            raise ValueError(f"id {i} is given to both {pieces[i]!r} and {p!r}")
        pieces[int(i)] = p
    return pieces  # type: ignore[return-value]  # every slot is filled: n distinct ids in 0..n-1


def read_vocab_txt(path: str | os.PathLike[str]) -> list[str]:
    """The pieces of a BERT ``vocab.txt``: one per line, UTF-8, each line without the
    whitespace Rust's ``str::trim_end`` removes (as Hugging Face reads it)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"no vocab.txt at {str(p)!r}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{str(p)!r} is not UTF-8 text ({e}); is it a vocab.txt?") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    # Not str.rstrip(): Python's would also remove \x1c-\x1f.
    pieces = [line.rstrip(RUST_WHITE_SPACE) for line in lines]
    for i, piece in enumerate(pieces):
        if not piece:
            raise ValueError(
                f"line {i + 1} of {str(p)!r} is empty; a vocab.txt has one piece per line"
            )
    return pieces


def unwritable_piece(pieces: list[str]) -> str | None:
    """The first piece that a ``vocab.txt`` cannot hold (it would not read back the same:
    a line break, or whitespace at the end), or None.

    >>> unwritable_piece(["a", "b "]), unwritable_piece(["a"])
    ('b ', None)
    """
    return next(
        (p for p in pieces if "\n" in p or "\r" in p or p != p.rstrip(RUST_WHITE_SPACE)),
        None,
    )
