"""The Unigram tokenizer: :class:`UnigramTokenizer`, SentencePiece's model in Python."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..base import (
    Token,
    Tokenizer,
    TokenizerFileError,
    check_piece_list,
    is_finite_number,
)
from ..checks import check_text, check_texts
from .checks import check_alpha, check_positive, check_rng
from .em import EMStep
from .lattice import Pieces, nbest_paths, sample_path
from .normalize import NORMALIZATIONS, WS, Normalization, normalize, normalize_aligned, normalized
from .options import BYTE_PIECES, DEFAULT_SPECIAL_TOKENS, UnigramTrainerOptions
from .training import read_corpus, train_pieces

__all__ = ["UnigramTokenizer"]

# Characters that stand for a literal ▁ inside the lattice, where ▁ means a space: the
# first one that is in no piece is used (it never matches, so it is byte-encoded).
_SENTINELS = ("\uffff", "\ufffe", "\U0010ffff", "\U0010fffe", "\U000fffff", "\U000ffffe")
_CACHE_LIMIT = 1 << 20  # words cached by encode before the cache is cleared

Encoding = tuple[tuple[int, ...], tuple[tuple[int, int], ...]]  # ids, and the span of each


def _sentinels() -> Iterator[str]:
    yield from _SENTINELS
    yield from map(chr, range(0xF0000, 0xFFFFE))  # private use: there are more than pieces


class UnigramTokenizer(Tokenizer):
    """SentencePiece's Unigram model: pieces with log-probabilities, Viterbi encoding,
    EM training, byte fallback, n-best and sampled segmentations.

    Ids: the special tokens first, then (with byte fallback) ``<0x00>``…``<0xFF>``, then
    the pieces by descending score, as in a SentencePiece model. Special tokens are
    never matched in text (SentencePiece's control symbols): add ``<s>``/``</s>`` ids
    yourself.

    >>> CORPUS = ["low lower lowest", "newer newest", "lower newer", "lowest low newest"]
    >>> tok = UnigramTokenizer().train(CORPUS, 300)
    >>> tok.tokenize("lowest newer")
    ['▁lowest', '▁newer']
    >>> tok.decode(tok.encode("new slow"))
    'new slow'
    >>> tok.tokenize("é")  # never seen: its UTF-8 bytes
    ['▁', '<0xC3>', '<0xA9>']
    """

    kind = "unigram"

    def __init__(self) -> None:
        super().__init__()
        self.normalization: str = "nfkc"
        self.add_dummy_prefix = True
        self.split_by_whitespace = True
        self.byte_fallback = True
        self._scores: list[float] = []
        self._model: Pieces | None = None
        self._byte_base = -1
        self._unk_id: int | None = None
        self._sentinel = _SENTINELS[0]
        self._byte_of: dict[str, int] = {}
        self.trace: list[EMStep] | None = None

    # -- training -------------------------------------------------------------

    def train(
        self,
        texts: str | Iterable[str],
        vocab_size: int,
        *,
        byte_fallback: bool = True,
        special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
        normalization: Normalization = "nfkc",
        add_dummy_prefix: bool = True,
        split_by_whitespace: bool = True,
        seed_size: int = 1_000_000,
        shrinking_factor: float = 0.75,
        num_sub_iterations: int = 2,
        max_piece_length: int = 16,
        progress: bool = False,
        trace: bool = False,
    ) -> UnigramTokenizer:
        """Learn ``vocab_size`` ids from ``texts`` (a string or an iterable of strings); returns ``self``.

        ``vocab_size`` counts the special tokens and, with ``byte_fallback``, the 256 byte
        pieces; it must leave room for every character of the corpus, and it is an upper
        bound (a corpus too small to offer that many pieces gives fewer). The corpus is
        read as SentencePiece reads it: lines are sentences, normalized
        (``normalization``, ``add_dummy_prefix``: see the module docstring) and cut into
        words before each space (``split_by_whitespace``; with False, pieces may span
        words, like ``"▁of▁the"``, and whole sentences are the training units).

        The training options are SentencePiece's, with its defaults: the vocabulary is
        seeded with ``seed_size`` substrings of at most ``max_piece_length`` characters;
        ``num_sub_iterations`` EM steps run before each pruning round, which keeps
        ``shrinking_factor`` of the pieces. ``progress`` shows a tqdm bar of the EM steps;
        ``trace=True`` keeps them in ``self.trace`` (a list of ``EMStep``). The
        arguments are checked into one :class:`UnigramTrainerOptions`; the algorithm,
        step by step, is in :func:`tokref.unigram.training.train_pieces`.
        """
        texts = check_texts(texts)
        options = UnigramTrainerOptions(
            vocab_size=vocab_size,
            byte_fallback=byte_fallback,
            special_tokens=special_tokens,  # type: ignore[arg-type]  # made a tuple
            normalization=normalization,
            add_dummy_prefix=add_dummy_prefix,
            split_by_whitespace=split_by_whitespace,
            seed_size=seed_size,
            shrinking_factor=shrinking_factor,
            num_sub_iterations=num_sub_iterations,
            max_piece_length=max_piece_length,
            progress=progress,
            trace=trace,
            unk_token=self.unk_token,
        )
        pieces, self.trace = train_pieces(read_corpus(texts, options), options)
        self._install(pieces, options)
        return self

    @classmethod
    def from_pieces(
        cls,
        pieces: Mapping[str, float] | Iterable[tuple[str, float]],
        *,
        normalization: Normalization = "nfkc",
        add_dummy_prefix: bool = True,
        split_by_whitespace: bool = True,
        byte_fallback: bool = True,
        special_tokens: Sequence[str] = DEFAULT_SPECIAL_TOKENS,
    ) -> UnigramTokenizer:
        """A tokenizer of the given pieces and scores, without training.

        ``pieces`` is a dict piece → score or ``(piece, score)`` pairs; they take the ids
        after the special tokens and byte pieces, in the order given. The options mean
        what they mean in :meth:`train`. ``TypeError``/``ValueError`` for a piece that is
        empty, repeated, a special or byte piece, or holds ``▁`` after its first
        character with ``split_by_whitespace``.

        >>> tok = UnigramTokenizer.from_pieces({"▁": -3.0, "a": -2.0, "b": -2.0, "ab": -2.5},
        ...                                    special_tokens=["<unk>"])
        >>> tok.tokenize("ab ba"), tok.vocab_size
        (['▁', 'ab', '▁', 'b', 'a'], 261)
        """
        tok = cls()
        if isinstance(pieces, Mapping):
            items: list[Any] = list(pieces.items())
        elif isinstance(pieces, (str, bytes)) or not isinstance(pieces, Iterable):
            raise TypeError(
                "pieces must be a dict mapping piece to score, or (piece, score) pairs, "
                f"not {type(pieces).__name__}"
            )
        else:
            items = list(pieces)
        options = UnigramTrainerOptions(
            vocab_size=len(items),
            byte_fallback=byte_fallback,
            special_tokens=special_tokens,  # type: ignore[arg-type]  # made a tuple
            normalization=normalization,
            add_dummy_prefix=add_dummy_prefix,
            split_by_whitespace=split_by_whitespace,
            unk_token=tok.unk_token,
        )
        # The whole vocabulary, now that the number of special and byte pieces is known.
        options = dataclasses.replace(options, vocab_size=options.n_meta + len(items))
        scored = _check_scored_pieces(
            items, options, name="pieces", type_error=TypeError, value_error=ValueError
        )
        tok._install(scored, options)
        return tok

    def _install(self, pieces: list[tuple[str, float]], options: UnigramTrainerOptions) -> None:
        """Make ``pieces`` (checked ``(piece, score)``) the vocabulary, after
        ``options.meta_pieces``, with the text pipeline of ``options``."""
        meta = options.meta_pieces
        self._set_vocab([*meta, *(p for p, _ in pieces)])
        self.normalization = options.normalization
        self.add_dummy_prefix = options.add_dummy_prefix
        self.split_by_whitespace = options.split_by_whitespace
        self.byte_fallback = options.byte_fallback
        self.special_tokens = options.special_tokens
        self._scores = [0.0] * len(meta) + [sc for _, sc in pieces]
        self._byte_base = len(options.special_tokens) if options.byte_fallback else -1
        self._byte_of = {p: b for b, p in enumerate(BYTE_PIECES)} if options.byte_fallback else {}
        # What the base class's unk_id returns, kept for the encoder's inner loops.
        self._unk_id = self._ids.get(self.unk_token)
        first = len(meta)
        keys = {p: first + i for i, (p, _) in enumerate(pieces)}
        self._model = Pieces(keys, self._scores)
        used = set().union(*map(set, keys))
        self._sentinel = next(c for c in _sentinels() if c not in used)
        self._cache = {}

    # -- the vocabulary -------------------------------------------------------

    @property
    def pieces(self) -> list[tuple[str, float]]:  # type: ignore[override]
        """``(piece, log-probability)`` for every id, in id order; special and byte pieces score 0.0.

        Unlike other tokenizers' ``pieces`` (the strings alone), the scores come with
        them: they are the model.
        """
        self._require_trained()
        return list(zip(self._pieces, self._scores))

    @property
    def scores(self) -> list[float]:
        """The score (log-probability) of every id, in id order, special and byte pieces
        0.0: a copy.

        >>> tok = UnigramTokenizer.from_pieces({"▁": -3.0, "a": -2.5}, special_tokens=["<unk>"])
        >>> tok.scores[0], tok.scores[257:]
        (0.0, [-3.0, -2.5])
        """
        self._require_trained()
        return list(self._scores)

    @property
    def unk_score(self) -> float:
        """The score of an unknown character's node in the lattice:
        ``min(scores of the pieces) - UNK_PENALTY``, as in SentencePiece.

        >>> UnigramTokenizer.from_pieces({"▁": -3.0, "a": -2.5}).unk_score
        -13.0
        """
        self._require_trained()
        assert self._model is not None
        return self._model.unk_score

    @property
    def byte_base(self) -> int | None:
        """The id of ``<0x00>`` (byte ``b`` has id ``byte_base + b``), or ``None``
        without byte fallback.

        >>> UnigramTokenizer.from_pieces({"▁": -1.0}).byte_base  # after <unk>, <s>, </s>
        3
        """
        self._require_trained()
        return self._byte_base if self.byte_fallback else None

    def normalize(self, text: str) -> str:
        """``text`` as this tokenizer normalizes it: what ``decode(encode(text))`` returns."""
        self._require_trained()
        return normalize(text, normalization=self.normalization)  # type: ignore[arg-type]

    # -- encoding -------------------------------------------------------------

    def split_units(self, normalized: str) -> list[str]:
        """The units of ``normalized`` text (what :meth:`normalize` returns): with the dummy
        prefix added, cut before every space, so that each unit but perhaps the first is
        one word with its space in front; the whole text is one unit without
        ``split_by_whitespace``. Units keep spaces as ``" "``, not ``▁``; they join back to
        the prefixed text, and each one is encoded on its own (:meth:`encode_unit`).

        >>> tok = UnigramTokenizer.from_pieces({"▁": -3.0, "a": -2.0, "b": -2.0, "ab": -2.5})
        >>> tok.split_units("ab ba")
        [' ab', ' ba']
        """
        self._require_trained()
        return self._units(check_text(normalized, name="normalized"))

    def encode_unit(self, unit: str) -> Encoding:
        """The ids of one unit of :meth:`split_units`, and for each id its span
        ``(start, end)`` in the unit: the characters of the lattice node it comes from.

        A piece spans its characters; an unknown character spans itself, and with byte
        fallback each of its UTF-8 bytes gets that same span (``" é"`` below: two byte
        ids, both ``(1, 2)``). Without byte fallback it is ``<unk>``; ``encode`` then
        fuses runs of ``<unk>``, which this does not.

        >>> tok = UnigramTokenizer.from_pieces({"▁": -3.0, "a": -2.0, "b": -2.0, "ab": -2.5},
        ...                                    special_tokens=["<unk>"])
        >>> tok.encode_unit(" ab")  # ▁ is id 257, ab 260
        ((257, 260), ((0, 1), (1, 3)))
        >>> tok.encode_unit(" é")  # byte_base 1: <0xC3>, <0xA9>
        ((257, 196, 170), ((0, 1), (1, 2), (1, 2)))
        """
        self._require_trained()
        return self._encode_unit(check_text(unit, name="unit"))

    def _norm(self, text: str) -> str:
        return normalized(text, self.normalization)

    def _units(self, norm: str) -> list[str]:
        # split_units without the checks, for the encoder's loops.
        s = " " + norm if self.add_dummy_prefix and norm else norm
        if not s:
            return []
        if not self.split_by_whitespace:
            return [s]
        parts = s.split(" ")
        units = [" " + p for p in parts[1:]]
        if parts[0]:
            units.insert(0, parts[0])
        return units

    def _lattice_string(self, unit: str) -> str:
        # A literal ▁ becomes the sentinel (in no piece), then spaces become ▁.
        if WS in unit:
            unit = unit.replace(WS, self._sentinel)
        return unit.replace(" ", WS)

    def _path_ids(self, unit: str, path: list[tuple[Any, int, int]]) -> Encoding:
        """Ids and unit-relative spans of a path; unknown characters become bytes or ``<unk>``."""
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        for key, i, j in path:
            if key is not None:
                ids.append(key)
                spans.append((i, j))
            elif self.byte_fallback:
                # The unit's own character: a space gives <0x20>, a literal ▁ its 3 bytes.
                for b in unit[i].encode("utf-8", "surrogatepass"):
                    ids.append(self._byte_base + b)
                    spans.append((i, j))
            else:
                assert self._unk_id is not None
                ids.append(self._unk_id)
                spans.append((i, j))
        return tuple(ids), tuple(spans)

    def _encode_unit(self, unit: str) -> Encoding:
        # encode_unit without the checks, memoized per word.
        hit = self._cache.get(unit)
        if hit is None:
            assert self._model is not None
            path, _ = self._model.viterbi(self._lattice_string(unit))
            hit = self._path_ids(unit, path)
            # Only words repeat; a whole sentence (without split_by_whitespace) rarely does.
            if self.split_by_whitespace:
                if len(self._cache) >= _CACHE_LIMIT:
                    self._cache.clear()
                self._cache[unit] = hit
        return hit

    def _fuse_unk(self, ids: list[int]) -> list[int]:
        unk = self._unk_id
        if self.byte_fallback or unk is None or unk not in ids:
            return ids
        return [x for k, x in enumerate(ids) if not (x == unk and k and ids[k - 1] == unk)]

    def _encode(self, text: str) -> list[int]:
        out: list[int] = []
        cache = self._cache
        for unit in self._units(self._norm(text)):
            hit = cache.get(unit)
            out.extend((hit or self._encode_unit(unit))[0])
        return self._fuse_unk(out)

    def _encode_with_offsets(self, text: str) -> list[Token]:
        norm, st, en = normalize_aligned(text, self.normalization)
        if self.add_dummy_prefix and norm:  # the dummy space is empty, where the text starts
            st = [st[0], *st]
            en = [st[0], *en]
        out: list[Token] = []
        o = 0
        pieces = self._pieces
        unk = None if self.byte_fallback else self._unk_id
        for unit in self._units(norm):
            ids, spans = self._encode_unit(unit)
            for id_, (i, j) in zip(ids, spans):
                if id_ == unk and out and out[-1].id == unk:
                    out[-1] = Token(unk, pieces[unk], out[-1].start, en[o + j - 1])
                else:
                    out.append(Token(id_, pieces[id_], st[o + i], en[o + j - 1]))
            o += len(unit)
        return out

    def _prepare(self, text: object) -> list[str]:
        self._require_trained()
        return self._units(self._norm(check_text(text)))

    def encode_nbest(self, text: str, k: int) -> list[tuple[list[int], float]]:
        """The ``k`` most probable encodings of ``text``, best first, each with its
        log-probability (the sum of its pieces' scores; an unknown character scores
        ``min(scores) - 10``). The first is ``encode(text)``.

        >>> CORPUS = ["low lower lowest", "newer newest", "lower newer", "lowest low newest"]
        >>> tok = UnigramTokenizer().train(CORPUS, 300)
        >>> [([tok.id_to_token(i) for i in ids], round(score, 2))
        ...  for ids, score in tok.encode_nbest("lower", 3)]
        [(['▁low', 'er'], -3.55), (['▁low', 'e', 'r'], -5.76), (['▁', 'l', 'o', 'w', 'er'], -11.01)]
        """
        units = self._prepare(text)
        k = check_positive(k, name="k")
        if not units:
            return [([], 0.0)]
        s = "".join(units)
        assert self._model is not None
        out = []
        for path, score in nbest_paths(self._model, self._lattice_string(s), k):
            out.append((self._fuse_unk(list(self._path_ids(s, path)[0])), score))
        return out

    def sample_encode(
        self,
        text: str,
        *,
        alpha: float = 0.1,
        seed: int | random.Random | None = None,
    ) -> list[int]:
        """Subword regularization: an encoding of ``text`` drawn at random, a segmentation
        having probability ∝ ``P(seg) ** alpha`` (forward-filtering backward-sampling).

        ``alpha`` near 0 samples nearly uniformly, 1.0 from the model's own distribution;
        ``seed`` is an int, a ``random.Random`` (reused across calls) or None. Words are
        sampled independently, which is exact: no piece crosses a ``▁``.

        >>> CORPUS = ["low lower lowest", "newer newest", "lower newer", "lowest low newest"]
        >>> tok = UnigramTokenizer().train(CORPUS, 300)
        >>> {tok.decode(tok.sample_encode("lower newest", seed=s)) for s in range(5)}
        {'lower newest'}
        """
        units = self._prepare(text)
        alpha = check_alpha(alpha)
        rng = check_rng(seed)
        out: list[int] = []
        assert self._model is not None
        for unit in units:
            path = sample_path(self._model, self._lattice_string(unit), alpha, rng)
            out.extend(self._path_ids(unit, path)[0])
        return self._fuse_unk(out)

    # -- decoding -------------------------------------------------------------

    def _join(self, pieces: list[str]) -> str:
        buf = bytearray()
        byte_of = self._byte_of
        for p in pieces:
            b = byte_of.get(p)
            if b is not None:
                buf.append(b)
            else:
                buf += p.replace(WS, " ").encode("utf-8", "surrogatepass")
        try:
            text = buf.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:  # bytes that are not UTF-8: only from hand-made ids
            text = buf.decode("utf-8", "replace")
        if self.add_dummy_prefix and text.startswith(" "):
            text = text[1:]
        return text

    # -- files ----------------------------------------------------------------

    def _to_config(self) -> dict[str, Any]:
        first = len(self.special_tokens) + (256 if self.byte_fallback else 0)
        return {
            "normalization": self.normalization,
            "add_dummy_prefix": self.add_dummy_prefix,
            "split_by_whitespace": self.split_by_whitespace,
            "byte_fallback": self.byte_fallback,
            "special_tokens": list(self.special_tokens),
            "pieces": [[p, sc] for p, sc in zip(self._pieces[first:], self._scores[first:])],
        }

    def _from_config(self, config: dict[str, Any]) -> None:
        normalization = config["normalization"]
        if normalization not in NORMALIZATIONS:
            raise TokenizerFileError(
                f"'normalization' must be 'nfkc' or 'identity', not {normalization!r}"
            )
        flags = {}
        for name in ("add_dummy_prefix", "split_by_whitespace", "byte_fallback"):
            if not isinstance(config[name], bool):
                raise TokenizerFileError(f"{name!r} must be true or false")
            flags[name] = config[name]
        specials = tuple(check_piece_list(config["special_tokens"], name="special_tokens"))
        raw = config["pieces"]
        if not isinstance(raw, list) or not raw:
            raise TokenizerFileError("'pieces' must be a non-empty list of [piece, score]")
        # Checked here so that the options below cannot fail with a message about
        # train's arguments.
        if flags["byte_fallback"] and set(specials) & set(BYTE_PIECES):
            raise TokenizerFileError("'special_tokens' holds byte-fallback pieces")
        if not flags["byte_fallback"] and self.unk_token not in specials:
            raise TokenizerFileError(
                f"without byte fallback the special tokens must include {self.unk_token!r}"
            )
        n_meta = len(specials) + (len(BYTE_PIECES) if flags["byte_fallback"] else 0)
        options = UnigramTrainerOptions(
            vocab_size=n_meta + len(raw), normalization=normalization,
            special_tokens=specials, unk_token=self.unk_token, **flags,
        )
        pieces = _check_scored_pieces(
            raw, options, name="'pieces'",
            type_error=TokenizerFileError, value_error=TokenizerFileError,
        )
        self._install(pieces, options)


def _check_scored_pieces(
    items: Sequence[object],
    options: UnigramTrainerOptions,
    *,
    name: str,
    type_error: type[Exception],
    value_error: type[Exception],
) -> list[tuple[str, float]]:
    """``items`` as ``(piece, float score)``, checked against ``options``: for
    ``from_pieces`` (``TypeError``/``ValueError``) and for files (``TokenizerFileError``)."""
    pieces: list[tuple[str, float]] = []
    for k, item in enumerate(items):
        if (
            not isinstance(item, (list, tuple))
            or len(item) != 2
            or not isinstance(item[0], str)
            or not is_finite_number(item[1])
        ):
            raise type_error(
                f"{name}[{k}] must be [piece, score] with a finite score, not {item!r}"
            )
        p = item[0]
        if not p:
            raise value_error(f"{name}[{k}] is the empty string")
        if options.split_by_whitespace and WS in p[1:]:
            raise value_error(
                f"{name}[{k}] = {p!r} has ▁ after its first character, which "
                "split_by_whitespace forbids"
            )
        pieces.append((p, float(item[1])))
    if not pieces:
        raise value_error(f"{name} must be a non-empty list of [piece, score]")
    names = [p for p, _ in pieces]
    if len(set(names)) != len(names):
        raise value_error(f"{name} has repeated entries")
    clash = set(names) & set(options.meta_pieces)
    if clash:
        raise value_error(
            f"{name} repeats special or byte-fallback pieces: {sorted(clash)[:5]}"
        )
    return pieces
