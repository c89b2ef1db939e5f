"""The comparison explorer: one text, several tokenizers side by side.

tokref's six tokenizers have a JavaScript twin (tokref.explorer.twins), so the static
page re-tokenizes whatever is typed; any other object is encoded in Python for a fixed
list of sample texts, and the page says so when other text is typed.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..checks import check_text
from .faces import Explorer, css_widget, widgets
from .protocols import SupportsTokenize, check_tokenizer, label, tokref_kind
from .render import attr, head, render_view
from .twins import js_spec, view

DEFAULT_SAMPLES: tuple[str, ...] = (
    "To-morrow, and to-morrow, and to-morrow,\nCreeps in this petty pace from day to day.",
    "The café's crème brûlée costs €4.50 — naïve?",
    "def greet(name):\n\treturn f\"Hello, {name}!\"",
    "Tokenizers don't see words; they see ids: 1234567.",
    "Ça va? 你好，世界！ Привет, мир! 🙂👍🏽",
)

_DESCRIPTIONS = {"char": "one token per character", "word": "one token per word or punctuation mark",
                 "bpe": "BPE on characters, words end in </w>", "bytelevel": "BPE on UTF-8 bytes",
                 "wordpiece": "greedy longest match, ## continues a word, no [CLS]/[SEP]",
                 "unigram": "Viterbi over scored pieces, ▁ is a space"}
_PYTHON_ONLY = " · Python only"


def card(name: str, description: str, vocab: int | None, v: Mapping[str, Any], text: str,
         label: Callable[[int], str], show_ids: bool, max_n: int) -> str:
    """One tokenizer's card: its name, what it is, a bar of its token count against the
    longest (``max_n``), its counts, and its tokens (view ``v``) of ``text``."""
    n = len(v["toks"])
    n_chars = len(text)
    cpt = f"{n_chars / n:.2f}" if n else "–"
    ids = f" · {vocab:,} ids" if vocab else ""
    return (f'<div class="tokx-card" data-name="{attr(name)}" data-tokens="{n}" data-chars="{n_chars}">'
            f'<div class="tokx-cardhead"><span class="tokx-cardname">{html.escape(name)}</span>'
            f'<span class="tokx-muted"> {html.escape(description)}{ids}</span>'
            f'<span class="tokx-barbox"><span class="tokx-bar" style="width:{100 * n / max_n:.1f}%"></span></span>'
            f'<span class="tokx-cardstats">{n:,} tokens · {n_chars:,} chars · {cpt} chars/token</span></div>'
            f'<div class="tokx-seg tokx-seg-small">{render_view(v, text, label, show_ids)}</div></div>')


class CompareExplorer(Explorer):
    """One text, several tokenizers side by side.

    ``tokenizers`` is a dict ``{name: tokenizer}`` (or a list; names are then the class
    names) of objects implementing :class:`SupportsTokenize`. ``samples`` are the
    texts offered as buttons; objects without a JavaScript twin are encoded in Python
    for these (and for ``text``) only, and the static page says so for other text.
    """

    kind = "compare"

    def __init__(self, tokenizers: Mapping[str, SupportsTokenize] | Sequence[SupportsTokenize],
                 text: str | None = None, *, samples: Sequence[str] = DEFAULT_SAMPLES,
                 title: str | None = None) -> None:
        if isinstance(tokenizers, Mapping):
            named = list(tokenizers.items())
        elif isinstance(tokenizers, (list, tuple)):
            named = [(type(t).__name__, t) for t in tokenizers]
        else:
            raise TypeError("tokenizers must be a dict {name: tokenizer} or a list of tokenizers, "
                            f"not {type(tokenizers).__name__}")
        if not named:
            raise ValueError("give at least one tokenizer")
        for name, t in named:
            check_tokenizer(t, name=f"tokenizers[{name!r}]")
        samples = [check_text(s, name="samples[i]") for s in samples]
        text = samples[0] if text is None and samples else check_text(text or "", name="text")
        self.tokenizers = dict(named)
        classes: dict[str, str] = {}
        entries = [self._entry(str(name), t, classes, [text, *samples]) for name, t in named]
        self.data = {"kind": "compare", "title": title or "Tokenizers side by side", "text": text,
                     "samples": samples, "classes": classes, "tokenizers": entries}

    @staticmethod
    def _entry(name: str, t: Any, classes: dict[str, str], texts: list[str]) -> dict[str, Any]:
        """A tokenizer's data on the page: its twin's, or its views of ``texts``."""
        spec = js_spec(t, classes)
        vocab = getattr(t, "vocab_size", None)
        entry: dict[str, Any] = {"name": name, "vocab": vocab if isinstance(vocab, int) else None,
                                 "description": _DESCRIPTIONS.get(tokref_kind(t) or "", type(t).__name__)}
        if spec is not None:
            entry.update(spec)
            return entry
        entry["pre"], labels = {}, {}
        for s in dict.fromkeys(texts):
            v = view(t, s)
            entry["pre"][s] = v
            for tk in v["toks"]:
                labels.setdefault(tk[0], label(t, tk[0]))
        entry["labels"] = labels
        entry["description"] += _PYTHON_ONLY
        return entry

    def __repr__(self) -> str:
        return f"CompareExplorer({', '.join(self.tokenizers)})"

    def views(self, text: str) -> dict[str, dict[str, Any]]:
        """Each tokenizer's tokens of ``text``, computed in Python: ``{name: view}``."""
        return {name: view(t, text) for name, t in self.tokenizers.items()}

    def _render_cards(self, text: str, show_ids: bool = False) -> str:
        views = self.views(text)
        max_n = max([1] + [len(v["toks"]) for v in views.values()])
        cards = []
        for (name, t), e in zip(self.tokenizers.items(), self.data["tokenizers"]):
            # Python encodes any text here: "Python only" says nothing.
            cards.append(card(name, e["description"].replace(_PYTHON_ONLY, ""), e["vocab"], views[name], text,
                              lambda i, t=t: label(t, i), show_ids, max_n))
        return f'<div class="tokx-cards">{"".join(cards)}</div>'

    def _prerender(self) -> str:
        d = self.data
        return (head(d["title"], False) + f'<textarea class="tokx-input" rows="4" readonly aria-label="the sample text">{html.escape(d["text"])}</textarea>'
                + self._render_cards(d["text"]))

    def widget(self) -> Any:
        """The live face: type, and every tokenizer re-encodes in Python."""
        W = widgets()
        d = self.data
        ta = W.Textarea(value=d["text"], continuous_update=True, layout=W.Layout(width="100%", height="96px"))
        pick = W.Dropdown(options=[("try a sample…", -1)] + [(s[:40].replace("\n", " ⏎ "), i) for i, s in enumerate(d["samples"])],
                          value=-1, layout=W.Layout(width="auto"))
        show_ids = W.Checkbox(value=False, description="show ids", indent=False)
        out = W.HTML()

        def render(_: Any = None) -> None:
            out.value = (f'<div class="tokx tokx-compare">{head(d["title"], True)}'
                         f'{self._render_cards(ta.value, show_ids.value)}</div>')

        def choose(change: Any) -> None:
            if change["new"] is not None and change["new"] >= 0:
                ta.value = d["samples"][change["new"]]

        ta.observe(render, "value")
        show_ids.observe(render, "value")
        pick.observe(choose, "value")
        render()
        box = W.VBox([css_widget(W), ta, W.HBox([pick, show_ids]), out])
        box.textarea, box.view, box.show_ids = ta, out, show_ids
        return box
