"""The grading report: one row per student and assignment of ``submitted/``, read from the
gradebook (scores) and from the events file (what happened, what to look at).

``grading-events.jsonl`` holds one event per line (``events.py``: the record and its
names), written by the autograde plugins (``nbgrader_plugins.py``) and by ``grade.py``
(``autograded`` and ``failed`` with the seconds nbgrader took, ``missing``, identical
solution cells, grading without a sandbox). ``grade.py`` rewrites it after each run: the
lines of the submissions it graded are replaced, the others kept, so the report always
shows every submission's last grading.

Statuses, most severe first (a row shows the first that applies; ``details`` lists all):

    missing from gradebook  a folder in submitted/ without any notebook: never graded
    not autograded          no grading of this submission is recorded yet
    failed                  nbgrader gave up on the submission (a renamed notebook, a file
                            that is not a notebook): 0 or the scores of an earlier grading
    kernel died             the cells it did not finish scored 0, the ones before counted
    notebook out of time    the cells left when the notebook's time ran out scored 0
    timed out               a cell ran past the timeout, was interrupted, scored 0
    output truncated        a cell printed more than LimitOutput keeps
    graded                  nothing unusual

``hit the submission's memory cap`` goes into ``details`` as a kernel's death does (the
kernel's death, if it died, sets the status). The sandbox's ``submission cap`` (how the
whole submission was capped) is said once, in the Markdown report's header.

A submission with written answers that wait for a person (``needs_manual_grade``) keeps
its status; ``details`` lists those cells and their points, which the score counts as 0
until they are graded in nbgrader's formgrader.

``flags`` lists what a person should look at (never a change of score): imports of the
reference or of nbgrader, IPython hooks, files outside the working directory, processes
or network, a test cell without its record, processes left running, solution cells
identical to other students', grading without a sandbox, a read-only cell the student
changed (nbgrader graded the released one), and what collecting found: a submission in
the student's name by another user (set aside; the Markdown report lists it under *Not
collected*, also for a student with no row), one in another's name, or one changed after
the time in its ``timestamp.txt``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from .events import (AUTOGRADED, FAILED, HIT_CAP, IDENTICAL, KERNEL_DIED, MISSING,
                    OUT_OF_TIME, SET_ASIDE, OUTPUT_TRUNCATED, SUBMISSION_CAP, TIMED_OUT,
                    GradingEvent, write_atomic)

GRADED = "graded"
NOT_AUTOGRADED = "not autograded"
SEVERITY = [MISSING, NOT_AUTOGRADED, FAILED, KERNEL_DIED, OUT_OF_TIME, TIMED_OUT,
            OUTPUT_TRUNCATED, GRADED]
# Events that explain a score without being a status of their own: in the row's details.
EXPLAINS = {HIT_CAP}

REPORT_FIELDS = ["assignment", "student", "status", "score", "max_score",
                 "needs_manual_grade", "seconds", "feedback", "details", "flags"]


def _normalised(source: str) -> str:
    lines = (re.sub(r"\s+#.*$|^\s*#.*$", "", line).rstrip() for line in source.splitlines())
    return "\n".join(line for line in lines if line)


def identical_solutions(root: Path, assignment: str) -> list[GradingEvent]:
    """Flags for solution cells that two or more students submitted alike (comments and
    blank lines aside), other than the unchanged stub."""
    stubs: dict[str, str] = {}
    for nb_path in (root / "exercises" / assignment).glob("*.ipynb"):
        for cell in json.loads(nb_path.read_text(encoding="utf-8"))["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution"):
                stubs[meta["grade_id"]] = _normalised("".join(cell["source"]))
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for nb_path in sorted((root / "submitted").glob(f"*/{assignment}/*.ipynb")):
        student = nb_path.parent.parent.name
        try:
            cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
        except (ValueError, KeyError, TypeError, RecursionError, MemoryError, OSError):
            # Not a notebook this check can read (JSON nested 200,000 deep raises
            # RecursionError): nbgrader's own grading of it failed and says so in its row.
            continue
        for cell in cells if isinstance(cells, list) else []:
            meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
            gid = meta.get("grade_id") if meta.get("solution") else None
            source = cell.get("source", "") if gid else ""
            code = _normalised("".join(source) if isinstance(source, list) else str(source))
            if gid and code and code != stubs.get(gid):
                groups[(gid, hashlib.sha256(code.encode()).hexdigest())].append(student)
    flags = []
    for (gid, _), students in sorted(groups.items()):
        for student in sorted(set(students)) if len(set(students)) > 1 else []:
            others = ", ".join(s for s in sorted(set(students)) if s != student)
            flags.append(GradingEvent(assignment, student, None, gid, IDENTICAL,
                                      f"same as {others}", flag=True))
    return flags


def manual_pending(submission) -> list[tuple[str, float]]:
    """The cells of a submission that still wait for a person (written answers that the
    autograder cannot score), with their points: ``[(grade_id, max_score), ...]``. An
    answer left as released is not among them: nbgrader scores it 0 by itself."""
    return [(grade.name, grade.max_score) for nb in submission.notebooks for grade in nb.grades
            if grade.needs_manual_grade]


def report_rows(root: Path, db_url: str, assignments: list[str],
                events: Iterable[GradingEvent]) -> list[dict]:
    """One row per student × assignment in submitted/ (see the module docstring)."""
    from nbgrader.api import Gradebook, MissingEntry

    by_submission: dict[tuple[str, str], list[GradingEvent]] = defaultdict(list)
    for e in events:
        by_submission[(e.assignment, e.student)].append(e)
    rows = []
    with Gradebook(db_url) as gb:
        for assignment in assignments:
            students = sorted(p.parent.name for p in (root / "submitted").glob(f"*/{assignment}")
                              if p.is_dir())
            for student in students:
                evs = by_submission.get((assignment, student), [])
                row = {"assignment": assignment, "student": student, "score": "", "max_score": "",
                       "needs_manual_grade": "", "seconds": "", "feedback": ""}
                statuses, details, flags = [], [], []
                if not any(e.event in (AUTOGRADED, FAILED, MISSING) for e in evs):
                    statuses.append(NOT_AUTOGRADED)
                try:
                    sub = gb.find_submission(assignment, student)
                except MissingEntry:
                    statuses.append(MISSING)
                    details.append(f"no notebook in submitted/{student}/{assignment}/")
                else:
                    row.update(score=f"{sub.score:g}", max_score=f"{sub.max_score:g}",
                               needs_manual_grade="yes" if sub.needs_manual_grade else "no")
                    pending = manual_pending(sub)
                    if pending:
                        points = sum(p for _, p in pending)
                        details.append(
                            f"{points:g} points to grade by hand in the formgrader: "
                            + ", ".join(f"{name} ({p:g})" for name, p in pending)
                            + "; the score counts them as 0 until then")
                for e in evs:
                    event, detail = e.event, e.detail
                    if e.flag:
                        where = f" ({e.cell})" if e.cell else ""
                        flags.append(f"{event}{where}: {detail}" if detail else f"{event}{where}")
                    elif event == AUTOGRADED:
                        row["seconds"] = f"{e.seconds or 0:.1f}"
                    elif event == FAILED:
                        row["seconds"] = f"{e.seconds or 0:.1f}"
                        statuses.append(FAILED)
                        details.append(f"nbgrader gave up: {detail}")
                        if (root / "feedback" / student / assignment).is_dir():
                            details.append("its feedback is from an earlier grading")
                    elif event in SEVERITY or event in EXPLAINS:
                        if event in SEVERITY:
                            statuses.append(event)
                        where = f"{e.notebook}.ipynb" + (f", cell {e.cell}" if e.cell else "")
                        details.append(f"{event} in {where}" + (f": {detail}" if detail else ""))
                feedback = sorted((root / "feedback" / student / assignment).glob("*.html"))
                row["feedback"] = " ".join(str(p.relative_to(root)) for p in feedback)
                row["status"] = min(statuses or [GRADED], key=SEVERITY.index)
                row["details"] = "; ".join(dict.fromkeys(details))
                row["flags"] = "; ".join(dict.fromkeys(flags))
                rows.append(row)
    return rows


def submission_caps(rows: list[dict], events: Iterable[GradingEvent]) -> list[str]:
    """The distinct ``submission cap`` details of the rows' submissions, in order."""
    graded = {(r["assignment"], r["student"]) for r in rows}
    return list(dict.fromkeys(e.detail for e in events
                              if e.event == SUBMISSION_CAP and (e.assignment, e.student) in graded))


def md_text(value: object) -> str:
    """``value`` as text that a Markdown viewer shows as written: a student's folder or
    file name may hold HTML (``x"><meta http-equiv=refresh ...>``), never rendered.

    >>> md_text('<img src=x onerror=alert(1)> & co')
    '&lt;img src=x onerror=alert(1)&gt; &amp; co'
    """
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_report(rows: list[dict], root: Path, *, unsafe: bool = False,
                 events: Iterable[GradingEvent] = (), made: str = "",
                 problems: Iterable[str] = ()) -> tuple[Path, Path]:
    """``grading-report.csv`` and ``grading-report.md`` in ``root``, each written whole
    (:func:`write_atomic`); ``events`` give the header's line on the whole-submission cap,
    ``made`` says when and by which run (a line under the title), ``problems`` what went
    wrong in the run as a whole (a section at the top: the grades may be incomplete)."""
    csv_path, md_path = root / "grading-report.csv", root / "grading-report.md"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=REPORT_FIELDS)
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(csv_path, out.getvalue())
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        counts[row["status"]] += 1
    flagged = [r for r in rows if r["flags"]]
    manual = sum(r["needs_manual_grade"] == "yes" for r in rows)
    lines = ["# Grading report", ""]
    if made:
        lines += [made, ""]
    problems = list(problems)
    if problems:
        lines += ["**This run did not finish everything**; what is below may be incomplete:", ""]
        lines += [f"- {p}" for p in problems] + [""]
    if unsafe:
        lines += ["**Graded without a sandbox (`--unsafe`)**: student code ran with the "
                  "grader's rights and could see the course directory. Do not trust these "
                  "scores for real submissions.", ""]
    lines += [
        "Scores are nbgrader's (also in `grades.csv`); a status other than *graded*, or a "
        "flag, needs a look. Flags never change a score.",
        "",
    ]
    caps = submission_caps(rows, events)
    if len(caps) == 1:
        lines += [f"Whole-submission cap: {caps[0]}", ""]
    elif caps:
        lines += ["Whole-submission cap (not the same for every submission): "
                  + "; ".join(caps), ""]
    lines += [
        (", ".join(f"{status}: {counts[status]}" for status in SEVERITY if counts[status])
         or "no submissions")
        + (f"; flagged: {len(flagged)}" if flagged else "")
        + (f"; waiting for manual grading in the formgrader: {manual}" if manual else ""),
        "",
        "| " + " | ".join(REPORT_FIELDS) + " |",
        "|" + "---|" * len(REPORT_FIELDS),
    ]
    for row in rows:
        lines.append("| " + " | ".join(md_text(row[k]).replace("|", "\\|") for k in REPORT_FIELDS) + " |")
    if flagged:
        lines += ["", "## Needs a look", ""]
        for row in flagged:
            lines.append(f"- **{md_text(row['student'])}**, {row['assignment']}: {md_text(row['flags'])}")
    aside = [e for e in events if e.event in SET_ASIDE]
    if aside:
        lines += ["", "## Not collected", "",
                  "Submissions set aside, not graded as that student (autograder/exchange_plugins.py, "
                  "grade.py): made by another user, or holding a link, a special file or more than "
                  "the size caps allow; left where they were.", ""]
        lines += [f"- **{md_text(e.student)}**, {md_text(e.assignment)}: {e.event}: {md_text(e.detail)}"
                  for e in aside]
    write_atomic(md_path, "\n".join(lines) + "\n")
    return csv_path, md_path
