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

**Hidden tests** (:func:`hidden_test`) are written so that the reference never runs in
the student's process. A hidden test is a generator of cases, decorated; it imports the
course's reference inside its body, where the reference may run (the source notebooks
show it), and returns the reference's function with the cases::

    @hidden_test("encode_chars")
    def _():
        ref = ...                      # the reference's module, imported here
        return ref.encode_chars, [(("cab", {"a": 0, "b": 1, "c": 2}), {}), ...]

and what the decorator does depends on where the cell runs:

- **in the grading sandbox** (``TOKGRADE_CASES`` names the cases file the grader
  wrote): the generator is *not* called (the algorithms are not even importable there);
  the student's function runs on the cases from the file and the outcomes are displayed
  as one record of MIME type :data:`RECORD_MIME`, which the grader, outside the sandbox,
  compares with the reference's (``autograder/nbgrader_plugins.py``);
- **collected by the grader** (:func:`collect_hidden_tests`): only registered, so that the
  grader can generate the cases and the reference's outcomes in its own process;
- **anywhere else** (an instructor running the source notebook): everything runs here
  and the first difference raises :class:`AssertionError`, as the grader would report it.

Each mode compares through the same :func:`check_outcomes`, on values that went through
the same exact-typed JSON (:mod:`tokgrade.typed_json`). Standard library only: the sandbox
imports this module and :mod:`tokgrade.typed_json`, and nothing of the reference.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .typed_json import Opaque, from_json, to_json

__all__ = [
    "check_same",
    "hidden_test",
    "HiddenTest",
    "collect_hidden_tests",
    "run_cases",
    "check_outcomes",
    "RECORD_MIME",
    "CASES_ENV",
    "random_text",
    "random_texts",
    "random_prose",
    "random_corpus",
    "ASCII_LETTERS",
]

_SCALARS = (str, int, float, bool, bytes, type(None), Fraction)
_CONTAINERS = (list, tuple, dict, set, frozenset)
ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _short(x: Any, limit: int = 80) -> str:
    r = repr(x)
    return r if len(r) <= limit else r[: limit - 3] + "..."


class _NotPlain(Exception):
    def __init__(self, bad: Any) -> None:
        self.bad = bad


def _type_label(x: Any) -> str:
    """The type's name; for a value that crossed the sandbox as :class:`Opaque`, its own."""
    return x.type_name if type(x) is Opaque else type(x).__name__


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
            raise exc(f"{name}: {what} {_short(v)}{where} is a {_type_label(e.bad)}") from None
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
    ``int``, ``float``, ``bool``, ``bytes``, ``None``, ``Fraction``). Types must match
    exactly (no subclasses, no ``numpy.int64`` for ``int``); floats are compared with
    ``math.isclose``, fractions exactly; dict keys and set members must also have exact
    types before they are compared. The message names the first place that differs.
    """
    te, ta = type(expected), type(actual)
    if te not in _SCALARS and te not in _CONTAINERS:
        raise TypeError(f"check_same: expected value of type {te.__name__} is not plain data")
    if ta is not te:
        hint = ""
        numpy = actual.numpy if ta is Opaque else hasattr(actual, "item")
        if te is int and numpy:
            hint = " (a NumPy number? convert it with int(x))"
        elif te is float and numpy:
            hint = " (a NumPy number? convert it with float(x))"
        elif te is list and ta is tuple:
            hint = " (convert it with list(...))"
        raise AssertionError(
            f"{name}: expected a {te.__name__}, got a {_type_label(actual)}{hint}"
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


# ---------------------------------------------------------------------------
# Hidden tests: the student's code in the sandbox, the reference outside it
# ---------------------------------------------------------------------------

RECORD_MIME = "application/vnd.tokgrade.hidden-test+json"  # one record per hidden test run
CASES_ENV = "TOKGRADE_CASES"  # set by the grading sandbox: the cases file it wrote
RECORD_VERSION = 1

Case = tuple[tuple[Any, ...], dict[str, Any]]
# An outcome: ("value", v) or ("raised", (exception type names, most derived first), message)
Outcome = tuple[str, Any]


@dataclass(frozen=True)
class HiddenTest:
    """One hidden test: the student's function to call, and how to make its cases.

    ``generate()`` returns ``(reference, cases)``: the reference function and a list of
    ``(args, kwargs)``. ``time_limit=(seconds, factor)`` also fails a student whose calls
    take longer than ``max(seconds, factor * the reference's time)`` in all.
    """

    name: str
    function: str
    generate: Callable[[], tuple[Callable[..., Any], list[Case]]]
    time_limit: tuple[float, float] | None = None
    rel_tol: float = 1e-9
    abs_tol: float = 1e-12


_collecting: list[HiddenTest] | None = None  # set while collect_hidden_tests runs
_cases_file: dict[str, Any] | None = None  # the sandbox's cases, read once


def hidden_test(
    function: str,
    *,
    name: str | None = None,
    time_limit: tuple[float, float] | None = None,
    rel_tol: float = 1e-9,
    abs_tol: float = 1e-12,
) -> Callable[[Callable[[], tuple[Callable[..., Any], list[Case]]]], Any]:
    """Decorate the case generator of a hidden test of ``function`` (see the module docstring).

    ``function`` names the student's function in the notebook; ``name`` (default: the
    function's name) must be unique in the notebook.
    """
    if type(function) is not str or not function.isidentifier():
        raise TypeError(f"hidden_test needs the name of the student's function as a str, not {function!r}")

    def decorate(generate: Callable[[], tuple[Callable[..., Any], list[Case]]]) -> Any:
        test = HiddenTest(name or function, function, generate, time_limit, rel_tol, abs_tol)
        if _collecting is not None:
            _collecting.append(test)
            return generate
        caller = inspect.currentframe().f_back  # type: ignore[union-attr]
        namespace = caller.f_globals  # type: ignore[union-attr]  # the notebook's, where the function is
        if os.environ.get(CASES_ENV):
            _run_in_sandbox(test, namespace)
        else:
            _run_here(test, namespace)
        return generate

    return decorate


def collect_hidden_tests(code: str) -> list[HiddenTest]:
    """The hidden tests that ``code`` (a hidden-test section) declares, none of them run.

    >>> code = '''
    ... from tokgrade.grading import hidden_test
    ... @hidden_test("double")
    ... def _():
    ...     return (lambda x: 2 * x), [((1,), {}), ((2,), {})]
    ... '''
    >>> [t.name for t in collect_hidden_tests(code)]
    ['double']
    """
    global _collecting
    if _collecting is not None:
        raise RuntimeError("collect_hidden_tests is not reentrant")
    _collecting = []
    try:
        exec(compile(code, "<hidden tests>", "exec"), {"__name__": "__hidden_tests__"})
        return _collecting
    finally:
        _collecting = None


def _student_function(test: HiddenTest, namespace: dict[str, Any]) -> Callable[..., Any]:
    func = namespace.get(test.function)
    if func is None:
        raise NameError(f"name {test.function!r} is not defined: run the cell that defines it")
    return func


def run_cases(func: Callable[..., Any], cases: Sequence[Case]) -> tuple[list[Outcome], float]:
    """Call ``func`` on each case (each call gets its own deep copy of the arguments, so
    a function that changes its input cannot change the next case); return the outcomes
    and the seconds the calls took. An ``Exception`` is an outcome; anything else (a
    ``KeyboardInterrupt`` from a timeout) propagates."""
    outcomes: list[Outcome] = []
    seconds = 0.0
    for args, kwargs in cases:
        args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
        start = time.perf_counter()
        try:
            result = func(*args, **kwargs)
        except Exception as e:
            seconds += time.perf_counter() - start
            names = tuple(c.__name__ for c in type(e).__mro__ if c is not object)
            outcomes.append(("raised", (names, _safe_str(e))))
        else:
            seconds += time.perf_counter() - start
            outcomes.append(("value", result))
    return outcomes, seconds


def _safe_str(e: BaseException) -> str:
    try:
        return str(e)[:500]
    except Exception:
        return "?"


def outcomes_to_json(outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    return [{"value": to_json(v)} if kind == "value" else {"raised": list(v[0]), "message": v[1]}
            for kind, v in outcomes]


def outcomes_from_json(data: Any) -> list[Outcome]:
    """Outcomes read back from a record; ValueError if it is not one."""
    if type(data) is not list:
        raise ValueError("the outcomes of a record must be a list")
    out: list[Outcome] = []
    for item in data:
        if type(item) is dict and set(item) == {"value"}:
            out.append(("value", from_json(item["value"])))
        elif (type(item) is dict and set(item) == {"raised", "message"}
              and type(item["raised"]) is list and all(type(n) is str for n in item["raised"])
              and type(item["message"]) is str):
            out.append(("raised", (tuple(n[:80] for n in item["raised"][:50]), item["message"][:500])))
        else:
            raise ValueError("an outcome of a record is neither a value nor an exception")
    return out


def describe_call(function: str, case: Case, n: int) -> str:
    args, kwargs = case
    call = ", ".join([*map(_short, args), *(f"{k}={_short(v)}" for k, v in kwargs.items())])
    return f"{function}({call}) [case {n}]"


def check_outcomes(
    test: HiddenTest,
    cases: Sequence[Case],
    expected: Sequence[Outcome],
    actual: Sequence[Outcome],
    *,
    seconds: float | None = None,
    reference_seconds: float | None = None,
) -> None:
    """Raise AssertionError at the first case where ``actual`` is not ``expected``.

    A value must be the same in exact type and value (:func:`check_same`); where the
    reference raises, the student must raise the same type of exception (or a subclass).
    """
    if len(actual) != len(expected):
        raise AssertionError(f"{test.name}: {len(actual)} outcomes for {len(expected)} cases")
    for n, (case, (e_kind, e_val), (a_kind, a_val)) in enumerate(zip(cases, expected, actual)):
        call = describe_call(test.function, case, n)
        if e_kind == "raised":
            wanted = e_val[0][0]
            if a_kind == "raised" and wanted in a_val[0]:
                continue
            got = (f"it raised {a_val[0][0]}: {a_val[1]}" if a_kind == "raised"
                   else f"it returned {_short(a_val)}")
            raise AssertionError(f"{call}: must raise {wanted}, but {got}")
        if a_kind == "raised":
            raise AssertionError(f"{call}: expected {_short(e_val)}, but it raised {a_val[0][0]}: {a_val[1]}")
        check_same(a_val, e_val, name=call, rel_tol=test.rel_tol, abs_tol=test.abs_tol)
    if test.time_limit and seconds is not None and reference_seconds is not None:
        floor, factor = test.time_limit
        limit = max(floor, factor * reference_seconds)
        if seconds > limit:
            raise AssertionError(
                f"{test.name}: {test.function} took {seconds:.1f} s on {len(cases)} case(s); "
                f"the limit is {limit:.0f} s")


def _run_here(test: HiddenTest, namespace: dict[str, Any]) -> None:
    """Outside any grader: generate, run both, compare, in this process."""
    func = _student_function(test, namespace)
    reference, cases = test.generate()
    expected, reference_seconds = run_cases(reference, cases)
    actual, seconds = run_cases(func, cases)
    # The same round trip as the record's, so that what passes here passes when graded.
    actual = outcomes_from_json(json.loads(json.dumps(outcomes_to_json(actual))))
    check_outcomes(test, cases, expected, actual, seconds=seconds, reference_seconds=reference_seconds)


def cases_to_json(tests: dict[str, tuple[str, Sequence[Case]]]) -> dict[str, Any]:
    """The cases file the grader writes for the sandbox: ``{name: (function, cases)}``."""
    return {"version": RECORD_VERSION,
            "tests": {name: {"function": function, "cases": [[to_json(a), to_json(k)] for a, k in cases]}
                      for name, (function, cases) in tests.items()}}


def _sandbox_cases(test: HiddenTest) -> list[Case]:
    global _cases_file
    if _cases_file is None:
        with open(os.environ[CASES_ENV], encoding="utf-8") as f:
            _cases_file = json.load(f)["tests"]
    entry = _cases_file.get(test.name)
    if entry is None or entry["function"] != test.function:
        raise RuntimeError(f"the grader gave no cases for hidden test {test.name!r}")
    return [(from_json(a), from_json(k)) for a, k in entry["cases"]]


def _run_in_sandbox(test: HiddenTest, namespace: dict[str, Any]) -> None:
    """In the grading sandbox: run the student's function on the grader's cases and show
    the outcomes as one record; the grader compares them outside."""
    func = _student_function(test, namespace)
    cases = _sandbox_cases(test)
    outcomes, seconds = run_cases(func, cases)
    record = {"version": RECORD_VERSION, "test": test.name, "function": test.function,
              "outcomes": outcomes_to_json(outcomes), "seconds": seconds}
    from IPython.display import display  # only the grading kernel gets here

    summary = f"hidden test {test.name}: {len(cases)} cases run; the grader checks the results"
    display({RECORD_MIME: record, "text/plain": summary}, raw=True)


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
