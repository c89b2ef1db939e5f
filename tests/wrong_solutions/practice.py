"""Wrong solutions of the ``practice`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks. Each wrong
solution is the instructor's solution with the mistake put in (Part 2's cell holds two
functions, so its entries hold both, one of them right).
"""

# Part 1: render_chatml, with the lines that make the text and the mask of one message
# ({header}, {body}, {end}, {mask}) and the generation prompt ({prompt}) replaced.
_CHAT = '''
def render_chatml(messages, *, add_generation_prompt=False):
    if not isinstance(messages, list):
        raise TypeError(f"messages must be a list of dicts, not {{type(messages).__name__}}")
    parts, mask = [], []
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise TypeError(f"messages[{{i}}] must be a dict, not {{type(message).__name__}}")
        for key in ("role", "content"):
            if key not in message:
                raise ValueError(f"messages[{{i}}] has no {{key!r}}")
            if not isinstance(message[key], str):
                raise TypeError(f"messages[{{i}}][{{key!r}}] must be a str")
        role, content = message["role"], message["content"]
        {role_check}
        header = {header}
        body = {body}
        end = {end}
        parts += [header, body, end]
        mask += {mask}
    if {prompt}:
        prompt = "<|im_start|>assistant\\n"
        parts.append(prompt)
        mask += [{prompt_mask}] * len(prompt)
    return "".join(parts), mask
'''
_CHAT_RIGHT = dict(
    role_check='''if role not in ("system", "user", "assistant"):
            raise ValueError(f"messages[{i}] has the role {role!r}; the roles are system, user, assistant")''',
    header='f"<|im_start|>{role}\\n"', body='content + "<|im_end|>"', end='"\\n"',
    mask='[0] * len(header) + [int(role == "assistant")] * len(body) + [0] * len(end)',
    prompt="add_generation_prompt", prompt_mask="0")


def _chat(**changes: str) -> str:
    return _CHAT.format(**{**_CHAT_RIGHT, **changes})


# Part 2: both functions of the cell; each entry changes one of them.
_PAD = '''
def pad_batch(rows, *, pad_id, side="right", length=None):
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', not {side!r}")
    if length is None:
        length = max((len(row) for row in rows), default=0)
    elif length < 1:
        raise ValueError(f"length must be at least 1, not {length}")
    ids, masks = [], []
    for i, row in enumerate(rows):
        n = length - len(row)
        if n < 0:
            raise ValueError(f"rows[{i}] is longer than length={length}")
        if side == "right":
            ids.append(list(row) + [pad_id] * n)
            masks.append([1] * len(row) + [0] * n)
        else:
            ids.append([pad_id] * n + list(row))
            masks.append([0] * n + [1] * len(row))
    return ids, masks
'''
_TRUNCATE = '''
def truncate(ids, max_length, *, side="right"):
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', not {side!r}")
    if max_length < 0:
        raise ValueError(f"max_length must be at least 0, not {max_length}")
    if side == "right":
        return list(ids[:max_length])
    return list(ids[len(ids) - max_length:]) if max_length < len(ids) else list(ids)
'''


def _pad(old: str, new: str) -> str:
    assert old in _PAD, old
    return _PAD.replace(old, new) + _TRUNCATE


def _truncate(old: str, new: str) -> str:
    assert old in _TRUNCATE, old
    return _PAD + _TRUNCATE.replace(old, new)


# Part 3: pack, as the stream of (id, document) pairs cut into rows.
_PACK = '''
def pack(docs, row_length, eot_id):
    if row_length < 1:
        raise ValueError(f"row_length must be at least 1, not {{row_length}}")
    stream, owner = [], []
    for d, doc in enumerate(docs):
        {add}
    rows, boundaries = [], []
    for lo in range({rows}):
        rows.append(stream[lo : lo + row_length])
        spans = []
        for i in range(len(rows[-1])):
            d = owner[lo + i]
            if d is None:
                continue
            if spans and spans[-1][2] == d and spans[-1][1] == i{end_shift}:
                spans[-1] = (spans[-1][0], i + 1{end_shift}, d)
            else:
                spans.append((i, i + 1{end_shift}, d))
        boundaries.append({keep})
    return rows, boundaries
'''
_PACK_RIGHT = dict(
    add='stream += list(doc) + [eot_id]\n        owner += [d] * (len(doc) + 1)',
    rows="0, len(stream) - row_length + 1, row_length", end_shift="", keep="spans")


def _pack(**changes: str) -> str:
    return _PACK.format(**{**_PACK_RIGHT, **changes})


# Part 4: encode_stream, with where it cuts ({cut}: the position, or a negative number for
# no cut) and what it keeps between chunks changed.
_STREAM = '''
def encode_stream(chunks, encode):
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        {cut}
        if i >= 1:
            yield from {enc}(buffer[:i])
            buffer = buffer[i:]
    if buffer{end}:
        yield from {enc}(buffer)
'''
_LAST_SAFE_CUT = '''i = buffer.rfind(" ")
        while i >= 1 and buffer[i - 1].isspace():
            i = buffer.rfind(" ", 0, i)'''


def _stream(cut: str = _LAST_SAFE_CUT, enc: str = "encode", end: str = "") -> str:
    return _STREAM.format(cut=cut, enc=enc, end=end)


_BUDGET_CHECK = '''
    if budget < 0:
        raise ValueError(f"budget must be at least 0 ids, not {budget}")'''

WRONG = {
    # -- Part 1: the chat template ---------------------------------------------------------
    "chat_mask_includes_header": {
        "mistake": "render_chatml masks the assistant's header <|im_start|>assistant\\n too, so "
                   "fine-tuning trains the model to write what the template writes",
        "code": {"practice-chat": _chat(
            mask='[int(role == "assistant")] * (len(header) + len(body)) + [0] * len(end)')},
    },
    "chat_mask_excludes_im_end": {
        "mistake": "render_chatml masks the assistant's content but not its <|im_end|>, so the "
                   "model never learns to end its turn",
        "code": {"practice-chat": _chat(
            mask='[0] * len(header) + [int(role == "assistant")] * len(content) + [0] * 10 + [0] * len(end)')},
    },
    "chat_mask_includes_newline": {
        "mistake": "render_chatml masks the '\\n' after the assistant's <|im_end|> too",
        "code": {"practice-chat": _chat(
            mask='[0] * len(header) + [int(role == "assistant")] * (len(body) + len(end))')},
    },
    "chat_no_newline_after_im_end": {
        "mistake": "render_chatml writes no '\\n' after <|im_end|>",
        "code": {"practice-chat": _chat(end='""')},
    },
    "chat_no_newline_after_role": {
        "mistake": "render_chatml writes the role and the content with no '\\n' between them",
        "code": {"practice-chat": _chat(header='f"<|im_start|>{role}"')},
    },
    "chat_generation_prompt_always": {
        "mistake": "render_chatml always ends with the generation prompt",
        "code": {"practice-chat": _chat(prompt="True")},
    },
    "chat_generation_prompt_never": {
        "mistake": "render_chatml ignores add_generation_prompt and never writes the prompt",
        "code": {"practice-chat": _chat(prompt="False")},
    },
    "chat_generation_prompt_masked": {
        "mistake": "render_chatml masks the generation prompt, as if the model had written it",
        "code": {"practice-chat": _chat(prompt_mask="1")},
    },
    "chat_masks_every_message": {
        "mistake": "render_chatml masks the content of every message, the user's and the "
                   "system's too",
        "code": {"practice-chat": _chat(mask='[0] * len(header) + [1] * len(body) + [0] * len(end)')},
    },
    "chat_mask_per_byte": {
        "mistake": "render_chatml makes the mask per UTF-8 byte instead of per character",
        "code": {"practice-chat": _chat(
            mask='[0] * len(header.encode()) + [int(role == "assistant")] * len(body.encode()) + [0]')},
    },
    "chat_unknown_role_accepted": {
        "mistake": "render_chatml accepts any role",
        "code": {"practice-chat": _chat(role_check="pass")},
    },
    "chat_mask_by_search": {
        "mistake": "render_chatml finds the assistant's turns by searching the text for "
                   "<|im_start|>assistant\\n and <|im_end|>, which content can contain",
        "code": {"practice-chat": '''
def render_chatml(messages, *, add_generation_prompt=False):
    if not isinstance(messages, list):
        raise TypeError("messages must be a list of dicts")
    text = ""
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise TypeError(f"messages[{i}] must be a dict")
        for key in ("role", "content"):
            if key not in message:
                raise ValueError(f"messages[{i}] has no {key!r}")
            if not isinstance(message[key], str):
                raise TypeError(f"messages[{i}][{key!r}] must be a str")
        if message["role"] not in ("system", "user", "assistant"):
            raise ValueError(f"unknown role {message['role']!r}; the roles are system, user, assistant")
        text += f"<|im_start|>{message['role']}\\n{message['content']}<|im_end|>\\n"
    if add_generation_prompt:
        text += "<|im_start|>assistant\\n"
    mask = [0] * len(text)
    header = "<|im_start|>assistant\\n"
    start = text.find(header)
    while start >= 0:
        end = text.find("<|im_end|>", start + len(header))
        if end < 0:
            break
        for k in range(start + len(header), end + len("<|im_end|>")):
            mask[k] = 1
        start = text.find(header, end)
    return text, mask
'''},
    },
    # -- Part 2: padding and truncation ------------------------------------------------------
    "pad_always_right": {
        "mistake": "pad_batch ignores side and pads on the right where left padding is asked",
        "code": {"practice-pad": _pad('if side == "right":\n            ids', 'if True:\n            ids')},
    },
    "pad_mask_ones_on_padding": {
        "mistake": "pad_batch gives a mask of 1s everywhere, padding included",
        "code": {"practice-pad": _pad("return ids, masks", "return ids, [[1] * len(r) for r in ids]")},
    },
    "pad_mask_inverted": {
        "mistake": "pad_batch's masks are inverted: 1 for padding, 0 for the real ids",
        "code": {"practice-pad": _pad("return ids, masks", "return ids, [[1 - m for m in r] for r in masks]")},
    },
    "pad_to_length_plus_one": {
        "mistake": "pad_batch pads every row to one more than the length asked",
        "code": {"practice-pad": _pad("n = length - len(row)", "n = length + 1 - len(row)")},
    },
    "pad_mask_from_pad_id": {
        "mistake": "pad_batch makes the masks by comparing the ids with pad_id, so a real id "
                   "equal to pad_id is masked out",
        "code": {"practice-pad": _pad("return ids, masks",
                                      "return ids, [[int(i != pad_id) for i in r] for r in ids]")},
    },
    "pad_mutates_rows": {
        "mistake": "pad_batch pads the rows in place, changing its input",
        "code": {"practice-pad": _pad("ids.append(list(row) + [pad_id] * n)",
                                      "row += [pad_id] * n\n            ids.append(row)")},
    },
    "pad_long_row_cut_silently": {
        "mistake": "pad_batch cuts a row longer than length instead of raising ValueError",
        "code": {"practice-pad": _pad('raise ValueError(f"rows[{i}] is longer than length={length}")',
                                      "row, n = row[:length], 0")},
    },
    "pad_ignores_length": {
        "mistake": "pad_batch ignores length and always pads to the longest row",
        "code": {"practice-pad": _pad("if length is None:", "if True:")},
    },
    "pad_shared_masks": {
        "mistake": "pad_batch returns one mask list several times for rows of the same length",
        "code": {"practice-pad": _pad("return ids, masks",
                                      "shared = {}\n    return ids, [shared.setdefault(tuple(m), m) for m in masks]")},
    },
    "truncate_wrong_end": {
        "mistake": "truncate cuts the wrong end: side='right' keeps the last ids, side='left' the first",
        "code": {"practice-pad": _truncate('if side == "right":', 'if side == "left":')},
    },
    "truncate_left_zero_keeps_all": {
        "mistake": "truncate keeps ids[-max_length:] on the left, which is all the ids for max_length=0",
        "code": {"practice-pad": _truncate(
            "return list(ids[len(ids) - max_length:]) if max_length < len(ids) else list(ids)",
            "return list(ids[-max_length:])")},
    },
    "truncate_negative_accepted": {
        "mistake": "truncate accepts a negative max_length (and cuts from the other end)",
        "code": {"practice-pad": _truncate('raise ValueError(f"max_length must be at least 0, not {max_length}")',
                                           "pass")},
    },
    # -- Part 3: packing ---------------------------------------------------------------------
    "pack_eot_before_documents": {
        "mistake": "pack writes eot_id before each document instead of after it",
        "code": {"practice-pack": _pack(add='stream += [eot_id] + list(doc)\n        owner += [d] * (len(doc) + 1)')},
    },
    "pack_no_eot_after_last": {
        "mistake": "pack writes eot_id between documents only, not after the last one",
        "code": {"practice-pack": _pack(
            add='stream += list(doc) + ([eot_id] if d < len(docs) - 1 else [])\n'
                '        owner += [d] * (len(doc) + (1 if d < len(docs) - 1 else 0))')},
    },
    "pack_keeps_partial_row": {
        "mistake": "pack keeps the last row even when it is not full",
        "code": {"practice-pack": _pack(rows="0, len(stream), row_length")},
    },
    "pack_pads_partial_row": {
        "mistake": "pack keeps the last row, padded with eot_id, instead of dropping it",
        "code": {"practice-pack": _pack(
            rows="0, len(stream), row_length",
            add='stream += list(doc) + [eot_id]\n        owner += [d] * (len(doc) + 1)\n'
                '    stream += [eot_id] * (-len(stream) % row_length)\n'
                '    owner += [None] * (len(stream) - len(owner))')},
    },
    "pack_boundaries_end_inclusive": {
        "mistake": "pack's boundaries give the last position of each piece, not the one after it",
        "code": {"practice-pack": _pack(end_shift=" - 1")},
    },
    "pack_spans_without_eot": {
        "mistake": "pack's boundaries leave out the documents' eot_id",
        "code": {"practice-pack": _pack(
            add='stream += list(doc) + [eot_id]\n        owner += [d] * len(doc) + [None]')},
    },
    "pack_continuation_lost": {
        "mistake": "pack gives a span only to the documents that start in a row, not to the end "
                   "of one continued from the row before",
        "code": {"practice-pack": _pack(
            keep="[s for s in spans if s[0] > 0 or lo == 0 or owner[lo - 1] != s[2]]")},
    },
    "pack_doc_index_from_one": {
        "mistake": "pack numbers the documents from 1 in the boundaries",
        "code": {"practice-pack": _pack(keep="[(a, b, d + 1) for a, b, d in spans]")},
    },
    "pack_skips_empty_documents": {
        "mistake": "pack skips empty documents, with no eot_id for them",
        "code": {"practice-pack": _pack(
            add='if not doc:\n            continue\n        stream += list(doc) + [eot_id]\n'
                '        owner += [d] * (len(doc) + 1)')},
    },
    # -- Part 4: streaming -------------------------------------------------------------------
    "stream_line_by_line": {
        "mistake": "encode_stream encodes the text line by line, which cuts runs of newlines "
                   "('a\\n\\n\\nb' gets one id too many)",
        "code": {"practice-stream": _stream(cut='i = buffer.rfind("\\n") + 1')},
    },
    "stream_chunk_by_chunk": {
        "mistake": "encode_stream encodes each chunk on its own, which cuts words in two",
        "code": {"practice-stream": _stream(cut="i = len(buffer)")},
    },
    "stream_buffers_everything": {
        "mistake": "encode_stream reads all the chunks, then encodes the whole text: exact, but "
                   "it holds the whole text",
        "code": {"practice-stream": _stream(cut="i = -1")},
    },
    "stream_cuts_after_whitespace": {
        "mistake": "encode_stream cuts after the last whitespace character, which splits runs "
                   "of whitespace and the space before a word",
        "code": {"practice-stream": _stream(
            cut="i = max((k + 1 for k, ch in enumerate(buffer) if ch.isspace()), default=-1)")},
    },
    "stream_cuts_before_any_space": {
        "mistake": "encode_stream cuts before the last space even when whitespace comes before "
                   "it, which splits runs of spaces",
        "code": {"practice-stream": _stream(cut='i = buffer.rfind(" ")')},
    },
    "stream_cut_after_newline_space": {
        "mistake": "encode_stream checks that the character before the space is not a space, "
                   "instead of not whitespace, so it cuts an indentation after a newline",
        "code": {"practice-stream": _stream(cut='''i = buffer.rfind(" ")
        while i >= 1 and buffer[i - 1] == " ":
            i = buffer.rfind(" ", 0, i)''')},
    },
    "stream_cut_at_first_safe_cut": {
        "mistake": "encode_stream cuts at the buffer's first safe cut, not its last, so the "
                   "buffer keeps growing",
        "code": {"practice-stream": _stream(
            cut='i = next((k for k in range(1, len(buffer)) if buffer[k] == " " '
                'and not buffer[k - 1].isspace()), -1)')},
    },
    "stream_drops_remainder": {
        "mistake": "encode_stream forgets to encode what is left in the buffer at the end",
        "code": {"practice-stream": _stream(end=" and False")},
    },
    "stream_returns_list": {
        "mistake": "encode_stream returns a list of all the ids instead of being a generator",
        "code": {"practice-stream": '''
def encode_stream(chunks, encode):
    return encode("".join(chunks))
'''},
    },
    "stream_ignores_its_encode": {
        "mistake": "encode_stream calls the setup cell's encode instead of the encode it is given",
        "code": {"practice-stream": _stream().replace("def encode_stream(chunks, encode):",
                                                      "def encode_stream(chunks, encoder):")},
    },
    # -- Part 5: budgets ---------------------------------------------------------------------
    "budget_decode_replace": {
        "mistake": "truncate_to_budget keeps the first budget ids and decodes them with "
                   "errors='replace', which can add a '\\ufffd'",
        "code": {"practice-budget": f'''
def truncate_to_budget(text, budget, encode):{_BUDGET_CHECK}
    ids = encode(text)[:budget]
    return b"".join(TOKEN_BYTES[i] for i in ids).decode("utf-8", errors="replace")
'''},
    },
    "budget_decode_ignore": {
        "mistake": "truncate_to_budget keeps the first budget ids and decodes them with "
                   "errors='ignore': no '\\ufffd', but not the longest prefix that fits",
        "code": {"practice-budget": f'''
def truncate_to_budget(text, budget, encode):{_BUDGET_CHECK}
    ids = encode(text)[:budget]
    return b"".join(TOKEN_BYTES[i] for i in ids).decode("utf-8", errors="ignore")
'''},
    },
    "budget_first_misfit": {
        "mistake": "truncate_to_budget grows the prefix until it no longer fits, but a longer "
                   "prefix can take fewer ids (' th' is 2, ' the' 1)",
        "code": {"practice-budget": f'''
def truncate_to_budget(text, budget, encode):{_BUDGET_CHECK}
    k = 0
    while k < len(text) and len(encode(text[:k + 1])) <= budget:
        k += 1
    return text[:k]
'''},
    },
    "budget_in_characters": {
        "mistake": "truncate_to_budget counts the budget in characters",
        "code": {"practice-budget": f'''
def truncate_to_budget(text, budget, encode):{_BUDGET_CHECK}
    return text[:budget]
'''},
    },
    "budget_in_bytes": {
        "mistake": "truncate_to_budget counts the budget in UTF-8 bytes",
        "code": {"practice-budget": f'''
def truncate_to_budget(text, budget, encode):{_BUDGET_CHECK}
    return text.encode("utf-8")[:budget].decode("utf-8", errors="ignore")
'''},
    },
    "budget_off_by_one": {
        "mistake": "truncate_to_budget keeps fewer ids than budget (< instead of <=)",
        "code": {"practice-budget": f'''
def truncate_to_budget(text, budget, encode):{_BUDGET_CHECK}
    for k in range(len(text), -1, -1):
        if len(encode(text[:k])) < budget or k == 0:
            return text[:k]
'''},
    },
    "budget_negative_accepted": {
        "mistake": "truncate_to_budget accepts a negative budget and returns ''",
        "code": {"practice-budget": '''
def truncate_to_budget(text, budget, encode):
    for k in range(len(text), -1, -1):
        if len(encode(text[:k])) <= budget:
            return text[:k]
    return ""
'''},
    },
    "budget_word_boundary": {
        "mistake": "truncate_to_budget cuts only between words, at a space",
        "code": {"practice-budget": f'''
def truncate_to_budget(text, budget, encode):{_BUDGET_CHECK}
    cuts = [k for k in range(len(text) + 1) if k in (0, len(text)) or text[k] == " "]
    for k in reversed(cuts):
        if len(encode(text[:k])) <= budget:
            return text[:k]
'''},
    },
}
