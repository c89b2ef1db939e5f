"""Word-level tokenization: a regex splits text into words and punctuation marks.

``WORD_PATTERN`` matches either a word (letters, digits and underscores, with internal
apostrophes kept, so ``don't`` and ``o'er`` stay whole) or one punctuation character.
Whitespace is dropped, so decoding has to guess the spacing back (``detokenize``).

The vocabulary is the special tokens first, then the words by descending count, ties
broken by the word itself (code-point order), so the ids never depend on dict order.

>>> split_words("Where's my horse? O'er the hills!")
["Where's", 'my', 'horse', '?', "O'er", 'the', 'hills', '!']
>>> counts = count_words(["the cat", "the hat"])
>>> build_word_vocab(counts, special_tokens=["<unk>"])
{'<unk>': 0, 'the': 1, 'cat': 2, 'hat': 3}
"""

from __future__ import annotations

import re
from collections import Counter
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
from .checks import (
    check_special_tokens,
    check_text,
    check_texts,
    check_bool,
    check_int,
    check_vocab_size,
    is_integer,
)

__all__ = [
    "WORD_PATTERN",
    "WordTokenizer",
    "split_words",
    "count_words",
    "build_word_vocab",
    "encode_words",
    "oov_rate",
    "detokenize",
]

# Standard-library `re`, so that a student's solution with `re` behaves identically.
# `\w` is Unicode-aware for str patterns: it matches letters and digits of any script.
WORD_PATTERN = r"\w+(?:['’]\w+)*|[^\w\s]"
_WORD_RE = re.compile(WORD_PATTERN)

# Punctuation that attaches to the word before it, and to the word after it.
_CLOSE = frozenset(".,;:!?)]}%…»’'")
_OPEN = frozenset("([{¿¡«‘$#")


# ---------------------------------------------------------------------------
# Pure helpers: the functions of the `words` assignment.
# ---------------------------------------------------------------------------


def split_words(text: str, *, lowercase: bool = False) -> list[str]:
    """Words and punctuation marks of ``text``, in order (``WORD_PATTERN``).

    >>> split_words("To be, or not to be.")
    ['To', 'be', ',', 'or', 'not', 'to', 'be', '.']
    >>> split_words("To be", lowercase=True)
    ['to', 'be']
    """
    check_bool(lowercase, name="lowercase")
    words = _WORD_RE.findall(check_text(text))
    # Lowercase after splitting, not before: `str.lower` can change a string's length
    # ('İ' becomes 'i' plus a combining dot), which would move the word boundaries.
    return [w.lower() for w in words] if lowercase else words


def count_words(texts: str | Iterable[str], *, lowercase: bool = False) -> dict[str, int]:
    """How often each word occurs in ``texts``, as a plain ``dict``.

    >>> count_words("a b a")
    {'a': 2, 'b': 1}
    """
    counts: Counter[str] = Counter()
    for t in check_texts(texts):
        counts.update(split_words(t, lowercase=lowercase))
    return dict(counts)


def build_word_vocab(
    counts: Mapping[str, int],
    *,
    vocab_size: int | None = None,
    min_freq: int = 1,
    special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
) -> dict[str, int]:
    """Special tokens, then the words of ``counts`` with count ≥ ``min_freq`` by descending
    count (ties: by the word), cut to ``vocab_size`` entries in all (specials included).

    >>> build_word_vocab({"b": 2, "a": 2, "c": 1}, vocab_size=3, special_tokens=["<unk>"])
    {'<unk>': 0, 'a': 1, 'b': 2}
    """
    if not isinstance(counts, Mapping):
        raise TypeError(f"counts must be a dict mapping str to int, not {type(counts).__name__}")
    specials = check_special_tokens(special_tokens)
    vocab_size = check_vocab_size(
        vocab_size, len(specials) + 1, reason=f"the {len(specials)} special tokens and one word"
    )
    check_int(min_freq, name="min_freq")
    if min_freq < 1:
        raise ValueError(f"min_freq must be at least 1, not {min_freq}")
    for w, c in counts.items():
        if not isinstance(w, str) or not is_integer(c):
            raise TypeError(f"counts must map str to int; found {w!r}: {c!r}")
    special_set = set(specials)
    ranked = sorted(
        (w for w, c in counts.items() if c >= min_freq and w not in special_set),
        key=lambda w: (-counts[w], w),
    )
    if vocab_size is not None:
        ranked = ranked[: vocab_size - len(specials)]
    return {piece: i for i, piece in enumerate([*specials, *ranked])}


def encode_words(
    text: str,
    vocab: Mapping[str, int],
    *,
    lowercase: bool = False,
    unk_token: str = UNK,
) -> list[int]:
    """Ids of the words of ``text``; a word outside ``vocab`` gets the id of ``unk_token``.

    >>> encode_words("the dog", {"<unk>": 0, "the": 1})
    [1, 0]
    """
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict mapping str to int, not {type(vocab).__name__}")
    unk = vocab.get(unk_token)
    out = []
    for w in split_words(text, lowercase=lowercase):
        id_ = vocab.get(w, unk)
        if id_ is None:
            raise ValueError(
                f"word {w!r} is not in the vocabulary and the vocabulary has no "
                f"{unk_token!r} token; add {unk_token!r} to the special tokens"
            )
        out.append(id_)
    return out


def oov_rate(text: str, vocab: Mapping[str, int], *, lowercase: bool = False) -> float:
    """Fraction of the words of ``text`` (``split_words``) that are not in ``vocab``.

    Returns 0.0 when ``text`` has no words.

    >>> oov_rate("the cat sat", {"the": 0, "sat": 1})
    0.3333333333333333
    """
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a dict mapping str to int, not {type(vocab).__name__}")
    words = split_words(text, lowercase=lowercase)
    if not words:
        return 0.0
    return sum(w not in vocab for w in words) / len(words)


def detokenize(words: Sequence[str]) -> str:
    """Join words with single spaces, except around punctuation, where English puts none.

    No space before closing punctuation (``. , ; : ! ? ) ] }``…) or after opening
    punctuation (``( [ {``…); straight double quotes alternate between opening and
    closing. The original spacing is lost at encoding time, so this is a guess that
    is right for ordinary prose.

    >>> detokenize(['"', 'Stay', ',', '"', 'he', 'said', '(', 'softly', ')', '.'])
    '"Stay," he said (softly).'
    """
    if isinstance(words, str) or not isinstance(words, Iterable):
        raise TypeError(
            f"words must be a list of str, not {type(words).__name__}; "
            "to split a text into words use split_words(text)"
        )
    words = list(words)
    for i, w in enumerate(words):
        if not isinstance(w, str):
            raise TypeError(f"words[{i}] must be str, not {type(w).__name__} ({w!r})")
    out: list[str] = []
    quote_open = False
    no_space_next = True
    for w in words:
        if w == '"':
            if quote_open:  # closing quote: attach to the left
                out.append(w)
                no_space_next = False
            else:
                out.append(w if no_space_next else " " + w)
                no_space_next = True
            quote_open = not quote_open
            continue
        attach = no_space_next or w in _CLOSE
        out.append(w if attach else " " + w)
        no_space_next = w in _OPEN
    return "".join(out)


# ---------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------


class WordTokenizer(Tokenizer):
    """Words and punctuation marks as tokens; unseen words become ``<unk>``.

    >>> tok = WordTokenizer().train(["the cat sat.", "the cat ran!"])
    >>> tok.tokenize("the dog sat.")
    ['the', '<unk>', 'sat', '.']
    >>> tok.decode(tok.encode("the cat sat."))
    'the cat sat.'
    """

    kind = "word"

    def __init__(self) -> None:
        super().__init__()
        self.lowercase = False

    def train(
        self,
        texts: str | Iterable[str],
        *,
        vocab_size: int | None = None,
        min_freq: int = 1,
        lowercase: bool = False,
        special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
    ) -> WordTokenizer:
        """Build the vocabulary from ``texts``; returns ``self``.

        ``vocab_size`` counts the special tokens; ``None`` keeps every word seen at
        least ``min_freq`` times.
        """
        if not isinstance(lowercase, bool):  # the message the chapter shows
            raise TypeError(f"lowercase must be bool, not {type(lowercase).__name__}")
        # Read `special_tokens` once: it may be an iterator.
        special_tokens = check_special_tokens(special_tokens)
        counts = count_words(texts, lowercase=lowercase)
        if not counts:
            raise ValueError(
                "the corpus has no words (only whitespace); pass text with at least one word"
            )
        vocab = build_word_vocab(
            counts, vocab_size=vocab_size, min_freq=min_freq, special_tokens=special_tokens
        )
        if len(vocab) == len(special_tokens):
            raise ValueError(
                f"no word occurs at least min_freq = {min_freq} times; lower min_freq"
            )
        self.lowercase = lowercase
        self.special_tokens = special_tokens
        self._set_vocab(list(vocab))
        return self

    def _encode(self, text: str) -> list[int]:
        if UNK not in self._ids:  # the slow path says which word is missing, and the fix
            return super()._encode(text)
        return encode_words(text, self._ids, lowercase=self.lowercase)

    def _encode_with_offsets(self, text: str) -> list[Token]:
        # As in split_words: match on the original text, then lowercase each match, so
        # the offsets always point into `text`.
        unk = self._ids.get(UNK)
        out = []
        for m in _WORD_RE.finditer(text):
            w = m.group().lower() if self.lowercase else m.group()
            id_ = self._ids.get(w, unk)
            if id_ is None:
                raise ValueError(
                    f"word {w!r} is not in the vocabulary and this tokenizer has no "
                    f"{UNK!r} token; retrain with {UNK!r} among the special tokens"
                )
            out.append(Token(id_, self._pieces[id_], m.start(), m.end()))
        return out

    def _join(self, pieces: list[str]) -> str:
        return detokenize(pieces)

    def _to_config(self) -> dict[str, Any]:
        n = len(self.special_tokens)
        return {
            "lowercase": self.lowercase,
            "pattern": WORD_PATTERN,
            "special_tokens": list(self.special_tokens),
            "words": self._pieces[n:],
        }

    def _from_config(self, config: dict[str, Any]) -> None:
        if config.get("pattern") != WORD_PATTERN:
            raise TokenizerFileError(
                "this file was written with another word pattern; it cannot be read by "
                "this version of tokref"
            )
        lowercase = config["lowercase"]
        if not isinstance(lowercase, bool):
            raise TokenizerFileError("'lowercase' must be true or false")
        specials = check_piece_list(config["special_tokens"], name="special_tokens")
        words = check_piece_list(config["words"], name="words")
        if set(words) & set(specials):
            raise TokenizerFileError("'words' and 'special_tokens' overlap")
        if not words:
            raise TokenizerFileError("the vocabulary has no words")
        self.lowercase = lowercase
        self.special_tokens = tuple(specials)
        self._set_vocab([*specials, *words])
