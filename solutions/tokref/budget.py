"""Counting tokens, and cutting a text to a token budget without splitting a character.

A context window and a price are counted in tokens, and the same text costs a different
number of tokens under each encoding: ``count_tokens`` counts a text, or a conversation
rendered with a chat template, under one tokenizer, and ``count_tokens_each`` under
several at once.

>>> from tokref import load_openai_encoding
>>> encs = {"cl100k_base": load_openai_encoding("cl100k_base"),
...         "o200k_base": load_openai_encoding("o200k_base")}
>>> count_tokens_each("東京は日本の首都です。", encs)
{'cl100k_base': 11, 'o200k_base': 8}

``truncate_to_budget`` keeps the longest start (or end) of a text that fits a budget,
cut between two characters (code points). Keeping the first ``budget`` ids and decoding
them can cut a character's UTF-8 bytes in half and leave a U+FFFD:

>>> cl100k = encs["cl100k_base"]
>>> cl100k.decode(cl100k.encode("👍🏽👍🏽")[:4])
'👍\ufffd'
>>> truncate_to_budget(cl100k, "👍🏽👍🏽", 4), truncate_to_budget(cl100k, "👍🏽👍🏽", 6)
('👍', '👍🏽')
>>> truncate_to_budget(cl100k, "Tokenizers split text into tokens.", 3, side="left")
' into tokens.'

What it guarantees, for the prefix ``p = text[:k]`` it returns (``side="right"``; a
suffix for ``side="left"`` is the mirror image):

1. ``p`` is a prefix of ``text`` made of whole characters (so no U+FFFD is made);
2. ``p`` has at most ``budget`` tokens;
3. one more character does not fit: ``text[:k + 1]`` has more than ``budget`` tokens
   (unless ``p`` is all of ``text``);
4. for a byte-level tokenizer and no template: ``p`` is at least as long as the
   characters that the first ``budget`` tokens of ``text``'s own encoding cover whole,
   whenever those characters alone fit in ``budget`` tokens (they nearly always do).

It is *the* longest prefix that fits whenever the token count of a prefix never
decreases as the prefix grows. That is usual, not a law of BPE: a longer prefix can
complete a merge and take fewer tokens. With the merges ``dc``, ``cd``, ``bcd``,
``abcd`` (in that order), ``"ab"`` is two tokens but ``"abcd"`` one, and in
``"abcdc"`` the ``dc`` merge wins, so the text's own tokens never pass through
``abcd``; under a budget of 1 the answer is ``"a"``, though ``"abcd"`` fits too:

>>> from tokref import ByteLevelBPETokenizer
>>> ranks = {bytes([i]): i for i in range(256)}
>>> ranks.update({b"dc": 256, b"cd": 257, b"bcd": 258, b"abcd": 259})
>>> tok = ByteLevelBPETokenizer.from_tiktoken(ranks, pattern=r"\\S+")
>>> [len(tok.encode("abcdc"[:k])) for k in range(6)]
[0, 1, 2, 3, 1, 4]
>>> truncate_to_budget(tok, "abcdc", 1)
'a'

Finding the longest would mean counting every prefix. This function encodes the text
once, starts from the characters its first ``budget`` tokens cover (property 4), and
then counts O(log n) prefixes: doubling steps, then a binary search that keeps
``count(text[:lo]) <= budget < count(text[:hi])`` until ``hi = lo + 1`` (property 3).
A character is a code point: an accent written as a combining mark, or an emoji with a
skin-tone modifier (a grapheme cluster of two code points), can be cut, as above.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from .base import Tokenizer
from .checks import check_int, check_text
from .chat import ChatTemplate, encode_chat, ordinary_tokens

__all__ = ["count_tokens", "count_tokens_each", "truncate_to_budget"]


def _count_text(tok: object, text: str) -> int:
    if isinstance(tok, (str, bytes)):
        raise TypeError(
            f"expected a tokenizer, not the {type(tok).__name__} {tok!r}; "
            "for a real encoding pass load_openai_encoding(name)"
        )
    # Counting someone's text: special-token text in it is text (encode_ordinary), as it
    # would be for a user's message; tokenizers without the distinction use encode.
    if hasattr(tok, "encode_ordinary"):
        return len(tok.encode_ordinary(text))  # type: ignore[attr-defined]
    if hasattr(tok, "encode"):
        return len(tok.encode(text))  # type: ignore[attr-defined]
    raise TypeError(f"expected a tokenizer (with encode or encode_ordinary), not {type(tok).__name__}")


def _counter(
    tok: object,
    template: ChatTemplate | str | None,
    *,
    role: str = "user",
    add_generation_prompt: bool = False,
    strict: bool = True,
) -> Callable[[str], int]:
    """text -> tokens of the text alone, or of a one-message conversation holding it."""
    if template is None:
        return lambda text: _count_text(tok, text)
    return lambda text: len(
        encode_chat(tok, [{"role": role, "content": text}], template,  # type: ignore[arg-type]
                    add_generation_prompt=add_generation_prompt, strict=strict).ids
    )


def count_tokens(
    text_or_conversation: str | Sequence[Mapping[str, Any]],
    tok: Tokenizer,
    *,
    template: ChatTemplate | str | None = None,
    add_generation_prompt: bool = False,
    strict: bool = True,
) -> int:
    """The number of tokens of a text, or of a conversation rendered with ``template``,
    under the tokenizer ``tok`` (:func:`count_tokens_each` counts under several).

    A text is counted with ``encode_ordinary`` where the tokenizer has it (special-token
    text counts as the ordinary text it is; tiktoken encodings work too). A conversation
    is counted as ``encode_chat`` encodes it, so it needs ``template``; ``strict=False``
    counts it under a tokenizer that lacks the template's special tokens (each then
    costs several ids). Content is always ordinary text, whatever the tokenizer allows:
    a tokenizer made by ``allowing_special("all")`` counts the same.

    >>> from tokref import load_openai_encoding
    >>> chat = [{"role": "user", "content": "Hi!"}]
    >>> count_tokens(chat, load_openai_encoding("cl100k_base"), template="chatml", strict=False)
    15
    >>> trusted = load_openai_encoding("cl100k_base").allowing_special("all")
    >>> count_tokens("<|endoftext|>", trusted), len(trusted.encode("<|endoftext|>"))
    (7, 1)
    """
    if isinstance(tok, Mapping):
        raise TypeError("count_tokens counts under one tokenizer; for {name: tokenizer, ...} "
                        "use count_tokens_each, which returns {name: count}")
    if isinstance(text_or_conversation, str):
        if template is not None:
            raise ValueError(
                "template= applies to a conversation; for a text give the conversation, "
                "e.g. [{'role': 'user', 'content': text}]"
            )
        return _count_text(tok, text_or_conversation)
    if template is None:
        raise ValueError(
            "a conversation is counted as a chat template renders it: pass template=, "
            "e.g. template='chatml' or load_chat_template('llama3')"
        )
    return len(encode_chat(tok, text_or_conversation, template,  # type: ignore[arg-type]
                           add_generation_prompt=add_generation_prompt, strict=strict).ids)


def count_tokens_each(
    text_or_conversation: str | Sequence[Mapping[str, Any]],
    encodings: Mapping[str, Tokenizer],
    **options: Any,
) -> dict[str, int]:
    """:func:`count_tokens` under each tokenizer of ``{name: tokenizer}``, in its order
    (``options``: those of ``count_tokens``).

    >>> from tokref import load_openai_encoding
    >>> count_tokens_each("Hello, world!", {"cl100k_base": load_openai_encoding("cl100k_base")})
    {'cl100k_base': 4}
    """
    if not isinstance(encodings, Mapping) or not encodings:
        raise ValueError("encodings must be a non-empty {name: tokenizer, ...}; for one tokenizer "
                         "use count_tokens")
    for name in encodings:
        if not isinstance(name, str):
            raise TypeError(f"the names in encodings must be str, not {type(name).__name__} ({name!r})")
    return {name: count_tokens(text_or_conversation, tok, **options) for name, tok in encodings.items()}


def truncate_to_budget(
    tok: Tokenizer,
    text: str,
    budget: int,
    *,
    side: Literal["right", "left"] = "right",
    template: ChatTemplate | str | None = None,
    role: str = "user",
    add_generation_prompt: bool = False,
    strict: bool = True,
) -> str:
    """The longest prefix (``side="right"``: the end is cut) or suffix (``side="left"``)
    of ``text`` that fits in ``budget`` tokens, cut between characters; see the module
    docstring for exactly what is guaranteed. ``text`` itself if it fits.

    With ``template``, the budget is for the whole one-message conversation
    ``[{"role": role, "content": part}]`` as ``encode_chat`` encodes it, the template's
    own tokens included; a budget below those (the empty message's count) is an error,
    as is one below what the tokenizer adds to empty text. ``text`` is always ordinary
    text, whatever the tokenizer allows (``allowing_special("all")`` cuts the same).

    >>> from tokref import load_openai_encoding
    >>> enc = load_openai_encoding("o200k_base")
    >>> truncate_to_budget(enc, "naïve café", 3)
    'naïve'
    >>> chat = [{"role": "user", "content": ""}]
    >>> count_tokens(chat, enc, template="chatml", strict=False)  # o200k lacks <|im_start|>
    14
    >>> truncate_to_budget(enc, "naïve café", 14 + 2, template="chatml", strict=False)
    'naï'
    """
    text = check_text(text)
    budget = check_int(budget, name="budget")
    if budget < 0:
        raise ValueError(f"budget must be >= 0 tokens, not {budget}")
    if side not in ("right", "left"):
        raise ValueError(
            f"side must be 'right' (cut the end, keep the start) or 'left' (keep the end), not {side!r}"
        )
    count = _counter(
        tok, template, role=role, add_generation_prompt=add_generation_prompt, strict=strict
    )
    n = len(text)
    part = (lambda k: text[:k]) if side == "right" else (lambda k: text[n - k:])
    floor = count("")
    if floor > budget:
        what = (f"an empty {role!r} message in the {_name(template)!r} template" if template is not None
                else "this tokenizer gives empty text")
        raise ValueError(
            f"a budget of {budget} tokens is smaller than what {what} already takes "
            f"({floor} tokens); give a budget of at least {floor}"
        )
    if count(text) <= budget:
        return text
    # Start from the characters that the text's own first `budget` tokens cover: they
    # nearly always fit, and they can be longer than where a search from 0 would stop.
    lo, hi = _token_cut(tok, text, budget - floor, side), n
    if not 0 < lo < n or count(part(lo)) > budget:
        lo = 0
    # invariant: count(part(lo)) <= budget < count(part(hi)). Grow by doubling steps
    # first, so that a small budget on a long text only ever encodes short parts of it.
    step = 1 if lo else max(1, budget)
    while lo + step < hi:
        if count(part(lo + step)) <= budget:
            lo, step = lo + step, 2 * step
        else:
            hi = lo + step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if count(part(mid)) <= budget:
            lo = mid
        else:
            hi = mid
    return part(lo)


def _token_cut(tok: object, text: str, k: int, side: str) -> int:
    """How many characters of ``text`` (from the start, or from the end for ``"left"``)
    the first (last) ``k`` tokens of its byte-level encoding cover whole; 0 if ``tok``
    has no offsets. A token that ends inside a character does not count that character."""
    if k <= 0 or not all(hasattr(tok, a) for a in ("encode_ordinary", "encode_with_offsets",
                                                    "special_tokens_map")):
        return 0
    tokens = ordinary_tokens(tok, text)  # the tokens counted: special-token text is text
    if len(tokens) <= k:
        return len(text)
    # Byte-level offsets widen a token that splits a character to the whole character,
    # so the next token's start (the previous token's end) excludes a split character.
    return tokens[k].start if side == "right" else len(text) - tokens[len(tokens) - k - 1].end


def _name(template: object) -> str:
    return template.name if isinstance(template, ChatTemplate) else str(template)
