"""The whole grading pipeline, end to end, for every assignment: ``tests/e2e.py`` says how,
``tests/e2e_cases.py`` holds each assignment's submissions, scores, lost cells and
messages. The runs are spread over this file, ``test_grading_e2e_b.py`` and
``test_grading_e2e_c.py`` (``e2e_cases.shard``), so that pytest-xdist grades them on
several workers; this one also holds the quick checks of the cases themselves."""

from __future__ import annotations

from conftest import ASSIGNMENTS
from e2e import ELSEWHERE, all_runs, make_test, runs_of_file
from e2e_cases import CASES, FILES, STUB

test_grading_end_to_end = make_test(0)


def test_every_run_is_in_one_file_and_every_assignment_is_graded():
    files = [runs_of_file(i) for i in range(FILES)]
    assert sorted(n for f in files for n in f) == sorted(all_runs())
    graded = {a for r in all_runs().values() for s in r.stages for a in s.assignments}
    assert graded | set(ELSEWHERE) == set(ASSIGNMENTS) and set(CASES) <= graded


def test_every_case_is_consistent():
    """Each case's expected students are its submissions (and chars' misfiled ones); the
    full and stub submissions are there; lost cells belong to the assignment."""
    for a, c in CASES.items():
        assert c.submissions.get("stub") == STUB and "full" in c.submissions, a
        assert set(c.submissions) <= set(c.expected), a
        assert set(c.lost) <= set(c.submissions) and all(g.startswith(f"{a}-") for s in c.lost.values() for g in s), a
        assert set(c.one_message_per_lost_cell) <= set(c.lost), a
