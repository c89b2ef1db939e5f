// A small SVG line chart: series of [x, y] points, optional log x axis, reference
// points, and a marker moved by svg.mark(x, ys) without redrawing.
import { tokx, h } from "./core.js";
(function () {
  function chart(opts) {
    const W = opts.width || 340, H = opts.height || 190, L = 46, R = 12, T = 14, B = 34;
    const xs = (x) => L + (W - L - R) * (opts.xlog ? (Math.log10(x) - opts.x0l) / (opts.x1l - opts.x0l) : (x - opts.x0) / (opts.x1 - opts.x0));
    opts.x0l = Math.log10(opts.x0); opts.x1l = Math.log10(opts.x1);
    const ys = (y) => T + (H - T - B) * (1 - (y - opts.y0) / (opts.y1 - opts.y0));
    const svg = h("svg", { class: "tokx-chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": opts.label || "chart" });
    svg.append(h("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "tokx-plot" }));
    (opts.yticks || []).forEach((v) => {
      svg.append(h("line", { x1: L, x2: W - R, y1: ys(v), y2: ys(v), class: "tokx-grid" }));
      svg.append(h("text", { x: L - 5, y: ys(v) + 3.5, class: "tokx-tick", "text-anchor": "end" }, opts.yfmt ? opts.yfmt(v) : String(v)));
    });
    (opts.xticks || []).forEach((v) => {
      svg.append(h("line", { x1: xs(v), x2: xs(v), y1: T, y2: H - B, class: "tokx-grid" }));
      svg.append(h("text", { x: xs(v), y: H - B + 13, class: "tokx-tick", "text-anchor": "middle" }, opts.xfmt ? opts.xfmt(v) : String(v)));
    });
    svg.append(h("text", { x: L + (W - L - R) / 2, y: H - 4, class: "tokx-axis", "text-anchor": "middle" }, opts.xlabel || ""));
    svg.append(h("text", { x: 11, y: T + (H - T - B) / 2, class: "tokx-axis", "text-anchor": "middle", transform: `rotate(-90 11 ${T + (H - T - B) / 2})` }, opts.ylabel || ""));
    opts.series.forEach((s) => {
      svg.append(h("polyline", { points: s.pts.map(([x, y]) => xs(x).toFixed(1) + "," + ys(y).toFixed(1)).join(" "), class: "tokx-line " + (s.cls || "") }));
    });
    (opts.points || []).forEach((p) => {
      svg.append(h("circle", { cx: xs(p.x), cy: ys(p.y), r: 4, class: "tokx-ref" }, h("title", {}, p.label)));
      svg.append(h("text", { x: xs(p.x) + (p.anchor === "end" ? -7 : 7), y: ys(p.y) - 6, class: "tokx-reflabel", "text-anchor": p.anchor || "start" }, p.label));
    });
    let legendY = T + 12;
    opts.series.forEach((s) => {
      if (!s.name) return;
      svg.append(h("line", { x1: W - R - 96, x2: W - R - 80, y1: legendY - 3, y2: legendY - 3, class: "tokx-line " + (s.cls || "") }));
      svg.append(h("text", { x: W - R - 76, y: legendY, class: "tokx-tick" }, s.name));
      legendY += 13;
    });
    const vline = h("line", { y1: T, y2: H - B, class: "tokx-vline" });
    svg.append(vline);
    const dots = opts.series.map((s) => { const c = h("circle", { r: 4.5, class: "tokx-dot " + (s.cls || "") }); svg.append(c); return c; });
    svg.mark = (x, ys_) => {
      vline.setAttribute("x1", xs(x)); vline.setAttribute("x2", xs(x));
      dots.forEach((c, i) => {
        if (ys_[i] === null || ys_[i] === undefined) { c.setAttribute("visibility", "hidden"); return; }
        c.setAttribute("visibility", "visible"); c.setAttribute("cx", xs(x)); c.setAttribute("cy", ys(ys_[i]));
      });
    };
    return svg;
  }
  function niceTicks(lo, hi, n) {
    const span = hi - lo, step0 = span / Math.max(1, n);
    const mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(+v.toFixed(10));
    return out;
  }
  function logTicks(lo, hi) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of [1, 2, 5]) { const v = m * Math.pow(10, e); if (v >= lo && v <= hi) out.push(v); }
    }
    return out.length > 6 ? out.filter((v) => String(v)[0] === "1") : out;
  }

  Object.assign(tokx, { chart, niceTicks, logTicks });
})();
