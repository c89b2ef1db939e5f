// tokref.bpe.BPETokenizer's twin: whitespace-separated words, characters + </w>,
// merges applied in rank order (tokref.bpe.apply_merges).
import { tokx, pieceIndex } from "../core.js";
(function () {
  const { compileRegex, findall } = tokx;
  function ranks(spec) {
    if (!spec._ranks) {
      spec._ranks = new Map();
      const m = spec.merges;
      for (let r = 0; r < m.length; r += 3) {
        const key = m[r] * 1048576 + m[r + 1];
        if (!spec._ranks.has(key)) spec._ranks.set(key, [r / 3, m[r + 2]]);
      }
      spec._cache = new Map();
    }
    return spec._ranks;
  }
  // The ids of one word: its characters (-1: not in the alphabet) and </w>, merged.
  function encodeWord(spec, idx, word) {
    let syms = [];
    for (const ch of word) syms.push(idx.has(ch) ? idx.get(ch) : -1);
    syms.push(spec.eow);
    while (syms.length > 1) {
      let best = Infinity, bestI = -1, bestNew = -1;
      for (let i = 0; i < syms.length - 1; i++) {
        if (syms[i] < 0 || syms[i + 1] < 0) continue;
        const r = spec._ranks.get(syms[i] * 1048576 + syms[i + 1]);
        if (r !== undefined && r[0] < best) { best = r[0]; bestI = i; bestNew = r[1]; }
      }
      if (bestI < 0) break;
      const a = syms[bestI], b = syms[bestI + 1], out = [];
      for (let i = 0; i < syms.length; i++) {
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) { out.push(bestNew); i++; }
        else out.push(syms[i]);
      }
      syms = out;
    }
    return syms;
  }
  tokx.ENCODERS.bpe = function (spec, text, classes) {
    const idx = pieceIndex(spec);
    ranks(spec);
    const eow = spec.pieces[spec.eow];
    const toks = [];
    for (const [start, end, word] of findall(compileRegex(spec.ws, classes), text)) {
      let syms = spec._cache.get(word);
      if (!syms) {
        syms = encodeWord(spec, idx, word);
        spec._cache.set(word, syms);
      }
      let off = start;
      for (const s of syms) {
        const unk = s < 0 || s === spec.unk;
        const id = s < 0 ? spec.unk : s;
        const p = spec.pieces[id];
        const n = unk ? 1 : Array.from(p.endsWith(eow) ? p.slice(0, -eow.length) : p).length;
        toks.push([id, off, Math.min(off + n, end), unk ? 2 : 0]);
        off += n;
      }
    }
    return { mode: "chars", toks };
  };
})();
