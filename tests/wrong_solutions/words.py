"""Wrong solutions of the ``words`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks.
"""

WRONG = {
    "split_on_whitespace": {
        "mistake": "split_words splits on whitespace with str.split, so punctuation sticks "
                   "to the words ('horse?')",
        "code": {"words-split": '''
def split_words(text, *, lowercase=False):
    words = text.split()
    if lowercase:
        words = [w.lower() for w in words]
    return words
'''},
    },
    "lowercase_before_splitting": {
        "mistake": "split_words lowercases the text before splitting it, so 'İstanbul' "
                   "becomes three words ('i', the combining dot, 'stanbul')",
        "code": {"words-split": '''
def split_words(text, *, lowercase=False):
    if lowercase:
        text = text.lower()
    return re.findall(WORD_PATTERN, text)
'''},
    },
    "ascii_letters_only": {
        "mistake": "split_words uses a hand-written pattern of ASCII letters and digits, "
                   "which splits 'naïve' and Greek or Chinese words",
        "code": {"words-split": '''
def split_words(text, *, lowercase=False):
    words = re.findall(r"[A-Za-z0-9_]+(?:['’][A-Za-z0-9_]+)*|[^A-Za-z0-9_\\s]", text)
    if lowercase:
        words = [w.lower() for w in words]
    return words
'''},
    },
    "casefold": {
        "mistake": "split_words lowercases with str.casefold, which turns 'ß' into 'ss'",
        "code": {"words-split": '''
def split_words(text, *, lowercase=False):
    words = re.findall(WORD_PATTERN, text)
    if lowercase:
        words = [w.casefold() for w in words]
    return words
'''},
    },
    "words_only_no_punctuation": {
        "mistake": "split_words keeps only the runs of word characters (re.findall(r'\\w+', "
                   "...)), dropping punctuation and splitting \"don't\"",
        "code": {"words-split": '''
def split_words(text, *, lowercase=False):
    words = re.findall(r"\\w+", text)
    if lowercase:
        words = [w.lower() for w in words]
    return words
'''},
    },
    "count_returns_counter": {
        "mistake": "count_words returns the collections.Counter instead of a plain dict",
        "code": {"words-count": '''
from collections import Counter

def count_words(texts, *, lowercase=False):
    if isinstance(texts, str):
        texts = [texts]
    counts = Counter()
    for text in texts:
        counts.update(split_words(text, lowercase=lowercase))
    return counts
'''},
    },
    "count_string_as_list_of_texts": {
        "mistake": "count_words iterates over its argument without checking for a str, so "
                   "one text is taken as a list of one-character texts",
        "code": {"words-count": '''
def count_words(texts, *, lowercase=False):
    counts = {}
    for text in texts:
        for word in split_words(text, lowercase=lowercase):
            counts[word] = counts.get(word, 0) + 1
    return counts
'''},
    },
    "count_glues_texts": {
        "mistake": "count_words joins the texts with '' before splitting, so the last word "
                   "of one text and the first of the next become one word",
        "code": {"words-count": '''
def count_words(texts, *, lowercase=False):
    if not isinstance(texts, str):
        texts = "".join(texts)
    counts = {}
    for word in split_words(texts, lowercase=lowercase):
        counts[word] = counts.get(word, 0) + 1
    return counts
'''},
    },
    "count_lowercase_ignored": {
        "mistake": "count_words does not pass lowercase on to split_words",
        "code": {"words-count": '''
def count_words(texts, *, lowercase=False):
    if isinstance(texts, str):
        texts = [texts]
    counts = {}
    for text in texts:
        for word in split_words(text):
            counts[word] = counts.get(word, 0) + 1
    return counts
'''},
    },
    "ties_in_counts_order": {
        "mistake": "build_word_vocab sorts by count only (as Counter.most_common does), so "
                   "words with the same count stay in the order of counts",
        "code": {"words-build-vocab": '''
from collections import Counter

def build_word_vocab(counts, *, vocab_size=None, min_freq=1, special_tokens=DEFAULT_SPECIAL_TOKENS):
    vocab = {t: i for i, t in enumerate(special_tokens)}
    for word, count in Counter(counts).most_common():
        if vocab_size is not None and len(vocab) >= vocab_size:
            break
        if count >= min_freq and word not in vocab:
            vocab[word] = len(vocab)
    return vocab
'''},
    },
    "ties_reversed": {
        "mistake": "build_word_vocab sorts by (count, word) with reverse=True, which puts "
                   "the most frequent words first but breaks ties in reverse word order",
        "code": {"words-build-vocab": '''
def build_word_vocab(counts, *, vocab_size=None, min_freq=1, special_tokens=DEFAULT_SPECIAL_TOKENS):
    vocab = {t: i for i, t in enumerate(special_tokens)}
    words = sorted(((c, w) for w, c in counts.items() if c >= min_freq and w not in vocab), reverse=True)
    if vocab_size is not None:
        words = words[: vocab_size - len(special_tokens)]
    for _, w in words:
        vocab[w] = len(vocab)
    return vocab
'''},
    },
    "vocab_size_without_specials": {
        "mistake": "build_word_vocab keeps vocab_size words on top of the special tokens, "
                   "instead of vocab_size entries in all",
        "code": {"words-build-vocab": '''
def build_word_vocab(counts, *, vocab_size=None, min_freq=1, special_tokens=DEFAULT_SPECIAL_TOKENS):
    vocab = {t: i for i, t in enumerate(special_tokens)}
    words = sorted((w for w in counts if counts[w] >= min_freq and w not in vocab),
                   key=lambda w: (-counts[w], w))
    if vocab_size is not None:
        words = words[:vocab_size]
    for w in words:
        vocab[w] = len(vocab)
    return vocab
'''},
    },
    "min_freq_strict": {
        "mistake": "build_word_vocab keeps the words seen more than min_freq times, not at "
                   "least min_freq times",
        "code": {"words-build-vocab": '''
def build_word_vocab(counts, *, vocab_size=None, min_freq=1, special_tokens=DEFAULT_SPECIAL_TOKENS):
    vocab = {t: i for i, t in enumerate(special_tokens)}
    words = sorted((w for w in counts if counts[w] > min_freq and w not in vocab),
                   key=lambda w: (-counts[w], w))
    if vocab_size is not None:
        words = words[: vocab_size - len(special_tokens)]
    for w in words:
        vocab[w] = len(vocab)
    return vocab
'''},
    },
    "special_word_added_again": {
        "mistake": "build_word_vocab does not leave out a word that is also a special token: "
                   "it takes a place within vocab_size and the special token gets a new id",
        "code": {"words-build-vocab": '''
def build_word_vocab(counts, *, vocab_size=None, min_freq=1, special_tokens=DEFAULT_SPECIAL_TOKENS):
    words = sorted((w for w in counts if counts[w] >= min_freq), key=lambda w: (-counts[w], w))
    if vocab_size is not None:
        words = words[: vocab_size - len(special_tokens)]
    return {token: i for i, token in enumerate(list(special_tokens) + words)}
'''},
    },
    "encode_unk_hardcoded": {
        "mistake": "encode_words looks up '<unk>' instead of the unk_token it is given",
        "code": {"words-encode": '''
def encode_words(text, vocab, *, lowercase=False, unk_token="<unk>"):
    ids = []
    for word in split_words(text, lowercase=lowercase):
        if word in vocab:
            ids.append(vocab[word])
        elif "<unk>" in vocab:
            ids.append(vocab["<unk>"])
        else:
            raise ValueError(f"word {word!r} is not in the vocabulary")
    return ids
'''},
    },
    "encode_unk_required_even_when_known": {
        "mistake": "encode_words raises whenever unk_token is missing from the vocabulary, "
                   "even when every word of the text is known",
        "code": {"words-encode": '''
def encode_words(text, vocab, *, lowercase=False, unk_token="<unk>"):
    if unk_token not in vocab:
        raise ValueError(f"the vocabulary has no {unk_token!r}")
    return [vocab.get(w, vocab[unk_token]) for w in split_words(text, lowercase=lowercase)]
'''},
    },
    "encode_id_zero_is_unknown": {
        "mistake": "encode_words tests `vocab.get(word) or ...`, so a word whose id is 0 is "
                   "taken for an unknown one",
        "code": {"words-encode": '''
def encode_words(text, vocab, *, lowercase=False, unk_token="<unk>"):
    ids = []
    for word in split_words(text, lowercase=lowercase):
        id_ = vocab.get(word) or vocab.get(unk_token)
        if id_ is None:
            raise ValueError(f"word {word!r} is not in the vocabulary")
        ids.append(id_)
    return ids
'''},
    },
    "encode_key_error": {
        "mistake": "encode_words lets the KeyError of an unknown word through when there is "
                   "no unk_token, instead of raising ValueError",
        "code": {"words-encode": '''
def encode_words(text, vocab, *, lowercase=False, unk_token="<unk>"):
    ids = []
    for word in split_words(text, lowercase=lowercase):
        ids.append(vocab[word] if word in vocab else vocab[unk_token])
    return ids
'''},
    },
    "oov_distinct_words": {
        "mistake": "oov_rate counts distinct words (types) instead of every occurrence",
        "code": {"words-oov-rate": '''
def oov_rate(text, vocab, *, lowercase=False):
    words = set(split_words(text, lowercase=lowercase))
    if not words:
        return 0.0
    return sum(1 for w in words if w not in vocab) / len(words)
'''},
    },
    "oov_empty_divides_by_zero": {
        "mistake": "oov_rate divides by the number of words without handling a text that "
                   "has none",
        "code": {"words-oov-rate": '''
def oov_rate(text, vocab, *, lowercase=False):
    words = split_words(text, lowercase=lowercase)
    return sum(1 for w in words if w not in vocab) / len(words)
'''},
    },
    "oov_via_unk_ids": {
        "mistake": "oov_rate encodes the text and counts the ids of '<unk>', which fails for "
                   "a vocabulary without '<unk>'",
        "code": {"words-oov-rate": '''
def oov_rate(text, vocab, *, lowercase=False):
    ids = encode_words(text, vocab, lowercase=lowercase)
    if not ids:
        return 0.0
    return ids.count(vocab["<unk>"]) / len(ids)
'''},
    },
    "oov_whitespace_words": {
        "mistake": "oov_rate splits the text with str.split instead of split_words, so "
                   "punctuation is not counted as words",
        "code": {"words-oov-rate": '''
def oov_rate(text, vocab, *, lowercase=False):
    words = text.lower().split() if lowercase else text.split()
    if not words:
        return 0.0
    return sum(1 for w in words if w not in vocab) / len(words)
'''},
    },
    "oov_int_for_empty": {
        "mistake": "oov_rate returns the int 0 for a text without words",
        "code": {"words-oov-rate": '''
def oov_rate(text, vocab, *, lowercase=False):
    words = split_words(text, lowercase=lowercase)
    if not words:
        return 0
    return sum(1 for w in words if w not in vocab) / len(words)
'''},
    },
}
