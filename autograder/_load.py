"""Load a package from its folder, by location: how the course finds its own packages
without editing ``sys.path`` (``autograder/__init__.py`` says where each is used).

Imported, it offers :func:`load_package`. Run by path (``runpy.run_path``), as the
command modules started as scripts, ``nbgrader_config.py`` and the hub's config do, it
loads the package ``autograder`` from the folder it sits in: the course's own copy,
whichever environment runs it.

>>> import sys
>>> load_package("autograder", Path(__file__).with_name("__init__.py")) is sys.modules["autograder"]
True
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_package(name: str, init: Path) -> ModuleType:
    """The package ``name`` whose ``__init__.py`` is ``init``: the one already imported,
    or else loaded from ``init`` and registered, so that its submodules import as usual
    (``from autograder import events``). A package that fails to load is not kept."""
    if name in sys.modules:
        return sys.modules[name]
    if not init.is_file():
        raise ImportError(f"no package {name!r}: {init} does not exist; run this from the course "
                          "directory, after `make setup`")
    spec = importlib.util.spec_from_file_location(name, init)
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except BaseException:
        del sys.modules[name]
        raise
    return module


if __name__ == "<run_path>":
    load_package("autograder", Path(__file__).resolve().with_name("__init__.py"))
