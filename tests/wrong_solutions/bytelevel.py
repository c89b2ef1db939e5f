"""Wrong solutions of the ``bytelevel`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks.
"""

# The instructor's encode, with the loop that merges the parts of one piece replaced.
_ENCODE = '''
def encode(text, ranks, special_tokens):
    ids = []
    for chunk, is_special in split_special(text, special_tokens):
        if is_special:
            ids.append(special_tokens[chunk])
            continue
        for piece in {pieces}:
            parts = [bytes([b]) for b in piece.encode("utf-8")]
            while len(parts) > 1:
                best = None  # (rank, position) of the best join so far
                for i in range(len(parts) - 1):
                    rank = ranks.get(parts[i] + parts[i + 1])
                    if rank is not None and (best is None or {better}):
                        best = (rank, i)
                if best is None:
                    break
                i = best[1]
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
            ids.extend(ranks[part] for part in parts)
    return ids
'''

WRONG = {
    "utf8_encode_returns_bytes": {
        "mistake": "utf8_encode returns a bytes object instead of a list of int",
        "code": {"bytelevel-utf8-encode": '''
def utf8_encode(text):
    out = bytearray()
    for ch in text:
        cp = ord(ch)
        if cp < 0x80:
            out.append(cp)
        elif cp < 0x800:
            out += bytes([0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)])
        elif cp < 0x10000:
            out += bytes([0xE0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)])
        else:
            out += bytes([0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F),
                          0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)])
    return bytes(out)
'''},
    },
    "utf8_encode_without_four_byte_form": {
        "mistake": "utf8_encode stops at three bytes: characters above U+FFFF (emoji) get the "
                   "three-byte form, which cannot hold them",
        "code": {"bytelevel-utf8-encode": '''
def utf8_encode(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp < 0x80:
            out.append(cp)
        elif cp < 0x800:
            out += [0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)]
        else:
            out += [0xE0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)]
    return out
'''},
    },
    "utf8_encode_boundaries_off_by_one": {
        "mistake": "utf8_encode compares with the last code point of each range (cp < 0x7F, "
                   "< 0x7FF, < 0xFFFF) instead of the first of the next, so U+007F, U+07FF and "
                   "U+FFFF get one byte too many",
        "code": {"bytelevel-utf8-encode": '''
def utf8_encode(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp < 0x7F:
            out.append(cp)
        elif cp < 0x7FF:
            out += [0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)]
        elif cp < 0xFFFF:
            out += [0xE0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)]
        else:
            out += [0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F),
                    0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)]
    return out
'''},
    },
    "utf8_encode_continuation_bytes_unmasked": {
        "mistake": "utf8_encode forgets the mask 0x3F on the middle continuation bytes, so "
                   "they hold more than 6 bits",
        "code": {"bytelevel-utf8-encode": '''
def utf8_encode(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp < 0x80:
            out.append(cp)
        elif cp < 0x800:
            out += [0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)]
        elif cp < 0x10000:
            out += [0xE0 | (cp >> 12), 0x80 | (cp >> 6), 0x80 | (cp & 0x3F)]
        else:
            out += [0xF0 | (cp >> 18), 0x80 | (cp >> 12), 0x80 | (cp >> 6), 0x80 | (cp & 0x3F)]
    return [b & 0xFF for b in out]
'''},
    },
    "utf8_decode_ignores_errors": {
        "mistake": "utf8_decode drops bytes that are not valid UTF-8 (errors='ignore') "
                   "instead of replacing them with '\\ufffd'",
        "code": {"bytelevel-utf8-decode": '''
def utf8_decode(ids):
    return bytes(ids).decode("utf-8", errors="ignore")
'''},
    },
    "utf8_decode_strict": {
        "mistake": "utf8_decode uses the strict decoder, which raises UnicodeDecodeError on "
                   "bytes that are not valid UTF-8",
        "code": {"bytelevel-utf8-decode": '''
def utf8_decode(ids):
    return bytes(ids).decode("utf-8")
'''},
    },
    "utf8_decode_byte_by_byte": {
        "mistake": "utf8_decode decodes each byte on its own, so every byte of a multi-byte "
                   "character becomes '\\ufffd'",
        "code": {"bytelevel-utf8-decode": '''
def utf8_decode(ids):
    return "".join(bytes([b]).decode("utf-8", errors="replace") for b in ids)
'''},
    },
    "pretokenize_drops_whitespace": {
        "mistake": "pretokenize leaves out the pieces that are only whitespace, so the pieces "
                   "no longer give back the text",
        "code": {"bytelevel-pretokenize": '''
def pretokenize(text):
    return [p for p in re.findall(GPT2_PATTERN_RE, text) if not p.isspace()]
'''},
    },
    "pretokenize_simpler_pattern": {
        "mistake": "pretokenize uses a simpler pattern of its own (words, punctuation, "
                   "whitespace) instead of GPT2_PATTERN_RE",
        "code": {"bytelevel-pretokenize": '''
def pretokenize(text):
    return re.findall(r" ?\\w+| ?[^\\w\\s]+|\\s+", text)
'''},
    },
    "pretokenize_strips_the_text": {
        "mistake": "pretokenize strips the text first, losing its leading and trailing "
                   "whitespace",
        "code": {"bytelevel-pretokenize": '''
def pretokenize(text):
    return re.findall(GPT2_PATTERN_RE, text.strip())
'''},
    },
    "split_special_first_listed_token": {
        "mistake": "split_special takes, at each position, the first special token of the list "
                   "that matches there instead of the longest",
        "code": {"bytelevel-split-special": '''
def split_special(text, special_tokens):
    chunks = []
    start = i = 0
    while i < len(text):
        for token in special_tokens:
            if text.startswith(token, i):
                if i > start:
                    chunks.append((text[start:i], False))
                chunks.append((token, True))
                i = start = i + len(token)
                break
        else:
            i += 1
    if start < len(text):
        chunks.append((text[start:], False))
    return chunks
'''},
    },
    "split_special_keeps_empty_chunks": {
        "mistake": "split_special splits with re.split and a group, and keeps the empty "
                   "strings it gives at the edges and between adjacent tokens",
        "code": {"bytelevel-split-special": '''
def split_special(text, special_tokens):
    if not text:
        return []
    if not special_tokens:
        return [(text, False)]
    tokens = sorted(special_tokens, key=len, reverse=True)
    pattern = "(" + "|".join(re.escape(t) for t in tokens) + ")"
    return [(part, i % 2 == 1) for i, part in enumerate(re.split(pattern, text))]
'''},
    },
    "split_special_longest_token_anywhere_first": {
        "mistake": "split_special cuts out the longest special tokens first, wherever they "
                   "are, then the shorter ones in what is left, instead of the leftmost first",
        "code": {"bytelevel-split-special": '''
def split_special(text, special_tokens):
    chunks = [(text, False)] if text else []
    for token in sorted(special_tokens, key=len, reverse=True):
        out = []
        for chunk, is_special in chunks:
            if is_special:
                out.append((chunk, True))
                continue
            parts = chunk.split(token)
            for k, part in enumerate(parts):
                if k > 0:
                    out.append((token, True))
                if part:
                    out.append((part, False))
        chunks = out
    return chunks
'''},
    },
    "encode_rightmost_on_equal_ranks": {
        "mistake": "encode, when the same lowest-ranked join occurs at several places, merges "
                   "the rightmost one first (<= instead of <) instead of the leftmost",
        "code": {"bytelevel-encode": _ENCODE.format(pieces="pretokenize(chunk)", better="rank <= best[0]")},
    },
    "encode_without_pretokenize": {
        "mistake": "encode merges the bytes of each whole chunk between special tokens without "
                   "cutting it into pieces first, so merges cross word boundaries",
        "code": {"bytelevel-encode": _ENCODE.format(pieces="[chunk]", better="rank < best[0]")},
    },
    "encode_greedy_longest_token": {
        "mistake": "encode takes, from the left, the longest prefix of each piece that is a "
                   "token, instead of merging the lowest-ranked join first",
        "code": {"bytelevel-encode": '''
def encode(text, ranks, special_tokens):
    ids = []
    for chunk, is_special in split_special(text, special_tokens):
        if is_special:
            ids.append(special_tokens[chunk])
            continue
        for piece in pretokenize(chunk):
            data = piece.encode("utf-8")
            i = 0
            while i < len(data):
                j = len(data)
                while data[i:j] not in ranks:
                    j -= 1
                ids.append(ranks[data[i:j]])
                i = j
    return ids
'''},
    },
    "encode_ignores_special_tokens": {
        "mistake": "encode pre-tokenizes the whole text without cutting out the special tokens "
                   "first, so they are encoded as ordinary text",
        "code": {"bytelevel-encode": '''
def encode(text, ranks, special_tokens):
    ids = []
    for piece in pretokenize(text):
        parts = [bytes([b]) for b in piece.encode("utf-8")]
        while len(parts) > 1:
            best = None
            for i in range(len(parts) - 1):
                rank = ranks.get(parts[i] + parts[i + 1])
                if rank is not None and (best is None or rank < best[0]):
                    best = (rank, i)
            if best is None:
                break
            i = best[1]
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        ids.extend(ranks[part] for part in parts)
    return ids
'''},
    },
}
