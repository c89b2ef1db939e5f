"""Wrong solutions of the ``batches`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks. Each wrong
solution is the instructor's solution with the mistake put in (Part 3's cell holds two
functions, so its entries hold both, one of them right).
"""

# Part 1: make_labels, with the shape checks and the rule for one label ({label}) replaced.
_LABELS = '''
def make_labels(input_ids, attention_mask, assistant_mask=None):
    masks = {{"attention_mask": attention_mask}}
    if assistant_mask is not None:
        masks["assistant_mask"] = assistant_mask
    {checks}
    {setup}
    return [[{label} for j, i in enumerate(row)] for r, row in enumerate(input_ids)]
'''
_CHECKS = '''for name, mask in masks.items():
        if len(mask) != len(input_ids):
            raise ValueError(f"{name} has {len(mask)} rows for {len(input_ids)} rows of ids")
        for r, (m, row) in enumerate(zip(mask, input_ids)):
            if len(m) != len(row):
                raise ValueError(f"{name}[{r}] has {len(m)} entries for {len(row)} ids")'''
_LABELS_RIGHT = dict(checks=_CHECKS, setup="",
                     label="i if all(m[r][j] == 1 for m in masks.values()) else IGNORE_INDEX")


def _labels(**changes: str) -> str:
    return _LABELS.format(**{**_LABELS_RIGHT, **changes})


# Part 2: positions_from_mask, with the value at a real token ({real}) and at a pad ({pad}).
_POSITIONS = '''
def positions_from_mask(attention_mask):
    out = []
    for mask in attention_mask:
        seen, row = 0, []
        first = next((k for k, m in enumerate(mask) if m), 0)
        for j, m in enumerate(mask):
            seen += m
            row.append({real} if m else {pad})
        out.append(row)
    return out
'''


def _positions(real: str = "seen - 1", pad: str = "1") -> str:
    return _POSITIONS.format(real=real, pad=pad)


# Part 3: both functions of the cell; each entry changes one of them.
_DOC_POSITIONS = '''
def document_positions(boundaries, row_length):
    {check}
    positions = [{fill}] * row_length
    for start, end, _ in boundaries:
        positions[start:end] = {span}
    return positions
'''
_DOC_MASK = '''
def document_mask(boundaries, row_length):
    {check}
    {make}
    for start, end, _ in boundaries:
        for i in range(start, end):
            {row}
    return mask
'''
_CHECK = "check_boundaries(boundaries, row_length)"
_DOC_POSITIONS_RIGHT = dict(check=_CHECK, fill="0", span="range(end - start)")
_DOC_MASK_RIGHT = dict(check=_CHECK, make="mask = [[0] * row_length for _ in range(row_length)]",
                       row="mask[i][start:i + 1] = [1] * (i + 1 - start)")


def _packed(positions: dict[str, str] | None = None, mask: dict[str, str] | None = None) -> str:
    return (_DOC_POSITIONS.format(**{**_DOC_POSITIONS_RIGHT, **(positions or {})})
            + _DOC_MASK.format(**{**_DOC_MASK_RIGHT, **(mask or {})}))


# Part 4: packed_labels, with the check, the start value and the rule for one span replaced.
_BOUNDARY = '''
def packed_labels(row, boundaries):
    {check}
    labels = {start}
    for start, end, _ in boundaries:
        {span}
    return labels
'''
_BOUNDARY_RIGHT = dict(check="check_boundaries(boundaries, len(row))", start="[IGNORE_INDEX] * len(row)",
                       span="labels[start + 1:end] = row[start + 1:end]")


def _boundary(**changes: str) -> str:
    return _BOUNDARY.format(**{**_BOUNDARY_RIGHT, **changes})


WRONG = {
    # Part 1
    "labels_by_pad_id": {
        "mistake": "make_labels finds the pad id at a masked position and sets -100 wherever an id equals it "
                   "(the classic labels[input_ids == pad_id] = -100), erasing the real end-of-text",
        "code": {"batches-labels": _labels(
            setup='pads = {i for row, m in zip(input_ids, attention_mask) for i, k in zip(row, m) if k == 0}',
            label="IGNORE_INDEX if i in pads or not all(m[r][j] == 1 for m in masks.values()) else i")},
    },
    "labels_shifted": {
        "mistake": "make_labels shifts the labels by one (labels[j] = ids[j + 1]), which the model does itself",
        "code": {"batches-labels": _labels(
            label="(row[j + 1] if j + 1 < len(row) and all(m[r][j + 1] == 1 for m in masks.values()) "
                  "else IGNORE_INDEX)")},
    },
    "labels_ignore_assistant_mask": {
        "mistake": "make_labels ignores the assistant mask and trains on the prompt",
        "code": {"batches-labels": _labels(label="i if attention_mask[r][j] == 1 else IGNORE_INDEX")},
    },
    "labels_zero_not_minus_100": {
        "mistake": "make_labels writes 0 where nothing is learnt, a real id, instead of -100",
        "code": {"batches-labels": _labels(label="i if all(m[r][j] == 1 for m in masks.values()) else 0")},
    },
    "labels_either_mask": {
        "mistake": "make_labels keeps a label where either mask is 1, not both",
        "code": {"batches-labels": _labels(label="i if any(m[r][j] == 1 for m in masks.values()) else IGNORE_INDEX")},
    },
    "labels_in_place": {
        "mistake": "make_labels writes -100 into input_ids and returns it",
        "code": {"batches-labels": '''
def make_labels(input_ids, attention_mask, assistant_mask=None):
    for r, row in enumerate(input_ids):
        if len(attention_mask) != len(input_ids) or len(attention_mask[r]) != len(row):
            raise ValueError("attention_mask has not the shape of input_ids")
        if assistant_mask is not None and (len(assistant_mask) != len(input_ids) or len(assistant_mask[r]) != len(row)):
            raise ValueError("assistant_mask has not the shape of input_ids")
    if len(attention_mask) != len(input_ids) or (assistant_mask is not None and len(assistant_mask) != len(input_ids)):
        raise ValueError("a mask has not the rows of input_ids")
    for r, row in enumerate(input_ids):
        for j in range(len(row)):
            if attention_mask[r][j] == 0 or (assistant_mask is not None and assistant_mask[r][j] == 0):
                row[j] = IGNORE_INDEX
    return input_ids
'''},
    },
    "labels_no_shape_check": {
        "mistake": "make_labels does not check the masks' shape (zip silently drops what does not match)",
        "code": {"batches-labels": _labels(checks="pass")},
    },
    # Part 2
    "positions_columns": {
        "mistake": "positions_from_mask gives the column index, the default that left padding breaks",
        "code": {"batches-positions": _positions(real="j", pad="j")},
    },
    "positions_pads_minus_one": {
        "mistake": "positions_from_mask stops at cumsum(mask) - 1, leaving -1 on the left pads (no masked_fill)",
        "code": {"batches-positions": _positions(pad="seen - 1")},
    },
    "positions_pads_zero": {
        "mistake": "positions_from_mask gives the pads 0 instead of Hugging Face's 1",
        "code": {"batches-positions": _positions(pad="0")},
    },
    "positions_from_one": {
        "mistake": "positions_from_mask counts from 1 (cumsum without the - 1)",
        "code": {"batches-positions": _positions(real="seen")},
    },
    "positions_from_first_real_token": {
        "mistake": "positions_from_mask gives the distance from the first real token, wrong for a mask with holes",
        "code": {"batches-positions": _positions(real="j - first")},
    },
    # Part 3
    "doc_positions_columns": {
        "mistake": "document_positions gives the column index: positions do not restart per document",
        "code": {"batches-packed": _packed(positions={"span": "range(start, end)"})},
    },
    "doc_positions_from_one": {
        "mistake": "document_positions restarts every document at 1",
        "code": {"batches-packed": _packed(positions={"span": "range(1, end - start + 1)"})},
    },
    "doc_positions_no_check": {
        "mistake": "document_positions does not call check_boundaries and accepts spans that are not a row's",
        "code": {"batches-packed": _packed(positions={"check": "pass"})},
    },
    "doc_mask_not_causal": {
        "mistake": "document_mask gives whole blocks: a token sees the later tokens of its document",
        "code": {"batches-packed": _packed(mask={"row": "mask[i][start:end] = [1] * (end - start)"})},
    },
    "doc_mask_causal_only": {
        "mistake": "document_mask gives the plain causal triangle: a token sees the previous documents",
        "code": {"batches-packed": _packed(mask={"row": "mask[i][0:i + 1] = [1] * (i + 1)"})},
    },
    "doc_mask_transposed": {
        "mistake": "document_mask is transposed: m[i][j] = 1 for j >= i (a token sees the future, not the past)",
        "code": {"batches-packed": _packed(mask={"row": "mask[i][i:end] = [1] * (end - i)"})},
    },
    "doc_mask_shared_rows": {
        "mistake": "document_mask makes its rows with [[0] * n] * n: every row is the same list",
        "code": {"batches-packed": _packed(mask={"make": "mask = [[0] * row_length] * row_length"})},
    },
    "doc_mask_padding_sees_itself": {
        "mistake": "document_mask lets the padding after the last span attend to itself",
        "code": {"batches-packed": _packed(mask={
            "make": "mask = [[int(i == j and i >= (boundaries[-1][1] if boundaries else 0)) for j in range(row_length)] "
                    "for i in range(row_length)]"})},
    },
    # Part 4
    "boundary_label_at_eot": {
        "mistake": "packed_labels puts -100 on each document's end-of-text instead of the next document's first token",
        "code": {"batches-boundary": _boundary(
            start="list(row[:boundaries[-1][1]]) + [IGNORE_INDEX] * (len(row) - boundaries[-1][1]) if boundaries "
                  "else [IGNORE_INDEX] * len(row)",
            span="labels[end - 1] = IGNORE_INDEX")},
    },
    "boundary_label_kept": {
        "mistake": "packed_labels keeps every id as a label: the end-of-text learns to predict the next document",
        "code": {"batches-boundary": _boundary(
            start="list(row[:boundaries[-1][1]]) + [IGNORE_INDEX] * (len(row) - boundaries[-1][1]) if boundaries "
                  "else [IGNORE_INDEX] * len(row)",
            span="pass")},
    },
    "boundary_label_first_only": {
        "mistake": "packed_labels puts -100 only at position 0 of the row",
        "code": {"batches-boundary": _boundary(
            start="[IGNORE_INDEX] + list(row[1:boundaries[-1][1]]) + [IGNORE_INDEX] * (len(row) - boundaries[-1][1]) "
                  "if boundaries else [IGNORE_INDEX] * len(row)",
            span="pass")},
    },
    "boundary_padding_kept": {
        "mistake": "packed_labels keeps the ids of the padding after the last span as labels",
        "code": {"batches-boundary": _boundary(start="list(row)", span="labels[start] = IGNORE_INDEX")},
    },
    "boundary_no_check": {
        "mistake": "packed_labels does not call check_boundaries and accepts spans that are not the row's",
        "code": {"batches-boundary": _boundary(check="pass")},
    },
}
