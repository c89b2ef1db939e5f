"""tokref: the reference implementations of the course *Tokenization for Language Models*.

Pure Python, exact, and checked against the real libraries. Every tokenizer shares the
API of :class:`tokref.base.Tokenizer`::

    >>> import tokref
    >>> tok = tokref.WordTokenizer().train("the cat sat on the mat.")
    >>> tok.encode("the cat")
    [4, 6]
    >>> tok.decode([4, 6])
    'the cat'
"""

from .analysis import TokenizationStats, measure
from .base import NotTrainedError, Token, Tokenizer, TokenizerFileError, load
from .char import CharTokenizer
from .word import WordTokenizer

__version__ = "0.1.0"

__all__ = [
    "Tokenizer",
    "Token",
    "CharTokenizer",
    "WordTokenizer",
    "TokenizationStats",
    "measure",
    "load",
    "NotTrainedError",
    "TokenizerFileError",
]
