"""WordPiece proper: BERT's special tokens, the greedy longest-match split of one word
(``models.WordPiece``), and decoding (``decoders.WordPiece``).

>>> wordpiece_split("unaffable", {"un", "##aff", "##able"})
['un', '##aff', '##able']
>>> wordpiece_decode(["un", "##aff", "##able", "!"])
'unaffable!'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..checks import check_text

__all__ = ["BERT_SPECIAL_TOKENS", "wordpiece_split", "wordpiece_decode", "join_words"]

BERT_SPECIAL_TOKENS: tuple[str, ...] = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
UNK, CLS, SEP = "[UNK]", "[CLS]", "[SEP]"


def wordpiece_split(
    word: str,
    vocab: Mapping[str, int] | set[str] | frozenset[str],
    *,
    prefix: str = "##",
    max_input_chars_per_word: int = 100,
    unk_token: str = UNK,
) -> list[str]:
    """Split one pre-tokenized ``word`` greedily, longest match first, from the left.

    Pieces after the first are looked up with ``prefix``. A word that cannot be split
    completely, or has more than ``max_input_chars_per_word`` characters, is
    ``[unk_token]``, as in BERT.

    >>> vocab = {"un", "##aff", "##able", "a", "##ff"}
    >>> wordpiece_split("unaffable", vocab)
    ['un', '##aff', '##able']
    >>> wordpiece_split("affable", vocab)  # no 'aff' at the start of a word
    ['a', '##ff', '##able']
    >>> wordpiece_split("unx", vocab)
    ['[UNK]']
    """
    word = check_text(word, name="word")
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    spans = greedy_split(word, vocab, prefix, len(word))
    if spans is None:
        return [unk_token]
    return [word[s:e] if s == 0 else prefix + word[s:e] for s, e in spans]


def greedy_split(
    word: str, vocab: Any, prefix: str, max_len: int
) -> list[tuple[int, int]] | None:
    """Spans of the greedy longest-match split of ``word``, or None if there is none.
    ``max_len`` bounds a piece's length (without prefix): longer ones are not looked up.

    >>> greedy_split("hugs", {"hug", "##s"}, "##", 3)
    [(0, 3), (3, 4)]
    """
    out = []
    start, n = 0, len(word)
    while start < n:
        end = min(n, start + max_len)
        while end > start:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                break
            end -= 1
        else:
            return None
        out.append((start, end))
        start = end
    return out


# decoders.WordPiece's cleanup, applied to each piece (with its space) in this order.
_CLEANUP = (
    (" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
    (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"),
)


def wordpiece_decode(tokens: Sequence[str], *, prefix: str = "##", cleanup: bool = True) -> str:
    """Text of WordPiece ``tokens``, as ``decoders.WordPiece(prefix, cleanup)``.

    Every token but the first either starts with ``prefix`` (removed: the token continues
    the word) or gets a space before it; then, if ``cleanup``, each token is cleaned up
    on its own (the rules are in the docstring of :mod:`tokref.wordpiece`).

    >>> wordpiece_decode(["hug", "##s", ",", "pun", "##s", "!"])
    'hugs, puns!'
    >>> wordpiece_decode(["##a", "b"])  # the first token keeps its prefix, as in tokenizers
    '##a b'
    """
    if isinstance(tokens, str) or not isinstance(tokens, Iterable):
        raise TypeError(f"tokens must be a list of str, not {type(tokens).__name__}")
    out = []
    for i, t in enumerate(tokens):
        if not isinstance(t, str):
            raise TypeError(f"tokens[{i}] must be str, not {type(t).__name__}")
        if i:
            t = t.replace(prefix, "", 1) if t.startswith(prefix) else " " + t
        out.append(_cleanup(t) if cleanup else t)
    return "".join(out)


def _cleanup(token: str) -> str:
    for old, new in _CLEANUP:
        token = token.replace(old, new)
    return token


def join_words(words: Sequence[str]) -> str:
    """Words joined as WordPiece decoding joins whole words: by single spaces, except
    before ``.``, ``?``, ``!`` and ``,``.

    >>> join_words(["hello", ",", "world", "!", "(", "yes", ")"])
    'hello, world! ( yes )'
    """
    if isinstance(words, str) or not isinstance(words, Iterable):
        raise TypeError(f"words must be a list of str, not {type(words).__name__}")
    return "".join(_cleanup(w if i == 0 else " " + w) for i, w in enumerate(words))
