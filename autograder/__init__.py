"""The course's glue over nbgrader: a package, imported as ``autograder``.

Its modules import each other explicitly (``from .events import GradingEvent``) and nothing
edits ``sys.path`` to find them (one loader, ``_load.py``, loads a package by location):

- nbgrader reads ``nbgrader_config.py``, which loads this package from the folder beside
  it (``importlib``, by location: the course's own copy, whichever environment runs it);
- the commands of the guides run as typed, ``python autograder/grade.py …``: each command
  module (grade, release, doctor, sandbox) starts by loading this package from its own
  folder and naming itself part of it (``__package__``, PEP 366), so its relative imports
  resolve in the package, as ``python -m autograder.grade`` would;
- the tests import ``autograder.<module>`` with the course root on the path
  (``pythonpath = .`` in tests/pytest.ini).

Two files are not modules of the package: ``sandbox_boot.py`` runs alone inside the
grading sandbox (standard library only), and ``check_template.py`` is the source of every
released ``check.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ._load import load_package

COURSE = Path(__file__).resolve().parent.parent
SOLUTIONS = ("tokref", "tokgrade")  # the reference and the grading runtime, in solutions/


def load_solutions(root: Path = COURSE) -> list[ModuleType]:
    """The course's ``tokref`` and ``tokgrade``: the installed ones (`make setup` installs
    both in .venv), or else the course's own, from ``root/solutions/<name>/``, loaded by
    location (the hub's shared environment has neither, so that students cannot import
    them; the instructor's commands and nbgrader find them here). Once loaded, their
    submodules import as usual (``from tokref.merges import train_merges``).

    >>> [m.__name__ for m in load_solutions()]
    ['tokref', 'tokgrade']
    """
    return [_load(name, root / "solutions" / name) for name in SOLUTIONS]


def _load(name: str, folder: Path) -> ModuleType:
    if name not in sys.modules and importlib.util.find_spec(name) is not None:
        return importlib.import_module(name)
    return load_package(name, folder / "__init__.py")
