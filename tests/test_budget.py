"""tokref.budget: counting tokens under several encodings, and truncating to a budget.

- ``count_tokens``: a text (ordinary text, as tiktoken's ``encode_ordinary``; tiktoken
  encodings are accepted and agree) or a conversation (as ``encode_chat`` encodes it).
- ``truncate_to_budget``: what its docstring guarantees, checked with Hypothesis on
  multi-byte text with a tokenizer whose merges cut characters in half: a prefix
  (suffix) of whole characters, within the budget, one more character over it, at least
  as long as the characters the text's own first ``budget`` tokens cover; the longest
  that fits whenever prefix counts are monotone, and a case where they are not.
- Bad input: negative or non-int budgets, a budget below a template's own tokens.
"""

from __future__ import annotations

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from tokref import ByteLevelBPETokenizer, WordTokenizer, load_openai_encoding
from tokref.budget import count_tokens, count_tokens_each, truncate_to_budget
from tokref.chat import encode_chat, load_chat_template
from tokref.corpus import load_texts

PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)

# Characters of 1, 2, 3 and 4 UTF-8 bytes, spaces and newlines; the training text repeats
# them so that merges make tokens that end inside a character.
ALPHABET = list("ab é€😀🤖👍 \nあい") + ["👍🏽"]
TRAIN = "ab é€😀 \n👍🏽 aé€ é😀b ééé €€ 😀🤖 \n\n b👍🏽a あい いあ 👍🤖" * 30


@pytest.fixture(scope="module")
def tok() -> ByteLevelBPETokenizer:
    # 🤖 (F0 9F A4 96) becomes two tokens of two bytes each: "\xf0\x9f" and "\xa4\x96".
    return ByteLevelBPETokenizer().train(TRAIN, vocab_size=256 + 40)


@pytest.fixture(scope="module")
def encodings() -> dict:
    return {name: load_openai_encoding(name) for name in ("cl100k_base", "o200k_base")}


def test_the_training_text_makes_tokens_that_split_characters(tok):
    split = [i for i in range(256, tok.vocab_size) if "\\x" in tok.id_to_token(i)]
    assert split, "the fixture needs tokens that hold part of a character, or the test proves little"
    ids = tok.encode("a🤖")
    assert [tok.id_to_token(i) for i in ids] == ["a", "\\xf0\\x9f", "\\xa4\\x96"], ids
    assert tok.decode(ids[:2]) == "a\ufffd" and truncate_to_budget(tok, "a🤖", 2) == "a"


# ---------------------------------------------------------------------------------------
# count_tokens
# ---------------------------------------------------------------------------------------


def test_count_tokens_of_a_text(encodings):
    text = "The same text costs a different number of tokens: 東京は日本の首都です。"
    counts = count_tokens_each(text, encodings)
    want = {name: len(enc.encode_ordinary(text)) for name, enc in encodings.items()}
    assert counts == want and list(counts) == ["cl100k_base", "o200k_base"], (counts, want)
    assert count_tokens(text, encodings["o200k_base"]) == want["o200k_base"]
    # tiktoken encodings (built from the same ranks: tiktoken cannot download here) agree.
    tk = {
        name: tiktoken.Encoding(name, pat_str=enc.pattern, mergeable_ranks=enc.mergeable_ranks,
                                special_tokens=enc.special_tokens_map)
        for name, enc in encodings.items()
    }
    assert count_tokens_each(text, tk) == want


def test_special_token_text_is_counted_as_text(encodings):
    n = count_tokens("<|endoftext|>", encodings["cl100k_base"])
    assert n == 7, f"'<|endoftext|>' typed as text is 7 cl100k tokens, not the one special token; got {n}"


def test_count_tokens_of_a_conversation(encodings, tok):
    chat = [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}]
    chatml = load_chat_template("chatml")
    got = count_tokens_each(chat, encodings, template="chatml", strict=False)
    want = {n: len(encode_chat(e, chat, chatml, strict=False).ids) for n, e in encodings.items()}
    assert got == want, (got, want)
    with pytest.raises(ValueError, match="not special tokens"):
        count_tokens_each(chat, encodings, template=chatml)
    llama = ByteLevelBPETokenizer().train(TRAIN, vocab_size=256 + 10 + 4,
                                          special_tokens=load_chat_template("llama3").special_tokens)
    n = count_tokens(chat, llama, template="llama3", add_generation_prompt=True)
    assert n == len(encode_chat(llama, chat, "llama3", add_generation_prompt=True).ids)


def test_count_tokens_bad_input(encodings):
    with pytest.raises(ValueError, match="pass template="):
        count_tokens_each([{"role": "user", "content": "Hi"}], encodings)
    with pytest.raises(ValueError, match="applies to a conversation"):
        count_tokens_each("Hi", encodings, template="chatml")
    with pytest.raises(ValueError, match="empty"):
        count_tokens_each("Hi", {})
    with pytest.raises(TypeError, match="names in encodings"):
        count_tokens_each("Hi", {1: encodings["o200k_base"]})
    with pytest.raises(TypeError, match="count_tokens_each"):
        count_tokens("Hi", encodings)  # one return type: an int, under one tokenizer
    with pytest.raises(TypeError, match="tokenizer"):
        count_tokens("Hi", "o200k_base")


# ---------------------------------------------------------------------------------------
# truncate_to_budget
# ---------------------------------------------------------------------------------------


def test_keeping_the_first_ids_can_split_a_character_and_truncation_does_not(encodings):
    cl100k = encodings["cl100k_base"]
    text = "👍🏽👍🏽"
    ids = cl100k.encode(text)
    naive = [cl100k.decode(ids[:k]) for k in range(len(ids) + 1)]
    ours = [truncate_to_budget(cl100k, text, k) for k in range(len(ids) + 1)]
    assert any("\ufffd" in s for s in naive), naive
    assert not any("\ufffd" in s for s in ours) and ours[-1] == text, ours
    assert ours == ["", "", "", "👍", "👍", "👍", "👍🏽", "👍🏽", "👍🏽", "👍🏽👍", "👍🏽👍", "👍🏽👍", text], ours


def test_truncation_examples(encodings):
    o200k = encodings["o200k_base"]
    text = "Tokenizers split text into tokens."
    assert truncate_to_budget(o200k, text, 100) == text
    assert truncate_to_budget(o200k, text, 0) == "" == truncate_to_budget(o200k, "", 0)
    assert truncate_to_budget(o200k, text, 3) == "Tokenizers split"
    assert truncate_to_budget(o200k, text, 3, side="left") == " into tokens."


@pytest.mark.parametrize(
    "budget, kwargs, error, match",
    [
        (-1, {}, ValueError, "budget must be >= 0"),
        (2.5, {}, TypeError, "budget must be int"),
        (True, {}, TypeError, "budget must be int"),
        (3, {"side": "middle"}, ValueError, "side must be"),
        (13, {"template": "chatml", "strict": False}, ValueError, "at least 14"),
    ],
)
def test_truncate_bad_input(encodings, budget, kwargs, error, match):
    with pytest.raises(error, match=match):
        truncate_to_budget(encodings["o200k_base"], "some text", budget, **kwargs)


def count(tok, s):
    return len(tok.encode_ordinary(s))


def token_cut(tok, text, k, side):
    """The characters the first (last) k tokens of the text cover whole, from the bytes:
    the longest prefix (suffix) of whole characters whose UTF-8 fits in those tokens."""
    ids = tok.encode_ordinary(text)
    if len(ids) <= k:
        return len(text)
    kept = ids[:k] if side == "right" else ids[len(ids) - k:]
    n = len(tok.decode_bytes(kept))
    part = (lambda j: text[:j]) if side == "right" else (lambda j: text[len(text) - j:])
    return max(j for j in range(len(text) + 1) if len(part(j).encode()) <= n)


@PROPERTY
@given(
    text=st.lists(st.sampled_from(ALPHABET), max_size=24).map("".join),
    budget=st.integers(0, 30),
    side=st.sampled_from(["right", "left"]),
)
def test_truncation_guarantees(tok, text, budget, side):
    got = truncate_to_budget(tok, text, budget, side=side)
    n, k = len(text), len(got)
    part = (lambda j: text[:j]) if side == "right" else (lambda j: text[n - j:])
    where = f"truncate_to_budget(tok, {text!r}, {budget}, side={side!r}) = {got!r}"
    assert got == part(k), f"{where} is not a {'prefix' if side == 'right' else 'suffix'} of the text"
    assert "\ufffd" not in got and tok.decode(tok.encode(got)) == got, f"{where} does not round-trip"
    assert count(tok, got) <= budget, f"{where} has {count(tok, got)} tokens > {budget}"
    assert k == n or count(tok, part(k + 1)) > budget, (
        f"{where}, but one more character, {part(k + 1)!r}, still fits ({count(tok, part(k + 1))} tokens)"
    )
    cut = token_cut(tok, text, budget, side)
    if count(tok, part(cut)) <= budget:
        assert k >= cut, f"{where} is shorter than {part(cut)!r}, which the text's own first tokens cover and which fits"
    counts = [count(tok, part(j)) for j in range(n + 1)]
    longest = max(j for j in range(n + 1) if counts[j] <= budget)
    if all(a <= b for a, b in zip(counts, counts[1:])):
        assert k == longest, f"{where}; prefix counts are monotone here, so the longest, {part(longest)!r}, was expected"


def test_the_longest_prefix_is_not_always_found_when_counts_are_not_monotone():
    ranks = {bytes([i]): i for i in range(256)}
    ranks.update({b"dc": 256, b"cd": 257, b"bcd": 258, b"abcd": 259})
    tok = ByteLevelBPETokenizer.from_tiktoken(ranks, pattern=r"\S+")
    counts = [count(tok, "abcdc"[:k]) for k in range(6)]
    assert counts == [0, 1, 2, 3, 1, 4], counts
    assert truncate_to_budget(tok, "abcdc", 1) == "a", (
        "the documented limit: 'abcd' also fits in one token, but neither the text's own "
        "tokens (the dc merge wins in 'abcdc') nor the search from 'a' reach it"
    )
    # The text's own tokens do pass through 'abcd' in 'abcdd', and then it is found.
    assert truncate_to_budget(tok, "abcdd", 1) == "abcd"


def test_truncation_with_a_template():
    chatml = load_chat_template("chatml")
    tok = ByteLevelBPETokenizer().train(TRAIN, vocab_size=256 + 60 + 2, special_tokens=chatml.special_tokens)
    empty = count_tokens([{"role": "user", "content": ""}], tok, template=chatml)
    with pytest.raises(ValueError, match=f"at least {empty}"):
        truncate_to_budget(tok, TRAIN, empty - 1, template=chatml)
    for budget in (empty, empty + 5, empty + 40):
        got = truncate_to_budget(tok, TRAIN, budget, template=chatml)
        used = count_tokens([{"role": "user", "content": got}], tok, template=chatml)
        more = count_tokens([{"role": "user", "content": TRAIN[: len(got) + 1]}], tok, template=chatml)
        assert TRAIN.startswith(got) and used <= budget < more, (budget, got, used, more)
    options = {"template": chatml, "role": "assistant", "add_generation_prompt": True}
    empty = count_tokens([{"role": "assistant", "content": ""}], tok, template=chatml, add_generation_prompt=True)
    got = truncate_to_budget(tok, "é€😀 abc", empty + 3, **options)
    used = len(encode_chat(tok, [{"role": "assistant", "content": got}], chatml, add_generation_prompt=True).ids)
    assert "é€😀 abc".startswith(got) and got and used <= empty + 3, (got, used, empty)


def test_truncation_with_a_tokenizer_without_offsets():
    word = WordTokenizer().train("the cat sat on the mat")
    # Words are tokens and spaces are not: the trailing space fits, the "o" of "on" does not.
    assert truncate_to_budget(word, "the cat sat on the mat", 3) == "the cat sat "


def test_a_long_text_with_a_small_budget(encodings):
    text = "".join(load_texts("train")[:3])
    o200k = encodings["o200k_base"]
    got = truncate_to_budget(o200k, text, 50)
    assert text.startswith(got) and count(o200k, got) <= 50 < count(o200k, text[: len(got) + 1])
    got = truncate_to_budget(o200k, text, 50, side="left")
    assert text.endswith(got) and count(o200k, got) <= 50 < count(o200k, text[len(text) - len(got) - 1:])
