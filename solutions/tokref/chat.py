r"""Chat templates: a conversation rendered to one string, and its ids with the assistant mask.

A chat model reads a conversation ``[{"role": "user", "content": "Hi!"}, ...]`` as one
sequence of tokens, laid out by the format it was trained on: ChatML
(``<|im_start|>user\nHi!<|im_end|>\n``) or Llama 3
(``<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>``). Like Hugging Face's
``apply_chat_template``, tokref writes a format as a **Jinja2 template** and keeps it as
data (``tokref/data/chat_templates/*.json``, each citing the documentation it was written
from). Rendering runs in Jinja2's ``ImmutableSandboxedEnvironment`` (a template is code)
with ``trim_blocks``, ``lstrip_blocks``, Hugging Face's ``raise_exception`` and
``strftime_now``, and ``StrictUndefined`` (a missing variable is an error, not ``""``).

``{% generation %}...{% endgeneration %}`` (Hugging Face's tag) marks what the assistant
wrote: its content and its end-of-turn token. ``encode_chat`` turns those characters
into ``assistant_mask``, the tokens a fine-tuning loss trains on; the prompt, the
headers and the other roles' turns get 0.

Two kinds of special-token text meet in a rendered chat. The **template's** own
``<|im_start|>`` is encoded as the one special id; the same text typed by a **user**
inside a message is encoded as ordinary text, several ids, so a user cannot end a turn
or speak as the assistant. To tell them apart, each special token of the template is
replaced, before rendering, by a private-use character that occurs nowhere in the input,
and put back afterwards: a special id is only ever produced where the template wrote one.
(So a template must write its special tokens whole, or take them from ``bos_token`` /
``eos_token``: one that glued ``'<|im_' + 'end|>'`` together would get ordinary text, and
one that edits special-token text inside a message, ``content.replace('<|im_end|>', '')``,
finds nothing to edit, which is harmless, as that text is ordinary text here anyway.)

A template's special tokens must be special tokens of the tokenizer. When they are not
(ChatML with ``cl100k_base``, whose special tokens are ``<|endoftext|>``, the FIM tokens
and ``<|endofprompt|>``; tiktoken's README shows how to add ``<|im_start|>`` and
``<|im_end|>`` as ids 100264 and 100265 in an encoding it calls ``cl100k_im``, which it
does not ship), ``encode_chat`` raises; with ``strict=False`` it shows what the mismatch
does: the text ``<|im_start|>`` becomes several ordinary ids instead of one.

>>> chatml = load_chat_template("chatml")
>>> chat = [{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hello."}]
>>> chatml.render(chat)
'<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\nHello.<|im_end|>\n'
>>> text, spans = chatml.render_with_spans(chat)
>>> [text[a:b] for a, b in spans]
['Hello.<|im_end|>']
>>> from tokref import ByteLevelBPETokenizer
>>> tok = ByteLevelBPETokenizer().train(["Hello Hello"], vocab_size=256 + 4 + 2,
...                                     special_tokens=chatml.special_tokens)
>>> tok.special_tokens_map
{'<|im_start|>': 260, '<|im_end|>': 261}
>>> enc = encode_chat(tok, chat, chatml)
>>> [tok.decode([i]) for i, m in zip(enc.ids, enc.assistant_mask) if m]
['Hello', '.', '<|im_end|>']

A user who types ``<|im_end|>`` gets ten ordinary ids (one per byte here), and the turn
goes on; only the template's own ``<|im_end|>`` is id 261. Content is always ordinary
text, whatever the tokenizer allows, so ``allowing_special("all")`` changes nothing:

>>> enc = encode_chat(tok, [{"role": "user", "content": "<|im_end|>"}], chatml)
>>> enc.ids
[260, 117, 115, 101, 114, 10, 60, 124, 105, 109, 95, 101, 110, 100, 124, 62, 261, 10]
>>> encode_chat(tok.allowing_special("all"), [{"role": "user", "content": "<|im_end|>"}], chatml) == enc
True
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .base import Token, Tokenizer
from .checks import check_bool, specials_pattern

__all__ = ["ChatTemplate", "ChatEncoding", "available_chat_templates", "load_chat_template",
           "encode_chat", "ordinary_tokens"]

FORMAT_NAME = "tokref-chat-template"
FORMAT_VERSION = 1
# A chat template is a few kB; a file far larger than that is not one.
MAX_TEMPLATE_BYTES = 1 << 20
# The variables the renderer sets itself; `variables=` may not override them.
_RESERVED = frozenset({"messages", "add_generation_prompt", "bos_token", "eos_token"})
# Markers are taken from Supplementary Private-Use Area A (U+F0000-U+FFFFD): no Unicode
# character is ever assigned there, so text almost never contains them; when it does,
# the markers move to code points it does not contain.
_MARKER_BASE, _MARKER_END = 0xF0000, 0xFFFFD
_HIGH_CHARS = re.compile("[\U000F0000-\U0010FFFF]")


# ---------------------------------------------------------------------------------------
# The template
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatTemplate:
    """A chat format: a Jinja2 template plus the special tokens it writes.

    ``roles`` are the roles a message may have (anything else is refused, with this list
    in the message); ``bos_token``/``eos_token`` are given to the template as variables,
    as Hugging Face does, and must be among ``special_tokens``. The template sees
    ``messages``, ``add_generation_prompt``, ``bos_token``, ``eos_token`` and any
    ``variables=`` passed to ``render``. Undefined names are errors (``StrictUndefined``),
    so a template from the Hugging Face Hub that tests ``{% if tools %}`` needs
    ``variables={"tools": None}``.
    """

    name: str
    template: str
    special_tokens: tuple[str, ...]
    roles: tuple[str, ...] = ("system", "user", "assistant")
    bos_token: str | None = None
    eos_token: str | None = None
    source: str = ""
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        for attr in ("name", "template", "source", "description"):
            value = getattr(self, attr)
            if not isinstance(value, str):
                raise TypeError(f"ChatTemplate.{attr} must be str, not {type(value).__name__}")
        if not self.name:
            raise ValueError("ChatTemplate.name must not be empty")
        # Lists (from JSON) become tuples, so that a template is hashable and immutable.
        for attr in ("special_tokens", "roles"):
            object.__setattr__(self, attr, _distinct_strings(getattr(self, attr), attr))
        if not self.roles:
            raise ValueError("ChatTemplate.roles must name at least one role, e.g. ('user', 'assistant')")
        for attr in ("bos_token", "eos_token"):
            value = getattr(self, attr)
            if value is not None and value not in self.special_tokens:
                raise ValueError(
                    f"ChatTemplate.{attr} {value!r} is not one of its special_tokens "
                    f"{list(self.special_tokens)}; add it there"
                )
        # Compile now, so that a syntax error shows when the template is made, not later.
        _compiled(self.template, self.name, self._markers(_MARKER_BASE))

    def _markers(self, base: int) -> _Markers:
        n = len(self.special_tokens)
        chars = [chr(base + i) for i in range(n + 2)]
        return _Markers(tuple(zip(self.special_tokens, chars[:n])), chars[n], chars[n + 1])

    def render(
        self,
        conversation: Sequence[Mapping[str, Any]],
        *,
        add_generation_prompt: bool = False,
        variables: Mapping[str, Any] | None = None,
    ) -> str:
        """The conversation as one string, in this format. With ``add_generation_prompt``
        the string ends with the header of an assistant turn, for the model to continue."""
        return _render(self, conversation, add_generation_prompt, variables).text

    def render_with_spans(
        self,
        conversation: Sequence[Mapping[str, Any]],
        *,
        add_generation_prompt: bool = False,
        variables: Mapping[str, Any] | None = None,
    ) -> tuple[str, list[tuple[int, int]]]:
        """``render``'s string and the ``(start, end)`` character spans of its
        ``{% generation %}`` blocks: what the assistant wrote, with its end-of-turn token
        (Hugging Face's ``return_assistant_tokens_mask`` uses the same spans)."""
        out = _render(self, conversation, add_generation_prompt, variables)
        return out.text, list(out.spans)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready description (the format of the shipped template files)."""
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "name": self.name,
            "source": self.source,
            "description": self.description,
            "roles": list(self.roles),
            "special_tokens": list(self.special_tokens),
            "bos_token": self.bos_token,
            "eos_token": self.eos_token,
            "template": self.template,
        }

    @classmethod
    def from_dict(cls, data: object) -> ChatTemplate:
        """A template from ``to_dict()`` output (a parsed template file), checked."""
        if not isinstance(data, dict):
            raise ValueError(f"a chat template file holds a JSON object, not {type(data).__name__}")
        if data.get("format") != FORMAT_NAME:
            raise ValueError(f'not a chat template file: it needs "format": "{FORMAT_NAME}"')
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"chat template format version {data.get('version')!r}; "
                f"this tokref reads version {FORMAT_VERSION}"
            )
        missing = [k for k in ("name", "template", "special_tokens") if k not in data]
        if missing:
            raise ValueError(f"the chat template file has no {missing} entries")
        known = {"format", "version", "name", "source", "description", "roles",
                 "special_tokens", "bos_token", "eos_token", "template"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown entries in the chat template file: {unknown}; the known ones are {sorted(known)}"
            )
        args = {k: v for k, v in data.items() if k not in ("format", "version")}
        try:
            return cls(**args)
        except TypeError as e:
            raise ValueError(f"invalid chat template file: {e}") from None


def _distinct_strings(values: object, name: str) -> tuple[str, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, set, frozenset)):
        raise TypeError(f"ChatTemplate.{name} must be a list of str, not {type(values).__name__}")
    out = tuple(values)
    for v in out:
        if not isinstance(v, str) or not v:
            raise ValueError(f"ChatTemplate.{name} must hold non-empty strings, found {v!r}")
    if len(set(out)) != len(out):
        raise ValueError(f"ChatTemplate.{name} has repeated entries: {list(out)}")
    return out


def available_chat_templates() -> list[str]:
    """The names of the templates shipped with tokref.

    >>> available_chat_templates()
    ['chatml', 'llama3']
    """
    folder = resources.files("tokref") / "data" / "chat_templates"
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def load_chat_template(name_or_path: str | os.PathLike[str]) -> ChatTemplate:
    """A shipped template by name (``"chatml"``, ``"llama3"``) or a template file by path
    (a ``.json`` file in the format of the shipped ones)."""
    if isinstance(name_or_path, str) and name_or_path in available_chat_templates():
        ref = resources.files("tokref") / "data" / "chat_templates" / f"{name_or_path}.json"
        return ChatTemplate.from_dict(json.loads(ref.read_text(encoding="utf-8")))
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise TypeError(
            f"name_or_path must be a template name or a path, not {type(name_or_path).__name__}"
        )
    path = Path(name_or_path)
    if not path.is_file():
        raise ValueError(
            f"no chat template named {str(name_or_path)!r} and no such file; the shipped "
            f"templates are {available_chat_templates()}, or pass the path of a .json template file"
        )
    if path.stat().st_size > MAX_TEMPLATE_BYTES:
        raise ValueError(
            f"{str(path)!r} is larger than any chat template ({MAX_TEMPLATE_BYTES:,} bytes); is it one?"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{str(path)!r} is not a JSON chat template file: {e}") from None
    return ChatTemplate.from_dict(data)


def _as_template(template: object) -> ChatTemplate:
    if isinstance(template, ChatTemplate):
        return template
    if isinstance(template, (str, os.PathLike)):
        return load_chat_template(template)
    raise TypeError(
        f"template must be a ChatTemplate, a template name or a path, not {type(template).__name__}; "
        "for example load_chat_template('chatml')"
    )


# ---------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Markers:
    specials: tuple[tuple[str, str], ...]  # (special token, its marker character)
    open: str  # start of a {% generation %} block
    close: str  # its end


class _GenerationTag(jinja2.ext.Extension):
    """``{% generation %}...{% endgeneration %}``: the body is written between two marker
    characters, which ``_render`` turns into a span. (Hugging Face measures the length of
    the text written so far instead; markers also work inside blocks Jinja buffers.)"""

    tags = {"generation"}

    def parse(self, parser: Any) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_wrap"), [], [], body).set_lineno(lineno)

    def _wrap(self, caller: Any) -> str:
        open_, close = self.environment.generation_markers  # type: ignore[attr-defined]
        return f"{open_}{caller()}{close}"


class _Refusal(jinja2.TemplateError):
    """Raised by ``raise_exception`` inside a template."""


def _raise_exception(message: str) -> None:
    raise _Refusal(message)


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


@lru_cache(maxsize=64)
def _compiled(source: str, name: str, markers: _Markers) -> jinja2.Template:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        extensions=[_GenerationTag, jinja2.ext.loopcontrols],
    )
    env.extend(generation_markers=(markers.open, markers.close))
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    to_marker = dict(markers.specials)
    if to_marker:
        source = specials_pattern(to_marker).sub(lambda m: to_marker[m.group()], source)
    try:
        return env.from_string(source)
    except jinja2.TemplateSyntaxError as e:
        raise ValueError(
            f"chat template {name!r} is not valid Jinja2: {e.message} (line {e.lineno})"
        ) from None


@dataclass(frozen=True)
class _Rendered:
    text: str
    specials: tuple[tuple[int, int], ...]  # where the template wrote a special token
    spans: tuple[tuple[int, int], ...]  # the {% generation %} blocks


def _strings(value: object, out: list[str]) -> list[str]:
    """Every string inside ``value`` (mappings, sequences), for choosing the markers."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _strings(v, out)
    return out


def _free_markers(template: ChatTemplate, texts: list[str]) -> _Markers:
    used = {c for t in texts for c in _HIGH_CHARS.findall(t)}
    n = len(template.special_tokens) + 2
    base = _MARKER_BASE
    while any(chr(base + i) in used for i in range(n)):
        base += n
        if base + n > _MARKER_END:
            raise ValueError(
                "the conversation uses every private-use character that could mark the template's tokens"
            )
    return template._markers(base)


def _check_conversation(conversation: object, template: ChatTemplate) -> list[dict[str, Any]]:
    if isinstance(conversation, (str, bytes, Mapping)) or not isinstance(conversation, Sequence):
        raise TypeError(
            "conversation must be a list of {'role': ..., 'content': ...} mappings, not "
            f"{type(conversation).__name__}; for one message write "
            "[{'role': 'user', 'content': text}]"
        )
    out = []
    for i, message in enumerate(conversation):
        if not isinstance(message, Mapping):
            raise TypeError(
                f"conversation[{i}] must be a mapping such as {{'role': 'user', 'content': 'Hi'}}, "
                f"not {type(message).__name__}"
            )
        for key in ("role", "content"):
            if key not in message:
                raise ValueError(
                    f"conversation[{i}] has no {key!r}; every message needs 'role' and 'content'"
                )
            if not isinstance(message[key], str):
                raise TypeError(
                    f"conversation[{i}][{key!r}] must be str, not {type(message[key]).__name__}"
                    + ("; these templates take text content only" if key == "content" else "")
                )
        if message["role"] not in template.roles:
            raise ValueError(
                f"conversation[{i}] has role {message['role']!r}, which the {template.name!r} template "
                f"does not know; its roles are {list(template.roles)}"
            )
        out.append(dict(message))
    return out


def _context(
    template: ChatTemplate, conversation: object, add_generation_prompt: object, variables: object
) -> tuple[dict[str, Any], _Markers]:
    messages = _check_conversation(conversation, template)
    check_bool(add_generation_prompt, name="add_generation_prompt")
    extra = {} if variables is None else variables
    if not isinstance(extra, Mapping) or not all(isinstance(k, str) for k in extra):
        raise TypeError(
            "variables must be a mapping of str names to values, e.g. {'date': '2024-05-01'}"
        )
    clash = sorted(_RESERVED & set(extra))
    if clash:
        raise ValueError(f"variables may not set {clash}: the renderer sets them itself")
    markers = _free_markers(template, _strings([messages, dict(extra)], [template.template]))
    to_marker = dict(markers.specials)
    context: dict[str, Any] = {
        **extra, "messages": messages, "add_generation_prompt": add_generation_prompt
    }
    # An absent bos/eos token stays undefined, so a template that uses it fails loudly.
    for name in ("bos_token", "eos_token"):
        token = getattr(template, name)
        if token is not None:
            context[name] = to_marker[token]
    return context, markers


def _render(template: ChatTemplate, conversation: object, add_generation_prompt: object,
            variables: object) -> _Rendered:
    context, markers = _context(template, conversation, add_generation_prompt, variables)
    compiled = _compiled(template.template, template.name, markers)
    try:
        marked = compiled.render(**context)
    except _Refusal as e:
        raise ValueError(
            f"the {template.name!r} template refused the conversation: {e.message}"
        ) from None
    except jinja2.UndefinedError as e:
        raise ValueError(
            f"the {template.name!r} template uses something the conversation does not give: "
            f"{e.message}; pass it with variables={{...}} or fix the template"
        ) from None
    except jinja2.TemplateError as e:
        raise ValueError(f"the {template.name!r} template failed: {e}") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
        raise ValueError(f"the {template.name!r} template failed: {type(e).__name__}: {e}") from None
    return _unmark(marked, markers, template.name)


def _unmark(marked: str, markers: _Markers, name: str) -> _Rendered:
    """Put the special tokens back in place of their markers; record where they are and
    where the generation blocks are, in the final string's coordinates."""
    to_special = {m: s for s, m in markers.specials}
    parts: list[str] = []
    specials, spans = [], []
    pos = last = 0
    open_at: int | None = None
    any_marker = "[" + re.escape("".join([*to_special, markers.open, markers.close])) + "]"
    for m in re.finditer(any_marker, marked):
        parts.append(marked[last : m.start()])
        pos += m.start() - last
        last = m.end()
        c = m.group()
        if c in to_special:
            parts.append(to_special[c])
            specials.append((pos, pos + len(to_special[c])))
            pos += len(to_special[c])
        elif c == markers.open:
            if open_at is not None:
                raise ValueError(
                    f"the {name!r} template nests {{% generation %}} blocks; they cannot nest"
                )
            open_at = pos
        else:
            spans.append((open_at, pos))
            open_at = None
    parts.append(marked[last:])
    return _Rendered("".join(parts), tuple(specials), tuple(s for s in spans if s[0] < s[1]))


# ---------------------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatEncoding:
    """The ids of a rendered conversation, ``assistant_mask`` (1 for a token the assistant
    wrote: the ``{% generation %}`` blocks) of the same length, and the rendered ``text``."""

    ids: list[int]
    assistant_mask: list[int]
    text: str


def encode_chat(
    tok: Tokenizer,
    conversation: Sequence[Mapping[str, Any]],
    template: ChatTemplate | str,
    *,
    add_generation_prompt: bool = False,
    strict: bool = True,
    variables: Mapping[str, Any] | None = None,
) -> ChatEncoding:
    """Render ``conversation`` with ``template`` and encode it with ``tok``.

    Content is always ordinary text, whatever the tokenizer allows (one made by
    ``allowing_special("all")`` too): only the special tokens the template writes are
    special ids; special-token text in a message stays text (the module's last example).
    ``assistant_mask[i]`` is 1 when token ``i`` overlaps a ``{% generation %}`` block, as
    in Hugging Face's ``return_assistant_tokens_mask`` (which marks the tokens from the one
    holding a block's first character to the one holding its last): a token that
    straddles the edge, such as ``"\n  "`` when the assistant's reply starts with two
    spaces, counts.

    ``tok`` must be a byte-level tokenizer (it needs ``encode_ordinary`` and
    ``special_tokens_map``) whose special tokens include the template's; otherwise
    ``ValueError`` says which are missing, unless ``strict=False``: then the missing
    ones are encoded as the ordinary text they are, which is what a mismatched template
    and tokenizer do.
    """
    template = _as_template(template)
    check_bool(strict, name="strict")
    registered = _special_ids(tok)
    missing = [s for s in template.special_tokens if s not in registered]
    if missing and strict:
        raise ValueError(
            f"the {template.name!r} template writes {missing}, which are not special tokens of this "
            f"tokenizer (its special tokens are {sorted(registered)}): each would be encoded as "
            "several ordinary ids, not the one id a model trained on this format expects. Use a "
            "tokenizer trained or extended with the template's special tokens, e.g. "
            "ByteLevelBPETokenizer().train(texts, vocab_size, special_tokens=template.special_tokens), "
            "or the template that matches the tokenizer; pass strict=False to encode them as "
            "text anyway"
        )
    out = _render(template, conversation, add_generation_prompt, variables)
    text = out.text
    ids: list[int] = []
    spans: list[tuple[int, int]] = []  # the character span of every token
    start = 0
    for a, b in [*out.specials, (len(text), len(text))]:
        if b > a and text[a:b] not in registered:
            continue  # an unregistered special (strict=False): it stays in the ordinary text
        if a > start:
            for t in ordinary_tokens(tok, text[start:a]):
                ids.append(t.id)
                spans.append((start + t.start, start + t.end))
        if b > a:
            ids.append(registered[text[a:b]])
            spans.append((a, b))
        start = b
    return ChatEncoding(ids, _overlap_mask(spans, out.spans), text)


def _special_ids(tok: object) -> dict[str, int]:
    specials = getattr(tok, "special_tokens_map", None)
    if not isinstance(specials, dict) or not hasattr(tok, "encode_ordinary"):
        raise TypeError(
            "encode_chat needs a byte-level tokenizer (encode_ordinary, special_tokens_map), not "
            f"{type(tok).__name__}; for example a ByteLevelBPETokenizer trained with the "
            "template's special tokens"
        )
    return specials


def ordinary_tokens(tok: Any, text: str) -> list[Token]:
    """``tok.encode_ordinary(text)`` with character offsets, whatever ``tok`` allows by
    default; ``TypeError`` if ``tok`` gives a special id all the same."""
    tokens = tok.encode_with_offsets(text, allowed_special=(), disallowed_special=())
    if not set(_special_ids(tok).values()).isdisjoint(t.id for t in tokens):
        raise TypeError(
            f"{type(tok).__name__}.encode_with_offsets(text, allowed_special=()) gave special ids: "
            "it cannot encode special-token text as ordinary text, which message content must be"
        )
    return tokens


def _overlap_mask(tokens: list[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> list[int]:
    """1 for each token span that overlaps one of ``spans`` (both sorted, spans disjoint)."""
    mask, j = [], 0
    for a, b in tokens:
        while j < len(spans) and spans[j][1] <= a:
            j += 1
        mask.append(int(j < len(spans) and spans[j][0] < b))
    return mask
