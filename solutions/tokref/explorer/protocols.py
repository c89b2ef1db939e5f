"""What the explorers take: the protocols, the check that refuses anything else with a
hint, and what they read from any tokenizer (its kind if it is tokref's own, its
unknown id, labels, plain encoding)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ..base import native_kind


class MergeStepLike(Protocol):
    """One merge of a training run: ``pair`` (two ids) became ``new_id``; the pair
    occurred ``count`` times when it was chosen (:class:`tokref.merges.MergeStep`)."""

    @property
    def pair(self) -> tuple[int, int]: ...

    @property
    def count(self) -> int: ...

    @property
    def new_id(self) -> int: ...


@runtime_checkable
class SupportsTokenize(Protocol):
    """What :class:`CompareExplorer` needs."""

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: list[int]) -> str: ...

    def id_to_token(self, id: int) -> str: ...


@runtime_checkable
class SupportsMergeTrace(SupportsTokenize, Protocol):
    """What :class:`MergeExplorer` needs: a tokenizer and the trace of its merges, in order."""

    trace: Sequence[MergeStepLike] | None


def check_tokenizer(tok: object, *, name: str = "tokenizer", trace: bool = False) -> None:
    """Refuse what does not implement the protocol, saying what is missing."""
    if isinstance(tok, type):
        raise TypeError(f"{name} must be a trained tokenizer object, not the class {tok.__name__}")
    missing = [m for m in ("encode", "decode", "id_to_token") if not callable(getattr(tok, m, None))]
    if missing:
        raise TypeError(
            f"{name} ({type(tok).__name__}) lacks {', '.join(m + '()' for m in missing)}; an explorer "
            "needs encode(text) -> list[int], decode(ids) -> str and id_to_token(id) -> str "
            "(see tokref.explorer.SupportsTokenize)"
        )
    if trace:
        steps = getattr(tok, "trace", None)
        if steps is None:
            raise TypeError(
                f"{name} ({type(tok).__name__}) has no merge trace; train it with trace=True, or give "
                "it a .trace attribute: a list of steps with .pair (two ids), .count and .new_id"
            )
        for i, s in enumerate(itertools.islice(steps, 3)):
            if not all(hasattr(s, a) for a in ("pair", "count", "new_id")):
                raise TypeError(f"{name}.trace[{i}] lacks .pair, .count or .new_id: {s!r}")


# tokref's kinds under the names the explorers' data uses (the engines of tokx.js).
_KINDS = {"char": "char", "word": "word", "bpe": "bpe", "bytelevel_bpe": "bytelevel",
          "wordpiece": "wordpiece", "unigram": "unigram"}


def tokref_kind(tok: object) -> str | None:
    """``"char"``, ``"word"``, ``"bpe"``, ``"bytelevel"``, ``"wordpiece"`` or
    ``"unigram"`` for tokref's own classes, exactly (a subclass may have changed the
    algorithm, so the explorers read its internals only through the protocol); else None."""
    return _KINDS.get(native_kind(tok) or "")


def unk_id(tok: object) -> int | None:
    """``tok.unk_id`` if it is an int, else None."""
    try:
        u = getattr(tok, "unk_id", None)
    except Exception:  # noqa: BLE001 - a student's property may raise anything
        return None
    return u if isinstance(u, int) and not isinstance(u, bool) else None


def label(tok: object, i: int) -> str:
    """How a token is named on the page: ``id_to_token``, or ``#id`` if that fails."""
    try:
        return str(tok.id_to_token(i))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        return f"#{i}"


def encode_plain(tok: Any, text: str) -> list[int]:
    """The ids of ``text``. For tokref's byte-level BPE, special-token text is always
    plain text (``encode_ordinary``), whatever the tokenizer allows: one made by
    ``allowing_special("all")`` gives the same ids. Anything else: its ``encode``.

    >>> from tokref import load_openai_encoding
    >>> trusted = load_openai_encoding("cl100k_base").allowing_special("all")
    >>> encode_plain(trusted, "<|endoftext|>") == trusted.encode_ordinary("<|endoftext|>")
    True
    """
    if tokref_kind(tok) == "bytelevel":
        return tok.encode_ordinary(text)
    return list(tok.encode(text))
