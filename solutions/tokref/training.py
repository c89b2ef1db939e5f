"""Labels, positions and attention masks for training on batches of ids.

A training step needs more than the ids of :mod:`tokref.batch`: the *labels* (the ids,
with ``-100`` where nothing is learnt), the *positions* of the tokens, and for packed
rows an attention mask that keeps each document to itself. Each function here computes
one of them as Hugging Face does, and its docstring names the code it matches:

- :func:`make_labels`: ``-100`` on padding (found by the attention mask) and outside the
  assistant mask;
- :func:`positions_from_mask`: ``position_ids`` of a left-padded batch, as ``generate``;
- :func:`document_positions`, :func:`document_mask`, :func:`packed_labels`: for a packed
  row, from its document boundaries (:func:`tokref.batch.pack_documents`): positions that
  restart per document, the block-diagonal causal mask, and ``-100`` at each document's
  first token, as ``DataCollatorWithFlattening``.

>>> from tokref.batch import pack_documents
>>> packed = pack_documents([[1, 2, 3], [4], [5, 6]], row_length=4, eot_id=0)
>>> packed.rows[1], packed.boundaries[1]
([4, 0, 5, 6], [(0, 2, 1), (2, 4, 2)])
>>> document_positions(packed.boundaries[1], 4)
[0, 1, 0, 1]
>>> packed_labels(packed.rows[1], packed.boundaries[1])
[-100, 0, -100, 6]
>>> make_labels([[5, 6, 0]], attention_mask=[[1, 1, 0]])
[[5, 6, -100]]
>>> positions_from_mask([[0, 0, 1, 1]])
[[1, 1, 0, 1]]
"""

from __future__ import annotations

from collections.abc import Sequence

from .batch import check_id_row, check_id_rows
from .checks import check_bool, check_int, is_integer

__all__ = [
    "IGNORE_INDEX",
    "make_labels",
    "positions_from_mask",
    "document_positions",
    "document_mask",
    "packed_labels",
]

Span = tuple[int, int]

IGNORE_INDEX = -100
"""The label a loss skips: PyTorch's ``CrossEntropyLoss(ignore_index=-100)`` default."""


def _check_mask_rows(masks: object, ids: list[list[int]], *, name: str) -> list[list[int]]:
    """``masks``: one row of 0s and 1s per row of ``ids``, each as long as its row."""
    rows = check_id_rows(masks, name=name)
    if len(rows) != len(ids):
        raise ValueError(f"{name} has {len(rows)} rows for {len(ids)} rows of ids: one mask row per row")
    for i, (m, r) in enumerate(zip(rows, ids)):
        if len(m) != len(r):
            raise ValueError(f"{name}[{i}] has {len(m)} entries for {len(r)} ids: one entry per id")
        bad = next((x for x in m if x not in (0, 1)), None)
        if bad is not None:
            raise ValueError(f"{name}[{i}] holds {bad}; a mask holds only 0 and 1")
    return rows


def make_labels(
    input_ids: Sequence[Sequence[int]],
    *,
    attention_mask: Sequence[Sequence[int]],
    assistant_mask: Sequence[Sequence[int]] | None = None,
) -> list[list[int]]:
    """The labels of a causal-LM batch: each id where it is learnt, :data:`IGNORE_INDEX`
    (``-100``) where the attention mask is 0 (padding) or, if given, the assistant mask
    is 0 (the prompt: system and user turns, the assistant's header).

    Not shifted: as in Hugging Face, the model shifts inside its loss (the output at
    position ``j`` is scored against ``labels[j + 1]``). Padding is found by the
    *attention mask*, never by comparing ids with the pad id: with the common
    ``pad_token = eos_token`` that comparison, which ``DataCollatorForLanguageModeling
    (mlm=False)`` makes (``labels[labels == pad_token_id] = -100``), also drops the real
    end-of-text ids, and the model is never taught to stop.

    >>> make_labels([[7, 8, 0, 0]], attention_mask=[[1, 1, 1, 0]])  # 0: eot and pad
    [[7, 8, 0, -100]]
    >>> make_labels([[1, 7, 2]], attention_mask=[[1, 1, 1]], assistant_mask=[[0, 1, 1]])
    [[-100, 7, 2]]
    """
    ids = check_id_rows(input_ids, name="input_ids")
    masks = [_check_mask_rows(attention_mask, ids, name="attention_mask")]
    if assistant_mask is not None:
        masks.append(_check_mask_rows(assistant_mask, ids, name="assistant_mask"))
    return [[i if all(m[r][j] for m in masks) else IGNORE_INDEX for j, i in enumerate(row)]
            for r, row in enumerate(ids)]


def positions_from_mask(attention_mask: Sequence[Sequence[int]]) -> list[list[int]]:
    """``position_ids`` from an attention mask, exactly as Hugging Face's ``generate``
    makes them (``prepare_inputs_for_generation``): ``cumsum(mask) - 1``, then
    ``masked_fill(mask == 0, 1)``. Each real token gets the number of real tokens before
    it, so a left-padded row's first real token is at 0, as it would be alone; a pad
    gets 1 (any value would do: the mask hides it).

    >>> positions_from_mask([[0, 0, 1, 1, 1], [1, 1, 1, 1, 0]])
    [[1, 1, 0, 1, 2], [0, 1, 2, 3, 1]]
    """
    masks = check_id_rows(attention_mask, name="attention_mask")
    out = []
    for i, mask in enumerate(masks):
        bad = next((x for x in mask if x not in (0, 1)), None)
        if bad is not None:
            raise ValueError(f"attention_mask[{i}] holds {bad}; a mask holds only 0 and 1")
        seen, row = 0, []
        for m in mask:
            seen += m
            row.append(seen - 1 if m else 1)
        out.append(row)
    return out


def _check_boundaries(boundaries: object, row_length: object) -> tuple[list[Span], int]:
    """The ``(start, end)`` of each span: in order, touching, from 0, inside the row."""
    n = check_int(row_length, name="row_length", minimum=0)
    if isinstance(boundaries, (str, bytes)) or not isinstance(boundaries, Sequence):
        raise TypeError(
            f"boundaries must be a list of (start, end, doc_index) tuples, not {type(boundaries).__name__}"
        )
    spans, at = [], 0
    for k, span in enumerate(boundaries):
        if not isinstance(span, Sequence) or len(span) != 3 or not all(map(is_integer, span)):
            raise TypeError(f"boundaries[{k}] must be a tuple (start, end, doc_index) of int, not {span!r}")
        start, end = int(span[0]), int(span[1])
        if start != at or not start < end <= n:
            raise ValueError(
                f"boundaries[{k}] = {tuple(span)} in a row of {n}: the spans of a row are in order, "
                f"not empty, touch (this one must start at {at}) and end by {n}, as "
                "pack_documents makes them"
            )
        spans.append((start, end))
        at = end
    return spans, n


def document_positions(boundaries: Sequence[tuple[int, int, int]], row_length: int) -> list[int]:
    """The ``position_ids`` of a packed row: 0, 1, 2, ... restarting at the start of
    every document span of ``boundaries`` (as :func:`pack_documents` gives them), the
    ``position_ids`` that ``DataCollatorWithFlattening`` returns for each sequence
    (``range(len(sequence))``). A piece continued from the previous row restarts at 0
    too. Positions after the last span (the padding of a last row kept with
    ``keep_last=True``) are 0.

    >>> document_positions([(0, 2, 0), (2, 5, 1)], 6)
    [0, 1, 0, 1, 2, 0]
    """
    spans, n = _check_boundaries(boundaries, row_length)
    pos = [0] * n
    for start, end in spans:
        pos[start:end] = range(end - start)
    return pos


def document_mask(
    boundaries: Sequence[tuple[int, int, int]], row_length: int, *, causal: bool = True
) -> list[list[int]]:
    """The block-diagonal attention mask of a packed row: ``m[i][j] = 1`` when query
    ``i`` may attend to key ``j``: both in the same document span and, with
    ``causal=True`` (a decoder), ``j <= i``. Padding after the last span attends to
    nothing and is attended by nothing.

    >>> document_mask([(0, 1, 0), (1, 3, 1)], 3)
    [[1, 0, 0], [0, 1, 0], [0, 1, 1]]
    """
    spans, n = _check_boundaries(boundaries, row_length)
    check_bool(causal, name="causal")
    m = [[0] * n for _ in range(n)]
    for start, end in spans:
        for i in range(start, end):
            stop = i + 1 if causal else end
            m[i][start:stop] = [1] * (stop - start)
    return m


def packed_labels(row: Sequence[int], boundaries: Sequence[tuple[int, int, int]]) -> list[int]:
    """The labels of a packed row: its ids, with :data:`IGNORE_INDEX` at the first token
    of every document span and on the padding after the last span.

    Labels are not shifted (the model shifts), so ``labels[start]`` is what the token
    before ``start``, the previous document's end-of-text, is trained to predict: the
    first token of an unrelated document, which nothing before it announces. This is
    ``DataCollatorWithFlattening``'s rule (``[separator_id] + labels[1:]`` per sequence,
    ``separator_id = -100``); at position 0 the label is never used anyway.

    >>> packed_labels([5, 0, 7, 8, 0], [(0, 2, 0), (2, 5, 1)])
    [-100, 0, -100, 8, 0]
    """
    ids = check_id_row(row, name="row")
    spans, n = _check_boundaries(boundaries, len(ids))
    labels = [IGNORE_INDEX] * n
    for start, end in spans:
        labels[start + 1 : end] = ids[start + 1 : end]
    return labels
