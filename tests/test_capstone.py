"""The capstone assignment (source/capstone/): its shipped corpus, and its grading end to
end on a copy of the course, with exact scores per cell and the written answers left to
a person.

The slow test releases ``capstone`` in a temporary copy of the course, submits the
instructor's solution (with three written answers) and a partial submission, runs
``autograder/grade.py capstone`` (sandbox and all), and reads the gradebook and the
report. It takes about a minute.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from pathlib import Path

import pytest

from conftest import ROOT, copy_course
from grading_helpers import run, solutions, submission, write_nb

SOURCE = ROOT / "source" / "capstone"
CORPUS = {
    "capstone_train.txt": (
        ["romeo_and_juliet.txt", "julius_caesar.txt", "midsummer_nights_dream.txt", "much_ado_about_nothing.txt"],
        "bf99f8125a453df58160c00102919074c8a1b4429e36ddcf6c00c5a90fb9e6ec",
    ),
    "capstone_heldout.txt": (
        ["tempest.txt", "sonnets.txt"],
        "62c8ac39813fb8b112a20389e9ea5bce25e430ca70bb424d543d7fd309ad7c37",
    ),
}
ANSWERS = ("capstone-qa", "capstone-qb", "capstone-qc")
AUTOGRADED = {f"capstone-{part}-{kind}": points
              for part, split in [("train", (1, 1, 1)), ("save", (1, 1, 1)), ("encode", (1, 1, 1)),
                                  ("stream", (1, 1, 1)), ("measure", (1, 0.5, 0.5))]
              for kind, points in zip(("basic", "edges", "breadth"), split)}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_shipped_corpus_is_the_course_corpus_as_the_readme_says(name):
    """Each file is its works of tokref's corpus joined by "\\n<|endoftext|>\\n", plus a
    newline, with the SHA-256 that README.md (released to students) states."""
    from tokref.corpus import list_works, load_texts

    works, sha256 = CORPUS[name]
    data = (SOURCE / name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == sha256
    assert sha256 in (SOURCE / "README.md").read_text(encoding="utf-8")
    texts = {}
    for split in ("train", "heldout"):
        texts.update(zip([w.file for w in list_works() if w.split == split], load_texts(split)))
    assert data.decode("utf-8") == "\n<|endoftext|>\n".join(texts[w] for w in works) + "\n"
    split = "train" if name == "capstone_train.txt" else "heldout"
    assert all(w.split == split for w in list_works() if w.file in works), "held-out works never train"


def test_the_notebook_has_three_written_answers_of_two_points():
    nb = json.loads((SOURCE / "capstone.ipynb").read_text(encoding="utf-8"))
    meta = {c["id"]: (c["cell_type"], c["metadata"]["nbgrader"]) for c in nb["cells"]}
    for gid in ANSWERS:
        kind, m = meta[gid]
        assert kind == "markdown" and m["solution"] and m["grade"] and m["points"] == 2, gid
    graded = {gid: m["points"] for gid, (_, m) in meta.items() if m.get("grade") and not m.get("solution")}
    assert graded == AUTOGRADED
    assert sum(graded.values()) + 2 * len(ANSWERS) == 20


# A partial submission: train_tokenizer breaks ties by ids (the visible edge cases and the
# hidden tests see it, basic passes), load_tokenizer accepts reordered merges (edge cases
# and hidden tests), measure counts characters (edge cases and breadth); the rest is
# right: 14 - 5 = 9 points.
PARTIAL = {
    "capstone-train": ("key=lambda p: (pairs[p], vocab[p[0]], vocab[p[1]])", "key=lambda p: (pairs[p], p)"),
    "capstone-save": ("        for part in (a, b):\n", "        for part in ():\n"),
    "capstone-measure": ('    n_bytes = len(text.encode("utf-8"))', "    n_bytes = len(text)"),
}
PARTIAL_FAILS = {"capstone-train-edges", "capstone-train-breadth", "capstone-save-edges",
                 "capstone-save-breadth", "capstone-measure-edges", "capstone-measure-breadth"}


def grades(course: Path, student: str) -> dict[str, tuple[float | None, float, bool]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        sub = gb.find_submission("capstone", student)
        return {g.name: (g.score if not g.needs_manual_grade else None, g.max_score, g.needs_manual_grade)
                for nb in sub.notebooks for g in nb.grades}


@pytest.mark.slow
def test_grading_the_capstone_end_to_end(tmp_path):
    course = copy_course(tmp_path / "course")
    assert run([sys.executable, "autograder/release.py", "capstone"], course).returncode == 0
    released = json.loads((course / "exercises/capstone/capstone.ipynb").read_text(encoding="utf-8"))
    assert {"capstone_train.txt", "capstone_heldout.txt", "README.md"} <= {
        p.name for p in (course / "exercises/capstone").iterdir()}
    stub = {c["id"]: "".join(c["source"]) for c in released["cells"]}
    for gid in ANSWERS:
        assert stub[gid].strip().endswith("YOUR ANSWER HERE") and "Rubric" not in stub[gid], gid
    full = solutions(json.loads((course / "source/capstone/capstone.ipynb").read_text(encoding="utf-8")))
    answers = {gid: f"**Your answer:**\n\nMy answer to {gid}, with numbers." for gid in ANSWERS}
    partial = dict(full)
    for gid, (old, new) in PARTIAL.items():
        assert old in partial[gid], gid
        partial[gid] = partial[gid].replace(old, new)
    # Only the reference submits the corpus files; nbgrader copies source/'s over anyway.
    write_nb(course / "submitted/reference/capstone/capstone.ipynb", submission(released, {**full, **answers}))
    write_nb(course / "submitted/partial/capstone/capstone.ipynb",
             submission(released, {**partial, ANSWERS[0]: answers[ANSWERS[0]]}))
    proc = run([sys.executable, "autograder/grade.py", "capstone", "--quiet"], course)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    reference = grades(course, "reference")
    assert {gid: g[0] for gid, g in reference.items() if gid in AUTOGRADED} == AUTOGRADED
    for gid in ANSWERS:  # answered: waiting for a person, 2 points each
        assert reference[gid] == (None, 2.0, True), (gid, reference[gid])
    partial_grades = grades(course, "partial")
    expected = {gid: 0.0 if gid in PARTIAL_FAILS else p for gid, p in AUTOGRADED.items()}
    assert {gid: g[0] for gid, g in partial_grades.items() if gid in AUTOGRADED} == expected
    assert partial_grades[ANSWERS[0]] == (None, 2.0, True)
    for gid in ANSWERS[1:]:  # left as released: nbgrader scores it 0, nobody needs to look
        assert partial_grades[gid] == (0.0, 2.0, False), (gid, partial_grades[gid])

    with open(course / "grading-report.csv", encoding="utf-8") as f:
        report = {r["student"]: r for r in csv.DictReader(f)}
    assert report["reference"]["score"] == "14" and report["reference"]["max_score"] == "20"
    assert report["partial"]["score"] == "9"
    for student, pending in [("reference", ANSWERS), ("partial", ANSWERS[:1])]:
        row = report[student]
        assert row["status"] == "graded" and row["needs_manual_grade"] == "yes", row
        assert f"{2 * len(pending)} points to grade by hand in the formgrader: " in row["details"], row
        assert all(f"{gid} (2)" in row["details"] for gid in pending), row
    for gid in ANSWERS[1:]:
        assert gid not in report["partial"]["details"]
    md = (course / "grading-report.md").read_text(encoding="utf-8")
    assert "waiting for manual grading in the formgrader: 2" in md
    print(f"\ncapstone, autograding the reference: {report['reference']['seconds']} s, "
          f"the partial submission: {report['partial']['seconds']} s")
