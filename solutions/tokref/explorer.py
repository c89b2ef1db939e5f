"""Interactive explorers: one object, two faces (a live widget and a static page).

Three explorers, each an object that Jupyter displays:

- :class:`MergeExplorer`: a slider over the merge steps of a BPE training run. At
  step *k* it shows the pair merged and its count, a sample text segmented as it is
  after *k* merges (the pieces made by merge *k* outlined), the pair counts when merge
  *k* was chosen, and tokens per character against the step.
- :class:`CompareExplorer`: one text box, several tokenizers side by side, with token
  and character counts, whitespace made visible (``␣ ⏎ ⇥``) and the bytes of a
  character that byte-level BPE splits shown as hex under the character.
- :class:`TradeoffExplorer`: a slider over the vocabulary size of real trained
  tokenizers: held-out sequence length, embedding parameters at a chosen width, and
  attention cost relative to characters.

**Two faces.** In a live notebook (JupyterLab, Notebook 7, VS Code) an explorer is an
``ipywidgets`` widget whose callbacks run Python. In a notebook executed without a
person at it (``jupyter-book``/``myst-nb``, ``nbconvert``, ``papermill``: they run
cells with ``allow_stdin=False``) it renders as self-contained HTML and vanilla
JavaScript with its data inlined: no kernel, no network, no library. The HTML face
does not create a single widget, so no widget state is saved into the notebook and no
widget manager is pulled into the book from a CDN. ``set_mode("static")`` or
``set_mode("widget")`` (or the environment variable ``TOKREF_EXPLORER``) overrides the
choice; ``.widget()`` and ``.to_html()`` give either face explicitly, and
``.save_html(path)`` writes a page that works from any static host or from disk.

**The protocol.** The explorers take any object with the methods below, so they work
with a student's own tokenizer as well as with tokref's:

.. code-block:: python

    class SupportsTokenize(Protocol):          # CompareExplorer
        def encode(self, text: str) -> list[int]: ...
        def decode(self, ids: list[int]) -> str: ...
        def id_to_token(self, id: int) -> str: ...

    class SupportsMergeTrace(SupportsTokenize, Protocol):   # MergeExplorer, TradeoffExplorer
        trace: Sequence[MergeStepLike]      # merge k: .pair (two ids), .count, .new_id

Optional extras, used when present: ``encode_with_offsets(text)`` (tokens with
``.id``, ``.start``, ``.end``: character spans), ``decode_single_token_bytes(id)``
(byte spans, for byte-level tokenizers), ``unk_id`` and ``vocab_size``.

What each explorer does with an object depends on what it knows about it:

- tokref's ``CharTokenizer``, ``WordTokenizer``, ``BPETokenizer``,
  ``ByteLevelBPETokenizer``, ``WordPieceTokenizer`` and ``UnigramTokenizer`` have a
  JavaScript twin of their encoder (char: the vocabulary; word: the regex and the
  vocabulary; BPE: the merges; byte-level BPE: the merges and the pre-tokenization
  regex; WordPiece: the vocabulary and Hugging Face's Unicode tables; Unigram: the
  pieces and their scores), so the static comparison re-tokenizes whatever is typed.
  Any other object is encoded in Python for a fixed list of sample texts, and the
  static page says so when other text is typed.
- WordPiece is shown without ``[CLS]``/``[SEP]`` (its ``encode_with_offsets``), so
  that tokens per character compare with the other tokenizers. Its twin gets every
  Unicode table from Python (what cleaning removes, whitespace, CJK, punctuation; with
  ``lowercase`` tokref's per-character lowercasing of every character it changes; with
  ``strip_accents`` the NFD of every decomposing character, the combining classes and
  the non-spacing marks), never from the browser. Unigram's twin runs Viterbi with
  tokref's tie rule, adding the float64 scores in the same order. For NFKC it cuts the
  text into segments that normalize independently (tables from Python) and normalizes
  each with the browser's ``normalize("NFKC")``, which by Unicode's normalization
  stability gives Python's answer on characters assigned in Python's Unicode version;
  unassigned ones are left alone, as Python does, and a browser whose Unicode is older
  than Python's is detected and the card says it cannot run. The spans drawn for
  Unigram are those NFKC segments (tokref's ``encode_with_offsets`` uses grapheme
  clusters, which a browser does not segment as the ``regex`` module does); the ids are
  tokref's.
- For tokref's two BPE tokenizers the merge explorer computes the segmentation after
  *k* merges the way tokref encodes with the first *k* merges (rank order for
  character BPE, tiktoken's rule for byte-level BPE). For any other traced object it
  encodes the sample once and undoes merges from the trace (merge *r* makes
  ``new_id`` from ``pair``): after *k* merges a token made by merge *r* ≥ *k* is
  shown as its two parts. That is exact for BPE that applies merges in rank order.
- The pair counts at each step are counted over ``corpus`` (the training corpus gives
  the exact counts training saw: the merged pair is then always the top row) by
  replaying the merges with incremental counts; without a corpus, over the sample.

**JavaScript regexes.** Pre-tokenization patterns are translated from Python syntax
to JavaScript by :func:`js_regex`: character classes (``\\p{L}``, ``\\s``, ``\\w``...) are
expanded into explicit code-point ranges computed by the Python engine itself (``re``
or ``regex``), so the browser's Unicode version cannot make them differ; possessive
quantifiers become atomic groups (``X++`` is ``(?=(X+))\\1``); ``(?i:...)`` becomes
classes of the case variants the engine accepts (``s`` also matches ``ſ``); Python's
``$`` becomes ``(?=\\n?$)``.
"""

from __future__ import annotations

import hashlib
import heapq
import html
import itertools
import json
import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import regex

# The tie rule of tokref.merges (the lexicographically greatest pair wins), as a heap key.
from .merges import PairCounts
from .merges import _Desc as _DescKey

__all__ = [
    "SupportsTokenize",
    "SupportsMergeTrace",
    "MergeStepLike",
    "MergeExplorer",
    "CompareExplorer",
    "TradeoffExplorer",
    "js_regex",
    "set_mode",
    "DEFAULT_SAMPLES",
]


# ---------------------------------------------------------------------------
# The protocol
# ---------------------------------------------------------------------------


class MergeStepLike(Protocol):
    """One merge of a training run: ``pair`` (two ids) became ``new_id``; the pair
    occurred ``count`` times when it was chosen (:class:`tokref.merges.MergeStep`)."""

    @property
    def pair(self) -> tuple[int, int]: ...

    @property
    def count(self) -> int: ...

    @property
    def new_id(self) -> int: ...


@runtime_checkable
class SupportsTokenize(Protocol):
    """What :class:`CompareExplorer` needs."""

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: list[int]) -> str: ...

    def id_to_token(self, id: int) -> str: ...


@runtime_checkable
class SupportsMergeTrace(SupportsTokenize, Protocol):
    """What :class:`MergeExplorer` needs: a tokenizer and the trace of its merges, in order."""

    trace: Sequence[MergeStepLike] | None


def _check_tokenizer(tok: object, *, name: str = "tokenizer", trace: bool = False) -> None:
    if isinstance(tok, type):
        raise TypeError(f"{name} must be a trained tokenizer object, not the class {tok.__name__}")
    missing = [m for m in ("encode", "decode", "id_to_token") if not callable(getattr(tok, m, None))]
    if missing:
        raise TypeError(
            f"{name} ({type(tok).__name__}) lacks {', '.join(m + '()' for m in missing)}; an explorer "
            "needs encode(text) -> list[int], decode(ids) -> str and id_to_token(id) -> str "
            "(see tokref.explorer.SupportsTokenize)"
        )
    if trace:
        steps = getattr(tok, "trace", None)
        if steps is None:
            raise TypeError(
                f"{name} ({type(tok).__name__}) has no merge trace; train it with trace=True, or give "
                "it a .trace attribute: a list of steps with .pair (two ids), .count and .new_id"
            )
        for i, s in enumerate(itertools.islice(steps, 3)):
            if not all(hasattr(s, a) for a in ("pair", "count", "new_id")):
                raise TypeError(f"{name}.trace[{i}] lacks .pair, .count or .new_id: {s!r}")


# ---------------------------------------------------------------------------
# Which face: live widget or static HTML
# ---------------------------------------------------------------------------

_MODES = ("auto", "widget", "static")
_mode = os.environ.get("TOKREF_EXPLORER", "auto")


def set_mode(mode: str) -> None:
    """``"widget"`` (always an ipywidget), ``"static"`` (always HTML + JavaScript) or
    ``"auto"`` (a widget in a live notebook, HTML when the notebook is executed
    headless, as when the book is built)."""
    global _mode
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, not {mode!r}")
    _mode = mode


def _live_widgets() -> bool:
    mode = _mode if _mode in _MODES else "auto"
    if mode != "auto":
        return mode == "widget"
    try:
        from IPython import get_ipython

        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    kernel = getattr(get_ipython(), "kernel", None)
    # A person's frontend (JupyterLab, Notebook, VS Code, Colab) executes with
    # allow_stdin=True; nbclient (myst-nb, nbconvert, papermill) with False.
    return bool(kernel is not None and getattr(kernel, "_allow_stdin", False))


class _Explorer:
    """The two faces shared by every explorer."""

    kind = ""
    data: dict[str, Any]

    def to_html(self) -> str:
        """The static face: HTML with the data and the JavaScript inlined."""
        return _fragment(self.kind, self.data, self._prerender())

    def save_html(self, path: str | os.PathLike[str]) -> None:
        """Write a standalone page (works from disk, needs no server, no network)."""
        title = html.escape(self.data.get("title") or "tokref explorer")
        page = (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title>"
            "</head><body style=\"max-width:900px;margin:2em auto;padding:0 1em\">"
            f"{self.to_html()}</body></html>\n"
        )
        Path(path).write_text(page, encoding="utf-8")

    def widget(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _prerender(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": repr(self)}
        if _live_widgets():
            w = self.widget()
            bundle.update(w._repr_mimebundle_(include=include, exclude=exclude) or {})
            bundle["text/plain"] = repr(self)
        else:
            bundle["text/html"] = self.to_html()
        return bundle


# ---------------------------------------------------------------------------
# Static assets and the HTML fragment
# ---------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    return (resources.files("tokref") / "explorer_static" / name).read_text(encoding="utf-8")


_counter = itertools.count()


def _json_for_script(data: Any) -> str:
    # "<" escaped as \u003c: valid JSON, and nothing in it can close the <script>.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _fragment(kind: str, data: dict[str, Any], prerendered: str) -> str:
    payload = _json_for_script(data)
    digest = hashlib.sha1(payload.encode("utf-8")).hexdigest()[:10]
    uid = f"tokx-{kind}-{digest}-{next(_counter)}"
    return (
        f"<style>{_asset('tokx.css')}</style>\n"
        f'<div class="tokx tokx-{kind}" id="{uid}" data-tokx="{kind}">{prerendered}</div>\n'
        f'<script type="application/json" id="{uid}-data">{payload}</script>\n'
        f"<script>{_asset('tokx.js')}</script>\n"
        f'<script>window.TokX && window.TokX.mount("{uid}");</script>\n'
    )


# ---------------------------------------------------------------------------
# Python regex -> JavaScript regex
# ---------------------------------------------------------------------------

_MAX_CP = 0x10FFFF


@lru_cache(maxsize=1)
def _all_chars() -> str:
    return "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, _MAX_CP + 1)))


def _to_ranges(cps: Iterable[int]) -> tuple[tuple[int, int], ...]:
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
def _engine_class(engine: str, pattern: str) -> tuple[tuple[int, int], ...]:
    """The code points that ``pattern`` (one character class) matches in ``engine``."""
    return _to_ranges(map(ord, _engine(engine).findall(pattern, _all_chars())))


@lru_cache(maxsize=None)
def _case_variants(engine: str, ch: str) -> tuple[int, ...]:
    mod = _engine(engine)
    found = mod.findall("(?i)" + mod.escape(ch), _all_chars())
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
        ranges = _engine_class(self.engine, self._ESC_CLASSES[letter] if letter in "swd" else letter)
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
                        comp = _complement(_parse_ranges(self.classes[name]))
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
                    items.append(_ranges_src(_to_ranges(cps)))
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


def _parse_ranges(src: str) -> tuple[tuple[int, int], ...]:
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


# ---------------------------------------------------------------------------
# Token views: what the renderers draw
# ---------------------------------------------------------------------------
#
# A view is {"mode": m, "toks": [[id, start, end, flags], ...]} over a text:
#   mode "chars":  start/end are code-point offsets into the text (tokref's offsets);
#   mode "bytes":  start/end are byte offsets into its UTF-8 encoding;
#   mode "pieces": no offsets; start is the token's position, the label is drawn.
# flags: 1 = made by the merge just taken (merge explorer), 2 = the unknown token.

NEW, UNK = 1, 2


def _tokref_types() -> dict[str, type]:
    from .bpe import BPETokenizer
    from .bytelevel import ByteLevelBPETokenizer
    from .char import CharTokenizer
    from .word import WordTokenizer

    return {"char": CharTokenizer, "word": WordTokenizer, "bpe": BPETokenizer,
            "bytelevel": ByteLevelBPETokenizer}


def _native_kind(tok: object) -> str | None:
    """tokref's own classes (exactly: a subclass may have changed the algorithm)."""
    for kind, cls in _tokref_types().items():
        if type(tok) is cls:
            return kind
    return None


def _twin_kind(tok: object) -> str | None:
    """tokref's classes that have a JavaScript twin in the comparison explorer (exactly:
    a subclass may have changed the algorithm)."""
    kind = _native_kind(tok)
    if kind is not None:
        return kind
    from .unigram import UnigramTokenizer
    from .wordpiece import WordPieceTokenizer

    if type(tok) is WordPieceTokenizer:
        return "wordpiece"
    if type(tok) is UnigramTokenizer:
        return "unigram"
    return None


def _unk_id(tok: object) -> int | None:
    try:
        u = getattr(tok, "unk_id", None)
    except Exception:  # noqa: BLE001 - a student's property may raise anything
        return None
    return u if isinstance(u, int) and not isinstance(u, bool) else None


def _label(tok: object, i: int) -> str:
    try:
        return str(tok.id_to_token(i))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        return f"#{i}"


def _encode_plain(tok: object, text: str) -> list[int]:
    if _native_kind(tok) == "bytelevel":
        return tok.encode(text, disallowed_special=())  # type: ignore[attr-defined]
    return list(tok.encode(text))  # type: ignore[attr-defined]


def _view(tok: object, text: str) -> dict[str, Any]:
    """The tokens of ``text`` with the best offsets ``tok`` can give."""
    unk = _unk_id(tok)
    kind = _native_kind(tok)
    single = getattr(tok, "decode_single_token_bytes", None)
    if kind == "bytelevel" or (kind is None and callable(single)):
        ids = _encode_plain(tok, text)
        try:
            lens = [len(single(i)) for i in ids]  # type: ignore[misc]
        except Exception:  # noqa: BLE001
            lens = None
        if lens is not None and sum(lens) == len(text.encode("utf-8")):
            toks, pos = [], 0
            for i, n in zip(ids, lens):
                toks.append([i, pos, pos + n, UNK if i == unk else 0])
                pos += n
            return {"mode": "bytes", "toks": toks}
    if _twin_kind(tok) == "unigram":
        return _unigram_view(tok, text)
    with_offsets = getattr(tok, "encode_with_offsets", None)
    if callable(with_offsets):
        try:
            if kind == "bytelevel":
                ts = with_offsets(text, disallowed_special=())
            else:
                ts = with_offsets(text)
            toks = [[int(t.id), int(t.start), int(t.end), UNK if t.id == unk else 0] for t in ts]
            return {"mode": "chars", "toks": toks}
        except Exception:  # noqa: BLE001 - fall back to pieces
            pass
    ids = _encode_plain(tok, text)
    return {"mode": "pieces", "toks": [[i, k, k + 1, UNK if i == unk else 0] for k, i in enumerate(ids)]}


# ---------------------------------------------------------------------------
# Segmentation after k merges
# ---------------------------------------------------------------------------


def _tiktoken_parts_upto(piece: bytes, ranks: Mapping[bytes, int], limit: int) -> list[bytes]:
    """tokref.bytelevel.bpe_encode_piece with only the ranks below ``limit``, as bytes."""
    from .bytelevel import _bpe_parts

    whole = ranks.get(piece)
    if whole is not None and whole < limit:
        return [piece]
    return _bpe_parts(piece, ranks, max_rank=limit)


def _states_to_nodes(states: list[tuple[int, list[tuple[int, int, int]]]], n_steps: int) -> list[list[int]]:
    """[(first step, tokens (id, start, end)), ...] -> nodes [id, start, end, birth, death]."""
    nodes: list[list[int]] = []
    open_: dict[tuple[int, int, int], int] = {}
    for k, toks in states:
        now = set(toks)
        for t in [t for t in open_ if t not in now]:
            nodes.append([*t, open_.pop(t), k])
        for t in toks:
            if t not in open_:
                open_[t] = k
    for t, b in open_.items():
        nodes.append([*t, b, n_steps + 1])
    return nodes


def _bpe_sample_nodes(tok: Any, text: str, n_steps: int) -> list[list[int]]:
    from .bpe import EOW, apply_merges

    merges = tok.merges
    ranks = {m: r for r, m in enumerate(merges)}
    by_concat: dict[str, list[int]] = defaultdict(list)
    for r, (a, b) in enumerate(merges[:n_steps]):
        by_concat[a + b].append(r)
    ids, unk = tok._ids, tok._ids.get("<unk>")
    nodes: list[list[int]] = []
    pos = 0
    for word in text.split():
        start = text.index(word, pos)
        pos = start + len(word)
        s = word + EOW
        cands = sorted({r for i in range(len(s)) for j in range(i + 2, len(s) + 1) for r in by_concat.get(s[i:j], ())})
        states = []
        for k in [0, *(c + 1 for c in cands)]:
            pieces = apply_merges([*word, EOW], ranks, max_rank=k)
            toks, off = [], start
            for p in pieces:
                i = ids.get(p)
                if i is None:
                    i = unk if unk is not None else -1
                n = 1 if (i == unk or i == -1) else len(p.removesuffix(EOW))
                toks.append((i, off, min(off + n, pos)))
                off += n
            if not states or states[-1][1] != toks:
                states.append((k, toks))
        nodes += _states_to_nodes(states, n_steps)
    return nodes


def _bytelevel_sample_nodes(tok: Any, text: str, n_steps: int) -> list[list[int]]:
    ranks = tok._ranks
    nodes: list[list[int]] = []
    byte_pos = 0
    char_pos = 0
    for m in tok._pat.finditer(text):
        byte_pos += len(text[char_pos : m.start()].encode("utf-8"))
        piece = m.group().encode("utf-8")
        char_pos = m.end()
        cands = sorted({
            r for i in range(len(piece)) for j in range(i + 2, len(piece) + 1)
            if (r := ranks.get(piece[i:j])) is not None and 256 <= r < 256 + n_steps
        })
        states = []
        for k in [0, *(c - 255 for c in cands)]:
            parts = _tiktoken_parts_upto(piece, ranks, 256 + k)
            toks, off = [], byte_pos
            for p in parts:
                toks.append((ranks[p], off, off + len(p)))
                off += len(p)
            if not states or states[-1][1] != toks:
                states.append((k, toks))
        nodes += _states_to_nodes(states, n_steps)
        byte_pos += len(piece)
    return nodes


def _trace_index(trace: Sequence[Any]) -> dict[int, tuple[int, tuple[int, int]]]:
    index: dict[int, tuple[int, tuple[int, int]]] = {}
    for r, s in enumerate(trace):
        index.setdefault(int(s.new_id), (r, (int(s.pair[0]), int(s.pair[1]))))
    return index


def _tree_nodes(ids: Sequence[int], index: Mapping[int, tuple[int, tuple[int, int]]], n_steps: int,
                lengths: Callable[[int], int] | None) -> list[list[int]]:
    """Undo merges: every token of the full encoding as the tree of merges that made it.

    A node made by merge r is alive for steps r+1 up to its parent's merge; leaves
    from step 0. Returns nodes [id, start, end, birth, death, root] with offsets in
    leaves (``lengths is None``) or in the units of ``lengths(id)``; ``root`` is the
    position of the final token the node belongs to.
    """
    nodes: list[list[int]] = []
    pos = 0

    def walk(i: int, death: int, below: float, root: int) -> tuple[int, int]:
        nonlocal pos
        entry = index.get(i)
        if entry is None or entry[0] >= below:  # a leaf (or a trace that loops)
            n = lengths(i) if lengths is not None else 1
            s = pos
            pos += n
            nodes.append([i, s, pos, 0, death, root])
            return s, pos
        r, (a, b) = entry
        birth = r + 1
        s, _ = walk(a, min(death, birth), r, root)
        _, e = walk(b, min(death, birth), r, root)
        if birth < death:
            nodes.append([i, s, e, birth, death, root])
        return s, e

    for root, top in enumerate(ids):
        walk(int(top), n_steps + 1, math.inf, root)
    return nodes


def _sort_nodes(nodes: list[list[int]]) -> list[list[int]]:
    return sorted(nodes, key=lambda n: (n[1], n[2], n[3]))


def _counts_per_step(nodes: Sequence[Sequence[int]], n_steps: int) -> list[int]:
    diff = [0] * (n_steps + 2)
    for n in nodes:
        b, d = n[3], min(n[4], n_steps + 1)
        if b <= n_steps:
            diff[b] += 1
            diff[d] -= 1
    out, run = [], 0
    for k in range(n_steps + 1):
        run += diff[k]
        out.append(run)
    return out


# ---------------------------------------------------------------------------
# Pair counts at every step: replay the merges over a corpus
# ---------------------------------------------------------------------------


def _replay_counts(
    words: Mapping[tuple[int, ...], int],
    merges: Sequence[tuple[int, int, int]],
    key: Callable[[int], Any],
    top_n: int,
) -> tuple[list[list[int]], list[int]]:
    """Apply ``merges`` (a, b -> new) in order to ``words`` (id tuple -> count).

    Returns, for every step k, the ``top_n`` pairs by count when merge k was taken
    (ties broken as in training) as a flat [a, b, count, ...] list, and the total
    number of tokens after k merges (k = 0..len(merges)).
    """
    index = PairCounts(words)
    pair_counts = index.counts
    heap = [(-c, _DescKey((key(p[0]), key(p[1]))), p) for p, c in pair_counts.items()]
    heapq.heapify(heap)
    tops: list[list[int]] = []
    totals = [index.n_symbols]
    for a, b, new_id in merges:
        found: list[tuple[int, _DescKey, tuple[int, int]]] = []
        seen: set[tuple[int, int]] = set()
        while heap and len(found) < top_n:
            entry = heapq.heappop(heap)
            neg, _, p = entry
            if pair_counts.get(p, 0) != -neg or p in seen:
                continue  # stale
            seen.add(p)
            found.append(entry)
        for entry in found:
            heapq.heappush(heap, entry)
        tops.append([x for _, _, p in found for x in (p[0], p[1], pair_counts[p])])
        for p, c in index.merge((a, b), new_id).items():
            if c > 0:
                heapq.heappush(heap, (-c, _DescKey((key(p[0]), key(p[1]))), p))
        totals.append(index.n_symbols)
    return tops, totals


def _generic_tops(nodes: Sequence[Sequence[int]], n_steps: int, top_n: int,
                  label: Callable[[int], str]) -> list[list[int]]:
    """Top pairs of adjacent tokens inside each final token of the sample, at each step."""
    by_root: dict[int, list[Sequence[int]]] = defaultdict(list)
    changes: dict[int, set[int]] = defaultdict(set)
    for n in nodes:
        by_root[n[5]].append(n)
        if n[3] <= n_steps:
            changes[n[3]].add(n[5])
        if n[4] <= n_steps:
            changes[n[4]].add(n[5])
    per_root: dict[int, Counter[tuple[int, int]]] = {}
    total: Counter[tuple[int, int]] = Counter()
    tops: list[list[int]] = []
    current: list[int] = []
    for k in range(n_steps):
        roots = set(by_root) if k == 0 else changes.get(k, set())
        if roots:
            for r in roots:
                if r in per_root:
                    total.subtract(per_root[r])
                alive = sorted((n for n in by_root[r] if n[3] <= k < n[4]), key=lambda n: n[1])
                c = Counter((a[0], b[0]) for a, b in zip(alive, alive[1:]))
                per_root[r] = c
                total.update(c)
            best = heapq.nsmallest(
                top_n, ((p, c) for p, c in total.items() if c > 0),
                key=lambda pc: (-pc[1], _DescKey((label(pc[0][0]), label(pc[0][1])))),
            )
            current = [x for (a, b), c in best for x in (a, b, c)]
        tops.append(current)
    return tops


def _tree_totals(id_counts: Mapping[int, int], index: Mapping[int, tuple[int, tuple[int, int]]],
                 n_steps: int) -> list[int]:
    """Total tokens after k merges, k = 0..n_steps, of texts whose full encoding has
    ``id_counts``, by undoing merges (exact for BPE that applies merges in rank order)."""
    diff = [0] * (n_steps + 2)
    for top, freq in id_counts.items():
        for n in _tree_nodes([top], index, n_steps, None):
            if n[3] <= n_steps:
                diff[n[3]] += freq
                diff[min(n[4], n_steps + 1)] -= freq
    out, run = [], 0
    for k in range(n_steps + 1):
        run += diff[k]
        out.append(run)
    return out


def _bpe_prefix_totals(tok: Any, texts: Sequence[str], n_steps: int) -> list[int]:
    """Tokens of ``texts`` with the first k merges of a BPETokenizer, for every k.

    Encoding applies merges in rank order and every merge it makes has a higher rank
    than the one before, so the encoding with k merges is the full encoding stopped
    before the first merge of rank >= k: one pass over the distinct words gives all k.
    """
    from .bpe import EOW, word_counts

    ranks = {m: r for r, m in enumerate(tok.merges)}
    diff = [0] * (n_steps + 1)
    total = 0
    for word, c in word_counts(texts).items():
        w = [*word, EOW]
        total += c * len(w)
        while len(w) > 1:
            best, bi = n_steps, -1
            for i in range(len(w) - 1):
                r = ranks.get((w[i], w[i + 1]))
                if r is not None and r < best:
                    best, bi = r, i
            if bi < 0:
                break
            a, b = w[bi], w[bi + 1]
            out: list[str] = []
            i = merged = 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                    merged += 1
                else:
                    out.append(w[i])
                    i += 1
            w = out
            diff[best] += c * merged
    totals = [total]
    for k in range(n_steps):
        totals.append(totals[-1] - diff[k])
    return totals


# ---------------------------------------------------------------------------
# Python renderers: the widget face, and what the page shows before JavaScript runs.
# They draw the same markup as tokx.js.
# ---------------------------------------------------------------------------

_WS = {" ": "␣", "\t": "⇥", "\n": "⏎", "\r": "␍"}
_OTHER_WS = frozenset("\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B)))


def _vis(s: str) -> str:
    out = []
    for ch in s:
        g = _WS.get(ch) or ("·" if ch in _OTHER_WS else None)
        if g is None:
            out.append(html.escape(ch))
        else:
            out.append(f'<span class="tokx-ws">{g}</span>' + ("<br>" if ch == "\n" else ""))
    return "".join(out)


def _hue(i: int) -> str:
    return f"{(i * 137.508) % 360:.1f}"


def _attr(s: str) -> str:
    return html.escape(s, quote=True)


def _tok_open(t: Sequence[int], idx: int, label: str, tag: str = "span") -> str:
    cls = "tokx-t" + (" tokx-new" if t[3] & NEW else "") + (" tokx-unk" if t[3] & UNK else "")
    title = _attr(f"id {t[0]} · {json.dumps(label, ensure_ascii=False)}")
    return f'<{tag} class="{cls}" style="--h:{_hue(t[0])}" data-t="{idx}" data-id="{t[0]}" title="{title}">'


def _pill(i: int, label: str, extra: str = "") -> str:
    return f'<span class="tokx-t tokx-pill{extra}" style="--h:{_hue(i)}" title="id {i}">{_vis(label)}</span>'


def _render_view(view: Mapping[str, Any], text: str, label: Callable[[int], str], show_ids: bool = False) -> str:
    toks, mode = view["toks"], view["mode"]
    parts: list[str] = []
    badge = (lambda i: f'<span class="tokx-id">{i}</span>') if show_ids else (lambda i: "")
    if mode == "chars":
        pos = 0
        idx = 0
        while idx < len(toks):
            t = toks[idx]
            if t[1] > pos:
                parts.append(f'<span class="tokx-gap">{_vis(text[pos:t[1]])}</span><wbr>')
            # Several tokens with one and the same span (byte fallback: <0xC3> <0xA9>):
            # the characters once, the tokens as boxes underneath.
            j = idx + 1
            while j < len(toks) and t[2] > t[1] and toks[j][1] == t[1] and toks[j][2] == t[2]:
                j += 1
            if j - idx > 1:
                boxes = []
                for m in range(idx, j):
                    u = toks[m]
                    lab = label(u[0])
                    hx = re.fullmatch(r"<0x([0-9A-Fa-f]{2})>", lab)
                    cls = "tokx-b" + (" tokx-new" if u[3] & NEW else "")
                    title = _attr(f"id {u[0]} · {json.dumps(lab, ensure_ascii=False)}")
                    boxes.append(f'<span class="{cls}" style="--h:{_hue(u[0])}" data-t="{m}" data-id="{u[0]}" '
                                 f'title="{title}">{hx.group(1).upper() if hx else _vis(lab)}{badge(u[0])}</span>')
                chars = text[t[1]:t[2]]
                title = _attr(f"{json.dumps(chars, ensure_ascii=False)} is {j - idx} tokens")
                parts.append(f'<span class="tokx-split" title="{title}"><span class="tokx-split-ch">{html.escape(chars)}'
                             f'</span><span class="tokx-split-bytes">{"".join(boxes)}</span></span><wbr>')
                pos = max(pos, t[2])
                idx = j
                continue
            piece = label(t[0])
            txt = text[t[1]:t[2]]
            sfx = ""
            if piece != txt and not t[3] & UNK and piece.startswith(txt):
                sfx = f'<span class="tokx-sfx">{html.escape(piece[len(txt):])}</span>'
            parts.append(_tok_open(t, idx, piece) + _vis(txt) + sfx + badge(t[0]) + "</span><wbr>")
            pos = max(pos, t[2])
            idx += 1
        if pos < len(text):
            parts.append(f'<span class="tokx-gap">{_vis(text[pos:])}</span>')
    elif mode == "bytes":
        cp_bytes = [c.encode("utf-8") for c in text]
        starts, nb = [], 0
        for b in cp_bytes:
            starts.append(nb)
            nb += len(b)
        owner = [-1] * nb
        for idx, t in enumerate(toks):
            for b in range(t[1], min(t[2], nb)):
                owner[b] = idx
        last_byte = {}  # token index -> its last byte
        for b, o in enumerate(owner):
            if o >= 0:
                last_byte[o] = b
        run_idx, run_text, run_end = -2, "", 0

        def close() -> None:
            nonlocal run_idx, run_text
            if run_idx == -1:
                parts.append(f'<span class="tokx-gap">{_vis(run_text)}</span><wbr>')
            elif run_idx >= 0:
                t = toks[run_idx]
                ends = last_byte.get(run_idx) == run_end - 1
                parts.append(_tok_open(t, run_idx, label(t[0])) + _vis(run_text)
                             + (badge(t[0]) if ends else "") + "</span><wbr>")
            run_idx, run_text = -2, ""

        for ci, ch in enumerate(text):
            b0, n = starts[ci], len(cp_bytes[ci])
            o = owner[b0]
            if all(owner[b] == o for b in range(b0, b0 + n)):
                if o != run_idx:
                    close()
                    run_idx = o
                run_text += ch
                run_end = b0 + n
                continue
            close()
            boxes, ids = [], []
            for b in range(b0, b0 + n):
                oi = owner[b]
                hx = f"{cp_bytes[ci][b - b0]:02X}"
                if oi < 0:
                    boxes.append(f'<span class="tokx-b">{hx}</span>')
                    continue
                t = toks[oi]
                if t[0] not in ids:
                    ids.append(t[0])
                cls = "tokx-b" + (" tokx-new" if t[3] & NEW else "")
                title = _attr(f"byte 0x{hx} of id {t[0]} · {json.dumps(label(t[0]), ensure_ascii=False)}")
                boxes.append(f'<span class="{cls}" style="--h:{_hue(t[0])}" data-t="{oi}" data-id="{t[0]}" title="{title}">{hx}'
                             f'{badge(t[0]) if last_byte.get(oi) == b else ""}</span>')
            title = _attr(f"{json.dumps(ch, ensure_ascii=False)} = {n} UTF-8 bytes, split between ids {', '.join(map(str, ids))}")
            parts.append(f'<span class="tokx-split" title="{title}"><span class="tokx-split-ch">{html.escape(ch)}</span>'
                         f'<span class="tokx-split-bytes">{"".join(boxes)}</span></span><wbr>')
        close()
    else:
        for idx, t in enumerate(toks):
            parts.append(_tok_open(t, idx, label(t[0])) + _vis(label(t[0])) + badge(t[0]) + "</span><wbr>")
    return "".join(parts)


def _log_ticks(lo: float, hi: float) -> list[float]:
    out = [m * 10 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
           for m in (1, 2, 5) if lo <= m * 10 ** e <= hi]
    return [v for v in out if str(v)[0] == "1"] if len(out) > 6 else out


def _nice_ticks(lo: float, hi: float, n: int) -> list[float]:
    step0 = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(step0))
    step = next((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= step0), 10 * mag)
    out, v = [], math.ceil(lo / step) * step
    while v <= hi + 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def _svg_chart(series: Sequence[Mapping[str, Any]], *, x0: float, x1: float, y0: float, y1: float,
               xlog: bool, xticks: Sequence[float], yticks: Sequence[float], xlabel: str, ylabel: str,
               mark_x: float, mark_ys: Sequence[float | None], points: Sequence[Mapping[str, Any]] = (),
               width: int = 340, height: int = 190, yfmt: Callable[[float], str] = str) -> str:
    W, H, L, R, T, B = width, height, 46, 12, 14, 34

    def xs(x: float) -> float:
        if xlog:
            return L + (W - L - R) * (math.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0))
        return L + (W - L - R) * (x - x0) / (x1 - x0)

    def ys(y: float) -> float:
        return T + (H - T - B) * (1 - (y - y0) / (y1 - y0))

    def xf(v: float) -> str:
        return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"

    o = [f'<svg class="tokx-chart" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img">',
         f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" class="tokx-plot"></rect>']
    for v in yticks:
        o.append(f'<line x1="{L}" x2="{W - R}" y1="{ys(v):.1f}" y2="{ys(v):.1f}" class="tokx-grid"></line>'
                 f'<text x="{L - 5}" y="{ys(v) + 3.5:.1f}" class="tokx-tick" text-anchor="end">{yfmt(v)}</text>')
    for v in xticks:
        o.append(f'<line x1="{xs(v):.1f}" x2="{xs(v):.1f}" y1="{T}" y2="{H - B}" class="tokx-grid"></line>'
                 f'<text x="{xs(v):.1f}" y="{H - B + 13}" class="tokx-tick" text-anchor="middle">{xf(v)}</text>')
    mid = T + (H - T - B) / 2
    o.append(f'<text x="{L + (W - L - R) / 2}" y="{H - 4}" class="tokx-axis" text-anchor="middle">{html.escape(xlabel)}</text>'
             f'<text x="11" y="{mid}" class="tokx-axis" text-anchor="middle" transform="rotate(-90 11 {mid})">{html.escape(ylabel)}</text>')
    for s in series:
        pts = " ".join(f"{xs(x):.1f},{ys(y):.1f}" for x, y in s["pts"])
        o.append(f'<polyline points="{pts}" class="tokx-line {s.get("cls", "")}"></polyline>')
    for p in points:
        anchor = p.get("anchor", "start")
        dx = -7 if anchor == "end" else 7
        o.append(f'<circle cx="{xs(p["x"]):.1f}" cy="{ys(p["y"]):.1f}" r="4" class="tokx-ref"><title>{html.escape(p["label"])}</title></circle>'
                 f'<text x="{xs(p["x"]) + dx:.1f}" y="{ys(p["y"]) - 6:.1f}" class="tokx-reflabel" text-anchor="{anchor}">{html.escape(p["label"])}</text>')
    ly = T + 12
    for s in series:
        if s.get("name"):
            o.append(f'<line x1="{W - R - 96}" x2="{W - R - 80}" y1="{ly - 3}" y2="{ly - 3}" class="tokx-line {s.get("cls", "")}"></line>'
                     f'<text x="{W - R - 76}" y="{ly}" class="tokx-tick">{html.escape(s["name"])}</text>')
            ly += 13
    o.append(f'<line x1="{xs(mark_x):.1f}" x2="{xs(mark_x):.1f}" y1="{T}" y2="{H - B}" class="tokx-vline"></line>')
    for s, y in zip(series, mark_ys):
        if y is not None:
            o.append(f'<circle r="4.5" cx="{xs(mark_x):.1f}" cy="{ys(y):.1f}" class="tokx-dot {s.get("cls", "")}"></circle>')
    o.append("</svg>")
    return "".join(o)


def _head(title: str, live: bool) -> str:
    badge = "live · Python" if live else "static"
    return (f'<div class="tokx-head"><span class="tokx-title">{html.escape(title)}</span>'
            f'<span class="tokx-badge">{badge}</span></div>')


def _widgets() -> Any:
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - ipywidgets is in requirements.txt
        raise ImportError("the widget face needs ipywidgets: pip install ipywidgets") from None
    return ipywidgets


def _css_widget(W: Any) -> Any:
    return W.HTML(f"<style>{_asset('tokx.css')}</style>", layout=W.Layout(height="0px", margin="0"))


# ---------------------------------------------------------------------------
# The merge explorer
# ---------------------------------------------------------------------------


def _sample_steps(K: int, n: int) -> list[int]:
    ks = set(range(min(K, 60) + 1))
    ks.update(min(K, round((K + 1) ** (i / n) - 1)) for i in range(n + 1))
    ks.add(K)
    return sorted(ks)


class MergeExplorer(_Explorer):
    """A slider over the merges of a traced BPE run, on a sample text.

    ``tokenizer`` implements :class:`SupportsMergeTrace` (tokref's ``BPETokenizer`` and
    ``ByteLevelBPETokenizer`` trained with ``trace=True`` do). ``corpus`` (a string or
    strings) is where the pair counts of each step are counted: pass the training
    corpus to see exactly the counts training saw. ``max_steps`` caps the merges shown
    (the data grows with it: about 150 bytes per step); ``top_n`` is the number of
    pairs listed per step.
    """

    kind = "merge"

    def __init__(self, tokenizer: SupportsMergeTrace, sample: str, *, corpus: str | Iterable[str] | None = None,
                 corpus_name: str = "corpus", max_steps: int = 2000, top_n: int = 6, start: int | None = None,
                 title: str | None = None) -> None:
        from .base import check_text, check_texts

        _check_tokenizer(tokenizer, trace=True)
        sample = check_text(sample, name="sample")
        if not sample:
            raise ValueError("sample must be a non-empty string")
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, not {max_steps!r}")
        self.tokenizer = tokenizer
        trace = list(tokenizer.trace)  # type: ignore[arg-type]
        if not trace:
            raise ValueError("the trace is empty: the tokenizer learnt no merges")
        K = min(len(trace), max_steps)
        texts = check_texts(corpus, name="corpus") if corpus is not None else None
        kind = _native_kind(tokenizer)
        d: dict[str, Any] = {"kind": "merge", "K": K, "text": sample, "n_chars": len(sample), "unk": None}
        if kind in ("bpe", "bytelevel"):
            if kind == "bpe":
                from .bpe import EOW, word_counts

                t: Any = tokenizer
                pieces, ids = t._pieces, t._ids
                unk = ids.get("<unk>")
                merges = [(ids[a], ids[b], ids[a + b]) for a, b in t.merges[:K]]
                n_base = pieces.index(EOW) + 1
                names: Any = pieces[: max(n_base, max(m[2] for m in merges) + 1)]
                nodes = _bpe_sample_nodes(t, sample, K)
                words: dict[tuple[int, ...], int] = defaultdict(int)
                for w, c in word_counts(texts or [sample]).items():
                    words[(*(ids.get(ch, unk if unk is not None else -1) for ch in w), ids[EOW])] += c
                key: Callable[[int], Any] = lambda i: pieces[i] if i >= 0 else ""  # noqa: E731
                d.update(mode="chars", unk=unk, source={"type": "bpe", "n_special": len(t.special_tokens), "n_base": n_base})
            else:
                from .bytelevel import count_pretokens

                t = tokenizer
                K = min(K, len(t._merges))
                merges = [(a, b, 256 + k) for k, (a, b) in enumerate(t._merges[:K])]
                names = [t.id_to_token(i) for i in range(256 + K)]
                nodes = _bytelevel_sample_nodes(t, sample, K)
                counts = count_pretokens(texts or [sample], t._pat, t.special_tokens)
                words = {tuple(p.encode("utf-8")): c for p, c in counts.items()}
                decoder = t._decoder
                key = decoder.__getitem__
                d.update(mode="bytes", source={"type": "bytelevel", "pattern": t.pattern})
            tops, totals = _replay_counts(words, merges, key, top_n)
            d["consistent"] = bool(texts) and all(
                tp[:2] == [m[0], m[1]] for tp, m in zip(tops, merges))
            counts_ = [trace[k].count for k in range(K)]
        else:
            index = _trace_index(trace)
            ids_full = [int(i) for i in tokenizer.encode(sample)]
            single = getattr(tokenizer, "decode_single_token_bytes", None)
            nodes6 = None
            if callable(single):
                try:
                    cache: dict[int, int] = {}
                    nodes6 = _tree_nodes(ids_full, index, K, lambda i: cache.setdefault(i, len(single(i))))
                    if max((n[2] for n in nodes6), default=0) != len(sample.encode("utf-8")):
                        nodes6 = None
                except Exception:  # noqa: BLE001
                    nodes6 = None
            mode = "bytes" if nodes6 is not None else "pieces"
            if nodes6 is None:
                nodes6 = _tree_nodes(ids_full, index, K, None)
            merges = [(int(s.pair[0]), int(s.pair[1]), int(s.new_id)) for s in trace[:K]]
            counts_ = [int(s.count) for s in trace[:K]]
            used = {n[0] for n in nodes6} | {x for m in merges for x in m}
            names = {i: _label(tokenizer, i) for i in sorted(used)}
            lab = lambda i: names.get(i, f"#{i}")  # noqa: E731
            tops = _generic_tops(nodes6, K, top_n, lab)
            nodes = [n[:5] for n in nodes6]
            totals = None
            if texts:
                totals = _tree_totals(Counter(i for x in texts for i in tokenizer.encode(x)), index, K)
            d.update(mode=mode, unk=_unk_id(tokenizer), source={"type": "generic"}, consistent=False)
        nodes = _sort_nodes(nodes)
        d["nodes"] = [x for n in nodes for x in n]
        d["names"] = names
        d["merges"] = [[a, b, c, n] for (a, b, n), c in zip(merges, counts_)]
        d["tops"] = tops
        d["sample_tokens"] = _counts_per_step(nodes, K)
        d["count_label"] = "in training"
        if texts and totals is not None:
            d["corpus_tokens"] = totals
            d["corpus_chars"] = sum(map(len, texts))
            d["tops_label"] = f"{corpus_name}, {d['corpus_chars']:,} characters"
        else:
            d["corpus_tokens"] = None
            d["corpus_chars"] = None
            d["tops_label"] = ("the sample text" if kind else
                               "adjacent pieces inside each final token of the sample text")
        d["title"] = title or f"{type(tokenizer).__name__}: {K:,} merges, step by step"
        d["start"] = K if start is None else max(0, min(K, int(start)))
        self.data = d

    def __repr__(self) -> str:
        return f"MergeExplorer({type(self.tokenizer).__name__}, {self.data['K']:,} merges)"

    # -- the state at step k ---------------------------------------------------

    def _label(self, i: int) -> str:
        names = self.data["names"]
        if isinstance(names, dict):
            return names.get(i, f"#{i}")
        return names[i] if 0 <= i < len(names) else f"#{i}"

    def tokens_at(self, k: int) -> list[list[int]]:
        """The sample after ``k`` merges: ``[id, start, end, flags]`` per token."""
        d = self.data
        nd, unk = d["nodes"], d["unk"]
        out = []
        for j in range(0, len(nd), 5):
            if nd[j + 3] <= k < nd[j + 4]:
                out.append([nd[j], nd[j + 1], nd[j + 2],
                            (NEW if k > 0 and nd[j + 3] == k else 0) | (UNK if nd[j] == unk else 0)])
        return out

    def ids_at(self, k: int) -> list[int]:
        """The token ids of the sample after ``k`` merges."""
        return [t[0] for t in self.tokens_at(k)]

    def _render_state(self, k: int, *, live: bool = False) -> str:
        d = self.data
        K = d["K"]
        lab = self._label
        k = max(0, min(K, int(k)))
        toks = self.tokens_at(k)
        if k > 0:
            a, b, c, n = d["merges"][k - 1]
            made = sum(1 for t in toks if t[3] & NEW)
            info = (f'<span class="tokx-k">Merge {k:,}: </span>{_pill(a, lab(a))} + {_pill(b, lab(b))} → '
                    f'{_pill(n, lab(n), " tokx-new")}<span class="tokx-muted">  id {n} · count {c:,} '
                    f'{html.escape(d["count_label"])}</span><span class="tokx-muted">'
                    f'{f" · {made} in the sample" if made else " · not in the sample"}</span>')
        else:
            a, b = d["merges"][0][:2]
            info = (f'<span class="tokx-k">No merge yet: </span>the sample in base symbols. First merge: '
                    f'{_pill(a, lab(a))} + {_pill(b, lab(b))}')
        seg = _render_view({"mode": d["mode"], "toks": toks}, d["text"], lab)
        n = d["sample_tokens"][k]
        stats = f"{n:,} tokens for {d['n_chars']:,} characters · {d['n_chars'] / n:.2f} characters per token"
        if d["corpus_tokens"]:
            stats += f" · corpus: {d['corpus_chars'] / d['corpus_tokens'][k]:.2f} characters per token"
        ti = max(0, k - 1)
        top = d["tops"][ti] if d["tops"] else []
        chosen = d["merges"][ti]
        caption = (f"Pair counts when merge {k:,} was chosen" if k > 0 else "Pair counts now") + f" ({d['tops_label']})"
        rows = ['<tr><th>#</th><th>pair</th><th class="tokx-num">count</th><th></th></tr>']
        maxc = top[2] if top else 1
        for j in range(0, len(top), 3):
            cls = ' class="tokx-chosen"' if top[j:j + 2] == chosen[:2] else ""
            rows.append(f'<tr{cls}><td class="tokx-muted">{j // 3 + 1}</td><td>{_pill(top[j], lab(top[j]))} '
                        f'{_pill(top[j + 1], lab(top[j + 1]))}</td><td class="tokx-num">{top[j + 2]:,}</td>'
                        f'<td class="tokx-barcell"><span class="tokx-bar" style="width:{100 * top[j + 2] / maxc:.1f}%"></span></td></tr>')
        sample_pts, corpus_pts = [], []
        for s in _sample_steps(K, 260):
            sample_pts.append((s + 1, d["sample_tokens"][s] / d["n_chars"]))
            if d["corpus_tokens"]:
                corpus_pts.append((s + 1, d["corpus_tokens"][s] / d["corpus_chars"]))
        series = [{"pts": sample_pts, "cls": "tokx-s1", "name": "sample"}]
        if corpus_pts:
            series.append({"pts": corpus_pts, "cls": "tokx-s2", "name": "corpus"})
        ymax = max([1.0] + [y for s in series for _, y in s["pts"]])
        svg = _svg_chart(
            series, x0=1, x1=K + 1, y0=0, y1=math.ceil(ymax * 10) / 10, xlog=True,
            xticks=_log_ticks(1, K + 1), yticks=_nice_ticks(0, ymax, 4), yfmt=lambda v: f"{v:.1f}",
            xlabel="merges + 1 (log scale)", ylabel="tokens per character", mark_x=k + 1,
            mark_ys=[d["sample_tokens"][k] / d["n_chars"],
                     d["corpus_tokens"][k] / d["corpus_chars"] if d["corpus_tokens"] else None])
        return (f'<div class="tokx-info">{info}</div><div class="tokx-seg">{seg}</div>'
                f'<div class="tokx-stats">{stats}</div><div class="tokx-cols"><div class="tokx-col">'
                f'<div class="tokx-caption">{html.escape(caption)}</div><table class="tokx-table">{"".join(rows)}</table></div>'
                f'<div class="tokx-col tokx-chartbox">{svg}</div></div>')

    def _prerender(self) -> str:
        return _head(self.data["title"], False) + self._render_state(self.data["start"])

    def widget(self) -> Any:
        """The live face: an ipywidgets box whose slider re-renders in Python."""
        W = _widgets()
        d = self.data
        K = d["K"]
        play = W.Play(value=d["start"], min=0, max=K, step=1, interval=120, description="play")
        slider = W.IntSlider(value=d["start"], min=0, max=K, step=1, description="merges",
                             continuous_update=True, layout=W.Layout(flex="1 1 auto", width="auto"))
        W.jslink((play, "value"), (slider, "value"))
        prev = W.Button(description="−1", tooltip="one merge back", layout=W.Layout(width="48px"))
        nxt = W.Button(description="+1", tooltip="one merge on", layout=W.Layout(width="48px"))
        view = W.HTML()

        def render(_: Any = None) -> None:
            view.value = (f'<div class="tokx tokx-merge">{_head(d["title"], True)}'
                          f'{self._render_state(slider.value, live=True)}</div>')

        slider.observe(render, "value")
        prev.on_click(lambda _: setattr(slider, "value", max(0, slider.value - 1)))
        nxt.on_click(lambda _: setattr(slider, "value", min(K, slider.value + 1)))
        render()
        box = W.VBox([_css_widget(W), W.HBox([play, prev, slider, nxt]), view])
        box.slider, box.view, box.play = slider, view, play  # for scripts and tests
        return box


# ---------------------------------------------------------------------------
# The comparison explorer
# ---------------------------------------------------------------------------

DEFAULT_SAMPLES: tuple[str, ...] = (
    "To-morrow, and to-morrow, and to-morrow,\nCreeps in this petty pace from day to day.",
    "The café's crème brûlée costs €4.50 — naïve?",
    "def greet(name):\n\treturn f\"Hello, {name}!\"",
    "Tokenizers don't see words; they see ids: 1234567.",
    "Ça va? 你好，世界！ Привет, мир! 🙂👍🏽",
)

_DESCRIPTIONS = {"char": "one token per character", "word": "one token per word or punctuation mark",
                 "bpe": "BPE on characters, words end in </w>", "bytelevel": "BPE on UTF-8 bytes",
                 "wordpiece": "greedy longest match, ## continues a word, no [CLS]/[SEP]",
                 "unigram": "Viterbi over scored pieces, ▁ is a space"}


def _js_spec(tok: Any, regexes: dict[str, Any]) -> dict[str, Any] | None:
    """The data of the JavaScript twin of one of tokref's tokenizers (None: no twin)."""
    kind = _native_kind(tok)

    def rx(pattern: str, engine: str) -> dict[str, str]:
        spec = js_regex(pattern, engine)
        regexes.update(spec["classes"])
        return {"source": spec["source"]}

    if kind == "char":
        return {"engine": "char", "pieces": list(tok._pieces), "unk": tok._ids.get("<unk>")}
    if kind == "word":
        from .word import WORD_PATTERN

        return {"engine": "word", "pieces": list(tok._pieces), "unk": tok._ids.get("<unk>"),
                "lowercase": tok.lowercase, "re": rx(WORD_PATTERN, "re")}
    if kind == "bpe":
        from .bpe import EOW

        ids = tok._ids
        return {"engine": "bpe", "pieces": list(tok._pieces), "unk": ids.get("<unk>"), "eow": ids[EOW],
                "merges": [x for a, b in tok.merges for x in (ids[a], ids[b], ids[a + b])],
                "ws": rx(r"\S+", "re")}
    if kind == "bytelevel":
        try:
            r = rx(tok.pattern, "regex")
        except ValueError:
            return None
        if tok._merges:
            return {"engine": "bytelevel", "merges": [x for m in tok._merges for x in m], "re": r}
        if len(tok._ranks) > 20_000:
            return None  # cl100k_base would inline megabytes: samples only
        return {"engine": "bytelevel", "ranks": [[b.hex(), i] for b, i in tok._ranks.items()], "re": r}
    kind = _twin_kind(tok)
    if kind == "wordpiece":
        return _wordpiece_spec(tok, regexes)
    if kind == "unigram":
        return _unigram_spec(tok, regexes)
    return None


# ---------------------------------------------------------------------------
# WordPiece and Unigram twins: their Unicode data, computed here by Python
#
# The browser's own Unicode tables (its regex \p classes, toLowerCase, normalize) follow
# its Unicode version, not Python's nor Hugging Face's. The twins therefore get every
# table they need from Python, as code-point ranges (a flat list [a0, b0, a1, b1, ...]).
# ---------------------------------------------------------------------------


def _flat(ranges: Iterable[tuple[int, int]]) -> list[int]:
    return [x for r in ranges for x in r]


@lru_cache(maxsize=None)
def _re_class(cls: str) -> tuple[tuple[int, int], ...]:
    """The code points the ``re`` class ``[cls]`` matches."""
    return _engine_class("re", f"[{cls}]")


def _map_runs(mapping: Mapping[int, str]) -> list[Any]:
    """``{code point: string}`` as a flat list [gap, value, ...]: ``gap`` is the distance
    from the previous code point; ``value`` an int (a single code point, as the offset
    from the key) or a string (several code points)."""
    out: list[Any] = []
    prev = 0
    for cp in sorted(mapping):
        v = mapping[cp]
        out += [cp - prev, ord(v) - cp if len(v) == 1 else v]
        prev = cp
    return out


@lru_cache(maxsize=1)
def _wordpiece_tables() -> dict[str, Any]:
    """The character classes of tokref.wordpiece (Hugging Face's tables, Unicode 8)."""
    from . import wordpiece as wp

    return {"removed": _flat(_re_class(wp._HF_OTHER)), "punct": _flat(_re_class(wp._HF_PUNCTUATION)),
            "cjk": _flat(_re_class(wp._CJK_RANGES)), "ws": _flat(_re_class(wp._WHITESPACE))}


@lru_cache(maxsize=1)
def _wordpiece_lower_table() -> list[Any]:
    """tokref.wordpiece's per-character lowercasing (Rust's char::to_lowercase), for
    every character it changes."""
    from .wordpiece import _lower

    return _map_runs({cp: lo for cp in _cps() if (lo := _lower(chr(cp))) != chr(cp)})


@lru_cache(maxsize=1)
def _wordpiece_nfd_tables() -> dict[str, Any]:
    """What tokref.wordpiece's accent stripping needs: the NFD of every character that
    decomposes (Hangul syllables are left to the algorithm), the combining classes it
    sorts by, the non-spacing marks it drops."""
    import unicodedata

    from . import wordpiece as wp

    nfd = {}
    ccc: list[list[int]] = []
    for cp in _cps():
        ch = chr(cp)
        if not 0xAC00 <= cp <= 0xD7A3:
            d = wp._nfd(ch)
            if d != ch:
                nfd[cp] = d
        c = wp._ccc(ch) if unicodedata.combining(ch) else 0
        if c:
            if ccc and ccc[-1][1] == cp - 1 and ccc[-1][2] == c:
                ccc[-1][1] = cp
            else:
                ccc.append([cp, cp, c])
    return {"nfd": _map_runs(nfd), "ccc": [x for r in ccc for x in r],
            "mn": _flat(_re_class(wp._HF_NONSPACING_MARK))}


@lru_cache(maxsize=1)
def _cps() -> tuple[int, ...]:
    return tuple(map(ord, _all_chars()))


def _wordpiece_spec(tok: Any, regexes: dict[str, Any]) -> dict[str, Any]:
    tables = dict(_wordpiece_tables())
    if tok.lowercase:
        tables["lower"] = _wordpiece_lower_table()
    if tok.strip_accents:
        tables.update(_wordpiece_nfd_tables())
    return {"engine": "wordpiece", "pieces": list(tok._pieces), "unk": tok.unk_id,
            "specials": sorted(tok.special_tokens, key=lambda s: (-len(s), s)),
            "prefix": tok.continuing_subword_prefix, "max_chars": tok.max_input_chars_per_word,
            "max_piece": tok._max_piece, "lowercase": tok.lowercase, "strip_accents": tok.strip_accents,
            "tables": tables}


# NFKC for the Unigram twin. Text is cut into segments that NFKC normalizes
# independently: a segment starts before every character whose NFKD starts with a
# starter (combining class 0) that composes with nothing before it, and a code point
# unassigned in Python's Unicode is a segment of its own. Each segment's NFKC is then
# the same in any Unicode version from Python's on (Unicode's normalization stability:
# the normalization of assigned characters never changes, and a new composite is
# excluded from composition), so the browser's String.normalize("NFKC") is used on
# segments of assigned characters, after checking that the browser knows Python's
# Unicode version. Unassigned code points stay as they are, as in Python.


@lru_cache(maxsize=1)
def _nfkc_tables() -> dict[str, Any]:
    import unicodedata

    unassigned, joins = [], set()
    second = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))  # Hangul V and T jamo
    for cp in _cps():
        ch = chr(cp)
        if unicodedata.category(ch) == "Cn":
            unassigned.append(cp)
            continue
        d = unicodedata.decomposition(ch)
        if d and not d.startswith("<"):
            parts = d.split()
            if len(parts) == 2 and unicodedata.normalize("NFC", "".join(chr(int(x, 16)) for x in parts)) == ch:
                second.add(int(parts[1], 16))
    for cp in _cps():
        ch = chr(cp)
        if unicodedata.combining(ch) or cp in second or unicodedata.decomposition(ch):
            first = unicodedata.normalize("NFKD", ch)[0]
            if unicodedata.combining(first) or ord(first) in second:
                joins.add(cp)
    # A character of Python's Unicode version that the browser must know: one that
    # version added with a compatibility decomposition.
    probe = next(chr(cp) for cp in range(0x10780, 0x107BB)
                 if unicodedata.category(chr(cp)) != "Cn" and unicodedata.normalize("NFKC", chr(cp)) != chr(cp))
    return {"unassigned": _flat(_to_ranges(unassigned)), "joins": _flat(_to_ranges(joins)),
            "probe": [probe, unicodedata.normalize("NFKC", probe)], "unicode": unicodedata.unidata_version}


@lru_cache(maxsize=1)
def _nfkc_sets() -> tuple[frozenset[int], frozenset[int]]:
    t = _nfkc_tables()

    def expand(flat: list[int]) -> frozenset[int]:
        return frozenset(c for a, b in zip(flat[::2], flat[1::2]) for c in range(a, b + 1))

    return expand(t["unassigned"]), expand(t["joins"])


def _nfkc_segments(text: str) -> list[tuple[int, int]]:
    """The segments of ``text`` that NFKC normalizes independently (see above)."""
    unassigned, joins = _nfkc_sets()
    out: list[tuple[int, int]] = []
    start, prev_new = 0, False
    for i, ch in enumerate(text):
        cp = ord(ch)
        new = cp in unassigned
        if i and (new or prev_new or cp not in joins):
            out.append((start, i))
            start = i
        prev_new = new
    if text:
        out.append((start, len(text)))
    return out


@lru_cache(maxsize=1)
def _py_space() -> tuple[tuple[int, int], ...]:
    return _engine_class("re", r"\s")  # str.isspace, which str.split() uses


def _unigram_aligned(text: str, normalization: str) -> tuple[str, list[int], list[int]]:
    """tokref.unigram's normalization with the span of ``text`` behind each character;
    NFKC spans are the segments of :func:`_nfkc_segments` (tokref's own
    ``encode_with_offsets`` uses grapheme clusters, which the twin cannot reproduce
    exactly; the ids are the same)."""
    import unicodedata

    n = len(text)
    if normalization == "identity":
        return text, list(range(n)), list(range(1, n + 1))
    parts, st, en = [], [], []
    for a, b in _nfkc_segments(text):
        piece = unicodedata.normalize("NFKC", text[a:b])
        parts.append(piece)
        st += [a] * len(piece)
        en += [b] * len(piece)
    nf = "".join(parts)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    prev_end = -1
    for m in re.finditer(r"\S+", nf):
        a, b = m.start(), m.end()
        if prev_end >= 0:
            out.append(" ")
            starts.append(st[prev_end])
            ends.append(en[a - 1])
        out.append(m.group())
        starts += st[a:b]
        ends += en[a:b]
        prev_end = b
    return "".join(out), starts, ends


def _unigram_view(tok: Any, text: str) -> dict[str, Any]:
    """tokref.unigram.UnigramTokenizer.encode_with_offsets with the spans of
    :func:`_unigram_aligned`: what the JavaScript twin computes."""
    norm, st, en = _unigram_aligned(text, tok.normalization)
    if tok.add_dummy_prefix and norm:
        st = [st[0], *st]
        en = [st[0], *en]
    unk = _unk_id(tok)
    fuse = None if tok.byte_fallback else unk
    toks: list[list[int]] = []
    o = 0
    for unit in tok._units(norm):
        ids, spans = tok._encode_unit(unit)
        for i, (a, b) in zip(ids, spans):
            if i == fuse and toks and toks[-1][0] == fuse:
                toks[-1][2] = en[o + b - 1]
            else:
                toks.append([i, st[o + a], en[o + b - 1], UNK if i == unk else 0])
        o += len(unit)
    return {"mode": "chars", "toks": toks}


def _unigram_spec(tok: Any, regexes: dict[str, Any]) -> dict[str, Any]:
    assert tok._model is not None
    first = len(tok.special_tokens) + (256 if tok.byte_fallback else 0)
    tables: dict[str, Any] = {"space": _flat(_py_space())}
    if tok.normalization == "nfkc":
        tables.update(_nfkc_tables())
    return {"engine": "unigram", "pieces": list(tok._pieces), "scores": tok._scores[first:], "first": first,
            "n_special": len(tok.special_tokens), "unk": _unk_id(tok), "unk_score": tok._model.unk_score,
            "byte_base": tok._byte_base, "byte_fallback": tok.byte_fallback,
            "normalization": tok.normalization, "dummy_prefix": tok.add_dummy_prefix,
            "split": tok.split_by_whitespace, "tables": tables}


class CompareExplorer(_Explorer):
    """One text, several tokenizers side by side.

    ``tokenizers`` is a dict ``{name: tokenizer}`` (or a list; names are then the class
    names) of objects implementing :class:`SupportsTokenize`. ``samples`` are the
    texts offered as buttons; objects without a JavaScript twin are encoded in Python
    for these (and for ``text``) only, and the static page says so for other text.
    """

    kind = "compare"

    def __init__(self, tokenizers: Mapping[str, SupportsTokenize] | Sequence[SupportsTokenize],
                 text: str | None = None, *, samples: Sequence[str] = DEFAULT_SAMPLES,
                 title: str | None = None) -> None:
        from .base import check_text

        if isinstance(tokenizers, Mapping):
            named = list(tokenizers.items())
        elif isinstance(tokenizers, (list, tuple)):
            named = [(type(t).__name__, t) for t in tokenizers]
        else:
            raise TypeError("tokenizers must be a dict {name: tokenizer} or a list of tokenizers, "
                            f"not {type(tokenizers).__name__}")
        if not named:
            raise ValueError("give at least one tokenizer")
        for name, t in named:
            _check_tokenizer(t, name=f"tokenizers[{name!r}]")
        samples = [check_text(s, name="samples[i]") for s in samples]
        text = samples[0] if text is None and samples else check_text(text or "", name="text")
        self.tokenizers = dict(named)
        classes: dict[str, str] = {}
        entries = []
        for name, t in named:
            spec = _js_spec(t, classes)
            kind = _twin_kind(t)
            vocab = getattr(t, "vocab_size", None)
            entry: dict[str, Any] = {"name": str(name), "vocab": vocab if isinstance(vocab, int) else None,
                                     "description": _DESCRIPTIONS.get(kind or "", type(t).__name__)}
            if spec is not None:
                entry.update(spec)
            else:
                entry["pre"], labels = {}, {}
                for s in dict.fromkeys([text, *samples]):
                    v = _view(t, s)
                    entry["pre"][s] = v
                    for tk in v["toks"]:
                        labels.setdefault(tk[0], _label(t, tk[0]))
                entry["labels"] = labels
                entry["description"] += " · Python only"
            entries.append(entry)
        self.data = {"kind": "compare", "title": title or "Tokenizers side by side", "text": text,
                     "samples": samples, "classes": classes, "tokenizers": entries}

    def __repr__(self) -> str:
        return f"CompareExplorer({', '.join(self.tokenizers)})"

    def views(self, text: str) -> dict[str, dict[str, Any]]:
        """Each tokenizer's tokens of ``text``, computed in Python: ``{name: view}``."""
        return {name: _view(t, text) for name, t in self.tokenizers.items()}

    def _render_cards(self, text: str, show_ids: bool = False) -> str:
        views = self.views(text)
        n_chars = len(text)
        max_n = max([1] + [len(v["toks"]) for v in views.values()])
        cards = []
        for (name, t), e in zip(self.tokenizers.items(), self.data["tokenizers"]):
            v = views[name]
            n = len(v["toks"])
            cpt = f"{n_chars / n:.2f}" if n else "–"
            vocab = f" · {e['vocab']:,} ids" if e["vocab"] else ""
            body = _render_view(v, text, lambda i, t=t: _label(t, i), show_ids)
            cards.append(
                f'<div class="tokx-card" data-name="{_attr(name)}" data-tokens="{n}" data-chars="{n_chars}">'
                f'<div class="tokx-cardhead"><span class="tokx-cardname">{html.escape(name)}</span>'
                f'<span class="tokx-muted"> {html.escape(e["description"].replace(" · Python only", ""))}{vocab}</span>'
                f'<span class="tokx-barbox"><span class="tokx-bar" style="width:{100 * n / max_n:.1f}%"></span></span>'
                f'<span class="tokx-cardstats">{n:,} tokens · {n_chars:,} chars · {cpt} chars/token</span></div>'
                f'<div class="tokx-seg tokx-seg-small">{body}</div></div>')
        return f'<div class="tokx-cards">{"".join(cards)}</div>'

    def _prerender(self) -> str:
        d = self.data
        return (_head(d["title"], False) + f'<textarea class="tokx-input" rows="4" readonly>{html.escape(d["text"])}</textarea>'
                + self._render_cards(d["text"]))

    def widget(self) -> Any:
        """The live face: type, and every tokenizer re-encodes in Python."""
        W = _widgets()
        d = self.data
        ta = W.Textarea(value=d["text"], continuous_update=True, layout=W.Layout(width="100%", height="96px"))
        pick = W.Dropdown(options=[("try a sample…", -1)] + [(s[:40].replace("\n", " ⏎ "), i) for i, s in enumerate(d["samples"])],
                          value=-1, layout=W.Layout(width="auto"))
        show_ids = W.Checkbox(value=False, description="show ids", indent=False)
        view = W.HTML()

        def render(_: Any = None) -> None:
            view.value = (f'<div class="tokx tokx-compare">{_head(d["title"], True)}'
                          f'{self._render_cards(ta.value, show_ids.value)}</div>')

        def choose(change: Any) -> None:
            if change["new"] is not None and change["new"] >= 0:
                ta.value = d["samples"][change["new"]]

        ta.observe(render, "value")
        show_ids.observe(render, "value")
        pick.observe(choose, "value")
        render()
        box = W.VBox([_css_widget(W), ta, W.HBox([pick, show_ids]), view])
        box.textarea, box.view, box.show_ids = ta, view, show_ids
        return box


# ---------------------------------------------------------------------------
# The vocabulary trade-off explorer
# ---------------------------------------------------------------------------


class TradeoffExplorer(_Explorer):
    """A slider over vocabulary sizes of real tokenizers, measured on held-out text.

    ``tokenizer`` is either one traced tokenizer (:class:`SupportsMergeTrace`: its
    first *k* merges give the tokenizer of every size, and the held-out token count is
    computed exactly for every *k*) or a list of tokenizers of different sizes (each
    needs ``vocab_size``). ``references`` (``{name: tokenizer}``, e.g. a character and
    a word tokenizer) are measured too and drawn on the chart; the one named
    ``"character"`` is the baseline of the relative attention cost. ``widths`` are the
    ``d_model`` values offered for the embedding table.
    """

    kind = "tradeoff"

    def __init__(self, tokenizer: SupportsMergeTrace | Sequence[SupportsTokenize], heldout: str | Iterable[str], *,
                 sample: str | None = None, references: Mapping[str, SupportsTokenize] | None = None,
                 widths: Sequence[int] = (128, 256, 512, 768, 1024, 2048, 4096), width: int = 768,
                 window: int = 1024, n_points: int = 48, start_vocab: int = 1000, title: str | None = None) -> None:
        from .base import check_text, check_texts

        texts = check_texts(heldout, name="heldout")
        n_chars = sum(map(len, texts))
        sample = check_text(sample, name="sample") if sample is not None else texts[0][:240]
        self.tokenizer = tokenizer
        s: dict[str, Any] = {"text": sample}
        if isinstance(tokenizer, (list, tuple)):
            toks = list(tokenizer)
            if not toks:
                raise ValueError("give at least one tokenizer")
            sized = []
            for i, t in enumerate(toks):
                _check_tokenizer(t, name=f"tokenizer[{i}]")
                V = getattr(t, "vocab_size", None)
                if isinstance(V, bool) or not isinstance(V, int):
                    raise TypeError(f"tokenizer[{i}] needs an int vocab_size to be placed on the slider")
                sized.append((V, t))
            sized.sort(key=lambda x: x[0])
            points = []
            views = []
            for j, (V, t) in enumerate(sized):
                points.append([V, sum(len(_encode_plain(t, x)) for x in texts), j])
                views.append(_view(t, sample))
            curve = [p[:2] for p in points]
            modes = {v["mode"] for v in views}
            if len(modes) > 1:  # one drawing for all: fall back to pieces
                views = [_view_as_pieces(v) for v in views]
            for (V, t), v in zip(sized, views):  # each tokenizer has its own ids
                v["labels"] = {tk[0]: _label(t, tk[0]) for tk in v["toks"]}
            s.update(mode=views[0]["mode"], views=views, unk=None, names={})
        else:
            _check_tokenizer(tokenizer, name="tokenizer", trace=True)
            trace = list(tokenizer.trace)  # type: ignore[arg-type]
            K = len(trace)
            kind = _native_kind(tokenizer)
            t: Any = tokenizer
            if kind == "bpe":
                from .bpe import EOW

                totals = _bpe_prefix_totals(t, texts, K)
                n_base = t._pieces.index(EOW) + 1
                seen = set(t._pieces[:n_base])
                vocab_at = [n_base]
                for a, b in t.merges:  # two merges can make one string: one id
                    seen.add(a + b)
                    vocab_at.append(len(seen))
                nodes = _bpe_sample_nodes(t, sample, K)
                names: Any = list(t._pieces)
                s.update(mode="chars", unk=t._ids.get("<unk>"))
            else:
                index = _trace_index(trace)
                totals = _tree_totals(Counter(i for x in texts for i in _encode_plain(t, x)), index, K)
                V_total = getattr(t, "vocab_size", None)
                base = V_total - K if isinstance(V_total, int) else min(int(st.new_id) for st in trace)
                vocab_at = [base + k for k in range(K + 1)]
                single = getattr(t, "decode_single_token_bytes", None)
                ids_full = _encode_plain(t, sample)
                nodes6 = None
                if callable(single):
                    nodes6 = _tree_nodes(ids_full, index, K, lambda i: len(single(i)))
                    if max((n[2] for n in nodes6), default=0) != len(sample.encode("utf-8")):
                        nodes6 = None
                mode = "bytes" if nodes6 is not None else "pieces"
                if nodes6 is None:
                    nodes6 = _tree_nodes(ids_full, index, K, None)
                nodes = [n[:5] for n in nodes6]
                names = {n[0]: _label(t, n[0]) for n in nodes}
                s.update(mode=mode, unk=_unk_id(t))
            nodes = _sort_nodes(nodes)
            s["nodes"] = [x for n in nodes for x in n]
            if isinstance(names, list):
                used = {n[0] for n in nodes}
                names = {i: names[i] for i in sorted(used) if 0 <= i < len(names)}
            s["names"] = names
            v0, v1 = vocab_at[0], vocab_at[-1]

            def k_for(V: float) -> int:
                lo, hi = 0, K
                while lo < hi:  # the first k whose vocabulary reaches V
                    mid = (lo + hi) // 2
                    if vocab_at[mid] < V:
                        lo = mid + 1
                    else:
                        hi = mid
                return lo

            ks = sorted({k_for(v0 * (v1 / v0) ** (i / (n_points - 1))) for i in range(n_points)} | {0, K})
            points = [[vocab_at[k], totals[k], k] for k in ks]
            ck = sorted({k_for(v0 * (v1 / v0) ** (i / 200)) for i in range(201)} | {0, K})
            curve = [[vocab_at[k], totals[k]] for k in ck]
        refs = []
        for name, r in (references or {}).items():
            _check_tokenizer(r, name=f"references[{name!r}]")
            V = getattr(r, "vocab_size", None)
            if not isinstance(V, int):
                raise TypeError(f"references[{name!r}] needs an int vocab_size")
            refs.append({"name": str(name), "V": V, "n": sum(len(_encode_plain(r, x)) for x in texts)})
        start = min(range(len(points)), key=lambda i: abs(math.log(points[i][0] / start_vocab)))
        self.data = {"kind": "tradeoff", "title": title or "Vocabulary size against sequence length and cost",
                     "n_chars": n_chars, "points": points, "curve": curve, "refs": refs, "widths": list(widths),
                     "width": width if width in widths else widths[len(widths) // 2], "window": window,
                     "start": start, "sample": s}

    def __repr__(self) -> str:
        p = self.data["points"]
        return f"TradeoffExplorer({len(p)} vocabulary sizes, {p[0][0]:,}..{p[-1][0]:,} ids)"

    def sample_tokens_at(self, i: int) -> list[list[int]]:
        s = self.data["sample"]
        if "views" in s:
            return s["views"][i]["toks"]
        k = self.data["points"][i][2]
        nd = s["nodes"]
        return [[nd[j], nd[j + 1], nd[j + 2], UNK if nd[j] == s["unk"] else 0]
                for j in range(0, len(nd), 5) if nd[j + 3] <= k < nd[j + 4]]

    def _render_state(self, i: int, width: int) -> str:
        d = self.data
        V, n, _ = d["points"][i]
        char_ref = next((r for r in d["refs"] if r["name"] == "character"), None)
        rel = n / char_ref["n"] if char_ref else None
        emb = V * width
        max_v = max([p[0] for p in d["curve"]] + [r["V"] for r in d["refs"]])

        def meter(name: str, value: str, frac: float, note: str) -> str:
            return (f'<div class="tokx-meter"><div class="tokx-meterhead"><span>{name}</span>'
                    f'<span class="tokx-meterval">{value}</span></div><div class="tokx-meterbar">'
                    f'<span style="width:{max(0.5, min(100, 100 * frac)):.1f}%"></span></div>'
                    f'<div class="tokx-muted tokx-meternote">{note}</div></div>')

        def rel_fmt(x: float) -> str:
            return f"{x:,.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×" if x >= 0.1 else f"{x:.2g}×"

        def big(x: float) -> str:
            return (f"{x / 1e9:.2f} B" if x >= 1e9 else f"{x / 1e6:.2f} M" if x >= 1e6
                    else f"{x / 1e3:.1f} k" if x >= 1e4 else f"{x:,.0f}")

        meters = (
            meter("Sequence length", f"{n:,} tokens", rel if rel is not None else n / d["points"][0][1],
                  f"the held-out text: {1000 * n / d['n_chars']:,.0f} per 1,000 characters, "
                  f"{d['n_chars'] / n:.2f} characters per token; a {d['window']:,}-token window holds "
                  f"{d['window'] * d['n_chars'] / n:,.0f} characters")
            + meter("Embedding table", f"{big(emb)} parameters", V / max_v,
                    f"{V:,} ids × {width:,} = {emb:,}; an untied output layer doubles it")
            + meter("Attention cost", "–" if rel is None else rel_fmt(rel * rel),
                    0 if rel is None else rel * rel,
                    ("" if rel is None else f"({rel:.3f})² of the character tokenizer's: ")
                    + "attention grows with the square of the sequence length, in every layer"))
        curve = [(v, 1000 * m / d["n_chars"]) for v, m in d["curve"]]
        xs_ = [v for v, _ in curve] + [r["V"] for r in d["refs"]]
        ys_ = [y for _, y in curve] + [1000 * r["n"] / d["n_chars"] for r in d["refs"]]
        x0, x1, ymax = min(xs_) / 1.4, max(xs_) * 1.4, max(ys_) * 1.08
        svg = _svg_chart(
            [{"pts": curve, "cls": "tokx-s1"}], x0=x0, x1=x1, y0=0, y1=ymax, xlog=True, xticks=_log_ticks(x0, x1),
            yticks=_nice_ticks(0, ymax, 4), yfmt=lambda v: f"{v:g}", xlabel="vocabulary size (ids, log scale)",
            ylabel="tokens per 1,000 chars", mark_x=V, mark_ys=[1000 * n / d["n_chars"]], width=360, height=210,
            points=[{"x": r["V"], "y": 1000 * r["n"] / d["n_chars"], "label": r["name"],
                     "anchor": "end" if r["V"] > math.sqrt(x0 * x1) else "start"} for r in d["refs"]])
        s = d["sample"]
        toks = self.sample_tokens_at(i)
        names = s["views"][i]["labels"] if "views" in s else s["names"]
        seg = _render_view({"mode": s["mode"], "toks": toks}, s["text"], lambda j: names.get(j, f"#{j}"))
        return (f'<div class="tokx-cols"><div class="tokx-col"><div class="tokx-meters">{meters}</div></div>'
                f'<div class="tokx-col tokx-chartbox">{svg}</div></div>'
                f'<div class="tokx-caption">The sample with {V:,} ids: {len(toks):,} tokens for {len(s["text"]):,} characters</div>'
                f'<div class="tokx-seg tokx-seg-small">{seg}</div>')

    def _prerender(self) -> str:
        d = self.data
        return _head(d["title"], False) + self._render_state(d["start"], d["width"])

    def widget(self) -> Any:
        """The live face: the vocabulary slider and the width re-render in Python."""
        W = _widgets()
        d = self.data
        slider = W.SelectionSlider(options=[(f"{p[0]:,} ids", i) for i, p in enumerate(d["points"])],
                                   value=d["start"], description="vocabulary", continuous_update=True,
                                   layout=W.Layout(flex="1 1 auto", width="auto"))
        width = W.Dropdown(options=[(f"d_model = {w:,}", w) for w in d["widths"]], value=d["width"],
                           layout=W.Layout(width="auto"))
        view = W.HTML()

        def render(_: Any = None) -> None:
            view.value = (f'<div class="tokx tokx-tradeoff">{_head(d["title"], True)}'
                          f'{self._render_state(slider.value, width.value)}</div>')

        slider.observe(render, "value")
        width.observe(render, "value")
        render()
        box = W.VBox([_css_widget(W), W.HBox([slider, width]), view])
        box.slider, box.width, box.view = slider, width, view
        return box


def _view_as_pieces(v: Mapping[str, Any]) -> dict[str, Any]:
    return {"mode": "pieces", "toks": [[t[0], k, k + 1, t[3]] for k, t in enumerate(v["toks"])]}
