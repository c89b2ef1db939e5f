// tokref.wordpiece.WordPieceTokenizer's twin (without [CLS]/[SEP], as
// encode_with_offsets): special tokens written in the text, BertNormalizer,
// BertPreTokenizer, greedy longest match. Every Unicode table comes from Python
// (spec.tables), none from the browser. Offsets and their quirks follow tokref line by line.
import { tokx, pieceIndex } from "../core.js";
(function () {
  const { findall, inRanges, mapTable, cccTable } = tokx;

  // tokref.wordpiece's words of one chunk (an array of code points):
  // [[word (array of code points), index in the chunk of each of its characters], ...].
  function wpWords(spec, chunk) {
    const T = spec.tables, cp = (c) => c.codePointAt(0);
    // Cleaning: drop control, format, private-use characters.
    const s = [], idx = [];
    chunk.forEach((c, i) => { if (!inRanges(T.removed, cp(c))) { s.push(c); idx.push(i); } });
    // CJK ideographs are segments of their own.
    const segs = [];
    let a = 0;
    for (let k = 0; k < s.length; k++) {
      if (!inRanges(T.cjk, cp(s[k]))) continue;
      if (k > a) segs.push([s.slice(a, k), idx.slice(a, k)]);
      segs.push([[s[k]], [idx[k]]]);
      a = k + 1;
    }
    if (a < s.length || !segs.length) segs.push([s.slice(a), idx.slice(a)]);
    const words = [];
    for (let [w, ix] of segs) {
      if (spec.strip_accents) [w, ix] = wpStripAccents(spec, w, ix);
      if (spec.lowercase) {
        const w2 = [], ix2 = [];
        w.forEach((c, k) => { const lo = spec._lower.get(cp(c)); for (const x of lo === undefined ? [c] : Array.from(lo)) { w2.push(x); ix2.push(ix[k]); } });
        w = w2; ix = ix2;
      }
      // Pre-tokenization: each punctuation character alone, the rest in runs.
      let r = -1;
      for (let k = 0; k <= w.length; k++) {
        const p = k < w.length && inRanges(T.punct, cp(w[k]));
        if ((k === w.length || p) && r >= 0) { words.push([w.slice(r, k), ix.slice(r, k)]); r = -1; }
        if (p) words.push([[w[k]], [ix[k]]]);
        else if (k < w.length && r < 0) r = k;
      }
    }
    return words;
  }
  // tokref.wordpiece's accent stripping: NFD (Python's, with tokref's exceptions),
  // canonical ordering by its combining classes, tokenizers' alignment, then no
  // non-spacing marks.
  function wpStripAccents(spec, s, idx) {
    const T = spec.tables, out = [];
    for (const c of s) {
      const cp = c.codePointAt(0);
      let d;
      if (cp >= 0xac00 && cp <= 0xd7a3) {
        const k = cp - 0xac00, t = k % 28;
        d = [String.fromCodePoint(0x1100 + Math.floor(k / 588)), String.fromCodePoint(0x1161 + Math.floor((k % 588) / 28))];
        if (t) d.push(String.fromCodePoint(0x11a7 + t));
      } else {
        const m = spec._nfd.get(cp);
        d = m === undefined ? [c] : Array.from(m);
      }
      out.push([d[0], 0]);
      for (let k = 1; k < d.length; k++) out.push([d[k], 1]);
    }
    const ccc = (c) => spec._ccc.get(c.codePointAt(0)) || 0;
    for (let k = 0; k < out.length;) {
      if (ccc(out[k][0]) === 0) { k++; continue; }
      let j = k;
      while (j < out.length && ccc(out[j][0]) !== 0) j++;
      if (j - k > 1) {
        const run = out.slice(k, j).sort((x, y) => ccc(x[0]) - ccc(y[0]));  // stable, as Python's sorted
        out.splice(k, j - k, ...run);
      }
      k = j;
    }
    const chars = [], aligned = [];
    let pos = 0;
    for (const [c, change] of out) {
      let src;
      if (change) src = pos ? idx[pos - 1] : idx[0];
      else { src = idx[pos]; pos++; }
      if (!inRanges(T.mn, c.codePointAt(0))) { chars.push(c); aligned.push(src); }
    }
    return [chars, aligned];
  }
  // tokref.wordpiece's greedy longest-match-first split: spans, or null.
  function wpGreedy(word, idx, prefix, maxLen) {
    const out = [], n = word.length;
    let start = 0;
    while (start < n) {
      let end = Math.min(n, start + maxLen), found = false;
      while (end > start) {
        if (idx.has((start === 0 ? "" : prefix) + word.slice(start, end).join(""))) { found = true; break; }
        end--;
      }
      if (!found) return null;
      out.push([start, end]);
      start = end;
    }
    return out;
  }
  tokx.ENCODERS.wordpiece = function (spec, text) {
    const T = spec.tables, idx = pieceIndex(spec);
    if (!spec._specialRe) {
      spec._specialRe = spec.specials.length
        ? new RegExp(spec.specials.map((s) => s.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&")).join("|"), "gu") : null;
      if (T.lower) spec._lower = mapTable(T.lower);
      if (T.nfd) { spec._nfd = mapTable(T.nfd); spec._ccc = cccTable(T.ccc); }
    }
    const cps = Array.from(text), toks = [];
    const unk = spec.unk;
    const encodeChunk = (a, b) => {
      for (const [w, ix] of wpWords(spec, cps.slice(a, b))) {
        const spans = w.length <= spec.max_chars ? wpGreedy(w, idx, spec.prefix, spec.max_piece) : null;
        if (spans === null) { toks.push([unk, a + ix[0], a + ix[ix.length - 1] + 1, 2]); continue; }
        for (const [s, e] of spans) {
          const id = idx.get((s === 0 ? "" : spec.prefix) + w.slice(s, e).join(""));
          toks.push([id, a + ix[s], a + ix[e - 1] + 1, id === unk ? 2 : 0]);
        }
      }
    };
    const plain = (a, b) => {  // runs of non-whitespace
      let s = -1;
      for (let i = a; i <= b; i++) {
        const ws = i === b || inRanges(T.ws, cps[i].codePointAt(0));
        if (ws && s >= 0) { encodeChunk(s, i); s = -1; } else if (!ws && s < 0) s = i;
      }
    };
    let pos = 0;  // in code points
    if (spec._specialRe) {
      for (const [s, e, m] of findall(spec._specialRe, text)) {
        plain(pos, s);
        const id = idx.get(m);
        toks.push([id, s, e, id === unk ? 2 : 0]);
        pos = e;
      }
    }
    plain(pos, cps.length);
    return { mode: "chars", toks };
  };
})();
