"""The practice page's kernel keeps what the grader keeps of a cell's printing (issue 29,
point 4): at most LimitOutput's 1,000 lines and 100,000 characters (nbgrader_config.py),
the rest cut with the grader's marker and counted; and printing stays linear (it was
quadratic: 10^5 lines took 1.7 s in the browser, 10^6 never ended)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tokgrade.selfcheck import MAX_OUTPUT_CHARS, MAX_OUTPUT_LINES, TRUNCATED, Kernel

ROOT = Path(__file__).resolve().parents[1]


def test_the_bounds_are_the_graders():
    config = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    assert f"c.LimitOutput.max_lines = {MAX_OUTPUT_LINES}" in config
    assert re.search(rf"c\.LimitOutputAndReport\.max_chars = {MAX_OUTPUT_CHARS:_}\b", config)


def test_long_printing_is_cut_with_a_note_and_fast():
    k = Kernel()
    start = time.perf_counter()
    r = k.run_cell("for i in range(200_000):\n    print(i)")
    seconds = time.perf_counter() - start
    (out,) = r["outputs"]
    assert out["text"].startswith("0\n1\n") and out["text"].count("\n") == MAX_OUTPUT_LINES + 2
    assert TRUNCATED in out["text"] and "more characters not kept" in out["text"]
    assert seconds < 5, seconds


def test_one_huge_line_is_cut_by_characters_and_streams_share_the_budget():
    r = Kernel().run_cell("import sys\nprint('x' * 150_000)\nprint('after', file=sys.stderr)\n7")
    stdout, *rest = r["outputs"]
    assert len(stdout["text"]) < MAX_OUTPUT_CHARS + 300 and stdout["text"].startswith("x" * 1000)
    assert TRUNCATED in "".join(o.get("text", "") for o in r["outputs"])
    assert rest[-1]["data"]["text/plain"] == "7"  # the value is not output that is cut


def test_short_output_is_untouched():
    r = Kernel().run_cell("import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')")
    assert [(o["name"], o["text"]) for o in r["outputs"]] == [("stdout", "a\n"), ("stderr", "b\n"), ("stdout", "c\n")]
