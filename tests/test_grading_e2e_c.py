"""End-to-end grading, file 3 of 3: the runs ``e2e_cases.shard(2)`` gives it (see
``tests/e2e.py``)."""

from __future__ import annotations

from e2e import make_test

test_grading_end_to_end = make_test(2)
