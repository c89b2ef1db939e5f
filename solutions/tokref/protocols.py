"""What tokref's measures need of a tokenizer, as one protocol: anything that encodes.

``measure`` (:mod:`tokref.analysis`), the n-gram models' bits per byte (:mod:`tokref.ngram`)
and the quality measures (:mod:`tokref.quality`) take any object with ``encode(text) ->
list[int]`` and ``vocab_size``: a tokref tokenizer, a tiktoken ``Encoding`` (through a
two-line wrapper) or a student's own class.

>>> from tokref import CharTokenizer
>>> isinstance(CharTokenizer().train("ab"), SupportsEncode)
True
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["SupportsEncode"]


@runtime_checkable
class SupportsEncode(Protocol):
    """``encode(text) -> list[int]`` and ``vocab_size`` (``unk_id``, where a measure uses
    it, is optional)."""

    vocab_size: int

    def encode(self, text: str) -> list[int]: ...
