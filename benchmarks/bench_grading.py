"""Grading throughput: the same class graded with 1 worker and with 2, in one run.

    .venv/bin/python benchmarks/bench_grading.py                 # 20 full bpe submissions, about 3 min
    .venv/bin/python benchmarks/bench_grading.py --students 8 --assignment chars
    .venv/bin/python benchmarks/bench_grading.py --class-estimate   # + 4 of each assignment, 2 workers

On a throw-away copy of the course (config, source/, autograder/, a link to .venv) it
writes ``--students`` full submissions of ``--assignment`` (the instructor's solutions)
and runs ``autograder/grade.py`` on them with ``--jobs 1`` and then ``--jobs 2`` (a full
regrade each time), timing each whole command; every submission must score full marks.
``--class-estimate`` also grades 4 full submissions of every assignment with 2 workers and
prints what 100 students × 6 assignments would take at that rate. Everything runs in the
sandbox, as real grading does. Ratios, not timed tests: numbers vary with the machine's
load.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_course(dest: Path) -> Path:
    dest.mkdir(parents=True)
    (dest / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    shutil.copy2(ROOT / "nbgrader_config.py", dest)
    for name in ("source", "autograder"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    run([sys.executable, "autograder/release.py"], dest)
    return dest


def run(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return time.perf_counter() - start


def submit(course: Path, assignment: str, students: list[str]) -> None:
    """The exercise notebook with the instructor's solution code in every solution cell."""
    source = json.loads((course / f"source/{assignment}/{assignment}.ipynb").read_text())
    code = {}
    for cell in source["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            code[meta["grade_id"]] = "\n".join(line for line in "".join(cell["source"]).splitlines()
                                               if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
    nb = json.loads((course / f"exercises/{assignment}/{assignment}.ipynb").read_text())
    for cell in nb["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in code:
            cell["source"] = code[gid]
    for student in students:
        path = course / f"submitted/{student}/{assignment}/{assignment}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(nb))


def check_full_marks(course: Path, submitted: set[tuple[str, str]]) -> None:
    """Every (assignment, student) of ``submitted`` has full marks in grades.csv."""
    with open(course / "grades.csv") as f:
        rows = [r for r in csv.DictReader(f) if (r["assignment"], r["student_id"]) in submitted]
    bad = [r for r in rows if float(r["score"]) != float(r["max_score"])]
    if len(rows) != len(submitted) or bad:
        sys.exit(f"expected {len(submitted)} submissions with full marks, got {len(rows)}: {bad[:3]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=20)
    ap.add_argument("--assignment", default="bpe")
    ap.add_argument("--class-estimate", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        course = make_course(Path(tmp) / "course")
        students = [f"s{i:03d}" for i in range(args.students)]
        submit(course, args.assignment, students)
        grade = [sys.executable, "autograder/grade.py", args.assignment, "--quiet"]
        seconds = {jobs: run(grade + [f"--jobs={jobs}"], course) for jobs in (1, 2)}
        check_full_marks(course, {(args.assignment, s) for s in students})
        n = args.students
        print(f"{n} full {args.assignment} submissions, whole grade.py command (sandboxed):")
        for jobs, s in seconds.items():
            print(f"  --jobs {jobs}: {s:6.1f} s   {s / n:5.2f} s per notebook")
        print(f"  ratio 2 workers / 1 worker: {seconds[2] / seconds[1]:.2f} (target <= 0.6)")
        if args.class_estimate:
            assignments = sorted(p.name for p in (course / "source").iterdir() if p.is_dir())
            shutil.rmtree(course / "submitted")  # only the 4 × 6 below
            for a in assignments:
                submit(course, a, [f"c{i}" for i in range(4)])
            s = run([sys.executable, "autograder/grade.py", "--jobs=2", "--quiet"], course)
            check_full_marks(course, {(a, f"c{i}") for a in assignments for i in range(4)})
            per = s / (4 * len(assignments))
            print(f"4 full submissions of each of {len(assignments)} assignments, 2 workers: {s:.1f} s "
                  f"({per:.2f} s per notebook, start-up included)")
            print(f"  100 students x {len(assignments)} assignments at that rate: "
                  f"{100 * len(assignments) * per / 60:.1f} min")


if __name__ == "__main__":
    main()
