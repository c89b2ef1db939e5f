"""The course's glue over nbgrader: a package, imported as ``autograder``.

Its modules import each other explicitly (``from .events import GradingEvent``) and nothing
edits ``sys.path`` to find them:

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
