"""Write solutions/tokref/wordpiece/unicode_tables.json: every Unicode table that
tokref.wordpiece needs to give the answers of Hugging Face ``tokenizers`` 0.23.3 (its BERT
normalizer and pre-tokenizer), read off the library itself, one code point at a time.

Why a file and not ``unicodedata``: Python's Unicode database changes with the interpreter
(13.0.0 in Python 3.10, 14.0.0 in 3.11, 15.0.0 in 3.12, 15.1.0 in 3.13), while tokenizers'
tables are fixed when it is built, and older or newer than any Python's. With the tables
in a file, tokref gives tokenizers' answers on every Python.

The Unicode versions of the tables (each checked by testing, as said):

- NFD (canonical decompositions) and canonical combining classes: **Unicode 9.0.0**, the
  tables of the crate ``unicode-normalization-alignments`` 0.1.12 (its ``UNICODE_VERSION``
  is ``(9, 0, 0)``). Checked: on every code point, tokenizers' NFD and ordering equal those
  of Python 3.6's ``unicodedata``, whose ``unidata_version`` is 9.0.0, and the classes this
  script writes are Python 3.6's (``--check-ucd python3.6``).
- General categories (Cc, Cf, Co removed; P* isolated; Mn dropped after NFD): the crate
  ``unicode_categories`` 0.1.1, made from **Unicode 8.0.0**'s UnicodeData.txt (U+2E43,
  punctuation since 9.0, is not punctuation to tokenizers).
- Lowercase: Rust's ``char::to_lowercase`` of the toolchain that built the tokenizers 0.23.3
  wheel, **Unicode 17.0.0** (it lowercases U+A7CB and U+16EA0, Unicode 16.0 and 17.0
  characters).
- White space: Rust's ``char::is_whitespace`` (the White_Space property, unchanged since
  Unicode 6.3).

Only the combining classes' values are not observable one by one (only their order is);
they are taken from the running Python's ``unicodedata`` for exactly the marks tokenizers
reorders, which is the same on every Python from 3.6 on (Unicode's stability policy: a
character's combining class never changes once assigned).

Run from the repository root with .venv's Python (tokenizers==0.23.3):

    .venv/bin/python solutions/scripts/make_unicode_tables.py            # write the file
    .venv/bin/python solutions/scripts/make_unicode_tables.py --check    # compare with it
    .venv/bin/python solutions/scripts/make_unicode_tables.py --check-ucd ~/.pyenv/versions/3.6.15/bin/python3.6
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import tokenizers
from tokenizers import normalizers, pre_tokenizers

OUT = Path(__file__).resolve().parents[1] / "tokref" / "wordpiece" / "unicode_tables.json"
TOKENIZERS_VERSION = "0.23.3"
CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
CHARS = [chr(c) for c in CODE_POINTS]
HANGUL_FIRST, HANGUL_COUNT = 0xAC00, 11172  # syllables: NFD by arithmetic, not by table

# BertNormalizer's is_chinese_char (bert.rs), range by range in its order; checked below.
CJK = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
       (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]

ABOUT = [
    "Unicode tables of tokref.wordpiece, read at import by tokref/wordpiece/normalization.py,",
    "so that it gives the answers of Hugging Face tokenizers 0.23.3 on every Python (Python's",
    "unicodedata is 13.0.0 in 3.10, 14.0.0 in 3.11, 15.0.0 in 3.12, 15.1.0 in 3.13). Written by",
    "solutions/scripts/make_unicode_tables.py, which reads each table off tokenizers 0.23.3,",
    "one code point at a time; tests/test_wordpiece.py compares the result on every code point.",
    "",
    "Unicode versions: NFD and combining classes are Unicode 9.0.0 (the crate",
    "unicode-normalization-alignments 0.1.12; equal on every code point to Python 3.6's",
    "unicodedata 9.0.0); the categories (Cc Cf Co, P*, Mn) Unicode 8.0.0 (the crate",
    "unicode_categories 0.1.1); lowercase Unicode 17.0.0 (Rust's char::to_lowercase);",
    "white space Rust's char::is_whitespace (White_Space).",
    "",
    "Formats: 'ranges' are [start, end] code points, both ends included, in hexadecimal;",
    "normalization.py turns each list into a regex character class. 'classes' are [start, end,",
    "class]: every code point in start..end has that canonical combining class (decimal); the",
    "others have 0. 'mappings' are [start, end, target]: cp in start..end maps to target + cp -",
    "start, or, when target holds several code points (separated by spaces), start == end maps",
    "to them. 'decompositions' are [code point, its full canonical decomposition].",
]


def hexs(cp: int) -> str:
    return f"{cp:04X}"


def to_ranges(cps: set[int] | list[int]) -> list[list[str]]:
    out: list[list[int]] = []
    for c in sorted(cps):
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return [[hexs(s), hexs(e)] for s, e in out]


def per_char(normalize, chars: list[str], sep: str) -> list[str]:
    """``normalize`` of each character, in one call: ``sep`` between them."""
    out = normalize(sep.join(chars)).split(sep)
    assert len(out) == len(chars), "a separator was normalized away"
    return out


def bert(**flags) -> normalizers.BertNormalizer:
    options = dict(clean_text=False, handle_chinese_chars=False, strip_accents=False, lowercase=False)
    options.update(flags)
    return normalizers.BertNormalizer(**options)


def hangul_nfd(cp: int) -> str:
    s = cp - HANGUL_FIRST
    t = s % 28
    return chr(0x1100 + s // 588) + chr(0x1161 + (s % 588) // 28) + (chr(0x11A7 + t) if t else "")


def read_nfd() -> dict[int, str]:
    """tokenizers' NFD of every character that it changes (Hangul syllables checked
    against the arithmetic, then left out). A starter between characters: no reordering
    crosses it."""
    nfd = per_char(normalizers.NFD().normalize_str, [c for c in CHARS if c != "\x00"], "\x00")
    out = {}
    for c, d in zip((c for c in CHARS if c != "\x00"), nfd):
        cp = ord(c)
        if HANGUL_FIRST <= cp < HANGUL_FIRST + HANGUL_COUNT:
            assert d == hangul_nfd(cp), hex(cp)
        elif d != c:
            out[cp] = d
    return out


def read_classes(nfd: dict[int, str]) -> dict[int, int]:
    """The combining class tokenizers' NFD sorts each character by: Python's class for the
    marks that tokenizers reorders (a mark of class c < 230 goes before U+0301, class 230;
    one of class c >= 230 after U+0334, class 1), 0 for the marks it does not know."""
    marks = [cp for cp in CODE_POINTS if unicodedata.combining(chr(cp)) and cp not in nfd]
    probes = [f"\u0301{chr(cp)}" if unicodedata.combining(chr(cp)) < 230 else f"{chr(cp)}\u0334"
              for cp in marks]
    got = per_char(normalizers.NFD().normalize_str, probes, "a")
    classes = {}
    for cp, probe, out in zip(marks, probes, got):
        assert out in (probe, probe[::-1]), hex(cp)
        if out != probe:
            classes[cp] = unicodedata.combining(chr(cp))
    # A decomposing character is never sorted (its decomposition is); its class is the
    # first character's of the decomposition, as in UnicodeData.txt.
    for cp, d in nfd.items():
        if unicodedata.combining(chr(cp)):
            assert classes.get(ord(d[0]), 0) == unicodedata.combining(chr(cp)), hex(cp)
            classes[cp] = unicodedata.combining(chr(cp))
    return classes


def read_lowercase() -> dict[int, str]:
    low = per_char(bert(lowercase=True).normalize_str, [c for c in CHARS if c != "\x00"], "\x00")
    return {ord(c): lo for c, lo in zip((c for c in CHARS if c != "\x00"), low) if lo != c}


def read_categories(nfd: dict[int, str]) -> dict[str, set[int]]:
    chars = [c for c in CHARS if c != "a"]
    text = "a".join(chars)
    cleaned = bert(clean_text=True).normalize_str(text).split("a")
    assert len(cleaned) == len(chars)
    removed = {ord(c) for c, s in zip(chars, cleaned) if s == ""}
    spaces = {ord(c) for c, s in zip(chars, cleaned) if s == " " and c != " "} | {0x20}
    splits = pre_tokenizers.BertPreTokenizer().pre_tokenize_str(text)
    punct = {ord(s) for s, _ in splits if len(s) == 1 and s != "a"}
    ends = [0] + [end for _, (_, end) in splits]
    starts = [start for _, (start, _) in splits] + [len(text)]
    white = {ord(text[k]) for e, s in zip(ends, starts) for k in range(e, s)}
    # Mn: what strip_accents drops, among the characters NFD leaves alone (a character that
    # decomposes never reaches the test; its pieces do).
    alone = [c for c in chars if ord(c) not in nfd and not HANGUL_FIRST <= ord(c) < HANGUL_FIRST + HANGUL_COUNT]
    stripped = per_char(bert(strip_accents=True).normalize_str, alone, "a")
    mn = {ord(c) for c, s in zip(alone, stripped) if s == ""}
    cjk_out = per_char(bert(handle_chinese_chars=True).normalize_str, [c for c in CHARS if c != "\x01"], "\x01")
    cjk = {ord(c) for c, s in zip((c for c in CHARS if c != "\x01"), cjk_out) if s == f" {c} "}
    assert cjk == {cp for s, e in CJK for cp in range(s, e + 1)}, "is_chinese_char changed"
    return {"other": removed, "punctuation": punct, "nonspacing_mark": mn, "whitespace": spaces,
            "rust_white_space": white}


def lowercase_rows(low: dict[int, str]) -> list[list[str]]:
    rows: list[list[int | str]] = []
    for cp in sorted(low):
        lo = low[cp]
        if len(lo) != 1:
            rows.append([cp, cp, " ".join(hexs(ord(x)) for x in lo)])
        elif rows and isinstance(rows[-1][2], int) and rows[-1][1] == cp - 1 \
                and rows[-1][2] + cp - rows[-1][0] == ord(lo):
            rows[-1][1] = cp
        else:
            rows.append([cp, cp, ord(lo)])
    return [[hexs(s), hexs(e), t if isinstance(t, str) else hexs(t)] for s, e, t in rows]


def class_rows(classes: dict[int, int]) -> list[list[str | int]]:
    rows: list[list[int]] = []
    for cp in sorted(classes):
        if rows and rows[-1][1] == cp - 1 and rows[-1][2] == classes[cp]:
            rows[-1][1] = cp
        else:
            rows.append([cp, cp, classes[cp]])
    return [[hexs(s), hexs(e), c] for s, e, c in rows]


def build() -> dict:
    assert tokenizers.__version__ == TOKENIZERS_VERSION, tokenizers.__version__
    nfd = read_nfd()
    classes = read_classes(nfd)
    cats = read_categories(nfd)
    low = read_lowercase()
    tables = {
        "other": {
            "about": "What BertNormalizer's clean_text removes: is_other (Cc, Cf, Co of the unicode_categories crate 0.1.1, Unicode 8.0) plus \\x00 and \\ufffd; \\t, \\n and \\r are not in it (they become spaces).",
            "ranges": to_ranges(cats["other"]),
        },
        "punctuation": {
            "about": "What BertPreTokenizer isolates as a word of its own: Rust's is_ascii_punctuation (33-47, 58-64, 91-96, 123-126) or the unicode_categories crate's P* (Unicode 8.0).",
            "ranges": to_ranges(cats["punctuation"]),
        },
        "nonspacing_mark": {
            "about": "What strip_accents drops after NFD: the unicode_categories crate's Mn (Unicode 8.0), among the characters NFD leaves as they are (one that decomposes is never tested; its pieces are).",
            "ranges": to_ranges(cats["nonspacing_mark"]),
        },
        "cjk": {
            "about": "BertNormalizer's is_chinese_char, range by range, in its order (not sorted, not merged). 0x2B820-0x2B91F is missing in the original too (it reads 0x2B920), so this keeps the gap.",
            "ranges": [[hexs(s), hexs(e)] for s, e in CJK],
        },
        "whitespace": {
            "about": "Whitespace as BERT sees it after cleaning: Rust's char::is_whitespace (the Unicode White_Space property) minus \\x0b, \\x0c and \\x85, which are control characters and are removed by the cleaning step before whitespace is mapped to ' '. So 'a\\x0bb' is one word, 'ab'.",
            "ranges": to_ranges(cats["whitespace"]),
        },
        "rust_white_space": {
            "about": "What Rust's str::trim_end removes (char::is_whitespace, White_Space), which Hugging Face applies to each line of a vocab.txt; read off BertPreTokenizer, which splits on the same predicate. Python's str.rstrip() would also remove \\x1c-\\x1f.",
            "ranges": to_ranges(cats["rust_white_space"]),
        },
        "nfd": {
            "about": "tokenizers' NFD (unicode-normalization-alignments 0.1.12, Unicode 9.0.0): the full canonical decomposition of every character that has one, except the Hangul syllables U+AC00..U+D7A3, which decompose by arithmetic (the Unicode Standard, section 3.12). Python's NFD has more (U+11938, Unicode 13.0).",
            "decompositions": [[hexs(cp), " ".join(hexs(ord(x)) for x in d)] for cp, d in sorted(nfd.items())],
        },
        "combining_class": {
            "about": "The canonical combining class of each character by which tokenizers' NFD reorders marks (Unicode 9.0.0); 0 for every other, including the marks Unicode added later (U+0C3C, Unicode 14.0), which it does not reorder.",
            "classes": class_rows(classes),
        },
        "lowercase": {
            "about": "Rust's char::to_lowercase (Unicode 17.0.0), which BertNormalizer applies one character at a time: no final-sigma rule, U+0130 to i + U+0307; every character it changes.",
            "mappings": lowercase_rows(low),
        },
    }
    return {"about": ABOUT, "tables": tables}


def dump(data: dict) -> str:
    # One row per line: the file stays readable and its diffs small.
    lines = ["{", '  "about": [']
    lines += [f"    {json.dumps(s, ensure_ascii=False)}," for s in data["about"]]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["  ],", '  "tables": {']
    names = list(data["tables"])
    for i, name in enumerate(names):
        table = data["tables"][name]
        (key, rows), = [(k, v) for k, v in table.items() if k != "about"]
        lines += [f"    {json.dumps(name)}: {{", f'      "about": {json.dumps(table["about"], ensure_ascii=False)},',
                  f"      {json.dumps(key)}: ["]
        lines += [f"        {json.dumps(row)}," for row in rows]
        lines[-1] = lines[-1].rstrip(",")
        lines += ["      ]", "    }" + ("," if i < len(names) - 1 else "")]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


UCD_PROBE = r"""
import json, sys, unicodedata
out = {"version": unicodedata.unidata_version, "nfd": {}, "ccc": {}}
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF or 0xAC00 <= cp <= 0xD7A3:
        continue
    c = chr(cp)
    d = unicodedata.normalize("NFD", c)
    if d != c:
        out["nfd"][cp] = d
    if unicodedata.combining(c):
        out["ccc"][cp] = unicodedata.combining(c)
json.dump(out, sys.stdout)
"""


def check_ucd(python: str, data: dict) -> None:
    """The NFD and combining classes written equal those of ``python``'s unicodedata."""
    ucd = json.loads(subprocess.run([python, "-c", UCD_PROBE], capture_output=True, text=True,
                                    check=True).stdout)
    tables = data["tables"]
    nfd = {int(cp, 16): "".join(chr(int(x, 16)) for x in d.split())
           for cp, d in tables["nfd"]["decompositions"]}
    ccc = {cp: c for s, e, c in tables["combining_class"]["classes"]
           for cp in range(int(s, 16), int(e, 16) + 1)}
    theirs_nfd = {int(k): v for k, v in ucd["nfd"].items()}
    theirs_ccc = {int(k): v for k, v in ucd["ccc"].items()}
    print(f"{python}: unicodedata {ucd['version']}")
    print(f"  NFD: {len(nfd)} here, {len(theirs_nfd)} there, equal: {nfd == theirs_nfd}",
          "" if nfd == theirs_nfd else sorted(set(nfd.items()) ^ set(theirs_nfd.items()))[:10])
    print(f"  combining classes: {len(ccc)} here, {len(theirs_ccc)} there, equal: {ccc == theirs_ccc}",
          "" if ccc == theirs_ccc else sorted(set(ccc.items()) ^ set(theirs_ccc.items()))[:10])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    ap.add_argument("--check-ucd", metavar="PYTHON",
                    help="compare NFD and combining classes with PYTHON's unicodedata")
    args = ap.parse_args()
    data = build()
    text = dump(data)
    assert json.loads(text) == data
    if args.check_ucd:
        check_ucd(args.check_ucd, data)
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print(f"{OUT}: {'up to date' if same else 'differs from what the library gives'}")
        sys.exit(0 if same else 1)
    if not args.check_ucd:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
