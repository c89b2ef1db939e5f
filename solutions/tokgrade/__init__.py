"""tokgrade: the course's grading runtime, standard library only.

- :mod:`tokgrade.typed_json`: plain data as JSON that keeps exact types;
- :mod:`tokgrade.grading`: the hidden tests (``hidden_test``) and the exact comparison;
- :mod:`tokgrade.selfcheck`: the self-check kernel and its report.

The same files run unchanged everywhere: with the grader, in the grading sandbox (where
the course's reference package is absent), in the practice pages' Pyodide worker and, as
``tokgrade.zip``, beside each released assignment's ``check.py``. It imports nothing of
the reference, and the reference imports nothing of it.
"""
