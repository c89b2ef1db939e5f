"""The end-to-end grading tests' cases, as data keyed by assignment id: the submissions
each assignment's notebook is graded on (the instructor's solution, the stub, and
partial ones made of the catalog's classic mistakes, ``tests/wrong_solutions/<a>.py``, or
of the mistakes below), their exact (score, status), the cells each loses, and what the
feedback must say. ``tests/e2e.py`` runs them; ``RUNS`` says which assignments one
``grade.py`` run grades together, on one copy of the course.

A submission is ``STUB`` (the released notebook as it is) or a :class:`Sub`: the
instructor's solution, with the solution cells of ``code`` (by grade_id) or of the
catalog's mistakes ``wrong`` replaced, those of ``drop`` left as released, and the code of
``append`` added after a cell's solution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grading_helpers import EDGES_BREADTH, cells

STUB = "stub"


@dataclass(frozen=True)
class Sub:
    code: dict[str, str] = field(default_factory=dict)
    wrong: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    append: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Message:
    """A message of the feedback of ``student``: the one at ``index`` among the page's
    AssertionError (and NotImplementedError) messages, or any (``index=None``), of which
    every check holds: ``("==", text)``, ``("startswith", text)`` or ``("in", text)``."""

    student: str
    index: int | None
    checks: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Case:
    """One assignment's end-to-end case."""

    submissions: dict[str, Sub | str]
    expected: dict[str, tuple[float | None, str]]  # student -> (score, status in the report)
    lost: dict[str, set[str]]  # student -> the cells lost, each in full
    messages: tuple[Message, ...] = ()
    one_message_per_lost_cell: tuple[str, ...] = ()  # the students whose feedback has exactly that


@dataclass(frozen=True)
class Stage:
    """One ``grade.py`` run: these assignments, with these options; ``zip`` submissions are
    written as an LMS's download, ``downloaded/<a>/archive/<student>_<a>.ipynb``."""

    assignments: tuple[str, ...]
    options: tuple[str, ...] = ()
    zip: tuple[str, ...] = ()


@dataclass(frozen=True)
class Run:
    """Stages graded one after the other on one copy of the course (the last report covers
    them all). ``minutes``: measured (``pytest --durations``, 2 cores at a load average of
    4 to 6), to spread the runs over the files."""

    stages: tuple[Stage, ...]
    minutes: float
    returncode: int = 0


CHARS_WRONG_ENCODE = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    return [vocab[ch] for ch in text if ch in vocab]  # drops unknown characters
'''
CHARS_UNK_EAGER = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    if unk_token not in vocab:  # raises even when every character is known
        raise ValueError(f"{unk_token!r} is not in the vocabulary")
    return [vocab.get(ch, vocab[unk_token]) for ch in text]
'''
CHARS_LOOKALIKE_DECODE = '''
class Anything:
    def __eq__(self, other):
        return True

def decode_chars(ids, vocab):
    return Anything()  # equal to everything, but not a str
'''
CHARS_DIES = '''
import os
os._exit(1)
'''
CHARS_LOOPS = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    while True:
        pass
'''
CHARS_STUCK = '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    return sum(range(10**18))  # a loop in C: an interrupt cannot stop it
'''
CHARS_PRINTS = '''
print("x" * 1_000_000)          # one line of 1 MB (LimitOutput keeps 100,000 characters)
for i in range(30_000):         # and 30,000 lines (it keeps 1,000)
    print(i)
'''
WORDS_COUNTER = '''
from collections import Counter

def count_words(texts, *, lowercase=False):
    if isinstance(texts, str):
        texts = [texts]
    return Counter(w for t in texts for w in split_words(t, lowercase=lowercase))
'''
WORDS_TIES_BY_ORDER = '''
def build_word_vocab(counts, *, vocab_size=None, min_freq=1, special_tokens=DEFAULT_SPECIAL_TOKENS):
    vocab = {t: i for i, t in enumerate(special_tokens)}
    words = sorted((w for w in counts if counts[w] >= min_freq and w not in vocab),
                   key=lambda w: -counts[w])  # ties stay in the order of counts
    if vocab_size is not None:
        words = words[: vocab_size - len(special_tokens)]
    for w in words:
        vocab[w] = len(vocab)
    return vocab
'''
WORDS_NUMPY_FLOAT = '''
import numpy as np

def oov_rate(text, vocab, *, lowercase=False):
    words = split_words(text, lowercase=lowercase)
    return np.float64(sum(w not in vocab for w in words) / len(words)) if words else np.float64(0)
'''


BPE_COUNTER = '''
from collections import Counter

def count_pairs(words):
    counts = Counter()
    for word, count in words.items():
        for pair in zip(word, word[1:]):
            counts[pair] += count
    return counts  # a Counter, not a dict
'''
BPE_TIES_BY_ORDER = '''
def train_bpe(word_counts, n_merges):
    words = {(*word, "</w>"): count for word, count in word_counts.items()}
    merges = []
    for _ in range(n_merges):
        counts = count_pairs(words)
        if not counts:
            break
        pair = max(counts, key=counts.get)  # ties: the pair counted first wins
        merges.append(pair)
        words = {tuple(merge_pair(w, pair)): c for w, c in words.items()}
    return merges
'''
BPE_OVERLAPPING = '''
def merge_pair(word, pair):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == tuple(pair):
            out.append(word[i] + word[i + 1])
            if i + 2 < len(word) and (word[i + 1], word[i + 2]) == tuple(pair):
                i += 1  # overlapping occurrences merged too: a a a gives aa aa
            else:
                i += 2
        else:
            out.append(word[i])
            i += 1
    return out
'''
BYTELEVEL_BYTES = '''
def utf8_encode(text):
    return text.encode("utf-8")  # bytes, not a list
'''
BYTELEVEL_RIGHTMOST = '''
def encode(text, ranks, special_tokens):
    ids = []
    for chunk, is_special in split_special(text, special_tokens):
        if is_special:
            ids.append(special_tokens[chunk])
            continue
        for piece in pretokenize(chunk):
            parts = [bytes([b]) for b in piece.encode("utf-8")]
            while len(parts) > 1:
                best = None
                for i in range(len(parts) - 1):
                    rank = ranks.get(parts[i] + parts[i + 1])
                    if rank is not None and (best is None or rank <= best[0]):  # <=: the rightmost
                        best = (rank, i)
                if best is None:
                    break
                i = best[1]
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
            ids.extend(ranks[p] for p in parts)
    return ids
'''


WORDPIECE_FLOAT_SCORES = '''
def pair_scores(words):
    symbol_counts, pair_counts = count_stats(words)
    return {p: c / (symbol_counts[p[0]] * symbol_counts[p[1]]) for p, c in pair_counts.items()}  # floats
'''
WORDPIECE_TIES_WITHOUT_COUNT = '''
def best_pair(words):
    symbol_counts, pair_counts = count_stats(words)
    if not pair_counts:
        return None
    score = {p: Fraction(c, symbol_counts[p[0]] * symbol_counts[p[1]]) for p, c in pair_counts.items()}
    return max(score, key=lambda p: (score[p], p))  # forgets rule 2: the pair's count
'''
UNIGRAM_FEWEST_PIECES = '''
def viterbi(text, pieces):
    # Ties: the segmentation with the fewest pieces overall, not the rule at every position.
    n = len(text)
    best = [(0.0, 0)] + [None] * n
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if text[i:j] in pieces:
                candidate = (best[i][0] + pieces[text[i:j]], best[i][1] - 1)
                if best[j] is None or candidate > best[j]:
                    best[j], start[j] = candidate, i
    segmentation, j = [], n
    while j > 0:
        segmentation.append(text[start[j]:j])
        j = start[j]
    return segmentation[::-1], best[n][0]
'''




CASES: dict[str, Case] = {
    "chars": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Part 1 and 4 right (3 + 2), part 2 wrong, part 3 a look-alike.
            "partial": Sub({"chars-encode": CHARS_WRONG_ENCODE, "chars-decode": CHARS_LOOKALIKE_DECODE}),
            # Partial credit inside a part: encode_chars right on the examples, wrong on the
            # edge case of a vocabulary without <unk> that knows every character.
            "edge": Sub({"chars-encode": CHARS_UNK_EAGER}),
            # Parts 1 and 2 right (3 + 3), then the kernel dies in part 3's cell.
            "dead": Sub({"chars-decode": CHARS_DIES}),
            # Part 2's tests time out (interrupted); parts 1, 3, 4 right (3 + 2 + 2).
            "loop": Sub({"chars-encode": CHARS_LOOPS}),
            # Part 2's tests time out and cannot be interrupted: only part 1 (3).
            "stuck": Sub({"chars-encode": CHARS_STUCK}),
            # Everything right, with megabytes of output.
            "print": Sub(append={"chars-build-vocab": CHARS_PRINTS}),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (5, "graded"),
                  "edge": (8, "graded"), "dead": (6, "kernel died"), "loop": (7, "timed out"),
                  "stuck": (3, "kernel died"), "print": (10, "output truncated"),
                  # written by e2e.chars_misfiled: a notebook under another name (nbgrader
                  # knows none), one that is not JSON, and a folder without notebooks
                  "renamed": (0, "failed"), "corrupt": (0, "failed"), "empty": (None, "missing from gradebook")},
        lost={"full": set(), "partial": cells("chars", "encode", "decode"),
              "edge": cells("chars", "encode", kinds=EDGES_BREADTH), "dead": cells("chars", "decode", "unk-rate"),
              "loop": cells("chars", "encode"), "stuck": cells("chars", "encode", "decode", "unk-rate")},
    ),
    "words": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Parts 1 and 4 right (2 + 2); a Counter (equal to the dicts the visible edge
            # cases compare with, but the hidden checks of those calls want a dict), ties in
            # dict order, a NumPy float.
            "partial": Sub({"words-count": WORDS_COUNTER, "words-build-vocab": WORDS_TIES_BY_ORDER,
                            "words-oov-rate": WORDS_NUMPY_FLOAT}),
            # An id with underscores, downloaded as j_smith_words.ipynb: student j_smith, not j.
            "j_smith": Sub(),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (4, "graded"),
                  "j_smith": (10, "graded")},
        lost={"partial": cells("words", "count", "build-vocab", "oov-rate")},
    ),
    "bpe": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Parts 2, 4 and 5 right (2 + 2 + 1): a Counter (equal to the dicts of the
            # visible edge cases, but not the type the hidden checks want), ties in dict order.
            "partial": Sub({"bpe-count-pairs": BPE_COUNTER, "bpe-train": BPE_TIES_BY_ORDER}),
            # Overlapping merges: all of part 2, and the edge cases and breadth of the two
            # parts that call merge_pair (3 and 4), whose basic examples hold no run like
            # a a a: parts 1 and 5 (2 + 1), and the basic cells of parts 3 and 4 (1 + 1).
            "overlap": Sub({"bpe-merge-pair": BPE_OVERLAPPING}),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (5, "graded"),
                  "overlap": (5, "graded")},
        lost={"full": set(), "partial": cells("bpe", "count-pairs", "train"),
              "overlap": cells("bpe", "merge-pair") | cells("bpe", "train", "tokenize", kinds=EDGES_BREADTH)},
        messages=(
            Message("partial", 0, (("==", "count_pairs must return a dict, not a Counter"),)),
            Message("partial", 3, (("startswith", "train_bpe(EXAMPLE_WORDS, 5) began with ('e', 's')"),
                                   ("in", "the tie rule takes the greatest pair, ('t', '</w>')"))),
            Message("partial", 4, (("in", "max(counts, key=counts.get)"),)),  # the edge cell names the mistake
            Message("overlap", 0, (("==", "left to right, without overlap: ['aa', 'a']"),)),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "bytelevel": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Parts 2, 3 and 4 right (1 + 2 + 2) and part 5's basic cell (1): bytes for a
            # list, and equal ranks joined rightmost first, which the task's examples do not
            # show and part 5's edge cases and breadth catch.
            "partial": Sub({"bytelevel-utf8-encode": BYTELEVEL_BYTES, "bytelevel-encode": BYTELEVEL_RIGHTMOST}),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (6, "graded")},
        lost={"full": set(),
              "partial": cells("bytelevel", "utf8-encode") | cells("bytelevel", "encode", kinds=EDGES_BREADTH)},
        messages=(
            Message("partial", 0, (("==", "utf8_encode must return a list, not a bytes"),)),
            # The rightmost-first encoder, caught by a visible test that states the rule.
            Message("partial", 3, (("startswith", "encode('aaa', ranks, {}) with aa (256) returned [97, 256], "
                                                  "expected [256, 97]"), ("in", "the leftmost goes first"))),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "wordpiece": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Floats for Fractions (all of part 2), ties without rule 2 (part 3's edge cases
            # and breadth), a search that backtracks (part 5's basic and breadth cells):
            # parts 1 and 4 (2 + 2), part 3's basic cell (1) and part 5's edge cases (0.5).
            "partial": Sub({"wordpiece-pair-scores": WORDPIECE_FLOAT_SCORES,
                            "wordpiece-best-pair": WORDPIECE_TIES_WITHOUT_COUNT}, wrong=("backtracking",)),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (5.5, "graded")},
        lost={"full": set(),
              "partial": {"wordpiece-pair-scores-basic", "wordpiece-pair-scores-edges",
                          "wordpiece-pair-scores-breadth", "wordpiece-best-pair-edges",
                          "wordpiece-best-pair-breadth", "wordpiece-encode-word-basic",
                          "wordpiece-encode-word-breadth"}},
        messages=(
            Message("partial", 0, (("==", "each score must be a fractions.Fraction, not a float"),)),
            Message("partial", 3, (("startswith", "best_pair({('p', '##u'): 1, ('h', '##u'): 3}): expected ('h', '##u')"),
                                   ("in", "the pair that occurs most often wins"))),
            Message("partial", 5, (("startswith", "encode_word('abcd'"), ("in", "greedy: ab, ##c, then nothing for d"))),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "unigram": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Another tie rule (part 1's edge cases and breadth), probabilities that underflow
            # on long texts (part 2's edge cases and breadth), NumPy floats (all of part 4):
            # parts 3 and 5 (3 + 2) and the basic cells of parts 1 and 2 (1 + 1). prune only
            # needs viterbi's scores, which are right.
            "partial": Sub({"unigram-viterbi": UNIGRAM_FEWEST_PIECES},
                           wrong=("forward_probabilities_underflow", "em_numpy_floats")),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (7, "graded")},
        lost={"full": set(),
              "partial": {"unigram-viterbi-edges", "unigram-viterbi-breadth", "unigram-forward-edges",
                          "unigram-forward-breadth", "unigram-em-step-basic", "unigram-em-step-edges",
                          "unigram-em-step-breadth"}},
        messages=(
            Message("partial", 0, (("startswith", "viterbi('abcde'"),)),
            Message("partial", 2, (("startswith", "forward("), ("in", "log-sum-exp"))),
            Message("partial", 4, (("startswith", "the log-probabilities must be floats"),)),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "practice": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # A mask per UTF-8 byte (right on the ASCII examples: part 1's edge cases and
            # breadth lose), masks made by comparing ids with pad_id (the examples pad with an
            # id no row holds: part 2's edge cases and breadth lose), the line-by-line streamer
            # (all of part 4), a negative budget accepted (part 5's edge cases only): part 3
            # (2), the basic cells of parts 1, 2 and 5 (1 + 1 + 1) and part 5's breadth (0.5).
            "partial": Sub(wrong=("chat_mask_per_byte", "pad_mask_from_pad_id", "stream_line_by_line",
                                  "budget_negative_accepted")),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (5.5, "graded")},
        lost={"full": set(),
              "partial": (cells("practice", "chat", "pad", kinds=EDGES_BREADTH) | cells("practice", "stream")
                          | {"practice-budget-edges"})},
        messages=(
            Message("partial", 0, (("in", "one per character (not per UTF-8 byte)"),)),
            Message("partial", 2, (("in", "make the mask from the row's length, not by comparing ids with pad_id"),)),
            Message("partial", 4, (("in", "encoding line by line gives 'a', '\\n', '\\n', '\\n', 'b', one id too many"),)),
            Message("partial", 7, (("startswith", "truncate_to_budget('the token', -1, encode) returned ''"),)),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "batches": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # The pad id for the mask (Part 1's basic and breadth cells, 1 + 1), -1 on the
            # pads (all of Part 2, 2), the padding kept as labels (Part 4's edge cases and
            # breadth, 0.5 + 0.5): 10 - 2 - 2 - 1 = 5.
            "partial": Sub(wrong=("labels_by_pad_id", "positions_pads_minus_one", "boundary_padding_kept")),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (5, "graded")},
        lost={"full": set(),
              "partial": {"batches-labels-basic", "batches-labels-breadth", "batches-positions-basic",
                          "batches-positions-edges", "batches-positions-breadth", "batches-boundary-edges",
                          "batches-boundary-breadth"}},
        messages=(
            Message("partial", 0, (("in", "Find the padding with the attention mask"),)),
            Message("partial", 2, (("in", "a pad gets 1, as in Hugging Face"),)),
            Message("partial", 5, (("in", "padding"), ("in", "-100"))),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "languages": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Digits grouped from the left (all of part 2: 2 points), the pattern ignored for
            # GPT2_PATTERN_RE (part 3's edge cases: 1), a letter decoded token by token (part 4's
            # edge cases and breadth: 0.5 + 0.5): 6 points of 10.
            "partial": Sub(wrong=("digits_from_the_left", "unreachable_global_pattern", "letter_per_token_decode")),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (6, "graded")},
        lost={"full": set(),
              "partial": (cells("languages", "digits") | {"languages-reach-edges"}
                          | cells("languages", "letters", kinds=EDGES_BREADTH))},
        messages=(
            Message("partial", 0, (("in", "groups of three from the right of each run, the short group first"),)),
            Message("partial", 3, (("in", "use the pattern given"),)),
            Message("partial", 4, (("in", "join the bytes of all the tokens first, then decode"),)),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "speed": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # The right merges, slowly (the speed cells of Part 2, 1, and Part 3, 1), the scan
            # (Part 4's basic cell, 1), and a pair reported as changed when its count went down
            # and up by as much (Part 1's edge cases and breadth, 1 + 1): 10 - 5 = 5.
            "partial": Sub(wrong=("train_recount_every_merge", "piece_scan", "merge_reports_unchanged")),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (5, "graded")},
        lost={"full": set(),
              "partial": {"speed-merge-edges", "speed-merge-breadth", "speed-train-basic", "speed-text-basic",
                          "speed-piece-basic"}},
        messages=(
            Message("partial", None, (("in", "the limit is 250 passes"),
                                      ("in", "update only the words that hold the merged pair"))),
            Message("partial", None, (("in", "the limit is 300 passes"), ("in", "O(n^2)"))),
            Message("partial", None, (("in", "the limit is 75 passes for all 2,000 merges"),
                                      ("in", "a heap pops the next merge in O(log n)"))),
        ),
        one_message_per_lost_cell=("partial",),
    ),
    "quality": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Part 4 not done (its three cells), bits_per_byte that accepts ids and texts of
            # different lengths (Part 3's edge cases only), and estimate_discount without its
            # fallback when n1 or n2 alone is 0 (Part 1's edge cases and breadth): 10 - 2 - 0.5 - 1.
            # Each part is graded on its own: Parts 2 and 3, tested with the course's version of the
            # part before, keep their points (before issue 28 this Part 1 cost 3.5 more).
            "partial": Sub(wrong=("bpb_lengths_unchecked", "discount_fallback_only_when_both_zero"),
                           drop=("quality-sweep",)),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (6.5, "graded")},
        lost={"full": set(),
              "partial": (cells("quality", "sweep") | {"quality-bpb-edges"}
                          | cells("quality", "discount", kinds=EDGES_BREADTH))},
        messages=(
            Message("partial", 0, (("startswith", "estimate_discount([2, 4, 4]) gave 0.0; expected 0.5"),)),
            Message("partial", None, (("startswith", "bits_per_byte([[0, 1], [0, 2, 1]], [[0, 1]], ['ab', 'c'], "
                                                     "order=2, vocab_size=3) returned"),
                                      ("in", "expected a ValueError: 1 sequence of ids but 2 texts"))),
        ),
    ),
    "superword": Case(
        submissions={
            "full": Sub(),
            "stub": STUB,
            # Ties broken by ids instead of bytes in stage 2 (Part 2's basic cell, and its
            # breadth cell through the hidden tests) and a patcher that returns [0] for no
            # bytes (Part 3's edge and breadth cells): 4.5 points.
            "partial": Sub(wrong=("tie_by_ids", "empty_gives_zero")),
        },
        expected={"full": (10, "graded"), "stub": (0, "graded"), "partial": (4.5, "graded")},
        lost={"full": set(),
              "partial": {"superword-continue-basic", "superword-continue-breadth", "superword-patch-edges",
                          "superword-patch-breadth"}},
        messages=(
            Message("partial", 0, (("startswith", "after the replay the words are [b'ab', b'x']"),
                                   ("in", "the greatest pair of byte strings"))),
            Message("partial", None, (("startswith", "no entropies, no bytes: no patch, so []"),)),
        ),
    ),
}

TIMEOUT = 8  # seconds per cell while grading chars and words, so that the endless loops end quickly
# Which assignments one grade.py run grades together. chars and words with 8 s per cell (one
# --timeout applies to all the assignments of a run), words collected from an LMS download
# (--collect=zip; chars has nothing to unzip); then, on the same course, bpe and bytelevel
# with the course's 60 s, which Part 3 of bpe needs (it times training on 100 KB of text):
# the second run's report and grades.csv cover all four. The rest as they were measured.
# The exit status is 1 where some submissions need the instructor (chars: renamed, empty).
RUNS: dict[str, Run] = {
    "chars-words-bpe-bytelevel": Run((Stage(("chars", "words"), (f"--timeout={TIMEOUT}", "--collect=zip"),
                                            zip=("words",)),
                                      Stage(("bpe", "bytelevel"))), minutes=5.0, returncode=1),
    "wordpiece-unigram": Run((Stage(("wordpiece", "unigram")),), minutes=2.0),
    "practice": Run((Stage(("practice",)),), minutes=2.1),
    "batches": Run((Stage(("batches",)),), minutes=1.8),
    "languages": Run((Stage(("languages",)),), minutes=1.5),
    "speed": Run((Stage(("speed",)),), minutes=0.8),
    "quality": Run((Stage(("quality",)),), minutes=1.7),
    "superword": Run((Stage(("superword",)),), minutes=0.45),
}
FILES = 3  # test_grading_e2e.py, test_grading_e2e_b.py, test_grading_e2e_c.py


def shard(index: int) -> list[str]:
    """The runs of file ``index`` (0 to FILES - 1): longest first, each to the file with the
    fewest minutes so far (ties: the lowest index), so that pytest-xdist's ``--dist
    loadfile`` spreads them; stable for given RUNS."""
    load = [0.0] * FILES
    placed: dict[str, int] = {}
    for name in sorted(RUNS, key=lambda n: (-RUNS[n].minutes, n)):
        placed[name] = min(range(FILES), key=lambda i: (load[i], i))
        load[placed[name]] += RUNS[name].minutes
    return [name for name in RUNS if placed[name] == index]
