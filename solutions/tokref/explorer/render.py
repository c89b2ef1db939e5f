"""The markup the explorers draw, in Python: the widget face, and what the static page
shows before its JavaScript runs. ``static/view.js`` draws the same markup from the
same state (tests/test_explorer.py and tests/test_browser.py check that they agree).

A *view* is ``{"mode": m, "toks": [[id, start, end, flags], ...]}`` over a text:

- mode ``"chars"``: start/end are code-point offsets into the text (tokref's offsets);
- mode ``"bytes"``: start/end are byte offsets into its UTF-8 encoding;
- mode ``"pieces"``: no offsets; start is the token's position, the label is drawn.

``flags``: :data:`NEW` = made by the merge just taken (merge explorer), :data:`UNK` =
the unknown token.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

NEW, UNK = 1, 2

_WS = {" ": "␣", "\t": "⇥", "\n": "⏎", "\r": "␍"}
_OTHER_WS = frozenset("\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B)))


def vis(s: str) -> str:
    """``s`` as HTML with its whitespace visible: ``␣ ⇥ ⏎ ␍``, other spaces ``·``."""
    out = []
    for ch in s:
        g = _WS.get(ch) or ("·" if ch in _OTHER_WS else None)
        if g is None:
            out.append(html.escape(ch))
        else:
            out.append(f'<span class="tokx-ws">{g}</span>' + ("<br>" if ch == "\n" else ""))
    return "".join(out)


def hue(i: int) -> str:
    """The colour of id ``i`` (a hue in degrees; the golden angle spreads neighbours)."""
    return f"{(i * 137.508) % 360:.1f}"


def attr(s: str) -> str:
    """``s`` escaped for an attribute value."""
    return html.escape(s, quote=True)


def _title(i: int, label: str) -> str:
    return attr(f"id {i} · {json.dumps(label, ensure_ascii=False)}")


def tok_open(t: Sequence[int], idx: int, label: str, tag: str = "span") -> str:
    """The opening tag of token ``t`` (the ``idx``-th of its view)."""
    cls = "tokx-t" + (" tokx-new" if t[3] & NEW else "") + (" tokx-unk" if t[3] & UNK else "")
    return f'<{tag} class="{cls}" style="--h:{hue(t[0])}" data-t="{idx}" data-id="{t[0]}" title="{_title(t[0], label)}">'


def pill(i: int, label: str, extra: str = "") -> str:
    """A token drawn alone (in a merge, a table of pairs)."""
    return f'<span class="tokx-t tokx-pill{extra}" style="--h:{hue(i)}" title="id {i}">{vis(label)}</span>'


def id_badge_shown(i: int) -> str:
    """Token ``i``'s id drawn after it; the hidden words make a screen reader say
    "id 12," between tokens instead of running them together."""
    return f'<span class="tokx-id"><span class="tokx-sr"> id </span>{i}<span class="tokx-sr">, </span></span>'


def id_badge_hidden(i: int) -> str:
    """Token ``i``'s id for screen readers only: the token boundary and its id, heard
    without hovering (the ``title`` tooltip is for the mouse)."""
    return f'<span class="tokx-sr"> id {i}, </span>'


def render_view(view: Mapping[str, Any], text: str, label: Callable[[int], str], show_ids: bool = False) -> str:
    """The tokens of ``view`` over ``text``; ``label(id)`` names a token; ``show_ids``
    adds each token's id after its last part."""
    badge = id_badge_shown if show_ids else id_badge_hidden
    toks, mode = view["toks"], view["mode"]
    if mode == "chars":
        return _chars_view(toks, text, label, badge)
    if mode == "bytes":
        return _bytes_view(toks, text, label, badge)
    return "".join(_tok_open_label(t, idx, label) + vis(label(t[0])) + badge(t[0]) + "</span><wbr>"
                   for idx, t in enumerate(toks))


def _tok_open_label(t: Sequence[int], idx: int, label: Callable[[int], str]) -> str:
    return tok_open(t, idx, label(t[0]))


def _gap(s: str) -> str:
    return f'<span class="tokx-gap">{vis(s)}</span>'


def _split(title: str, chars: str, boxes: Sequence[str]) -> str:
    """Characters drawn once, the tokens (or bytes) they are split into as boxes under them."""
    return (f'<span class="tokx-split" title="{attr(title)}"><span class="tokx-split-ch">{html.escape(chars)}'
            f'</span><span class="tokx-split-bytes">{"".join(boxes)}</span></span><wbr>')


def _chars_view(toks: Sequence[Sequence[int]], text: str, label: Callable[[int], str],
                badge: Callable[[int], str]) -> str:
    parts: list[str] = []
    pos = idx = 0
    while idx < len(toks):
        t = toks[idx]
        if t[1] > pos:
            parts.append(_gap(text[pos:t[1]]) + "<wbr>")
        # Several tokens with one and the same span (byte fallback: <0xC3> <0xA9>):
        # the characters once, the tokens as boxes underneath.
        j = idx + 1
        while j < len(toks) and t[2] > t[1] and toks[j][1] == t[1] and toks[j][2] == t[2]:
            j += 1
        if j - idx > 1:
            boxes = []
            for m in range(idx, j):
                u = toks[m]
                lab = label(u[0])
                hx = re.fullmatch(r"<0x([0-9A-Fa-f]{2})>", lab)
                cls = "tokx-b" + (" tokx-new" if u[3] & NEW else "")
                boxes.append(f'<span class="{cls}" style="--h:{hue(u[0])}" data-t="{m}" data-id="{u[0]}" '
                             f'title="{_title(u[0], lab)}">{hx.group(1).upper() if hx else vis(lab)}{badge(u[0])}</span>')
            chars = text[t[1]:t[2]]
            parts.append(_split(f"{json.dumps(chars, ensure_ascii=False)} is {j - idx} tokens", chars, boxes))
            pos = max(pos, t[2])
            idx = j
            continue
        piece = label(t[0])
        txt = text[t[1]:t[2]]
        sfx = ""
        if piece != txt and not t[3] & UNK and piece.startswith(txt):
            sfx = f'<span class="tokx-sfx">{html.escape(piece[len(txt):])}</span>'
        parts.append(tok_open(t, idx, piece) + vis(txt) + sfx + badge(t[0]) + "</span><wbr>")
        pos = max(pos, t[2])
        idx += 1
    if pos < len(text):
        parts.append(_gap(text[pos:]))
    return "".join(parts)


def _bytes_view(toks: Sequence[Sequence[int]], text: str, label: Callable[[int], str],
                badge: Callable[[int], str]) -> str:
    """Runs of whole characters per token; a character whose bytes several tokens share
    is drawn once, its bytes in hex underneath."""
    cp_bytes = [c.encode("utf-8") for c in text]
    nb = sum(map(len, cp_bytes))
    owner = [-1] * nb
    for idx, t in enumerate(toks):
        for b in range(t[1], min(t[2], nb)):
            owner[b] = idx
    last_byte = {o: b for b, o in enumerate(owner) if o >= 0}  # token index -> its last byte
    parts: list[str] = []
    run_idx, run_text, run_end = -2, "", 0

    def close() -> None:
        nonlocal run_idx, run_text
        if run_idx == -1:
            parts.append(_gap(run_text) + "<wbr>")
        elif run_idx >= 0:
            t = toks[run_idx]
            ends = last_byte.get(run_idx) == run_end - 1
            parts.append(tok_open(t, run_idx, label(t[0])) + vis(run_text)
                         + (badge(t[0]) if ends else "") + "</span><wbr>")
        run_idx, run_text = -2, ""

    b0 = 0
    for ch, bs in zip(text, cp_bytes):
        o = owner[b0]
        if all(owner[b] == o for b in range(b0, b0 + len(bs))):
            if o != run_idx:
                close()
                run_idx = o
            run_text += ch
            run_end = b0 + len(bs)
        else:
            close()
            parts.append(_split_char(ch, bs, b0, owner, toks, label, badge, last_byte))
        b0 += len(bs)
    close()
    return "".join(parts)


def _split_char(ch: str, bs: bytes, b0: int, owner: Sequence[int], toks: Sequence[Sequence[int]],
                label: Callable[[int], str], badge: Callable[[int], str], last_byte: Mapping[int, int]) -> str:
    boxes, ids = [], []
    for k, byte in enumerate(bs):
        oi = owner[b0 + k]
        hx = f"{byte:02X}"
        if oi < 0:
            boxes.append(f'<span class="tokx-b">{hx}</span>')
            continue
        t = toks[oi]
        if t[0] not in ids:
            ids.append(t[0])
        cls = "tokx-b" + (" tokx-new" if t[3] & NEW else "")
        title = attr(f"byte 0x{hx} of id {t[0]} · {json.dumps(label(t[0]), ensure_ascii=False)}")
        boxes.append(f'<span class="{cls}" style="--h:{hue(t[0])}" data-t="{oi}" data-id="{t[0]}" title="{title}">{hx}'
                     f'{badge(t[0]) if last_byte.get(oi) == b0 + k else ""}</span>')
    title = f"{json.dumps(ch, ensure_ascii=False)} = {len(bs)} UTF-8 bytes, split between ids {', '.join(map(str, ids))}"
    return _split(title, ch, boxes)


def head(title: str, live: bool) -> str:
    """The title bar of an explorer."""
    badge = "live · Python" if live else "static"
    return (f'<div class="tokx-head"><span class="tokx-title">{html.escape(title)}</span>'
            f'<span class="tokx-badge">{badge}</span></div>')


# ---------------------------------------------------------------------------
# Charts
# ---------------------------------------------------------------------------


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 2, 5 × powers of ten in [lo, hi]; the powers of ten only if that is many."""
    out = [m * 10 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
           for m in (1, 2, 5) if lo <= m * 10 ** e <= hi]
    return [v for v in out if str(v)[0] == "1"] if len(out) > 6 else out


def nice_ticks(lo: float, hi: float, n: int) -> list[float]:
    """About ``n`` round ticks in [lo, hi]."""
    step0 = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(step0))
    step = next((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= step0), 10 * mag)
    out, v = [], math.ceil(lo / step) * step
    while v <= hi + 1e-9:
        out.append(round(v, 10))
        v += step
    return out


def svg_chart(series: Sequence[Mapping[str, Any]], *, x0: float, x1: float, y0: float, y1: float,
              xlog: bool, xticks: Sequence[float], yticks: Sequence[float], xlabel: str, ylabel: str,
              mark_x: float, mark_ys: Sequence[float | None], points: Sequence[Mapping[str, Any]] = (),
              width: int = 340, height: int = 190, yfmt: Callable[[float], str] = str, label: str = "") -> str:
    """A line chart: ``series`` of ``{"pts": [(x, y), ...], "cls", "name"}``, reference
    ``points`` with labels, a vertical marker at ``mark_x`` with a dot on each series."""
    W, H, L, R, T, B = width, height, 46, 12, 14, 34

    def xs(x: float) -> float:
        if xlog:
            return L + (W - L - R) * (math.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0))
        return L + (W - L - R) * (x - x0) / (x1 - x0)

    def ys(y: float) -> float:
        return T + (H - T - B) * (1 - (y - y0) / (y1 - y0))

    def xf(v: float) -> str:
        return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"

    name = attr(label or f"{ylabel} against {xlabel}")  # role="img" needs a name (WCAG 1.1.1)
    o = [f'<svg class="tokx-chart" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{name}">',
         f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" class="tokx-plot"></rect>']
    for v in yticks:
        o.append(f'<line x1="{L}" x2="{W - R}" y1="{ys(v):.1f}" y2="{ys(v):.1f}" class="tokx-grid"></line>'
                 f'<text x="{L - 5}" y="{ys(v) + 3.5:.1f}" class="tokx-tick" text-anchor="end">{yfmt(v)}</text>')
    for v in xticks:
        o.append(f'<line x1="{xs(v):.1f}" x2="{xs(v):.1f}" y1="{T}" y2="{H - B}" class="tokx-grid"></line>'
                 f'<text x="{xs(v):.1f}" y="{H - B + 13}" class="tokx-tick" text-anchor="middle">{xf(v)}</text>')
    mid = T + (H - T - B) / 2
    o.append(f'<text x="{L + (W - L - R) / 2}" y="{H - 4}" class="tokx-axis" text-anchor="middle">{html.escape(xlabel)}</text>'
             f'<text x="11" y="{mid}" class="tokx-axis" text-anchor="middle" transform="rotate(-90 11 {mid})">{html.escape(ylabel)}</text>')
    for s in series:
        pts = " ".join(f"{xs(x):.1f},{ys(y):.1f}" for x, y in s["pts"])
        o.append(f'<polyline points="{pts}" class="tokx-line {s.get("cls", "")}"></polyline>')
    for p in points:
        anchor = p.get("anchor", "start")
        dx = -7 if anchor == "end" else 7
        o.append(f'<circle cx="{xs(p["x"]):.1f}" cy="{ys(p["y"]):.1f}" r="4" class="tokx-ref"><title>{html.escape(p["label"])}</title></circle>'
                 f'<text x="{xs(p["x"]) + dx:.1f}" y="{ys(p["y"]) - 6:.1f}" class="tokx-reflabel" text-anchor="{anchor}">{html.escape(p["label"])}</text>')
    ly = T + 12
    for s in series:
        if s.get("name"):
            o.append(f'<line x1="{W - R - 96}" x2="{W - R - 80}" y1="{ly - 3}" y2="{ly - 3}" class="tokx-line {s.get("cls", "")}"></line>'
                     f'<text x="{W - R - 76}" y="{ly}" class="tokx-tick">{html.escape(s["name"])}</text>')
            ly += 13
    o.append(f'<line x1="{xs(mark_x):.1f}" x2="{xs(mark_x):.1f}" y1="{T}" y2="{H - B}" class="tokx-vline"></line>')
    for s, y in zip(series, mark_ys):
        if y is not None:
            o.append(f'<circle r="4.5" cx="{xs(mark_x):.1f}" cy="{ys(y):.1f}" class="tokx-dot {s.get("cls", "")}"></circle>')
    o.append("</svg>")
    return "".join(o)
