// The merge explorer (tokref.explorer.merge): a slider over the merges of a run.
import { tokx, h, headBar, announcer, fmt, fmtd, pyFixed, esc, visibleText } from "./core.js";
(function () {
  const { chart, logTicks, niceTicks, viewHTML, pillHTML } = tokx;

  // The markup of one step, as tokref.explorer.merge's merge_info, merge_stats, pair_rows.
  function mergeInfo(k, m, countLabel, made, label) {
    if (k > 0) {
      return '<span class="tokx-k">Merge ' + fmt(k) + ": </span>" + pillHTML(m[0], label(m[0])) + " + " + pillHTML(m[1], label(m[1])) +
        " → " + pillHTML(m[3], label(m[3]), " tokx-new") + '<span class="tokx-muted">  id ' + m[3] + " · count " + fmt(m[2]) + " " +
        esc(countLabel) + '</span><span class="tokx-muted">' + (made ? " · " + made + " in the sample" : " · not in the sample") + "</span>";
    }
    return '<span class="tokx-k">No merge yet: </span>the sample in base symbols. First merge: ' +
      pillHTML(m[0], label(m[0])) + " + " + pillHTML(m[1], label(m[1]));
  }
  // corpus: [characters, tokens] or null.
  function mergeStats(n, nChars, corpus) {
    return fmt(n) + " tokens for " + fmt(nChars) + " characters · " + pyFixed(nChars / n, 2) + " characters per token" +
      (corpus ? " · corpus: " + pyFixed(corpus[0] / corpus[1], 2) + " characters per token" : "");
  }
  // top: [a, b, count, ...]; chosen: the merge taken ([a, b, ...]).
  function pairRows(top, chosen, label) {
    let out = '<tr><th>#</th><th>pair</th><th class="tokx-num">count</th><th></th></tr>';
    const maxc = top.length ? top[2] : 1;
    for (let j = 0; j < top.length; j += 3) {
      const isChosen = chosen && top[j] === chosen[0] && top[j + 1] === chosen[1];
      out += "<tr" + (isChosen ? ' class="tokx-chosen"' : "") + '><td class="tokx-muted">' + (j / 3 + 1) + "</td><td>" +
        pillHTML(top[j], label(top[j])) + " " + pillHTML(top[j + 1], label(top[j + 1])) + '</td><td class="tokx-num">' +
        fmt(top[j + 2]) + '</td><td class="tokx-barcell"><span class="tokx-bar" style="width:' + pyFixed(100 * top[j + 2] / maxc, 1) +
        '%"></span></td></tr>';
    }
    return out;
  }
  // Points of a step series to draw: every step early on, log-spaced later.
  function sampleSteps(K, n) {
    const ks = new Set();
    for (let k = 0; k <= Math.min(K, 60); k++) ks.add(k);
    for (let i = 0; i <= n; i++) ks.add(Math.min(K, Math.round(Math.pow(K + 1, i / n) - 1)));
    ks.add(K);
    return Array.from(ks).sort((a, b) => a - b);
  }
  function mergeChart(d) {
    const K = d.K, sampleSeries = [], corpusSeries = [];
    sampleSteps(K, 260).forEach((k) => {
      sampleSeries.push([k + 1, d.sample_tokens[k] / d.n_chars]);
      if (d.corpus_tokens) corpusSeries.push([k + 1, d.corpus_tokens[k] / d.corpus_chars]);
    });
    const ymax = Math.max(1, ...sampleSeries.map((p) => p[1]), ...corpusSeries.map((p) => p[1]));
    const series = [{ pts: sampleSeries, cls: "tokx-s1", name: "sample" }];
    if (d.corpus_tokens) series.push({ pts: corpusSeries, cls: "tokx-s2", name: "corpus" });
    return chart({
      series, xlog: true, x0: 1, x1: K + 1, y0: 0, y1: Math.ceil(ymax * 10) / 10,
      xticks: logTicks(1, K + 1), yticks: niceTicks(0, ymax, 4), yfmt: (v) => fmtd(v, 1),
      xfmt: (v) => (v >= 1000 ? v / 1000 + "k" : String(v)),
      xlabel: "merges + 1 (log scale)", ylabel: "tokens per character", label: "tokens per character against merges",
    });
  }
  // The sample after k merges: the nodes alive at step k.
  function tokensAt(d, k) {
    const nodes = d.nodes, toks = [];
    for (let i = 0; i < nodes.length; i += 5) {
      if (nodes[i + 3] <= k && k < nodes[i + 4]) {
        const isNew = k > 0 && nodes[i + 3] === k;
        toks.push([nodes[i], nodes[i + 1], nodes[i + 2], (isNew ? 1 : 0) | (nodes[i] === d.unk ? 2 : 0)]);
      }
    }
    return toks;
  }

  function mountMerge(root, d) {
    const K = d.K, names = d.names;
    const label = (id) => (names[id] !== undefined ? names[id] : "#" + id);
    const api = { k: -1, lastUpdateMs: 0, kind: "merge" };
    const slider = h("input", { type: "range", min: 0, max: K, step: 1, value: d.start || 0, "aria-label": "number of merges" });
    const live = announcer(root);
    const readout = h("span", { class: "tokx-readout" });
    // Named for screen readers (the glyphs are not names); play is a toggle button.
    const playBtn = h("button", { type: "button", class: "tokx-btn", title: "play / pause", "aria-label": "play the merges", "aria-pressed": "false" }, "▶");
    const prev = h("button", { type: "button", class: "tokx-btn", title: "one merge back", "aria-label": "−1: one merge back" }, "−1");
    const next = h("button", { type: "button", class: "tokx-btn", title: "one merge on", "aria-label": "+1: one merge on" }, "+1");
    const info = h("div", { class: "tokx-info" });
    const stats = h("div", { class: "tokx-stats" });
    const seg = h("div", { class: "tokx-seg" });
    const table = h("table", { class: "tokx-table" });
    const caption = h("div", { class: "tokx-caption" });
    const svg = mergeChart(d);
    root.replaceChildren(
      headBar(d.title),
      h("div", { class: "tokx-controls" }, playBtn, prev, slider, next, readout),
      info, seg, stats, live,
      h("div", { class: "tokx-cols" }, h("div", { class: "tokx-col" }, caption, table), h("div", { class: "tokx-col tokx-chartbox" }, svg)),
    );

    function update(k) {
      const t0 = performance.now();
      k = Math.max(0, Math.min(K, k | 0));
      api.k = k;
      slider.value = k;
      readout.textContent = "merge " + fmt(k) + " / " + fmt(K);
      slider.setAttribute("aria-valuetext", "merge " + fmt(k) + " of " + fmt(K));
      const toks = tokensAt(d, k);
      const made = toks.filter((t) => t[3] & 1).length;
      // The merge just taken, or the next one.
      info.innerHTML = d.merges.length ? mergeInfo(k, d.merges[Math.max(0, k - 1)], d.count_label, made, label) : "";
      seg.innerHTML = viewHTML({ mode: d.mode, toks }, d.text, label, false);
      stats.textContent = mergeStats(d.sample_tokens[k], d.n_chars, d.corpus_tokens ? [d.corpus_chars, d.corpus_tokens[k]] : null);
      // Pair counts when merge k was chosen.
      const ti = Math.max(0, k - 1);
      caption.textContent = (k > 0 ? "Pair counts when merge " + fmt(k) + " was chosen" : "Pair counts now") + " (" + d.tops_label + ")";
      table.innerHTML = pairRows(d.tops[ti] || [], d.merges[ti], label);
      svg.mark(k + 1, [d.sample_tokens[k] / d.n_chars, d.corpus_tokens ? d.corpus_tokens[k] / d.corpus_chars : null]);
      // The figures that changed, as the screen shows them (the merge taken, the counts).
      const m = k > 0 ? d.merges[k - 1] : null;
      live.say("Merge " + fmt(k) + " of " + fmt(K) + (m ? ": " + visibleText(label(m[0])) + " + " + visibleText(label(m[1])) + " → " +
        visibleText(label(m[3])) : "") + ". " + stats.textContent.split(" · ").slice(0, 2).join(", ") + ".");
      api.lastUpdateMs = performance.now() - t0;
    }
    let timer = null;
    function stop() {
      if (timer) { clearInterval(timer); timer = null; playBtn.textContent = "▶"; playBtn.setAttribute("aria-pressed", "false"); }
    }
    playBtn.addEventListener("click", () => {
      if (timer) { stop(); return; }
      if (api.k >= K) update(0);
      playBtn.textContent = "❚❚";
      playBtn.setAttribute("aria-pressed", "true");
      timer = setInterval(() => { if (api.k >= K) { stop(); return; } update(api.k + Math.max(1, Math.floor(api.k / 25))); }, 90);
    });
    prev.addEventListener("click", () => { stop(); update(api.k - 1); });
    next.addEventListener("click", () => { stop(); update(api.k + 1); });
    slider.addEventListener("input", () => { stop(); update(+slider.value); });
    api.set = update;
    update(d.start || 0);
    return api;
  }

  Object.assign(tokx, { mountMerge, mergeInfo, mergeStats, pairRows });
})();
