"""Wrong solutions of the ``unigram`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks.
"""

WRONG = {
    # Part 1: viterbi
    "viterbi_greedy_longest": {
        "mistake": "viterbi takes the longest piece at each position from the left, as "
                   "WordPiece does, instead of the segmentation of highest total score",
        "code": {"unigram-viterbi": '''
def viterbi(text, pieces):
    segmentation, score, start = [], 0.0, 0
    while start < len(text):
        for end in range(len(text), start, -1):
            if text[start:end] in pieces:
                break
        segmentation.append(text[start:end])
        score += pieces[text[start:end]]
        start = end
    return segmentation, score
'''},
    },
    "viterbi_fewest_pieces": {
        "mistake": "viterbi minimises the number of pieces and uses the score only to break "
                   "ties, instead of maximising the score",
        "code": {"unigram-viterbi": '''
def viterbi(text, pieces):
    n = len(text)
    best = [(0, 0.0)] + [None] * n   # (number of pieces, -score): smaller is better
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if text[i:j] in pieces and best[i] is not None:
                candidate = (best[i][0] + 1, best[i][1] - pieces[text[i:j]])
                if best[j] is None or candidate < best[j]:
                    best[j], start[j] = candidate, i
    segmentation, j = [], n
    while j > 0:
        segmentation.append(text[start[j]:j])
        j = start[j]
    return segmentation[::-1], -best[n][1] + 0.0
'''},
    },
    "viterbi_ties_fewest_pieces_overall": {
        "mistake": "viterbi breaks ties of score by the fewest pieces in the whole "
                   "segmentation, instead of by the earliest start of the last piece at "
                   "every position",
        "code": {"unigram-viterbi": '''
def viterbi(text, pieces):
    n = len(text)
    best = [(0.0, 0)] + [None] * n   # (score, -number of pieces)
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if text[i:j] in pieces and best[i] is not None:
                candidate = (best[i][0] + pieces[text[i:j]], best[i][1] - 1)
                if best[j] is None or candidate > best[j]:
                    best[j], start[j] = candidate, i
    segmentation, j = [], n
    while j > 0:
        segmentation.append(text[start[j]:j])
        j = start[j]
    return segmentation[::-1], best[n][0]
'''},
    },
    "viterbi_ties_latest_start": {
        "mistake": "viterbi lets a later candidate replace an equal one (>= instead of >), so "
                   "on a tie the last piece that starts latest wins",
        "code": {"unigram-viterbi": '''
def viterbi(text, pieces):
    n = len(text)
    best = [0.0] + [None] * n
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if text[i:j] in pieces and best[i] is not None:
                score = best[i] + pieces[text[i:j]]
                if best[j] is None or score >= best[j]:
                    best[j], start[j] = score, i
    segmentation, j = [], n
    while j > 0:
        segmentation.append(text[start[j]:j])
        j = start[j]
    return segmentation[::-1], best[n]
'''},
    },
    "viterbi_lowest_score": {
        "mistake": "viterbi treats the log-probabilities as costs and keeps the lowest total "
                   "instead of the highest",
        "code": {"unigram-viterbi": '''
def viterbi(text, pieces):
    n = len(text)
    best = [0.0] + [None] * n
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if text[i:j] in pieces and best[i] is not None:
                score = best[i] + pieces[text[i:j]]
                if best[j] is None or score < best[j]:
                    best[j], start[j] = score, i
    segmentation, j = [], n
    while j > 0:
        segmentation.append(text[start[j]:j])
        j = start[j]
    return segmentation[::-1], best[n]
'''},
    },
    "viterbi_int_score_for_empty_text": {
        "mistake": "viterbi starts from best[0] = 0, so the empty text gives the int 0, not 0.0",
        "code": {"unigram-viterbi": '''
def viterbi(text, pieces):
    n = len(text)
    best = [0] + [None] * n
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if text[i:j] in pieces and best[i] is not None:
                score = best[i] + pieces[text[i:j]]
                if best[j] is None or score > best[j]:
                    best[j], start[j] = score, i
    segmentation, j = [], n
    while j > 0:
        segmentation.append(text[start[j]:j])
        j = start[j]
    return segmentation[::-1], best[n]
'''},
    },
    # Part 2: forward
    "forward_max_instead_of_sum": {
        "mistake": "forward takes the maximum over the segmentations (Viterbi's score) "
                   "instead of log-sum-exp",
        "code": {"unigram-forward": '''
def forward(text, pieces):
    alpha = [0.0] + [-math.inf] * len(text)
    for j in range(1, len(text) + 1):
        for i in range(j):
            if text[i:j] in pieces:
                alpha[j] = max(alpha[j], alpha[i] + pieces[text[i:j]])
    return alpha[len(text)]
'''},
    },
    "forward_probabilities_underflow": {
        "mistake": "forward adds probabilities, not their logs, which underflow to 0.0 on a "
                   "long text",
        "code": {"unigram-forward": '''
def forward(text, pieces):
    prob = [1.0] + [0.0] * len(text)
    for j in range(1, len(text) + 1):
        prob[j] = sum(prob[i] * math.exp(pieces[text[i:j]]) for i in range(j) if text[i:j] in pieces)
    return math.log(prob[len(text)])
'''},
    },
    "forward_logsumexp_without_max": {
        "mistake": "forward computes log(sum(exp(x))) without subtracting the maximum first, "
                   "so the sum underflows to 0.0 on a long text",
        "code": {"unigram-forward": '''
def forward(text, pieces):
    alpha = [0.0] + [None] * len(text)
    for j in range(1, len(text) + 1):
        alpha[j] = math.log(sum(math.exp(alpha[i] + pieces[text[i:j]])
                                for i in range(j) if text[i:j] in pieces))
    return alpha[len(text)]
'''},
    },
    "forward_adds_logs": {
        "mistake": "forward adds the log-probabilities of the segmentations ending at each "
                   "position (a sum of logs) instead of the log of the sum of their "
                   "probabilities",
        "code": {"unigram-forward": '''
def forward(text, pieces):
    alpha = [0.0] + [0.0] * len(text)
    for j in range(1, len(text) + 1):
        alpha[j] = sum(alpha[i] + pieces[text[i:j]] for i in range(j) if text[i:j] in pieces)
    return alpha[len(text)]
'''},
    },
    # Part 3: expected_counts
    "counts_of_the_best_segmentation": {
        "mistake": "expected_counts counts the pieces of the Viterbi segmentation only (hard "
                   "EM) instead of averaging over all segmentations",
        "code": {"unigram-expected-counts": '''
def expected_counts(corpus, pieces):
    counts = dict.fromkeys(pieces, 0.0)
    for word, count in corpus.items():
        for piece in viterbi(word, pieces)[0]:
            counts[piece] += count
    return counts
'''},
    },
    "counts_not_weighted_by_word_count": {
        "mistake": "expected_counts adds each word's expected counts once, ignoring how often "
                   "the word occurs",
        "code": {"unigram-expected-counts": '''
def expected_counts(corpus, pieces):
    def logsumexp(xs):
        m = max(xs)
        return m + math.log(sum(math.exp(x - m) for x in xs))

    counts = dict.fromkeys(pieces, 0.0)
    for word in corpus:
        n = len(word)
        alpha = [0.0] + [-math.inf] * n
        for j in range(1, n + 1):
            alpha[j] = logsumexp([alpha[i] + pieces[word[i:j]] for i in range(j) if word[i:j] in pieces])
        beta = [-math.inf] * n + [0.0]
        for i in range(n - 1, -1, -1):
            beta[i] = logsumexp([pieces[word[i:j]] + beta[j] for j in range(i + 1, n + 1) if word[i:j] in pieces])
        for i in range(n):
            for j in range(i + 1, n + 1):
                if word[i:j] in pieces:
                    counts[word[i:j]] += math.exp(alpha[i] + pieces[word[i:j]] + beta[j] - alpha[n])
    return counts
'''},
    },
    "counts_without_posterior_normalisation": {
        "mistake": "expected_counts adds exp(alpha[i] + score + beta[j]), the probability of "
                   "the segmentations that use the piece, without dividing by the word's "
                   "probability (subtracting alpha[n])",
        "code": {"unigram-expected-counts": '''
def expected_counts(corpus, pieces):
    def logsumexp(xs):
        m = max(xs)
        return m + math.log(sum(math.exp(x - m) for x in xs))

    counts = dict.fromkeys(pieces, 0.0)
    for word, count in corpus.items():
        n = len(word)
        alpha = [0.0] + [-math.inf] * n
        for j in range(1, n + 1):
            alpha[j] = logsumexp([alpha[i] + pieces[word[i:j]] for i in range(j) if word[i:j] in pieces])
        beta = [-math.inf] * n + [0.0]
        for i in range(n - 1, -1, -1):
            beta[i] = logsumexp([pieces[word[i:j]] + beta[j] for j in range(i + 1, n + 1) if word[i:j] in pieces])
        for i in range(n):
            for j in range(i + 1, n + 1):
                if word[i:j] in pieces:
                    counts[word[i:j]] += count * math.exp(alpha[i] + pieces[word[i:j]] + beta[j])
    return counts
'''},
    },
    "counts_only_for_used_pieces": {
        "mistake": "expected_counts leaves out the pieces that no word can use instead of "
                   "giving them 0.0",
        "code": {"unigram-expected-counts": '''
def expected_counts(corpus, pieces):
    def logsumexp(xs):
        m = max(xs)
        return m + math.log(sum(math.exp(x - m) for x in xs))

    counts = {}
    for word, count in corpus.items():
        n = len(word)
        alpha = [0.0] + [-math.inf] * n
        for j in range(1, n + 1):
            alpha[j] = logsumexp([alpha[i] + pieces[word[i:j]] for i in range(j) if word[i:j] in pieces])
        beta = [-math.inf] * n + [0.0]
        for i in range(n - 1, -1, -1):
            beta[i] = logsumexp([pieces[word[i:j]] + beta[j] for j in range(i + 1, n + 1) if word[i:j] in pieces])
        for i in range(n):
            for j in range(i + 1, n + 1):
                piece = word[i:j]
                if piece in pieces:
                    counts[piece] = counts.get(piece, 0.0) + count * math.exp(alpha[i] + pieces[piece] + beta[j] - alpha[n])
    return counts
'''},
    },
    "counts_once_per_word": {
        "mistake": "expected_counts adds, for each piece, the probability that a word uses it "
                   "at its first place only, so a piece used twice in a segmentation "
                   "counts once",
        "code": {"unigram-expected-counts": '''
def expected_counts(corpus, pieces):
    def logsumexp(xs):
        m = max(xs)
        return m + math.log(sum(math.exp(x - m) for x in xs))

    counts = dict.fromkeys(pieces, 0.0)
    for word, count in corpus.items():
        n = len(word)
        alpha = [0.0] + [-math.inf] * n
        for j in range(1, n + 1):
            alpha[j] = logsumexp([alpha[i] + pieces[word[i:j]] for i in range(j) if word[i:j] in pieces])
        beta = [-math.inf] * n + [0.0]
        for i in range(n - 1, -1, -1):
            beta[i] = logsumexp([pieces[word[i:j]] + beta[j] for j in range(i + 1, n + 1) if word[i:j] in pieces])
        seen = set()
        for i in range(n):
            for j in range(i + 1, n + 1):
                piece = word[i:j]
                if piece in pieces and piece not in seen:
                    seen.add(piece)
                    counts[piece] += count * math.exp(alpha[i] + pieces[piece] + beta[j] - alpha[n])
    return counts
'''},
    },
    # Part 4: em_step
    "em_log_of_counts": {
        "mistake": "em_step returns log(count) without dividing by the total",
        "code": {"unigram-em-step": '''
def em_step(corpus, pieces):
    counts = expected_counts(corpus, pieces)
    return {p: math.log(c) for p, c in counts.items() if c > 0}
'''},
    },
    "em_divides_by_characters": {
        "mistake": "em_step divides by the number of characters of the corpus instead of the "
                   "sum of the expected counts",
        "code": {"unigram-em-step": '''
def em_step(corpus, pieces):
    counts = expected_counts(corpus, pieces)
    total = sum(len(word) * count for word, count in corpus.items())
    return {p: math.log(c / total) for p, c in counts.items() if c > 0}
'''},
    },
    "em_drops_rare_pieces": {
        "mistake": "em_step also drops the pieces expected fewer than 0.5 times, as "
                   "SentencePiece does, where the notebook drops only those expected 0 times",
        "code": {"unigram-em-step": '''
def em_step(corpus, pieces):
    counts = expected_counts(corpus, pieces)
    total = sum(counts.values())
    return {p: math.log(c / total) for p, c in counts.items() if c >= 0.5}
'''},
    },
    "em_keeps_unused_pieces": {
        "mistake": "em_step keeps the pieces expected 0 times, with -inf",
        "code": {"unigram-em-step": '''
def em_step(corpus, pieces):
    counts = expected_counts(corpus, pieces)
    total = sum(counts.values())
    return {p: math.log(c / total) if c > 0 else -math.inf for p, c in counts.items()}
'''},
    },
    "em_numpy_floats": {
        "mistake": "em_step returns numpy.float64 values instead of Python floats",
        "code": {"unigram-em-step": '''
import numpy as np

def em_step(corpus, pieces):
    counts = expected_counts(corpus, pieces)
    total = sum(counts.values())
    return {p: np.log(c / total) for p, c in counts.items() if c > 0}
'''},
    },
    # Part 5: prune
    "prune_by_score": {
        "mistake": "prune keeps the pieces of highest log-probability instead of those whose "
                   "removal costs the most likelihood",
        "code": {"unigram-prune": '''
def prune(corpus, pieces, keep):
    multi = [p for p in pieces if len(p) > 1]
    kept = set(sorted(multi, key=lambda p: (-pieces[p], p))[:keep])
    return {p: s for p, s in pieces.items() if len(p) == 1 or p in kept}
'''},
    },
    "prune_by_usage": {
        "mistake": "prune keeps the pieces used most often in the best segmentations instead "
                   "of those whose removal lowers the likelihood most",
        "code": {"unigram-prune": '''
def prune(corpus, pieces, keep):
    used = {p: 0 for p in pieces if len(p) > 1}
    for word, count in corpus.items():
        for piece in viterbi(word, pieces)[0]:
            if piece in used:
                used[piece] += count
    kept = set(sorted(used, key=lambda p: (-used[p], p))[:keep])
    return {p: s for p, s in pieces.items() if len(p) == 1 or p in kept}
'''},
    },
    "prune_keeps_lowest_loss": {
        "mistake": "prune sorts the losses in increasing order and keeps the pieces the corpus "
                   "misses least",
        "code": {"unigram-prune": '''
def prune(corpus, pieces, keep):
    def likelihood(table):
        total = 0.0
        for word, count in corpus.items():
            total += count * viterbi(word, table)[1]
        return total

    base = likelihood(pieces)
    loss = {p: base - likelihood({q: s for q, s in pieces.items() if q != p}) for p in pieces if len(p) > 1}
    kept = set(sorted(loss, key=lambda p: (loss[p], p))[:keep])
    return {p: s for p, s in pieces.items() if len(p) == 1 or p in kept}
'''},
    },
    "prune_ties_in_dict_order": {
        "mistake": "prune breaks ties of loss in the order of the pieces dict (a stable sort "
                   "by loss alone) instead of in code-point order",
        "code": {"unigram-prune": '''
def prune(corpus, pieces, keep):
    def likelihood(table):
        total = 0.0
        for word, count in corpus.items():
            total += count * viterbi(word, table)[1]
        return total

    base = likelihood(pieces)
    loss = {p: base - likelihood({q: s for q, s in pieces.items() if q != p}) for p in pieces if len(p) > 1}
    kept = set(sorted(loss, key=lambda p: -loss[p])[:keep])
    return {p: s for p, s in pieces.items() if len(p) == 1 or p in kept}
'''},
    },
    "prune_counts_characters_in_keep": {
        "mistake": "prune ranks the one-character pieces with the others, so they use up part "
                   "of keep (or are dropped)",
        "code": {"unigram-prune": '''
def prune(corpus, pieces, keep):
    def likelihood(table):
        total = 0.0
        for word, count in corpus.items():
            total += count * viterbi(word, table)[1]
        return total

    base = likelihood(pieces)
    loss = {}
    for p in pieces:
        rest = {q: s for q, s in pieces.items() if q != p}
        if all(ch in rest for word in corpus for ch in word):
            loss[p] = base - likelihood(rest)
        else:
            loss[p] = math.inf  # needed
    kept = set(sorted(loss, key=lambda p: (-loss[p], p))[:keep])
    return {p: s for p, s in pieces.items() if p in kept}
'''},
    },
    "prune_loss_not_weighted": {
        "mistake": "prune measures the likelihood without the words' counts",
        "code": {"unigram-prune": '''
def prune(corpus, pieces, keep):
    def likelihood(table):
        return sum(viterbi(word, table)[1] for word in corpus)

    base = likelihood(pieces)
    loss = {p: base - likelihood({q: s for q, s in pieces.items() if q != p}) for p in pieces if len(p) > 1}
    kept = set(sorted(loss, key=lambda p: (-loss[p], p))[:keep])
    return {p: s for p, s in pieces.items() if len(p) == 1 or p in kept}
'''},
    },
    "prune_loss_by_forward": {
        "mistake": "prune measures the likelihood with forward (all segmentations) instead of "
                   "the best segmentations, as the notebook asks",
        "code": {"unigram-prune": '''
def prune(corpus, pieces, keep):
    def likelihood(table):
        total = 0.0
        for word, count in corpus.items():
            total += count * forward(word, table)
        return total

    base = likelihood(pieces)
    loss = {p: base - likelihood({q: s for q, s in pieces.items() if q != p}) for p in pieces if len(p) > 1}
    kept = set(sorted(loss, key=lambda p: (-loss[p], p))[:keep])
    return {p: s for p, s in pieces.items() if len(p) == 1 or p in kept}
'''},
    },
}
