// tokref.unigram.UnigramTokenizer's twin: normalization, dummy prefix, units cut
// before each space, Viterbi with tokref's tie rule (float64 sums in the same order),
// byte fallback or a fused <unk>. Spans as tokref.explorer.twins.unigram_view.
import { tokx } from "../core.js";
(function () {
  const { inRanges, utf8 } = tokx;

  // The normalized text as an array of code points, and the span of the text behind
  // each (tokref.explorer.twins.unigram_aligned).
  function unigramAligned(spec, text) {
    const T = spec.tables, cps = Array.from(text);
    if (spec.normalization === "identity") return [cps, cps.map((_, i) => i), cps.map((_, i) => i + 1)];
    const nf = [], st = [], en = [];
    const flush = (a, b) => {
      if (b <= a) return;
      const seg = cps.slice(a, b).join("");
      const piece = b - a === 1 && inRanges(T.unassigned, seg.codePointAt(0)) ? [seg] : Array.from(seg.normalize("NFKC"));
      for (const c of piece) { nf.push(c); st.push(a); en.push(b); }
    };
    let start = 0, prevNew = false;
    for (let i = 0; i < cps.length; i++) {
      const cp = cps[i].codePointAt(0), isNew = inRanges(T.unassigned, cp);
      if (i && (isNew || prevNew || !inRanges(T.joins, cp))) { flush(start, i); start = i; }
      prevNew = isNew;
    }
    flush(start, cps.length);
    // Runs of whitespace (str.isspace) become one space; the ends are stripped.
    const out = [], s2 = [], e2 = [];
    let prevEnd = -1;
    for (let i = 0; i < nf.length;) {
      if (inRanges(T.space, nf[i].codePointAt(0))) { i++; continue; }
      let j = i;
      while (j < nf.length && !inRanges(T.space, nf[j].codePointAt(0))) j++;
      if (prevEnd >= 0) { out.push(" "); s2.push(st[prevEnd]); e2.push(en[i - 1]); }
      for (let k = i; k < j; k++) { out.push(nf[k]); s2.push(st[k]); e2.push(en[k]); }
      prevEnd = j;
      i = j;
    }
    return [out, s2, e2];
  }
  // One unit (array of code points, spaces as " "): [[id, start, end], ...] in the unit.
  function unigramUnit(spec, unit) {
    // A literal ▁ matches no piece (tokref's sentinel); spaces become ▁.
    const s = unit.map((c) => (c === "\u2581" ? null : c === " " ? "\u2581" : c));
    const n = s.length, scores = spec.scores, first = spec.first, unkScore = spec.unk_score;
    const best = new Float64Array(n + 1).fill(-Infinity), back = new Int32Array(n + 1).fill(-1), what = new Array(n + 1).fill(null);
    best[0] = 0;
    for (let i = 0; i < n; i++) {
      const base = best[i];
      let single = false, node = spec._trie;
      for (let j = i; j < n; j++) {
        const e = s[j] === null ? undefined : node.get(s[j]);
        if (!e) break;
        node = e[1];
        if (e[0] !== null) {
          if (j === i) single = true;
          const c = base + scores[e[0] - first];
          if (back[j + 1] < 0 || c > best[j + 1]) { best[j + 1] = c; back[j + 1] = i; what[j + 1] = e[0]; }
        }
      }
      if (!single) {
        const c = base + unkScore;
        if (back[i + 1] < 0 || c > best[i + 1]) { best[i + 1] = c; back[i + 1] = i; what[i + 1] = null; }
      }
    }
    const path = [];
    for (let j = n; j > 0; j = back[j]) path.push([what[j], back[j], j]);
    path.reverse();
    const out = [];
    for (const [key, i, j] of path) {
      if (key !== null) out.push([key, i, j]);
      else if (spec.byte_fallback) for (const b of utf8(unit[i].codePointAt(0))) out.push([spec.byte_base + b, i, j]);
      else out.push([spec.unk, i, j]);
    }
    return out;
  }
  function buildTrie(spec) {
    const trie = new Map();
    for (let k = spec.first; k < spec.pieces.length; k++) {
      const p = Array.from(spec.pieces[k]);
      let node = trie;
      for (let i = 0; i < p.length - 1; i++) {
        let e = node.get(p[i]);
        if (!e) { e = [null, new Map()]; node.set(p[i], e); }
        node = e[1];
      }
      let e = node.get(p[p.length - 1]);
      if (!e) { e = [null, new Map()]; node.set(p[p.length - 1], e); }
      e[0] = k;
    }
    return trie;
  }
  // Units: the (prefixed) text cut before every space. Python: parts = s.split(" ");
  // units = [" " + p for p in parts[1:]], and parts[0] first if it is not empty.
  function units(spec, s) {
    if (!s.length) return [];
    if (!spec.split) return [s];
    const parts = [[]], out = [];
    for (const ch of s) { if (ch === " ") parts.push([]); else parts[parts.length - 1].push(ch); }
    if (parts[0].length) out.push(parts[0]);
    for (let k = 1; k < parts.length; k++) out.push([" "].concat(parts[k]));
    return out;
  }
  tokx.ENCODERS.unigram = function (spec, text) {
    const T = spec.tables;
    if (!spec._trie) {
      if (T.probe && T.probe[0].normalize("NFKC") !== T.probe[1]) {
        throw new Error("tokx: this browser's Unicode is older than " + T.unicode + " (Python's): its NFKC would differ");
      }
      spec._trie = buildTrie(spec);
      spec._cache = new Map();
    }
    const [norm, st, en] = unigramAligned(spec, text);
    if (spec.dummy_prefix && norm.length) { st.unshift(st[0]); en.unshift(st[0]); }
    const s = spec.dummy_prefix && norm.length ? [" "].concat(norm) : norm;
    const fuse = spec.byte_fallback ? null : spec.unk, toks = [];
    let o = 0;
    for (const unit of units(spec, s)) {
      const key = unit.join("");
      let hit = spec.split ? spec._cache.get(key) : undefined;
      if (!hit) { hit = unigramUnit(spec, unit); if (spec.split) spec._cache.set(key, hit); }
      for (const [id, a, b] of hit) {
        if (id === fuse && toks.length && toks[toks.length - 1][0] === fuse) toks[toks.length - 1][2] = en[o + b - 1];
        else toks.push([id, st[o + a], en[o + b - 1], id === spec.unk ? 2 : 0]);
      }
      o += unit.length;
    }
    return { mode: "chars", toks };
  };
})();
