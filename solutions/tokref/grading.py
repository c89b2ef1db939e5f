"""Helpers for the hidden tests of the nbgrader assignments.

Hidden tests never trust a student's result to compare itself: an object whose
``__eq__`` always returns ``True``, a ``list`` subclass, or a NumPy integer standing in
for an ``int`` would fool ``assert result == expected``. ``check_same`` first checks the
*exact* type of every value, recursively, against the reference result, and only then
compares values, so only plain, honest data can pass.

>>> check_same([1, 2], [1, 2])
>>> check_same((1, 2), [1, 2])
Traceback (most recent call last):
...
AssertionError: result: expected a list, got a tuple (convert it with list(...))
>>> class Liar:
...     def __eq__(self, other): return True
>>> check_same(Liar(), "abc")
Traceback (most recent call last):
...
AssertionError: result: expected a str, got a Liar

The random inputs are seeded, so a failing case can be reproduced, and many, so that a
hard-coded answer cannot pass.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "check_same",
    "random_text",
    "random_texts",
    "random_prose",
    "random_corpus",
    "ASCII_LETTERS",
]

_SCALARS = (str, int, float, bool, bytes, type(None))
_CONTAINERS = (list, tuple, dict, set, frozenset)
ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _short(x: Any, limit: int = 80) -> str:
    r = repr(x)
    return r if len(r) <= limit else r[: limit - 3] + "..."


class _NotPlain(Exception):
    def __init__(self, bad: Any) -> None:
        self.bad = bad


def _tag(x: Any) -> tuple[type, Any]:
    """A stand-in for a dict key or set member that compares its exact type as well as its
    value, recursively through tuples and frozensets, so that ``True`` cannot stand for
    ``1``, nor ``1.0`` for ``1``. Raises ``_NotPlain`` naming the first value that is not
    plain hashable data (an object whose ``__eq__`` lies, a ``str`` subclass, ...)."""
    t = type(x)
    if t in _SCALARS:
        return (t, x)
    if t is tuple or t is frozenset:
        return (t, t(_tag(i) for i in x))
    raise _NotPlain(x)


def _tags(
    values: Any, *, name: str, what: str, exc: type[Exception] = AssertionError
) -> dict[tuple[type, Any], Any]:
    """``{_tag(v): v}`` for the keys or members of ``actual``; AssertionError if one is not plain."""
    out = {}
    for v in values:
        try:
            out[_tag(v)] = v
        except _NotPlain as e:
            where = "" if e.bad is v else f" (it holds {_short(e.bad)})"
            raise exc(f"{name}: {what} {_short(v)}{where} is a {type(e.bad).__name__}") from None
    return out


def check_same(
    actual: Any,
    expected: Any,
    *,
    name: str = "result",
    rel_tol: float = 1e-9,
    abs_tol: float = 1e-12,
) -> None:
    """Raise ``AssertionError`` unless ``actual`` is ``expected`` in type and value.

    ``expected`` must be plain data (``list``, ``tuple``, ``dict``, ``set``, ``str``,
    ``int``, ``float``, ``bool``, ``bytes``, ``None``). Types must match exactly (no
    subclasses, no ``numpy.int64`` for ``int``); floats are compared with
    ``math.isclose``; dict keys and set members must also have exact types before
    they are compared. The message names the first place that differs.
    """
    te, ta = type(expected), type(actual)
    if te not in _SCALARS and te not in _CONTAINERS:
        raise TypeError(f"check_same: expected value of type {te.__name__} is not plain data")
    if ta is not te:
        hint = ""
        if te is int and hasattr(actual, "item"):
            hint = " (a NumPy number? convert it with int(x))"
        elif te is float and hasattr(actual, "item"):
            hint = " (a NumPy number? convert it with float(x))"
        elif te is list and ta is tuple:
            hint = " (convert it with list(...))"
        raise AssertionError(
            f"{name}: expected a {te.__name__}, got a {ta.__name__}{hint}"
        )
    if te is float:
        if not (math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=abs_tol)
                or (math.isnan(actual) and math.isnan(expected))):
            raise AssertionError(f"{name}: expected {expected!r}, got {actual!r}")
        return
    if te in _SCALARS:
        # Exact type already checked, so this `!=` is the built-in one.
        if actual != expected:
            raise AssertionError(f"{name}: expected {_short(expected)}, got {_short(actual)}")
        return
    if te in (list, tuple):
        for i, (a, e) in enumerate(zip(actual, expected)):
            check_same(a, e, name=f"{name}[{i}]", rel_tol=rel_tol, abs_tol=abs_tol)
        if len(actual) != len(expected):
            raise AssertionError(
                f"{name}: expected {len(expected)} items, got {len(actual)}"
            )
        return
    if te in (set, frozenset):
        # Compare exact types too: {True} must not pass for {1}.
        a_tags = _tags(actual, name=name, what="member")
        e_tags = _tags(expected, name="check_same: expected", what="member", exc=TypeError)
        missing = [x for t, x in e_tags.items() if t not in a_tags]
        extra = [x for t, x in a_tags.items() if t not in e_tags]
        if missing or extra:
            raise AssertionError(
                f"{name}: missing {_short(sorted(missing, key=repr))}, "
                f"unexpected {_short(sorted(extra, key=repr))}"
            )
        return
    # dict: keys are matched by exact type and value ({True: x} must not pass for {1: x});
    # tuple keys (pair counts, merges) are plain data too.
    a_tags = _tags(actual, name=name, what="key")
    e_tags = _tags(expected, name="check_same: expected", what="key", exc=TypeError)
    missing = [k for t, k in e_tags.items() if t not in a_tags]
    extra = [k for t, k in a_tags.items() if t not in e_tags]
    if missing or extra:
        raise AssertionError(
            f"{name}: missing keys {_short(missing)}, unexpected keys {_short(extra)}"
        )
    for t, k in e_tags.items():
        check_same(
            actual[a_tags[t]], expected[k], name=f"{name}[{k!r}]", rel_tol=rel_tol, abs_tol=abs_tol
        )


def check_against(
    student: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[tuple[tuple[Any, ...], dict[str, Any]]],
    *,
    name: str,
) -> None:
    """Call ``student`` and ``reference`` on each ``(args, kwargs)`` case and ``check_same``.

    Each function gets its own deep copy of the arguments, so a student function that
    mutates its input cannot change what the reference sees.
    """
    import copy

    for n, (args, kwargs) in enumerate(cases):
        expected = reference(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        actual = student(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        call = ", ".join([*map(_short, args), *(f"{k}={_short(v)}" for k, v in kwargs.items())])
        check_same(actual, expected, name=f"{name}({call}) [case {n}]")


# ---------------------------------------------------------------------------
# Seeded random inputs
# ---------------------------------------------------------------------------

# A mix of scripts so that tests exercise non-ASCII code points: Latin with accents,
# Greek, Cyrillic, CJK, and an emoji outside the Basic Multilingual Plane.
UNICODE_SAMPLE = "éüßñçøåÆŒΩλжЯ中文字日本語😀🎉"


def random_text(rng: random.Random, *, max_len: int = 40, alphabet: str | None = None) -> str:
    """A random string of up to ``max_len`` characters from ``alphabet``.

    The default alphabet mixes a few ASCII letters, spaces, punctuation and non-ASCII
    characters, with the letters most likely.
    """
    if alphabet is None:
        alphabet = "abcdeabcde \n.,!'" + rng.choice(["", UNICODE_SAMPLE])
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, max_len)))


def random_texts(seed: int, *, n: int = 5, max_len: int = 40, alphabet: str | None = None) -> list[str]:
    """``n`` random strings from ``random_text`` with generator seed ``seed``; at least one is non-empty."""
    if n < 1 or max_len < 1:
        raise ValueError(f"random_texts needs n >= 1 and max_len >= 1, not n={n}, max_len={max_len}")
    if alphabet is not None and not alphabet:
        raise ValueError("alphabet must be a non-empty str (or None for the default)")
    rng = random.Random(seed)
    texts = [random_text(rng, max_len=max_len, alphabet=alphabet) for _ in range(n)]
    if not any(texts):
        texts[0] = rng.choice(alphabet or ASCII_LETTERS)
    return texts


def _random_word(rng: random.Random) -> str:
    syllables = ["th", "e", "an", "or", "is", "ing", "qu", "o", "a", "st", "re", "ly", "ä", "ñ"]
    w = "".join(rng.choice(syllables) for _ in range(rng.randint(1, 3)))
    r = rng.random()
    if r < 0.08:
        w = w.capitalize()
    elif r < 0.12:
        w = w.upper()
    elif r < 0.16:
        w = w + "'" + rng.choice(["s", "t", "ll", "d"])
    elif r < 0.18:
        w = w + str(rng.randint(0, 99))
    return w


def random_prose(rng: random.Random, *, n_words: int = 30) -> str:
    """Prose-like text: Zipf-distributed words from a small random lexicon, punctuation,
    contractions, digits and varied whitespace, so word counts have many ties."""
    lexicon = sorted({_random_word(rng) for _ in range(rng.randint(5, 40))})
    weights = [1 / (r + 1) for r in range(len(lexicon))]
    parts: list[str] = []
    for _ in range(rng.randint(0, n_words)):
        parts.append(rng.choices(lexicon, weights)[0])
        r = rng.random()
        if r < 0.1:
            parts.append(rng.choice([",", ".", "!", "?", ";", ":", '"', "(", ")", "--", "..."]))
        parts.append(rng.choice([" ", " ", " ", "  ", "\n", "\t", ""]))
    return "".join(parts)


def random_corpus(seed: int, *, n_texts: int = 4, n_words: int = 30) -> list[str]:
    """``n_texts`` prose-like texts with seed ``seed``; at least one word in all."""
    if n_texts < 1:
        raise ValueError(f"random_corpus needs n_texts >= 1, not {n_texts}")
    rng = random.Random(seed)
    texts = [random_prose(rng, n_words=n_words) for _ in range(n_texts)]
    if not any(t.strip() for t in texts):
        texts[0] = "the"
    return texts
