"""The worked examples in the docstrings of autograder/ run (pytest.ini collects doctests
of solutions/tokref only): every module of the package ``autograder``."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The hub's spawner needs JupyterHub (its own environment) and its config is a traitlets
# file, not a module: of autograder/hub, private_mounts only.
MODULES = sorted(f"autograder.{p.stem}" for p in (ROOT / "autograder").glob("*.py")) + [
    "autograder.hub.private_mounts"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name}.py failed"
