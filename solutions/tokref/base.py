"""The base class every tokenizer in tokref shares: the vocabulary, the public API, files.

A tokenizer maps text to a list of integer ids and back. Subclasses implement
``train`` and a few hooks (``_encode_with_offsets``, ``_join``,
``_to_config``/``_from_config``); the base class owns the vocabulary (``pieces``,
``vocab``, ``unk_id``, the default special tokens) and provides the public API with its
input checks (from :mod:`tokref.checks`, re-exported here), the offsets, and versioned,
type-tagged JSON files (never pickle).

>>> from tokref import CharTokenizer
>>> tok = CharTokenizer().train("hello")
>>> tok.encode("hell")
[5, 4, 6, 6]
>>> tok.decode([5, 4, 6, 6])
'hell'
"""

from __future__ import annotations

import inspect
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from .batch import (
    BatchEncoding,
    assemble_batch,
    check_batch_texts,
    check_padding,
    check_side,
    check_truncation,
)
# The checks live in their own room; the names stay importable from here, where every
# tokenizer module has always found them.
from .checks import (
    check_bool,
    check_id,
    check_ids,
    check_int,
    check_probability,
    check_rng,
    check_special_tokens,
    check_text,
    check_texts,
    check_vocab_size,
    is_integer,
    iter_texts,
    specials_pattern,
    split_special,
)

__all__ = [
    "Token",
    "Tokenizer",
    "NotTrainedError",
    "TokenizerFileError",
    "load",
    "native_kind",
    "check_text",
    "check_texts",
    "iter_texts",
    "check_ids",
    "check_id",
    "check_vocab_size",
    "check_special_tokens",
    "check_int",
    "check_bool",
    "check_probability",
    "check_rng",
    "is_integer",
    "split_special",
    "specials_pattern",
    "UNK",
    "DEFAULT_SPECIAL_TOKENS",
    "PAD_TOKENS",
    "BatchEncoding",
]

UNK = "<unk>"
# The special tokens of the character and word tokenizers: padding, unknown input, and
# the beginning and end of a sequence. (BPE, WordPiece and Unigram keep the defaults of
# the libraries they mirror.)
DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = ("<pad>", UNK, "<bos>", "<eos>")
# The special tokens encode_batch pads with when no pad_token is given: tokref's and
# SentencePiece's "<pad>", BERT's "[PAD]".
PAD_TOKENS: tuple[str, ...] = ("<pad>", "[PAD]")

FORMAT_NAME = "tokref"
FORMAT_VERSION = 1
# A tokenizer file larger than this is refused before it is parsed: a real vocabulary
# of a few hundred thousand entries is a few MB, so 256 MiB is generous.
MAX_FILE_BYTES = 256 * 1024 * 1024

T = TypeVar("T", bound="Tokenizer")


class NotTrainedError(ValueError):
    """Raised when a tokenizer is used before ``train`` (or ``load``) gave it a vocabulary."""


class TokenizerFileError(ValueError):
    """Raised when a tokenizer file is corrupt, of another type, or of another version."""


@dataclass(frozen=True)
class Token:
    """One token of an encoding: its id, its text, and where it came from.

    ``text[start:end]`` is the span of the input that produced the token (the offsets of
    Hugging Face ``tokenizers``). ``piece`` is the vocabulary entry, which can differ
    from that span: a lowercasing tokenizer maps ``"The"`` to the piece ``"the"``, and an
    unknown word maps to ``"<unk>"``.
    """

    id: int
    piece: str
    start: int
    end: int


# ---------------------------------------------------------------------------
# The base class
# ---------------------------------------------------------------------------

_REGISTRY: dict[str, type[Tokenizer]] = {}


class Tokenizer:
    """Base class: a vocabulary of pieces, ids ``0..vocab_size-1``, and the public API.

    Subclasses set ``kind`` (the type tag written to files) and implement:

    - ``train(texts, ...) -> self``;
    - ``_encode_with_offsets(text) -> list[Token]``;
    - ``_join(pieces) -> str``, the inverse of splitting for decode;
    - ``_to_config() -> dict`` and ``_from_config(config)``, the JSON payload.

    The base keeps ``self._pieces`` (id → piece) and ``self._ids`` (piece → id).
    """

    kind: ClassVar[str] = ""
    #: The piece unknown input maps to, where a vocabulary has one.
    unk_token: ClassVar[str] = UNK

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Only a class that names its own kind is registered: a subclass that inherits
        # its parent's kind (a student's or a test's variant) must not take over loading
        # the parent's files.
        kind = cls.__dict__.get("kind")
        if kind:
            if kind in _REGISTRY and _REGISTRY[kind].__qualname__ != cls.__qualname__:
                raise TypeError(f"tokenizer kind {kind!r} is taken by {_REGISTRY[kind].__name__}")
            _REGISTRY[kind] = cls

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._ids: dict[str, int] = {}
        self.special_tokens: tuple[str, ...] = ()
        # Memo of encoded words or pre-tokens; emptied whenever the vocabulary changes.
        self._cache: dict[str, Any] = {}

    # -- state ----------------------------------------------------------------

    @property
    def is_trained(self) -> bool:
        return bool(self._pieces)

    def _require_trained(self) -> None:
        if not self._pieces:
            raise NotTrainedError(
                f"this {type(self).__name__} has no vocabulary yet; call .train(texts) "
                f"first, or load a trained one with tokref.load(path)"
            )

    def _set_vocab(self, pieces: list[str]) -> None:
        ids = {p: i for i, p in enumerate(pieces)}
        if len(ids) != len(pieces):
            raise ValueError("vocabulary pieces must be distinct")
        self._pieces, self._ids = list(pieces), ids
        self._cache = {}

    @property
    def pieces(self) -> list[str]:
        """A copy of the vocabulary as a list: ``pieces[id]`` is the piece of ``id``."""
        self._require_trained()
        return list(self._pieces)

    @property
    def unk_id(self) -> int | None:
        """The id of ``unk_token`` (``"<unk>"``), or ``None`` if this vocabulary has none."""
        self._require_trained()
        return self._ids.get(self.unk_token)

    def clear_cache(self) -> None:
        """Forget the memo of encoded words (for timing a cold encoder; never needed
        for correctness)."""
        self._cache.clear()

    @property
    def vocab_size(self) -> int:
        """Number of ids, special tokens included."""
        self._require_trained()
        return len(self._pieces)

    @property
    def vocab(self) -> dict[str, int]:
        """A copy of the vocabulary, piece → id, in id order."""
        self._require_trained()
        return dict(self._ids)

    def token_to_id(self, token: str) -> int:
        """The id of vocabulary entry ``token``; ``KeyError`` with a hint if it has none."""
        self._require_trained()
        check_text(token, name="token")
        try:
            return self._ids[token]
        except KeyError:
            raise KeyError(
                f"{token!r} is not in the vocabulary; use .encode(text) to tokenize "
                "arbitrary text"
            ) from None

    def id_to_token(self, id: int) -> str:
        """The vocabulary entry of ``id``."""
        self._require_trained()
        return self._pieces[check_id(id, len(self._pieces))]

    # -- encoding -------------------------------------------------------------

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``."""
        self._require_trained()
        return self._encode(check_text(text))

    def _encode(self, text: str) -> list[int]:
        # Subclasses override this with a path that builds no Token objects.
        return [t.id for t in self._encode_with_offsets(text)]

    def tokenize(self, text: str) -> list[str]:
        """The vocabulary pieces ``text`` is encoded to (``<unk>`` for unknowns)."""
        return [t.piece for t in self.encode_with_offsets(text)]

    def encode_with_offsets(self, text: str) -> list[Token]:
        """Tokens of ``text`` with their ids, pieces and character offsets."""
        self._require_trained()
        return self._encode_with_offsets(check_text(text))

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = False) -> str:
        """The text of ``ids``. Special tokens are written as their text unless skipped."""
        self._require_trained()
        ids = check_ids(ids, len(self._pieces))
        special = set(self.special_tokens) if skip_special_tokens else set()
        return self._join([p for p in map(self._pieces.__getitem__, ids) if p not in special])

    # -- batches ----------------------------------------------------------------

    def encode_batch(
        self,
        texts: Sequence[str],
        *,
        padding: bool | Literal["longest"] | int = False,
        padding_side: Literal["right", "left"] = "right",
        pad_token: str | None = None,
        truncation: int | None = None,
        truncation_side: Literal["right", "left"] = "right",
        return_offsets: bool = False,
        **encode_options: Any,
    ) -> BatchEncoding:
        """Encode ``texts`` as one batch: ids, attention masks, special-tokens masks,
        unpadded lengths and, with ``return_offsets=True``, character offsets (the fields
        of Hugging Face's ``BatchEncoding``; see :mod:`tokref.batch`).

        - ``truncation=n`` keeps at most ``n`` tokens per row, counting the special
          tokens a post-processor adds (WordPiece's ``[CLS] ... [SEP]``), which stay:
          the text's tokens are cut on ``truncation_side`` (``"right"`` keeps the
          beginning, ``"left"`` the end), never the added sequence, as in Hugging Face.
        - ``padding=True`` (or ``"longest"``) pads every row to the longest; an int pads
          to exactly that length (a longer row is an error: pass ``truncation`` too).
          Padding uses ``pad_token``, by default this vocabulary's ``<pad>`` or
          ``[PAD]`` special token; a vocabulary without one (GPT-style byte-level BPE)
          needs ``pad_token=``, usually its end-of-text token (``"<|endoftext|>"``),
          which the attention mask keeps out of attention.
        - ``padding_side="left"`` is what a decoder-only model needs to *generate*: it
          predicts the next token after the LAST position of every row, which must be
          a real token; with right padding the last position of a short row is padding.
          Right padding suits encoders and training, where every position is read.

        Other keyword arguments go to ``encode_with_offsets`` (for byte-level BPE, for
        example, ``allowed_special="all"``; for WordPiece ``add_special_tokens=False``).

        >>> from tokref import CharTokenizer
        >>> tok = CharTokenizer().train("abc")
        >>> batch = tok.encode_batch(["abc", "b"], padding=True, padding_side="left")
        >>> batch["input_ids"], batch["attention_mask"]
        ([[4, 5, 6], [0, 0, 5]], [[1, 1, 1], [0, 0, 1]])
        """
        self._require_trained()
        texts = check_batch_texts(texts)
        # Every option is checked before the first text is encoded.
        length = check_padding(padding)
        check_side(padding_side, name="padding_side")
        check_side(truncation_side, name="truncation_side")
        check_bool(return_offsets, name="return_offsets")
        pad_id = self._pad_id(pad_token, needed=length is not None)
        options = dict(encode_options)
        prefix, suffix = self._added_special_ids(options)
        check_truncation(truncation, n_added=len(prefix) + len(suffix))
        self._check_encode_options(options)
        ids, offsets = [], []
        for i, text in enumerate(texts):
            try:
                if return_offsets:
                    tokens = self.encode_with_offsets(text, **options)
                    ids.append([t.id for t in tokens])
                    offsets.append([(t.start, t.end) for t in tokens])
                else:  # ids alone are cheaper (byte-level BPE: about 5 times)
                    ids.append(self._encode_content(text, options))
            except (TypeError, ValueError) as e:
                if type(e) not in (TypeError, ValueError):
                    raise
                raise type(e)(f"texts[{i}]: {e}") from e
        return assemble_batch(
            ids, offsets if return_offsets else None, prefix=prefix, suffix=suffix,
            padding=padding, padding_side=padding_side, pad_id=pad_id,
            truncation=truncation, truncation_side=truncation_side,
        )

    def _pad_id(self, pad_token: object, *, needed: bool) -> int | None:
        """The id of ``pad_token``, or of the default pad token when it is ``None``."""
        specials = [s for s in self.special_tokens if s in self._ids]
        if pad_token is None:
            found = next((p for p in PAD_TOKENS if p in specials), None)
            if found is not None:
                return self._ids[found]
            if not needed:
                return None
            raise ValueError(
                f"padding needs a pad token, and this {type(self).__name__} has no "
                f"{' or '.join(PAD_TOKENS)} special token; pass pad_token=... naming a token "
                f"of its vocabulary (its special tokens: {specials}). GPT-style byte-level "
                "tokenizers pad with their end-of-text token, pad_token=\"<|endoftext|>\": "
                "the attention mask keeps it out of attention"
            )
        check_text(pad_token, name="pad_token")
        try:
            return self.token_to_id(pad_token)  # type: ignore[arg-type]
        except KeyError:
            raise ValueError(
                f"pad_token {pad_token!r} is not in the vocabulary; pass one of its tokens "
                f"(its special tokens: {specials})"
            ) from None

    def _check_encode_options(self, options: dict[str, Any]) -> None:
        """A TypeError naming the options ``encode_with_offsets`` does not take."""
        if not options:
            return
        try:
            inspect.signature(self.encode_with_offsets).bind("", **options)
        except TypeError:
            raise TypeError(
                f"{type(self).__name__}.encode_batch got option(s) {sorted(options)} that "
                "its encode_with_offsets does not take; the options it takes: "
                f"{str(inspect.signature(self.encode_with_offsets))}"
            ) from None

    # -- hooks ----------------------------------------------------------------

    def _added_special_ids(self, options: dict[str, Any]) -> tuple[list[int], list[int]]:
        """Hook for ``encode_batch``: the ids a post-processor adds before and after the
        tokens of each text (WordPiece: ``[CLS]``, ``[SEP]``). It removes from
        ``options`` the options it reads (such as ``add_special_tokens``); the rest go
        to ``encode_with_offsets``. The default adds nothing."""
        return [], []

    def _encode_content(self, text: str, options: dict[str, Any]) -> list[int]:
        """Hook for ``encode_batch``: the ids of ``text`` alone, without what the
        post-processor adds (the ids of ``encode_with_offsets(text, **options)``)."""
        return self.encode(text, **options)

    def train(self: T, texts: str | Iterable[str]) -> T:  # pragma: no cover - abstract
        raise NotImplementedError

    def _encode_with_offsets(self, text: str) -> list[Token]:  # pragma: no cover
        raise NotImplementedError

    def _join(self, pieces: list[str]) -> str:  # pragma: no cover
        raise NotImplementedError

    def _to_config(self) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def _from_config(self, config: dict[str, Any]) -> None:  # pragma: no cover
        raise NotImplementedError

    # -- files ----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready description of this tokenizer (what ``save`` writes)."""
        self._require_trained()
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "type": self.kind,
            "config": self._to_config(),
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write this tokenizer to ``path`` as JSON; read it back with ``tokref.load(path)``."""
        data = self.to_dict()
        _check_path(path)
        Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")

    @classmethod
    def from_dict(cls: type[T], data: object) -> T:
        """Rebuild a tokenizer from ``to_dict()`` output, checking everything."""
        kind = _check_header(data)
        target = _REGISTRY.get(kind)
        if target is None:
            raise TokenizerFileError(
                f"unknown tokenizer type {kind!r}; this tokref knows {sorted(_REGISTRY)}"
            )
        if cls is not Tokenizer and not issubclass(target, cls):
            raise TokenizerFileError(
                f"this file holds a {target.__name__} (type {kind!r}), not a {cls.__name__}; "
                "load it with tokref.load(path), which returns the right class"
            )
        tok = target()
        config = data["config"]  # type: ignore[index]
        if not isinstance(config, dict):
            raise TokenizerFileError("'config' must be a JSON object")
        try:
            tok._from_config(config)
        except TokenizerFileError:
            raise
        except KeyError as e:
            raise TokenizerFileError(
                f"invalid {kind!r} tokenizer file: its 'config' has no {e.args[0]!r} entry"
            ) from None
        except (TypeError, ValueError) as e:
            raise TokenizerFileError(f"invalid {kind!r} tokenizer file: {e}") from None
        return tok

    @classmethod
    def load(cls: type[T], path: str | os.PathLike[str]) -> T:
        """Read a tokenizer saved by ``save``; it must be of this class (or a subclass)."""
        return cls.from_dict(_read_json(path))

    def __repr__(self) -> str:
        if not self._pieces:
            return f"{type(self).__name__}(untrained)"
        return f"{type(self).__name__}(vocab_size={len(self._pieces)})"


def _reject_constant(name: str) -> float:
    raise TokenizerFileError(f"not strict JSON: the file contains {name}")


def _parse_float(s: str) -> float:
    x = float(s)
    if not math.isfinite(x):  # 1e999 parses to inf without going through parse_constant
        raise TokenizerFileError(f"not strict JSON: the number {s[:20]} is not finite")
    return x


def _check_path(path: object) -> None:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path must be a str or os.PathLike, not {type(path).__name__}; "
            "pass a file name such as 'tokenizer.json'"
        )


def _read_json(path: str | os.PathLike[str]) -> object:
    _check_path(path)
    p = Path(path)
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise FileNotFoundError(f"no tokenizer file at {str(p)!r}") from None
    if size > MAX_FILE_BYTES:
        raise TokenizerFileError(
            f"{str(p)!r} is {size:,} bytes, more than any tokenizer file needs "
            f"({MAX_FILE_BYTES:,}); refusing to read it"
        )
    raw = p.read_bytes()
    if raw[:2] == b"\x80\x04" or raw[:1] == b"\x80":
        raise TokenizerFileError(
            f"{str(p)!r} looks like a pickle; tokref reads only its own JSON files "
            "(pickles can run code when loaded)"
        )
    try:
        text = raw.decode("utf-8")
        return json.loads(text, parse_constant=_reject_constant, parse_float=_parse_float)
    except TokenizerFileError:
        raise
    except UnicodeDecodeError as e:
        raise TokenizerFileError(f"{str(p)!r} is not UTF-8 text: {e}") from None
    except json.JSONDecodeError as e:
        raise TokenizerFileError(
            f"{str(p)!r} is not valid JSON ({e}); was it written by Tokenizer.save?"
        ) from None
    except ValueError as e:  # e.g. an integer of more than 4300 digits
        raise TokenizerFileError(f"{str(p)!r} is not a tokenizer file: {e}") from None
    except RecursionError:
        raise TokenizerFileError(f"{str(p)!r} is nested too deeply to be a tokenizer file") from None


def _check_header(data: object) -> str:
    if not isinstance(data, dict):
        raise TokenizerFileError(
            f"a tokenizer file holds a JSON object, not a {type(data).__name__}"
        )
    if data.get("format") != FORMAT_NAME:
        raise TokenizerFileError(
            "not a tokref tokenizer file (no \"format\": \"tokref\"); for a Hugging Face "
            "tokenizer.json or a tiktoken file use the matching from_* constructor"
        )
    version = data.get("version")
    if not is_integer(version):
        raise TokenizerFileError("'version' must be an integer")
    if version > FORMAT_VERSION:
        raise TokenizerFileError(
            f"this file is format version {version}, newer than this tokref reads "
            f"({FORMAT_VERSION}); upgrade tokref"
        )
    if version < 1:
        raise TokenizerFileError(f"invalid format version {version}")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise TokenizerFileError("'type' must be a string naming the tokenizer type")
    if "config" not in data:
        raise TokenizerFileError("the file has no 'config'")
    return kind


def native_kind(tok: object) -> str | None:
    """The ``kind`` of ``tok`` if it is an instance of exactly the class tokref registered
    for that kind, else ``None``: a subclass (a student's variant) or a stranger may
    behave differently, so code that reads a tokenizer's internals dispatches on this.

    >>> from tokref import CharTokenizer
    >>> native_kind(CharTokenizer()), native_kind("text")
    ('char', None)
    """
    kind = getattr(type(tok), "kind", None)
    if isinstance(kind, str) and _REGISTRY.get(kind) is type(tok):
        return kind
    return None


def load(path: str | os.PathLike[str]) -> Tokenizer:
    """Load any tokref tokenizer file; the ``type`` field picks the class.

    Corrupt, hostile or foreign files raise ``TokenizerFileError`` (a ``ValueError``).
    """
    return Tokenizer.from_dict(_read_json(path))


def check_piece_list(value: object, *, name: str) -> list[str]:
    """For ``_from_config``: a JSON list of distinct strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TokenizerFileError(f"{name!r} must be a list of strings")
    if "" in value:
        raise TokenizerFileError(f"{name!r} contains an empty string")
    if len(set(value)) != len(value):
        raise TokenizerFileError(f"{name!r} has repeated entries")
    return value


def is_finite_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
