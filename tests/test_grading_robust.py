"""One submission never costs the class its grades, and grading's files are the grader's
alone (issue 34, F7 and F8), on a released copy of ``chars``:

- a notebook of JSON nested 200,000 deep beside an honest one: grading finishes, the deep
  one fails alone (its row says so), the honest one keeps 10/10, and ``grades.csv`` and
  the report are written anew: a report left by an earlier run is replaced, and the new
  one says when it was made and by which run;
- while ``grade.py`` grades (as root here: the kernel runs as a uid of its own), another
  user polls the grader's temporary directory (``TMPDIR``, open to all like ``/tmp``) for
  the sandbox's folders and tries to list them and read every file in them: it sees the
  folders come and go and reads nothing (the reviewer's poller read another student's
  files and the hidden tests' inputs, ``grading/cases.json``).

About 40 s on 2 busy cores (a release and two gradings of two notebooks).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import copy_course
from grading_helpers import run, solutions, submission, write_nb

pytestmark = pytest.mark.slow

POLLER = r'''
import json, os, sys, time
seen, read, listed = set(), [], []
end = time.monotonic() + float(sys.argv[1])
before = set(os.listdir(sys.argv[3]))  # what an earlier run left behind is not this grading

def try_read(path):
    try:
        with open(path, "rb") as fh:
            fh.read(1)
        read.append(path)
    except OSError:
        pass

while time.monotonic() < end and not os.path.exists(sys.argv[2]):
    try:
        names = [n for n in os.listdir(sys.argv[3]) if n.startswith("tokgrade-") and n not in before]
    except OSError:
        names = []
    for n in names:
        top = os.path.join(sys.argv[3], n)
        seen.add(n)
        for d, dirs, files in os.walk(top):  # os.walk says nothing of what it cannot list
            listed.append(d)
            for f in files:
                try_read(os.path.join(d, f))
        for guess in ("grading/cases.json", "home/chars.ipynb", "ipc/kernel.json", "site/tokgrade/grading.py"):
            try_read(os.path.join(top, guess))
    time.sleep(0.01)
print(json.dumps({"seen": sorted(seen), "read": sorted(set(read)), "listed": sorted(set(listed))}))
'''


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def deep_notebook(depth: int = 200_000) -> str:
    """Valid JSON that no recursive parser reads: a notebook whose first cell's source is
    a list nested ``depth`` deep."""
    nb = '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": '
    return nb + "[" * depth + "]" * depth + '}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = copy_course(tmp_path_factory.mktemp("robust") / "course")
    assert run([sys.executable, "autograder/release.py", "chars"], course).returncode == 0
    full = solutions(load(course / "source/chars/chars.ipynb"))
    write_nb(course / "submitted/alice/chars/chars.ipynb", submission(load(course / "exercises/chars/chars.ipynb"), full))
    return course


def test_deep_json_fails_alone_and_the_report_is_new(course):
    deep = course / "submitted/bob/chars/chars.ipynb"
    deep.parent.mkdir(parents=True)
    deep.write_text(deep_notebook(), encoding="utf-8")
    with pytest.raises(RecursionError):
        json.loads(deep.read_text(encoding="utf-8"))  # what stopped the report before
    stale = "# Grading report\n\nan earlier run's report\n"
    (course / "grading-report.md").write_text(stale, encoding="utf-8")
    (course / "grades.csv").write_text("assignment,student_id,score\nchars,old,1\n", encoding="utf-8")
    before = time.time()
    proc = run([sys.executable, "autograder/grade.py", "chars", "--jobs=2", "--quiet"], course)
    assert proc.returncode == 1, proc.stderr[-3000:]  # a failed row needs the instructor
    with open(course / "grades.csv", encoding="utf-8") as f:
        grades = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert grades["alice"] == 10.0 and "old" not in grades, grades
    with open(course / "grading-report.csv", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert rows["alice"]["status"] == "graded" and rows["alice"]["score"] == "10"
    assert rows["bob"]["status"] == "failed", rows["bob"]
    md = (course / "grading-report.md").read_text(encoding="utf-8")
    assert md != stale and "an earlier run" not in md
    made = md.splitlines()[2]
    assert made.startswith("Made ") and "`grade.py chars --jobs=2 --quiet`" in made and "(run " in made, made
    stamp = time.mktime(time.strptime(made[5:24], "%Y-%m-%d %H:%M:%S")) - time.timezone
    assert before - 2 <= stamp <= time.time() + 2, (made, before)
    assert not list(course.glob(".*.partial")), "a temporary file of the report was left behind"


@pytest.mark.skipif(os.geteuid() != 0, reason="another user polls the grader's files: needs root")
def test_another_user_reads_nothing_of_grading_while_it_runs(course):
    # This run's temporary directory (TMPDIR), open to all like /tmp: the poller watches it
    # and no other grading that may run on the machine meanwhile.
    signals = Path(tempfile.mkdtemp(prefix="poll-", dir="/tmp"))
    signals.chmod(0o755)
    stop, tmp = signals / "stop", signals / "tmp"
    tmp.mkdir(mode=0o1777)
    tmp.chmod(0o1777)
    poller = subprocess.Popen(["runuser", "-u", "nobody", "--", "/usr/bin/python3", "-c", POLLER, "300", str(stop),
                               str(tmp)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc = subprocess.run([sys.executable, "autograder/grade.py", "chars", "--student=alice", "--jobs=1",
                               "--quiet"], cwd=course, capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)})
        assert "graded 1 notebooks" in proc.stderr, proc.stderr[-3000:]
    finally:
        stop.touch()
        out, err = poller.communicate(timeout=60)
        shutil.rmtree(signals)
    assert out.strip(), f"the poller printed nothing: {err[-2000:]}"
    seen = json.loads(out)
    assert seen["seen"], f"the poller never saw a sandbox folder in /tmp: {err[-2000:]}"
    assert seen["read"] == [] and seen["listed"] == [], seen
    with open(course / "grading-report.csv", encoding="utf-8") as f:
        assert {r["student"]: r["score"] for r in csv.DictReader(f)}["alice"] == "10"
