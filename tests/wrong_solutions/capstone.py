"""Wrong solutions of the ``capstone`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks. Each wrong
solution is the instructor's solution with the mistake put in.
"""

WRONG = {
    'specials_merged_into_text': {
        "mistake": 'train_tokenizer pre-tokenizes the whole text, special tokens included, so their text is counted and merged like any other',
        "code": {'capstone-train': '''
def train_tokenizer(text, vocab_size, special_tokens):
    """Train byte-level BPE on `text`: special tokens cut out first, the rest pre-tokenized
    with GPT2_PATTERN_RE, then merges of the most frequent pair (ties: the greatest
    (bytes of a, bytes of b)) until the vocabulary has `vocab_size` tokens or no pair is left.

    text: a str. vocab_size: an int >= 256 + len(special_tokens).
    special_tokens: a list of distinct non-empty str.
    Returns (merges, vocab): merges a list of (bytes, bytes), merge k making id 256 + k;
    vocab a dict {id: bytes}: the 256 bytes, one token per merge, then the special tokens.
    """
    if vocab_size < 256 + len(special_tokens):
        raise ValueError(f"vocab_size {vocab_size} leaves no room for the 256 bytes and "
                         f"{len(special_tokens)} special tokens")
    counts = {}  # pre-token (as a tuple of byte ids) -> how often it occurs
    for _ in [0]:
        for piece in re.findall(GPT2_PATTERN_RE, text):
            word = tuple(piece.encode("utf-8"))
            counts[word] = counts.get(word, 0) + 1
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    n_merges = vocab_size - 256 - len(special_tokens)
    words = counts
    while len(merges) < n_merges:
        pairs = {}
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] = pairs.get(pair, 0) + count
        if not pairs:
            break
        a, b = max(pairs, key=lambda p: (pairs[p], vocab[p[0]], vocab[p[1]]))
        new_id = 256 + len(merges)
        merges.append((vocab[a], vocab[b]))
        vocab[new_id] = vocab[a] + vocab[b]
        merged = {}
        for word, count in words.items():
            if a in word:  # only words that hold a can hold the pair
                out, i = [], 0
                while i < len(word):
                    if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                        out.append(new_id)
                        i += 2
                    else:
                        out.append(word[i])
                        i += 1
                word = tuple(out)
            merged[word] = merged.get(word, 0) + count
        words = merged
    for s in special_tokens:
        vocab[len(vocab)] = s.encode("utf-8")
    return merges, vocab
'''},
    },
    'ties_by_ids': {
        "mistake": 'train_tokenizer breaks ties by the ids of the pair instead of their bytes, so an old byte loses to a newer token whatever their bytes',
        "code": {'capstone-train': '''
def train_tokenizer(text, vocab_size, special_tokens):
    """Train byte-level BPE on `text`: special tokens cut out first, the rest pre-tokenized
    with GPT2_PATTERN_RE, then merges of the most frequent pair (ties: the greatest
    (bytes of a, bytes of b)) until the vocabulary has `vocab_size` tokens or no pair is left.

    text: a str. vocab_size: an int >= 256 + len(special_tokens).
    special_tokens: a list of distinct non-empty str.
    Returns (merges, vocab): merges a list of (bytes, bytes), merge k making id 256 + k;
    vocab a dict {id: bytes}: the 256 bytes, one token per merge, then the special tokens.
    """
    if vocab_size < 256 + len(special_tokens):
        raise ValueError(f"vocab_size {vocab_size} leaves no room for the 256 bytes and "
                         f"{len(special_tokens)} special tokens")
    counts = {}  # pre-token (as a tuple of byte ids) -> how often it occurs
    for chunk, is_special in split_on_specials(text, special_tokens):
        if is_special:
            continue
        for piece in re.findall(GPT2_PATTERN_RE, chunk):
            word = tuple(piece.encode("utf-8"))
            counts[word] = counts.get(word, 0) + 1
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    n_merges = vocab_size - 256 - len(special_tokens)
    words = counts
    while len(merges) < n_merges:
        pairs = {}
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] = pairs.get(pair, 0) + count
        if not pairs:
            break
        a, b = max(pairs, key=lambda p: (pairs[p], p))
        new_id = 256 + len(merges)
        merges.append((vocab[a], vocab[b]))
        vocab[new_id] = vocab[a] + vocab[b]
        merged = {}
        for word, count in words.items():
            if a in word:  # only words that hold a can hold the pair
                out, i = [], 0
                while i < len(word):
                    if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                        out.append(new_id)
                        i += 2
                    else:
                        out.append(word[i])
                        i += 1
                word = tuple(out)
            merged[word] = merged.get(word, 0) + count
        words = merged
    for s in special_tokens:
        vocab[len(vocab)] = s.encode("utf-8")
    return merges, vocab
'''},
    },
    'ties_by_dict_order': {
        "mistake": 'train_tokenizer takes the first pair with the top count, so the order of the text decides ties',
        "code": {'capstone-train': '''
def train_tokenizer(text, vocab_size, special_tokens):
    """Train byte-level BPE on `text`: special tokens cut out first, the rest pre-tokenized
    with GPT2_PATTERN_RE, then merges of the most frequent pair (ties: the greatest
    (bytes of a, bytes of b)) until the vocabulary has `vocab_size` tokens or no pair is left.

    text: a str. vocab_size: an int >= 256 + len(special_tokens).
    special_tokens: a list of distinct non-empty str.
    Returns (merges, vocab): merges a list of (bytes, bytes), merge k making id 256 + k;
    vocab a dict {id: bytes}: the 256 bytes, one token per merge, then the special tokens.
    """
    if vocab_size < 256 + len(special_tokens):
        raise ValueError(f"vocab_size {vocab_size} leaves no room for the 256 bytes and "
                         f"{len(special_tokens)} special tokens")
    counts = {}  # pre-token (as a tuple of byte ids) -> how often it occurs
    for chunk, is_special in split_on_specials(text, special_tokens):
        if is_special:
            continue
        for piece in re.findall(GPT2_PATTERN_RE, chunk):
            word = tuple(piece.encode("utf-8"))
            counts[word] = counts.get(word, 0) + 1
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    n_merges = vocab_size - 256 - len(special_tokens)
    words = counts
    while len(merges) < n_merges:
        pairs = {}
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] = pairs.get(pair, 0) + count
        if not pairs:
            break
        a, b = max(pairs, key=pairs.get)
        new_id = 256 + len(merges)
        merges.append((vocab[a], vocab[b]))
        vocab[new_id] = vocab[a] + vocab[b]
        merged = {}
        for word, count in words.items():
            if a in word:  # only words that hold a can hold the pair
                out, i = [], 0
                while i < len(word):
                    if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                        out.append(new_id)
                        i += 2
                    else:
                        out.append(word[i])
                        i += 1
                word = tuple(out)
            merged[word] = merged.get(word, 0) + count
        words = merged
    for s in special_tokens:
        vocab[len(vocab)] = s.encode("utf-8")
    return merges, vocab
'''},
    },
    'specials_before_merges': {
        "mistake": 'train_tokenizer gives the special tokens the ids right after the bytes (256, 257, ...), before the merges',
        "code": {'capstone-train': '''
def train_tokenizer(text, vocab_size, special_tokens):
    """Train byte-level BPE on `text`: special tokens cut out first, the rest pre-tokenized
    with GPT2_PATTERN_RE, then merges of the most frequent pair (ties: the greatest
    (bytes of a, bytes of b)) until the vocabulary has `vocab_size` tokens or no pair is left.

    text: a str. vocab_size: an int >= 256 + len(special_tokens).
    special_tokens: a list of distinct non-empty str.
    Returns (merges, vocab): merges a list of (bytes, bytes), merge k making id 256 + k;
    vocab a dict {id: bytes}: the 256 bytes, one token per merge, then the special tokens.
    """
    if vocab_size < 256 + len(special_tokens):
        raise ValueError(f"vocab_size {vocab_size} leaves no room for the 256 bytes and "
                         f"{len(special_tokens)} special tokens")
    counts = {}  # pre-token (as a tuple of byte ids) -> how often it occurs
    for chunk, is_special in split_on_specials(text, special_tokens):
        if is_special:
            continue
        for piece in re.findall(GPT2_PATTERN_RE, chunk):
            word = tuple(piece.encode("utf-8"))
            counts[word] = counts.get(word, 0) + 1
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    n_merges = vocab_size - 256 - len(special_tokens)
    words = counts
    while len(merges) < n_merges:
        pairs = {}
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] = pairs.get(pair, 0) + count
        if not pairs:
            break
        a, b = max(pairs, key=lambda p: (pairs[p], vocab[p[0]], vocab[p[1]]))
        new_id = 256 + len(special_tokens) + len(merges)
        merges.append((vocab[a], vocab[b]))
        vocab[new_id] = vocab[a] + vocab[b]
        merged = {}
        for word, count in words.items():
            if a in word:  # only words that hold a can hold the pair
                out, i = [], 0
                while i < len(word):
                    if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                        out.append(new_id)
                        i += 2
                    else:
                        out.append(word[i])
                        i += 1
                word = tuple(out)
            merged[word] = merged.get(word, 0) + count
        words = merged
    for i, s in enumerate(special_tokens):
        vocab[256 + i] = s.encode("utf-8")
    return merges, vocab
'''},
    },
    'load_accepts_reordered_merges': {
        "mistake": 'load_tokenizer checks the types but not that each merge uses tokens made before it, so a file whose merges were cut or reordered loads',
        "code": {'capstone-save': '''
def save_tokenizer(path, merges, special_tokens):
    """Write a trained tokenizer to the JSON file `path`, in the format described above.

    merges: a list of (bytes, bytes); special_tokens: a list of str.
    """
    data = {
        "format": "capstone-bpe",
        "version": 1,
        "pattern": GPT2_PATTERN_RE,
        "merges": [[a.hex(), b.hex()] for a, b in merges],
        "special_tokens": list(special_tokens),
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)


def load_tokenizer(path):
    """Read a tokenizer that save_tokenizer wrote: returns (merges, special_tokens).

    Raises ValueError, with a message that names what is wrong, for a file that is not
    such a tokenizer (see the list of checks above).
    """
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not JSON: {e}") from None
    if type(data) is not dict:
        raise ValueError(f"{path}: expected a JSON object, found a {type(data).__name__}")
    keys = {"format", "version", "pattern", "merges", "special_tokens"}
    if set(data) != keys:
        missing, extra = sorted(keys - set(data)), sorted(set(data) - keys)
        raise ValueError(f"{path}: missing keys {missing}, unexpected keys {extra}")
    if data["format"] != "capstone-bpe":
        raise ValueError(f"{path}: format is {data['format']!r}, not 'capstone-bpe'")
    if data["version"] != 1:
        raise ValueError(f"{path}: version {data['version']!r} is not supported (only 1)")
    if data["pattern"] != GPT2_PATTERN_RE:
        raise ValueError(f"{path}: its pattern is not GPT2_PATTERN_RE, so its ids would not be ours")
    if type(data["merges"]) is not list:
        raise ValueError(f"{path}: merges must be a list")
    tokens = {bytes([i]) for i in range(256)}
    merges = []
    for k, m in enumerate(data["merges"]):
        if type(m) is not list or len(m) != 2 or not all(type(h) is str and h for h in m):
            raise ValueError(f"{path}: merges[{k}] must be a list of two non-empty hex strings, not {m!r}")
        try:
            a, b = bytes.fromhex(m[0]), bytes.fromhex(m[1])
        except ValueError:
            raise ValueError(f"{path}: merges[{k}] = {m!r} is not hex") from None
        for part in ():
            if part not in tokens:
                raise ValueError(f"{path}: merges[{k}] uses {part!r}, which no earlier merge made")
        merges.append((a, b))
        tokens.add(a + b)
    specials = data["special_tokens"]
    if (type(specials) is not list or not all(type(s) is str and s for s in specials)
            or len(set(specials)) != len(specials)):
        raise ValueError(f"{path}: special_tokens must be a list of distinct non-empty strings")
    return merges, list(specials)
'''},
    },
    'load_keyerror': {
        "mistake": 'load_tokenizer reads the keys without checking them: a missing key raises KeyError and a wrong format or version loads',
        "code": {'capstone-save': '''
def save_tokenizer(path, merges, special_tokens):
    """Write a trained tokenizer to the JSON file `path`, in the format described above.

    merges: a list of (bytes, bytes); special_tokens: a list of str.
    """
    data = {
        "format": "capstone-bpe",
        "version": 1,
        "pattern": GPT2_PATTERN_RE,
        "merges": [[a.hex(), b.hex()] for a, b in merges],
        "special_tokens": list(special_tokens),
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)


def load_tokenizer(path):
    """Read a tokenizer that save_tokenizer wrote: returns (merges, special_tokens).

    Raises ValueError, with a message that names what is wrong, for a file that is not
    such a tokenizer (see the list of checks above).
    """
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not JSON: {e}") from None
    if type(data) is not dict:
        raise ValueError(f"{path}: expected a JSON object, found a {type(data).__name__}")
    keys = {"format", "version", "pattern", "merges", "special_tokens"}
    if False:
        missing, extra = sorted(keys - set(data)), sorted(set(data) - keys)
        raise ValueError(f"{path}: missing keys {missing}, unexpected keys {extra}")
    if False:
        raise ValueError(f"{path}: format is {data['format']!r}, not 'capstone-bpe'")
    if False:
        raise ValueError(f"{path}: version {data['version']!r} is not supported (only 1)")
    if data["pattern"] != GPT2_PATTERN_RE:
        raise ValueError(f"{path}: its pattern is not GPT2_PATTERN_RE, so its ids would not be ours")
    if type(data["merges"]) is not list:
        raise ValueError(f"{path}: merges must be a list")
    tokens = {bytes([i]) for i in range(256)}
    merges = []
    for k, m in enumerate(data["merges"]):
        if type(m) is not list or len(m) != 2 or not all(type(h) is str and h for h in m):
            raise ValueError(f"{path}: merges[{k}] must be a list of two non-empty hex strings, not {m!r}")
        try:
            a, b = bytes.fromhex(m[0]), bytes.fromhex(m[1])
        except ValueError:
            raise ValueError(f"{path}: merges[{k}] = {m!r} is not hex") from None
        for part in (a, b):
            if part not in tokens:
                raise ValueError(f"{path}: merges[{k}] uses {part!r}, which no earlier merge made")
        merges.append((a, b))
        tokens.add(a + b)
    specials = data["special_tokens"]
    if (type(specials) is not list or not all(type(s) is str and s for s in specials)
            or len(set(specials)) != len(specials)):
        raise ValueError(f"{path}: special_tokens must be a list of distinct non-empty strings")
    return merges, list(specials)
'''},
    },
    'save_utf8_text': {
        "mistake": "save_tokenizer writes tokens as text (bytes.decode with errors='replace') instead of hex, so tokens that are half a character are lost",
        "code": {'capstone-save': '''
def save_tokenizer(path, merges, special_tokens):
    """Write a trained tokenizer to the JSON file `path`, in the format described above.

    merges: a list of (bytes, bytes); special_tokens: a list of str.
    """
    data = {
        "format": "capstone-bpe",
        "version": 1,
        "pattern": GPT2_PATTERN_RE,
        "merges": [[a.decode("utf-8", errors="replace"), b.decode("utf-8", errors="replace")] for a, b in merges],
        "special_tokens": list(special_tokens),
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)


def load_tokenizer(path):
    """Read a tokenizer that save_tokenizer wrote: returns (merges, special_tokens).

    Raises ValueError, with a message that names what is wrong, for a file that is not
    such a tokenizer (see the list of checks above).
    """
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not JSON: {e}") from None
    if type(data) is not dict:
        raise ValueError(f"{path}: expected a JSON object, found a {type(data).__name__}")
    keys = {"format", "version", "pattern", "merges", "special_tokens"}
    if set(data) != keys:
        missing, extra = sorted(keys - set(data)), sorted(set(data) - keys)
        raise ValueError(f"{path}: missing keys {missing}, unexpected keys {extra}")
    if data["format"] != "capstone-bpe":
        raise ValueError(f"{path}: format is {data['format']!r}, not 'capstone-bpe'")
    if data["version"] != 1:
        raise ValueError(f"{path}: version {data['version']!r} is not supported (only 1)")
    if data["pattern"] != GPT2_PATTERN_RE:
        raise ValueError(f"{path}: its pattern is not GPT2_PATTERN_RE, so its ids would not be ours")
    if type(data["merges"]) is not list:
        raise ValueError(f"{path}: merges must be a list")
    tokens = {bytes([i]) for i in range(256)}
    merges = []
    for k, m in enumerate(data["merges"]):
        if type(m) is not list or len(m) != 2 or not all(type(h) is str and h for h in m):
            raise ValueError(f"{path}: merges[{k}] must be a list of two non-empty hex strings, not {m!r}")
        try:
            a, b = m[0].encode("utf-8"), m[1].encode("utf-8")
        except ValueError:
            raise ValueError(f"{path}: merges[{k}] = {m!r} is not hex") from None
        for part in (a, b):
            if part not in tokens:
                raise ValueError(f"{path}: merges[{k}] uses {part!r}, which no earlier merge made")
        merges.append((a, b))
        tokens.add(a + b)
    specials = data["special_tokens"]
    if (type(specials) is not list or not all(type(s) is str and s for s in specials)
            or len(set(specials)) != len(specials)):
        raise ValueError(f"{path}: special_tokens must be a list of distinct non-empty strings")
    return merges, list(specials)
'''},
    },
    'encode_leftmost_pair': {
        "mistake": 'encode merges the leftmost adjacent pair that is in merges instead of the one merged earliest in training',
        "code": {'capstone-encode': '''
def encode(text, merges, special_tokens):
    """Ids of `text`: special tokens cut out (each gives its id), the rest pre-tokenized
    with GPT2_PATTERN_RE, and the bytes of each piece merged, the earliest merge first.

    merges: a list of (bytes, bytes); merge k makes id 256 + k.
    special_tokens: a list of str; special token i has id 256 + len(merges) + i.
    Returns a list of int.
    """
    ranks = {}  # (bytes, bytes) -> the index of its first merge
    for k, pair in enumerate(merges):
        ranks.setdefault(pair, k)
    special_ids = {s: 256 + len(merges) + i for i, s in enumerate(special_tokens)}
    cache = {}  # piece -> its ids
    ids = []
    for chunk, is_special in split_on_specials(text, special_tokens):
        if is_special:
            ids.append(special_ids[chunk])
            continue
        for piece in re.findall(GPT2_PATTERN_RE, chunk):
            piece_ids = cache.get(piece)
            if piece_ids is None:
                parts = [bytes([b]) for b in piece.encode("utf-8")]
                piece_ids = list(piece.encode("utf-8"))
                while len(parts) > 1:
                    best, best_i = None, -1
                    for i in range(len(parts) - 1):
                        rank = ranks.get((parts[i], parts[i + 1]))
                        if rank is not None and best is None:
                            best, best_i = rank, i
                    if best is None:
                        break
                    parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
                    piece_ids[best_i : best_i + 2] = [256 + best]
                cache[piece] = piece_ids
            ids.extend(piece_ids)
    return ids


def decode(ids, merges, special_tokens):
    """Text of `ids`: the bytes of every id joined, decoded as UTF-8 with errors="replace".

    Raises ValueError for an id that is neither a byte, nor made by a merge, nor a special token.
    """
    table = [bytes([i]) for i in range(256)]
    for a, b in merges:
        table.append(a + b)
    table += [s.encode("utf-8") for s in special_tokens]
    out = []
    for i in ids:
        if type(i) is not int or not 0 <= i < len(table):
            raise ValueError(f"unknown id {i!r}: the ids are 0 to {len(table) - 1}")
        out.append(table[i])
    return b"".join(out).decode("utf-8", errors="replace")
'''},
    },
    'decode_per_token': {
        "mistake": "decode decodes each id's bytes on its own with errors='replace', so a character cut between two tokens becomes two '\\ufffd'",
        "code": {'capstone-encode': '''
def encode(text, merges, special_tokens):
    """Ids of `text`: special tokens cut out (each gives its id), the rest pre-tokenized
    with GPT2_PATTERN_RE, and the bytes of each piece merged, the earliest merge first.

    merges: a list of (bytes, bytes); merge k makes id 256 + k.
    special_tokens: a list of str; special token i has id 256 + len(merges) + i.
    Returns a list of int.
    """
    ranks = {}  # (bytes, bytes) -> the index of its first merge
    for k, pair in enumerate(merges):
        ranks.setdefault(pair, k)
    special_ids = {s: 256 + len(merges) + i for i, s in enumerate(special_tokens)}
    cache = {}  # piece -> its ids
    ids = []
    for chunk, is_special in split_on_specials(text, special_tokens):
        if is_special:
            ids.append(special_ids[chunk])
            continue
        for piece in re.findall(GPT2_PATTERN_RE, chunk):
            piece_ids = cache.get(piece)
            if piece_ids is None:
                parts = [bytes([b]) for b in piece.encode("utf-8")]
                piece_ids = list(piece.encode("utf-8"))
                while len(parts) > 1:
                    best, best_i = None, -1
                    for i in range(len(parts) - 1):
                        rank = ranks.get((parts[i], parts[i + 1]))
                        if rank is not None and (best is None or rank < best):
                            best, best_i = rank, i
                    if best is None:
                        break
                    parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
                    piece_ids[best_i : best_i + 2] = [256 + best]
                cache[piece] = piece_ids
            ids.extend(piece_ids)
    return ids


def decode(ids, merges, special_tokens):
    """Text of `ids`: the bytes of every id joined, decoded as UTF-8 with errors="replace".

    Raises ValueError for an id that is neither a byte, nor made by a merge, nor a special token.
    """
    table = [bytes([i]) for i in range(256)]
    for a, b in merges:
        table.append(a + b)
    table += [s.encode("utf-8") for s in special_tokens]
    out = []
    for i in ids:
        if type(i) is not int or not 0 <= i < len(table):
            raise ValueError(f"unknown id {i!r}: the ids are 0 to {len(table) - 1}")
        out.append(table[i])
    return "".join(b.decode("utf-8", errors="replace") for b in out)
'''},
    },
    'encode_specials_as_text': {
        "mistake": "encode pre-tokenizes the whole text without cutting out the special tokens, so <|endoftext|> is encoded as the bytes of its text",
        "code": {'capstone-encode': '''

def encode(text, merges, special_tokens):
    """Ids of `text`: special tokens cut out (each gives its id), the rest pre-tokenized
    with GPT2_PATTERN_RE, and the bytes of each piece merged, the earliest merge first.

    merges: a list of (bytes, bytes); merge k makes id 256 + k.
    special_tokens: a list of str; special token i has id 256 + len(merges) + i.
    Returns a list of int.
    """
    ranks = {}  # (bytes, bytes) -> the index of its first merge
    for k, pair in enumerate(merges):
        ranks.setdefault(pair, k)
    special_ids = {s: 256 + len(merges) + i for i, s in enumerate(special_tokens)}
    cache = {}  # piece -> its ids
    ids = []
    for chunk, is_special in [(text, False)] if text else []:
        if is_special:
            ids.append(special_ids[chunk])
            continue
        for piece in re.findall(GPT2_PATTERN_RE, chunk):
            piece_ids = cache.get(piece)
            if piece_ids is None:
                parts = [bytes([b]) for b in piece.encode("utf-8")]
                piece_ids = list(piece.encode("utf-8"))
                while len(parts) > 1:
                    best, best_i = None, -1
                    for i in range(len(parts) - 1):
                        rank = ranks.get((parts[i], parts[i + 1]))
                        if rank is not None and (best is None or rank < best):
                            best, best_i = rank, i
                    if best is None:
                        break
                    parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
                    piece_ids[best_i : best_i + 2] = [256 + best]
                cache[piece] = piece_ids
            ids.extend(piece_ids)
    return ids


def decode(ids, merges, special_tokens):
    """Text of `ids`: the bytes of every id joined, decoded as UTF-8 with errors="replace".

    Raises ValueError for an id that is neither a byte, nor made by a merge, nor a special token.
    """
    table = [bytes([i]) for i in range(256)]
    for a, b in merges:
        table.append(a + b)
    table += [s.encode("utf-8") for s in special_tokens]
    out = []
    for i in ids:
        if type(i) is not int or not 0 <= i < len(table):
            raise ValueError(f"unknown id {i!r}: the ids are 0 to {len(table) - 1}")
        out.append(table[i])
    return b"".join(out).decode("utf-8", errors="replace")
'''},
    },
    'stream_cuts_blocks': {
        "mistake": 'encode_file encodes every block as it is read, so a word, a run of whitespace or a special token cut by a read is encoded as two',
        "code": {'capstone-stream': '''
def encode_file(path, merges, special_tokens, read_size=65536):
    """Yield the ids of the text of the file `path` (UTF-8), exactly encode(whole text),
    reading it `read_size` characters at a time and never holding all of it.

    Cuts the text only right after a newline that has a character other than whitespace
    on each side (see the proof above), and encodes each part with encode.
    """
    buffer = ""
    with open(path, encoding="utf-8", newline="") as f:  # newline="": "\\r\\n" stays as it is
        while True:
            block = f.read(read_size)
            buffer += block
            # The last safe cut: after a "\\n" with non-whitespace on both sides.
            cut = -1
            end = len(buffer) - 1  # buffer[i + 1] must exist
            while True:
                i = buffer.rfind("\\n", 0, end)
                if i <= 0:
                    break
                if not buffer[i - 1].isspace() and not buffer[i + 1].isspace():
                    cut = i + 1
                    break
                end = i
            if not block:  # the end of the file: the rest is the last part
                yield from encode(buffer, merges, special_tokens)
                return
            cut = len(buffer)
            if cut > 0:
                yield from encode(buffer[:cut], merges, special_tokens)
                buffer = buffer[cut:]
'''},
    },
    'stream_line_by_line': {
        "mistake": "encode_file encodes the file line by line (for line in f), so a run of whitespace that holds newlines, such as \"\\n\\n\\n\", is cut into several pieces",
        "code": {'capstone-stream': '''
def encode_file(path, merges, special_tokens, read_size=65536):
    with open(path, encoding="utf-8", newline="") as f:
        for line in f:
            yield from encode(line, merges, special_tokens)
'''},
    },
    'stream_default_newline': {
        "mistake": 'encode_file opens the file without newline="", so Python turns "\\r\\n" into "\\n" and the ids change',
        "code": {'capstone-stream': '''
def encode_file(path, merges, special_tokens, read_size=65536):
    """Yield the ids of the text of the file `path` (UTF-8), exactly encode(whole text),
    reading it `read_size` characters at a time and never holding all of it.

    Cuts the text only right after a newline that has a character other than whitespace
    on each side (see the proof above), and encodes each part with encode.
    """
    buffer = ""
    with open(path, encoding="utf-8") as f:  # newline="": "\\r\\n" stays as it is
        while True:
            block = f.read(read_size)
            buffer += block
            # The last safe cut: after a "\\n" with non-whitespace on both sides.
            cut = -1
            end = len(buffer) - 1  # buffer[i + 1] must exist
            while True:
                i = buffer.rfind("\\n", 0, end)
                if i <= 0:
                    break
                if not buffer[i - 1].isspace() and not buffer[i + 1].isspace():
                    cut = i + 1
                    break
                end = i
            if not block:  # the end of the file: the rest is the last part
                yield from encode(buffer, merges, special_tokens)
                return
            if cut > 0:
                yield from encode(buffer[:cut], merges, special_tokens)
                buffer = buffer[cut:]
'''},
    },
    'stream_reads_whole_file': {
        "mistake": 'encode_file reads the whole file at once and encodes it, which is right but takes memory in proportion to the file',
        "code": {'capstone-stream': '''
def encode_file(path, merges, special_tokens, read_size=65536):
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    yield from encode(text, merges, special_tokens)
'''},
    },
    'measure_characters': {
        "mistake": 'measure counts the characters of the text (len(text)) instead of its UTF-8 bytes',
        "code": {'capstone-measure': '''
def measure(text, encode_fn):
    """Compression and speed of a tokenizer on `text`.

    encode_fn: a function that takes a str and returns its list of ids.
    Returns a dict: "bytes" (UTF-8 bytes of text), "tokens" (len of the ids),
    "bytes_per_token" (bytes / tokens, 0.0 without tokens), "seconds" (of one call of
    encode_fn, timed with time.perf_counter) and "bytes_per_second" (bytes / seconds).
    """
    n_bytes = len(text)
    start = time.perf_counter()
    ids = encode_fn(text)
    seconds = time.perf_counter() - start
    return {
        "bytes": n_bytes,
        "tokens": len(ids),
        "bytes_per_token": n_bytes / len(ids) if ids else 0.0,
        "seconds": seconds,
        "bytes_per_second": n_bytes / seconds if seconds > 0 else float("inf"),
    }
'''},
    },
    'measure_calls_twice': {
        "mistake": 'measure calls encode_fn once to count the tokens and again to time it',
        "code": {'capstone-measure': '''
def measure(text, encode_fn):
    """Compression and speed of a tokenizer on `text`.

    encode_fn: a function that takes a str and returns its list of ids.
    Returns a dict: "bytes" (UTF-8 bytes of text), "tokens" (len of the ids),
    "bytes_per_token" (bytes / tokens, 0.0 without tokens), "seconds" (of one call of
    encode_fn, timed with time.perf_counter) and "bytes_per_second" (bytes / seconds).
    """
    n_bytes = len(text.encode("utf-8"))
    start = time.perf_counter()
    encode_fn(text)
    seconds = time.perf_counter() - start
    ids = encode_fn(text)
    return {
        "bytes": n_bytes,
        "tokens": len(ids),
        "bytes_per_token": n_bytes / len(ids) if ids else 0.0,
        "seconds": seconds,
        "bytes_per_second": n_bytes / seconds if seconds > 0 else float("inf"),
    }
'''},
    },
}
