"""What the end-to-end grading tests share: submissions made from the released notebook,
running the course's scripts, and reading grade.py's report, nbgrader's ``grades.csv`` and
gradebook, and the feedback. Imported by ``test_grading_e2e*.py`` and every test that
grades a notebook on a copy of the course."""

from __future__ import annotations

import csv
import html
import json
import re
import subprocess
import sys
from pathlib import Path

# ---------------------------------------------------------------------------------------
# Submissions: the student notebook of exercises/ with solution cells filled in.
# ---------------------------------------------------------------------------------------


def solutions(source_nb: dict) -> dict[str, str]:
    """The instructor's code of each solution cell, markers removed."""
    out = {}
    for cell in source_nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution") and cell["cell_type"] == "code":
            src = "".join(cell["source"])
            out[meta["grade_id"]] = "\n".join(
                line for line in src.splitlines() if "### BEGIN SOLUTION" not in line
                and "### END SOLUTION" not in line)
    return out


def submission(student_nb: dict, code: dict[str, str]) -> dict:
    """A copy of the student notebook with the solution cells of ``code`` replaced."""
    nb = json.loads(json.dumps(student_nb))
    for cell in nb["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in code:
            cell["source"] = code[gid]
    assert set(code) <= {c["metadata"].get("nbgrader", {}).get("grade_id") for c in nb["cells"]}
    return nb


def cells(assignment: str, *parts: str, kinds: tuple[str, ...] = ("basic", "edges", "breadth")) -> set[str]:
    return {f"{assignment}-{part}-{kind}" for part in parts for kind in kinds}


EDGES_BREADTH = ("edges", "breadth")


def write_nb(path: Path, nb: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    print(proc.stdout)
    print(proc.stderr[-20_000:], file=sys.stderr)
    return proc


def cell_scores(course: Path, assignment: str, student: str) -> dict[str, tuple[float, float]]:
    """{grade_id: (score, max_score)} of every graded cell of a submission, as nbgrader's
    gradebook holds them (what formgrader shows and ``grades.csv`` adds up)."""
    import warnings

    from nbgrader.api import Gradebook

    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's API, SQLAlchemy 2
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(assignment, assignment, student)
        return {g.name: (g.score, g.max_score) for g in nb.grades}


def check_partial_credit_cell_by_cell(graded, expected_lost: dict[tuple[str, str], set[str]]) -> None:
    """Each part is graded in three cells (basic, edge cases, breadth): a submission loses
    exactly the cells listed, each in full, and keeps every other cell's points."""
    for (assignment, student), lost in expected_lost.items():
        scores = cell_scores(graded["course"], assignment, student)
        assert lost <= set(scores), (assignment, student, lost - set(scores))
        got = {gid for gid, (score, top) in scores.items() if score < top}
        assert got == lost, f"{assignment}/{student}: lost {sorted(got)}, expected {sorted(lost)}"
        assert all(score in (0, top) for score, top in scores.values()), (assignment, student, scores)
        total = float(graded["report"][(assignment, student)]["score"])
        assert sum(score for score, _ in scores.values()) == total, (assignment, student, scores)



def read_results(course: Path) -> tuple[dict, dict]:
    """grade.py's report and nbgrader's grades.csv, keyed by (assignment, student)."""
    with open(course / "grading-report.csv", encoding="utf-8") as f:
        report = {(r["assignment"], r["student"]): r for r in csv.DictReader(f)}
    with open(course / "grades.csv", encoding="utf-8") as f:
        grades = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    return report, grades


def check_exact_scores(report: dict, grades: dict, expected: dict, *, max_score: int = 10) -> None:
    """Every submission has exactly its expected (score, status), in the report and in
    grades.csv, out of ``max_score``."""
    assert set(report) == set(expected)
    got = {key: (float(row["score"]), row["status"]) for key, row in report.items()}
    assert got == expected, "\n".join(
        f"{key}: expected {expected[key]}, got {got[key]} ({report[key]['details']})"
        for key in expected if got[key] != expected[key])
    for key, (score, _) in expected.items():
        assert report[key]["max_score"] == str(max_score), key
        assert float(grades[key]["score"]) == score, key
        assert float(grades[key]["max_score"]) == max_score, key


def feedback_errors(course: Path, path: str) -> list[str]:
    """The messages of the AssertionErrors (and NotImplementedErrors) in a feedback page, in order."""
    text = html.unescape(re.sub(r"<[^>]+>", "", (course / path).read_text(encoding="utf-8")))
    return re.findall(r"(?:AssertionError|NotImplementedError): (.*)", text)
