"""Character-level tokenization: one token per Unicode code point.

The vocabulary is the special tokens first, in the order given, then every distinct
character of the training texts in code-point order, so the ids are fully determined
by the set of characters seen. With the default special tokens the ids are::

    0 <pad>   1 <unk>   2 <bos>   3 <eos>   4.. the characters, sorted

A character never seen in training encodes to ``<unk>``.

>>> vocab = build_char_vocab(["abba", "cab"])
>>> vocab
{'<pad>': 0, '<unk>': 1, '<bos>': 2, '<eos>': 3, 'a': 4, 'b': 5, 'c': 6}
>>> encode_chars("cad", vocab)
[6, 4, 1]
>>> decode_chars([6, 4, 1], vocab)
'ca<unk>'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .base import (
    DEFAULT_SPECIAL_TOKENS,
    UNK,
    Token,
    Tokenizer,
    TokenizerFileError,
    check_piece_list,
)
from .checks import check_ids, check_special_tokens, check_text, check_texts

__all__ = [
    "DEFAULT_SPECIAL_TOKENS",
    "CharTokenizer",
    "build_char_vocab",
    "encode_chars",
    "decode_chars",
    "unk_rate",
]



# ---------------------------------------------------------------------------
# Pure helpers: these are the functions the `chars` assignment asks students to write;
# the hidden tests compare each student function with the one here.
# ---------------------------------------------------------------------------


def build_char_vocab(
    texts: str | Iterable[str], special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS
) -> dict[str, int]:
    """Vocabulary of ``texts``: special tokens first (in order), then the distinct
    characters in code-point order.

    A character that happens to equal a one-character special token keeps the special
    token's id (it is not added twice).

    >>> build_char_vocab("hello", special_tokens=["<unk>"])
    {'<unk>': 0, 'e': 1, 'h': 2, 'l': 3, 'o': 4}
    """
    specials = check_special_tokens(special_tokens)
    chars = sorted(set().union(*map(set, check_texts(texts))) - set(specials))
    return {piece: i for i, piece in enumerate([*specials, *chars])}


def _check_vocab(vocab: object) -> Mapping[str, int]:
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict mapping str to int, not {type(vocab).__name__}")
    return vocab


def encode_chars(text: str, vocab: Mapping[str, int], *, unk_token: str = UNK) -> list[int]:
    """Ids of the characters of ``text``; unknown characters get the id of ``unk_token``.

    Raises ``ValueError`` if ``text`` has a character outside ``vocab`` and ``vocab``
    has no ``unk_token``.

    >>> encode_chars("hi!", {"<unk>": 0, "h": 1, "i": 2})
    [1, 2, 0]
    """
    text = check_text(text)
    vocab = _check_vocab(vocab)
    try:
        return [vocab[ch] for ch in text]  # fast path: every character is known
    except KeyError:
        pass
    unk = vocab.get(unk_token)
    out = []
    for i, ch in enumerate(text):
        id_ = vocab.get(ch, unk)
        if id_ is None:
            raise ValueError(
                f"character {ch!r} at position {i} is not in the vocabulary and the "
                f"vocabulary has no {unk_token!r} token; add {unk_token!r} to the "
                "special tokens or train on text that contains this character"
            )
        out.append(id_)
    return out


def decode_chars(ids: Iterable[int], vocab: Mapping[str, int]) -> str:
    """Text of ``ids``: the inverse of ``encode_chars`` for known characters.

    Special tokens are written as their text. An id that is not in ``vocab`` raises
    ``ValueError``.

    >>> decode_chars([1, 2, 0], {"<unk>": 0, "h": 1, "i": 2})
    'hi<unk>'
    """
    vocab = _check_vocab(vocab)
    inverse = {i: piece for piece, i in vocab.items()}
    ids = check_ids(ids, max(inverse, default=-1) + 1)
    missing = [i for i in ids if i not in inverse]
    if missing:
        raise ValueError(f"id {missing[0]} is not in the vocabulary")
    return "".join(inverse[i] for i in ids)


def unk_rate(text: str, vocab: Mapping[str, int]) -> float:
    """Fraction of the characters of ``text`` that are not in ``vocab`` (0.0 for empty text).

    >>> unk_rate("abcd", {"a": 0, "b": 1})
    0.5
    """
    text = check_text(text)
    vocab = _check_vocab(vocab)
    if not text:
        return 0.0
    return sum(ch not in vocab for ch in text) / len(text)


# ---------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------


class CharTokenizer(Tokenizer):
    """One token per Unicode code point.

    >>> tok = CharTokenizer().train(["to be", "or not"])
    >>> tok.tokenize("bet")
    ['b', 'e', 't']
    >>> tok.encode("bez")  # 'z' was never seen
    [5, 6, 1]
    """

    kind = "char"

    def train(
        self,
        texts: str | Iterable[str],
        *,
        special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
    ) -> CharTokenizer:
        """Build the vocabulary from ``texts`` (a string or an iterable of strings); returns ``self``."""
        # Read `special_tokens` once: it may be an iterator.
        special_tokens = check_special_tokens(special_tokens)
        vocab = build_char_vocab(texts, special_tokens)
        self.special_tokens = special_tokens
        self._set_vocab(list(vocab))
        return self

    def _encode(self, text: str) -> list[int]:
        if UNK not in self._ids:  # the slow path says which character is missing, and the fix
            return super()._encode(text)
        return encode_chars(text, self._ids)

    def _encode_with_offsets(self, text: str) -> list[Token]:
        ids = encode_chars(text, self._ids)
        return [
            Token(id_, self._pieces[id_], i, i + 1) for i, id_ in enumerate(ids)
        ]

    def _join(self, pieces: list[str]) -> str:
        return "".join(pieces)

    def _to_config(self) -> dict[str, Any]:
        n = len(self.special_tokens)
        return {"special_tokens": list(self.special_tokens), "chars": self._pieces[n:]}

    def _from_config(self, config: dict[str, Any]) -> None:
        specials = check_piece_list(config["special_tokens"], name="special_tokens")
        chars = check_piece_list(config["chars"], name="chars")
        if any(len(c) != 1 for c in chars):
            raise TokenizerFileError("every entry of 'chars' must be one character")
        if set(chars) & set(specials):
            raise TokenizerFileError("'chars' and 'special_tokens' overlap")
        if not chars and not specials:
            raise TokenizerFileError("the vocabulary is empty")
        self.special_tokens = tuple(specials)
        self._set_vocab([*specials, *chars])
