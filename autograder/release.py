"""Regenerate exercises/, the student notebooks, from source/ (``make exercises``).

    python autograder/release.py             # every assignment of source/assignments.json
    python autograder/release.py chars ...   # only these

For each assignment this runs nbgrader's own ``nbgrader generate_assignment <name> --force``
(in this process: ``runner.py``)
in the course root (``nbgrader_config.py`` sends the output to ``exercises/``): it removes
the solutions and hidden tests, locks the test cells, records the assignment in the
gradebook (``gradebook.db``, needed to autograde it later) and writes
``exercises/<name>/``. Folders of ``exercises/`` without a ``source/`` assignment are
removed when every assignment is regenerated.

nbgrader 0.9.6's output depends only on the source notebook (no timestamps, no paths;
the cell ids are those of the source), so ``exercises/`` is reproducible byte for byte,
as are the self-check files written first into ``source/<name>/`` (``selfcheck_spec.py``:
``check.py`` and ``selfcheck.json.gz``, gitignored there, copied by nbgrader like any
file of the assignment),
which ``tests/test_exercises.py`` checks. ``normalise`` makes sure of it: it rewrites
every generated notebook in nbformat's canonical JSON (indent 1, sorted keys, UTF-8,
final newline) without a Python version in its metadata, and sets file modes to 644.

Only the gzip stream of ``selfcheck.json.gz`` is not reproducible byte for byte: its
header is fixed (``selfcheck_spec.gzip_bytes``), but zlib's deflate output may change with
the zlib that the Python was built with, for the same JSON. So a released file is written
only when its *content* changes (``same_content``: a ``.gz`` file's content is its
decompressed bytes): a file whose content is unchanged keeps its committed bytes, and
``make book`` on any Python leaves ``git status`` clean.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import tempfile
from pathlib import Path

import sys
if not __package__:  # `python autograder/release.py`: run as autograder.release (PEP 366, _load.py)
    import runpy
    runpy.run_path(str(Path(__file__).resolve().with_name("_load.py")))
    __package__ = "autograder"

from . import assignments as registry
from . import selfcheck_spec
from .runner import ROOT, run_nbgrader


def source_assignments(root: Path = ROOT) -> list[str]:
    """Names of the assignments, sorted: the lines of ``source/assignments.json``, which
    ``assignments.load`` checks are exactly the folders of source/ that hold a notebook
    (it stops, saying what to add, when they are not)."""
    try:
        return sorted(registry.ids(root))
    except registry.RegistryError as err:
        raise SystemExit(f"release.py: {err}") from None


def normalise(folder: Path) -> None:
    """Canonical bytes and modes for every generated file (see the module docstring)."""
    for path in sorted(folder.rglob("*")):
        if path.is_dir():
            path.chmod(0o755)
            continue
        if path.suffix == ".ipynb":
            nb = json.loads(path.read_text(encoding="utf-8"))
            # What a kernel would add (versions of Python) is not part of the assignment.
            nb.get("metadata", {}).get("language_info", {}).pop("version", None)
            text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            path.chmod(0o644)  # nbgrader may have made it read-only
            path.write_text(text, encoding="utf-8")
        path.chmod(0o644)


def same_content(path: Path, old: Path) -> bool:
    """Whether two released files hold the same content: their bytes, or for ``.gz``
    files their decompressed bytes (zlib's compressed bytes vary between builds of zlib).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.gz").write_bytes(gzip.compress(b"{}", compresslevel=9, mtime=0))
    >>> _ = (d / "b.gz").write_bytes(gzip.compress(b"{}", compresslevel=1, mtime=0))
    >>> same_content(d / "a.gz", d / "b.gz"), same_content(d / "a.gz", d / "a.gz")
    (True, True)
    """
    new_bytes, old_bytes = path.read_bytes(), old.read_bytes()
    if new_bytes == old_bytes:
        return True
    if path.suffix != ".gz":
        return False
    try:
        return gzip.decompress(new_bytes) == gzip.decompress(old_bytes)
    except (OSError, EOFError):  # not gzip (a corrupt committed file): content differs
        return False


def keep_unchanged(folder: Path, previous: Path) -> list[str]:
    """Put back each file of ``previous`` (the folder as it was before nbgrader rewrote
    it) whose content ``folder`` has unchanged, bytes and time stamp alike, so that only
    changed files are written; returns the changed, added and removed files' names."""
    changed = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        old = previous / path.relative_to(folder)
        if old.is_file() and same_content(path, old):
            os.replace(old, path)
        else:
            changed.append(path.relative_to(folder).as_posix())
    changed += sorted(p.relative_to(previous).as_posix() for p in previous.rglob("*")
                      if p.is_file() and not (folder / p.relative_to(previous)).exists())
    return changed


def release(assignments: list[str], root: Path = ROOT) -> None:
    out = root / "exercises"
    out.mkdir(exist_ok=True)
    listed = source_assignments(root)
    for name in assignments:
        if name not in listed:
            raise SystemExit(f"no assignment {name!r} in source/assignments.json (there are: "
                             f"{', '.join(listed)}): add its line and its folder source/{name}/")
        selfcheck_spec.write(name, root)  # check.py and selfcheck.json.gz, which nbgrader copies
        with tempfile.TemporaryDirectory(dir=out) as keep:
            previous = Path(keep) / name
            if (out / name).is_dir():  # nbgrader --force replaces the folder: keep the old one
                shutil.copytree(out / name, previous, copy_function=shutil.copy2)
            result = run_nbgrader(["generate_assignment", name, "--force"], root=root)
            if result.status != 0:
                raise SystemExit(
                    f"nbgrader generate_assignment {name} failed: {'; '.join(result.errors)}")
            normalise(out / name)
            changed = keep_unchanged(out / name, previous)
        what = f"{len(changed)} changed: {', '.join(changed)}" if changed else "nothing changed"
        print(f"exercises/{name}/ regenerated from source/{name}/ ({what})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignments", nargs="*", help="default: every assignment of source/assignments.json")
    args = parser.parse_args(argv)
    everything = source_assignments()
    release(args.assignments or everything)
    if not args.assignments:
        out = ROOT / "exercises"
        for stale in sorted(p for p in out.iterdir() if p.is_dir() and p.name not in everything):
            shutil.rmtree(stale)
            print(f"exercises/{stale.name}/ removed: source/{stale.name}/ is gone")


if __name__ == "__main__":
    main()
