"""The WordPiece tokenizer: BERT's pipeline end to end, trained or loaded from a
``vocab.txt``, with the ids, tokens and offsets of Hugging Face ``tokenizers``.

>>> tok = WordPieceTokenizer.from_vocab([*BERT_SPECIAL_TOKENS, "hug", "##s", "!"])
>>> tok.tokenize("Hugs!")
['hug', '##s', '!']
>>> tok.encode("Hugs!")
[2, 5, 6, 7, 3]
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base import Token, Tokenizer, TokenizerFileError, check_piece_list
from ..checks import (
    check_bool,
    check_int,
    check_special_tokens,
    check_text,
    check_texts,
    is_integer,
    split_special,
)
from .model import BERT_SPECIAL_TOKENS, CLS, SEP, UNK, greedy_split, wordpiece_decode
from .normalization import CHUNK_RE, CJK_RE, PUNCT_RE, check_flags, chunk_words
from .training import WordPieceStep, train_wordpiece
from .vocab import check_pieces, read_vocab_txt, unwritable_piece, vocab_from_dict

__all__ = ["WordPieceTokenizer", "WordPieceEncoding"]


@dataclass(frozen=True)
class WordPieceEncoding:
    """What ``WordPieceTokenizer.encode_plus`` returns (the fields of a Hugging Face
    ``Encoding``). ``offsets[i]`` is the span of the input text (of ``pair`` for the
    second sequence) that token ``i`` comes from; added ``[CLS]``/``[SEP]`` get (0, 0)
    and ``special_tokens_mask`` 1."""

    ids: list[int]
    tokens: list[str]
    token_type_ids: list[int]
    attention_mask: list[int]
    offsets: list[tuple[int, int]]
    special_tokens_mask: list[int]

    def __len__(self) -> int:
        return len(self.ids)


_MAX_CACHE = 200_000


def _check_options(prefix: object, max_input_chars_per_word: object) -> tuple[str, int]:
    if not isinstance(prefix, str):
        raise TypeError(f"continuing_subword_prefix must be str, not {type(prefix).__name__}")
    if not prefix:
        raise ValueError(
            "continuing_subword_prefix cannot be empty: decoding would not know which "
            "pieces continue a word; BERT uses '##'"
        )
    m = check_int(max_input_chars_per_word, name="max_input_chars_per_word")
    if m < 1:  # not check_int's minimum: "at least 1" is the message callers know
        raise ValueError(f"max_input_chars_per_word must be at least 1, not {m}")
    return prefix, m


def _check_specials(special_tokens: object) -> tuple[str, ...]:
    specials = check_special_tokens(special_tokens)
    if UNK not in specials:
        raise ValueError(
            f"the special tokens must include {UNK!r}, which words that cannot be split "
            f"become; got {list(specials)}"
        )
    return specials


def _count_words(
    corpus: list[str], specials: Sequence[str], lowercase: bool, strip_accents: bool
) -> Counter[str]:
    """The words of the training texts with their counts. Special tokens written in the
    text are not words, as in encoding; each distinct chunk is normalized once."""
    chunks: Counter[str] = Counter()
    for t in corpus:
        for seg, is_special in split_special(t, specials):
            if not is_special:
                chunks.update(CHUNK_RE.findall(seg))
    word_counts: Counter[str] = Counter()
    for chunk, c in chunks.items():
        for word, _ in chunk_words(chunk, lowercase, strip_accents):
            word_counts[word] += c
    return word_counts


def _alphabet(chars: list[str], specials: Sequence[str], prefix: str) -> tuple[list[str], int]:
    """The alphabet pieces of ``chars`` (sorted), and how many of them can continue a
    word: every character, and also its ``prefix`` form unless pre-tokenization always
    isolates it (punctuation, CJK), so that a word of known characters always splits."""
    inner = [ch for ch in chars if not (PUNCT_RE.match(ch) or CJK_RE.match(ch))]
    alphabet = [ch for ch in chars if ch not in specials]
    alphabet += [prefix + ch for ch in inner if prefix + ch not in specials]
    return alphabet, len(inner)


class WordPieceTokenizer(Tokenizer):
    """BERT's WordPiece, identical to Hugging Face ``tokenizers``' BERT pipeline.

    Train it (``train``), or load a BERT ``vocab.txt`` (``from_vocab``).
    """

    kind = "wordpiece"
    #: BERT's unknown token: every WordPiece vocabulary has it (``unk_id`` is its id).
    unk_token = UNK

    def __init__(self) -> None:
        super().__init__()
        self.lowercase = True
        self.strip_accents = True
        self.continuing_subword_prefix = "##"
        self.max_input_chars_per_word = 100
        self.trace: list[WordPieceStep] | None = None
        self._merges: list[tuple[str, str]] = []
        self._max_piece = 0

    # -- configuration -----------------------------------------------------------

    def _configure(
        self,
        pieces: list[str],
        *,
        special_tokens: Sequence[str],
        lowercase: object,
        strip_accents: object,
        continuing_subword_prefix: object,
        max_input_chars_per_word: object,
    ) -> None:
        lowercase, strip_accents = check_flags(lowercase, strip_accents)
        prefix, m = _check_options(continuing_subword_prefix, max_input_chars_per_word)
        specials = _check_specials(special_tokens)
        ids = {p: i for i, p in enumerate(pieces)}
        missing = [s for s in specials if s not in ids]
        if missing:
            raise ValueError(
                f"special token(s) {missing} are not in the vocabulary; add them to it or "
                "leave them out of special_tokens"
            )
        self._set_vocab(pieces)  # which also empties the cache
        self.special_tokens = specials
        self.lowercase, self.strip_accents = lowercase, strip_accents
        self.continuing_subword_prefix = prefix
        self.max_input_chars_per_word = m
        n = len(prefix)
        self._max_piece = max(len(p) - n if p.startswith(prefix) else len(p) for p in pieces)

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The pairs merged in training, in order (empty for a loaded ``vocab.txt``)."""
        self._require_trained()
        return list(self._merges)

    @property
    def max_piece_chars(self) -> int:
        """The length in characters of the longest piece, its ``continuing_subword_prefix``
        not counted: the greedy match never looks up a longer piece.

        >>> pieces = ["[UNK]", "hugging", "##faces"]
        >>> WordPieceTokenizer.from_vocab(pieces, special_tokens=["[UNK]"]).max_piece_chars
        7
        """
        self._require_trained()
        return self._max_piece

    # -- training ----------------------------------------------------------------

    def train(
        self,
        texts: str | Iterable[str],
        vocab_size: int,
        *,
        lowercase: bool = True,
        strip_accents: bool | None = None,
        special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
        progress: bool = False,
        trace: bool = False,
    ) -> WordPieceTokenizer:
        """Learn a vocabulary of ``vocab_size`` entries (special tokens, alphabet and
        merged pieces) from ``texts``; returns ``self``.

        Stops early if no pair is left to merge. ``strip_accents=None`` follows
        ``lowercase``. ``trace=True`` keeps every step in ``self.trace``.
        """
        # Check every argument before the work, and change nothing if one is wrong.
        specials = _check_specials(special_tokens)
        lowercase, strip_accents = check_flags(lowercase, strip_accents)
        prefix, _ = _check_options(continuing_subword_prefix, max_input_chars_per_word)
        vocab_size = check_int(vocab_size, name="vocab_size")
        word_counts = _count_words(check_texts(texts), specials, lowercase, strip_accents)
        if not word_counts:
            raise ValueError(
                "the corpus has no words (only whitespace, control characters or special "
                "tokens); pass some text"
            )
        bad = next((w for w in word_counts if w.startswith(prefix)), None)
        if bad is not None:
            raise ValueError(
                f"the word {bad!r} starts with the continuing-subword prefix {prefix!r}, so "
                "its pieces would be ambiguous; choose a prefix no word begins with (with "
                "'##' this cannot happen: '#' is punctuation, always a word of its own)"
            )
        chars = sorted({ch for w in word_counts for ch in w})
        alphabet, n_inner = _alphabet(chars, specials, prefix)
        need = len(specials) + len(alphabet)
        if vocab_size < need:
            raise ValueError(
                f"vocab_size = {vocab_size} is too small: the {len(specials)} special tokens "
                f"and the alphabet of {len(alphabet)} pieces ({len(chars)} characters, and "
                f"{n_inner} of them again with {prefix!r}, to continue a word) need "
                f"{need}; pass vocab_size >= {need}"
            )
        steps = train_wordpiece(
            word_counts, vocab_size - need, prefix=prefix,
            known=[*specials, *alphabet], progress=progress,
        )
        pieces = [*specials, *alphabet, *(s.piece for s in steps if s.new)]
        self._configure(
            pieces, special_tokens=specials, lowercase=lowercase, strip_accents=strip_accents,
            continuing_subword_prefix=prefix, max_input_chars_per_word=max_input_chars_per_word,
        )
        self._merges = [s.pair for s in steps]
        self.trace = steps if trace else None
        return self

    # -- BERT vocab.txt ----------------------------------------------------------

    @classmethod
    def from_vocab(
        cls,
        vocab: Sequence[str] | Mapping[str, int] | str | os.PathLike[str],
        *,
        lowercase: bool = True,
        strip_accents: bool | None = None,
        special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
    ) -> WordPieceTokenizer:
        """A tokenizer with a ready vocabulary: a list of pieces in id order, a dict
        piece → id (ids exactly 0..n-1), or the path of a BERT ``vocab.txt`` (one piece
        per line, UTF-8; trailing whitespace is ignored, as Hugging Face does).

        For ``bert-base-uncased`` use the defaults; for a cased model pass
        ``lowercase=False``.
        """
        if isinstance(vocab, (str, os.PathLike)):
            pieces = read_vocab_txt(vocab)
        elif isinstance(vocab, Mapping):
            pieces = vocab_from_dict(vocab)
        elif isinstance(vocab, (bytes, bytearray)) or not isinstance(vocab, Iterable):
            raise TypeError(
                "vocab must be a list of str, a dict mapping str to int, or the path of a "
                f"vocab.txt, not {type(vocab).__name__}"
            )
        else:
            pieces = list(vocab)
            for i, p in enumerate(pieces):
                if not isinstance(p, str):
                    raise TypeError(f"vocab[{i}] must be str, not {type(p).__name__}")
        check_pieces(pieces)
        tok = cls()
        tok._configure(
            pieces, special_tokens=special_tokens, lowercase=lowercase,
            strip_accents=strip_accents, continuing_subword_prefix=continuing_subword_prefix,
            max_input_chars_per_word=max_input_chars_per_word,
        )
        return tok

    def save_vocab(self, path: str | os.PathLike[str]) -> None:
        """Write the vocabulary as a BERT ``vocab.txt``: one piece per line, in id order."""
        self._require_trained()
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path must be a str or os.PathLike, not {type(path).__name__}")
        bad = unwritable_piece(self._pieces)
        if bad is not None:
            raise ValueError(
                f"the piece {bad!r} cannot be written to a vocab.txt (it has a line break or "
                "ends with whitespace); use .save(path) instead"
            )
        Path(path).write_text("".join(p + "\n" for p in self._pieces), encoding="utf-8")

    # -- encoding ----------------------------------------------------------------

    def _encode_chunk(self, chunk: str) -> tuple[tuple[int, int, int], ...]:
        """(id, start, end) of the tokens of one run of non-whitespace, offsets in it."""
        hit = self._cache.get(chunk)
        if hit is not None:
            return hit
        vocab = self._ids
        prefix = self.continuing_subword_prefix
        unk = vocab[UNK]
        out: list[tuple[int, int, int]] = []
        for word, idx in chunk_words(chunk, self.lowercase, self.strip_accents):
            spans = (
                greedy_split(word, vocab, prefix, self._max_piece)
                if len(word) <= self.max_input_chars_per_word else None
            )
            if spans is None:
                out.append((unk, idx[0], idx[-1] + 1))
                continue
            for s, e in spans:
                piece = word[s:e] if s == 0 else prefix + word[s:e]
                out.append((vocab[piece], idx[s], idx[e - 1] + 1))
        res = tuple(out)
        if len(self._cache) >= _MAX_CACHE:
            self._cache.clear()
        self._cache[chunk] = res
        return res

    def _encode_spans(self, text: str) -> list[tuple[int, int, int]]:
        """(id, start, end) of every token of ``text``."""
        out = []
        pos = 0
        for seg, is_special in split_special(text, self.special_tokens):
            if is_special:
                out.append((self._ids[seg], pos, pos + len(seg)))
            else:
                for m in CHUNK_RE.finditer(seg):
                    base = pos + m.start()
                    out.extend((i, base + s, base + e) for i, s, e in self._encode_chunk(m.group()))
            pos += len(seg)
        return out

    def _encode_with_offsets(self, text: str) -> list[Token]:
        pieces = self._pieces
        return [Token(i, pieces[i], s, e) for i, s, e in self._encode_spans(text)]

    def _encode_ids(self, text: str) -> list[int]:
        out: list[int] = []
        for seg, is_special in split_special(text, self.special_tokens):
            if is_special:
                out.append(self._ids[seg])
            else:
                for chunk in CHUNK_RE.findall(seg):
                    out.extend(t[0] for t in self._encode_chunk(chunk))
        return out

    def _template_ids(self) -> tuple[int, int]:
        missing = [t for t in (CLS, SEP) if t not in self._ids]
        if missing:
            raise ValueError(
                f"this vocabulary has no {missing[0]!r} token to add; pass "
                "add_special_tokens=False"
            )
        return self._ids[CLS], self._ids[SEP]

    def _added_special_ids(self, options: dict[str, Any]) -> tuple[list[int], list[int]]:
        # encode_batch's hook: BERT's post-processor wraps each text as [CLS] ... [SEP],
        # as encode does, unless add_special_tokens=False.
        add = check_bool(options.pop("add_special_tokens", True), name="add_special_tokens")
        if not add:
            return [], []
        cls_id, sep_id = self._template_ids()
        return [cls_id], [sep_id]

    def _encode_content(self, text: str, options: dict[str, Any]) -> list[int]:
        # encode_batch's hook: the text's ids without [CLS] and [SEP] (encode adds them).
        return self.encode(text, add_special_tokens=False, **options)

    def encode(  # type: ignore[override]
        self, text: str, pair: str | None = None, *, add_special_tokens: bool = True
    ) -> list[int]:
        """Token ids of ``text`` (and ``pair``): ``[CLS] text [SEP] (pair [SEP])``, or
        without the added tokens if ``add_special_tokens=False``."""
        self._require_trained()
        check_bool(add_special_tokens, name="add_special_tokens")
        ids = self._encode_ids(check_text(text))
        pair_ids = None if pair is None else self._encode_ids(check_text(pair, name="pair"))
        if add_special_tokens:
            cls_id, sep_id = self._template_ids()
            ids = [cls_id, *ids, sep_id]
            if pair_ids is not None:
                pair_ids = [*pair_ids, sep_id]
        return ids if pair_ids is None else ids + pair_ids

    def encode_plus(
        self, text: str, pair: str | None = None, *, add_special_tokens: bool = True
    ) -> WordPieceEncoding:
        """Everything BERT needs: ids, tokens, token type ids, attention mask, offsets.

        Named after ``transformers``' ``encode_plus``, which returns these fields
        (``encode`` keeps the ``list[int]`` API every tokref tokenizer shares).
        """
        self._require_trained()
        check_bool(add_special_tokens, name="add_special_tokens")
        text = check_text(text)
        if pair is not None:
            pair = check_text(pair, name="pair")
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        type_ids: list[int] = []
        special: list[int] = []

        def add(spans: list[tuple[int, int, int]], type_id: int, is_special: int) -> None:
            ids.extend(i for i, _, _ in spans)
            offsets.extend((s, e) for _, s, e in spans)
            type_ids.extend([type_id] * len(spans))
            special.extend([is_special] * len(spans))

        if add_special_tokens:
            cls_id, sep_id = self._template_ids()
            add([(cls_id, 0, 0)], 0, 1)
        add(self._encode_spans(text), 0, 0)
        if add_special_tokens:
            add([(sep_id, 0, 0)], 0, 1)
        if pair is not None:
            add(self._encode_spans(pair), 1, 0)
            if add_special_tokens:
                add([(sep_id, 0, 0)], 1, 1)
        pieces = self._pieces
        return WordPieceEncoding(
            ids=ids,
            tokens=[pieces[i] for i in ids],
            token_type_ids=type_ids,
            attention_mask=[1] * len(ids),
            offsets=offsets,
            special_tokens_mask=special,
        )

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
        """The text of ``ids``, as Hugging Face's WordPiece decoder writes it: ``##``
        pieces glued, others spaced, then cleaned up (see :mod:`tokref.wordpiece`).

        Special tokens (``[UNK]`` too) are left out unless ``skip_special_tokens=False``.
        """
        return super().decode(ids, skip_special_tokens=skip_special_tokens)

    def _join(self, pieces: list[str]) -> str:
        return wordpiece_decode(pieces, prefix=self.continuing_subword_prefix)

    # -- files ---------------------------------------------------------------------

    def _to_config(self) -> dict[str, Any]:
        return {
            "lowercase": self.lowercase,
            "strip_accents": self.strip_accents,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "special_tokens": list(self.special_tokens),
            "vocab": list(self._pieces),
            "merges": [list(m) for m in self._merges],
        }

    def _from_config(self, config: dict[str, Any]) -> None:
        for key in ("lowercase", "strip_accents"):
            if not isinstance(config[key], bool):
                raise TokenizerFileError(f"{key!r} must be true or false")
        prefix = config["continuing_subword_prefix"]
        if not isinstance(prefix, str) or not prefix:
            raise TokenizerFileError("'continuing_subword_prefix' must be a non-empty string")
        m = config["max_input_chars_per_word"]
        if not is_integer(m) or m < 1:
            raise TokenizerFileError("'max_input_chars_per_word' must be an integer >= 1")
        pieces = check_piece_list(config["vocab"], name="vocab")
        specials = check_piece_list(config["special_tokens"], name="special_tokens")
        merges = config.get("merges", [])
        if not isinstance(merges, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in merges
        ):
            raise TokenizerFileError("'merges' must be a list of [str, str] pairs")
        if not pieces:
            raise TokenizerFileError("the vocabulary is empty")
        try:
            self._configure(
                pieces, special_tokens=specials, lowercase=config["lowercase"],
                strip_accents=config["strip_accents"], continuing_subword_prefix=prefix,
                max_input_chars_per_word=m,
            )
        except (TypeError, ValueError) as e:
            raise TokenizerFileError(str(e)) from None
        self._merges = [(a, b) for a, b in merges]

    def __repr__(self) -> str:
        if not self._pieces:
            return "WordPieceTokenizer(untrained)"
        return (
            f"WordPieceTokenizer(vocab_size={len(self._pieces)}, "
            f"lowercase={self.lowercase}, strip_accents={self.strip_accents})"
        )
