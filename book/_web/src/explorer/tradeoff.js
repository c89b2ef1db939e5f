// The trade-off explorer (tokref.explorer.tradeoff): a slider over vocabulary sizes.
import { tokx, h, headBar, announcer, fmt, fmtd, fmtBig, fmtRel } from "./core.js";
(function () {
  const { chart, logTicks, niceTicks, viewHTML } = tokx;

  function meter(name, value, frac, note) {
    return h("div", { class: "tokx-meter" },
      h("div", { class: "tokx-meterhead" }, h("span", {}, name), h("span", { class: "tokx-meterval" }, value)),
      h("div", { class: "tokx-meterbar" }, h("span", { style: "width:" + Math.max(0.5, Math.min(100, 100 * frac)).toFixed(1) + "%" })),
      h("div", { class: "tokx-muted tokx-meternote" }, note));
  }
  // The sample's tokens at slider position i (k merges, for a traced tokenizer).
  function sampleTokens(s, i, k) {
    if (!s.nodes) return s.views[i].toks;
    const nd = s.nodes, toks = [];
    for (let j = 0; j < nd.length; j += 5) if (nd[j + 3] <= k && k < nd[j + 4]) toks.push([nd[j], nd[j + 1], nd[j + 2], nd[j] === s.unk ? 2 : 0]);
    return toks;
  }

  function mountTradeoff(root, d) {
    const api = { kind: "tradeoff", lastUpdateMs: 0 };
    const P = d.points;
    const slider = h("input", { type: "range", min: 0, max: P.length - 1, step: 1, value: d.start, "aria-label": "vocabulary size" });
    const readout = h("span", { class: "tokx-readout" });
    const live = announcer(root);
    const width = h("select", { class: "tokx-select", "aria-label": "model width" },
      d.widths.map((w) => h("option", { value: w, selected: w === d.width }, "d_model = " + fmt(w))));
    const out = h("div", { class: "tokx-meters" });
    const seg = h("div", { class: "tokx-seg tokx-seg-small" });
    const segCap = h("div", { class: "tokx-caption" });
    const refs = d.refs || [];
    const charRef = refs.find((r) => r.name === "character") || null;
    const curve = d.curve.map(([V, n]) => [V, 1000 * n / d.n_chars]);
    const allY = curve.map((p) => p[1]).concat(refs.map((r) => 1000 * r.n / d.n_chars));
    const allX = curve.map((p) => p[0]).concat(refs.map((r) => r.V));
    const x0 = Math.min(...allX) / 1.4, x1 = Math.max(...allX) * 1.4, ymax = Math.max(...allY) * 1.08;
    const svg = chart({
      width: 360, height: 210, series: [{ pts: curve, cls: "tokx-s1" }], xlog: true, x0, x1, y0: 0, y1: ymax,
      xticks: logTicks(x0, x1), yticks: niceTicks(0, ymax, 4), xfmt: (v) => (v >= 1000 ? v / 1000 + "k" : String(v)),
      points: refs.map((r) => ({ x: r.V, y: 1000 * r.n / d.n_chars, label: r.name, anchor: r.V > Math.sqrt(x0 * x1) ? "end" : "start" })),
      xlabel: "vocabulary size (ids, log scale)", ylabel: "tokens per 1,000 chars", label: "sequence length against vocabulary size",
    });
    root.replaceChildren(
      headBar(d.title),
      h("div", { class: "tokx-controls" }, h("span", { class: "tokx-muted" }, "vocabulary"), slider, readout, width),
      h("div", { class: "tokx-cols" }, h("div", { class: "tokx-col" }, out), h("div", { class: "tokx-col tokx-chartbox" }, svg)),
      segCap, seg, live,
    );
    const maxV = Math.max(...allX);
    const sampleLabel = (id) => {
      const names = d.sample.views ? d.sample.views[api.i].labels : d.sample.names;
      return names[id] !== undefined ? names[id] : "#" + id;
    };
    function update(i) {
      const t0 = performance.now();
      i = Math.max(0, Math.min(P.length - 1, i | 0));
      api.i = i;
      slider.value = i;
      const [V, n, k] = P[i], dm = +width.value;
      readout.textContent = fmt(V) + " ids";
      slider.setAttribute("aria-valuetext", fmt(V) + " ids");
      const emb = V * dm;
      const rel = charRef ? n / charRef.n : null;
      out.replaceChildren(
        meter("Sequence length", fmt(n) + " tokens", rel === null ? n / P[0][1] : rel,
          "the held-out text: " + fmtd(1000 * n / d.n_chars, 0) + " per 1,000 characters, " + fmtd(d.n_chars / n, 2) + " characters per token; a " + fmt(d.window) + "-token window holds " + fmt(d.window * d.n_chars / n) + " characters"),
        meter("Embedding table", fmtBig(emb) + " parameters", V / maxV,
          fmt(V) + " ids × " + fmt(dm) + " = " + fmt(emb) + "; an untied output layer doubles it"),
        meter("Attention cost", rel === null ? "–" : fmtRel(rel * rel), rel === null ? 0 : rel * rel,
          (rel === null ? "" : "(" + fmtd(rel, 3) + ")² of the character tokenizer's: ") + "attention grows with the square of the sequence length, in every layer"),
      );
      svg.mark(V, [1000 * n / d.n_chars]);
      out.dataset.tokens = n;
      out.dataset.vocab = V;
      // The sample passage with this vocabulary.
      const toks = sampleTokens(d.sample, i, k);
      segCap.textContent = "The sample with " + fmt(V) + " ids: " + fmt(toks.length) + " tokens for " + fmt(Array.from(d.sample.text).length) + " characters";
      seg.innerHTML = viewHTML({ mode: d.sample.mode, toks }, d.sample.text, sampleLabel, false);
      live.say(fmt(V) + " ids: " + fmt(n) + " tokens, " + fmtBig(emb) + " embedding parameters" +
        (rel === null ? "" : ", attention " + fmtRel(rel * rel)) + ".");
      api.lastUpdateMs = performance.now() - t0;
    }
    slider.addEventListener("input", () => update(+slider.value));
    width.addEventListener("change", () => update(api.i));
    api.set = update;
    update(d.start);
    return api;
  }

  Object.assign(tokx, { mountTradeoff });
})();
