"""tokref.batch and Tokenizer.encode_batch: padding, truncation, masks, offsets, packing.

- Every tokenizer class (char, word, bpe, bytelevel, wordpiece, unigram), trained here on
  a few lines of Shakespeare, against a slow restatement of the rules built from
  ``encode_with_offsets``: padding left and right, truncation left and right, masks,
  offsets, lengths; left padding puts a real token in the last column (generation).
- Against Hugging Face ``tokenizers`` on the same vocabulary: the byte-level tokenizer
  exported with ``to_huggingface()``, and WordPiece as ``tokenizers``' BERT pipeline
  (``[CLS] $A [SEP]``), with ``enable_padding``/``enable_truncation``/``encode_batch``:
  identical ids, attention masks, special-tokens masks and offsets.
- Packing, with Hypothesis: rows of exactly ``row_length``, every document's ids in
  order separated by the end-of-text id, boundaries that cover each row.
- Bad input: each error says what to do.
"""

from __future__ import annotations

import json
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, normalizers, pre_tokenizers, processors

from tokref import (
    BPETokenizer,
    ByteLevelBPETokenizer,
    CharTokenizer,
    UnigramTokenizer,
    WordPieceTokenizer,
    WordTokenizer,
)
from tokref.batch import (
    BatchEncoding,
    Packed,
    assemble_batch,
    pack_documents,
    pad_ids,
    truncate_ids,
)
from tokref.corpus import load_text
from tokref.training import document_mask

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None, database=None)
EOT = "<|endoftext|>"

TEXTS = [
    "To be, or not to be, that is the question:",
    "Thou art more lovely",
    "",
    "a",
    "Ça va? Straße — café naïve, 東京 😀!",  # multi-byte characters, unknown to some
    "What's in a name? That which we call a rose",
]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return [x for x in load_text().splitlines() if x.strip()][:300]


@pytest.fixture(scope="module")
def tokenizers_by_kind(lines) -> dict[str, tuple[object, str | None]]:
    """kind → (trained tokenizer, pad_token to pass: None where the default pad exists)."""
    extra = ["Ça va? Straße — café naïve, 東京!"]  # some non-ASCII in every vocabulary
    corpus = lines + extra
    return {
        "char": (CharTokenizer().train(corpus), None),
        "word": (WordTokenizer().train(corpus), None),
        "bpe": (BPETokenizer().train(corpus, 200, special_tokens=("<pad>", "<unk>")), None),
        "bytelevel": (ByteLevelBPETokenizer().train(corpus, 256 + 150, special_tokens=[EOT]), EOT),
        "wordpiece": (WordPieceTokenizer().train(corpus, 250), None),
        "unigram": (UnigramTokenizer().train(corpus, 420), "<unk>"),
    }


KINDS = ["char", "word", "bpe", "bytelevel", "wordpiece", "unigram"]


def added_ids(tok) -> tuple[list[int], list[int]]:
    """What the post-processor adds around a text: WordPiece's [CLS] and [SEP]."""
    if isinstance(tok, WordPieceTokenizer):
        return [tok.token_to_id("[CLS]")], [tok.token_to_id("[SEP]")]
    return [], []


def restated(tok, texts, *, padding, side, pad_id, truncation, tside):
    """The rules of encode_batch, written out slowly from encode_with_offsets:
    (ids, attention_mask, offsets, special_tokens_mask, lengths)."""
    pre, suf = added_ids(tok)
    rows = []
    for text in texts:
        toks = [(t.id, (t.start, t.end), 0) for t in tok.encode_with_offsets(text)]
        if truncation is not None:
            keep = truncation - len(pre) - len(suf)
            if len(toks) > keep:
                toks = toks[:keep] if tside == "right" else toks[len(toks) - keep :]
        rows.append([(i, (0, 0), 1) for i in pre] + toks + [(i, (0, 0), 1) for i in suf])
    lengths = [len(r) for r in rows]
    width = max(lengths, default=0) if padding is True else padding
    out = ([], [], [], [], lengths)
    for r in rows:
        pads = [(pad_id, (0, 0), 1, 0)] * ((width or len(r)) - len(r))
        real = [(i, o, s, 1) for i, o, s in r]
        full = real + pads if side == "right" else pads + real
        for k, field in enumerate([0, 3, 1, 2]):
            out[k].append([x[field] for x in full])
    return out


# ---------------------------------------------------------------------------
# Every tokenizer: padding, truncation, masks, offsets
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_unpadded_rows_are_what_encode_gives(kind, tokenizers_by_kind):
    tok, _ = tokenizers_by_kind[kind]
    batch = tok.encode_batch(TEXTS)
    assert batch.input_ids == [tok.encode(t) for t in TEXTS], (
        f"{kind}: encode_batch(TEXTS).input_ids should be [encode(t) for t in TEXTS] "
        "(without padding or truncation, a row is the text's encoding)"
    )
    assert batch.lengths == list(map(len, batch.input_ids))
    assert all(m == [1] * n for m, n in zip(batch.attention_mask, batch.lengths))
    assert batch.offsets is None and "offsets" not in batch.keys()


@pytest.mark.parametrize("kind", KINDS)
def test_padding_and_truncation_follow_the_rules(kind, tokenizers_by_kind):
    tok, pad_token = tokenizers_by_kind[kind]
    pad_id = tok.token_to_id(pad_token or ("[PAD]" if kind == "wordpiece" else "<pad>"))
    n_added = sum(map(len, added_ids(tok)))
    grid = product([True, 12, False], ["right", "left"], [None, 4, 7, 12], ["right", "left"])
    for padding, side, truncation, tside in grid:
        if isinstance(padding, int) and padding is not True and truncation is None:
            continue  # a longer row is an error (tested below)
        if truncation is not None and truncation < n_added:
            continue
        got = tok.encode_batch(
            TEXTS, padding=padding, padding_side=side, pad_token=pad_token,
            truncation=truncation, truncation_side=tside, return_offsets=True,
        )
        want = restated(tok, TEXTS, padding=padding, side=side, pad_id=pad_id,
                        truncation=truncation, tside=tside)
        call = (f"{kind}.encode_batch(TEXTS, padding={padding!r}, padding_side={side!r}, "
                f"truncation={truncation}, truncation_side={tside!r})")
        names = ["input_ids", "attention_mask", "offsets", "special_tokens_mask", "lengths"]
        for name, w in zip(names, want):
            assert got[name] == w, f"{call}: {name} is {got[name]}, expected {w}"
        fast = tok.encode_batch(  # without offsets encode_batch takes another path
            TEXTS, padding=padding, padding_side=side, pad_token=pad_token,
            truncation=truncation, truncation_side=tside,
        )
        assert fast.to_dict() == {k: v for k, v in got.to_dict().items() if k != "offsets"}, call


@pytest.mark.parametrize("kind", KINDS)
def test_padding_positions(kind, tokenizers_by_kind):
    tok, pad_token = tokenizers_by_kind[kind]
    for side in ("right", "left"):
        b = tok.encode_batch(TEXTS, padding=True, padding_side=side, pad_token=pad_token,
                             return_offsets=True)
        width = max(b.lengths)
        for ids, mask, offs, special, n in zip(
            b.input_ids, b.attention_mask, b.offsets, b.special_tokens_mask, b.lengths
        ):
            assert len(ids) == len(mask) == len(offs) == len(special) == width
            pad = range(n, width) if side == "right" else range(width - n)
            for j in pad:
                assert (mask[j], offs[j], special[j]) == (0, (0, 0), 1), (
                    f"{kind}, padding_side={side!r}: position {j} is padding, so its mask, "
                    f"offset and special-tokens mask should be 0, (0, 0), 1; got "
                    f"{mask[j]}, {offs[j]}, {special[j]}"
                )
            assert sum(mask) == n


@pytest.mark.parametrize("kind", KINDS)
def test_left_padding_puts_a_real_token_last_for_generation(kind, tokenizers_by_kind):
    tok, pad_token = tokenizers_by_kind[kind]
    texts = [t for t in TEXTS if t]
    left = tok.encode_batch(texts, padding=True, padding_side="left", pad_token=pad_token)
    for text, ids, mask in zip(texts, left.input_ids, left.attention_mask):
        assert mask[-1] == 1 and ids[-1] == tok.encode(text)[-1], (
            f"{kind}: with padding_side='left' the last column of every row should be the "
            f"text's last token (a decoder predicts the next token after it); row of "
            f"{text!r} ends with id {ids[-1]}, mask {mask[-1]}"
        )
    right = tok.encode_batch(texts, padding=True, padding_side="right", pad_token=pad_token)
    assert 0 in [m[-1] for m in right.attention_mask], (
        "with right padding a shorter row ends with padding: the next-token prediction "
        "would be read after a pad"
    )


def test_wordpiece_truncation_keeps_cls_and_sep(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["wordpiece"]
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    content = tok.encode(TEXTS[0], add_special_tokens=False)
    for n, side in product([2, 3, 5], ["right", "left"]):
        row = tok.encode_batch([TEXTS[0]], truncation=n, truncation_side=side).input_ids[0]
        kept = content[: n - 2] if side == "right" else content[len(content) - (n - 2) :]
        assert row == [cls_id, *kept, sep_id], (
            f"encode_batch([text], truncation={n}, truncation_side={side!r}) gave {row}; "
            "truncation counts [CLS] and [SEP] and keeps them, cutting the text's tokens"
        )
    plain = tok.encode_batch([TEXTS[0]], truncation=3, add_special_tokens=False)
    assert plain.input_ids == [content[:3]] and plain.special_tokens_mask == [[0, 0, 0]]


def test_special_token_in_the_text_is_not_masked_as_added(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["bytelevel"]
    b = tok.encode_batch([f"a{EOT}b"], allowed_special="all", return_offsets=True)
    eot = tok.token_to_id(EOT)
    assert eot in b.input_ids[0]
    # As in Hugging Face tokenizers: only what the post-processor or padding adds is 1.
    assert b.special_tokens_mask == [[0] * b.lengths[0]]


def test_batch_encoding_is_a_mapping_like_hugging_faces(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["char"]
    b = tok.encode_batch(["ab", "a"], padding=True, return_offsets=True)
    assert list(b.keys()) == [
        "input_ids", "attention_mask", "offsets", "special_tokens_mask", "lengths"
    ]
    assert b["input_ids"] is b.input_ids and dict(b)["lengths"] == [2, 1]
    d = b.to_dict()
    assert json.loads(json.dumps(d))["offsets"] == [[[0, 1], [1, 2]], [[0, 1], [0, 0]]]
    d["input_ids"][0].append(99)
    assert len(b.input_ids[0]) == 2, "to_dict() must return fresh lists"
    with pytest.raises(KeyError, match=r"batch\['input_ids'\]\[0\]"):
        b[0]
    with pytest.raises(KeyError, match="offsets"):
        tok.encode_batch(["ab"])["offsets"]
    assert tok.encode_batch([]) == BatchEncoding([], [], None, [], [])


# ---------------------------------------------------------------------------
# Against Hugging Face tokenizers on the same vocabulary
# ---------------------------------------------------------------------------

HF_TEXTS = [*TEXTS, f"end{EOT}start", "  leading spaces\n\n\nand newlines\r\n"]


def hf_wordpiece(tok: WordPieceTokenizer) -> HFTokenizer:
    """tokenizers' BERT pipeline on tok's vocabulary (as tests/test_wordpiece.py builds it)."""
    hf = HFTokenizer(models.WordPiece(tok.vocab, unk_token="[UNK]",
                                      continuing_subword_prefix=tok.continuing_subword_prefix,
                                      max_input_chars_per_word=tok.max_input_chars_per_word))
    hf.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                               strip_accents=tok.strip_accents,
                                               lowercase=tok.lowercase)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.vocab["[CLS]"]), ("[SEP]", tok.vocab["[SEP]"])],
    )
    hf.add_special_tokens(list(tok.special_tokens))
    return hf


def compare_with_hf(tok, hf, texts, pad_token, options) -> None:
    pad_id = tok.token_to_id(pad_token)
    for length, side, trunc, tside in product(
        [None, 16], ["right", "left"], [None, 5, 16], ["right", "left"]
    ):
        if length is not None and trunc is None:
            continue  # tokref refuses a row longer than a fixed length; HF leaves it long
        hf.no_padding()
        hf.no_truncation()
        hf.enable_padding(direction=side, pad_id=pad_id, pad_token=pad_token, length=length)
        if trunc is not None:
            hf.enable_truncation(max_length=trunc, direction=tside)
        theirs = hf.encode_batch(texts)
        mine = tok.encode_batch(
            texts, padding=True if length is None else length, padding_side=side,
            pad_token=pad_token, truncation=trunc, truncation_side=tside,
            return_offsets=True, **options,
        )
        call = f"padding={length}, side={side!r}, truncation={trunc}, truncation_side={tside!r}"
        for i, (t, e) in enumerate(zip(texts, theirs)):
            got = (mine.input_ids[i], mine.attention_mask[i], mine.special_tokens_mask[i],
                   mine.offsets[i])
            # tokenizers reports offsets in characters of the Python str, as tokref does,
            # also for byte-level tokens that end inside a multi-byte character (both give
            # the whole character's span), so every text is compared, not only ASCII.
            want = (e.ids, e.attention_mask, e.special_tokens_mask, e.offsets)
            assert got == want, f"{call}, text {t!r}: tokref {got} != tokenizers {want}"


def test_bytelevel_batches_match_tokenizers(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["bytelevel"]
    hf = HFTokenizer.from_str(json.dumps(tok.to_huggingface()))
    # tokenizers always reads added tokens in text; tokref needs allowed_special for it.
    compare_with_hf(tok, hf, HF_TEXTS, EOT, {"allowed_special": "all"})


def test_wordpiece_batches_match_tokenizers(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["wordpiece"]
    compare_with_hf(tok, hf_wordpiece(tok), HF_TEXTS, "[PAD]", {})


def test_wordpiece_truncation_below_the_specials_is_an_error_tokenizers_ignores(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["wordpiece"]
    hf = hf_wordpiece(tok)
    hf.enable_truncation(max_length=1)
    # tokenizers silently leaves the row untruncated; tokref says why it cannot cut.
    assert len(hf.encode(TEXTS[0]).ids) == len(tok.encode(TEXTS[0]))
    with pytest.raises(ValueError, match=r"truncation=1 leaves no room for the 2 special tokens"):
        tok.encode_batch([TEXTS[0]], truncation=1)


# ---------------------------------------------------------------------------
# The pure helpers
# ---------------------------------------------------------------------------


def test_pad_ids_and_truncate_ids():
    assert pad_ids([[1, 2, 3], [4]], pad_id=0, side="left") == (
        [[1, 2, 3], [0, 0, 4]], [[1, 1, 1], [0, 0, 1]]
    )
    assert pad_ids([[], [4]], pad_id=9, length=2) == ([[9, 9], [4, 9]], [[0, 0], [1, 0]])
    assert pad_ids([], pad_id=0) == ([], [])
    assert truncate_ids([1, 2, 3], 0) == [] and truncate_ids([1, 2], 5) == [1, 2]
    with pytest.raises(ValueError, match=r"rows\[0\] has 3 ids, more than length=2; truncate it"):
        pad_ids([[1, 2, 3]], pad_id=0, length=2)
    with pytest.raises(TypeError, match=r"rows\[1\]\[0\] must be an int id"):
        pad_ids([[1], ["x"]], pad_id=0)


def test_assemble_batch_checks_offsets_match_ids():
    with pytest.raises(ValueError, match="row 0 has 2 ids but 1 offsets"):
        assemble_batch([[1, 2]], [[(0, 1)]])


def test_pack_documents_worked_example():
    p = pack_documents([[1, 2, 3, 4, 5], [6], [7, 8]], row_length=4, eot_id=0)
    assert p.rows == [[1, 2, 3, 4], [5, 0, 6, 0]]
    assert p.boundaries == [[(0, 4, 0)], [(0, 2, 0), (2, 4, 1)]], (
        "document 0 continues into row 1 with the same doc_index; its eot ends its span"
    )
    assert p.attention_mask == [[1] * 4, [1] * 4]
    kept = pack_documents([[1, 2, 3, 4, 5], [6], [7, 8]], row_length=4, eot_id=0, keep_last=True)
    assert kept.rows[2] == [7, 8, 0, 0] and kept.attention_mask[2] == [1, 1, 1, 0]
    assert kept.boundaries[2] == [(0, 3, 2)]
    assert pack_documents([[1]], row_length=4, eot_id=0) == Packed([], [], [])
    assert document_mask(p.boundaries[1], 4, causal=False) == [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]


DOCS = st.lists(st.lists(st.integers(1, 50), max_size=12), max_size=8)


@PROPERTY
@given(docs=DOCS, row_length=st.integers(1, 10), keep_last=st.booleans())
def test_packing_properties(docs, row_length, keep_last):
    eot, pad = 0, 99
    p = pack_documents(docs, row_length=row_length, eot_id=eot, keep_last=keep_last, pad_id=pad)
    stream = [x for d in docs for x in [*d, eot]]
    where = f"pack_documents({docs}, row_length={row_length}, keep_last={keep_last})"
    assert all(len(r) == row_length for r in p.rows), f"{where}: rows of another length"
    n_full = len(stream) // row_length
    partial = len(stream) % row_length
    assert len(p.rows) == n_full + (1 if keep_last and partial else 0), where
    real = [x for r, m in zip(p.rows, p.attention_mask) for x, k in zip(r, m) if k]
    assert real == stream[: len(real)], f"{where}: the rows are not the documents in order"
    assert len(real) == (len(stream) if keep_last else n_full * row_length), where
    for r, m in zip(p.rows, p.attention_mask):  # padding only at the end of the last row
        assert m == sorted(m, reverse=True) and all(x == pad for x, k in zip(r, m) if not k)
    pieces: dict[int, list[int]] = {}
    for r, (row, spans, mask) in enumerate(zip(p.rows, p.boundaries, p.attention_mask)):
        assert [s for s, _, _ in spans] == [0, *(e for _, e, _ in spans[:-1])], (
            f"{where}: the spans of row {r} do not touch: {spans}"
        )
        assert (spans[-1][1] if spans else 0) == sum(mask), f"{where}: row {r} not covered"
        for s, e, d in spans:
            pieces.setdefault(d, []).extend(row[s:e])
    ids = [d for spans in p.boundaries for _, _, d in spans]
    assert ids == sorted(ids), f"{where}: documents out of order in boundaries"
    for d, got in pieces.items():
        full = [*docs[d], eot]
        assert got == full[: len(got)], f"{where}: document {d} is {got}, not {full}"
        if d != max(pieces):
            assert got == full, f"{where}: document {d} cut before its last row"


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_padding_without_a_pad_token_says_pass_pad_token(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["bytelevel"]
    with pytest.raises(ValueError, match=r'pass pad_token=.*pad_token="<\|endoftext\|>"'):
        tok.encode_batch(["a", "bb"], padding=True)
    assert tok.encode_batch(["a"]).input_ids == [tok.encode("a")]  # no padding: no pad needed
    with pytest.raises(ValueError, match=r"pad_token '<pad>' is not in the vocabulary"):
        tok.encode_batch(["a"], padding=True, pad_token="<pad>")


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"padding": 0}, ValueError, r"padding must be at least 1"),
        ({"padding": -3}, ValueError, r"padding must be at least 1"),
        ({"padding": "max_length"}, ValueError, r"padding must be True, False, 'longest' or"),
        ({"truncation": 0}, ValueError, r"truncation must be at least 1"),
        ({"truncation": "5"}, TypeError, r"truncation must be None or an int"),
        ({"padding_side": "top"}, ValueError, r"padding_side must be 'left' or 'right', not 'top'"),
        ({"truncation_side": "end"}, ValueError, r"truncation_side must be 'left' or 'right'"),
        ({"return_offsets": 1}, TypeError, r"return_offsets must be True or False"),
        ({"padding": 3}, ValueError, r"row 0 has 20 tokens, more than padding=3; pass truncation=3"),
        ({"allowed_special": "all"}, TypeError, r"option\(s\) \['allowed_special'\]"),
    ],
)
def test_bad_options(options, error, message, tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["char"]
    with pytest.raises(error, match=message):
        tok.encode_batch(["Thou art more lovely", "a"], **options)


@pytest.mark.parametrize(
    "texts, message",
    [
        ("one text", r"not one str; pass \[text\]"),
        (iter(["a"]), r"not list_iterator; for an iterator or a generator pass list\(texts\)"),
        (["a", 3], r"^texts\[1\] must be str, not int$"),
        (["a", b"b"], r"texts\[1\] must be str, not bytes; decode it first"),
    ],
)
def test_texts_must_be_a_sequence_of_str(texts, message, tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["char"]
    with pytest.raises(TypeError, match=message):
        tok.encode_batch(texts)


def test_errors_of_encode_name_the_text(tokenizers_by_kind):
    tok, _ = tokenizers_by_kind["bytelevel"]
    with pytest.raises(ValueError, match=r"^texts\[1\]: .*endoftext"):
        tok.encode_batch(["fine", f"user text with {EOT}"])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: pack_documents([[1]], row_length=0, eot_id=0), ValueError, "row_length must be >= 1"),
        (lambda: pack_documents([[1]], row_length=2, eot_id=-1), ValueError, "eot_id must be >= 0"),
        (lambda: pack_documents("abc", row_length=2, eot_id=0), TypeError, "docs must be a list of lists"),
        (lambda: pack_documents([[1, "x"]], row_length=2, eot_id=0), TypeError, r"docs\[0\]\[1\]"),
        (lambda: pack_documents([[1]], row_length=2, eot_id=0, keep_last=1), TypeError, "keep_last"),
        (lambda: pad_ids([[1]], pad_id=0, length=0), ValueError, "length must be >= 1"),
        (lambda: pad_ids([[1]], pad_id=0, side="up"), ValueError, "side must be 'left' or 'right'"),
        (lambda: truncate_ids([1], -1), ValueError, "max_length must be >= 0"),
    ],
)
def test_bad_input_of_the_helpers(call, error, message):
    with pytest.raises(error, match=message):
        call()
