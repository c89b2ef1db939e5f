"""tokref.training: labels, positions and block-diagonal masks, each against a
restatement of the Hugging Face code it matches (written with NumPy as the PyTorch
original, which the course does not install).

- ``make_labels``: ``-100`` where the attention mask or the assistant mask is 0; the
  real end-of-text kept when the pad is the same id, unlike
  ``DataCollatorForLanguageModeling(mlm=False)``'s ``labels[labels == pad_token_id] = -100``.
- ``positions_from_mask``: ``generate``'s ``cumsum(mask) - 1`` with
  ``masked_fill(mask == 0, 1)``; left padding gives each real token its position alone.
- ``document_positions``, ``packed_labels``: ``DataCollatorWithFlattening`` applied to
  the pieces of each packed row (``range(len(piece))``, ``[-100] + piece[1:]``).
- ``document_mask``: the definition, pair by pair.
- Bad input: each error says what is wrong.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokref.batch import pack_documents, pad_ids
from tokref.training import (
    IGNORE_INDEX,
    document_mask,
    document_positions,
    make_labels,
    packed_labels,
    positions_from_mask,
)

PROPERTY = settings(max_examples=100, derandomize=True, deadline=None, database=None)
ROWS = st.lists(st.lists(st.integers(0, 9), max_size=8), min_size=1, max_size=5)
DOCS = st.lists(st.lists(st.integers(1, 50), max_size=12), max_size=8)


def hf_generate_positions(mask: list[list[int]]) -> list[list[int]]:
    """prepare_inputs_for_generation: position_ids = mask.cumsum(-1) - 1, then 1 at pads."""
    m = np.array(mask, dtype=np.int64).reshape(len(mask), -1)
    pos = m.cumsum(-1) - 1
    pos[m == 0] = 1
    return pos.tolist()


def hf_flattening(pieces: list[list[int]]) -> tuple[list[int], list[int]]:
    """DataCollatorWithFlattening on features [{"input_ids": piece}, ...]: the labels
    [separator_id] + input_ids[1:] and the position_ids range(len) of each, joined."""
    labels, positions = [], []
    for piece in pieces:
        labels += [-100] + piece[1:]
        positions += list(range(len(piece)))
    return labels, positions


def test_known_answers():
    assert IGNORE_INDEX == -100
    ids, mask = pad_ids([[7, 8, 0], [9]], pad_id=0)  # 0 is the eot and the pad
    assert make_labels(ids, attention_mask=mask) == [[7, 8, 0], [9, -100, -100]]
    assert make_labels([[1, 5, 6, 2]], attention_mask=[[1, 1, 1, 1]],
                       assistant_mask=[[0, 0, 1, 1]]) == [[-100, -100, 6, 2]]
    assert positions_from_mask([[0, 0, 1, 1, 1]]) == [[1, 1, 0, 1, 2]]
    assert positions_from_mask([[0, 0, 0]]) == [[1, 1, 1]] and positions_from_mask([]) == []
    b = [(0, 2, 0), (2, 5, 1)]
    assert document_positions(b, 5) == [0, 1, 0, 1, 2]
    assert document_positions(b, 7) == [0, 1, 0, 1, 2, 0, 0]  # padding after the spans
    assert document_mask(b, 5) == [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 1, 0, 0],
                                   [0, 0, 1, 1, 0], [0, 0, 1, 1, 1]]
    assert packed_labels([5, 0, 7, 8, 0], b) == [-100, 0, -100, 8, 0]
    assert packed_labels([5, 0, 7, 9, 9], [(0, 2, 0), (2, 3, 1)]) == [-100, 0, -100, -100, -100]
    assert document_positions([], 3) == [0, 0, 0] and packed_labels([], []) == []


@PROPERTY
@given(rows=ROWS, side=st.sampled_from(["left", "right"]), data=st.data())
def test_labels_and_positions_match_hugging_face(rows, side, data):
    ids, mask = pad_ids(rows, pad_id=0, side=side)
    assistant = [[data.draw(st.integers(0, 1)) for _ in row] for row in ids]
    labels = make_labels(ids, attention_mask=mask, assistant_mask=assistant)
    for r in range(len(ids)):
        for j, i in enumerate(ids[r]):
            assert labels[r][j] == (i if mask[r][j] and assistant[r][j] else -100)
    # The real eot (0) is kept wherever the mask says it is real, unlike the id rule.
    plain = make_labels(ids, attention_mask=mask)
    assert sum(row.count(0) for row in plain) == sum(row.count(0) for row in rows)
    assert positions_from_mask(mask) == hf_generate_positions(mask)
    if side == "left":  # every real token at the position it has alone
        for row, pos, m in zip(rows, positions_from_mask(mask), mask):
            assert [p for p, k in zip(pos, m) if k] == list(range(len(row)))


@PROPERTY
@given(docs=DOCS, row_length=st.integers(1, 10), keep_last=st.booleans())
def test_packed_rows_match_data_collator_with_flattening(docs, row_length, keep_last):
    p = pack_documents(docs, row_length=row_length, eot_id=0, keep_last=keep_last, pad_id=99)
    for row, spans, mask in zip(p.rows, p.boundaries, p.attention_mask):
        n_real = sum(mask)
        labels, positions = hf_flattening([row[s:e] for s, e, _ in spans])
        assert packed_labels(row, spans) == labels + [-100] * (row_length - n_real)
        assert document_positions(spans, row_length) == positions + [0] * (row_length - n_real)
        owner = {j: d for s, e, d in spans for j in range(s, e)}
        causal = document_mask(spans, row_length)
        full = document_mask(spans, row_length, causal=False)
        for i in range(row_length):
            for j in range(row_length):
                same = i in owner and j in owner and owner[i] == owner[j]
                assert full[i][j] == int(same)
                assert causal[i][j] == int(same and j <= i)


@pytest.mark.parametrize("call, error, words", [
    (lambda: make_labels([[1, 2]], attention_mask=[[1]]), ValueError, "one entry per id"),
    (lambda: make_labels([[1, 2]], attention_mask=[[1, 1], [1]]), ValueError, "one mask row per row"),
    (lambda: make_labels([[1]], attention_mask=[[2]]), ValueError, "only 0 and 1"),
    (lambda: make_labels([[1]], attention_mask=[[1]], assistant_mask=[[1, 0]]), ValueError, "assistant_mask[0]"),
    (lambda: make_labels("ab", attention_mask=[[1]]), TypeError, "list of lists"),
    (lambda: positions_from_mask([[1, -1]]), TypeError, "int id >= 0"),
    (lambda: positions_from_mask([[1, 3]]), ValueError, "only 0 and 1"),
    (lambda: document_positions([(1, 3, 0)], 4), ValueError, "must start at 0"),
    (lambda: document_positions([(0, 2, 0), (3, 4, 1)], 4), ValueError, "must start at 2"),
    (lambda: document_positions([(0, 5, 0)], 4), ValueError, "end by 4"),
    (lambda: document_positions([(0, 0, 0)], 4), ValueError, "not empty"),
    (lambda: document_mask([(0, 2)], 4), TypeError, "(start, end, doc_index)"),
    (lambda: document_mask([(0, 2, 0)], 4, causal=1), TypeError, "True or False"),
    (lambda: packed_labels([1, 2], [(0, 3, 0)]), ValueError, "end by 2"),
])
def test_errors_say_what_is_wrong(call, error, words):
    with pytest.raises(error) as e:
        call()
    assert words in str(e.value)
