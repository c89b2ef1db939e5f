"""Wrong solutions of the ``bpe`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks.

The five wrong readings of the tie rule (the greatest pair, compared as a tuple of the
two tokens' bytes) each have a small corpus in the visible tests of Part 3 on which they
choose another merge than the rule.
"""

# The instructor's train_bpe with another key for max(): the tie rule's wrong readings.
_TRAIN = '''
def train_bpe(words, n_merges):
    token_bytes = [bytes([i]) for i in range(256)]
    merges = []
    for _ in range(n_merges):
        counts = count_pairs(words)
        if not counts:
            break
        pair = {choose}
        new_id = 256 + len(merges)
        merges.append(pair)
        token_bytes.append(token_bytes[pair[0]] + token_bytes[pair[1]])
        words = {{tuple(merge_pair(w, pair, new_id)): c for w, c in words.items()}}
    return merges
'''

WRONG = {
    "count_pairs_each_pair_once_per_word": {
        "mistake": "count_pairs counts each distinct pair once per word (a set of pairs), so "
                   "a pair that occurs twice in a word, overlapping or not, counts once",
        "code": {"bpe-count-pairs": '''
def count_pairs(words):
    counts = {}
    for word, count in words.items():
        for pair in set(zip(word, word[1:])):
            counts[pair] = counts.get(pair, 0) + count
    return counts
'''},
    },
    "count_pairs_ignores_the_counts": {
        "mistake": "count_pairs counts each occurrence once instead of as many times as its "
                   "word occurs",
        "code": {"bpe-count-pairs": '''
def count_pairs(words):
    counts = {}
    for word in words:
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts
'''},
    },
    "count_pairs_skips_overlaps": {
        "mistake": "count_pairs skips the next position after each pair of two equal ids, so "
                   "a a a holds one (a, a) instead of two",
        "code": {"bpe-count-pairs": '''
def count_pairs(words):
    counts = {}
    for word, count in words.items():
        i = 0
        while i < len(word) - 1:
            pair = (word[i], word[i + 1])
            counts[pair] = counts.get(pair, 0) + count
            i += 2 if word[i] == word[i + 1] else 1
    return counts
'''},
    },
    "merge_pair_overlapping": {
        "mistake": "merge_pair also merges an occurrence that overlaps the one just merged: "
                   "(1, 1, 1) gives [9, 9] instead of [9, 1]",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair, new_id):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == tuple(pair):
            out.append(new_id)
            if i + 2 < len(word) and (word[i + 1], word[i + 2]) == tuple(pair):
                i += 1
            else:
                i += 2
        else:
            out.append(word[i])
            i += 1
    return out
'''},
    },
    "merge_pair_drops_the_last_id": {
        "mistake": "merge_pair loops while i < len(word) - 1, so a last id that is not part of "
                   "a merged pair is lost",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair, new_id):
    out, i = [], 0
    while i < len(word) - 1:
        if (word[i], word[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out
'''},
    },
    "train_ties_by_concatenated_bytes": {
        "mistake": "train_bpe breaks ties by the two tokens' bytes joined into one string "
                   "instead of by the pair of bytes compared as a tuple",
        "code": {"bpe-train": _TRAIN.format(
            choose="max(counts, key=lambda p: (counts[p], token_bytes[p[0]] + token_bytes[p[1]]))")},
    },
    "train_ties_by_first_token_only": {
        "mistake": "train_bpe breaks ties by the first token's bytes only, so pairs with the "
                   "same first token are left to the order of the dict",
        "code": {"bpe-train": _TRAIN.format(
            choose="max(counts, key=lambda p: (counts[p], token_bytes[p[0]]))")},
    },
    "train_ties_by_ids": {
        "mistake": "train_bpe breaks ties by comparing the pairs of ids instead of their bytes, "
                   "so a merged token (id 256 or more) beats every single byte",
        "code": {"bpe-train": _TRAIN.format(choose="max(counts, key=lambda p: (counts[p], p))")},
    },
    "train_ties_smallest_pair": {
        "mistake": "train_bpe sorts by count, then by bytes, in ascending order and takes the "
                   "smallest pair of bytes among the most frequent instead of the greatest",
        "code": {"bpe-train": _TRAIN.format(
            choose="sorted(counts, key=lambda p: (-counts[p], token_bytes[p[0]], token_bytes[p[1]]))[0]")},
    },
    "train_ties_by_dict_order": {
        "mistake": "train_bpe takes max(counts, key=counts.get), so a tie goes to the pair "
                   "counted first, which depends on the order of the words",
        "code": {"bpe-train": _TRAIN.format(choose="max(counts, key=counts.get)")},
    },
    "train_new_id_off_by_one": {
        "mistake": "train_bpe appends the merge before computing its id as 256 + len(merges), "
                   "so the first merge makes 257 instead of 256",
        "code": {"bpe-train": '''
def train_bpe(words, n_merges):
    vocab = {i: bytes([i]) for i in range(256)}  # id -> its bytes
    merges = []
    for _ in range(n_merges):
        counts = count_pairs(words)
        if not counts:
            break
        pair = max(counts, key=lambda p: (counts[p], vocab[p[0]], vocab[p[1]]))
        merges.append(pair)
        new_id = 256 + len(merges)
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        words = {tuple(merge_pair(w, pair, new_id)): c for w, c in words.items()}
    return merges
'''},
    },
    "train_does_not_stop_without_pairs": {
        "mistake": "train_bpe calls max() on the pair counts even when no pair is left, which "
                   "raises ValueError instead of returning the merges learnt so far",
        "code": {"bpe-train": _TRAIN.replace("        if not counts:\n            break\n", "").format(
            choose="max(counts, key=lambda p: (counts[p], token_bytes[p[0]], token_bytes[p[1]]))")},
    },
    "encode_most_frequent_pair_first": {
        "mistake": "encode merges the pair that occurs most often in the text first (ties by "
                   "rank) instead of the pair learnt earliest",
        "code": {"bpe-encode": '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    rank = {}
    for k, pair in enumerate(merges):
        rank.setdefault(tuple(pair), k)
    while len(ids) > 1:
        counts = {}
        for pair in zip(ids, ids[1:]):
            if pair in rank:
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], -rank[p]))
        ids = merge_pair(ids, best, 256 + rank[best])
    return ids
'''},
    },
    "encode_leftmost_pair_first": {
        "mistake": "encode merges the leftmost adjacent pair that is a merge instead of the "
                   "pair learnt earliest",
        "code": {"bpe-encode": '''
def encode(text, merges):
    ids = list(text.encode("utf-8"))
    rank = {}
    for k, pair in enumerate(merges):
        rank.setdefault(tuple(pair), k)
    while True:
        for pair in zip(ids, ids[1:]):
            if pair in rank:
                ids = merge_pair(ids, pair, 256 + rank[pair])
                break
        else:
            return ids
'''},
    },
    "encode_word_by_word": {
        "mistake": "encode splits the text at spaces and encodes each word on its own, so "
                   "merges never cross a space although the text is one piece here",
        "code": {"bpe-encode": '''
def encode(text, merges):
    rank = {}
    for k, pair in enumerate(merges):
        rank.setdefault(tuple(pair), k)
    out = []
    for n, word in enumerate(text.split(" ")):
        if n > 0:
            out.append(32)
        ids = list(word.encode("utf-8"))
        while len(ids) > 1:
            pairs = [p for p in zip(ids, ids[1:]) if p in rank]
            if not pairs:
                break
            best = min(pairs, key=lambda p: rank[p])
            ids = merge_pair(ids, best, 256 + rank[best])
        out.extend(ids)
    return out
'''},
    },
    "encode_code_points": {
        "mistake": "encode starts from the code points of the text (ord of each character) "
                   "instead of its UTF-8 bytes",
        "code": {"bpe-encode": '''
def encode(text, merges):
    ids = [ord(ch) for ch in text]
    rank = {}
    for k, pair in enumerate(merges):
        rank.setdefault(tuple(pair), k)
    while len(ids) > 1:
        pairs = [p for p in zip(ids, ids[1:]) if p in rank]
        if not pairs:
            break
        best = min(pairs, key=lambda p: rank[p])
        ids = merge_pair(ids, best, 256 + rank[best])
    return ids
'''},
    },
    "decode_each_id_separately": {
        "mistake": "decode decodes the bytes of each id on its own and joins the strings, so a "
                   "character cut between two ids becomes two '\\ufffd'",
        "code": {"bpe-decode": '''
def decode(ids, merges):
    token_bytes = [bytes([i]) for i in range(256)]
    for a, b in merges:
        token_bytes.append(token_bytes[a] + token_bytes[b])
    text = ""
    for i in ids:
        if not 0 <= i < len(token_bytes):
            raise ValueError(f"unknown id {i}")
        text += token_bytes[i].decode("utf-8", errors="replace")
    return text
'''},
    },
    "decode_strict_utf8": {
        "mistake": "decode uses the strict UTF-8 decoder, which raises UnicodeDecodeError on "
                   "bytes that are not valid UTF-8 instead of giving '\\ufffd'",
        "code": {"bpe-decode": '''
def decode(ids, merges):
    token_bytes = [bytes([i]) for i in range(256)]
    for a, b in merges:
        token_bytes.append(token_bytes[a] + token_bytes[b])
    for i in ids:
        if not 0 <= i < len(token_bytes):
            raise ValueError(f"unknown id {i}")
    return b"".join(token_bytes[i] for i in ids).decode("utf-8")
'''},
    },
    "decode_without_id_check": {
        "mistake": "decode indexes its table of bytes without checking the id, so -1 gives the "
                   "last token and a too large id an IndexError instead of a ValueError",
        "code": {"bpe-decode": '''
def decode(ids, merges):
    token_bytes = [bytes([i]) for i in range(256)]
    for a, b in merges:
        token_bytes.append(token_bytes[a] + token_bytes[b])
    return b"".join(token_bytes[i] for i in ids).decode("utf-8", errors="replace")
'''},
    },
}
