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
    "encode_eager_default": {
        "mistake": "encode_chars looks up the id of unk_token eagerly, as the default of "
                   "vocab.get(ch, vocab[unk_token]), so it fails with a KeyError whenever "
                   "unk_token is missing, even when every character is known",
        "code": {"chars-encode": '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    return [vocab.get(ch, vocab[unk_token]) for ch in text]
'''},
    },
    "encode_id_zero_is_unknown": {
        "mistake": "encode_chars tests `vocab.get(ch) or ...`, so a character whose id is 0 "
                   "is taken for an unknown one",
        "code": {"chars-encode": '''
def encode_chars(text, vocab, *, unk_token="<unk>"):
    ids = []
    for ch in text:
        id_ = vocab.get(ch) or vocab.get(unk_token)
        if id_ is None:
            raise ValueError(f"character {ch!r} is not in the vocabulary")
        ids.append(id_)
    return ids
'''},
    },
    "encode_normalizes": {
        "mistake": "encode_chars normalizes the text to NFC first, so 'e' + U+0301 becomes "
                   "one character 'é'",
        "code": {"chars-encode": '''
import unicodedata

def encode_chars(text, vocab, *, unk_token="<unk>"):
    ids = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in vocab:
            ids.append(vocab[ch])
        elif unk_token in vocab:
            ids.append(vocab[unk_token])
        else:
            raise ValueError(f"character {ch!r} is not in the vocabulary")
    return ids
'''},
    },
    "special_character_added_twice": {
        "mistake": "build_char_vocab numbers the special tokens and the sorted characters "
                   "in one list, so a character equal to a special token is numbered again "
                   "and the ids get a gap",
        "code": {"chars-build-vocab": '''
def build_char_vocab(texts, special_tokens=DEFAULT_SPECIAL_TOKENS):
    if isinstance(texts, str):
        texts = [texts]
    chars = sorted(set("".join(texts)))
    return {token: i for i, token in enumerate(list(special_tokens) + chars)}
'''},
    },
    "specials_sorted_with_characters": {
        "mistake": "build_char_vocab sorts the special tokens together with the characters "
                   "instead of keeping them first, in the order given",
        "code": {"chars-build-vocab": '''
def build_char_vocab(texts, special_tokens=DEFAULT_SPECIAL_TOKENS):
    if isinstance(texts, str):
        texts = [texts]
    tokens = set(special_tokens)
    for text in texts:
        tokens.update(text)
    return {token: i for i, token in enumerate(sorted(tokens))}
'''},
    },
    "vocab_normalizes": {
        "mistake": "build_char_vocab normalizes each text to NFC, as the chapter advises "
                   "before comparing strings, so a decomposed 'é' becomes one character",
        "code": {"chars-build-vocab": '''
import unicodedata

def build_char_vocab(texts, special_tokens=DEFAULT_SPECIAL_TOKENS):
    if isinstance(texts, str):
        texts = [texts]
    chars = set()
    for text in texts:
        chars.update(unicodedata.normalize("NFC", text))
    vocab = {t: i for i, t in enumerate(special_tokens)}
    for ch in sorted(chars):
        if ch not in vocab:
            vocab[ch] = len(vocab)
    return vocab
'''},
    },
    "decode_by_position": {
        "mistake": "decode_chars takes an id as a position in the vocabulary's key list, "
                   "which is wrong when the ids are in another order and lets -1 through",
        "code": {"chars-decode": '''
def decode_chars(ids, vocab):
    tokens = list(vocab)
    for i in ids:
        if i >= len(tokens):
            raise ValueError(f"id {i} is not in the vocabulary")
    return "".join(tokens[i] for i in ids)
'''},
    },
    "decode_key_error": {
        "mistake": "decode_chars lets the KeyError of an unknown id through instead of "
                   "raising ValueError",
        "code": {"chars-decode": '''
def decode_chars(ids, vocab):
    token_of = {i: token for token, i in vocab.items()}
    return "".join(token_of[i] for i in ids)
'''},
    },
    "decode_joins_with_spaces": {
        "mistake": "decode_chars joins the tokens with spaces",
        "code": {"chars-decode": '''
def decode_chars(ids, vocab):
    token_of = {i: token for token, i in vocab.items()}
    for i in ids:
        if i not in token_of:
            raise ValueError(f"id {i} is not in the vocabulary")
    return " ".join(token_of[i] for i in ids)
'''},
    },
    "unk_rate_empty_text_divides_by_zero": {
        "mistake": "unk_rate divides by len(text) without handling the empty text",
        "code": {"chars-unk-rate": '''
def unk_rate(text, vocab):
    return sum(ch not in vocab for ch in text) / len(text)
'''},
    },
    "unk_rate_distinct_characters": {
        "mistake": "unk_rate counts each unknown character once, not every occurrence",
        "code": {"chars-unk-rate": '''
def unk_rate(text, vocab):
    if not text:
        return 0.0
    return len({ch for ch in text if ch not in vocab}) / len(text)
'''},
    },
    "unk_rate_via_unk_ids": {
        "mistake": "unk_rate encodes the text and counts the ids of '<unk>', which fails "
                   "for a vocabulary without '<unk>'",
        "code": {"chars-unk-rate": '''
def unk_rate(text, vocab):
    if not text:
        return 0.0
    ids = encode_chars(text, vocab)
    return ids.count(vocab["<unk>"]) / len(ids)
'''},
    },
    "unk_rate_counts_bytes": {
        "mistake": "unk_rate divides by the number of UTF-8 bytes of the text instead of "
                   "its number of characters",
        "code": {"chars-unk-rate": '''
def unk_rate(text, vocab):
    if not text:
        return 0.0
    return sum(ch not in vocab for ch in text) / len(text.encode("utf-8"))
'''},
    },
}
