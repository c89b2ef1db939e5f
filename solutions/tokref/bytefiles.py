"""Byte-level BPE as text files: GPT-2's ``vocab.json``/``merges.txt``, Hugging Face's
``tokenizer.json`` and tokref's own JSON, as functions on plain data (token bytes, ranks,
merges, special tokens); :class:`tokref.bytelevel.ByteLevelBPETokenizer` reads and writes
its files through them. (tiktoken's rank files are in :mod:`tokref.ranks`.)

The text formats write a token's bytes with GPT-2's printable alphabet
(:func:`bytes_to_unicode`), in which a space is ``Ġ`` and a newline ``Ċ``:

>>> byte_pieces([b" the", b"\\n", b"caf\\xc3\\xa9"])
['Ġthe', 'Ċ', 'cafÃ©']
>>> gpt2_vocab({b"a": 0, b" a": 1}, {"<|endoftext|>": 2})
{'a': 0, 'Ġa': 1, '<|endoftext|>': 2}
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

import regex

from .base import TokenizerFileError
from .checks import check_special_tokens, is_integer
from .ranks import bpe_split_piece, check_mergeable_ranks, load_tiktoken_ranks

__all__ = [
    "bytes_to_unicode",
    "byte_pieces",
    "gpt2_vocab",
    "vocab_names",
    "read_mergeable_ranks",
    "huggingface_json",
    "onig_pattern",
    "write_gpt2_files",
    "read_gpt2_files",
    "tables_to_config",
    "tables_from_config",
    "tables_from_vocab_merges",
]


# ---------------------------------------------------------------------------------------
# GPT-2's byte alphabet
# ---------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table from byte values to printable characters (``encoder.py``).

    The 188 bytes that are printable Latin-1 characters map to themselves; the other 68
    (control characters, space, and a few more) map to U+0100 onwards, so a space becomes
    ``Ġ`` and a newline ``Ċ``. It exists so that vocab.json and merges.txt, which are
    text files split on spaces and newlines, can hold any byte string.

    >>> t = bytes_to_unicode()
    >>> t[ord(" ")], t[ord("\\n")], t[ord("A")]
    ('Ġ', 'Ċ', 'A')
    """
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


# bytes_to_unicode as the 256-character decoding table of a charmap codec: character b
# is the image of byte b.
_ALPHABET = "".join(bytes_to_unicode()[b] for b in range(256))


def byte_pieces(tokens: Iterable[bytes]) -> list[str]:
    """Each token's bytes written in GPT-2's alphabet (:func:`bytes_to_unicode`): the
    strings of ``vocab.json``, ``merges.txt`` and a byte-level ``tokenizer.json``.

    >>> byte_pieces([b"Hello", b" world", b"\\xf0\\x9f"])
    ['Hello', 'Ġworld', 'ðŁ']
    """
    # codecs.charmap_decode is the C function behind Python's own 8-bit codecs
    # (encodings/cp1252.py calls it with a table like this one): one C call per token,
    # twice as fast as bytes.decode("latin-1").translate(...). A whole rank table
    # (cl100k_base: 100k tokens) is written in about 15 ms.
    return list(map(itemgetter(0), map(codecs.charmap_decode, tokens, repeat("strict"), repeat(_ALPHABET))))


def gpt2_vocab(ranks: Mapping[bytes, int], special_tokens: Mapping[str, int]) -> dict[str, int]:
    """GPT-2's ``vocab.json`` (the ``vocab`` of a byte-level ``tokenizer.json``): token
    string → id, tokens in rank order written with :func:`byte_pieces`, then the special
    tokens as their text.

    >>> gpt2_vocab({b"h": 1, b"i": 0, b"hi": 2}, {})
    {'i': 0, 'h': 1, 'hi': 2}
    """
    ordered = sorted(ranks.items(), key=itemgetter(1))
    vocab = dict(zip(byte_pieces(b for b, _ in ordered), (r for _, r in ordered)))
    vocab.update(special_tokens)
    return vocab


def vocab_names(table: Sequence[bytes], special_tokens: Mapping[str, int]) -> tuple[list[str], dict[str, int]]:
    """The names of a byte-level tokenizer's ids, as in ``vocab.json``: ``pieces`` (id →
    name: the bytes of ``table[id]`` in GPT-2's alphabet, a special token's text, ``""``
    for an unused id) and ``ids`` (name → id, without the unused ids).

    >>> vocab_names([b" a", b"", b"<s>"], {"<s>": 2})
    (['Ġa', '', '<s>'], {'Ġa': 0, '<s>': 2})
    """
    pieces = byte_pieces(table)
    for s, i in special_tokens.items():
        pieces[i] = s
    ids = dict(zip(pieces, range(len(pieces))))
    ids.pop("", None)  # the unused ids: no token is empty
    # A special token's text names it even where a token's piece is the same string,
    # as in the vocab of the exported tokenizer.json.
    ids.update(special_tokens)
    return pieces, ids


# ---------------------------------------------------------------------------------------
# Hugging Face tokenizer.json and GPT-2's vocab.json / merges.txt
# ---------------------------------------------------------------------------------------


def onig_pattern(pattern: str) -> str:
    r"""``pattern`` for the Oniguruma engine of Hugging Face ``tokenizers``.

    Oniguruma (Ruby syntax) reads ``X{1,3}+`` as ``(?:X{1,3})+``, not as a possessive
    ``X{1,3}``: cl100k's ``\p{N}{1,3}+`` would match any run of digits. A greedy
    ``{m,n}`` is the same as the possessive one where nothing follows it in its
    alternative, as in the tiktoken patterns. (``?+``, ``*+`` and ``++`` are possessive
    in Oniguruma too and are left alone.)

    >>> onig_pattern(r"\p{N}{1,3}+|\s++$")
    '\\p{N}{1,3}|\\s++$'
    """
    return regex.sub(r"(?<!\\)(\{\d+(?:,\d*)?\})\+", r"\1", pattern)


def huggingface_json(
    ranks: Mapping[bytes, int],
    merges: Sequence[tuple[bytes, bytes]],
    special_tokens: Mapping[str, int],
    pattern: str,
) -> dict[str, Any]:
    """A Hugging Face ``tokenizer.json`` (as a dict) for byte-level BPE: ``Split`` on
    ``pattern``, then ``ByteLevel`` without its own regex, a BPE model with ``ranks``'
    tokens and ``merges``, and the special tokens as added tokens.

    >>> d = huggingface_json({bytes([i]): i for i in range(256)}, [], {"<s>": 256}, r"\\S+")
    >>> d["model"]["vocab"]["Ġ"], d["added_tokens"][0]["content"]
    (32, '<s>')
    """
    # The special tokens go in the model's vocab too (as in GPT-2's tokenizer.json):
    # tokenizers gives an added token that is not in the vocab the next free id,
    # ignoring its "id", which is wrong when the ids have holes (cl100k_base).
    vocab = gpt2_vocab(ranks, special_tokens)
    firsts = byte_pieces(a for a, _ in merges)
    seconds = byte_pieces(b for _, b in merges)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for s, i in sorted(special_tokens.items(), key=itemgetter(1))
        ],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": onig_pattern(pattern)}, "behavior": "Isolated", "invert": False},
                byte_level,
            ],
        },
        "post_processor": None,
        "decoder": byte_level,
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
            "ignore_merges": False, "vocab": vocab, "merges": [list(m) for m in zip(firsts, seconds)],
        },
    }


def read_mergeable_ranks(ranks_or_path: Mapping[bytes, int] | str | os.PathLike[str]) -> dict[bytes, int]:
    """tiktoken's ``mergeable_ranks`` given as a mapping or as a ``.tiktoken`` file,
    checked (:func:`~tokref.ranks.check_mergeable_ranks`)."""
    if isinstance(ranks_or_path, (str, os.PathLike)):
        ranks = load_tiktoken_ranks(ranks_or_path)
    elif isinstance(ranks_or_path, Mapping):
        ranks = ranks_or_path
    else:
        raise TypeError(
            "ranks_or_path must be a dict of bytes -> int or a path to a .tiktoken file, "
            f"not {type(ranks_or_path).__name__}"
        )
    return check_mergeable_ranks(ranks)


def write_gpt2_files(
    vocab_json: str | os.PathLike[str],
    merges_txt: str | os.PathLike[str],
    ranks: Mapping[bytes, int],
    merges: Sequence[tuple[bytes, bytes]],
    special_tokens: Mapping[str, int],
) -> None:
    """Write GPT-2's ``encoder.json``/``vocab.json`` (:func:`gpt2_vocab`) and
    ``vocab.bpe``/``merges.txt`` (a ``#version`` line, then one ``a b`` merge per line)."""
    vocab = gpt2_vocab(ranks, special_tokens)
    Path(vocab_json).write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    firsts = byte_pieces(a for a, _ in merges)
    seconds = byte_pieces(b for _, b in merges)
    lines = ["#version: 0.2", *map(" ".join, zip(firsts, seconds))]
    Path(merges_txt).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_gpt2_files(
    vocab_json: str | os.PathLike[str], merges_txt: str | os.PathLike[str]
) -> tuple[dict[bytes, int], dict[str, int]]:
    """The ranks (token bytes → id) and special tokens (text → id) of GPT-2-format files.

    Entries of ``vocab.json`` that are neither a byte nor made by a merge (GPT-2's
    ``<|endoftext|>``) are the special tokens. Raises
    :class:`~tokref.base.TokenizerFileError` for files that are not such a pair; the
    ids are not checked here (``ByteLevelBPETokenizer.from_tiktoken`` does).
    """
    decoder = {c: b for b, c in bytes_to_unicode().items()}

    def to_bytes(s: str, where: str) -> bytes:
        try:
            return bytes(decoder[c] for c in s)
        except KeyError as e:
            raise TokenizerFileError(f"{where}: {s!r} has a character outside GPT-2's byte table ({e})") from None

    try:
        vocab = json.loads(Path(vocab_json).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TokenizerFileError(f"{str(vocab_json)!r} is not a JSON vocabulary: {e}") from None
    if not isinstance(vocab, dict) or not all(isinstance(k, str) and type(v) is int for k, v in vocab.items()):
        raise TokenizerFileError(f"{str(vocab_json)!r} must map token strings to int ids")
    made = {bytes([i]) for i in range(256)}
    try:
        merges_lines = Path(merges_txt).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise TokenizerFileError(f"{str(merges_txt)!r} is not UTF-8 text: {e}") from None
    for n, line in enumerate(merges_lines, 1):
        if line.startswith("#version") or not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise TokenizerFileError(f"{str(merges_txt)!r} line {n}: expected two tokens, got {line!r}")
        a, b = (to_bytes(x, f"merges line {n}") for x in parts)
        if a not in made or b not in made:
            raise TokenizerFileError(f"{str(merges_txt)!r} line {n}: {line!r} uses a token no earlier merge made")
        made.add(a + b)
    ranks: dict[bytes, int] = {}
    specials: dict[str, int] = {}
    for s, i in vocab.items():
        b = bytes(decoder[c] for c in s) if all(c in decoder for c in s) else None
        if b is not None and b in made:
            ranks[b] = i
        else:
            specials[s] = i
    missing = made - set(ranks)
    if missing:
        raise TokenizerFileError(f"{str(vocab_json)!r} lacks tokens the merges make, e.g. {min(missing)!r}")
    return ranks, specials


# ---------------------------------------------------------------------------------------
# A vocabulary and a merge list in memory (CS336; Hugging Face's vocab.json + merges.txt)
# ---------------------------------------------------------------------------------------


def tables_from_vocab_merges(
    vocab: Mapping[int, bytes],
    merges: Iterable[tuple[bytes, bytes]],
    special_tokens: Collection[str] | None = None,
) -> tuple[dict[bytes, int], dict[str, int], list[tuple[int, int]]]:
    """``(ranks, special_tokens, merges)`` of a byte-level BPE given as a vocabulary
    ``{id: bytes}`` and its merges ``[(a, b), ...]`` in the order they were learnt (what
    CS336's tokenizer takes; Hugging Face's ``vocab.json`` + ``merges.txt`` read into
    memory): ``ranks`` maps the bytes of each single byte and merged token to its id,
    ``special_tokens`` maps text to id, and the merges come back as pairs of ids.

    The ids are kept, and must fit these rules (``ValueError``, or ``TypeError`` for a
    wrong type, naming the entry):

    - all 256 single bytes are in ``vocab``, under any ids (GPT-2 numbers them in
      :func:`bytes_to_unicode` order); no two ids have the same bytes;
    - each merge joins two tokens that are single bytes or made by earlier merges, and
      makes a token of ``vocab`` that nothing made before;
    - the ids of the merged tokens increase in merge order ("ids out of order"
      otherwise): BPE applies merges by rank, and tokref, like tiktoken, takes a token's
      id as its rank; and each merge is what that BPE makes of its token's bytes with
      the tokens before it (tiktoken merges the pair whose *joined bytes* rank lowest, a
      merge list the listed pair: the two agree only then);
    - every other entry is a special token. With ``special_tokens=None`` every such
      entry is one (its bytes must be UTF-8), as ``<|endoftext|>`` is in GPT-2's
      ``vocab.json``; with a collection, it must be in it. A special token that is not
      in ``vocab`` takes the next id after the largest, in the order given.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"<|e|>"}
    >>> ranks, specials, merges = tables_from_vocab_merges(vocab, [(b"a", b"b")])
    >>> ranks[b"ab"], specials, merges
    (256, {'<|e|>': 257}, [(97, 98)])
    >>> tables_from_vocab_merges(vocab, [(b"a", b"b")], ["<s>", "<|e|>"])[1]
    {'<s>': 258, '<|e|>': 257}
    >>> tables_from_vocab_merges(vocab | {256: b"abc", 257: b"ab"}, [(b"a", b"b"), (b"ab", b"c")])
    Traceback (most recent call last):
    ...
    ValueError: merges[1] makes b'abc' with id 256, but the ids of merged tokens must ...
    """
    by_bytes = _vocab_by_bytes(vocab)
    ranks, pairs = _replay_merges(by_bytes, merges)
    if special_tokens is not None:
        special_tokens = check_special_tokens(special_tokens)
    special_bytes = {s.encode("utf-8") for s in special_tokens or ()}
    specials: dict[str, int] = {}
    for b, i in sorted(by_bytes.items(), key=itemgetter(1)):
        if b in ranks:
            continue
        if special_tokens is None:
            try:
                specials[b.decode("utf-8")] = i
                continue
            except UnicodeDecodeError:
                pass
        elif b in special_bytes:
            continue  # numbered below, in the order given
        raise ValueError(
            f"vocab[{i}] = {b!r} is neither a single byte, nor made by a merge, nor "
            + ("valid UTF-8 text, which a special token would be" if special_tokens is None
               else "in special_tokens; list it there (or pass special_tokens=None to "
               "take every such entry as a special token)")
            + ", so encoding could never produce it; add the merge that makes it, or drop it"
        )
    next_id = max(by_bytes.values()) + 1
    for s in special_tokens or ():
        b = s.encode("utf-8")
        if b in ranks:
            raise ValueError(
                f"special token {s!r} is also an ordinary token (id {ranks[b]}, a single "
                "byte or a merge's result); a special token needs an entry of its own"
            )
        if b in by_bytes:
            specials[s] = by_bytes[b]
        else:
            specials[s], next_id = next_id, next_id + 1
    return ranks, specials, pairs


def _vocab_by_bytes(vocab: object) -> dict[bytes, int]:
    """``vocab`` ({id: bytes}) checked and inverted: bytes → id."""
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must map int ids to bytes, such as {{97: b'a'}}, not {type(vocab).__name__}")
    by_bytes: dict[bytes, int] = {}
    for i, b in vocab.items():
        if not is_integer(i):
            raise TypeError(
                f"vocab's keys must be int ids, found {i!r} ({type(i).__name__}); a GPT-2 "
                "vocab.json (token string -> id) is read by ByteLevelBPETokenizer.from_gpt2_files"
            )
        if i < 0:
            raise ValueError(f"vocab has the negative id {i}; ids are int >= 0")
        if not isinstance(b, bytes):
            raise TypeError(
                f"vocab[{i}] must be bytes, not {type(b).__name__} ({b!r}); a token of "
                "vocab.json is written in GPT-2's alphabet: map it back with bytes_to_unicode()"
            )
        if not b:
            raise ValueError(f"vocab[{i}] is b''; a token has at least one byte")
        if b in by_bytes:
            raise ValueError(f"ids {by_bytes[b]} and {i} have the same bytes {b!r}; each token appears once")
        by_bytes[b] = int(i)
    missing = [bytes([c]) for c in range(256) if bytes([c]) not in by_bytes]
    if missing:
        raise ValueError(
            f"vocab lacks the single byte {missing[0]!r} ({len(missing)} of the 256 are "
            "missing); byte-level BPE needs every byte as a token"
        )
    return by_bytes


def _replay_merges(
    by_bytes: Mapping[bytes, int], merges: Iterable[tuple[bytes, bytes]]
) -> tuple[dict[bytes, int], list[tuple[int, int]]]:
    """The tokens the merges make (single bytes first) with their ids, and the merges as
    id pairs, checking the order."""
    ranks = {bytes([c]): by_bytes[bytes([c])] for c in range(256)}
    pairs: list[tuple[int, int]] = []
    previous = None  # (merge index, id) of the last merged token
    for k, m in enumerate(merges):
        if not (isinstance(m, (tuple, list)) and len(m) == 2 and all(isinstance(x, bytes) for x in m)):
            raise TypeError(f"merges[{k}] must be a pair of bytes (a, b), not {m!r}")
        a, b = m
        for part in (a, b):
            if part not in by_bytes:
                raise ValueError(f"merges[{k}] = {(a, b)!r}: {part!r} is not in the vocabulary")
            if part not in ranks:
                raise ValueError(
                    f"merges[{k}] = {(a, b)!r}: {part!r} is neither a single byte nor made "
                    "by an earlier merge; list the merges in the order they were learnt"
                )
        new = a + b
        if new not in by_bytes:
            raise ValueError(f"merges[{k}] makes {new!r}, which is not in the vocabulary; add it or drop the merge")
        if new in ranks:
            raise ValueError(f"merges[{k}] makes {new!r}, which an earlier merge made already; each token is made once")
        i = by_bytes[new]
        if previous is not None and i <= previous[1]:
            raise ValueError(
                f"merges[{k}] makes {new!r} with id {i}, but the ids of merged tokens must "
                f"increase in merge order (ids out of order: merges[{previous[0]}] made id "
                f"{previous[1]}): BPE applies merges by rank, and tokref, like tiktoken, "
                "takes a token's id as its rank; renumber the vocabulary in merge order"
            )
        parts = bpe_split_piece(new, ranks)  # ranks holds the tokens before it only
        if parts != [a, b]:
            raise ValueError(
                f"merges[{k}] = {(a, b)!r}, but BPE by ranks with the tokens before it "
                f"splits {new!r} into {parts}; tokref (like tiktoken) would encode "
                "differently from this merge list"
            )
        previous = (k, i)
        ranks[new] = i
        pairs.append((ranks[a], ranks[b]))
    return ranks, pairs


# ---------------------------------------------------------------------------------------
# tokref's own JSON: the "config" of a "bytelevel_bpe" file
# ---------------------------------------------------------------------------------------


def tables_to_config(
    name: str,
    pattern: str,
    ranks: Mapping[bytes, int],
    merges: Sequence[tuple[bytes, bytes]],
    special_tokens: Mapping[str, int],
) -> dict[str, Any]:
    """The ``config`` of a tokref ``bytelevel_bpe`` file: the merges (as pairs of hex
    strings) when there are any, else the rank table (``[hex, rank]`` in rank order).

    >>> tables_to_config("t", r"\\S+", {b"a": 0, b"b": 1, b"ab": 2}, [(b"a", b"b")], {})["merges"]
    [['61', '62']]
    """
    return {
        "name": name,
        "pattern": pattern,
        "special_tokens": dict(special_tokens),
        # Merges when trained here; otherwise the rank table (a tiktoken import).
        "merges": [[a.hex(), b.hex()] for a, b in merges] if merges else None,
        "ranks": None if merges else [[b.hex(), r] for b, r in sorted(ranks.items(), key=itemgetter(1))],
    }


def tables_from_config(
    config: Mapping[str, Any],
) -> tuple[str, str, dict[bytes, int], dict[str, int], list[tuple[int, int]]]:
    """``(name, pattern, ranks, special_tokens, merges)`` of a ``bytelevel_bpe`` config
    (:func:`tables_to_config`), with merges as id pairs; raises
    :class:`~tokref.base.TokenizerFileError` (or ``KeyError``/``ValueError``, which
    ``Tokenizer.from_dict`` reports as one) for anything malformed.

    >>> name, pattern, ranks, specials, merges = tables_from_config(
    ...     {"name": "t", "pattern": ".", "special_tokens": {}, "merges": [["61", "62"]]})
    >>> ranks[b"ab"], merges
    (256, [(97, 98)])
    """
    name, pattern, specials = config["name"], config["pattern"], config["special_tokens"]
    if not isinstance(name, str) or not isinstance(pattern, str):
        raise TokenizerFileError("'name' and 'pattern' must be strings")
    try:
        regex.compile(pattern)
    except regex.error as e:
        raise TokenizerFileError(f"'pattern' is not a valid regex: {e}") from None
    if not isinstance(specials, dict) or not all(
        isinstance(k, str) and type(v) is int and v >= 0 for k, v in specials.items()
    ):
        raise TokenizerFileError("'special_tokens' must map strings to ids")
    merges_hex, ranks_list = config.get("merges"), config.get("ranks")
    if merges_hex is not None:
        ranks, merges = _ranks_of_merges(merges_hex)
    elif isinstance(ranks_list, list):
        ranks, merges = _ranks_of_list(ranks_list), []
    else:
        raise TokenizerFileError("the file has neither 'merges' nor 'ranks'")
    if len(ranks) + len(specials) > 10_000_000:
        raise TokenizerFileError("the vocabulary is implausibly large")
    return name, pattern, ranks, specials, merges


def _ranks_of_merges(merges_hex: object) -> tuple[dict[bytes, int], list[tuple[int, int]]]:
    # Replays the merges: byte b is id b, merge k makes id 256 + k, as training numbers them.
    if not isinstance(merges_hex, list):
        raise TokenizerFileError("'merges' must be a list of [hex, hex] pairs")
    ranks = {bytes([i]): i for i in range(256)}
    merges = []
    for m in merges_hex:
        if not (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)):
            raise TokenizerFileError("each merge must be a pair of hex strings")
        a, b = bytes.fromhex(m[0]), bytes.fromhex(m[1])
        if a not in ranks or b not in ranks:
            raise TokenizerFileError(f"merge {m} uses a token no earlier merge made")
        if a + b in ranks:
            raise TokenizerFileError(f"merge {m} makes a token that already exists")
        merges.append((ranks[a], ranks[b]))
        ranks[a + b] = len(ranks)
    return ranks, merges


def _ranks_of_list(ranks_list: list[Any]) -> dict[bytes, int]:
    ranks = {}
    for item in ranks_list:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and type(item[1]) is int and item[1] >= 0):
            raise TokenizerFileError("each rank must be a [hex, int] pair")
        ranks[bytes.fromhex(item[0])] = item[1]
    if len(set(ranks.values())) != len(ranks) or any(bytes([i]) not in ranks for i in range(256)):
        raise TokenizerFileError("ranks must be distinct and include all 256 bytes")
    return ranks
