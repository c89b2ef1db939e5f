"""tokref.corpus: the shipped Shakespeare corpus, its splits and its checksums."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

import tokref.corpus as corpus
from tokref.corpus import Work, list_works, load_text, load_texts

DATA = Path(corpus.__file__).parent / "data" / "shakespeare"
HELDOUT_TITLES = {"Macbeth", "The Tempest", "Twelfth Night", "Sonnets"}


def test_manifest_lists_42_works_in_file_order():
    works = list_works()
    assert len(works) == 42
    assert all(type(w) is Work for w in works)
    assert [w.file for w in works] == sorted(w.file for w in works)
    assert len({w.file for w in works}) == 42


def test_every_shipped_text_is_in_the_manifest():
    on_disk = {p.name for p in DATA.glob("*.txt")} - {"COPYING-open-shakespeare.txt"}
    assert on_disk == {w.file for w in list_works()}


def test_splits_are_38_train_and_4_heldout():
    works = list_works()
    assert {w.split for w in works} == {"train", "heldout"}
    assert sum(w.split == "train" for w in works) == 38
    assert {w.title for w in works if w.split == "heldout"} == HELDOUT_TITLES


def test_load_texts_by_split():
    train, heldout, every = load_texts("train"), load_texts("heldout"), load_texts("all")
    assert len(train) == 38 and len(heldout) == 4 and len(every) == 42
    assert load_texts() == train  # train is the default
    assert not set(train) & set(heldout)
    by_file = dict(zip([w.file for w in list_works()], every))
    assert [by_file[w.file] for w in list_works() if w.split == "heldout"] == heldout
    assert train[0].startswith("ALL'S WELL THAT ENDS WELL")


def test_texts_match_the_manifest_sizes():
    works = list_works()
    texts = load_texts("all")
    assert [len(t.encode("utf-8")) for t in texts] == [w.bytes for w in works]
    assert sum(w.bytes for w in works) == 5_057_198  # as the data README says
    assert sum(w.bytes for w in works if w.split == "heldout") == 412_470
    assert all(t.isascii() for t in texts)


def test_files_on_disk_match_the_manifest_checksums():
    # Independently of tokref's own check: hash the files here.
    manifest = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))
    for w in manifest["works"]:
        assert hashlib.sha256((DATA / w["file"]).read_bytes()).hexdigest() == w["sha256"], w["file"]


def test_load_text_joins_works_with_a_blank_line():
    assert load_text("heldout") == "\n\n".join(load_texts("heldout"))
    assert load_text() == "\n\n".join(load_texts("train"))


def test_results_are_fresh_lists():
    texts = load_texts("heldout")
    texts.clear()
    assert len(load_texts("heldout")) == 4


@pytest.mark.parametrize("split", ["test", "Train", "", None, "heldout "])
def test_unknown_split(split):
    with pytest.raises(ValueError, match=r"split must be 'train', 'heldout' or 'all', not "):
        load_texts(split)
    with pytest.raises(ValueError, match=r"split must be 'train', 'heldout' or 'all'"):
        load_text(split)


@pytest.mark.parametrize("name", ["wikipedia", "Shakespeare", ""])
def test_unknown_corpus(name):
    match = rf"unknown corpus {name!r}: the only corpus shipped is 'shakespeare'"
    with pytest.raises(ValueError, match=match):
        load_texts(name=name)
    with pytest.raises(ValueError, match=match):
        load_text("heldout", name=name)
    with pytest.raises(ValueError, match=match):
        list_works(name)


# ---------------------------------------------------------------------------
# The checksum check, on a corrupted copy of the corpus
# ---------------------------------------------------------------------------


@pytest.fixture
def corpus_copy(tmp_path, monkeypatch):
    """A copy of the manifest and the held-out works that tokref reads instead of its own."""
    copy = tmp_path / "shakespeare"
    copy.mkdir()
    shutil.copy(DATA / "manifest.json", copy)
    for w in list_works():
        if w.split == "heldout":
            shutil.copy(DATA / w.file, copy)
    real = corpus._corpus_dir

    def fake_dir(name):
        real(name)  # keep the name check
        return copy

    monkeypatch.setattr(corpus, "_corpus_dir", fake_dir)
    # The readers are cached; a cached good read would hide the corruption.
    corpus._read.cache_clear()
    corpus.list_works.cache_clear()
    yield copy
    corpus._read.cache_clear()
    corpus.list_works.cache_clear()


def test_intact_copy_loads(corpus_copy):
    assert load_texts("heldout") == [(corpus_copy / w.file).read_text() for w in list_works() if w.split == "heldout"]


def test_corrupted_file_is_refused(corpus_copy):
    path = corpus_copy / "macbeth.txt"
    raw = bytearray(path.read_bytes())
    raw[1000] ^= 0x20  # flip the case of one letter: same size, different content
    path.write_bytes(bytes(raw))
    with pytest.raises(
        ValueError,
        match=r"corpus file 'macbeth\.txt' does not match its manifest checksum; "
        r"restore it with `git checkout -- solutions/tokref/data`",
    ):
        load_texts("heldout")
    with pytest.raises(ValueError, match=r"does not match its manifest checksum"):
        load_text("heldout")


def test_truncated_file_is_refused(corpus_copy):
    path = corpus_copy / "tempest.txt"
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ValueError, match=r"corpus file 'tempest\.txt' does not match its manifest checksum"):
        load_texts("heldout")


def test_missing_file_is_reported(corpus_copy):
    (corpus_copy / "sonnets.txt").unlink()
    with pytest.raises(
        FileNotFoundError,
        match=r"corpus file 'sonnets\.txt' is missing; restore it with `git checkout -- solutions/tokref/data`",
    ):
        load_texts("heldout")
