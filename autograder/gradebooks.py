"""One writer per gradebook: how parallel workers and shards hand their grades back.

nbgrader keeps grades in SQLite, which must never see two writers at once (nbgrader
issue 174 asks for parallel autograding upstream). So each worker of ``grade.py``, and
each shard of a class graded on several machines, autogrades into its *own copy* of the
gradebook, and one process then copies what nbgrader wrote there for each submission it
graded into the course's gradebook, with nbgrader's own API: the student, the submission
and its timestamp, and for every notebook its grades (automatic and manual scores,
extra credit, whether a person must still grade it), comments and late penalty.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

STUDENT_FIELDS = ("first_name", "last_name", "email", "lms_user_id")
GRADE_FIELDS = ("auto_score", "manual_score", "extra_credit", "needs_manual_grade")
COMMENT_FIELDS = ("auto_comment", "manual_comment")


def db_url(path: Path) -> str:
    return f"sqlite:///{path}"


def copy_gradebook(src: Path, dest: Path) -> Path:
    """A private copy of a gradebook for one worker or shard to write."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    return dest


def merge_submission(src: Gradebook, dst: Gradebook, assignment: str, student: str) -> bool:
    """Copy one student's submission of ``assignment`` from ``src`` to ``dst``; False if
    ``src`` has none (nbgrader gave up before recording it)."""
    try:
        who = src.find_student(student)
        sub = src.find_submission(assignment, student)
    except MissingEntry:
        return False
    dst.update_or_create_student(student, **{f: getattr(who, f) for f in STUDENT_FIELDS})
    dst.update_or_create_submission(assignment, student, timestamp=sub.timestamp,
                                    extension=sub.extension)
    for nb in sub.notebooks:
        target = dst.find_submission_notebook(nb.name, assignment, student)
        target.flagged = nb.flagged
        target.late_submission_penalty = nb.late_submission_penalty
        for grade in nb.grades:
            g = dst.find_grade(grade.name, nb.name, assignment, student)
            for f in GRADE_FIELDS:
                setattr(g, f, getattr(grade, f))
        for comment in nb.comments:
            c = dst.find_comment(comment.name, nb.name, assignment, student)
            for f in COMMENT_FIELDS:
                setattr(c, f, getattr(comment, f))
    dst.db.commit()
    return True


def merge(dst_path: Path, sources: dict[Path, list[tuple[str, str]]]) -> int:
    """Merge into ``dst_path`` the listed ``(assignment, student)`` submissions of each
    source gradebook; returns how many were copied."""
    copied = 0
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's API, SQLAlchemy 2
    with Gradebook(db_url(dst_path)) as dst:
        for src_path, submissions in sources.items():
            with Gradebook(db_url(src_path)) as src:
                for assignment, student in submissions:
                    copied += merge_submission(src, dst, assignment, student)
    return copied
