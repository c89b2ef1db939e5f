"""Python regexes translated to JavaScript (:func:`js_regex`), and the code-point
ranges of character classes as the Python engine itself computes them.

Character classes (``\\p{L}``, ``\\s``, ``\\w``...) are expanded into explicit
code-point ranges computed by ``re`` or ``regex``, so the browser's Unicode version
cannot make them differ; possessive quantifiers become atomic groups (``X++`` is
``(?=(X+))\\1``); ``(?i:...)`` becomes classes of the case variants the engine
accepts (``s`` also matches ``ſ``); Python's ``$`` becomes ``(?=\\n?$)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import regex

_MAX_CP = 0x10FFFF


@lru_cache(maxsize=1)
def all_chars() -> str:
    """Every code point but the surrogates, as one string."""
    return "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, _MAX_CP + 1)))


def to_ranges(cps: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """Code points as sorted, merged ranges ``((first, last), ...)``."""
    out: list[list[int]] = []
    for c in sorted(set(cps)):
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return tuple((a, b) for a, b in out)


def _complement(ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out, nxt = [], 0
    for a, b in ranges:
        if a > nxt:
            out.append((nxt, a - 1))
        nxt = b + 1
    if nxt <= _MAX_CP:
        out.append((nxt, _MAX_CP))
    return tuple(out)


def _cp(c: int) -> str:
    return f"\\u{{{c:X}}}"


def _ranges_src(ranges: Sequence[tuple[int, int]]) -> str:
    return "".join(_cp(a) if a == b else f"{_cp(a)}-{_cp(b)}" for a, b in ranges)


def _engine(name: str) -> Any:
    return re if name == "re" else regex


@lru_cache(maxsize=None)
def engine_class(engine: str, pattern: str) -> tuple[tuple[int, int], ...]:
    """The code points that ``pattern`` (one character class) matches in ``engine``."""
    return to_ranges(map(ord, _engine(engine).findall(pattern, all_chars())))


@lru_cache(maxsize=None)
def _case_variants(engine: str, ch: str) -> tuple[int, ...]:
    mod = _engine(engine)
    found = mod.findall("(?i)" + mod.escape(ch), all_chars())
    return tuple(sorted({ord(c) for c in found} | {ord(ch)}))


class _Untranslatable(ValueError):
    pass


class _Translator:
    """A recursive-descent translator for the part of Python regex syntax that
    pre-tokenization patterns use. Anything else raises ``_Untranslatable``."""

    _ESC_CLASSES = {"s": r"\s", "w": r"\w", "d": r"\d"}
    _ESC_CHARS = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}

    def __init__(self, pattern: str, engine: str) -> None:
        self.p, self.i, self.engine = pattern, 0, engine
        self.classes: dict[str, str] = {}
        self.n_groups = 0

    # -- helpers --------------------------------------------------------------

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def take(self) -> str:
        c = self.peek()
        if not c:
            raise _Untranslatable("unexpected end of pattern")
        self.i += 1
        return c

    def fail(self, what: str) -> _Untranslatable:
        return _Untranslatable(f"{what} at position {self.i} of {self.p!r} has no JavaScript translation here")

    def named(self, key: str, ranges: Sequence[tuple[int, int]]) -> str:
        name = re.sub(r"\W", "_", f"{self.engine}_{key}")
        self.classes.setdefault(name, _ranges_src(ranges))
        return "{{" + name + "}}"

    def class_ref(self, letter: str, negated: bool) -> tuple[str, bool]:
        """A placeholder for \\s, \\w, \\d, \\p{X}; returns (placeholder, is_negated)."""
        ranges = engine_class(self.engine, self._ESC_CLASSES[letter] if letter in "swd" else letter)
        return self.named(letter if letter in "swd" else "p_" + letter[3:-1], ranges), negated

    def escape_atom(self) -> tuple[str, bool] | str:
        """After a backslash: ('class', negated) for class escapes, else a literal char."""
        c = self.take()
        if c in "swdSWD":
            return self.class_ref(c.lower(), c.isupper())
        if c in "pP":
            if self.take() != "{":
                raise self.fail("\\p without braces")
            j = self.p.index("}", self.i)
            name = self.p[self.i : j]
            self.i = j + 1
            return self.class_ref(f"\\p{{{name}}}", c == "P")
        if c in self._ESC_CHARS:
            return self._ESC_CHARS[c]
        if c == "x":
            h = self.p[self.i : self.i + 2]
            self.i += 2
            return chr(int(h, 16))
        if c == "u":
            h = self.p[self.i : self.i + 4]
            self.i += 4
            return chr(int(h, 16))
        if c.isalnum():
            raise self.fail(f"escape \\{c}")
        return c

    def literal(self, ch: str, ci: bool) -> str:
        if ci:
            variants = _case_variants(self.engine, ch)
            if len(variants) > 1:
                return "[" + "".join(_cp(v) for v in variants) + "]"
        return _cp(ord(ch))

    # -- grammar ----------------------------------------------------------------

    def translate(self) -> str:
        out = self.alternation(False)
        if self.i != len(self.p):
            raise self.fail("unbalanced ')'")
        # Number the capture groups of the atomic-group emulation in order of appearance.
        numbers: dict[str, int] = {}

        def number(m: re.Match[str]) -> str:
            if m.group(1) == "C":
                numbers[m.group(2)] = len(numbers) + 1
                return "(?=("
            return "\\" + str(numbers[m.group(2)])

        return re.sub(r"\x00([CB])(\d+)\x00", number, out)

    def alternation(self, ci: bool) -> str:
        parts = [self.sequence(ci)]
        while self.peek() == "|":
            self.i += 1
            parts.append(self.sequence(ci))
        return "|".join(parts)

    def sequence(self, ci: bool) -> str:
        items = []
        while self.peek() and self.peek() not in "|)":
            items.append(self.quantified(self.atom(ci)))
        return "".join(items)

    def atom(self, ci: bool) -> str:
        c = self.take()
        if c == "(":
            if self.peek() != "?":
                inner = self.alternation(ci)  # a capturing group: only whole matches matter
                head = "(?:"
            else:
                self.i += 1
                kind = self.take()
                if kind == ":":
                    head, sub_ci = "(?:", ci
                elif kind in "=!":
                    head, sub_ci = f"(?{kind}", ci
                elif kind == "<" and self.peek() in "=!":
                    head, sub_ci = f"(?<{self.take()}", ci
                elif kind == "i" and self.peek() == ":":
                    self.i += 1
                    head, sub_ci = "(?:", True
                else:
                    raise self.fail(f"group (?{kind}")
                inner = self.alternation(sub_ci)
            if self.take() != ")":
                raise self.fail("unclosed group")
            return head + inner + ")"
        if c == "[":
            return self.char_class(ci)
        if c == "\\":
            a = self.escape_atom()
            if isinstance(a, tuple):
                ph, neg = a
                return f"[^{ph}]" if neg else f"[{ph}]"
            return self.literal(a, ci)
        if c == ".":
            return "[^\\n]"
        if c == "^":
            return "^"
        if c == "$":
            return "(?=\\n?$)"  # Python: the end, or before a newline that ends the string
        if c in "*+?{":
            if c == "{" and not re.match(r"\d*(,\d*)?\}", self.p[self.i :]):
                return self.literal(c, ci)
            raise self.fail(f"quantifier {c!r} with nothing before it")
        return self.literal(c, ci)

    def char_class(self, ci: bool) -> str:
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        items: list[str] = []
        first = True
        while True:
            c = self.take()
            if c == "]" and not first:
                break
            first = False
            if c == "[":
                if self.peek() in ":=.":
                    raise self.fail("POSIX class or set operation")
                lo: str | None = c
            elif c == "\\":
                a = self.escape_atom()
                if isinstance(a, tuple):
                    ph, neg = a
                    if neg:
                        name = ph[2:-2]
                        comp = _complement(parse_ranges(self.classes[name]))
                        ph = self.named("not_" + name.split("_", 1)[1], comp)
                    items.append(ph)
                    continue
                lo = a
            else:
                lo = c
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                hi_c = self.take()
                hi = self.escape_atom() if hi_c == "\\" else hi_c
                if isinstance(hi, tuple):
                    raise self.fail("range ending in a class")
                if ci and ord(hi) - ord(lo) > 512:
                    raise self.fail("large range in a case-insensitive class")
                if ci:
                    cps = {v for x in range(ord(lo), ord(hi) + 1) for v in _case_variants(self.engine, chr(x))}
                    items.append(_ranges_src(to_ranges(cps)))
                else:
                    items.append(f"{_cp(ord(lo))}-{_cp(ord(hi))}")
            else:
                cps = _case_variants(self.engine, lo) if ci else (ord(lo),)
                items.append("".join(_cp(v) for v in cps))
        return ("[^" if negated else "[") + "".join(items) + "]"

    def quantified(self, atom: str) -> str:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            q = c
        elif c == "{":
            m = re.match(r"\{(\d*)(?:(,)(\d*))?\}", self.p[self.i :])
            if not m or (m.group(1) == "" and not m.group(2)):
                return atom
            self.i += m.end()
            lo_s, comma, hi_s = m.group(1), m.group(2), m.group(3)
            q = "{" + (lo_s or "0") + ("," + (hi_s or "") if comma else "") + "}"
        else:
            return atom
        nxt = self.peek()
        if nxt == "?":
            self.i += 1
            return atom + q + "?"
        if nxt == "+":
            # Possessive: an atomic group, emulated as a lookahead that captures, then
            # a backreference to what it captured (no backtracking into it).
            self.i += 1
            self.n_groups += 1
            g = self.n_groups
            return f"\x00C{g}\x00{atom}{q}))\x00B{g}\x00"
        return atom + q


def parse_ranges(src: str) -> tuple[tuple[int, int], ...]:
    """The ranges of a class body written by :func:`js_regex` (``\\u{41}-\\u{5A}...``)."""
    out = []
    for m in re.finditer(r"\\u\{([0-9A-F]+)\}(?:-\\u\{([0-9A-F]+)\})?", src):
        a = int(m.group(1), 16)
        out.append((a, int(m.group(2), 16) if m.group(2) else a))
    return tuple(out)


@lru_cache(maxsize=None)
def _js_regex_cached(pattern: str, engine: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    t = _Translator(pattern, engine)
    src = t.translate()
    return src, tuple(sorted(t.classes.items()))


def js_regex(pattern: str, engine: str = "regex") -> dict[str, Any]:
    """Translate a Python pattern (for the ``re`` or ``regex`` module) to JavaScript.

    Returns ``{"source": ..., "classes": {name: ranges}}``: the source refers to each
    character class as ``{{name}}``, to be substituted before ``new RegExp(source,
    "gu")``. Raises ``ValueError`` for syntax outside the supported subset (groups,
    alternation, classes, ``\\p{...}``, ``\\s \\w \\d``, greedy/lazy/possessive
    quantifiers, lookarounds, ``(?i:...)``, ``^``, ``$``).

    >>> js_regex(r"a++|$", "re")["source"]
    '(?=(\\\\u{61}+))\\\\1|(?=\\\\n?$)'
    """
    if engine not in ("re", "regex"):
        raise ValueError(f"engine must be 're' or 'regex', not {engine!r}")
    try:
        src, classes = _js_regex_cached(pattern, engine)
    except (_Untranslatable, IndexError, ValueError) as e:
        raise ValueError(f"cannot translate {pattern!r} to JavaScript: {e}") from None
    return {"source": src, "classes": dict(classes)}
