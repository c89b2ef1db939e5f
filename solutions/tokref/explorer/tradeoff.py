"""The vocabulary trade-off explorer: a slider over the vocabulary sizes of real
tokenizers, measured on held-out text (sequence length, embedding parameters,
attention cost relative to characters)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..checks import check_text, check_texts
from .faces import Explorer, css_widget, widgets
from .protocols import SupportsMergeTrace, SupportsTokenize, check_tokenizer, encode_plain, label, tokref_kind, unk_id
from .render import UNK, head, log_ticks, nice_ticks, render_view, svg_chart
from .replay import bpe_prefix_totals, bpe_sample_nodes, sort_nodes, trace_index, traced_sample_nodes, tree_totals
from .twins import view


def view_as_pieces(v: Mapping[str, Any]) -> dict[str, Any]:
    """A view drawn as a row of pieces (no offsets)."""
    return {"mode": "pieces", "toks": [[t[0], k, k + 1, t[3]] for k, t in enumerate(v["toks"])]}


def _sized_points(toks: Sequence[Any], texts: list[str], sample: str) -> tuple[list[list[int]], list[list[int]], dict[str, Any]]:
    """Points, curve and sample of a list of tokenizers of different sizes."""
    if not toks:
        raise ValueError("give at least one tokenizer")
    sized = []
    for i, t in enumerate(toks):
        check_tokenizer(t, name=f"tokenizer[{i}]")
        V = getattr(t, "vocab_size", None)
        if isinstance(V, bool) or not isinstance(V, int):
            raise TypeError(f"tokenizer[{i}] needs an int vocab_size to be placed on the slider")
        sized.append((V, t))
    sized.sort(key=lambda x: x[0])
    points = [[V, sum(len(encode_plain(t, x)) for x in texts), j] for j, (V, t) in enumerate(sized)]
    views = [view(t, sample) for _, t in sized]
    if len({v["mode"] for v in views}) > 1:  # one drawing for all: fall back to pieces
        views = [view_as_pieces(v) for v in views]
    for (V, t), v in zip(sized, views):  # each tokenizer has its own ids
        v["labels"] = {tk[0]: label(t, tk[0]) for tk in v["toks"]}
    s = {"text": sample, "mode": views[0]["mode"], "views": views, "unk": None, "names": {}}
    return points, [p[:2] for p in points], s


def _traced_sizes(t: Any, trace: Sequence[Any], texts: list[str], sample: str,
                  ) -> tuple[list[int], list[int], dict[str, Any]]:
    """For a traced tokenizer: the vocabulary size and held-out tokens after each
    number of merges, and the sample at every step."""
    K = len(trace)
    if tokref_kind(t) == "bpe":
        totals = bpe_prefix_totals(t, texts, K)
        pieces = t.pieces
        seen = set(pieces[: t.base_vocab_size])
        vocab_at = [t.base_vocab_size]
        for a, b in t.merges:  # two merges can make one string: one id
            seen.add(a + b)
            vocab_at.append(len(seen))
        nodes = bpe_sample_nodes(t, sample, K)
        used = {n[0] for n in nodes}
        names = {i: pieces[i] for i in sorted(used) if 0 <= i < len(pieces)}
        s = {"text": sample, "mode": "chars", "unk": t.unk_id}
    else:
        index = trace_index(trace)
        totals = tree_totals(Counter(i for x in texts for i in encode_plain(t, x)), index, K)
        V_total = getattr(t, "vocab_size", None)
        base = V_total - K if isinstance(V_total, int) else min(int(st.new_id) for st in trace)
        vocab_at = [base + k for k in range(K + 1)]
        mode, nodes6 = traced_sample_nodes(t, encode_plain(t, sample), index, K, sample)
        nodes = [n[:5] for n in nodes6]
        names = {n[0]: label(t, n[0]) for n in nodes}
        s = {"text": sample, "mode": mode, "unk": unk_id(t)}
    nodes = sort_nodes(nodes)
    s["nodes"] = [x for n in nodes for x in n]
    s["names"] = names
    return vocab_at, totals, s


def _traced_points(t: Any, texts: list[str], sample: str, n_points: int) -> tuple[list[list[int]], list[list[int]], dict[str, Any]]:
    """Points, curve and sample of one traced tokenizer: its first k merges are the
    tokenizer of every size."""
    check_tokenizer(t, name="tokenizer", trace=True)
    trace = list(t.trace)
    K = len(trace)
    vocab_at, totals, s = _traced_sizes(t, trace, texts, sample)
    v0, v1 = vocab_at[0], vocab_at[-1]

    def k_for(V: float) -> int:
        lo, hi = 0, K
        while lo < hi:  # the first k whose vocabulary reaches V
            mid = (lo + hi) // 2
            if vocab_at[mid] < V:
                lo = mid + 1
            else:
                hi = mid
        return lo

    ks = sorted({k_for(v0 * (v1 / v0) ** (i / (n_points - 1))) for i in range(n_points)} | {0, K})
    ck = sorted({k_for(v0 * (v1 / v0) ** (i / 200)) for i in range(201)} | {0, K})
    return [[vocab_at[k], totals[k], k] for k in ks], [[vocab_at[k], totals[k]] for k in ck], s


class TradeoffExplorer(Explorer):
    """A slider over vocabulary sizes of real tokenizers, measured on held-out text.

    ``tokenizer`` is either one traced tokenizer (:class:`SupportsMergeTrace`: its
    first *k* merges give the tokenizer of every size, and the held-out token count is
    computed exactly for every *k*) or a list of tokenizers of different sizes (each
    needs ``vocab_size``). ``references`` (``{name: tokenizer}``, e.g. a character and
    a word tokenizer) are measured too and drawn on the chart; the one named
    ``"character"`` is the baseline of the relative attention cost. ``widths`` are the
    ``d_model`` values offered for the embedding table.
    """

    kind = "tradeoff"

    def __init__(self, tokenizer: SupportsMergeTrace | Sequence[SupportsTokenize], heldout: str | Iterable[str], *,
                 sample: str | None = None, references: Mapping[str, SupportsTokenize] | None = None,
                 widths: Sequence[int] = (128, 256, 512, 768, 1024, 2048, 4096), width: int = 768,
                 window: int = 1024, n_points: int = 48, start_vocab: int = 1000, title: str | None = None) -> None:
        texts = check_texts(heldout, name="heldout")
        n_chars = sum(map(len, texts))
        sample = check_text(sample, name="sample") if sample is not None else texts[0][:240]
        self.tokenizer = tokenizer
        if isinstance(tokenizer, (list, tuple)):
            points, curve, s = _sized_points(list(tokenizer), texts, sample)
        else:
            points, curve, s = _traced_points(tokenizer, texts, sample, n_points)
        refs = []
        for name, r in (references or {}).items():
            check_tokenizer(r, name=f"references[{name!r}]")
            V = getattr(r, "vocab_size", None)
            if not isinstance(V, int):
                raise TypeError(f"references[{name!r}] needs an int vocab_size")
            refs.append({"name": str(name), "V": V, "n": sum(len(encode_plain(r, x)) for x in texts)})
        start = min(range(len(points)), key=lambda i: abs(math.log(points[i][0] / start_vocab)))
        self.data = {"kind": "tradeoff", "title": title or "Vocabulary size against sequence length and cost",
                     "n_chars": n_chars, "points": points, "curve": curve, "refs": refs, "widths": list(widths),
                     "width": width if width in widths else widths[len(widths) // 2], "window": window,
                     "start": start, "sample": s}

    def __repr__(self) -> str:
        p = self.data["points"]
        return f"TradeoffExplorer({len(p)} vocabulary sizes, {p[0][0]:,}..{p[-1][0]:,} ids)"

    def sample_tokens_at(self, i: int) -> list[list[int]]:
        """The sample's tokens at position ``i`` of the slider: ``[id, start, end, flags]``."""
        s = self.data["sample"]
        if "views" in s:
            return s["views"][i]["toks"]
        k = self.data["points"][i][2]
        nd = s["nodes"]
        return [[nd[j], nd[j + 1], nd[j + 2], UNK if nd[j] == s["unk"] else 0]
                for j in range(0, len(nd), 5) if nd[j + 3] <= k < nd[j + 4]]

    def _meters(self, V: int, n: int, width: int) -> str:
        d = self.data
        char_ref = next((r for r in d["refs"] if r["name"] == "character"), None)
        rel = n / char_ref["n"] if char_ref else None
        emb = V * width
        max_v = max([p[0] for p in d["curve"]] + [r["V"] for r in d["refs"]])

        def meter(name: str, value: str, frac: float, note: str) -> str:
            return (f'<div class="tokx-meter"><div class="tokx-meterhead"><span>{name}</span>'
                    f'<span class="tokx-meterval">{value}</span></div><div class="tokx-meterbar">'
                    f'<span style="width:{max(0.5, min(100, 100 * frac)):.1f}%"></span></div>'
                    f'<div class="tokx-muted tokx-meternote">{note}</div></div>')

        def rel_fmt(x: float) -> str:
            return f"{x:,.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×" if x >= 0.1 else f"{x:.2g}×"

        def big(x: float) -> str:
            return (f"{x / 1e9:.2f} B" if x >= 1e9 else f"{x / 1e6:.2f} M" if x >= 1e6
                    else f"{x / 1e3:.1f} k" if x >= 1e4 else f"{x:,.0f}")

        return (
            meter("Sequence length", f"{n:,} tokens", rel if rel is not None else n / d["points"][0][1],
                  f"the held-out text: {1000 * n / d['n_chars']:,.0f} per 1,000 characters, "
                  f"{d['n_chars'] / n:.2f} characters per token; a {d['window']:,}-token window holds "
                  f"{d['window'] * d['n_chars'] / n:,.0f} characters")
            + meter("Embedding table", f"{big(emb)} parameters", V / max_v,
                    f"{V:,} ids × {width:,} = {emb:,}; an untied output layer doubles it")
            + meter("Attention cost", "–" if rel is None else rel_fmt(rel * rel),
                    0 if rel is None else rel * rel,
                    ("" if rel is None else f"({rel:.3f})² of the character tokenizer's: ")
                    + "attention grows with the square of the sequence length, in every layer"))

    def _chart(self, V: int, n: int) -> str:
        d = self.data
        curve = [(v, 1000 * m / d["n_chars"]) for v, m in d["curve"]]
        xs_ = [v for v, _ in curve] + [r["V"] for r in d["refs"]]
        ys_ = [y for _, y in curve] + [1000 * r["n"] / d["n_chars"] for r in d["refs"]]
        x0, x1, ymax = min(xs_) / 1.4, max(xs_) * 1.4, max(ys_) * 1.08
        return svg_chart(
            [{"pts": curve, "cls": "tokx-s1"}], x0=x0, x1=x1, y0=0, y1=ymax, xlog=True, xticks=log_ticks(x0, x1),
            yticks=nice_ticks(0, ymax, 4), yfmt=lambda v: f"{v:g}", xlabel="vocabulary size (ids, log scale)",
            ylabel="tokens per 1,000 chars", label="sequence length against vocabulary size", mark_x=V, mark_ys=[1000 * n / d["n_chars"]], width=360, height=210,
            points=[{"x": r["V"], "y": 1000 * r["n"] / d["n_chars"], "label": r["name"],
                     "anchor": "end" if r["V"] > math.sqrt(x0 * x1) else "start"} for r in d["refs"]])

    def _render_state(self, i: int, width: int) -> str:
        d = self.data
        V, n, _ = d["points"][i]
        s = d["sample"]
        toks = self.sample_tokens_at(i)
        names = s["views"][i]["labels"] if "views" in s else s["names"]
        seg = render_view({"mode": s["mode"], "toks": toks}, s["text"], lambda j: names.get(j, f"#{j}"))
        return (f'<div class="tokx-cols"><div class="tokx-col"><div class="tokx-meters">{self._meters(V, n, width)}</div></div>'
                f'<div class="tokx-col tokx-chartbox">{self._chart(V, n)}</div></div>'
                f'<div class="tokx-caption">The sample with {V:,} ids: {len(toks):,} tokens for {len(s["text"]):,} characters</div>'
                f'<div class="tokx-seg tokx-seg-small">{seg}</div>')

    def _prerender(self) -> str:
        d = self.data
        return head(d["title"], False) + self._render_state(d["start"], d["width"])

    def widget(self) -> Any:
        """The live face: the vocabulary slider and the width re-render in Python."""
        W = widgets()
        d = self.data
        slider = W.SelectionSlider(options=[(f"{p[0]:,} ids", i) for i, p in enumerate(d["points"])],
                                   value=d["start"], description="vocabulary", continuous_update=True,
                                   layout=W.Layout(flex="1 1 auto", width="auto"))
        width = W.Dropdown(options=[(f"d_model = {w:,}", w) for w in d["widths"]], value=d["width"],
                           layout=W.Layout(width="auto"))
        out = W.HTML()

        def render(_: Any = None) -> None:
            out.value = (f'<div class="tokx tokx-tradeoff">{head(d["title"], True)}'
                         f'{self._render_state(slider.value, width.value)}</div>')

        slider.observe(render, "value")
        width.observe(render, "value")
        render()
        box = W.VBox([css_widget(W), W.HBox([slider, width]), out])
        box.slider, box.width, box.view = slider, width, out
        return box
