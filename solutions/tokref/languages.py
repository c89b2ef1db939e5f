"""What a language, a number or a letter costs a tokenizer: the measures of chapter 9
(and Assignment 11, ``languages``), one implementation each.

- :func:`premiums`: tokens of each language over the tokenizer's own English
  (Petrov et al. 2023), from token counts on a parallel corpus;
- :func:`fertility_by_script`: tokens per whitespace-separated word, pooled over the
  languages of each script;
- :func:`group_digits`: the pieces of the pre-tokenizer rule that groups digits from the
  right (:data:`R2L_DIGITS`), the short group first;
- :func:`merges_give_back`, :func:`find_unreachable`, :func:`find_not_round_trippable`:
  tokens of a byte-level rank table that no text produces, by the chapter's proof, and
  tokens whose text does not encode back to them;
- :func:`count_letter`, :func:`count_visible_letter`: a letter counted in the text of some
  ids, and how many of its occurrences are ids of their own (what a model can see).

>>> premiums({"en": 10, "ru": 25})
{'en': 1.0, 'ru': 2.5}
>>> group_digits("1234567 + 89")
['1', '234', '567', '89']
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Callable

import regex

from .checks import is_integer
from .merges import sample_ranked_merges

__all__ = [
    "R2L_DIGITS",
    "premiums",
    "fertility_by_script",
    "group_digits",
    "merges_give_back",
    "find_unreachable",
    "find_not_round_trippable",
    "count_letter",
    "count_visible_letter",
]

# A group of one to three digits may end only where a multiple of three digits remains
# before the end of the run: the short group, if any, comes first (chapter 9).
R2L_DIGITS = r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))"
_R2L = regex.compile(R2L_DIGITS)
# With dropout 0 no merge is skipped, so the draws (if any) cannot change a result: one
# generator serves every call.
_RNG = random.Random(0)


def _check_counts(counts: Mapping[str, int], what: str) -> None:
    if not isinstance(counts, Mapping):
        raise TypeError(f"{what} must be a dict {{language: count}}, not {type(counts).__name__}")
    for lang, n in counts.items():
        if not is_integer(n) or n < 0:
            raise ValueError(f"{what}[{lang!r}] must be a count, an int >= 0; got {n!r}")


def premiums(counts: Mapping[str, int], *, reference: str = "en") -> dict[str, float]:
    """The premium of each language: its token count over that of ``reference``.

    ``counts`` maps a language to the number of tokens one tokenizer needs for its texts of
    a parallel corpus; the premium compares languages *within* that tokenizer (chapter 9,
    eq. premium). The result has the keys of ``counts``, in its order.

    >>> premiums({"en": 4, "fr": 5, "ka": 12})
    {'en': 1.0, 'fr': 1.25, 'ka': 3.0}
    """
    _check_counts(counts, "counts")
    if reference not in counts:
        raise ValueError(
            f"counts has no {reference!r}, the reference language; its languages are "
            f"{sorted(counts)}: pass the reference's count, or reference=<one of them>"
        )
    if counts[reference] == 0:
        raise ValueError(f"counts[{reference!r}] is 0: a premium divides by the reference's tokens")
    return {lang: n / counts[reference] for lang, n in counts.items()}


def fertility_by_script(
    n_tokens: Mapping[str, int], n_words: Mapping[str, int], scripts: Mapping[str, str]
) -> dict[str, float]:
    """Tokens per word of each script: the tokens of its languages over their words.

    ``n_tokens`` and ``n_words`` map each language to its tokens and its whitespace-separated
    words (``len(text.split())`` summed, as :func:`tokref.measure` counts them); ``scripts``
    maps each language to its script. Pooled, not averaged: a script's fertility is
    ``sum(tokens) / sum(words)`` over its languages. Scripts in the order of first appearance.

    >>> fertility_by_script({"en": 6, "fr": 9, "ru": 8}, {"en": 4, "fr": 5, "ru": 2},
    ...                     {"en": "Latin", "fr": "Latin", "ru": "Cyrillic"})
    {'Latin': 1.6666666666666667, 'Cyrillic': 4.0}
    """
    _check_counts(n_tokens, "n_tokens")
    _check_counts(n_words, "n_words")
    if set(n_tokens) != set(n_words):
        raise ValueError(
            f"n_tokens and n_words must have the same languages; only in one of them: "
            f"{sorted(set(n_tokens) ^ set(n_words))}"
        )
    tokens: dict[str, int] = {}
    words: dict[str, int] = {}
    for lang in n_tokens:
        if lang not in scripts:
            raise ValueError(f"scripts has no script for {lang!r}: give every language its script")
        script = scripts[lang]
        tokens[script] = tokens.get(script, 0) + n_tokens[lang]
        words[script] = words.get(script, 0) + n_words[lang]
    empty = [s for s, w in words.items() if w == 0]
    if empty:
        raise ValueError(f"no words in the texts of script {empty[0]!r}: fertility divides by words")
    return {s: tokens[s] / words[s] for s in tokens}


def group_digits(text: str) -> list[str]:
    """The digit groups of ``text`` under :data:`R2L_DIGITS`: each maximal run of number
    characters (``\\p{N}``) cut into groups of three from the right, the short group first.

    >>> group_digits("12345, 2024 and 7")
    ['12', '345', '2', '024', '7']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return _R2L.findall(text)


def _check_ranks(ranks: Mapping[bytes, int]) -> None:
    if not isinstance(ranks, Mapping):
        raise TypeError(f"ranks must be a dict {{token bytes: rank}}, not {type(ranks).__name__}")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ValueError(
            f"ranks is not byte-level: byte {missing[0]:#04x} has no rank; every one of the "
            "256 single bytes must be a token"
        )


def merges_give_back(token: bytes, ranks: Mapping[bytes, int]) -> bool:
    """Whether BPE on the bytes of ``token`` alone, *without* the whole-piece shortcut,
    ends as the one token ``token`` (lowest-ranked adjacent pair first, the leftmost on a
    tie, as tiktoken). By chapter 9's claim, a token for which this is False can come out
    of encoding only as a whole piece.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"abc": 256}
    >>> merges_give_back(b"abc", ranks), merges_give_back(b"a", ranks)
    (False, True)
    """
    if not isinstance(token, bytes) or not token:
        raise TypeError(f"token must be non-empty bytes, not {token!r}")
    get = ranks.get
    parts = [token[i : i + 1] for i in range(len(token))]
    merged = sample_ranked_merges(parts, lambda a, b: get(a + b), dropout=0.0, rng=_RNG)
    return merged == [token]


def _whole_piece(token: bytes, pattern: regex.Pattern[str]) -> bool:
    """Whether ``token`` is the text of a piece: valid UTF-8 that the pattern keeps whole."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return pattern.findall(text) == [text]


def find_unreachable(ranks: Mapping[bytes, int], pattern: str) -> list[int]:
    """Ranks of the tokens that no text encodes to, by chapter 9's proof: tokens that are
    never a whole piece (not valid UTF-8, or text that ``pattern`` cuts) and that the merges
    do not give back (:func:`merges_give_back`). Sorted. Tokens outside this list may still
    be unreachable in context; this list is the part that is proven.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"ab,": 257, b"cd,": 258}
    >>> find_unreachable(ranks, r"\\p{L}+|\\p{P}+")  # "ab," = "ab" + ",", but "cd" is no token
    [258]
    """
    _check_ranks(ranks)
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be the pre-tokenization pattern as a str, not {type(pattern).__name__}")
    pat = regex.compile(pattern)
    return sorted(
        r for b, r in ranks.items()
        if len(b) > 1 and not _whole_piece(b, pat) and not merges_give_back(b, ranks)
    )


def find_not_round_trippable(
    ranks: Mapping[bytes, int], encode: Callable[[str], list[int]]
) -> list[int]:
    """Ranks of the tokens whose bytes are valid UTF-8 but whose text ``encode`` does not
    give back as that one token: ``encode(decode(t)) != [t]`` (Land and Bartolo's
    "unreachable"; chapter 9 says *not round-trippable*). Fragments (invalid UTF-8) have no
    text to try and are left out. Sorted.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"a,": 256}
    >>> find_not_round_trippable(ranks, lambda text: [ranks[bytes([b])] for b in text.encode()])
    [256]
    """
    _check_ranks(ranks)
    if not callable(encode):
        raise TypeError(f"encode must be a function text -> ids, not {type(encode).__name__}")
    out = []
    for b, r in ranks.items():
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if encode(text) != [r]:
            out.append(r)
    return sorted(out)


def _check_letter_args(ids: Sequence[int], letter: str, token_bytes: Sequence[bytes]) -> None:
    if not isinstance(letter, str) or len(letter) != 1:
        raise ValueError(f"letter must be one character, a str of length 1; got {letter!r}")
    for i in ids:
        if not is_integer(i) or not 0 <= i < len(token_bytes):
            raise ValueError(f"{i!r} is not a token id in 0..{len(token_bytes) - 1}")


def count_letter(ids: Sequence[int], letter: str, token_bytes: Sequence[bytes]) -> int:
    """How many times ``letter`` occurs in the text of ``ids``: the tokens' bytes
    (``token_bytes[i]``) joined, *then* decoded, so that a letter whose bytes two tokens
    share counts too (decoding token by token would lose it).

    >>> count_letter([0, 1], "é", [b"\\xc3", b"\\xa9"])
    1
    """
    _check_letter_args(ids, letter, token_bytes)
    return b"".join(token_bytes[i] for i in ids).decode("utf-8", errors="replace").count(letter)


def count_visible_letter(ids: Sequence[int], letter: str, token_bytes: Sequence[bytes]) -> int:
    """How many occurrences of ``letter`` in the text of ``ids`` are a token of their own:
    the token's bytes are the letter, or a space and the letter. Only those reach a model as
    the letter; the others are inside an id whose spelling the model must have learnt.

    >>> count_visible_letter([0, 1, 2], "r", [b"r", b" r", b"rr"])
    2
    """
    _check_letter_args(ids, letter, token_bytes)
    own = {letter.encode("utf-8"), b" " + letter.encode("utf-8")}
    return sum(token_bytes[i] in own for i in ids)
