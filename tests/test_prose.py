"""The prose of the book, checked statically (from the MyST sources, no build, no kernel).

For every chapter (book/0*.md, book/1*.md), the preface and the glossary:

1. every glued name the prose reads ({glue:text}`x`, {glue:text}`x:fmt`, {glue}`x`,
   {glue:md}`x`, {glue:figure}`x`, the ```{glue:md} x directives ...) is glued in that
   chapter's code cells. A chapter glues with a literal name, `glue("x", ...)`, or with
   an f-string built in a loop, `glue(f"prem_{key}_{lang}", ...)`: an f-string is turned
   into a pattern (each `{...}` matches a run of name characters), and a read name is
   glued if it equals a literal name or matches a pattern;
2. every glued name is read somewhere in the chapter: a literal name by name, an
   f-string pattern by at least one read name that matches it (the loop glues a family of
   names; the prose must read at least one of them). Names glued for something other than
   the prose are listed in ``UNREAD_OK`` with the reason;
3. no digit in the prose, outside: a role ({glue:text}`x`, {cite:p}`key`, {math}`x`,
   {numref}`...`, {doc}`...`, ...; the text of a {term}`...` *is* checked), math
   ($...$, $$...$$, math directives), code (inline `...`, code cells, code fences),
   link targets, labels "(name)=", directive arguments that are paths or glue names,
   directive options (":name: value"), HTML tags and comments, and the patterns of
   ``ALLOWED`` (each with its reason). A digit in a sentence that carries a citation
   ({cite:p}`key`, {cite:t}`key`) counts as cited: the sentence is the text between the
   sentence ends around the citation. A digit anywhere else is a number typed by hand:
   the book's rule is that a number is computed in the book (glued) or cited.

Run one chapter's checks with ``pytest tests/test_prose.py -k 10_performance``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = sorted([*BOOK.glob("0*.md"), *BOOK.glob("1*.md")]) + [
    BOOK / "index.md",
    BOOK / "glossary.md",
]

# Glued names that no prose reads, each with the reason: (chapter stem, name) -> why.
UNREAD_OK: dict[tuple[str, str], str] = {}

# Digits the prose may type, each pattern with the reason. A pattern is searched in the
# prose (code, math, roles... already blanked); the digits of each match are allowed.
ALLOWED: list[tuple[str, str]] = [
    # Years: of a paper, of a standard, of a corpus ("Unicode 15.1 (2023)").
    (r"\b(?:19|20)\d\d\b(?:[–-](?:19|20)?\d\d\b)?", "a year"),
    # Numbers of the book's own parts, and of a list's items: "Chapter 4", "chapters 8–9",
    # "Assignment 9", "Part 3", "Fig. 4.1", "exercise 3", "step 2".
    (
        r"\b(?:[Cc]hapters?|[Ss]ections?|[Aa]ssignments?|[Pp]arts?|[Ee]xercises?|"
        r"Figs?\.|[Ff]igures?|[Ee]quations?|Eqs?\.|[Tt]ables?|[Ss]teps?|[Qq]uestions?|"
        r"[Cc]heck-yourself|[Rr]ules?|[Rr]anks?|[Mm]erges?|[Ii]ds?|[Ii]tems?|[Rr]ows?|[Pp]ositions?|"
        r"[Aa]rticles?|[Ss]egments?|[Ll]ines?)\s+\d+(?:\.\d+)?(?:\s*(?:–|-|,|and|or|to)\s*\d+(?:\.\d+)?)*\b",
        "the number of something the book numbers: its chapters, parts, assignments, "
        "exercises, figures, steps, rules; a merge's rank, an id, a row, a line (\"merge 0\", "
        "\"rank 1\", \"id 0\", \"Article 1\" of the Declaration)",
    ),
    # Names that contain digits: encodings, models, tokenizers' vocabularies, standards.
    (r"\bUTF-(?:8|16|32)(?:-?[LB]E)?\b", "the name of a Unicode encoding"),
    (r"\bUCS-[24]\b", "the name of a Unicode encoding"),
    (r"\bGPT-[2-4](?:o)?\b", "the name of a model"),
    (r"\b(?:cl100k|o200k|p50k|r50k)_base\b", "the name of tiktoken's encodings"),
    (r"\bLlama(?:\s|-)?[23](?:\.\d)?\b", "the name of a model"),
    (r"\b(?:m|By)?T5\b", "the name of a model"),
    (r"\bISO[ /-]?\d+(?:-\d+)?\b", "the name of a standard"),
    (r"\bRFC\s?\d+\b", "the name of a standard"),
    (r"\bUAX\s?#\d+\b", "the name of a Unicode annex"),
    (r"\bbase64\b", "the name of an encoding"),
    (r"\b[Ii]nt(?:8|16|32|64)\b|\b[Ff]loat(?:16|32|64)\b|\b\d\d-bit\b", "the name of a machine type"),
    (r"\bfloat32\b|\bbfloat16\b", "the name of a machine type"),
    # Unicode code points: U+0020, U+1F600.
    (r"\bU\+[0-9A-F]{4,6}\b", "a Unicode code point"),
    # 0 and 1 standing alone are values of a definition, not measurements: a mask's 0 and
    # 1, a probability's 1, an exponent "below 1", a ratio "of 1" (parity). Not 0.5, 1.1,
    # 1,000: those are numbers of their own.
    (r"(?<![\w.,−-])[01](?![\w.,%]\d|[\w%]|,\d)", "0 or 1 as a value of a definition"),
    # A byte has 256 values; a byte written in hex (0x20, 0x10FFFF).
    (r"\b256\b(?=\s+(?:byte|base|values?|tokens?|ids?)|\s*$)|(?<=the )256\b", "the number of byte values"),
    (r"\b0x[0-9A-Fa-f]+\b", "a byte or a code point in hexadecimal"),
    # The numbering of an ordered list ("1. First ...") at the start of a line.
    (r"(?m)^\s*\d+\.(?=\s)", "the number of an ordered list's item"),
]
# Ordinals typed as "1st", "2nd" are not allowed: the book writes "first", "second".

ALLOWED_RE = [re.compile(p) for p, _ in ALLOWED]

# Code-like fences: their whole body is code or data, not prose.
CODE_DIRECTIVES = {
    "code-cell", "code", "code-block", "sourcecode", "math", "raw", "literalinclude",
    "include", "bibliography", "mermaid", "glue", "glue:md", "glue:text", "glue:any",
    "glue:figure", "glue:math", "csv-table", "graphviz", "eval-rst",
}
# Directives whose argument is a path or a name, not prose.
PATH_ARGUMENT = {"figure", "image", "glue", "glue:any", "glue:figure", "glue:md", "glue:math",
                 "include", "literalinclude", "tableofcontents", "bibliography"}

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})\s*(.*?)\s*$")
GLUE_CALL = re.compile(r"""\bglue\(\s*(f?)(["'])(.+?)\2""")
GLUE_ROLE = re.compile(r"\{glue(?::[a-z]*)?\}`([^`:<>\s]+)(?::[^`]*)?`")
GLUE_DIRECTIVE = re.compile(r"(?m)^\s*(?:`{3,}|:{3,})\{glue(?::[a-z]*)?\}\s+(\S+)")


class Chapter:
    """A chapter split into its code (the code cells' source) and its prose: the text with
    every code fence, the front matter and the directive options blanked, line for line."""

    def __init__(self, text: str, name: str = "chapter"):
        self.name = name
        self.text = text
        lines = text.split("\n")
        prose = list(lines)
        code: list[str] = []

        def blank(i: int) -> None:
            prose[i] = " " * len(prose[i])

        def blank_yaml(start: int) -> int:
            """Blank a block from its opening --- to its closing ---; the line after it."""
            j = start + 1
            while j < len(lines) and lines[j].strip() != "---":
                j += 1
            for k in range(start, min(j + 1, len(lines))):
                blank(k)
            return j + 1

        i = blank_yaml(0) if lines and lines[0].strip() == "---" else 0  # front matter
        stack: list[tuple[str, int]] = []  # open prose-holding fences: (char, length)
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            ticks, info = m.group(2), m.group(3)
            if not info:  # a closing fence
                if stack and stack[-1][0] == ticks[0] and len(ticks) >= stack[-1][1]:
                    stack.pop()
                blank(i)
                i += 1
                continue
            directive = re.match(r"\{([\w:-]+)\}\s*(.*)", info)
            name = directive.group(1) if directive else None
            blank(i)
            if name is None or name in CODE_DIRECTIVES:
                # A code fence (```python, ```{code-cell}, ```{math}...): skip to its end.
                body = []
                j = i + 1
                while j < len(lines):
                    c = FENCE.match(lines[j])
                    if c and not c.group(3) and c.group(2)[0] == ticks[0] and len(c.group(2)) >= len(ticks):
                        break
                    body.append(lines[j])
                    blank(j)
                    j += 1
                if j < len(lines):
                    blank(j)
                if name == "code-cell":
                    code.append("\n".join(body))
                i = j + 1
                continue
            # A directive that holds prose (note, admonition, figure, exercise...): its
            # argument is prose (a title) unless it is a path; its options are not.
            if name not in PATH_ARGUMENT:
                prose[i] = " " * (len(lines[i]) - len(directive.group(2))) + directive.group(2)
            stack.append((ticks[0], len(ticks)))
            j = i + 1
            if j < len(lines) and lines[j].strip() == "---":  # YAML options block
                j = blank_yaml(j)
            while j < len(lines) and re.match(r"^\s*:[\w-]+:(\s|$)", lines[j]):
                blank(j)
                j += 1
            i = j
        self.code = "\n".join(code)
        self.prose = "\n".join(prose)

    # --- glue ---------------------------------------------------------------------------

    def glued(self) -> tuple[set[str], dict[str, re.Pattern]]:
        """The literal names glued in the code cells, and the f-string ones as patterns."""
        literal, patterns = set(), {}
        for f, _, name in GLUE_CALL.findall(self.code):
            if f:
                parts = re.split(r"\{[^{}]*\}", name)
                patterns[name] = re.compile(r"[\w.-]+".join(re.escape(p) for p in parts) + r"\Z")
            else:
                literal.add(name)
        return literal, patterns

    def read(self) -> dict[str, int]:
        """The glued names the prose reads, each with the line of its first reading."""
        names: dict[str, int] = {}
        for rx in (GLUE_ROLE, GLUE_DIRECTIVE):
            for m in rx.finditer(self.text):
                names.setdefault(m.group(1), self.text.count("\n", 0, m.start()) + 1)
        return names

    # --- typed numbers ------------------------------------------------------------------

    def masked(self) -> str:
        """The prose with everything that may hold digits blanked (same length, same lines)."""
        s = self.prose

        def sub(rx: str, text: str, flags: int = 0, keep: int | None = None) -> str:
            def repl(m: re.Match) -> str:
                if keep is not None and m.group(keep) is not None:
                    # blank all but the group `keep` (the visible text of a {term})
                    a, b = m.span(keep)
                    a -= m.start()
                    b -= m.start()
                    g = m.group(0)
                    return re.sub(r"[^\n]", " ", g[:a]) + g[a:b] + re.sub(r"[^\n]", " ", g[b:])
                return re.sub(r"[^\n]", " ", m.group(0))

            return re.sub(rx, repl, text, flags=flags)

        s = sub(r"<!--.*?-->", s, re.S)  # HTML comments
        # {term}`text <target>` and {term}`text`: the text is prose, the target is not.
        s = sub(r"\{term\}`([^`<]*?)(?:\s*<[^`>]*>)?`", s, keep=1)
        s = sub(r"\{[\w:-]+\}`[^`]*`", s)  # every other role: glue, cite, math, ref, doc...
        s = sub(r"(``+)(?!`).*?(?<!`)\1(?!`)", s, re.S)  # inline code, double backticks too
        s = sub(r"`[^`\n]+`", s)  # inline code
        s = sub(r"\$\$.*?\$\$", s, re.S)  # display math
        s = sub(r"(?<![\\$])\$(?=\S)[^$\n]*?(?<=\S)\$(?!\$)", s)  # inline math
        s = sub(r"\]\([^)\s]*\)", s)  # link targets
        s = sub(r"\]\[[^\]]*\]", s)  # reference-style link labels
        s = sub(r"(?m)^\[[^\]]+\]:\s*\S+.*$", s)  # link definitions
        s = sub(r"<https?://[^>]*>|https?://\S+", s)  # URLs
        s = sub(r"(?m)^\s*\([\w:./-]+\)=\s*$", s)  # labels "(name)="
        s = sub(r"</?[a-zA-Z][^>\n]*>", s)  # HTML tags and their attributes
        s = sub(r"\[\^[\w-]+\]", s)  # footnote references
        s = sub(r"\{\{[^}]*\}\}", s)  # substitutions
        return s

    def typed_numbers(self) -> list[tuple[int, str]]:
        """(line, text of the line) for every line of prose with a digit nobody allowed."""
        s = self.masked()
        for rx in ALLOWED_RE:
            s = rx.sub(lambda m: re.sub(r"\d", " ", m.group(0)), s)
        # A number in a sentence that cites its source is a cited number: the sentence is
        # the text from the last sentence end (". ", "? ", "! " or a blank line) before a
        # {cite} role to the next one after it.
        for m in re.finditer(r"\{cite(?::\w+)?\}`", self.text):
            a = max(self.text.rfind(". ", 0, m.start()), self.text.rfind("\n\n", 0, m.start()),
                    self.text.rfind("? ", 0, m.start()), self.text.rfind("! ", 0, m.start()))
            ends = [e for e in (self.text.find(x, m.end()) for x in (". ", ".\n", "\n\n", "? ")) if e >= 0]
            b = min(ends) if ends else len(s)
            s = s[:a + 1] + re.sub(r"\d", " ", s[a + 1:b]) + s[b:]
        out, lines, raw = [], s.split("\n"), self.text.split("\n")
        for n, line in enumerate(lines, 1):
            if re.search(r"\d", line):
                out.append((n, raw[n - 1].strip()))
        return out


def load(path: Path) -> Chapter:
    return Chapter(path.read_text(encoding="utf-8"), path.stem)


IDS = [p.stem for p in CHAPTERS]


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_read_glue_is_glued(path):
    ch = load(path)
    literal, patterns = ch.glued()
    missing = [
        f"{path.name}:{line}: {{glue}}`{name}` is read but never glued"
        for name, line in ch.read().items()
        if name not in literal and not any(p.match(name) for p in patterns.values())
    ]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_glue_is_read(path):
    ch = load(path)
    literal, patterns = ch.glued()
    read = ch.read()
    unread = [n for n in sorted(literal) if n not in read and (path.stem, n) not in UNREAD_OK]
    unread += [
        f"{src} (no name of this f-string is read)"
        for src, p in patterns.items()
        if not any(p.match(n) for n in read) and (path.stem, src) not in UNREAD_OK
    ]
    assert not unread, f"{path.name}: glued, never read: " + ", ".join(unread)


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_no_typed_numbers(path):
    found = load(path).typed_numbers()
    assert not found, "numbers typed in the prose (glue them, cite them or reword):\n" + "\n".join(
        f"{path.name}:{n}: {text}" for n, text in found
    )


# --- the checks check: a planted error fails, the allowed forms pass ----------------------

PLANTED = """\
---
kernelspec:
  name: python3
---
# A chapter (2024)

```{code-cell} ipython3
glue("n_ids", 8000, display=False)
for k in ("a", "b"):
    glue(f"rate_{k}", 1.5, display=False)
```

Chapter 4 trained {glue:text}`n_ids:,d` ids with UTF-8 and GPT-2, at
{glue:text}`rate_a:.2f` per word, U+0020 and $x_1 = 2$ in `code 3`
{cite:p}`kudo2018subword`; see {numref}`fig-3` and [a link](https://x.org/1).

:::{figure} images/fig2.png
:width: 80%
The caption of Fig. 4.1.
:::

1. A list's first item.
"""


def test_planted_typed_number_fails(tmp_path):
    clean = Chapter(PLANTED)
    assert clean.typed_numbers() == []
    literal, patterns = clean.glued()
    assert literal == {"n_ids"} and set(patterns) == {"rate_{k}"}
    assert set(clean.read()) == {"n_ids", "rate_a"}
    # A number typed in the prose, in a caption, in an admonition's title, in a {term}.
    for planted in ("It has 8,000 ids.", "About 40 % of them.", "{term}`BPE 3 <byte pair encoding>`"):
        path = tmp_path / "99_planted.md"
        path.write_text(PLANTED.replace("A list's first item.", planted), encoding="utf-8")
        found = load(path).typed_numbers()
        assert [n for n, _ in found] == [PLANTED.count("\n")], (planted, found)
        with pytest.raises(AssertionError, match="99_planted.md:"):
            test_no_typed_numbers(path)
    # A name read but not glued, and a name glued but not read.
    path = tmp_path / "99_planted.md"
    path.write_text(PLANTED + "\nRead {glue:text}`n_tokens`.\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="n_tokens"):
        test_every_read_glue_is_glued(path)
    path.write_text(PLANTED.replace("{glue:text}`rate_a:.2f`", "one"), encoding="utf-8")
    with pytest.raises(AssertionError, match="rate_"):
        test_every_glue_is_read(path)
