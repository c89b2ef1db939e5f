"""Wrong solutions of the ``superword`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cell it replaces
(by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test catches each
one and that the grader gives each less than full marks. Each wrong solution is the
instructor's solution with the mistake put in.
"""

WRONG = {
    'colon_without_space': {
        "mistake": 'is_superword_allowed refuses every colon, not only a colon followed by a space',
        "code": {'superword-allowed': '''
def is_superword_allowed(token, *, max_words=4):
    """Whether SuperBPE's stage 2 may make `token` (bytes): no b": " in it, and at most
    `max_words` words (non-empty runs of bytes between space bytes)."""
    if b":" in token:
        return False
    return sum(1 for word in token.split(b" ") if word) <= max_words
'''},
    },
    'words_split_on_any_whitespace': {
        "mistake": 'is_superword_allowed counts words split on any whitespace (bytes.split()), so a newline or a tab separates words too',
        "code": {'superword-allowed': '''
def is_superword_allowed(token, *, max_words=4):
    """Whether SuperBPE's stage 2 may make `token` (bytes): no b": " in it, and at most
    `max_words` words (non-empty runs of bytes between space bytes)."""
    if b": " in token:
        return False
    return sum(1 for word in token.split() if word) <= max_words
'''},
    },
    'spaces_counted_as_separators': {
        "mistake": 'is_superword_allowed counts the words as the number of spaces plus one, so runs of spaces and spaces at the ends make extra words',
        "code": {'superword-allowed': '''
def is_superword_allowed(token, *, max_words=4):
    """Whether SuperBPE's stage 2 may make `token` (bytes): no b": " in it, and at most
    `max_words` words (non-empty runs of bytes between space bytes)."""
    if b": " in token:
        return False
    return token.count(b" ") + 1 <= max_words
'''},
    },
    'max_words_inclusive_wrong': {
        "mistake": 'is_superword_allowed refuses a token of exactly max_words words (< instead of <=)',
        "code": {'superword-allowed': '''
def is_superword_allowed(token, *, max_words=4):
    """Whether SuperBPE's stage 2 may make `token` (bytes): no b": " in it, and at most
    `max_words` words (non-empty runs of bytes between space bytes)."""
    if b": " in token:
        return False
    return sum(1 for word in token.split(b" ") if word) < max_words
'''},
    },
    'no_replay': {
        "mistake": 'continue_merges skips the replay of the stage-1 merges and starts stage 2 on raw bytes',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)]
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'stage1_merges_left_out': {
        "mistake": 'continue_merges returns only the stage-2 merges, without the stage-1 merges before them',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = []
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)]
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'tie_smallest_pair': {
        "mistake": 'continue_merges breaks ties by the smallest pair of byte strings instead of the greatest',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)]
        if not allowed:
            break
        best = min(allowed, key=lambda p: (-counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'tie_by_ids': {
        "mistake": 'continue_merges breaks ties by the pair of ids instead of the pair of byte strings',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)]
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], p))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'counts_unweighted': {
        "mistake": 'continue_merges counts each pair once per word, ignoring how often the word occurs',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)]
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'filter_ignored': {
        "mistake": "continue_merges does not apply Part 1's filters, so b': ' and long superwords are made",
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = list(counts)
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'max_words_not_passed': {
        "mistake": 'continue_merges calls is_superword_allowed without passing max_words on',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]])]
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'duplicate_token_added': {
        "mistake": 'continue_merges appends a token that already exists as a new symbol instead of reusing its id',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)]
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        new_id = len(symbols)
        symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'filtered_pair_stops_training': {
        "mistake": 'continue_merges stops as soon as the most frequent pair is refused, instead of passing over it',
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            key = tuple(merged)
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        if not is_superword_allowed(symbols[best[0]] + symbols[best[1]], max_words=max_words):
            break
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'overlapping_merge': {
        "mistake": "continue_merges merges overlapping occurrences (a a a becomes aa aa's both) by scanning right to left",
        "code": {'superword-continue': '''
def continue_merges(words, symbols, merges, n_tokens, *, max_words=4):
    """Stage 2 of SuperBPE: replay the stage-1 `merges` on `words`, then merge the most
    frequent allowed pair (ties: the greatest (symbols[a], symbols[b])) until there are
    `n_tokens` symbols. Returns (all_merges, all_symbols)."""
    def merge_everywhere(current, pair, new_id):
        out = {}
        for word, count in current.items():
            merged, i = [], len(word) - 1
            while i >= 0:
                if i >= 1 and (word[i - 1], word[i]) == pair:
                    merged.append(new_id)
                    i -= 2
                else:
                    merged.append(word[i])
                    i -= 1
            key = tuple(merged[::-1])
            out[key] = out.get(key, 0) + count
        return out

    current = dict(words)
    symbols = list(symbols)
    all_merges = [tuple(pair) for pair in merges]
    for k, pair in enumerate(merges):
        current = merge_everywhere(current, tuple(pair), 256 + k)
    while len(symbols) < n_tokens:
        counts = {}
        for word, count in current.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + count
        allowed = [p for p in counts if is_superword_allowed(symbols[p[0]] + symbols[p[1]], max_words=max_words)]
        if not allowed:
            break
        best = max(allowed, key=lambda p: (counts[p], symbols[p[0]], symbols[p[1]]))
        token = symbols[best[0]] + symbols[best[1]]
        if token in symbols:
            new_id = symbols.index(token)
        else:
            new_id = len(symbols)
            symbols.append(token)
        all_merges.append(best)
        current = merge_everywhere(current, best, new_id)
    return all_merges, symbols
'''},
    },
    'global_tests_byte_zero': {
        "mistake": "patch_starts tests byte 0's entropy too, so a sequence that opens with a low entropy has no first patch",
        "code": {'superword-patch': '''
def patch_starts(entropies, threshold, *, rule="global"):
    """The positions where BLT starts a patch: byte 0, then each byte whose entropy is
    above `threshold` ("global") or jumped by more than `threshold` ("monotonic")."""
    if rule not in ("global", "monotonic"):
        raise ValueError(f"rule must be 'global' or 'monotonic', not {rule!r}")
    if not entropies:
        return []
    starts = []
    for i in range(len(entropies)):
        if rule == "global":
            cut = entropies[i] > threshold
        else:
            cut = i <= 1 or entropies[i] - entropies[i - 1] > threshold
        if cut:
            starts.append(i)
    return starts
'''},
    },
    'global_greater_or_equal': {
        "mistake": 'patch_starts cuts where the entropy equals the threshold (>= instead of >)',
        "code": {'superword-patch': '''
def patch_starts(entropies, threshold, *, rule="global"):
    """The positions where BLT starts a patch: byte 0, then each byte whose entropy is
    above `threshold` ("global") or jumped by more than `threshold` ("monotonic")."""
    if rule not in ("global", "monotonic"):
        raise ValueError(f"rule must be 'global' or 'monotonic', not {rule!r}")
    if not entropies:
        return []
    starts = [0]
    for i in range(1, len(entropies)):
        if rule == "global":
            cut = entropies[i] >= threshold
        else:
            cut = i == 1 or entropies[i] - entropies[i - 1] > threshold
        if cut:
            starts.append(i)
    return starts
'''},
    },
    'monotonic_byte1_tested': {
        "mistake": "patch_starts's monotonic rule tests byte 1's jump instead of starting a patch there",
        "code": {'superword-patch': '''
def patch_starts(entropies, threshold, *, rule="global"):
    """The positions where BLT starts a patch: byte 0, then each byte whose entropy is
    above `threshold` ("global") or jumped by more than `threshold` ("monotonic")."""
    if rule not in ("global", "monotonic"):
        raise ValueError(f"rule must be 'global' or 'monotonic', not {rule!r}")
    if not entropies:
        return []
    starts = [0]
    for i in range(1, len(entropies)):
        if rule == "global":
            cut = entropies[i] > threshold
        else:
            cut = entropies[i] - entropies[i - 1] > threshold
        if cut:
            starts.append(i)
    return starts
'''},
    },
    'monotonic_absolute_jump': {
        "mistake": "patch_starts's monotonic rule cuts on a fall as well as a rise (abs of the difference)",
        "code": {'superword-patch': '''
def patch_starts(entropies, threshold, *, rule="global"):
    """The positions where BLT starts a patch: byte 0, then each byte whose entropy is
    above `threshold` ("global") or jumped by more than `threshold` ("monotonic")."""
    if rule not in ("global", "monotonic"):
        raise ValueError(f"rule must be 'global' or 'monotonic', not {rule!r}")
    if not entropies:
        return []
    starts = [0]
    for i in range(1, len(entropies)):
        if rule == "global":
            cut = entropies[i] > threshold
        else:
            cut = i == 1 or abs(entropies[i] - entropies[i - 1]) > threshold
        if cut:
            starts.append(i)
    return starts
'''},
    },
    'monotonic_previous_byte': {
        "mistake": "patch_starts's monotonic rule starts the patch one byte early, at the byte before the jump",
        "code": {'superword-patch': '''
def patch_starts(entropies, threshold, *, rule="global"):
    """The positions where BLT starts a patch: byte 0, then each byte whose entropy is
    above `threshold` ("global") or jumped by more than `threshold` ("monotonic")."""
    if rule not in ("global", "monotonic"):
        raise ValueError(f"rule must be 'global' or 'monotonic', not {rule!r}")
    if not entropies:
        return []
    starts = [0]
    for i in range(1, len(entropies)):
        if rule == "global":
            cut = entropies[i] > threshold
        else:
            cut = i == 1 or entropies[i] - entropies[i - 1] > threshold
        if cut:
            starts.append(i if rule == "global" or i == 1 else i - 1)
    return sorted(set(starts))
'''},
    },
    'empty_gives_zero': {
        "mistake": 'patch_starts returns [0] for no entropies',
        "code": {'superword-patch': '''
def patch_starts(entropies, threshold, *, rule="global"):
    """The positions where BLT starts a patch: byte 0, then each byte whose entropy is
    above `threshold` ("global") or jumped by more than `threshold` ("monotonic")."""
    if rule not in ("global", "monotonic"):
        raise ValueError(f"rule must be 'global' or 'monotonic', not {rule!r}")
    starts = [0]
    for i in range(1, len(entropies)):
        if rule == "global":
            cut = entropies[i] > threshold
        else:
            cut = i == 1 or entropies[i] - entropies[i - 1] > threshold
        if cut:
            starts.append(i)
    return starts
'''},
    },
    'bad_rule_accepted': {
        "mistake": "patch_starts treats any rule other than 'global' as 'monotonic' instead of raising ValueError",
        "code": {'superword-patch': '''
def patch_starts(entropies, threshold, *, rule="global"):
    """The positions where BLT starts a patch: byte 0, then each byte whose entropy is
    above `threshold` ("global") or jumped by more than `threshold` ("monotonic")."""
    if not entropies:
        return []
    starts = [0]
    for i in range(1, len(entropies)):
        if rule == "global":
            cut = entropies[i] > threshold
        else:
            cut = i == 1 or entropies[i] - entropies[i - 1] > threshold
        if cut:
            starts.append(i)
    return starts
'''},
    },
}
