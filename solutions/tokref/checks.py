"""The input checks every public function of tokref shares, and special-token splitting.

They raise ``TypeError``/``ValueError`` with a message that says what was wrong and what
to do, in the style of tiktoken. One implementation of each check: a tokenizer, the
explorer and the assignments' references all call these.

>>> check_int(3, name="k", minimum=0), check_text("abc")
(3, 'abc')
"""

from __future__ import annotations

import math
import operator
import random
import re
from collections.abc import Collection, Iterable, Iterator
from functools import lru_cache
from numbers import Integral

__all__ = [
    "check_text",
    "check_texts",
    "iter_texts",
    "check_ids",
    "check_id",
    "check_int",
    "check_bool",
    "check_probability",
    "check_rng",
    "is_integer",
    "check_vocab_size",
    "check_special_tokens",
    "split_special",
    "specials_pattern",
]


def check_text(text: object, *, name: str = "text", utf8: bool = False) -> str:
    """Return ``text`` if it is a ``str``; otherwise raise a ``TypeError`` that says how to fix it.

    With ``utf8=True`` (byte-level tokenizers, which encode the text's UTF-8), lone
    surrogates, which have no UTF-8 form, become U+FFFD, as tiktoken's ``encode`` does;
    without it they would raise ``UnicodeEncodeError`` deep inside the encoder.

    >>> check_text("abc")
    'abc'
    >>> check_text("a\\ud800b", utf8=True) == "a\\ufffdb"
    True
    """
    if isinstance(text, str):
        if utf8 and not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return text
    if isinstance(text, (bytes, bytearray)):
        raise TypeError(
            f"{name} must be str, not {type(text).__name__}; "
            f"decode it first, for example {name}.decode('utf-8')"
        )
    raise TypeError(f"{name} must be str, not {type(text).__name__}")


def check_texts(texts: object, *, name: str = "texts") -> list[str]:
    """Normalise a training corpus: one string, or an iterable of strings, to a list of strings.

    Raises ``TypeError`` for anything else and ``ValueError`` for a corpus with no text.

    >>> check_texts("one text")
    ['one text']
    >>> check_texts(iter(["a", "b"]))
    ['a', 'b']
    """
    return list(iter_texts(texts, name=name))


def iter_texts(
    texts: object,
    *,
    name: str = "texts",
    accepted: str = "a str or an iterable of str",
    fix_bytes: str = "decode it first, for example texts.decode('utf-8')",
) -> Iterator[str]:
    """:func:`check_texts` one text at a time, for a corpus too big to hold: a ``str`` is
    one text, an iterable's items are checked as they come, and ``ValueError`` is raised
    at the end if none held a character. ``accepted`` names what the caller takes, and
    ``fix_bytes`` says what to do with ``bytes``.

    >>> list(iter_texts(iter(["a", "b"])))
    ['a', 'b']
    """
    if isinstance(texts, str):
        texts = [texts]
    elif isinstance(texts, (bytes, bytearray)):
        raise TypeError(
            f"{name} must be {accepted}, not {type(texts).__name__}; {fix_bytes}"
        )
    elif not isinstance(texts, Iterable) or isinstance(texts, dict):
        raise TypeError(f"{name} must be {accepted}, not {type(texts).__name__}")
    any_text = False
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] must be str, not {type(t).__name__}; pass {accepted}")
        any_text = any_text or bool(t)
        yield t
    if not any_text:
        raise ValueError(
            f"cannot train on an empty corpus: {name} holds no characters; "
            "pass at least one non-empty string"
        )


def check_ids(ids: object, vocab_size: int, *, name: str = "ids") -> list[int]:
    """Return ``ids`` as a list of ``int``, each in ``range(vocab_size)``.

    Accepts any iterable of integers (``int``, NumPy integers); refuses ``bool``, floats,
    strings, and ids outside the vocabulary.

    >>> check_ids((1, 2), 3)
    [1, 2]
    """
    not_a_list = TypeError(
        f"{name} must be a list of int, not {type(ids).__name__}; "
        "to decode one id, pass [id]"
    )
    if isinstance(ids, (str, bytes, bytearray)):
        raise not_a_list
    try:
        # iter() rather than isinstance(ids, Iterable): a 0-d NumPy array claims to be
        # iterable but cannot be iterated.
        items = iter(ids)  # type: ignore[call-overload]
    except TypeError:
        raise not_a_list from None
    out = []
    for i, x in enumerate(items):
        # NumPy's bool (dtype kind "b") too: before NumPy 2.3, operator.index takes it for
        # 0 or 1 with a DeprecationWarning; refused here, it is refused on every NumPy.
        if isinstance(x, bool) or (
            type(x) is not int and getattr(getattr(x, "dtype", None), "kind", None) == "b"
        ):
            raise TypeError(f"{name}[{i}] is a bool ({x}); token ids are int")
        try:
            v = operator.index(x)
        except TypeError:
            raise TypeError(
                f"{name}[{i}] must be int, not {type(x).__name__} ({x!r})"
            ) from None
        if not 0 <= v < vocab_size:
            raise ValueError(
                f"{name}[{i}] = {v} is not a token id: this tokenizer's ids are "
                f"0..{vocab_size - 1} (vocab_size = {vocab_size})"
            )
        out.append(v)
    return out


def check_id(id: object, vocab_size: int) -> int:
    """Return ``id`` as an ``int`` if it is a token id in ``range(vocab_size)``.

    >>> check_id(2, 3)
    2
    >>> check_id([2], 3)
    Traceback (most recent call last):
    ...
    TypeError: id must be int, not list ([2]); for a list of ids use .decode(ids)
    """
    if not is_integer(id):
        raise TypeError(
            f"id must be int, not {type(id).__name__} ({id!r}); "
            "for a list of ids use .decode(ids)"
        )
    return check_ids([id], vocab_size, name="id")[0]

def check_int(value: object, *, name: str, minimum: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is an integer (``bool`` is not) of at least
    ``minimum``; otherwise raise ``TypeError``/``ValueError`` saying which.

    The one integer check of tokref: ``True`` is an ``int`` to Python but never a count,
    a size or an id here.

    >>> check_int(3, name="k", minimum=0)
    3
    >>> check_int(True, name="k")
    Traceback (most recent call last):
    ...
    TypeError: k must be int, not bool (True)
    """
    if not is_integer(value):
        raise TypeError(f"{name} must be int, not {type(value).__name__} ({value!r})")
    v = int(value)
    if minimum is not None and v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, not {v}")
    return v


def check_bool(value: object, *, name: str) -> bool:
    """Return ``value`` if it is ``True`` or ``False``; a ``TypeError`` otherwise
    (``0``, ``1`` and ``"yes"`` are refused: an option is a bool).

    >>> check_bool(False, name="lowercase")
    False
    """
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} ({value!r})")
    return value


def check_rng(seed: object) -> random.Random:
    """A ``random.Random`` from ``seed``: ``None``, an int, or a ``random.Random``, which
    is returned as is (so that successive calls continue its sequence).

    >>> rng = random.Random(0)
    >>> check_rng(rng) is rng, check_rng(0).random() == rng.random()
    (True, True)
    """
    if isinstance(seed, random.Random):
        return seed
    if seed is None:
        return random.Random()
    if is_integer(seed):
        # int(): random.Random refuses NumPy integers, which is_integer accepts.
        return random.Random(int(seed))  # type: ignore[call-overload]
    raise TypeError(f"seed must be None, an int or a random.Random, not {type(seed).__name__}")


def check_probability(value: object, *, name: str) -> float:
    """``value`` as a ``float`` in [0, 1] (``bool`` refused).

    >>> check_probability(0.1, name="dropout")
    0.1
    >>> check_probability(1.5, name="dropout")
    Traceback (most recent call last):
    ...
    ValueError: dropout must be a probability between 0 and 1, not 1.5
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise TypeError(f"{name} must be a number between 0 and 1, not {value!r}")
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be a probability between 0 and 1, not {value}")
    return float(value)


def is_integer(value: object) -> bool:
    """``True`` for an integer that is not a ``bool`` (for checks that build their own message)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


@lru_cache(maxsize=64)
def _specials_pattern(tokens: frozenset[str]) -> re.Pattern[str]:
    # Longest first, so that at one position the longest special token wins; the regex
    # engine already takes the leftmost position.
    return re.compile("|".join(map(re.escape, sorted(tokens, key=lambda s: (-len(s), s)))))


def specials_pattern(tokens: Iterable[str]) -> re.Pattern[str]:
    """A compiled pattern matching any of ``tokens`` (non-empty strings): the leftmost
    match, and of those starting there the longest. Cached per set of tokens.

    >>> specials_pattern(["<s>", "<s><s>"]).findall("a<s><s><s>")
    ['<s><s>', '<s>']
    """
    return _specials_pattern(frozenset(tokens))


def split_special(text: str, special_tokens: Collection[str]) -> list[tuple[str, bool]]:
    """``text`` cut into chunks at the special tokens: ``(chunk, True)`` for a special
    token, ``(chunk, False)`` for the text between them; no chunk is empty.

    Scanning from the left, the next special token is the one that starts **leftmost**;
    of those that start there, the **longest**. The scan goes on right after it. This
    is how byte-level BPE cuts text with ``allowed_special="all"`` (tiktoken's own choice
    between overlapping special tokens depends on a hash map's order) and how Hugging
    Face matches added tokens. ``special_tokens`` is a collection of non-empty strings
    (a ``dict``'s keys count).

    >>> split_special("a<|e|>b<|e|><|e|>", ["<|e|>"])
    [('a', False), ('<|e|>', True), ('b', False), ('<|e|>', True), ('<|e|>', True)]
    >>> split_special("xabcd", ["ab", "abc", "bcd"])  # leftmost first, then longest
    [('x', False), ('abc', True), ('d', False)]
    >>> split_special("", ["<s>"]), split_special("no specials", [])
    ([], [('no specials', False)])
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Collection):
        raise TypeError(
            "special_tokens must be a collection of str (a list, a set or a dict), "
            f"not {type(special_tokens).__name__}"
        )
    tokens = set()
    for t in special_tokens:
        if not isinstance(t, str):
            raise TypeError(f"special tokens must be str, found {t!r} ({type(t).__name__})")
        if not t:
            raise ValueError("a special token cannot be the empty string")
        tokens.add(t)
    chunks: list[tuple[str, bool]] = []
    start = 0
    if tokens:
        for m in specials_pattern(tokens).finditer(text):
            if m.start() > start:
                chunks.append((text[start : m.start()], False))
            chunks.append((m.group(), True))
            start = m.end()
    if start < len(text):
        chunks.append((text[start:], False))
    return chunks


def check_vocab_size(vocab_size: object, minimum: int, *, reason: str) -> int | None:
    """Check a ``vocab_size`` argument: ``None`` or an int of at least ``minimum``."""
    if vocab_size is None:
        return None
    if not is_integer(vocab_size):
        raise TypeError(f"vocab_size must be int or None, not {type(vocab_size).__name__}")
    if vocab_size < minimum:
        raise ValueError(
            f"vocab_size = {vocab_size} is too small: {reason} need {minimum}; "
            f"pass vocab_size >= {minimum}"
        )
    return vocab_size


def check_special_tokens(special_tokens: object) -> tuple[str, ...]:
    """Check a sequence of special tokens: distinct, non-empty strings."""
    if isinstance(special_tokens, str) or not isinstance(special_tokens, Iterable):
        raise TypeError(
            "special_tokens must be a sequence of str, for example ('<pad>', '<unk>'), "
            f"not {type(special_tokens).__name__}"
        )
    out = tuple(special_tokens)
    for s in out:
        if not isinstance(s, str):
            raise TypeError(f"special tokens must be str, not {type(s).__name__} ({s!r})")
        if not s:
            raise ValueError("a special token cannot be the empty string")
    if len(set(out)) != len(out):
        dup = sorted({s for s in out if out.count(s) > 1})
        raise ValueError(f"special tokens must be distinct; repeated: {dup}")
    return out
