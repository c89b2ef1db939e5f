"""The seed vocabulary of Unigram training: every character, and the substrings that
cover most characters (SentencePiece's suffix-array seeds, counted exactly)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import regex

from ..checks import is_integer
from .normalize import WS

__all__ = [
    "INHERITED",
    "COMMON",
    "script",
    "Substrings",
    "end_codes",
    "seed_pieces",
]

_WORD = re.compile("\u2581[^\u2581]*|[^\u2581]+")  # a word starts at each ▁

INHERITED = -2
COMMON = 0
# Scripts told apart when checking that a piece does not mix scripts (SentencePiece's
# split_by_unicode_script). Hiragana and Katakana count as Han, as in SentencePiece.
_SCRIPTS = (
    "Common", "Inherited", "Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic",
    "Syriac", "Thaana", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil",
    "Telugu", "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Tibetan", "Myanmar",
    "Georgian", "Hangul", "Ethiopic", "Cherokee", "Khmer", "Mongolian", "Han", "Hiragana",
    "Katakana", "Bopomofo", "Yi", "Coptic", "Runic", "Ogham", "Tifinagh", "Javanese",
)
_SCRIPT_RE = regex.compile("|".join(f"(?P<{s}>\\p{{Script={s}}})" for s in _SCRIPTS))
_script_cache: dict[str, int] = {}
_script_ids: dict[str, int] = {}  # script name -> a small positive int


def script(ch: str) -> int:
    """A small int naming the Unicode script of ``ch`` (``COMMON``, ``INHERITED``, ...).

    Scripts outside ``_SCRIPTS`` are told apart by the first word of the character's
    name, which is the script's name for almost all letters.

    >>> script("a") == script("z") != script("α"), script(","), script("\u0301")
    (True, 0, -2)
    """
    s = _script_cache.get(ch)
    if s is None:
        if ch == "\u30fc":  # the prolonged sound mark is Common, but goes with Katakana
            name = "Han"
        else:
            m = _SCRIPT_RE.match(ch)
            if m is not None:
                name = m.lastgroup or "Common"
            else:
                name = "?" + unicodedata.name(ch, "?").split(" ")[0]
        if name in ("Hiragana", "Katakana"):
            name = "Han"
        if name == "Common":
            s = COMMON
        elif name == "Inherited":
            s = INHERITED
        else:
            s = _script_ids.setdefault(name, len(_script_ids) + 1)
        _script_cache[ch] = s
    return s



def _valid_limits(word: str, max_piece_length: int, split_by_whitespace: bool) -> list[int]:
    """For each start ``i`` of ``word``, the end ``lim[i]``: ``word[i:j]`` is a valid piece
    for every ``j`` up to ``lim[i]`` (but see ``Substrings.valid`` for a final ``▁``).

    One right-to-left scan keeps the nearest ``▁`` and the nearest change of script.

    >>> _valid_limits("▁ab,c", 16, True)  # "," is Common, another script than "b"
    [3, 3, 3, 4, 5]
    >>> _valid_limits("▁abα", 16, True), _valid_limits("a▁b", 2, False)
    ([3, 3, 3, 4], [2, 3, 3])
    """
    n = len(word)
    cache = _script_cache
    lim = [0] * n
    ws_next = n  # the first ▁ after i
    c_next, c_script = n, 0  # the first scripted character after i, and its script
    change = n  # the first character after c_next with another script
    for i in range(n - 1, -1, -1):
        ch = word[i]
        s = None if ch == WS else cache.get(ch)
        if s is None and ch != WS:
            s = script(ch)
        if s is None or s == INHERITED:
            end = change
        else:
            end = c_next if c_next < n and c_script != s else change
            change, c_next, c_script = end, i, s
        if split_by_whitespace and ws_next < end:
            end = ws_next
        lim[i] = min(end, i + max_piece_length)
        if ch == WS:
            ws_next = i
    return lim


def _occurrences(lens: np.ndarray, lims: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(word, start, end)`` of every valid substring occurrence, in the order the
    substrings were listed: by word, by start, by end (up to each start's limit)."""
    total = int(lens.sum())
    within = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)  # i, for every position
    pos_word = np.repeat(np.arange(len(lens)), lens)
    n_occ = lims - within
    word = np.repeat(pos_word, n_occ)
    start = np.repeat(within, n_occ)
    end = start + 1 + (np.arange(int(n_occ.sum())) - np.repeat(np.cumsum(n_occ) - n_occ, n_occ))
    return word, start, end


class Substrings:
    """Every valid substring of a set of words, with its occurrences.

    ``strings[k]`` is substring ``k`` (characters included), ``count[k]`` its number of
    occurrences (each word weighted by its count) and ``branching[k]`` whether it is
    right-branching: two of its occurrences are followed by different characters.
    What follows the end of word ``w`` is ``ends[w]``: a code point (``ord("▁")``: the
    next word of its sentence), ``END`` (the end of a sentence) or ``ENDS_VARY`` (it
    varies). ``word, start, end, sid`` list every occurrence: the lattice edges of the
    words, once the pieces are chosen among the substrings.

    Valid, as SentencePiece's ``IsValidSentencePiece``: at most ``max_piece_length``
    characters; ``▁`` only first (without ``split_by_whitespace``: anywhere but last);
    one Unicode script (an Inherited character takes the previous one's, ``▁`` has
    none, Hiragana and Katakana count as Han). So the substrings starting at ``i`` are
    valid up to an end ``lim[i]``, found for all ``i`` in one right-to-left scan; Python
    only looks the substrings up in a dict, NumPy does the rest.
    """

    END = -2
    ENDS_VARY = -3

    def __init__(
        self, words: Sequence[str], counts: Sequence[int], ends: Sequence[int],
        max_piece_length: int, split_by_whitespace: bool,
    ) -> None:
        index: dict[str, int] = {}
        setdefault = index.setdefault
        sids: list[int] = []
        lims: list[int] = []
        for w in words:
            lim = _valid_limits(w, max_piece_length, split_by_whitespace)
            sids += [setdefault(w[i:j], len(index)) for i in range(len(w)) for j in range(i + 1, lim[i] + 1)]
            lims += lim
        self.strings = strings = list(index)
        self.index = index
        self.length = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        # A piece may not end with ▁ (only without split_by_whitespace can one try).
        self.valid = np.array([len(s) == 1 or s[-1] != WS for s in strings], dtype=bool)
        lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        self.word, self.start, self.end = _occurrences(lens, np.array(lims, dtype=np.int64))
        self.sid = np.array(sids, dtype=np.int64)
        weights = np.asarray(counts, dtype=np.float64)[self.word]
        self.count = np.rint(np.bincount(self.sid, weights=weights, minlength=len(strings))).astype(np.int64)
        self.branching = self._branching(words, lens, ends)

    def _branching(self, words: Sequence[str], lens: np.ndarray, ends: Sequence[int]) -> np.ndarray:
        """Whether each substring is right-branching: the smallest and the largest code
        that follows its occurrences differ (or one of them is ``ENDS_VARY``)."""
        # Followers: the code point after each occurrence, -1 at the end of a word.
        total = int(lens.sum())
        within = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
        cp = np.frombuffer("".join(words).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        off = np.cumsum(lens + 1) - (lens + 1)
        codes = np.full(total + len(words), -1, dtype=np.int64)
        codes[np.repeat(off, lens) + within] = cp
        follower = codes[off[self.word] + self.end]
        at_end = follower == -1
        follower[at_end] = np.asarray(ends, dtype=np.int64)[self.word[at_end]]
        fmin = np.full(len(self.strings), np.iinfo(np.int64).max, dtype=np.int64)
        fmax = np.full(len(self.strings), self.ENDS_VARY - 1, dtype=np.int64)
        np.minimum.at(fmin, self.sid, follower)
        np.maximum.at(fmax, self.sid, follower)
        return (fmin == self.ENDS_VARY) | (fmin != fmax)

    def seeds(self, seed_size: int, reserved: frozenset[str] = frozenset()) -> list[int]:
        """The seed pieces as substring ids: the characters by descending count (then
        code point), then the ``seed_size`` best candidates by ``count × length`` (then
        by the string), a candidate being right-branching (so seen at least twice)."""
        strings, count, length = self.strings, self.count, self.length
        chars = [int(k) for k in np.flatnonzero(length == 1) if strings[k] not in reserved]
        chars.sort(key=lambda k: (-count[k], strings[k]))
        ok = (length >= 2) & (count >= 2) & self.branching & self.valid
        score = count * length
        cand = [int(k) for k in np.flatnonzero(ok) if strings[k] not in reserved]
        cand.sort(key=lambda k: (-score[k], strings[k]))
        return chars + cand[:seed_size]


def _split_sentences(
    sentences: Mapping[str, int], split_by_whitespace: bool
) -> tuple[Counter[str], dict[str, set[int]]]:
    """Words (cut before each ``▁``) with their counts and what follows each: the next
    word's ``▁``, or the end of its sentence. Without ``split_by_whitespace`` the units
    are the sentences.

    >>> _split_sentences({"▁a▁b": 2, "▁b": 1}, True)
    (Counter({'▁b': 3, '▁a': 2}), {'▁a': {9601}, '▁b': {-2}})
    """
    words: Counter[str] = Counter()
    ends: dict[str, set[int]] = {}
    for sentence, c in sentences.items():
        parts = _WORD.findall(sentence) if split_by_whitespace else [sentence] if sentence else []
        for k, w in enumerate(parts):
            words[w] += c
            ends.setdefault(w, set()).add(ord(WS) if k + 1 < len(parts) else Substrings.END)
    return words, ends


def end_codes(words: Sequence[str], ends: Mapping[str, set[int]]) -> list[int]:
    """What follows each of ``words`` (see :func:`_split_sentences`) as one code for
    :class:`Substrings`: the follower if it is always the same, else ``ENDS_VARY``.

    >>> end_codes(["▁a", "▁b"], {"▁a": {ord("▁")}, "▁b": {ord("▁"), Substrings.END}})
    [9601, -3]
    """
    return [next(iter(e)) if len(e) == 1 else Substrings.ENDS_VARY for e in map(ends.__getitem__, words)]


def seed_pieces(
    sentences: Mapping[str, int],
    *,
    seed_size: int = 1_000_000,
    max_piece_length: int = 16,
    split_by_whitespace: bool = True,
) -> dict[str, int]:
    """The seed vocabulary of Unigram training, from normalized sentences (spaces as
    ``▁``) with their counts: piece → score, best first.

    Every character, scored by its count; then the ``seed_size`` best substrings of at
    least two characters, scored ``count × length`` (the characters they cover). As in
    SentencePiece, a candidate is a valid piece (``▁`` only first, one Unicode script,
    at most ``max_piece_length`` characters) that is *right-branching*: two of its
    occurrences are followed by different characters, the end of a sentence counting
    as one. These are the internal nodes of the corpus's suffix tree, which
    SentencePiece reads off an enhanced suffix array; here every substring of every
    distinct word is counted, weighted by the word's count, which finds the same
    strings (on the train split: the same 75,767). Ties: by the piece, in code-point
    order.

    Here ``▁a`` is always followed by ``b``, and ``▁aba`` occurs once:

    >>> seed_pieces({"▁aba▁ab": 1, "▁ab": 1})
    {'a': 4, 'b': 3, '▁': 3, '▁ab': 9, 'ab': 6}
    """
    if not isinstance(sentences, Mapping):
        raise TypeError(
            f"sentences must be a dict mapping str to int, not {type(sentences).__name__}"
        )
    for w, c in sentences.items():
        if not isinstance(w, str) or not is_integer(c) or c < 1:
            raise TypeError(f"sentences must map str to int >= 1; found {w!r}: {c!r}")
    words, ends = _split_sentences(sentences, split_by_whitespace)
    order = list(words)
    subs = Substrings(
        order, [words[w] for w in order], end_codes(order, ends), max_piece_length,
        split_by_whitespace,
    )
    return {
        subs.strings[k]: int(subs.count[k] * (subs.length[k] if subs.length[k] > 1 else 1))
        for k in subs.seeds(seed_size)
    }
