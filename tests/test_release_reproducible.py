"""autograder/release.py writes a released file only when its content changes, so that
``make book`` on another Python (whose zlib may compress the same self-check JSON into other
bytes) leaves ``git status`` clean, and compares ``.gz`` files by their decompressed content.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT


from autograder import release  # noqa: E402
from autograder import selfcheck_spec  # noqa: E402

ASSIGNMENT = "chars"  # the smallest self-check spec

# Run release.py as `make exercises` does, but gzip the self-check spec at zlib's level 1:
# the same JSON in other deflate bytes, as another zlib would write it.
RELEASE_AT_LEVEL_1 = """
import functools, sys
from autograder import selfcheck_spec
selfcheck_spec.spec_bytes = functools.partial(selfcheck_spec.spec_bytes, level=1)
from autograder import release
release.main(sys.argv[1:])
"""


def test_gzip_header_is_fixed():
    data = b'{"a":1}\n'
    for level in (1, 6, 9):
        packed = selfcheck_spec.gzip_bytes(data, level=level)
        assert gzip.decompress(packed) == data
        # magic, deflate, no flags (no file name), mtime 0, XFL, OS 255 ("unknown")
        assert packed[:8] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00" and packed[9] == 255


def test_same_content_compares_gz_files_decompressed(tmp_path):
    raw = b"the same JSON " * 500
    a, b, c, text = (tmp_path / n for n in ("a.gz", "b.gz", "c.gz", "t.txt"))
    a.write_bytes(selfcheck_spec.gzip_bytes(raw, level=9))
    b.write_bytes(selfcheck_spec.gzip_bytes(raw, level=1))
    c.write_bytes(selfcheck_spec.gzip_bytes(raw + b"!", level=9))
    text.write_bytes(b"x")
    assert a.read_bytes() != b.read_bytes()
    assert release.same_content(a, b)
    assert not release.same_content(a, c)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"not gzip")
    assert not release.same_content(a, bad)


def test_keep_unchanged_puts_back_only_unchanged_files(tmp_path):
    new, old = tmp_path / "new", tmp_path / "old"
    for folder in (new, old):
        (folder / "sub").mkdir(parents=True)
    (old / "same.gz").write_bytes(selfcheck_spec.gzip_bytes(b"spec", level=9))
    (new / "same.gz").write_bytes(selfcheck_spec.gzip_bytes(b"spec", level=1))
    (old / "sub" / "edited.txt").write_text("old")
    (new / "sub" / "edited.txt").write_text("new")
    (old / "gone.txt").write_text("x")
    (new / "added.txt").write_text("x")
    committed = (old / "same.gz").read_bytes()
    os.utime(old / "same.gz", (1_000_000_000, 1_000_000_000))
    changed = release.keep_unchanged(new, old)
    assert changed == ["added.txt", "sub/edited.txt", "gone.txt"]
    assert (new / "same.gz").read_bytes() == committed
    assert (new / "same.gz").stat().st_mtime == 1_000_000_000
    assert (new / "sub" / "edited.txt").read_text() == "new"


@pytest.mark.slow
def test_rerelease_with_other_gzip_bytes_rewrites_nothing(course):
    """The committed exercises/chars/, released again with a self-check spec that zlib
    compresses into other bytes: every file keeps its committed bytes and time stamp."""
    committed = ROOT / "exercises" / ASSIGNMENT
    shutil.copytree(committed, course / "exercises" / ASSIGNMENT, copy_function=shutil.copy2)
    before = {p.relative_to(course).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
              for p in sorted((course / "exercises").rglob("*")) if p.is_file()}
    proc = subprocess.run([sys.executable, "-c", RELEASE_AT_LEVEL_1, ASSIGNMENT], cwd=course,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(nothing changed)" in proc.stdout, proc.stdout
    spec = course / "source" / ASSIGNMENT / "selfcheck.json.gz"  # what nbgrader copied
    assert spec.read_bytes() != (committed / "selfcheck.json.gz").read_bytes()  # not vacuous
    after = {p.relative_to(course).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
             for p in sorted((course / "exercises").rglob("*")) if p.is_file()}
    assert after == before
