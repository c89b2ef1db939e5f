"""Wrong solutions of the ``speed`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks. Each wrong
solution is the instructor's solution with the mistake put in; three of them
(``train_recount_every_merge``, ``train_max_scan``, ``piece_scan``) give the right answers
slowly, and are caught by the speed tests alone.
"""

_BUILD = '''
def build_index(words, weights):
    counts, where = {}, {}
    for i, word in enumerate(words):
        weight = weights[i]
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + weight
            where.setdefault(pair, set()).add(i)
    return counts, where
'''

_MERGE = '''
def merge_in_place(words, weights, counts, where, pair):
    a, b = pair
    new = a + b
    delta = {}
    for i in where.pop(pair):
        word, weight = words[i], weights[i]
        out, j = [], 0
        while j < len(word):
            if j + 1 < len(word) and word[j] == a and word[j + 1] == b:
                out.append(new)
                j += 2
            else:
                out.append(word[j])
                j += 1
        old_pairs, new_pairs = list(zip(word, word[1:])), list(zip(out, out[1:]))
        for p in old_pairs:
            delta[p] = delta.get(p, 0) - weight
        for p in new_pairs:
            delta[p] = delta.get(p, 0) + weight
            where.setdefault(p, set()).add(i)
        for p in set(old_pairs) - set(new_pairs) - {pair}:
            where[p].discard(i)
        words[i] = out
    changed = {}
    for p, d in delta.items():
        if d == 0:
            continue
        count = counts.get(p, 0) + d
        if count > 0:
            counts[p] = count
        else:
            del counts[p]
            where.pop(p, None)
        changed[p] = max(count, 0)
    return changed
'''

_TRAIN = '''
def train_fast(words, n_merges):
    def key(symbol):
        return tuple(-ord(ch) for ch in symbol) + (1,)

    word_list = [list(word) for word in words]
    weights = list(words.values())
    counts, where = build_index(word_list, weights)
    heap = [(-count, key(a), key(b), (a, b)) for (a, b), count in counts.items()]
    heapq.heapify(heap)
    merges = []
    while heap and len(merges) < n_merges:
        negative, _, _, pair = heapq.heappop(heap)
        if counts.get(pair) != -negative:
            continue
        merges.append(pair)
        for (a, b), count in merge_in_place(word_list, weights, counts, where, pair).items():
            if count > 0:
                heapq.heappush(heap, (-count, key(a), key(b), (a, b)))
    return merges
'''

_TEXT = '''
def train_text(text, n_merges):
    words = {}
    for word in text.split():
        words[tuple(word)] = words.get(tuple(word), 0) + 1
    return train_fast(words, n_merges)
'''

_PIECE = '''
def encode_piece(piece, ranks):
    n = len(piece)
    parts = list(piece)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap = []
    for i in range(n - 1):
        rank = ranks.get(piece[i:i + 2])
        if rank is not None:
            heap.append((rank, i, piece[i:i + 2]))
    heapq.heapify(heap)
    while heap:
        rank, i, joined = heapq.heappop(heap)
        j = nxt[i]
        if not parts[i] or j >= n or parts[i] + parts[j] != joined:
            continue
        parts[i], parts[j] = joined, ""
        k = nxt[i] = nxt[j]
        if k < n:
            prv[k] = i
            right = ranks.get(joined + parts[k])
            if right is not None:
                heapq.heappush(heap, (right, i, joined + parts[k]))
        h = prv[i]
        if h >= 0:
            left = ranks.get(parts[h] + joined)
            if left is not None:
                heapq.heappush(heap, (left, h, parts[h] + joined))
    return [part for part in parts if part]
'''


def _edit(template: str, old: str, new: str) -> str:
    """The template with ``old`` (which must occur once) replaced by ``new``."""
    if template.count(old) != 1:
        raise ValueError(f"{old!r} occurs {template.count(old)} times")
    return template.replace(old, new)


WRONG = {
    # -- Part 1: the index and one merge ---------------------------------------------------
    "index_unweighted": {
        "mistake": "build_index counts each occurrence once, not as many times as its word occurs",
        "code": {"speed-build-index": _edit(_BUILD, "counts.get(pair, 0) + weight", "counts.get(pair, 0) + 1")},
    },
    "index_where_lists": {
        "mistake": "build_index keeps where[pair] as a list of indices, with a word listed once per occurrence",
        "code": {"speed-build-index": _edit(_BUILD, "where.setdefault(pair, set()).add(i)",
                                            "where.setdefault(pair, []).append(i)"),
                 "speed-merge": _edit(_edit(_MERGE, "where.setdefault(p, set()).add(i)",
                                            "where.setdefault(p, []).append(i)"),
                                      "where[p].discard(i)", "where[p].remove(i)")},
    },
    "merge_right_to_left": {
        "mistake": "merge_in_place merges the occurrences from right to left, so a a a becomes a aa",
        "code": {"speed-merge": _edit(_MERGE, """        out, j = [], 0
        while j < len(word):
            if j + 1 < len(word) and word[j] == a and word[j + 1] == b:
                out.append(new)
                j += 2
            else:
                out.append(word[j])
                j += 1""", """        out, j = [], len(word) - 1
        while j >= 0:
            if j >= 1 and word[j - 1] == a and word[j] == b:
                out.insert(0, new)
                j -= 2
            else:
                out.insert(0, word[j])
                j -= 1""")},
    },
    "merge_keeps_zero_counts": {
        "mistake": "merge_in_place leaves the pairs that no longer occur in counts and where, with a count of 0",
        "code": {"speed-merge": _edit(_MERGE, """        if count > 0:
            counts[p] = count
        else:
            del counts[p]
            where.pop(p, None)""", """        counts[p] = max(count, 0)""")},
    },
    "merge_where_never_shrinks": {
        "mistake": "merge_in_place adds words to where but never removes a word that lost its last occurrence of a pair",
        "code": {"speed-merge": _edit(_MERGE, """        for p in set(old_pairs) - set(new_pairs) - {pair}:
            where[p].discard(i)
""", "")},
    },
    "merge_forgets_merged_pair": {
        "mistake": "merge_in_place does not report the merged pair itself as gone (count 0) in what it returns",
        "code": {"speed-merge": _edit(_MERGE, "    return changed\n", "    changed.pop(pair, None)\n    return changed\n")},
    },
    "merge_reports_unchanged": {
        "mistake": "merge_in_place reports a pair whose count went down and up by as much as changed",
        "code": {"speed-merge": _edit(_MERGE, """        if d == 0:
            continue
""", "")},
    },
    "merge_rebuilds_everything": {
        "mistake": "merge_in_place merges every word and rebuilds the whole index, looking at the words that do "
                   "not hold the pair: the work the index is there to save",
        "code": {"speed-merge": '''
def merge_in_place(words, weights, counts, where, pair):
    a, b = pair
    before = dict(counts)
    for i, word in enumerate(words):
        out, j = [], 0
        while j < len(word):
            if j + 1 < len(word) and word[j] == a and word[j + 1] == b:
                out.append(a + b)
                j += 2
            else:
                out.append(word[j])
                j += 1
        words[i] = out
    new_counts, new_where = build_index(words, weights)
    counts.clear()
    counts.update(new_counts)
    where.clear()
    where.update(new_where)
    return {p: counts.get(p, 0) for p in {**before, **counts} if before.get(p, 0) != counts.get(p, 0)}
'''},
    },
    # -- Part 2: training with a heap ------------------------------------------------------
    "train_recount_every_merge": {
        "mistake": "train_fast counts every pair of every word again after each merge (the definition): the right "
                   "merges, one counting pass per merge and more, far over the time limit",
        "code": {"speed-train": '''
def train_fast(words, n_merges):
    current = dict(words)
    merges = []
    for _ in range(n_merges):
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        pair = max(counts, key=lambda p: (counts[p], p))
        merges.append(pair)
        a, b = pair
        merged = {}
        for word, count in current.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + count
        current = merged
    return merges
'''},
    },
    "train_max_scan": {
        "mistake": "train_fast keeps the counts with the index but finds each merge with max() over all the current "
                   "pair counts, no heap: the right merges, one look at every pair per merge, over the time limit on "
                   "a corpus with many distinct pairs",
        "code": {"speed-train": '''
def train_fast(words, n_merges):
    word_list = [list(word) for word in words]
    weights = list(words.values())
    counts, where = build_index(word_list, weights)
    merges = []
    while counts and len(merges) < n_merges:
        best = max(counts.values())
        pair = max(p for p, count in counts.items() if count == best)
        merges.append(pair)
        merge_in_place(word_list, weights, counts, where, pair)
    return merges
'''},
    },
    "train_smallest_on_tie": {
        "mistake": "train_fast keys the heap by (-count, (a, b)), so of the pairs tied at the highest count it "
                   "merges the smallest, not the greatest",
        "code": {"speed-train": _edit(_edit(_TRAIN, "heap = [(-count, key(a), key(b), (a, b))",
                                            "heap = [(-count, (a, b), (a, b), (a, b))"),
                                      "heapq.heappush(heap, (-count, key(a), key(b), (a, b)))",
                                      "heapq.heappush(heap, (-count, (a, b), (a, b), (a, b)))")},
    },
    "train_key_without_end": {
        "mistake": "train_fast reverses the order of strings with the negated code points alone, so 'c' comes "
                   "before 'ca' although 'ca' is the greater",
        "code": {"speed-train": _edit(_TRAIN, "return tuple(-ord(ch) for ch in symbol) + (1,)",
                                      "return tuple(-ord(ch) for ch in symbol)")},
    },
    "train_joined_strings": {
        "mistake": "train_fast breaks ties by the joined string a + b instead of the pair (a, b)",
        "code": {"speed-train": _edit(_edit(_TRAIN, "heap = [(-count, key(a), key(b), (a, b))",
                                            "heap = [(-count, key(a + b), (), (a, b))"),
                                      "heapq.heappush(heap, (-count, key(a), key(b), (a, b)))",
                                      "heapq.heappush(heap, (-count, key(a + b), (), (a, b)))")},
    },
    "train_no_stale_check": {
        "mistake": "train_fast merges whatever comes off the heap, without checking that the entry's count is "
                   "still the pair's (stale entries)",
        "code": {"speed-train": _edit(_TRAIN, """        if counts.get(pair) != -negative:
            continue
""", """        if pair not in counts:
            continue
""")},
    },
    "train_pushes_nothing": {
        "mistake": "train_fast pushes nothing after a merge, so the pairs a merge makes never reach the heap",
        "code": {"speed-train": _edit(_TRAIN, """            if count > 0:
                heapq.heappush""", """            if count > 0 and False:
                heapq.heappush""")},
    },
    # -- Part 3: training on a text --------------------------------------------------------
    "text_split_on_space": {
        "mistake": "train_text splits on ' ' only, so tabs and newlines stay inside words and runs of spaces "
                   "make empty words",
        "code": {"speed-text": _edit(_TEXT, "text.split()", "text.split(' ')")},
    },
    "text_distinct_words_once": {
        "mistake": "train_text counts each distinct word once, whatever its number of occurrences",
        "code": {"speed-text": _edit(_TEXT, "words.get(tuple(word), 0) + 1", "1")},
    },
    "text_end_of_word_marker": {
        "mistake": "train_text spells each word with Assignment 4's end-of-word marker '</w>', which this task "
                   "does not use",
        "code": {"speed-text": _edit(_TEXT, "words[tuple(word)] = words.get(tuple(word), 0) + 1",
                                     "words[(*word, '</w>')] = words.get((*word, '</w>'), 0) + 1")},
    },
    # -- Part 4: one long piece ------------------------------------------------------------
    "piece_scan": {
        "mistake": "encode_piece looks at every adjacent pair at every step (the scan): the right parts in "
                   "O(n^2), far over the time limit on a long piece",
        "code": {"speed-piece": '''
def encode_piece(piece, ranks):
    parts = list(piece)
    while True:
        best, where = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best):
                best, where = rank, i
        if where < 0:
            return parts
        parts[where:where + 2] = [parts[where] + parts[where + 1]]
'''},
    },
    "piece_rightmost_on_tie": {
        "mistake": "encode_piece merges the rightmost of the pairs of equal rank, not the leftmost",
        "code": {"speed-piece": _edit(_edit(_edit(_edit(
            _PIECE, "heap.append((rank, i, piece[i:i + 2]))", "heap.append((rank, -i, piece[i:i + 2]))"),
            "rank, i, joined = heapq.heappop(heap)", "rank, i, joined = heapq.heappop(heap)\n        i = -i"),
            "heapq.heappush(heap, (right, i, joined + parts[k]))", "heapq.heappush(heap, (right, -i, joined + parts[k]))"),
            "heapq.heappush(heap, (left, h, parts[h] + joined))", "heapq.heappush(heap, (left, -h, parts[h] + joined))")},
    },
    "piece_longest_first": {
        "mistake": "encode_piece merges the longest joined string first instead of the lowest rank",
        "code": {"speed-piece": _edit(_edit(_edit(
            _PIECE, "heap.append((rank, i, piece[i:i + 2]))", "heap.append((-2, i, piece[i:i + 2]))"),
            "heapq.heappush(heap, (right, i, joined + parts[k]))",
            "heapq.heappush(heap, (-len(joined + parts[k]), i, joined + parts[k]))"),
            "heapq.heappush(heap, (left, h, parts[h] + joined))",
            "heapq.heappush(heap, (-len(parts[h] + joined), h, parts[h] + joined))")},
    },
    "piece_no_stale_check": {
        "mistake": "encode_piece merges every entry that comes off the heap, without checking that its parts "
                   "are still there and still join to the entry's string",
        "code": {"speed-piece": _edit(_PIECE, """        if not parts[i] or j >= n or parts[i] + parts[j] != joined:
            continue
        parts[i], parts[j] = joined, \"\"""", """        if j >= n:
            continue
        joined = parts[i] + parts[j]
        parts[i], parts[j] = joined, \"\"""")},
    },
}
