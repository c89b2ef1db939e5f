"""The merge explorer: a slider over the merges of a traced BPE run, on a sample text.

For tokref's two BPE tokenizers the segmentation after *k* merges is computed the way
tokref encodes with the first *k* merges (rank order for character BPE, tiktoken's
rule for byte-level BPE), and the pair counts of each step by replaying the merges
with incremental counts over ``corpus``. For any other traced object the sample is
encoded once and merges are undone from the trace (exact for BPE that applies merges
in rank order).
"""

from __future__ import annotations

import html
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import regex

from ..checks import check_text, check_texts, is_integer
from ..bpe import EOW, word_counts
from ..pretokenize import count_pretokens
from .faces import Explorer, css_widget, widgets
from .protocols import SupportsMergeTrace, check_tokenizer, label, tokref_kind, unk_id
from .render import NEW, UNK, head, log_ticks, nice_ticks, pill, render_view, svg_chart
from .replay import (
    bpe_sample_nodes,
    bytelevel_sample_nodes,
    counts_per_step,
    generic_tops,
    replay_counts,
    sort_nodes,
    trace_index,
    traced_sample_nodes,
    tree_totals,
)


class MergeRun(NamedTuple):
    """What the explorer shows of a traced run, whatever the tokenizer."""

    K: int                               # merges shown
    mode: str                            # of the sample's view: "chars", "bytes" or "pieces"
    unk: int | None
    source: dict[str, Any]               # what the page can rebuild the tokenizer from
    consistent: bool                     # the replayed top pair is the merged one at every step
    nodes: list[list[int]]               # the sample at every step (see tokref.explorer.replay)
    names: list[str] | dict[int, str]    # id -> label
    merges: list[tuple[int, int, int]]   # (a, b, new) per step
    counts: list[int]                    # the merged pair's count in training, per step
    tops: list[list[int]]                # the top pairs when each merge was chosen
    totals: list[int] | None             # the corpus's tokens after k merges


def _bpe_run(tok: Any, trace: Sequence[Any], sample: str, K: int, texts: list[str] | None, top_n: int) -> MergeRun:
    pieces, ids, unk = tok.pieces, tok.vocab, tok.unk_id
    merges = tok.merge_ids[:K]
    n_base = tok.base_vocab_size
    names = pieces[: max(n_base, max(m[2] for m in merges) + 1)]
    words: dict[tuple[int, ...], int] = defaultdict(int)
    for w, c in word_counts(texts or [sample]).items():
        words[(*(ids.get(ch, unk if unk is not None else -1) for ch in w), ids[EOW])] += c
    keys = [tok.tie_key(i) for i in range(len(names))]
    tops, totals = replay_counts(words, merges, lambda i: keys[i] if i >= 0 else "", top_n)
    return MergeRun(
        K, "chars", unk, {"type": "bpe", "n_special": len(tok.special_tokens), "n_base": n_base},
        bool(texts) and all(tp[:2] == [m[0], m[1]] for tp, m in zip(tops, merges)),
        bpe_sample_nodes(tok, sample, K), names, merges, [trace[k].count for k in range(K)], tops, totals)


def _bytelevel_run(tok: Any, trace: Sequence[Any], sample: str, K: int, texts: list[str] | None,
                   top_n: int) -> MergeRun:
    merges = tok.merge_ids[:K]
    K = len(merges)
    pattern = regex.compile(tok.pattern)
    counts = count_pretokens(texts or [sample], pattern, tok.special_tokens)
    words = {tuple(p.encode("utf-8")): c for p, c in counts.items()}
    keys = [tok.tie_key(i) for i in range(256 + K)]
    tops, totals = replay_counts(words, merges, keys.__getitem__, top_n)
    return MergeRun(
        K, "bytes", None, {"type": "bytelevel", "pattern": tok.pattern},
        bool(texts) and all(tp[:2] == [m[0], m[1]] for tp, m in zip(tops, merges)),
        bytelevel_sample_nodes(tok.mergeable_ranks, pattern, sample, K),
        [tok.id_to_token(i) for i in range(256 + K)], merges, [trace[k].count for k in range(K)], tops, totals)


def _generic_run(tok: Any, trace: Sequence[Any], sample: str, K: int, texts: list[str] | None,
                 top_n: int) -> MergeRun:
    index = trace_index(trace)
    mode, nodes6 = traced_sample_nodes(tok, [int(i) for i in tok.encode(sample)], index, K, sample)
    merges = [(int(s.pair[0]), int(s.pair[1]), int(s.new_id)) for s in trace[:K]]
    used = {n[0] for n in nodes6} | {x for m in merges for x in m}
    names = {i: label(tok, i) for i in sorted(used)}
    tops = generic_tops(nodes6, K, top_n, lambda i: names.get(i, f"#{i}"))
    totals = tree_totals(Counter(i for x in texts for i in tok.encode(x)), index, K) if texts else None
    return MergeRun(K, mode, unk_id(tok), {"type": "generic"}, False, [n[:5] for n in nodes6], names, merges,
                    [int(s.count) for s in trace[:K]], tops, totals)


def sample_steps(K: int, n: int) -> list[int]:
    """The steps drawn on the chart: every step early on, log-spaced later."""
    ks = set(range(min(K, 60) + 1))
    ks.update(min(K, round((K + 1) ** (i / n) - 1)) for i in range(n + 1))
    ks.add(K)
    return sorted(ks)


# ---------------------------------------------------------------------------
# The markup of one step (static/merge.js draws the same)
# ---------------------------------------------------------------------------


def merge_info(k: int, merge: Sequence[int], count_label: str, made: int, label: Callable[[int], str]) -> str:
    """The line above the sample: merge ``k`` (``[a, b, count, new]``) and how many of
    its tokens the sample has; at step 0, the first merge to come."""
    if k > 0:
        a, b, c, n = merge
        return (f'<span class="tokx-k">Merge {k:,}: </span>{pill(a, label(a))} + {pill(b, label(b))} → '
                f'{pill(n, label(n), " tokx-new")}<span class="tokx-muted">  id {n} · count {c:,} '
                f'{html.escape(count_label)}</span><span class="tokx-muted">'
                f'{f" · {made} in the sample" if made else " · not in the sample"}</span>')
    a, b = merge[:2]
    return (f'<span class="tokx-k">No merge yet: </span>the sample in base symbols. First merge: '
            f'{pill(a, label(a))} + {pill(b, label(b))}')


def merge_stats(n: int, n_chars: int, corpus: Sequence[int] | None) -> str:
    """Tokens and characters of the sample; ``corpus`` is (characters, tokens) or None."""
    stats = f"{n:,} tokens for {n_chars:,} characters · {n_chars / n:.2f} characters per token"
    if corpus:
        stats += f" · corpus: {corpus[0] / corpus[1]:.2f} characters per token"
    return stats


def pair_rows(top: Sequence[int], chosen: Sequence[int], label: Callable[[int], str]) -> str:
    """The table of pair counts (``top`` is flat: a, b, count, ...), the chosen pair marked."""
    rows = ['<tr><th>#</th><th>pair</th><th class="tokx-num">count</th><th></th></tr>']
    maxc = top[2] if top else 1
    for j in range(0, len(top), 3):
        cls = ' class="tokx-chosen"' if list(top[j:j + 2]) == list(chosen[:2]) else ""
        rows.append(f'<tr{cls}><td class="tokx-muted">{j // 3 + 1}</td><td>{pill(top[j], label(top[j]))} '
                    f'{pill(top[j + 1], label(top[j + 1]))}</td><td class="tokx-num">{top[j + 2]:,}</td>'
                    f'<td class="tokx-barcell"><span class="tokx-bar" style="width:{100 * top[j + 2] / maxc:.1f}%"></span></td></tr>')
    return "".join(rows)


class MergeExplorer(Explorer):
    """A slider over the merges of a traced BPE run, on a sample text.

    ``tokenizer`` implements :class:`SupportsMergeTrace` (tokref's ``BPETokenizer`` and
    ``ByteLevelBPETokenizer`` trained with ``trace=True`` do). ``corpus`` (a string or
    strings) is where the pair counts of each step are counted: pass the training
    corpus to see exactly the counts training saw. ``max_steps`` caps the merges shown
    (the data grows with it: about 150 bytes per step); ``top_n`` is the number of
    pairs listed per step.
    """

    kind = "merge"

    def __init__(self, tokenizer: SupportsMergeTrace, sample: str, *, corpus: str | Iterable[str] | None = None,
                 corpus_name: str = "corpus", max_steps: int = 2000, top_n: int = 6, start: int | None = None,
                 title: str | None = None) -> None:
        check_tokenizer(tokenizer, trace=True)
        sample = check_text(sample, name="sample")
        if not sample:
            raise ValueError("sample must be a non-empty string")
        if not is_integer(max_steps) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive int, not {max_steps!r}")
        self.tokenizer = tokenizer
        trace = list(tokenizer.trace)  # type: ignore[arg-type]
        if not trace:
            raise ValueError("the trace is empty: the tokenizer learnt no merges")
        texts = check_texts(corpus, name="corpus") if corpus is not None else None
        kind = tokref_kind(tokenizer)
        build = {"bpe": _bpe_run, "bytelevel": _bytelevel_run}.get(kind or "", _generic_run)
        run = build(tokenizer, trace, sample, min(len(trace), max_steps), texts, top_n)
        self.data = self._data(run, sample, texts, corpus_name, kind in ("bpe", "bytelevel"), title, start)

    def _data(self, run: MergeRun, sample: str, texts: list[str] | None, corpus_name: str, native: bool,
              title: str | None, start: int | None) -> dict[str, Any]:
        K = run.K
        nodes = sort_nodes(run.nodes)
        d: dict[str, Any] = {"kind": "merge", "K": K, "text": sample, "n_chars": len(sample), "unk": run.unk,
                             "mode": run.mode, "source": run.source, "consistent": run.consistent,
                             "nodes": [x for n in nodes for x in n], "names": run.names,
                             "merges": [[a, b, c, n] for (a, b, n), c in zip(run.merges, run.counts)],
                             "tops": run.tops, "sample_tokens": counts_per_step(nodes, K),
                             "count_label": "in training"}
        if texts and run.totals is not None:
            d["corpus_tokens"] = run.totals
            d["corpus_chars"] = sum(map(len, texts))
            d["tops_label"] = f"{corpus_name}, {d['corpus_chars']:,} characters"
        else:
            d["corpus_tokens"] = None
            d["corpus_chars"] = None
            d["tops_label"] = ("the sample text" if native else
                               "adjacent pieces inside each final token of the sample text")
        d["title"] = title or f"{type(self.tokenizer).__name__}: {K:,} merges, step by step"
        d["start"] = K if start is None else max(0, min(K, int(start)))
        return d

    def __repr__(self) -> str:
        return f"MergeExplorer({type(self.tokenizer).__name__}, {self.data['K']:,} merges)"

    # -- the state at step k ---------------------------------------------------

    def _label(self, i: int) -> str:
        names = self.data["names"]
        if isinstance(names, dict):
            return names.get(i, f"#{i}")
        return names[i] if 0 <= i < len(names) else f"#{i}"

    def tokens_at(self, k: int) -> list[list[int]]:
        """The sample after ``k`` merges: ``[id, start, end, flags]`` per token."""
        d = self.data
        nd, unk = d["nodes"], d["unk"]
        out = []
        for j in range(0, len(nd), 5):
            if nd[j + 3] <= k < nd[j + 4]:
                out.append([nd[j], nd[j + 1], nd[j + 2],
                            (NEW if k > 0 and nd[j + 3] == k else 0) | (UNK if nd[j] == unk else 0)])
        return out

    def ids_at(self, k: int) -> list[int]:
        """The token ids of the sample after ``k`` merges."""
        return [t[0] for t in self.tokens_at(k)]

    def _render_state(self, k: int, *, live: bool = False) -> str:
        d = self.data
        K = d["K"]
        lab = self._label
        k = max(0, min(K, int(k)))
        toks = self.tokens_at(k)
        made = sum(1 for t in toks if t[3] & NEW)
        info = merge_info(k, d["merges"][k - 1] if k > 0 else d["merges"][0], d["count_label"], made, lab)
        seg = render_view({"mode": d["mode"], "toks": toks}, d["text"], lab)
        stats = merge_stats(d["sample_tokens"][k], d["n_chars"],
                            (d["corpus_chars"], d["corpus_tokens"][k]) if d["corpus_tokens"] else None)
        ti = max(0, k - 1)
        caption = (f"Pair counts when merge {k:,} was chosen" if k > 0 else "Pair counts now") + f" ({d['tops_label']})"
        rows = pair_rows(d["tops"][ti] if d["tops"] else [], d["merges"][ti], lab)
        return (f'<div class="tokx-info">{info}</div><div class="tokx-seg">{seg}</div>'
                f'<div class="tokx-stats">{stats}</div><div class="tokx-cols"><div class="tokx-col">'
                f'<div class="tokx-caption">{html.escape(caption)}</div><table class="tokx-table">{rows}</table></div>'
                f'<div class="tokx-col tokx-chartbox">{self._chart(k)}</div></div>')

    def _chart(self, k: int) -> str:
        d = self.data
        K = d["K"]
        sample_pts, corpus_pts = [], []
        for s in sample_steps(K, 260):
            sample_pts.append((s + 1, d["sample_tokens"][s] / d["n_chars"]))
            if d["corpus_tokens"]:
                corpus_pts.append((s + 1, d["corpus_tokens"][s] / d["corpus_chars"]))
        series = [{"pts": sample_pts, "cls": "tokx-s1", "name": "sample"}]
        if corpus_pts:
            series.append({"pts": corpus_pts, "cls": "tokx-s2", "name": "corpus"})
        ymax = max([1.0] + [y for s in series for _, y in s["pts"]])
        return svg_chart(
            series, x0=1, x1=K + 1, y0=0, y1=math.ceil(ymax * 10) / 10, xlog=True,
            xticks=log_ticks(1, K + 1), yticks=nice_ticks(0, ymax, 4), yfmt=lambda v: f"{v:.1f}",
            xlabel="merges + 1 (log scale)", ylabel="tokens per character", mark_x=k + 1,
            label="tokens per character against merges",
            mark_ys=[d["sample_tokens"][k] / d["n_chars"],
                     d["corpus_tokens"][k] / d["corpus_chars"] if d["corpus_tokens"] else None])

    def _prerender(self) -> str:
        return head(self.data["title"], False) + self._render_state(self.data["start"])

    def widget(self) -> Any:
        """The live face: an ipywidgets box whose slider re-renders in Python."""
        W = widgets()
        d = self.data
        K = d["K"]
        play = W.Play(value=d["start"], min=0, max=K, step=1, interval=120, description="play")
        slider = W.IntSlider(value=d["start"], min=0, max=K, step=1, description="merges",
                             continuous_update=True, layout=W.Layout(flex="1 1 auto", width="auto"))
        W.jslink((play, "value"), (slider, "value"))
        prev = W.Button(description="−1", tooltip="one merge back", layout=W.Layout(width="48px"))
        nxt = W.Button(description="+1", tooltip="one merge on", layout=W.Layout(width="48px"))
        view = W.HTML()

        def render(_: Any = None) -> None:
            view.value = (f'<div class="tokx tokx-merge">{head(d["title"], True)}'
                          f'{self._render_state(slider.value, live=True)}</div>')

        slider.observe(render, "value")
        prev.on_click(lambda _: setattr(slider, "value", max(0, slider.value - 1)))
        nxt.on_click(lambda _: setattr(slider, "value", min(K, slider.value + 1)))
        render()
        box = W.VBox([css_widget(W), W.HBox([play, prev, slider, nxt]), view])
        box.slider, box.view, box.play = slider, view, play  # for scripts and tests
        return box
