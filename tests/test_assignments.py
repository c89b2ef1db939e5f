"""The one list of assignments, ``source/assignments.json`` (``autograder/assignments.py``):
it is source/'s folders, with their notebooks' titles, parts and points; the book's table
of contents, practice stubs and chapter links, and the course plan of
``autograder/README.md`` agree with it; and its errors say what to add."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import REGISTRY, ROOT, registry


def test_the_toc_and_the_stubs_are_the_registrys():
    """_toc.yml's practice pages are the registry's, in its order (``make book`` rewrites
    them: ``python autograder/assignments.py --sync``), and each has its stub."""
    assert registry.disagreements(ROOT) == [], "run: python autograder/assignments.py --sync"
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    part = next(p for p in toc["parts"] if p["caption"] == "Practice in the browser")
    assert [c["file"] for c in part["chapters"]] == [a.page for a in REGISTRY]


@pytest.mark.parametrize("assignment", REGISTRY, ids=lambda a: a.id)
def test_the_chapter_links_its_assignment(assignment):
    text = (ROOT / f"{assignment.chapter}.md").read_text(encoding="utf-8")
    assert f"<practice/{assignment.id}>" in text, f"{assignment.chapter}.md: link the practice page"
    assert f"exercises/{assignment.id}/{assignment.id}.ipynb" in text, f"{assignment.chapter}.md: link the notebook"


def test_the_course_plan_is_the_registrys():
    """The course plan's table (autograder/README.md): each assignment's parts and points,
    in the registry's order, and the totals."""
    text = (ROOT / "autograder" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|[^|\n]*\|[^|\n]*\|[^|\n]*\| `(\w+)`[^|\n]*\| (\d+) parts, (\d+) points"
                      r"(?: \+ \d+ written answers, (\d+) points)? \|", text, re.M)
    assert [(a, int(p), int(pts), int(w or 0)) for a, p, pts, w in rows] == [
        (a.id, a.parts, a.points, a.written_points) for a in REGISTRY]
    total = re.search(r"^\| total \|.*\| (\d+) parts and \d+ answers, (\d+) points \|", text, re.M)
    assert total and (int(total.group(1)), int(total.group(2))) == (
        sum(a.parts for a in REGISTRY), sum(a.points + a.written_points for a in REGISTRY))


# ---------------------------------------------------------------------------------------
# Its errors, on a small course of its own
# ---------------------------------------------------------------------------------------


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """source/ with two assignments and their registry; a _toc.yml and book/practice/."""
    for a in ("chars", "words"):
        (tmp_path / "source" / a).mkdir(parents=True)
        shutil.copy(ROOT / "source" / a / f"{a}.ipynb", tmp_path / "source" / a)
    lines = [json.dumps(a.__dict__ | {"cell_timeout": 120}) for a in REGISTRY if a.id in ("chars", "words")]
    (tmp_path / "source" / "assignments.json").write_text(
        '{"assignments": [\n' + ",\n".join(lines) + "\n]}\n", encoding="utf-8")
    (tmp_path / "_toc.yml").write_text(
        f"parts:\n  - caption: Practice in the browser\n    chapters:\n      {registry.TOC_BEGIN}\n"
        f"      {registry.TOC_END}\n", encoding="utf-8")
    (tmp_path / "book" / "practice").mkdir(parents=True)
    return tmp_path


def test_a_folder_without_a_line_says_what_to_add(course):
    (course / "source" / "bpe").mkdir()
    shutil.copy(ROOT / "source" / "bpe" / "bpe.ipynb", course / "source" / "bpe")
    with pytest.raises(registry.RegistryError, match=r'source/bpe/ has no line in source/assignments.json: add '
                       r'\{"id": "bpe", .*"title": "Byte-pair encoding", "parts": 5, "points": 10\}'):
        registry.load(course)


def test_a_line_without_a_folder_says_what_to_write(course):
    shutil.rmtree(course / "source" / "words")
    with pytest.raises(registry.RegistryError, match=r"lists 'words' but source/words/words.ipynb does not exist"):
        registry.load(course)


@pytest.mark.parametrize("key, value, message", [
    ("points", 9, r"'chars': points is 9, but source/chars/chars.ipynb says 10"),
    ("parts", 3, r"parts is 3, but .* says 4"),
    ("title", "Characters", r"title is 'Characters', but .* says 'A character tokenizer'"),
    ("chapter", "02_characters", r"'chapter' is a book page without .md"),
    ("colour", "red", r"unknown keys \['colour'\]"),
])
def test_a_line_that_disagrees_with_its_notebook_says_so(course, key, value, message):
    path = course / "source" / "assignments.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["assignments"][0][key] = value
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(registry.RegistryError, match=message):
        registry.load(course)


def test_sync_writes_the_toc_and_stubs_and_removes_stale_stubs(course):
    (course / "book" / "practice" / "gone.md").write_text("# old\n", encoding="utf-8")
    assert len(registry.disagreements(course)) == 4
    done = registry.sync(course)
    assert done == ["_toc.yml rewritten", "book/practice/chars.md written", "book/practice/words.md written",
                    "book/practice/gone.md removed"]
    assert registry.disagreements(course) == [] and registry.sync(course) == []
    toc = yaml.safe_load((course / "_toc.yml").read_text(encoding="utf-8"))
    assert [c["file"] for c in toc["parts"][0]["chapters"]] == ["book/practice/chars", "book/practice/words"]
    assert (course / "book/practice/chars.md").read_text() == (ROOT / "book/practice/chars.md").read_text()
