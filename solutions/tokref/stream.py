"""Streaming byte-level encoding: the ids of ``encode("".join(chunks))``, in bounded memory.

The obvious streamer encodes each line (or chunk) on its own. It is wrong, because the
pre-tokenizer sees across the cut: GPT-2's pattern makes ``"a\\n\\n\\nb"`` the pieces
``"a", "\\n\\n", "\\n", "b"`` (a whitespace run gives its last character to the word after
it, ``\\s+(?!\\S)``), but ``"a\\n\\n\\n"`` alone is ``"a", "\\n\\n\\n"`` (the run ends the
text). Cutting is safe only where the pieces of the two parts are the pieces of the whole.

**The rule.** For the patterns of GPT-2, cl100k_base and o200k_base (and
``GPT2_PATTERN_STDLIB`` run by ``regex``), a position ``i`` of ``text`` is a *safe cut* when

1. ``text[i]`` is U+0020 SPACE and ``text[i-1]`` is not whitespace (``\\s``); or
2. ``text[i-1]`` is a letter (``\\p{L}``) and ``text[i]`` is ``"_"`` or is none of:
   whitespace, a letter, a number (``\\p{N}``), a mark (``\\p{M}``), the apostrophe ``'``,
   a word character (``\\w``);

and no special token could straddle it: for every special token ``s`` and
``0 < k < len(s)``, ``text[i-k:i] != s[:k]``.

*Why it is safe.* The patterns have no look-behind, so the pieces from ``i`` on depend on
``text[i:]`` only, provided a piece ends at ``i``. (1) In no alternative can a space
follow a non-space inside a piece: a space is only ever a piece's first character or part
of a run of whitespace. (2) A run of letters (with marks, in o200k) stops at a character
that is not a letter or mark, and the contraction suffixes (``'s``, ``'ll``...) start with
the apostrophe; in ``GPT2_PATTERN_STDLIB`` a "letter" is ``[^\\W\\d_]``, which also takes
the word characters that are not letters (``\\u200d``, ``‿``): hence ``\\w`` too. So a piece
ends at ``i``. Nor does the prefix ``text[:i]`` alone match differently: its last piece
ends in a non-space, so no whitespace run reaches its end, and only whitespace runs look
ahead (``\\s+(?!\\S)``, ``\\s++$``); every other alternative stops at ``text[i]`` exactly
as it stops at the end of the string. A special token cannot straddle ``i`` either, so
encoding ``text[:i]`` and ``text[i:]`` gives the ids of ``text``, and a disallowed special
token still raises in the part that holds it. (``tests/test_stream.py`` checks the rule on
every string of up to 3 characters drawn from one character of each class the patterns
distinguish and the characters they name, on every string of 4 of the hardest dozen, and
on random texts.) Right after an allowed special token is always safe, for any pattern;
for a pattern other than these four it is the only cut.

**Streaming.** :func:`iter_blocks` collects the text; once it holds ``block`` characters
(:data:`BLOCK`), it cuts at the last cut it knows and yields the text before it, and
:func:`encode_iterable` encodes that with ``encode``. Each position is examined once
(the search starts where the last one ended), so the time is linear, and the buffer never
holds more than ``block`` + the longest stretch of the input without a cut + one piece of
a chunk (at most ``block``): with a pattern other than the four and no allowed special
token in the text, that stretch is the whole text. A chunk may be ``bytes``: UTF-8,
decoded incrementally, so a character may be cut between chunks (:func:`decode_chunks`).

>>> last_safe_cut("It's a dog, the end")
15
>>> last_safe_cut("a\\n\\n\\n")  # nowhere: "a\\n\\n\\nb" and "a\\n\\n\\n" end differently
0
>>> last_safe_cut("a<|e.x"), last_safe_cut("a<|e.x", ["<|e.x|>"])  # not inside a special
(4, 1)
>>> list(iter_blocks(["Hello, wor", "ld! Next."], pattern=GPT2_PATTERN, block=8))
['Hello,', ' world!', ' Next.']
"""

from __future__ import annotations

import codecs
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Literal, Protocol

import regex

from .base import check_int, specials_pattern
from .pretokenize import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    GPT2_PATTERN_STDLIB,
    O200K_PATTERN,
    allowed_specials,
    compile_frozen,
    holds_disputed,
)

__all__ = [
    "BLOCK",
    "SAFE_CUT_PATTERNS",
    "is_safe_cut",
    "last_safe_cut",
    "decode_chunks",
    "char_spans",
    "iter_blocks",
    "encode_iterable",
]

#: Characters of text per call of ``encode`` while streaming (64 Ki characters).
BLOCK = 1 << 16

#: The patterns the safe-cut rule is proved for (compiled with ``regex``, as tokref does).
SAFE_CUT_PATTERNS = frozenset({GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, GPT2_PATTERN_STDLIB})

# The two characters around a safe cut, rules 1 and 2 of the module docstring. (?r)
# searches from the right, so the first match is the last cut.
_PAIR = regex.compile(r"(?r)\S |\p{L}(?:[^\s\w\p{L}\p{N}\p{M}']|_)")


def _pair(text: str, start: int = 0) -> regex.Pattern[str]:
    """_PAIR, with tiktoken's classes if ``text[start:]`` needs them (as
    pretokenize.pieces_finder does for the patterns)."""
    if text.isascii() or not holds_disputed(text, start=start):  # isascii: O(1), a flag
        return _PAIR
    return compile_frozen(_PAIR.pattern, _PAIR.flags)


class SupportsEncode(Protocol):
    """What :func:`encode_iterable` needs of a tokenizer (``ByteLevelBPETokenizer`` has it)."""

    pattern: str

    @property
    def special_tokens_map(self) -> Mapping[str, int]: ...

    def encode(self, text: str, *, allowed_special: Literal["all"] | Collection[str] = ...,
               disallowed_special: Literal["all"] | Collection[str] = ...) -> list[int]: ...


# ---------------------------------------------------------------------------------------
# Where a text may be cut
# ---------------------------------------------------------------------------------------


def _prefixes(special_tokens: Iterable[str]) -> dict[int, frozenset[str]]:
    """Length k → the first k characters of every special token longer than k."""
    out: dict[int, set[str]] = {}
    for s in special_tokens:
        for k in range(1, len(s)):
            out.setdefault(k, set()).add(s[:k])
    return {k: frozenset(v) for k, v in out.items()}


def _straddles(text: str, i: int, prefixes: Mapping[int, frozenset[str]]) -> bool:
    # Could a special token start before i and end after it? (Text before position 0
    # is the other side of an earlier cut, where no special token straddles.)
    return any(k <= i and text[i - k : i] in ps for k, ps in prefixes.items())


def is_safe_cut(text: str, i: int, special_tokens: Collection[str] = ()) -> bool:
    """Whether ``text`` may be cut at ``i`` (``0 < i < len(text)``) for the patterns of
    :data:`SAFE_CUT_PATTERNS`: rule 1 or 2 of the module docstring holds and no special
    token of ``special_tokens`` could straddle ``i``.

    >>> is_safe_cut("a b", 1), is_safe_cut("a  b", 2), is_safe_cut("ab.", 2), is_safe_cut("a's", 1)
    (True, False, True, False)
    >>> is_safe_cut("x<|e|> y", 5, ["<|e|>"]), is_safe_cut("x<|e|> y", 6, ["<|e|>"])
    (False, True)
    """
    i = check_int(i, name="i")
    if not 0 < i < len(text):
        return False
    return _pair(text[i - 1:i + 1]).fullmatch(text, i - 1, i + 1) is not None and not _straddles(
        text, i, _prefixes(special_tokens)
    )


def last_safe_cut(text: str, special_tokens: Collection[str] = (), *, start: int = 0) -> int:
    """The largest safe cut ``i`` of ``text`` (:func:`is_safe_cut`) with
    ``start <= i < len(text)``, or 0 if there is none (cutting at 0 leaves nothing).

    >>> last_safe_cut("one two  three"), last_safe_cut("one two  three", start=8)
    (7, 0)
    """
    return _last_pattern_cut(text, max(check_int(start, name="start", minimum=0), 1),
                             _prefixes(special_tokens))


def _last_pattern_cut(text: str, first: int, prefixes: Mapping[int, frozenset[str]]) -> int:
    end = len(text)
    pair = _pair(text, first - 1)
    while True:
        m = pair.search(text, first - 1, end)
        if m is None:
            return 0
        i = m.start() + 1
        if not _straddles(text, i, prefixes):
            return i
        end = i  # the next candidate's two characters end at or before i


# ---------------------------------------------------------------------------------------
# Chunks to text, text to blocks
# ---------------------------------------------------------------------------------------


def decode_chunks(chunks: Iterable[str | bytes]) -> Iterator[str]:
    """The text of ``chunks``: ``str`` as it is, ``bytes`` decoded as UTF-8 incrementally
    (a character cut between two chunks is joined). Invalid UTF-8 raises
    ``UnicodeDecodeError`` (a ``ValueError``) naming its byte offset in the stream.

    >>> list(decode_chunks([b"caf\\xc3", b"\\xa9 ", "ok"]))
    ['caf', 'é ', 'ok']
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0  # bytes before the current chunk
    index = -1
    for index, chunk in enumerate(chunks):
        if isinstance(chunk, str):
            if decoder.getstate()[0]:
                raise ValueError(
                    f"chunks[{index}] is str, but the bytes before it end inside a UTF-8 "
                    f"character (byte {offset - len(decoder.getstate()[0])}); pass whole "
                    "characters, or only bytes"
                )
            yield chunk
        elif isinstance(chunk, (bytes, bytearray)):
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as e:
                raise _bad_utf8(e, offset - pending, index) from None
            offset += len(chunk)
            if text:
                yield text
        else:
            raise TypeError(
                f"chunks[{index}] must be str or bytes, not {type(chunk).__name__}; pass an "
                "iterable of text chunks, such as a list of lines or an open file"
            )
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as e:
        raise _bad_utf8(e, offset - len(e.object), index) from None


def _bad_utf8(e: UnicodeDecodeError, base: int, index: int) -> UnicodeDecodeError:
    reason = (
        f"{e.reason} at byte {base + e.start} of the stream (in chunks[{index}]); "
        "decode the input yourself (errors='replace') if it may hold invalid UTF-8"
    )
    return UnicodeDecodeError(e.encoding, e.object, e.start, e.end, reason)


def char_spans(text: str, byte_lengths: Iterable[int]) -> list[tuple[int, int]]:
    """The character span in ``text`` of each of the consecutive runs, ``byte_lengths``
    long, of its UTF-8 bytes (a byte-level encoding's tokens: their offsets). A run that
    ends inside a multi-byte character gets the whole character, so neighbouring runs
    can share a span, as in Hugging Face ``tokenizers``.

    >>> char_spans("né!", [1, 1, 1, 1])  # "é" is two bytes
    [(0, 1), (1, 2), (1, 2), (2, 3)]
    """
    # Map each byte offset of the UTF-8 encoding to the index of its character.
    char_of_byte: list[int] = []
    for i, ch in enumerate(text):
        char_of_byte.extend([i] * len(ch.encode("utf-8")))
    char_of_byte.append(len(text))
    out, pos = [], 0
    for n in byte_lengths:
        start = char_of_byte[pos]
        end_byte = pos + n
        # The end is the first character starting at or after end_byte.
        end = char_of_byte[end_byte] if end_byte < len(char_of_byte) else len(text)
        if end_byte < len(char_of_byte) - 1 and char_of_byte[end_byte - 1] == end:
            end += 1  # the run ends inside character `end`
        out.append((start, max(end, start)))
        pos = end_byte
    return out


class _Blocks:
    """The state of one stream: the text since the last cut (``held``, examined up to its
    end; ``fresh``, not yet examined) and where the special-token scan resumes."""

    def __init__(self, pattern: str, special_tokens: Collection[str], allowed: Collection[str]):
        self.rule = pattern in SAFE_CUT_PATTERNS
        specials = set(special_tokens) | set(allowed)
        self.prefixes = _prefixes(specials)
        self.finder = specials_pattern(allowed) if allowed else None
        self.longest_allowed = max(map(len, allowed), default=0)
        # Text before the unexamined part that a search needs: the character before a
        # position, a special token's start before it, and the scan's restart point.
        self.overlap = 2 * max(map(len, specials), default=1) + 1
        self.held: list[str] = []
        self.held_len = 0
        self.fresh: list[str] = []
        self.fresh_len = 0
        self.scan = 0  # the leftmost-longest special-token scan resumes here

    @property
    def can_cut(self) -> bool:
        return self.rule or self.finder is not None

    def add(self, text: str) -> None:
        self.fresh.append(text)
        self.fresh_len += len(text)

    def text(self) -> str:
        return "".join(self.held + self.fresh)

    def cut(self) -> str:
        """The text before the last cut of the buffer ("" if it has none), removed."""
        tail, k = "", len(self.held)
        while k and len(tail) < self.overlap:
            k -= 1
            tail = self.held[k] + tail
        new = "".join(self.fresh)
        window = tail + new
        off = self.held_len - len(tail)  # the buffer position of window[0]
        n = off + len(window)
        cut = self._special_cut(window, off, n)
        if self.rule:
            i = _last_pattern_cut(window, max(self.held_len - off, 1), self.prefixes)
            cut = max(cut, off + i if i else 0)
        self.fresh, self.fresh_len = [], 0
        if not cut:
            self.held.append(new)
            self.held_len = n
            return ""
        whole = "".join(self.held) + new
        rest = whole[cut:]
        self.held, self.held_len = ([rest] if rest else []), len(rest)
        self.scan = max(self.scan - cut, 0)
        return whole[:cut]

    def _special_cut(self, window: str, off: int, n: int) -> int:
        # Ends of allowed special tokens that the scan of the whole text would find too:
        # a match is final once every special token that starts at or before it would
        # end inside the buffer (so none longer or further left can still appear).
        if self.finder is None:
            return 0
        best, pos, longest = 0, self.scan, self.longest_allowed
        while True:
            m = self.finder.search(window, pos - off)
            if m is None or off + m.start() + longest > n:
                break
            pos = off + m.end()
            if not _straddles(window, m.end(), self.prefixes):  # a disallowed one across it
                best = pos
        self.scan = max(pos, n - longest + 1)
        return best


def iter_blocks(
    texts: Iterable[str],
    *,
    pattern: str,
    special_tokens: Collection[str] = (),
    allowed: Collection[str] = (),
    block: int = BLOCK,
) -> Iterator[str]:
    """The texts that streaming calls ``encode`` on: ``texts`` joined, then cut at safe
    cuts into blocks of about ``block`` characters (see the module docstring). Their
    encodings, concatenated, are the encoding of the whole text.

    ``special_tokens``: every special token of the tokenizer (none may straddle a cut);
    ``allowed``: those encoded as special tokens, after which any pattern may be cut.

    >>> list(iter_blocks(["a\\n", "\\n", "\\nb c"], pattern=GPT2_PATTERN, block=1))
    ['a\\n\\n\\nb', ' c']
    >>> list(iter_blocks(["x<s>y", "<s>z"], pattern=r"\\S+", allowed=["<s>"], block=1))
    ['x<s>', 'y<s>', 'z']
    """
    block = check_int(block, name="block", minimum=1)
    state = _Blocks(pattern, special_tokens, allowed)
    for text in texts:
        for start in range(0, len(text), block):
            state.add(text[start : start + block])
            if state.can_cut and state.held_len + state.fresh_len >= block:
                out = state.cut()
                if out:
                    yield out
    rest = state.text()
    if rest:
        yield rest


# ---------------------------------------------------------------------------------------
# Encoding a stream
# ---------------------------------------------------------------------------------------


def encode_iterable(
    tok: SupportsEncode,
    chunks: Iterable[str | bytes],
    *,
    allowed_special: Literal["all"] | Collection[str] = frozenset(),
    disallowed_special: Literal["all"] | Collection[str] = "all",
    block: int = BLOCK,
) -> Iterator[int]:
    """Yield ``tok.encode("".join(chunks), allowed_special=..., disallowed_special=...)``
    id by id, reading ``chunks`` (``str`` or UTF-8 ``bytes``: lines, an open file...)
    lazily, in bounded memory (module docstring). A single ``str`` or ``bytes`` is one
    chunk. The arguments are checked now; a disallowed special token raises
    ``ValueError`` when the stream reaches it, after the ids before its block.

    >>> from tokref import ByteLevelBPETokenizer
    >>> tok = ByteLevelBPETokenizer().train(["a\\n\\n\\nb " * 5], vocab_size=256 + 3)
    >>> lines = ["a\\n", "\\n", "\\n", "b"]
    >>> list(encode_iterable(tok, lines)) == tok.encode("".join(lines))
    True
    >>> sum((tok.encode(line) for line in lines), []) == tok.encode("".join(lines))
    False
    """
    specials = tok.special_tokens_map
    allowed = allowed_specials("", specials, allowed_special, disallowed_special)
    block = check_int(block, name="block", minimum=1)
    if isinstance(chunks, (str, bytes, bytearray)):
        chunks = [chunks]
    blocks = iter_blocks(
        decode_chunks(chunks), pattern=tok.pattern, special_tokens=specials, allowed=allowed, block=block
    )
    return _encode_blocks(tok, blocks, allowed_special, disallowed_special)


def _encode_blocks(
    tok: SupportsEncode,
    blocks: Iterator[str],
    allowed_special: Literal["all"] | Collection[str],
    disallowed_special: Literal["all"] | Collection[str],
) -> Iterator[int]:
    for text in blocks:
        yield from tok.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
