"""Wrong solutions of the ``wordpiece`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks.
"""

WRONG = {
    # Part 1: count_stats
    "counts_not_weighted_by_word_count": {
        "mistake": "count_stats adds 1 per occurrence instead of the word's count",
        "code": {"wordpiece-count-stats": '''
def count_stats(words):
    symbol_counts, pair_counts = {}, {}
    for word in words:
        for symbol in word:
            symbol_counts[symbol] = symbol_counts.get(symbol, 0) + 1
        for pair in zip(word, word[1:]):
            pair_counts[pair] = pair_counts.get(pair, 0) + 1
    return symbol_counts, pair_counts
'''},
    },
    "distinct_symbols_and_pairs_per_word": {
        "mistake": "count_stats counts each distinct symbol and pair once per word (a set), "
                   "so repeated symbols and overlapping pairs count once",
        "code": {"wordpiece-count-stats": '''
def count_stats(words):
    symbol_counts, pair_counts = {}, {}
    for word, count in words.items():
        for symbol in set(word):
            symbol_counts[symbol] = symbol_counts.get(symbol, 0) + count
        for pair in set(zip(word, word[1:])):
            pair_counts[pair] = pair_counts.get(pair, 0) + count
    return symbol_counts, pair_counts
'''},
    },
    "symbols_counted_from_pairs": {
        "mistake": "count_stats counts only the symbols that start a pair, so the last symbol "
                   "of a word and words of one symbol are missed",
        "code": {"wordpiece-count-stats": '''
def count_stats(words):
    symbol_counts, pair_counts = {}, {}
    for word, count in words.items():
        for a, b in zip(word, word[1:]):
            symbol_counts[a] = symbol_counts.get(a, 0) + count
            pair_counts[(a, b)] = pair_counts.get((a, b), 0) + count
    return symbol_counts, pair_counts
'''},
    },
    "counter_instead_of_dict": {
        "mistake": "count_stats returns collections.Counter objects instead of plain dicts",
        "code": {"wordpiece-count-stats": '''
from collections import Counter

def count_stats(words):
    symbol_counts, pair_counts = Counter(), Counter()
    for word, count in words.items():
        for symbol in word:
            symbol_counts[symbol] += count
        for pair in zip(word, word[1:]):
            pair_counts[pair] += count
    return symbol_counts, pair_counts
'''},
    },
    # Part 2: pair_scores
    "float_scores": {
        "mistake": "pair_scores returns float scores instead of exact Fractions",
        "code": {"wordpiece-pair-scores": '''
def pair_scores(words):
    symbol_counts, pair_counts = count_stats(words)
    return {(a, b): c / (symbol_counts[a] * symbol_counts[b]) for (a, b), c in pair_counts.items()}
'''},
    },
    "probabilities_instead_of_counts": {
        "mistake": "pair_scores divides the relative frequencies p(ab) / (p(a) p(b)) instead "
                   "of the counts, which multiplies every score by a constant",
        "code": {"wordpiece-pair-scores": '''
def pair_scores(words):
    symbol_counts, pair_counts = count_stats(words)
    n_symbols = sum(symbol_counts.values())
    n_pairs = sum(pair_counts.values())
    return {(a, b): Fraction(c, n_pairs) / (Fraction(symbol_counts[a], n_symbols) * Fraction(symbol_counts[b], n_symbols))
            for (a, b), c in pair_counts.items()}
'''},
    },
    "symbol_counts_unweighted_in_score": {
        "mistake": "pair_scores weights the pair count by the words' counts but counts the "
                   "symbols once per distinct word",
        "code": {"wordpiece-pair-scores": '''
def pair_scores(words):
    _, pair_counts = count_stats(words)
    symbol_counts = {}
    for word in words:
        for symbol in word:
            symbol_counts[symbol] = symbol_counts.get(symbol, 0) + 1
    return {(a, b): Fraction(c, symbol_counts[a] * symbol_counts[b]) for (a, b), c in pair_counts.items()}
'''},
    },
    # Part 3: best_pair
    "ties_first_seen": {
        "mistake": "best_pair takes the first pair of highest score in the order of the dict "
                   "(max with key=scores.get), ignoring both tie rules",
        "code": {"wordpiece-best-pair": '''
def best_pair(words):
    scores = pair_scores(words)
    if not scores:
        return None
    return max(scores, key=scores.get)
'''},
    },
    "ties_without_count": {
        "mistake": "best_pair breaks ties of score by the greatest pair, skipping rule 2 (the "
                   "pair's count)",
        "code": {"wordpiece-best-pair": '''
def best_pair(words):
    scores = pair_scores(words)
    if not scores:
        return None
    return max(scores, key=lambda p: (scores[p], p))
'''},
    },
    "ties_smallest_pair": {
        "mistake": "best_pair breaks the last tie by the smallest pair (sorting and taking the "
                   "first) instead of the greatest",
        "code": {"wordpiece-best-pair": '''
def best_pair(words):
    symbol_counts, pair_counts = count_stats(words)
    if not pair_counts:
        return None
    scores = pair_scores(words)
    return sorted(pair_counts, key=lambda p: (-scores[p], -pair_counts[p], p))[0]
'''},
    },
    "ties_by_first_symbol_only": {
        "mistake": "best_pair breaks the last tie by the first symbol only, so two pairs that "
                   "start with the same symbol are left to the order of the dict",
        "code": {"wordpiece-best-pair": '''
def best_pair(words):
    symbol_counts, pair_counts = count_stats(words)
    if not pair_counts:
        return None
    scores = pair_scores(words)
    return max(pair_counts, key=lambda p: (scores[p], pair_counts[p], p[0]))
'''},
    },
    "count_before_score": {
        "mistake": "best_pair picks the most frequent pair first, as BPE does, and uses the "
                   "score only for ties",
        "code": {"wordpiece-best-pair": '''
def best_pair(words):
    symbol_counts, pair_counts = count_stats(words)
    if not pair_counts:
        return None
    scores = pair_scores(words)
    return max(pair_counts, key=lambda p: (pair_counts[p], scores[p], p))
'''},
    },
    "no_pair_raises": {
        "mistake": "best_pair calls max on an empty dict when there is no pair (ValueError) "
                   "instead of returning None",
        "code": {"wordpiece-best-pair": '''
def best_pair(words):
    symbol_counts, pair_counts = count_stats(words)
    scores = pair_scores(words)
    return max(pair_counts, key=lambda p: (scores[p], pair_counts[p], p))
'''},
    },
    # Part 4: merge_pair
    "merged_symbol_keeps_hashes": {
        "mistake": "merge_pair makes the merged symbol a + b, keeping the '##' of b "
                   "('h##u' instead of 'hu')",
        "code": {"wordpiece-merge-pair": '''
def merge_pair(words, pair):
    a, b = pair
    merged = {}
    for word, count in words.items():
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                out.append(a + b)
                i += 2
            else:
                out.append(word[i])
                i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + count
    return merged
'''},
    },
    "hashes_stripped_from_both": {
        "mistake": "merge_pair removes '##' from both symbols, so ('##g', '##s') makes 'gs' "
                   "instead of '##gs'",
        "code": {"wordpiece-merge-pair": '''
def merge_pair(words, pair):
    a, b = pair
    new = a.replace("##", "") + b.replace("##", "")
    merged = {}
    for word, count in words.items():
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                out.append(new)
                i += 2
            else:
                out.append(word[i])
                i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + count
    return merged
'''},
    },
    "lstrip_hashes": {
        "mistake": "merge_pair drops the prefix with b.lstrip('#'), which also removes a '#' "
                   "that is part of the symbol ('###' is '##' + '#')",
        "code": {"wordpiece-merge-pair": '''
def merge_pair(words, pair):
    a, b = pair
    new = a + b.lstrip("#")
    merged = {}
    for word, count in words.items():
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                out.append(new)
                i += 2
            else:
                out.append(word[i])
                i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + count
    return merged
'''},
    },
    "overlapping_merges": {
        "mistake": "merge_pair merges every occurrence even when it overlaps the previous one, "
                   "so ('a', '##a', '##a', '##a') gives ('a', '##aa', '##aa')",
        "code": {"wordpiece-merge-pair": '''
def merge_pair(words, pair):
    a, b = pair
    new = a + b[2:]
    merged = {}
    for word, count in words.items():
        out = []
        i = 0
        while i < len(word):
            if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                out.append(new)
            elif i == 0 or not (word[i - 1] == a and word[i] == b):
                out.append(word[i])
            i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + count
    return merged
'''},
    },
    "counts_overwritten": {
        "mistake": "merge_pair stores each new word's count with =, so when two words become "
                   "the same tuple the last count wins instead of their sum",
        "code": {"wordpiece-merge-pair": '''
def merge_pair(words, pair):
    a, b = pair
    merged = {}
    for word, count in words.items():
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                out.append(a + b[2:])
                i += 2
            else:
                out.append(word[i])
                i += 1
        merged[tuple(out)] = count
    return merged
'''},
    },
    "string_replace": {
        "mistake": "merge_pair joins each word with spaces and uses str.replace, which also "
                   "matches inside longer symbols ('##a ##b' contains 'a ##b')",
        "code": {"wordpiece-merge-pair": '''
def merge_pair(words, pair):
    a, b = pair
    merged = {}
    for word, count in words.items():
        new = tuple(" ".join(word).replace(a + " " + b, a + b[2:]).split(" "))
        merged[new] = merged.get(new, 0) + count
    return merged
'''},
    },
    # Part 5: encode_word
    "shortest_match_first": {
        "mistake": "encode_word takes the shortest piece that fits at each position instead "
                   "of the longest",
        "code": {"wordpiece-encode-word": '''
def encode_word(word, vocab, *, unk_token="[UNK]", max_input_chars_per_word=100):
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        for end in range(start + 1, len(word) + 1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return [unk_token]
        pieces.append(piece)
        start = end
    return pieces
'''},
    },
    "longest_match_from_the_right": {
        "mistake": "encode_word matches the longest piece at the end of the word first and "
                   "works backwards, instead of from the left",
        "code": {"wordpiece-encode-word": '''
def encode_word(word, vocab, *, unk_token="[UNK]", max_input_chars_per_word=100):
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    pieces, end = [], len(word)
    while end > 0:
        for start in range(0, end):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return [unk_token]
        pieces.append(piece)
        end = start
    return pieces[::-1]
'''},
    },
    "unk_per_character": {
        "mistake": "encode_word puts unk_token for the character it cannot match and goes on, "
                   "instead of making the whole word [unk_token]",
        "code": {"wordpiece-encode-word": '''
def encode_word(word, vocab, *, unk_token="[UNK]", max_input_chars_per_word=100):
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            pieces.append(unk_token)
            start += 1
    return pieces
'''},
    },
    "no_continuation_prefix": {
        "mistake": "encode_word looks up word[start:end] without '##' after the first piece",
        "code": {"wordpiece-encode-word": '''
def encode_word(word, vocab, *, unk_token="[UNK]", max_input_chars_per_word=100):
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            if word[start:end] in vocab:
                break
        else:
            return [unk_token]
        pieces.append(word[start:end] if start == 0 else "##" + word[start:end])
        start = end
    return pieces
'''},
    },
    "length_limit_off_by_one": {
        "mistake": "encode_word rejects a word of exactly max_input_chars_per_word characters "
                   "(>= instead of >)",
        "code": {"wordpiece-encode-word": '''
def encode_word(word, vocab, *, unk_token="[UNK]", max_input_chars_per_word=100):
    if len(word) >= max_input_chars_per_word:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return [unk_token]
        pieces.append(piece)
        start = end
    return pieces
'''},
    },
    "unk_token_hardcoded": {
        "mistake": "encode_word returns '[UNK]' instead of the unk_token it is given",
        "code": {"wordpiece-encode-word": '''
def encode_word(word, vocab, *, unk_token="[UNK]", max_input_chars_per_word=100):
    if len(word) > max_input_chars_per_word:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
        else:
            return ["[UNK]"]
        pieces.append(piece)
        start = end
    return pieces
'''},
    },
    "backtracking": {
        "mistake": "encode_word tries shorter pieces when the longest one leads to a dead end "
                   "(a search that backtracks), so it finds splits that BERT's greedy "
                   "encoder does not",
        "code": {"wordpiece-encode-word": '''
def encode_word(word, vocab, *, unk_token="[UNK]", max_input_chars_per_word=100):
    if len(word) > max_input_chars_per_word:
        return [unk_token]

    def split(start):
        if start == len(word):
            return []
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                rest = split(end)
                if rest is not None:
                    return [piece] + rest
        return None

    pieces = split(0)
    return [unk_token] if pieces is None else pieces
'''},
    },
}
