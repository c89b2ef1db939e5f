"""The corpora that ship with tokref: no network, ever.

>>> from tokref.corpus import load_texts
>>> train = load_texts(split="train")
>>> len(train), train[0][:20]
(38, "ALL'S WELL THAT ENDS")
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Literal

__all__ = ["Work", "list_works", "load_texts", "load_text", "ParallelCorpus", "load_parallel"]

Split = Literal["train", "heldout", "all"]


@dataclass(frozen=True)
class Work:
    """One work of a corpus, as listed in its ``manifest.json``."""

    file: str
    title: str
    split: str
    bytes: int
    sha256: str
    gutenberg_url: str


def _corpus_dir(name: str):
    if name != "shakespeare":
        raise ValueError(f"unknown corpus {name!r}: the only corpus shipped is 'shakespeare'")
    return resources.files("tokref") / "data" / name


@lru_cache(maxsize=None)
def list_works(name: str = "shakespeare") -> tuple[Work, ...]:
    """The works of corpus ``name``, in manifest (alphabetical) order."""
    manifest = json.loads((_corpus_dir(name) / "manifest.json").read_text(encoding="utf-8"))
    return tuple(Work(**w) for w in manifest["works"])


@lru_cache(maxsize=None)
def _read(name: str, file: str, sha256: str) -> str:
    try:
        data = (_corpus_dir(name) / file).read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"corpus file {file!r} is missing; "
            "restore it with `git checkout -- solutions/tokref/data`"
        ) from None
    # A corpus file that differs from its manifest would silently change every number
    # in the book, so check it.
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(
            f"corpus file {file!r} does not match its manifest checksum; "
            "restore it with `git checkout -- solutions/tokref/data`"
        )
    return data.decode("utf-8")


def load_texts(split: Split = "train", *, name: str = "shakespeare") -> list[str]:
    """The texts of a split, one string per work.

    ``split`` is ``"train"``, ``"heldout"`` or ``"all"``.
    """
    if split not in ("train", "heldout", "all"):
        raise ValueError(f"split must be 'train', 'heldout' or 'all', not {split!r}")
    return [
        _read(name, w.file, w.sha256)
        for w in list_works(name)
        if split == "all" or w.split == split
    ]


def load_text(split: Split = "train", *, name: str = "shakespeare") -> str:
    """The texts of a split joined into one string, works separated by a blank line."""
    return "\n\n".join(load_texts(split, name=name))


# ---------------------------------------------------------------------------------------
# The parallel corpus: the same texts in 14 languages
# ---------------------------------------------------------------------------------------

_PARALLEL_SHA256 = "e39ac77876b0021709e305fe694eab71142a37ef164a56da66e91b9351825627"


@dataclass(frozen=True)
class ParallelCorpus:
    """Texts aligned across languages: ``texts[lang][i]`` translates ``texts["en"][i]``.

    ``languages`` maps a language code (``"en"``, ``"zh_CN"``, ...) to its English name,
    ``scripts`` to the script it is written in; ``source`` and ``license`` say where the
    texts come from (``data/parallel/README.md`` has the whole story).
    """

    languages: dict[str, str]
    scripts: dict[str, str]
    texts: dict[str, list[str]] = field(repr=False)
    source: str
    license: str


@lru_cache(maxsize=None)
def load_parallel() -> ParallelCorpus:
    """Sphinx 7.4.7's user-interface messages in English and 13 translations (BSD-2).

    >>> corpus = load_parallel()
    >>> len(corpus.languages), len(corpus.texts["en"]), sorted(set(corpus.scripts.values()))[:3]
    (14, 139, ['Arabic', 'Cyrillic', 'Devanagari'])
    >>> corpus.texts["en"][0], corpus.texts["fr"][0]
    ('About these documents', 'À propos de ces documents')
    """
    root = resources.files("tokref") / "data" / "parallel"
    data = (root / "sphinx_messages.json").read_bytes()
    if hashlib.sha256(data).hexdigest() != _PARALLEL_SHA256:
        raise ValueError(
            "sphinx_messages.json does not match its checksum; "
            "restore it with `git checkout -- solutions/tokref/data`"
        )
    raw = json.loads(data)
    langs = raw["languages"]
    return ParallelCorpus(
        languages={code: v["name"] for code, v in langs.items()},
        scripts={code: v["script"] for code, v in langs.items()},
        texts={code: [m[code] for m in raw["messages"]] for code in langs},
        source=raw["source"],
        license=raw["license"],
    )
