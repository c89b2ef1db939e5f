"""Batches of token ids: padding with attention masks, truncation, and packing.

A model takes a batch as one rectangle of ids, so rows of different lengths are
*padded* to a common length with a pad id, and an *attention mask* (1 for a real
token, 0 for padding) keeps the padding out of attention. A row that is too long is
*truncated*. For pre-training, documents are instead *packed*: concatenated with an
end-of-text id after each one and cut into rows of exactly the same length, with no
padding at all; the boundaries of the documents in each row let a model keep attention
inside each document.

``Tokenizer.encode_batch`` (in :mod:`tokref.base`) encodes texts and hands the rows to
:func:`assemble_batch`; the pure helpers work on ids alone.

>>> rows, mask = pad_ids([[5, 6, 7], [8]], pad_id=0, side="left")
>>> rows, mask
([[5, 6, 7], [0, 0, 8]], [[1, 1, 1], [0, 0, 1]])
>>> truncate_ids([5, 6, 7, 8], 2, side="left")
[7, 8]
>>> packed = pack_documents([[1, 2, 3], [4], [5, 6]], row_length=4, eot_id=0)
>>> packed.rows
[[1, 2, 3, 0], [4, 0, 5, 6]]
>>> packed.boundaries
[[(0, 4, 0)], [(0, 2, 1), (2, 4, 2)]]

The last document's ``[5, 6, 0]`` did not fit: its eot is in no full row, and the
partial row is dropped (see :func:`pack_documents`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from .checks import check_bool, check_int, check_text, is_integer

__all__ = [
    "BatchEncoding",
    "Packed",
    "pad_ids",
    "truncate_ids",
    "pack_documents",
    "check_id_row",
    "check_id_rows",
    "assemble_batch",
    "check_batch_texts",
    "check_side",
    "check_padding",
    "check_truncation",
]

Side = Literal["left", "right"]
Span = tuple[int, int]


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


def check_side(side: object, *, name: str = "side") -> Side:
    """Return ``side`` if it is ``"left"`` or ``"right"``.

    >>> check_side("left")
    'left'
    >>> check_side("start", name="padding_side")
    Traceback (most recent call last):
    ...
    ValueError: padding_side must be 'left' or 'right', not 'start'
    """
    if not isinstance(side, str) or side not in ("left", "right"):
        raise ValueError(f"{name} must be 'left' or 'right', not {side!r}")
    return side  # type: ignore[return-value]


def check_padding(padding: object) -> int | Literal["longest"] | None:
    """Normalise ``padding``: ``False`` → ``None`` (no padding), ``True`` or
    ``"longest"`` → ``"longest"``, an int ≥ 1 → that fixed length.

    >>> check_padding(True), check_padding(False), check_padding(8)
    ('longest', None, 8)
    >>> check_padding(0)
    Traceback (most recent call last):
    ...
    ValueError: padding must be at least 1 (a row length), not 0; pass padding=True to
    pad to the longest row
    """
    if padding is False:
        return None
    if padding is True or (isinstance(padding, str) and padding == "longest"):
        return "longest"
    if is_integer(padding):
        if padding < 1:  # type: ignore[operator]
            raise ValueError(
                f"padding must be at least 1 (a row length), not {padding}; pass "
                "padding=True to pad to the longest row"
            )
        return int(padding)  # type: ignore[call-overload]
    raise ValueError(
        f"padding must be True, False, 'longest' or a row length (int), not {padding!r}"
    )


def check_truncation(truncation: object, *, n_added: int = 0) -> int | None:
    """Check ``truncation`` (``None`` or a length ≥ 1) against the ``n_added`` special
    tokens a post-processor adds to every row, which truncation keeps; returns the
    budget left for the content (``None``: no truncation).

    >>> check_truncation(5, n_added=2)
    3
    >>> check_truncation(1, n_added=2)
    Traceback (most recent call last):
    ...
    ValueError: truncation=1 leaves no room for the 2 special tokens this tokenizer adds
    to every row ([CLS] ... [SEP] or the like); pass truncation >= 2, or
    add_special_tokens=False where the tokenizer takes it
    """
    if truncation is None:
        return None
    if not is_integer(truncation):
        raise TypeError(
            f"truncation must be None or an int (the longest row), not "
            f"{type(truncation).__name__} ({truncation!r})"
        )
    if truncation < 1:  # type: ignore[operator]
        raise ValueError(f"truncation must be at least 1 (a row length), not {truncation}")
    if truncation < n_added:  # type: ignore[operator]
        raise ValueError(
            f"truncation={truncation} leaves no room for the {n_added} special tokens this "
            "tokenizer adds to every row ([CLS] ... [SEP] or the like); pass truncation "
            f">= {n_added}, or add_special_tokens=False where the tokenizer takes it"
        )
    return int(truncation) - n_added  # type: ignore[call-overload]


def check_batch_texts(texts: object) -> list[str]:
    """Return ``texts`` as a list if it is a sequence of ``str``; otherwise a
    ``TypeError`` that names the first wrong item.

    >>> check_batch_texts(("a", "b"))
    ['a', 'b']
    >>> check_batch_texts(["a", 3])
    Traceback (most recent call last):
    ...
    TypeError: texts[1] must be str, not int
    """
    if isinstance(texts, str):
        raise TypeError(
            "texts must be a list of str, not one str; pass [text] (or use .encode(text))"
        )
    if isinstance(texts, (bytes, bytearray)) or not isinstance(texts, Sequence):
        raise TypeError(
            f"texts must be a list of str, not {type(texts).__name__}; for an iterator or "
            "a generator pass list(texts)"
        )
    return [check_text(t, name=f"texts[{i}]") for i, t in enumerate(texts)]


def check_id_row(row: object, *, name: str) -> list[int]:
    """``row`` as a list of ints >= 0 (a sequence, not a str or bytes); a ``TypeError``
    naming the first wrong item otherwise.

    >>> check_id_row((3, 4), name="ids")
    [3, 4]
    """
    if isinstance(row, (str, bytes, bytearray)) or not isinstance(row, Sequence):
        raise TypeError(f"{name} must be a list of int ids, not {type(row).__name__}")
    out = []
    for j, x in enumerate(row):
        if not is_integer(x) or x < 0:
            raise TypeError(f"{name}[{j}] must be an int id >= 0, not {x!r}")
        out.append(int(x))
    return out


def check_id_rows(rows: object, *, name: str) -> list[list[int]]:
    """``rows`` as a list of rows of ids (see :func:`check_id_row`)."""
    if isinstance(rows, (str, bytes, bytearray)) or not isinstance(rows, Sequence):
        raise TypeError(f"{name} must be a list of lists of int, not {type(rows).__name__}")
    return [check_id_row(r, name=f"{name}[{i}]") for i, r in enumerate(rows)]


# ---------------------------------------------------------------------------
# Padding and truncation
# ---------------------------------------------------------------------------


def pad_ids(
    rows: Sequence[Sequence[int]],
    *,
    pad_id: int,
    length: int | None = None,
    side: Side = "right",
) -> tuple[list[list[int]], list[list[int]]]:
    """Pad every row with ``pad_id`` to ``length`` (``None``: the longest row's length)
    on ``side``; return the padded rows and their attention masks (1 real, 0 pad).

    A row longer than ``length`` is an error: cut it first with :func:`truncate_ids`.

    >>> pad_ids([[5, 6], [7]], pad_id=0)
    ([[5, 6], [7, 0]], [[1, 1], [1, 0]])
    >>> pad_ids([[5]], pad_id=0, length=3, side="left")
    ([[0, 0, 5]], [[0, 0, 1]])
    """
    checked = check_id_rows(rows, name="rows")
    pad_id = check_int(pad_id, name="pad_id", minimum=0)
    side = check_side(side)
    if length is None:
        length = max(map(len, checked), default=0)
    else:
        length = check_int(length, name="length", minimum=1)
    out, masks = [], []
    for i, row in enumerate(checked):
        n = length - len(row)
        if n < 0:
            raise ValueError(
                f"rows[{i}] has {len(row)} ids, more than length={length}; truncate it "
                f"first (truncate_ids(row, {length})) or pass a larger length"
            )
        if side == "right":
            out.append(row + [pad_id] * n)
            masks.append([1] * len(row) + [0] * n)
        else:
            out.append([pad_id] * n + row)
            masks.append([0] * n + [1] * len(row))
    return out, masks


def truncate_ids(ids: Sequence[int], max_length: int, *, side: Side = "right") -> list[int]:
    """The first (``side="right"``: cut on the right) or last (``side="left"``)
    ``max_length`` ids of ``ids``; all of them if there are no more.

    >>> truncate_ids([1, 2, 3], 2), truncate_ids([1, 2, 3], 2, side="left")
    ([1, 2], [2, 3])
    """
    ids = check_id_row(ids, name="ids")
    max_length = check_int(max_length, name="max_length", minimum=0)
    side = check_side(side)
    if len(ids) <= max_length:
        return ids
    return ids[:max_length] if side == "right" else ids[len(ids) - max_length :]


# ---------------------------------------------------------------------------
# Batch encodings
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchEncoding(Mapping[str, Any]):
    """Encoded rows of a batch, with the fields of Hugging Face's ``BatchEncoding``.

    - ``input_ids[i]``: the ids of row ``i``, padding included;
    - ``attention_mask[i][j]``: 1 for a real token, 0 for padding;
    - ``offsets[i][j]``: the character span of ``texts[i]`` token ``j`` comes from
      (``(0, 0)`` for padding and for tokens a post-processor added, as in Hugging
      Face), or ``None`` when not asked for (``return_offsets=False``);
    - ``special_tokens_mask[i][j]``: 1 for padding and added special tokens such as
      ``[CLS]``, 0 for tokens of the text (a special token written in the text too, as
      in Hugging Face ``tokenizers``);
    - ``lengths[i]``: the length of row ``i`` without padding.

    Like Hugging Face's (a dict), it is a mapping from field name to field:
    ``batch["input_ids"]``, ``batch.keys()``, ``dict(batch)``, ``model(**batch)``;
    ``offsets`` is a key only when present. ``len(batch)`` is therefore the number of
    fields; the number of rows is ``len(batch.input_ids)``.
    """

    input_ids: list[list[int]]
    attention_mask: list[list[int]]
    offsets: list[list[Span]] | None
    special_tokens_mask: list[list[int]]
    lengths: list[int]

    def _names(self) -> list[str]:
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]

    def __getitem__(self, key: str) -> Any:
        if isinstance(key, str) and key in self._names():
            return getattr(self, key)
        if is_integer(key):
            raise KeyError(
                f"a BatchEncoding is indexed by field name, not by row ({key}); for row "
                f"{key} use batch['input_ids'][{key}]"
            )
        raise KeyError(f"{key!r} is not a field of this batch; its fields are {self._names()}")

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict of fresh lists (``offsets`` only when present),
        ready for ``json.dumps`` (spans become pairs)."""
        return {k: [list(r) if isinstance(r, list) else r for r in v] for k, v in self.items()}


def _cut(row: list[Any], budget: int | None, side: Side) -> list[Any]:
    if budget is None or len(row) <= budget:
        return row
    return row[:budget] if side == "right" else row[len(row) - budget :]


def _pad(row: list[Any], fill: Any, n: int, side: Side) -> list[Any]:
    return row + [fill] * n if side == "right" else [fill] * n + row


def assemble_batch(
    ids: Sequence[Sequence[int]],
    offsets: Sequence[Sequence[Span]] | None = None,
    *,
    prefix: Sequence[int] = (),
    suffix: Sequence[int] = (),
    padding: bool | Literal["longest"] | int = False,
    padding_side: Side = "right",
    pad_id: int | None = None,
    truncation: int | None = None,
    truncation_side: Side = "right",
) -> BatchEncoding:
    """Build a :class:`BatchEncoding` from the ids of each text (and their ``offsets``,
    which the result then holds; ``None``: no offsets).

    What a post-processor adds to every row (``prefix``, ``suffix``: BERT's ``[CLS]``
    and ``[SEP]``, offsets ``(0, 0)``) is put around each row's content. Truncation to
    ``truncation`` tokens counts them and keeps them: the content is cut on
    ``truncation_side`` (``"right"`` keeps its beginning, ``"left"`` its end), so a
    row never holds half of the added sequence, as in Hugging Face ``tokenizers``.
    Padding: see ``Tokenizer.encode_batch``. The rows are a tokenizer's output and
    are not checked id by id (:func:`pad_ids` checks them).

    >>> b = assemble_batch([[7, 8, 9], [7]], prefix=[1], suffix=[2], padding=True,
    ...                    pad_id=0, truncation=4)
    >>> b.input_ids, b.attention_mask, b.lengths
    ([[1, 7, 8, 2], [1, 7, 2, 0]], [[1, 1, 1, 1], [1, 1, 1, 0]], [4, 3])
    >>> b.special_tokens_mask  # [CLS], [SEP] and padding
    [[1, 0, 0, 1], [1, 0, 1, 1]]
    """
    length = check_padding(padding)
    padding_side = check_side(padding_side, name="padding_side")
    truncation_side = check_side(truncation_side, name="truncation_side")
    prefix = check_id_row(prefix, name="prefix")
    suffix = check_id_row(suffix, name="suffix")
    budget = check_truncation(truncation, n_added=len(prefix) + len(suffix))
    if length is not None:
        pad_id = check_int(pad_id, name="pad_id (padding needs one)", minimum=0)
    if offsets is not None and len(offsets) != len(ids):
        raise ValueError(f"{len(ids)} rows of ids but {len(offsets)} rows of offsets")
    content = [_cut(list(r), budget, truncation_side) for r in ids]
    lengths = [len(prefix) + len(r) + len(suffix) for r in content]
    if length == "longest":
        length = max(lengths, default=0)
    too_long = next((i for i, n in enumerate(lengths) if length is not None and n > length), None)
    if too_long is not None:
        raise ValueError(
            f"row {too_long} has {lengths[too_long]} tokens, more than padding={length}; "
            f"pass truncation={length} to cut the rows to it, or a larger padding"
        )
    out: dict[str, list[Any]] = {"ids": [], "mask": [], "special": [], "offsets": []}
    for i, (row, n) in enumerate(zip(content, lengths)):
        n_pad = 0 if length is None else length - n  # type: ignore[operator]
        out["ids"].append(_pad([*prefix, *row, *suffix], pad_id, n_pad, padding_side))
        out["mask"].append(_pad([1] * n, 0, n_pad, padding_side))
        special = [1] * len(prefix) + [0] * len(row) + [1] * len(suffix)
        out["special"].append(_pad(special, 1, n_pad, padding_side))
        if offsets is not None:
            spans = _cut([tuple(s) for s in offsets[i]], budget, truncation_side)
            if len(spans) != len(row):
                raise ValueError(f"row {i} has {len(ids[i])} ids but {len(offsets[i])} offsets")
            # Added tokens come from no character of the text: (0, 0), as in Hugging Face.
            spans = [(0, 0)] * len(prefix) + spans + [(0, 0)] * len(suffix)
            out["offsets"].append(_pad(spans, (0, 0), n_pad, padding_side))
    return BatchEncoding(
        input_ids=out["ids"],
        attention_mask=out["mask"],
        offsets=None if offsets is None else out["offsets"],
        special_tokens_mask=out["special"],
        lengths=lengths,
    )


# ---------------------------------------------------------------------------
# Packing
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Packed:
    """Documents packed into rows of one length (see :func:`pack_documents`).

    ``boundaries[r]`` lists ``(start, end, doc_index)`` for each document in row ``r``:
    ``rows[r][start:end]`` is a piece of document ``doc_index`` with its end-of-text
    id, if that falls in the row. The spans of a row are in order and touch; together
    they cover the real tokens of the row, ``attention_mask[r]`` the same positions
    (only a padded last row has zeros, after the spans). The block-diagonal mask, the
    positions and the labels of a row come from its boundaries: see
    :mod:`tokref.training`.
    """

    rows: list[list[int]]
    attention_mask: list[list[int]]
    boundaries: list[list[tuple[int, int, int]]]


def pack_documents(
    docs: Sequence[Sequence[int]],
    *,
    row_length: int,
    eot_id: int,
    keep_last: bool = False,
    pad_id: int | None = None,
) -> Packed:
    """Concatenate ``docs`` (lists of ids) with ``eot_id`` after each one and cut the
    stream into rows of exactly ``row_length`` ids.

    A document longer than the room left in a row continues at the start of the next
    row, with the same ``doc_index`` in ``boundaries``. The last, partial row is
    dropped by default, as GPT-2/Megatron-style pre-training does (every row is full,
    so no compute goes to padding; at most ``row_length - 1`` ids of the corpus are
    lost). With ``keep_last=True`` it is kept, padded on the right with ``pad_id``
    (default: ``eot_id``), and its ``attention_mask`` is 0 on the padding. Fewer ids
    than one row with the default gives no rows at all.

    >>> p = pack_documents([[1, 2, 3], [4, 5]], row_length=4, eot_id=0, keep_last=True, pad_id=9)
    >>> p.rows, p.attention_mask
    ([[1, 2, 3, 0], [4, 5, 0, 9]], [[1, 1, 1, 1], [1, 1, 1, 0]])
    >>> p.boundaries
    [[(0, 4, 0)], [(0, 3, 1)]]
    """
    checked = check_id_rows(docs, name="docs")
    row_length = check_int(row_length, name="row_length", minimum=1)
    eot_id = check_int(eot_id, name="eot_id", minimum=0)
    check_bool(keep_last, name="keep_last")
    pad_id = eot_id if pad_id is None else check_int(pad_id, name="pad_id", minimum=0)
    stream: list[int] = []
    spans: list[tuple[int, int, int]] = []  # (start, end, doc) in the whole stream
    for d, ids in enumerate(checked):
        start = len(stream)
        stream += ids
        stream.append(eot_id)
        spans.append((start, len(stream), d))
    n_rows = len(stream) // row_length
    if keep_last and len(stream) % row_length:
        n_rows += 1
    rows, masks, boundaries = [], [], []
    k = 0  # the first span that may reach into the current row
    for r in range(n_rows):
        lo, hi = r * row_length, min((r + 1) * row_length, len(stream))
        real = hi - lo
        rows.append(stream[lo:hi] + [pad_id] * (row_length - real))
        masks.append([1] * real + [0] * (row_length - real))
        while spans[k][1] <= lo:
            k += 1
        here = []
        for start, end, d in spans[k:]:
            if start >= hi:
                break
            here.append((max(start, lo) - lo, min(end, hi) - lo, d))
        boundaries.append(here)
    return Packed(rows=rows, attention_mask=masks, boundaries=boundaries)
