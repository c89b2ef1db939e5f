"""Grade submissions with nbgrader's own commands, then say what happened to each one.

    python autograder/grade.py                  # every assignment of source/
    python autograder/grade.py chars --timeout 30
    python autograder/grade.py words --collect exchange   # JupyterHub: collect first
    python autograder/grade.py words --collect zip        # LMS download in downloaded/words/archive/

For each assignment, in the course root:

1. ``nbgrader collect`` (``--collect exchange``) or ``nbgrader zip_collect``
   (``--collect zip``) copies the submissions to ``submitted/<student>/<assignment>/``;
   by default they are there already.
2. ``nbgrader autograde <assignment> --force`` runs and scores every submission (the
   log is kept in ``grading-report.<assignment>.log``).
3. ``nbgrader generate_feedback <assignment> --force`` writes ``feedback/``.

then ``nbgrader export`` writes ``grades.csv``, and this script writes, beside it,
``grading-report.csv`` and ``grading-report.md``: one row per student and assignment
found in ``submitted/``, with its score from the gradebook and a status:

    graded                  scored, nothing went wrong
    output truncated        a cell printed more than LimitOutput keeps
    timed out               a cell ran past Execute.timeout, was interrupted, scored 0
    kernel died             the kernel died (os._exit, segfault, memory): the cells it
                            did not finish scored 0, the ones before kept their points
    failed                  nbgrader gave up on the submission (a renamed notebook, a
                            file that is not a notebook; the exception is in the
                            details): it is in grades.csv with 0 points, or with the
                            scores of an earlier grading, and gets no new feedback
    missing from gradebook  a folder in submitted/ without any notebook: never
                            autograded, not in grades.csv
    not autograded          the assignment has no autograde log yet

The exit status is 1 when a row is failed, missing from gradebook or not autograded
(those need the instructor), else 0.

It grades nothing itself: the scores are nbgrader's, read from the gradebook
(``nbgrader.api.Gradebook``); the statuses come from nbgrader's log, in which
``nbgrader_plugins.py`` writes a ``GRADING-EVENT`` line for each incident.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbgrader_plugins import EVENT_TAG, KERNEL_DIED, OUTPUT_TRUNCATED, TIMED_OUT  # noqa: E402
from release import ROOT, nbgrader_env, release, source_assignments  # noqa: E402

GRADED = "graded"
FAILED = "failed"
MISSING = "missing from gradebook"
NOT_AUTOGRADED = "not autograded"
# Most severe first: a row shows the first that applies, its details list them all.
SEVERITY = [MISSING, NOT_AUTOGRADED, FAILED, KERNEL_DIED, TIMED_OUT, OUTPUT_TRUNCATED, GRADED]

REPORT_FIELDS = ["assignment", "student", "status", "score", "max_score",
                 "needs_manual_grade", "seconds", "feedback", "details"]

_FAILED_RE = re.compile(r"There was an error processing assignment '(?P<a>.*)' for student '(?P<s>.*)'")
_FAILED_AT_RE = re.compile(r"There was an error processing assignment: (?P<path>.+)$")
_START_RE = re.compile(r"Creating/updating student with ID '(?P<s>[^']*)'")
_EVENT_RE = re.compile(re.escape(EVENT_TAG) + r" (\{.*\})\s*$")


def log_path(assignment: str, root: Path = ROOT) -> Path:
    return root / f"grading-report.{assignment}.log"


# ---------------------------------------------------------------------------------------
# Running nbgrader
# ---------------------------------------------------------------------------------------


def run_nbgrader(args: list[str], *, root: Path, log: Path | None = None,
                 echo: bool = True) -> int:
    """Run ``nbgrader <args>`` in ``root``; stream its log to stderr and to ``log``, where
    each line starts with the seconds since the start (the report's ``seconds``)."""
    cmd = [sys.executable, "-m", "nbgrader", *args]
    print(f"$ nbgrader {' '.join(args)}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    with subprocess.Popen(cmd, cwd=root, env=nbgrader_env(), text=True, encoding="utf-8",
                          errors="replace", stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT) as proc:
        out = open(log, "w", encoding="utf-8") if log else None
        try:
            for line in proc.stdout:
                if out:
                    out.write(f"{time.perf_counter() - start:9.3f} {line}")
                if echo:
                    sys.stderr.write(line)
        finally:
            if out:
                out.write(f"{time.perf_counter() - start:9.3f} exit status {proc.wait()}\n")
                out.close()
    return proc.returncode


def check_kernel_can_import_tokref() -> None:
    """The hidden tests ``import tokref``: check that the kernel nbgrader will start can,
    or every student would lose the points of every hidden test."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    python = spec.argv[0]
    # jupyter_client runs a kernel whose command is "python" with nbgrader's own interpreter.
    if python in {"python", "python3", f"python3.{sys.version_info[1]}"}:
        python = sys.executable
    proc = subprocess.run([python, "-c", "import tokref"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(
            f"the grading kernel ({python}, kernel 'python3' in {spec.resource_dir}) cannot "
            "import tokref, which the hidden tests need; install it there with\n"
            f"    {python} -m pip install -e solutions"
        )


def grade(assignment: str, *, root: Path = ROOT, collect: str = "none",
          timeout: int | None = None, echo: bool = True) -> float:
    """Collect, autograde and generate feedback for one assignment; returns the seconds
    autograding took."""
    if assignment not in list_gradebook_assignments(root):
        # The gradebook learns an assignment's cells from generate_assignment.
        release([assignment], root=root)
    collect_args = None
    if collect == "exchange":
        collect_args = ["collect", assignment, "--update"]
    elif collect == "zip":
        if (root / "downloaded" / assignment / "archive").is_dir():
            collect_args = ["zip_collect", assignment, "--force"]
        else:
            print(f"no downloaded/{assignment}/archive/: nothing to zip_collect", file=sys.stderr)
    if collect_args and run_nbgrader(collect_args, root=root, echo=echo) != 0:
        where = "its log is above" if echo else "run without --quiet to see its log"
        raise SystemExit(f"nbgrader {' '.join(collect_args)} failed ({where})")
    args = ["autograde", assignment, "--force"]
    if timeout is not None:
        args.append(f"--Execute.timeout={timeout}")
    start = time.perf_counter()
    # Exit status 1 when nbgrader gave up on a submission: the report says which.
    run_nbgrader(args, root=root, log=log_path(assignment, root), echo=echo)
    seconds = time.perf_counter() - start
    run_nbgrader(["generate_feedback", assignment, "--force"], root=root, echo=echo)
    return seconds


# ---------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------


def course_settings(root: Path) -> tuple[str, str]:
    """(db_url, course_id) as nbgrader reads them from the course's nbgrader_config.py."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    coursedir = CourseDirectory(config=config, root=str(root))
    return coursedir.db_url, coursedir.course_id


def list_gradebook_assignments(root: Path) -> set[str]:
    from nbgrader.api import Gradebook

    db_url, course_id = course_settings(root)
    with Gradebook(db_url, course_id) as gb:
        return {a.name for a in gb.assignments}


@dataclass
class LogFindings:
    """What nbgrader's autograde log says about each student."""

    events: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))
    failed: dict[str, str] = field(default_factory=dict)  # student -> the exception
    seconds: dict[str, float] = field(default_factory=dict)  # student -> time autograding


def read_log(path: Path, assignment: str) -> LogFindings:
    """Parse a log written by ``run_nbgrader`` for ``nbgrader autograde <assignment>``."""
    found = LogFindings()
    lines = path.read_text(encoding="utf-8").splitlines()
    stamps = [float(line.split(maxsplit=1)[0]) for line in lines]
    current, started = None, 0.0
    for i, line in enumerate(lines):
        m = _START_RE.search(line)
        if m:  # nbgrader starts on the next submission
            if current is not None:
                found.seconds[current] = stamps[i] - started
            current, started = m.group("s"), stamps[i]
            continue
        m = _EVENT_RE.search(line)
        if m:
            event = json.loads(m.group(1))
            if event.get("assignment") == assignment:
                found.events[event["student"]].append(event)
            continue
        m = _FAILED_AT_RE.search(line)
        if m and Path(m.group("path").strip()).name == assignment:
            # Then comes "[... ERROR] Traceback ...", whose last line names the exception.
            student = Path(m.group("path").strip()).parent.name
            body = []
            for later in lines[i + 2:]:
                parts = later.split(maxsplit=1)
                text = parts[1] if len(parts) > 1 else ""
                if text.startswith("["):
                    break
                if text.strip():
                    body.append(text.strip())
            found.failed[student] = body[-1] if body else "see the log"
            continue
        m = _FAILED_RE.search(line)
        if m and m.group("a") == assignment:
            found.failed.setdefault(m.group("s"), "see the log")
    if current is not None and stamps:
        found.seconds[current] = stamps[-1] - started
    return found


def report_rows(assignments: list[str], root: Path = ROOT) -> list[dict]:
    """One row per student × assignment in submitted/ (see the module docstring)."""
    from nbgrader.api import Gradebook, MissingEntry

    db_url, course_id = course_settings(root)
    rows = []
    with Gradebook(db_url, course_id) as gb:
        for assignment in assignments:
            students = sorted(p.parent.name for p in (root / "submitted").glob(f"*/{assignment}")
                              if p.is_dir())
            log = log_path(assignment, root)
            findings = read_log(log, assignment) if log.exists() else None
            for student in students:
                statuses, details = [], []
                row = {"assignment": assignment, "student": student, "score": "",
                       "max_score": "", "needs_manual_grade": "", "seconds": "", "feedback": ""}
                try:
                    sub = gb.find_submission(assignment, student)
                except MissingEntry:
                    statuses.append(MISSING)
                    details.append(f"no notebook in submitted/{student}/{assignment}/")
                else:
                    row.update(score=f"{sub.score:g}", max_score=f"{sub.max_score:g}",
                               needs_manual_grade="yes" if sub.needs_manual_grade else "no")
                if findings is None:
                    statuses.append(NOT_AUTOGRADED)
                else:
                    if student in findings.seconds:
                        row["seconds"] = f"{findings.seconds[student]:.1f}"
                    if student in findings.failed:
                        statuses.append(FAILED)
                        details.append(f"nbgrader gave up: {findings.failed[student]} "
                                       f"(see {log.name})")
                        if (root / "feedback" / student / assignment).is_dir():
                            details.append("its feedback is from an earlier grading")
                    for event in findings.events.get(student, []):
                        statuses.append(event["event"])
                        where = f"{event['notebook']}.ipynb, cell {event['cell']}"
                        extra = f": {event['detail']}" if event.get("detail") else ""
                        details.append(f"{event['event']} in {where}{extra}")
                feedback = sorted((root / "feedback" / student / assignment).glob("*.html"))
                row["feedback"] = " ".join(str(p.relative_to(root)) for p in feedback)
                row["status"] = min(statuses or [GRADED], key=SEVERITY.index)
                row["details"] = "; ".join(dict.fromkeys(details))
                rows.append(row)
    return rows


def write_report(rows: list[dict], root: Path = ROOT) -> tuple[Path, Path]:
    csv_path, md_path = root / "grading-report.csv", root / "grading-report.md"
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=REPORT_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    counts = defaultdict(int)
    for row in rows:
        counts[row["status"]] += 1
    lines = [
        "# Grading report",
        "",
        "Scores are nbgrader's (also in `grades.csv`); a status other than *graded* needs a look.",
        "",
        ", ".join(f"{status}: {counts[status]}" for status in SEVERITY if counts[status])
        or "no submissions",
        "",
        "| " + " | ".join(REPORT_FIELDS) + " |",
        "|" + "---|" * len(REPORT_FIELDS),
    ]
    for row in rows:
        lines.append("| " + " | ".join(str(row[k]).replace("|", "\\|") for k in REPORT_FIELDS) + " |")
    md_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return csv_path, md_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    parser.add_argument("assignments", nargs="*", help="default: every assignment of source/")
    parser.add_argument("--collect", choices=["none", "exchange", "zip"], default="none",
                        help="where the submissions come from (default: already in submitted/)")
    parser.add_argument("--timeout", type=int, default=None,
                        help="seconds per cell (default: Execute.timeout of nbgrader_config.py)")
    parser.add_argument("--quiet", action="store_true", help="do not echo nbgrader's log")
    args = parser.parse_args(argv)

    # nbgrader's Gradebook runs `alembic`, installed next to this interpreter.
    os.environ["PATH"] = nbgrader_env()["PATH"]
    check_kernel_can_import_tokref()
    everything = source_assignments()
    assignments = args.assignments or everything
    for a in assignments:
        if a not in everything:
            parser.error(f"no assignment {a!r} in source/ (there are: {', '.join(everything)})")
    for a in assignments:
        seconds = grade(a, collect=args.collect, timeout=args.timeout, echo=not args.quiet)
        print(f"autograded {a} in {seconds:.1f} s", file=sys.stderr)
    run_nbgrader(["export"], root=ROOT, echo=not args.quiet)

    rows = report_rows(everything)
    csv_path, md_path = write_report(rows)
    print(md_path.read_text(encoding="utf-8"))
    print(f"written: {ROOT / 'grades.csv'}, {csv_path}, {md_path}", file=sys.stderr)
    # Students' failures (timeouts, dead kernels) are graded; these need the instructor.
    return 1 if any(r["status"] in (FAILED, MISSING, NOT_AUTOGRADED) for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
