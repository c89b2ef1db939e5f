"""tokref.languages: premiums, fertility per script, digit groups from the right, the
tokens no text produces, the round trip, and letters counted from ids; each against an
independent computation (tiktoken, a stdlib twin, brute force), and bad inputs."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest
import regex
import tiktoken

from tokref.bytelevel import ByteLevelBPETokenizer
from tokref.languages import (
    R2L_DIGITS,
    count_letter,
    count_visible_letter,
    find_not_round_trippable,
    find_unreachable,
    fertility_by_script,
    group_digits,
    merges_give_back,
    premiums,
)
from tokref.pretokenize import GPT2_PATTERN, GPT2_PATTERN_STDLIB

BYTES = {bytes([i]): i for i in range(256)}


def test_premiums_and_their_errors():
    assert premiums({"en": 4, "fr": 5, "ka": 12}) == {"en": 1.0, "fr": 1.25, "ka": 3.0}
    assert premiums({"en": 4, "fr": 2}, reference="fr") == {"en": 2.0, "fr": 1.0}
    with pytest.raises(ValueError, match="reference language"):
        premiums({"fr": 3})
    with pytest.raises(ValueError, match="divides"):
        premiums({"en": 0, "fr": 3})
    with pytest.raises(ValueError, match="count"):
        premiums({"en": 2, "fr": -1})
    with pytest.raises(TypeError, match="dict"):
        premiums([("en", 1)])  # type: ignore[arg-type]


def test_fertility_pools_tokens_and_words():
    got = fertility_by_script({"en": 6, "fr": 9, "ru": 8}, {"en": 4, "fr": 5, "ru": 2},
                              {"en": "Latin", "fr": "Latin", "ru": "Cyrillic", "el": "Greek"})
    assert got == {"Latin": 15 / 9, "Cyrillic": 4.0}  # pooled, not (1.5 + 1.8) / 2
    with pytest.raises(ValueError, match="no script for 'ru'"):
        fertility_by_script({"ru": 1}, {"ru": 1}, {})
    with pytest.raises(ValueError, match="no words"):
        fertility_by_script({"zh": 3}, {"zh": 0}, {"zh": "Han"})
    with pytest.raises(ValueError, match="same languages"):
        fertility_by_script({"en": 1}, {"fr": 1}, {"en": "Latin", "fr": "Latin"})


def _groups_stdlib(text: str) -> list[str]:
    """The assignment's rule in the standard library: runs of category N*, cut from the right."""
    out, run = [], ""
    for ch in text + " ":
        if unicodedata.category(ch)[0] == "N":
            run += ch
            continue
        first = len(run) % 3
        out += ([run[:first]] if first else []) + [run[i:i + 3] for i in range(first, len(run), 3)]
        run = ""
    return out


def test_group_digits_is_the_chapters_pattern_and_the_stdlib_rule():
    assert group_digits("1234567 + 89") == ["1", "234", "567", "89"]
    assert group_digits("3.14159") == ["3", "14", "159"]
    rng = random.Random(0)
    alphabet = "0123456789" * 5 + "٠١٢٣٤٥٦٧٨٩०१२३४५६७८९²³½Ⅻ" + "ab .,-_\n"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert group_digits(text) == regex.findall(R2L_DIGITS, text) == _groups_stdlib(text), text
    with pytest.raises(TypeError, match="str"):
        group_digits(1234)  # type: ignore[arg-type]


def _bpe_from_bytes(piece: bytes, ranks: dict[bytes, int]) -> list[bytes]:
    """BPE on the bytes of piece without the shortcut, written out (the chapter's first version)."""
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        pairs = [(ranks[a + b], k) for k, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks]
        if not pairs:
            break
        _, k = min(pairs)
        parts[k:k + 2] = [parts[k] + parts[k + 1]]
    return parts


def _random_table(rng: random.Random, n: int) -> dict[bytes, int]:
    pieces = [b"a", b"b", b"e", b" ", b",", b"1", b"\xc3", b"\xa9", b"\xe4", b"\xbd", b"\xa0"]
    ranks = dict(BYTES)
    for _ in range(n):
        token = b"".join(rng.choice(pieces) for _ in range(rng.randint(2, 5)))
        ranks.setdefault(token, len(ranks))
    return ranks


def test_merges_give_back_matches_the_written_out_loop():
    ranks = BYTES | {b"abc": 256}
    assert not merges_give_back(b"abc", ranks) and merges_give_back(b"a", ranks)
    rng = random.Random(1)
    for _ in range(100):
        table = _random_table(rng, rng.randint(1, 40))
        for token in list(table)[250:]:  # the multi-byte tokens and a few single bytes
            assert merges_give_back(token, table) == (_bpe_from_bytes(token, table) == [token])
    with pytest.raises(TypeError, match="bytes"):
        merges_give_back("abc", ranks)  # type: ignore[arg-type]


def test_unreachable_tokens_are_never_produced_and_round_trips_match_tiktoken():
    rng = random.Random(2)
    n_unreachable = n_not_rt = 0
    for trial in range(15):
        table = _random_table(rng, 60)
        tok = ByteLevelBPETokenizer.from_tiktoken(table, pattern=GPT2_PATTERN_STDLIB)
        enc = tiktoken.Encoding(f"t{trial}", pat_str=GPT2_PATTERN, mergeable_ranks=table, special_tokens={})
        unreachable = set(find_unreachable(table, GPT2_PATTERN_STDLIB))
        n_unreachable += len(unreachable)
        # The proof's promise, on texts made of every token's text and of random bytes.
        texts = [t.decode("utf-8", errors="replace") for t in table if len(t) > 1]
        for _ in range(50):
            text = "".join(rng.choice(texts) for _ in range(rng.randint(1, 12)))
            assert not unreachable & set(enc.encode_ordinary(text)), text
        not_rt = find_not_round_trippable(table, tok.encode)
        n_not_rt += len(not_rt)
        expected = []
        for token, r in table.items():
            try:
                text = token.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if enc.encode_ordinary(text) != [r]:
                expected.append(r)
        assert not_rt == sorted(expected)
    assert n_unreachable and n_not_rt  # the random tables have both kinds


def test_reach_errors():
    with pytest.raises(ValueError, match="byte 0x00 has no rank"):
        find_unreachable({b"ab": 0}, GPT2_PATTERN_STDLIB)
    with pytest.raises(TypeError, match="pattern"):
        find_unreachable(BYTES, re.compile("a"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="encode"):
        find_not_round_trippable(BYTES, None)  # type: ignore[arg-type]


def test_letters_counted_from_the_joined_bytes_and_visible_only_as_their_own_token():
    table = [bytes([i]) for i in range(256)] + [b"caf\xc3", b" strawberry", b" r", b"  r"]
    ids = [256, 0xA9]  # "café", its é cut between the two tokens
    assert count_letter(ids, "é", table) == 1
    assert count_visible_letter(ids, "é", table) == 0
    assert count_letter([257], "r", table) == 3 and count_visible_letter([257], "r", table) == 0
    assert count_visible_letter([258, ord("r"), 259, ord("R")], "r", table) == 2
    with pytest.raises(ValueError, match="one character"):
        count_letter([1], "rr", table)
    with pytest.raises(ValueError, match="not a token id"):
        count_visible_letter([999], "r", table)
