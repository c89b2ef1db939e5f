"""Wrong solutions of the ``bpe`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks.

The assignment is chapter 4's character-level BPE: symbols are ``str``, a word is spelt
as its characters followed by ``"</w>"``, a merge joins two symbols into ``a + b``. The
five wrong readings of the tie rule (the greatest pair, compared as a tuple of two
strings) each have a small corpus in the edge-case tests of Part 3 on which they choose
another merge than the rule.
"""

# The instructor's train_bpe with another way of spelling the words or of choosing the pair.
_TRAIN = '''
def train_bpe(word_counts, n_merges):
    words = {{{spell}: count for word, count in word_counts.items()}}{extra}
    merges = []
    for _ in range(n_merges):
        counts = count_pairs(words)
        if not counts:
            break
        pair = {choose}
        merges.append(pair)
        words = {{tuple(merge_pair(w, pair)): c for w, c in words.items()}}
    return merges
'''
_RIGHT = dict(spell="(*word, EOW)", extra="", choose="max(counts, key=lambda p: (counts[p], p))")


def _train(**changes: str) -> str:
    return _TRAIN.format(**{**_RIGHT, **changes})


# The instructor's tokenize with another rule for the next pair to merge, or another split.
_TOKENIZE = '''
def tokenize(text, merges):
    index = {{}}
    for k, pair in enumerate(merges):
        {index}
    tokens = []
    for word in {split}:
        symbols = {spell}
        while len(symbols) > 1:
            pairs = [p for p in zip(symbols, symbols[1:]) if p in index]
            if not pairs:
                break
            symbols = merge_pair(symbols, {choose})
        tokens.extend(symbols)
    return tokens
'''
_TOKENIZE_RIGHT = dict(index="index.setdefault(tuple(pair), k)", split="text.split()",
                       spell="[*word, EOW]", choose="min(pairs, key=lambda p: index[p])")


def _tokenize(**changes: str) -> str:
    return _TOKENIZE.format(**{**_TOKENIZE_RIGHT, **changes})


WRONG = {
    # --- Part 1 -------------------------------------------------------------------------
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
        "mistake": "count_pairs skips the next position after each pair of two equal symbols, "
                   "so a a a holds one (a, a) instead of two",
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
    "count_pairs_across_words": {
        "mistake": "count_pairs chains all the words into one sequence, so the last symbol of a "
                   "word and the first of the next make a pair",
        "code": {"bpe-count-pairs": '''
def count_pairs(words):
    counts = {}
    symbols, weights = [], []
    for word, count in words.items():
        symbols.extend(word)
        weights.extend([count] * len(word))
    for i in range(len(symbols) - 1):
        pair = (symbols[i], symbols[i + 1])
        counts[pair] = counts.get(pair, 0) + weights[i]
    return counts
'''},
    },
    # --- Part 2 -------------------------------------------------------------------------
    "merge_pair_overlapping": {
        "mistake": "merge_pair also merges an occurrence that overlaps the one just merged: "
                   "a a a gives ['aa', 'aa'] instead of ['aa', 'a']",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair):
    a, b = pair
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
            out.append(a + b)
            if i + 2 < len(word) and word[i + 1] == a and word[i + 2] == b:
                i += 1
            else:
                i += 2
        else:
            out.append(word[i])
            i += 1
    return out
'''},
    },
    "merge_pair_first_occurrence_only": {
        "mistake": "merge_pair merges only the first occurrence of the pair and leaves the others",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair):
    word = list(word)
    for i in range(len(word) - 1):
        if (word[i], word[i + 1]) == tuple(pair):
            return word[:i] + [word[i] + word[i + 1]] + word[i + 2:]
    return word
'''},
    },
    "merge_pair_right_to_left": {
        "mistake": "merge_pair goes from right to left, so a a a gives ['a', 'aa'] instead of "
                   "['aa', 'a']",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair):
    a, b = pair
    out, i = [], len(word) - 1
    while i >= 0:
        if i > 0 and word[i - 1] == a and word[i] == b:
            out.append(a + b)
            i -= 2
        else:
            out.append(word[i])
            i -= 1
    return out[::-1]
'''},
    },
    "merge_pair_changes_its_argument": {
        "mistake": "merge_pair merges in place in the list it was given (and returns it), so the "
                   "caller's word changes",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair):
    if isinstance(word, tuple):
        word = list(word)
    i = 0
    while i < len(word) - 1:
        if word[i] == pair[0] and word[i + 1] == pair[1]:
            word[i:i + 2] = [word[i] + word[i + 1]]
        i += 1
    return word
'''},
    },
    "merge_pair_returns_a_tuple": {
        "mistake": "merge_pair returns a tuple instead of a list",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair):
    a, b = pair
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)
'''},
    },
    "merge_pair_drops_the_last_symbol": {
        "mistake": "merge_pair loops while i < len(word) - 1, so a last symbol that is not part "
                   "of a merged pair is lost",
        "code": {"bpe-merge-pair": '''
def merge_pair(word, pair):
    out, i = [], 0
    while i < len(word) - 1:
        if (word[i], word[i + 1]) == tuple(pair):
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out
'''},
    },
    # --- Part 3 -------------------------------------------------------------------------
    "train_forgets_the_end_of_word_marker": {
        "mistake": "train_bpe spells each word as its characters only, without '</w>'",
        "code": {"bpe-train": _train(spell="tuple(word)")},
    },
    "train_marker_as_a_prefix": {
        "mistake": "train_bpe puts '</w>' before the characters of each word instead of after them",
        "code": {"bpe-train": _train(spell="(EOW, *word)")},
    },
    "train_marker_as_a_separate_word": {
        "mistake": "train_bpe adds '</w>' to the corpus as a word of its own instead of ending "
                   "each word with it",
        "code": {"bpe-train": _train(
            spell="tuple(word)",
            extra="\n    words[(EOW,)] = sum(word_counts.values())")},
    },
    "train_ties_by_dict_order": {
        "mistake": "train_bpe takes max(counts, key=counts.get), so a tie goes to the pair "
                   "counted first, which depends on the order of the words",
        "code": {"bpe-train": _train(choose="max(counts, key=counts.get)")},
    },
    "train_ties_smallest_pair": {
        "mistake": "train_bpe sorts by count, then by pair, in ascending order and takes the "
                   "smallest pair among the most frequent instead of the greatest",
        "code": {"bpe-train": _train(choose="sorted(counts, key=lambda p: (-counts[p], p))[0]")},
    },
    "train_ties_by_concatenation": {
        "mistake": "train_bpe breaks ties by the two symbols joined into one string, a + b, "
                   "instead of by the pair compared as a tuple",
        "code": {"bpe-train": _train(choose="max(counts, key=lambda p: (counts[p], p[0] + p[1]))")},
    },
    "train_ties_by_first_symbol_only": {
        "mistake": "train_bpe breaks ties by the first symbol only, so pairs with the same "
                   "first symbol are left to the order of the dict",
        "code": {"bpe-train": _train(choose="max(counts, key=lambda p: (counts[p], p[0]))")},
    },
    "train_ties_by_reversed_pair": {
        "mistake": "train_bpe breaks ties by (b, a), the second symbol first, instead of (a, b)",
        "code": {"bpe-train": _train(choose="max(counts, key=lambda p: (counts[p], p[1], p[0]))")},
    },
    "train_does_not_stop_without_pairs": {
        "mistake": "train_bpe calls max() on the pair counts even when no pair is left, which "
                   "raises ValueError instead of returning the merges learnt so far",
        "code": {"bpe-train": _train().replace("        if not counts:\n            break\n", "")},
    },
    "train_repeats_the_last_merge": {
        "mistake": "train_bpe keeps the best pair in a variable that survives from one merge to "
                   "the next, so when no pair is left it appends the previous merge again",
        "code": {"bpe-train": '''
def train_bpe(word_counts, n_merges):
    words = {(*word, EOW): count for word, count in word_counts.items()}
    merges = []
    best, best_count = None, 0
    for _ in range(n_merges):
        best_count = 0
        for pair, count in count_pairs(words).items():
            if count > best_count or (count == best_count and pair > best):
                best, best_count = pair, count
        merges.append(best)
        words = {tuple(merge_pair(w, best)): c for w, c in words.items()}
    return merges
'''},
    },
    # --- Part 4 -------------------------------------------------------------------------
    "tokenize_most_frequent_pair_first": {
        "mistake": "tokenize merges the pair that occurs most often in the word first (ties by "
                   "index) instead of the pair learnt earliest",
        "code": {"bpe-tokenize": _tokenize(
            choose="max(pairs, key=lambda p: (pairs.count(p), -index[p]))")},
    },
    "tokenize_leftmost_pair_first": {
        "mistake": "tokenize merges the leftmost adjacent pair that is a merge instead of the "
                   "pair learnt earliest",
        "code": {"bpe-tokenize": _tokenize(choose="pairs[0]")},
    },
    "tokenize_last_index_of_a_repeated_merge": {
        "mistake": "tokenize builds its index with {pair: k for k, pair in enumerate(merges)}, so "
                   "a pair listed twice gets its last index instead of its first",
        "code": {"bpe-tokenize": _tokenize(index="index[tuple(pair)] = k")},
    },
    "tokenize_whole_text_as_one_word": {
        "mistake": "tokenize does not split the text on whitespace: it spells the whole text, "
                   "spaces included, as one word with one '</w>' at the end",
        "code": {"bpe-tokenize": _tokenize(split="[text] if text else []")},
    },
    "tokenize_merges_across_words": {
        "mistake": "tokenize spells every word with '</w>' but chains all the words into one "
                   "sequence before merging, so a merge can join the symbols of two words",
        "code": {"bpe-tokenize": '''
def tokenize(text, merges):
    index = {}
    for k, pair in enumerate(merges):
        index.setdefault(tuple(pair), k)
    symbols = [s for word in text.split() for s in [*word, EOW]]
    while len(symbols) > 1:
        pairs = [p for p in zip(symbols, symbols[1:]) if p in index]
        if not pairs:
            break
        symbols = merge_pair(symbols, min(pairs, key=lambda p: index[p]))
    return symbols
'''},
    },
    "tokenize_split_on_one_space": {
        "mistake": "tokenize splits with text.split(' '), so runs of spaces make empty words "
                   "(a lone '</w>') and tabs and newlines stay inside words",
        "code": {"bpe-tokenize": _tokenize(split='text.split(" ") if text else []')},
    },
    "tokenize_forgets_the_end_of_word_marker": {
        "mistake": "tokenize spells each word as its characters only, without '</w>'",
        "code": {"bpe-tokenize": _tokenize(spell="list(word)")},
    },
    # --- Part 5 -------------------------------------------------------------------------
    "decode_keeps_the_trailing_space": {
        "mistake": "decode replaces each '</w>' by a space but keeps the space at the end",
        "code": {"bpe-decode": '''
def decode(tokens):
    return "".join(tokens).replace(EOW, " ")
'''},
    },
    "decode_drops_the_spaces": {
        "mistake": "decode removes each '</w>' instead of turning it into a space, so the words "
                   "run together",
        "code": {"bpe-decode": '''
def decode(tokens):
    return "".join(tokens).replace(EOW, "")
'''},
    },
    "decode_joins_symbols_with_spaces": {
        "mistake": "decode joins the symbols with spaces and removes the '</w>', so the pieces of "
                   "one word are separated too",
        "code": {"bpe-decode": '''
def decode(tokens):
    return " ".join(t.replace(EOW, "") for t in tokens if t != EOW)
'''},
    },
}
