"""The practice pages' Python half (issue 20): the kernel the browser's worker runs, the
self-check spec, the page made from the released notebook, and check.py.

- :class:`tokgrade.selfcheck.Kernel` runs cells as Jupyter does (last expression shown,
  printed text in order, a traceback that points into the cell);
- the spec's cases are the hidden tests' generators on seeds of their own, not the
  grader's, and hold data only;
- a practice page holds nothing of a solution or a hidden test;
- ``exercises/<a>/check.py``, run by a Python without ``tokref`` (the grading kernel's
  environment), exits 0 on the instructor's solution and non-zero, with the visible
  test's message, on the classic mistakes of ``tests/wrong_solutions/``: all of them for
  every assignment but ``bpe`` and the capstone, whose self-checks take 5 to 30 s a
  notebook (training on the real corpus), where the first mistake of each part is checked.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from test_wrong_solutions import ASSIGNMENTS, first_of_each_part, student_notebook, wrong_solutions
from tokgrade.grading import collect_hidden_tests, run_cases
from tokgrade.selfcheck import Kernel, check_notebook, format_report
from tokgrade.typed_json import from_json

sys.path.insert(0, str(ROOT / "book" / "_ext"))
import practice_pages as practice  # noqa: E402  (book/_ext/practice_pages.py)
from autograder import selfcheck_spec  # noqa: E402

EXERCISES = ROOT / "exercises"
KERNEL_PYTHON = ROOT / ".venv" / "kernel" / "bin" / "python"  # what students have: no tokref
# check.py on the first catalog entry of each part (the whole catalog goes through the
# visible tests in test_wrong_solutions, and check.py runs the same cells; the whole
# catalog was measured once, issue 28's closing note). A self-check of these trains on a
# corpus (30 to 60 s each): the first entry, or the first two parts', only.
AT_MOST = {"capstone": 1, "bpe": 2}


def spec_of(assignment: str) -> dict:
    return json.loads(gzip.decompress((EXERCISES / assignment / "selfcheck.json.gz").read_bytes()))


# ---------------------------------------------------------------------------------------
# The kernel
# ---------------------------------------------------------------------------------------


def test_kernel_shows_the_last_expression_and_printed_text_in_order():
    k = Kernel()
    r = k.run_cell("import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\nx = 2\nx + 40")
    assert r["ok"] and r["execution_count"] == 1
    assert r["outputs"] == [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stderr", "text": "b\n"},
        {"output_type": "stream", "name": "stdout", "text": "c\n"},
        {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "42"}, "metadata": {}}]
    # One namespace, as in a kernel; None is not shown; `_` is the last value.
    r = k.run_cell("y = x * 2\nNone")
    assert r["outputs"] == [] and k.namespace["y"] == 4 and k.namespace["_"] == 42
    assert k.run_cell("_ + 1")["outputs"][0]["data"]["text/plain"] == "43"


def test_kernel_traceback_points_into_the_cell():
    k = Kernel()
    k.run_cell("def f(x):\n    return 1 / x\n")
    r = k.run_cell("a = 1\nb = 2\nf(0)\n", "demo-cell")
    assert not r["ok"]
    error = r["outputs"][-1]
    assert (error["output_type"], error["ename"], error["evalue"]) == ("error", "ZeroDivisionError", "division by zero")
    text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error["traceback"]))
    assert "Cell In[2], line 3" in text and "----> 3   f(0)" in text, text
    assert "Cell In[1], line 2" in text and "return 1 / x" in text, text
    assert "selfcheck.py" not in text, "the kernel's own frames are left out"
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")


@pytest.mark.parametrize("code, ename", [("def f(:\n    pass", "SyntaxError"), ("raise SystemExit(3)", "SystemExit"),
                                          ("print('before')\nassert 1 == 2, 'the rule'", "AssertionError")])
def test_kernel_reports_any_exception_as_an_error_output(code, ename):
    r = Kernel().run_cell(code)
    assert not r["ok"] and r["outputs"][-1]["ename"] == ename
    if ename == "AssertionError":
        assert r["outputs"][0] == {"output_type": "stream", "name": "stdout", "text": "before\n"}
        assert r["outputs"][-1]["evalue"] == "the rule"


# ---------------------------------------------------------------------------------------
# The spec
# ---------------------------------------------------------------------------------------


def test_self_check_cases_are_not_the_graders():
    """Seeded hidden tests get other cases in the self-check; unseeded ones the same."""
    source = json.loads((ROOT / "source" / "chars" / "chars.ipynb").read_text(encoding="utf-8"))
    grading = {}
    for cell in source["cells"]:
        for code in selfcheck_spec.HIDDEN_RE.findall("".join(cell["source"])):
            for test in collect_hidden_tests(code):
                grading[test.name] = test.generate()[1]
    spec = {t["name"]: [(from_json(a), from_json(k)) for a, k in t["cases"]] for t in spec_of("chars")["tests"]}
    assert set(spec) == set(grading)
    assert spec["build_char_vocab"] != grading["build_char_vocab"]  # random.Random(101) and random_texts
    assert len(spec["build_char_vocab"]) == len(grading["build_char_vocab"])
    assert spec["decode_chars (basic)"] == grading["decode_chars (basic)"]  # the visible calls, no seed


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_spec_is_the_references_outcomes_on_data(assignment):
    """Every hidden test is in the spec with its cell, its cases and as many outcomes;
    the spec names functions the released notebook defines; its parts are the notebook's."""
    spec = spec_of(assignment)
    released = json.loads((EXERCISES / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8"))
    assert spec["parts"], spec["unscored"] == selfcheck_spec.notebook_parts(released)
    cells = {c["grade_id"] for p in spec["parts"] for c in p["cells"]}
    code = "\n".join("".join(c["source"]) for c in released["cells"] if c["cell_type"] == "code")
    for test in spec["tests"]:
        assert test["cell"] in cells
        assert len(test["cases"]) == len(test["expected"]) > 0
        assert re.search(rf"^def {test['function']}\(", code, re.M), test["function"]
    text = gzip.decompress((EXERCISES / assignment / "selfcheck.json.gz").read_bytes()).decode()
    assert "import tokref" not in text and "def " not in text.replace("\\ndef ", ""), "data only"


def test_other_seeds_restores_random():
    import random

    before = random.Random(5).random()
    with selfcheck_spec.other_seeds():
        inside = random.Random(5).random()
    assert random.Random(5).random() == before != inside


# ---------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_page_holds_no_solution_and_no_hidden_test(assignment):
    page = practice.practice_page(assignment)
    source = json.loads((ROOT / "source" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8"))
    released = (EXERCISES / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8")
    secret = set()
    for cell in source["cells"]:
        text = "".join(cell["source"])
        for block in re.findall(r"BEGIN (?:SOLUTION|HIDDEN TESTS)\n(.*?)### END", text, re.S):
            secret |= {line.strip() for line in block.splitlines() if len(line.strip()) > 25}
    secret = {line for line in secret if json.dumps(line)[1:-1] not in released}
    assert secret, "there are solution lines to look for"
    leaked = [line for line in secret if line in page or json.dumps(line)[1:-1] in page]
    assert not leaked, leaked[:3]
    assert "BEGIN SOLUTION" not in page and "HIDDEN TESTS" not in page
    data = json.loads(re.search(r'id="tp-data">(.*?)</script>', page, re.S).group(1).replace("<\\/", "</"))
    kinds = {c["kind"] for c in data["cells"]}
    assert {"setup", "solution", "test"} <= kinds
    assert [c["grade_id"] for c in data["cells"] if c["kind"] == "solution"] == [
        p["part"] for p in spec_of(assignment)["parts"]]


# ---------------------------------------------------------------------------------------
# check.py, with no tokref
# ---------------------------------------------------------------------------------------


def kernel_python() -> str:
    if not KERNEL_PYTHON.exists():
        pytest.skip("no .venv/kernel (`make setup` makes it): check.py is tested where tokref is absent")
    proc = subprocess.run([str(KERNEL_PYTHON), "-c", "import tokref"], capture_output=True)
    assert proc.returncode != 0, "the kernel's Python must not have tokref"
    return str(KERNEL_PYTHON)


def run_check(assignment: str, nb: dict, folder: Path) -> tuple[int, str, dict]:
    """check.py on ``nb`` in a copy of the released folder: exit status, output, report."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in (EXERCISES / assignment).iterdir():
        shutil.copy(f, folder / f.name)
    (folder / f"{assignment}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    # Its own temporary directory: the capstone writes its files to tempfile.gettempdir(),
    # and other test files run notebooks at the same time.
    env = {**os.environ, "TMPDIR": str(folder)}
    proc = subprocess.run([kernel_python(), str(folder / "check.py"), "--json"], capture_output=True,
                          text=True, timeout=900, cwd=folder.parent, env=env)
    out = proc.stdout
    assert "\n{" in out, out[-3000:] + proc.stderr[-3000:]
    return proc.returncode, out, json.loads(out[out.index("\n{") + 1:])


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_check_py_passes_the_instructors_solution(assignment, tmp_path):
    rc, out, report = run_check(assignment, student_notebook(assignment, {}), tmp_path / assignment)
    assert rc == 0 and report["total"] == report["max_total"] > 0, out[-3000:]
    assert "Total:" in format_report(report)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_check_py_fails_the_classic_mistakes(assignment, tmp_path):
    wrong = first_of_each_part(wrong_solutions(assignment))
    wrong = dict(list(wrong.items())[:AT_MOST.get(assignment, len(wrong))])
    passed = []
    for name, w in wrong.items():
        rc, out, report = run_check(assignment, student_notebook(assignment, w["code"]), tmp_path / name)
        lines = [line for line in out.splitlines() if line.startswith("x test ")]
        if rc == 0 or report["total"] >= report["max_total"] or not lines:
            passed.append(name)
        for line in lines:
            assert re.match(r"x test [\w-]+: \w+: \S", line), (name, line)
    assert not passed, f"check.py passes these mistakes of {assignment}: {passed}"


def test_check_notebook_scores_cell_by_cell():
    """check_notebook (what check.py and the page call) on a wrong unk_rate, an int 0 for
    the empty text: the cells that see it lose their points, the others keep theirs, and
    the hidden cases report the exact type."""
    code = {"chars-unk-rate": ("def unk_rate(text, vocab):\n    if not text:\n        return 0\n"
                               "    return sum(c not in vocab for c in text) / len(text)\n")}
    report, _ = check_notebook(student_notebook("chars", code), spec_of("chars"))
    cells = {c["grade_id"]: c for p in report["parts"] for c in p["cells"]}
    assert cells["chars-unk-rate-basic"]["points"] == 1
    assert cells["chars-unk-rate-edges"]["points"] == 0 and not cells["chars-unk-rate-edges"]["visible"]["ok"]
    assert "expected a float, got a int" in cells["chars-unk-rate-edges"]["breadth"]["message"] or \
        "expected a float, got an int" in cells["chars-unk-rate-edges"]["breadth"]["message"]
    assert report["total"] == report["max_total"] - 1


# ---------------------------------------------------------------------------------------
# One report, two faces: check.py's text and the page's description say the same
# ---------------------------------------------------------------------------------------

REPORT_ASSIGNMENT = "chars"  # the cheapest self-check; every entry of its catalog


def page_words(nb: dict, spec: dict) -> list[str]:
    """What the practice page shows, as words: the page's steps in Python. Its worker runs
    each code cell in one Kernel, practice.js records each test cell's ``ename: evalue``,
    the worker calls ``Kernel.self_check_json`` (time allowance 2), and practice.js shows
    the ``description`` it returns, string by string, in this order (showReport)."""
    kernel, visible = Kernel(), {}
    graded = {c["grade_id"] for p in spec["parts"] for c in p["cells"]}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id", "cell")
        r = json.loads(kernel.run_cell_json("".join(cell["source"]), gid))
        err = next((o for o in r["outputs"] if o["output_type"] == "error"), None)
        if gid in graded:
            visible[gid] = {"ok": True, "message": None} if r["ok"] else {
                "ok": False, "message": f"{err['ename']}: {err['evalue']}"}
    d = json.loads(kernel.self_check_json(json.dumps(spec), json.dumps(visible), 2))["description"]
    shown = [d["title"]]
    for part in d["parts"]:
        shown.append(f"{part['heading']}: {part['points']}")
        for c in part["cells"]:
            shown += [c["label"], c["text"], *([] if c["message"] is None else [c["message"]])]
    return " ".join([*shown, *d["unscored"], d["total"]]).split()


@pytest.mark.slow
def test_check_py_and_the_page_say_the_same_words_and_numbers(tmp_path):
    """On the instructor's solution and on every classic mistake of one assignment, the
    report check.py prints and the one the page shows are the same words and numbers
    (both are tokgrade.selfcheck.describe_report's strings)."""
    spec = spec_of(REPORT_ASSIGNMENT)
    entries = {"solution": {}, **{n: w["code"] for n, w in wrong_solutions(REPORT_ASSIGNMENT).items()}}
    assert len(entries) > 10
    differ, failing = [], 0
    for name, code in entries.items():
        nb = student_notebook(REPORT_ASSIGNMENT, code)
        folder = tmp_path / name
        folder.mkdir()
        for f in (EXERCISES / REPORT_ASSIGNMENT).iterdir():
            shutil.copy(f, folder / f.name)
        (folder / f"{REPORT_ASSIGNMENT}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
        proc = subprocess.run([sys.executable, "-I", str(folder / "check.py")], capture_output=True,
                              text=True, timeout=300, cwd=folder, env={**os.environ, "TMPDIR": str(folder)})
        assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
        failing += proc.returncode
        text = proc.stdout[proc.stdout.index("\n\nSelf-check of "):]  # the report, after the cells' lines
        if text.split() != page_words(nb, spec):
            differ.append((name, text, " ".join(page_words(nb, spec))))
    assert failing == len(entries) - 1, "every mistake fails, the solution passes"
    assert not differ, differ[:2]
