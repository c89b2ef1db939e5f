"""How well a tokenizer compresses a text, in the measures the book uses.

All of them come from one pass over the encoding, returned as a small frozen dataclass:

- ``chars_per_token`` and ``bytes_per_token`` (UTF-8): compression; higher is shorter
  sequences.
- ``tokens_per_word``: *fertility*, tokens per whitespace-separated word (Rust et al.
  2021 use it to compare tokenizers across languages); 1.0 for a word tokenizer
  without punctuation.
- ``unk_rate``: fraction of tokens that are the unknown token, the information a
  tokenizer threw away (0.0 for tokenizers without one).
- ``vocab_utilisation``: fraction of the vocabulary the text used at least once.

>>> from tokref import CharTokenizer
>>> tok = CharTokenizer().train("abc")
>>> s = measure(tok, "ab ca d")
>>> s.n_tokens, s.n_words, s.n_unk
(7, 3, 3)
>>> round(s.tokens_per_word, 3), round(s.unk_rate, 3), round(s.vocab_utilisation, 3)
(2.333, 0.429, 0.571)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from .checks import check_texts, is_integer
from .protocols import SupportsEncode  # re-exported: measure's argument

__all__ = ["TokenizationStats", "measure", "SupportsEncode"]


@dataclass(frozen=True)
class TokenizationStats:
    n_chars: int
    n_bytes: int
    n_words: int
    n_tokens: int
    n_unk: int
    n_distinct_ids: int
    vocab_size: int

    @property
    def chars_per_token(self) -> float:
        return self.n_chars / self.n_tokens if self.n_tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.n_bytes / self.n_tokens if self.n_tokens else 0.0

    @property
    def tokens_per_word(self) -> float:
        return self.n_tokens / self.n_words if self.n_words else 0.0

    @property
    def unk_rate(self) -> float:
        return self.n_unk / self.n_tokens if self.n_tokens else 0.0

    @property
    def vocab_utilisation(self) -> float:
        return self.n_distinct_ids / self.vocab_size

    def as_dict(self) -> dict[str, Any]:
        """Counts and ratios in one flat dict (handy for a pandas row or a table)."""
        ratios = {
            k: getattr(self, k)
            for k in ("chars_per_token", "bytes_per_token", "tokens_per_word",
                      "unk_rate", "vocab_utilisation")
        }
        return {**asdict(self), **ratios}


def measure(tokenizer: SupportsEncode, texts: str | Iterable[str]) -> TokenizationStats:
    """Encode ``texts`` (a string or an iterable of strings) with ``tokenizer`` and measure it.

    The unknown token is ``tokenizer.unk_id`` if the tokenizer has that attribute.
    """
    if isinstance(tokenizer, (str, bytes, bytearray)):  # str has an encode() method too
        raise TypeError(
            f"tokenizer must be a tokenizer, not {type(tokenizer).__name__}; "
            "the arguments are measure(tokenizer, texts)"
        )
    if isinstance(tokenizer, type):
        raise TypeError(
            f"tokenizer must be a trained tokenizer, not the class {tokenizer.__name__}; "
            f"pass an instance, for example {tokenizer.__name__}().train(texts)"
        )
    if not callable(getattr(tokenizer, "encode", None)):
        raise TypeError(
            f"tokenizer must have an encode(text) method; got {type(tokenizer).__name__}"
        )
    try:
        texts = check_texts(texts)
    except ValueError:
        raise ValueError(
            "nothing to measure: texts holds no characters; pass at least one non-empty string"
        ) from None
    vocab_size = getattr(tokenizer, "vocab_size", None)  # NotTrainedError if untrained
    if not is_integer(vocab_size):
        raise TypeError(
            "tokenizer.vocab_size must be an int, the number of token ids; "
            f"got {type(vocab_size).__name__}"
        )
    if vocab_size < 1:
        raise ValueError(f"tokenizer.vocab_size must be at least 1, not {vocab_size}")
    unk = getattr(tokenizer, "unk_id", None)
    n_chars = n_bytes = n_words = n_tokens = n_unk = 0
    seen: set[int] = set()
    for t in texts:
        ids = tokenizer.encode(t)
        if not isinstance(ids, list):
            raise TypeError(
                f"tokenizer.encode must return a list of int, not {type(ids).__name__}"
            )
        n_chars += len(t)
        n_bytes += len(t.encode("utf-8"))
        n_words += len(t.split())
        n_tokens += len(ids)
        if unk is not None:
            n_unk += sum(1 for i in ids if i == unk)
        seen.update(ids)
    # Check the ids once each, not once per token: cheap even for a whole corpus.
    for i in seen:
        if not is_integer(i) or not 0 <= i < vocab_size:
            raise ValueError(
                f"tokenizer.encode returned {i!r}, which is not a token id in "
                f"0..{vocab_size - 1} (vocab_size = {vocab_size}); check the tokenizer"
            )
    return TokenizationStats(
        n_chars=n_chars,
        n_bytes=n_bytes,
        n_words=n_words,
        n_tokens=n_tokens,
        n_unk=n_unk,
        n_distinct_ids=len(seen),
        vocab_size=vocab_size,
    )
