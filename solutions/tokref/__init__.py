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
from .bpe import BPETokenizer
from .bytelevel import ByteLevelBPETokenizer, load_openai_encoding
from .char import CharTokenizer
from .ngram import KneserNeyLM
from .quality import QualityStats, measure_quality
from .unigram import UnigramTokenizer
from .word import WordTokenizer
from .wordpiece import WordPieceTokenizer

__version__ = "0.1.0"

__all__ = [
    "Tokenizer",
    "Token",
    "CharTokenizer",
    "WordTokenizer",
    "BPETokenizer",
    "ByteLevelBPETokenizer",
    "load_openai_encoding",
    "UnigramTokenizer",
    "WordPieceTokenizer",
    "TokenizationStats",
    "measure",
    "measure_quality",
    "QualityStats",
    "KneserNeyLM",
    "load",
    "NotTrainedError",
    "TokenizerFileError",
]
