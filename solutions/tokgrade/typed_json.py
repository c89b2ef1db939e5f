"""Plain Python data as JSON that keeps every exact type: how grading moves values across
the sandbox wall.

The hidden tests run the student's functions inside an OS sandbox and compare their
results outside it (``tokgrade.grading``, ``autograder/``). Between the two, values travel
as JSON, but JSON alone would blur what the tests check: a ``tuple`` would come back a
``list``, ``{(1, 2): 3}`` would not survive at all, and ``True`` could stand for ``1``.
So every value is written with its exact type:

>>> dumps_value([1, (2, "a"), {b"x": {3.5}}])
'[1, {"tuple": [2, "a"]}, {"dict": [[{"bytes": "78"}, {"set": [{"float": "0x1.c000000000000p+1"}]}]]}]'
>>> loads_value(dumps_value([1, (2, "a"), {b"x": {3.5}}]))
[1, (2, 'a'), {b'x': {3.5}}]

``list``, ``str``, ``int``, ``bool`` and ``None`` are written as themselves; every other
type (``float``, ``bytes``, ``tuple``, ``set``, ``frozenset``, ``dict``, ``Fraction``) is an
object with exactly one key naming it. A value that is not plain data (a
``Counter``, a NumPy number, an object whose ``__eq__`` lies, a subclass of ``str``) is
written as ``{"opaque": <type name>}`` and read back as an :class:`Opaque`, which equals
nothing but another ``Opaque``, so ``check_same`` reports "expected a dict, got a
Counter" instead of trusting it:

>>> loads_value(dumps_value(__import__("collections").Counter("ab")))
Opaque(type_name='Counter', numpy=False)

Reading is written for hostile input (a record from the sandbox is whatever the student's
code made it): sizes and depths are bounded, and anything that is not this format raises
:class:`ValueError`. Writing never fails: too deep or too large becomes opaque. Standard
library only, so the sandbox can import it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Opaque", "to_json", "from_json", "dumps_value", "loads_value", "MAX_DEPTH"]

MAX_DEPTH = 64  # nesting deeper than any result of the assignments
MAX_ITEMS = 5_000_000  # items in one value written (a result larger than this is not an answer)
MAX_TEXT = 256 * 2**20  # characters of JSON read


@dataclass(frozen=True)
class Opaque:
    """Stands for a value that was not plain data: only its type's name travels."""

    type_name: str
    numpy: bool = False  # it had ``.item()``, like a NumPy scalar (a hint for the message)


def _type_name(x: Any) -> str:
    try:
        name = type(x).__name__
    except Exception:  # a hostile metaclass
        name = "?"
    return name[:80] if type(name) is str else "?"


class _Budget:
    def __init__(self) -> None:
        self.items = 0


def _opaque(x: Any) -> dict:
    return {"opaque": _type_name(x), "numpy": hasattr(type(x), "item")}


def to_json(x: Any, _depth: int = 0, _budget: _Budget | None = None) -> Any:
    """``x`` as JSON-ready data that records exact types (see the module docstring)."""
    budget = _budget or _Budget()
    budget.items += 1
    if _depth > MAX_DEPTH or budget.items > MAX_ITEMS:
        return {"opaque": "too deep or too large"}
    t = type(x)
    if x is None or t is bool or t is int or t is str:
        return x
    if t is float:
        return {"float": x.hex()}
    if t is bytes:
        return {"bytes": x.hex()}
    if t is Fraction:
        return {"fraction": [x.numerator, x.denominator]}
    if t is list:
        return [to_json(v, _depth + 1, budget) for v in x]
    if t is tuple or t is set or t is frozenset:
        items = [to_json(v, _depth + 1, budget) for v in x]
        if t is not tuple:  # a canonical order, so equal sets are equal JSON
            items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return {t.__name__: items}
    if t is dict:
        return {"dict": [[to_json(k, _depth + 1, budget), to_json(v, _depth + 1, budget)]
                         for k, v in x.items()]}
    return _opaque(x)


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ValueError(f"not a typed-JSON value: {what}")


def from_json(data: Any, _depth: int = 0) -> Any:
    """The value that :func:`to_json` wrote; :class:`ValueError` for anything else."""
    _check(_depth <= MAX_DEPTH + 1, "nested too deeply")
    t = type(data)
    if data is None or t is bool or t is int or t is str:
        return data
    if t is list:
        return [from_json(v, _depth + 1) for v in data]
    _check(t is dict and (len(data) == 1 or set(data) == {"opaque", "numpy"}),
           f"unexpected {t.__name__}")
    kind = "opaque" if "opaque" in data else next(iter(data))
    value = data[kind]
    if kind == "float" and type(value) is str:
        try:
            return float.fromhex(value)
        except ValueError:
            _check(False, f"bad float {value[:20]!r}")
    if kind == "bytes" and type(value) is str:
        try:
            return bytes.fromhex(value)
        except ValueError:
            _check(False, "bad bytes")
    if kind == "fraction" and type(value) is list and len(value) == 2:
        num, den = value
        _check(type(num) is int and type(den) is int and den > 0, "bad fraction")
        return Fraction(num, den)
    if kind in ("tuple", "set", "frozenset") and type(value) is list:
        items = [from_json(v, _depth + 1) for v in value]
        if kind == "tuple":
            return tuple(items)
        try:
            return set(items) if kind == "set" else frozenset(items)
        except TypeError:
            _check(False, f"unhashable member of a {kind}")
    if kind == "dict" and type(value) is list:
        out = {}
        for pair in value:
            _check(type(pair) is list and len(pair) == 2, "a dict item is not a [key, value] pair")
            try:
                out[from_json(pair[0], _depth + 1)] = from_json(pair[1], _depth + 1)
            except TypeError:
                _check(False, "unhashable dict key")
        return out
    if kind == "opaque" and type(value) is str:
        numpy = data.get("numpy", False)
        return Opaque(value[:80], numpy if type(numpy) is bool else False)
    _check(False, f"unknown form {kind[:20] if type(kind) is str else kind!r}")


def dumps_value(x: Any) -> str:
    """``to_json`` as a compact JSON string (ASCII, so any text survives any channel)."""
    return json.dumps(to_json(x), allow_nan=False)


def loads_value(text: str) -> Any:
    """Read what :func:`dumps_value` wrote, refusing anything too large or malformed."""
    if type(text) is not str or len(text) > MAX_TEXT:
        raise ValueError(f"a typed-JSON text must be a str of at most {MAX_TEXT:,} characters")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("not a typed-JSON value: nested too deeply") from None
    return from_json(data)


def _no_constant(name: str) -> float:
    raise ValueError(f"not a typed-JSON value: bare {name} (floats are written as hex)")

