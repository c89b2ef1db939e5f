"""Shared fixtures: the repository root and a throw-away copy of the nbgrader course."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COURSE_FILES = ["nbgrader_config.py", "source", "autograder"]


def copy_course(dest: Path) -> Path:
    """Copy what nbgrader needs (config, source/, autograder/, a link to .venv) to ``dest``: a course with
    its own gradebook, exercises/, submitted/... that the tests can run anything in."""
    dest.mkdir(parents=True, exist_ok=True)
    # The grading kernel's Python (.venv/kernel, `make setup`) is the course's own.
    (dest / ".venv").symlink_to(ROOT / ".venv", target_is_directory=True)
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    for name in COURSE_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy2(src, dest / name)
    return dest


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A fresh copy of the course in ``tmp_path/course``."""
    return copy_course(tmp_path / "course")
