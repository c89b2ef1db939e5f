"""Wrong solutions of the ``chars`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks.
"""

WRONG = {
    "unk_required_even_when_known": {
        "mistake": "encode_chars raises whenever '<unk>' is missing from the vocabulary, "
                   "even when every character of the text is known",
        "code": {"chars-encode": '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    if unk_token not in vocab:
        raise ValueError(f"the vocabulary has no {unk_token!r}")
    return [vocab.get(ch, vocab[unk_token]) for ch in text]
'''},
    },
    "unk_id_hardcoded": {
        "mistake": "encode_chars looks up '<unk>' instead of the unk_token it is given",
        "code": {"chars-encode": '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    ids = []
    for ch in text:
        if ch in vocab:
            ids.append(vocab[ch])
        elif "<unk>" in vocab:
            ids.append(vocab["<unk>"])
        else:
            raise ValueError(f"character {ch!r} is not in the vocabulary")
    return ids
'''},
    },
    "vocab_in_first_seen_order": {
        "mistake": "build_char_vocab numbers the characters in the order they first occur, "
                   "not in code-point order",
        "code": {"chars-build-vocab": '''
def build_char_vocab(texts, special_tokens=DEFAULT_SPECIAL_TOKENS):
    if isinstance(texts, str):
        texts = [texts]
    vocab = {t: i for i, t in enumerate(special_tokens)}
    for text in texts:
        for ch in text:
            if ch not in vocab:
                vocab[ch] = len(vocab)
    return vocab
'''},
    },
    "string_taken_as_list_of_texts": {
        "mistake": "build_char_vocab iterates over a single string as if it were a list of "
                   "texts (it happens to work) but joins a list of texts with spaces, "
                   "adding ' ' to the vocabulary",
        "code": {"chars-build-vocab": '''
def build_char_vocab(texts, special_tokens=DEFAULT_SPECIAL_TOKENS):
    if not isinstance(texts, str):
        texts = " ".join(texts)
    vocab = {t: i for i, t in enumerate(special_tokens)}
    for ch in sorted(set(texts)):
        if ch not in vocab:
            vocab[ch] = len(vocab)
    return vocab
'''},
    },
    "special_token_text_counted_as_one_character": {
        "mistake": "unk_rate treats the text '<unk>' as one known token instead of five "
                   "characters",
        "code": {"chars-unk-rate": '''
def unk_rate(text, vocab):
    if not text:
        return 0.0
    if text in vocab:
        return 0.0
    return sum(ch not in vocab for ch in text) / len(text)
'''},
    },
    "decode_skips_unknown_ids": {
        "mistake": "decode_chars silently skips ids that are not in the vocabulary instead "
                   "of raising ValueError",
        "code": {"chars-decode": '''
def decode_chars(ids, vocab):
    token_of = {i: token for token, i in vocab.items()}
    return "".join(token_of[i] for i in ids if i in token_of)
'''},
    },
    "integer_division_rate": {
        "mistake": "unk_rate returns an int count or uses integer division",
        "code": {"chars-unk-rate": '''
def unk_rate(text, vocab):
    if not text:
        return 0
    return sum(ch not in vocab for ch in text) // len(text)
'''},
    },
}
