"""The worked examples in the docstrings of autograder/ run (pytest.ini collects doctests
of solutions/tokref only; autograder/ is a folder of scripts, imported by name)."""

from __future__ import annotations

import doctest
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(p.stem for p in (ROOT / "autograder").glob("*.py"))


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    sys.path.insert(0, str(ROOT / "autograder"))
    try:
        module = importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "autograder"))
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name}.py failed"
