/* tokref explorers, the static face: vanilla JavaScript, no library, no network.
 * Each explorer is a <div class="tokx"> followed by its data (a JSON <script>);
 * TokX.mount(id) builds the view. The tokenizers' JavaScript twins (char, word, BPE,
 * byte-level BPE, WordPiece, Unigram) follow tokref's Python code line by line; tests/test_browser.py
 * checks them against it. */
(function () {
  "use strict";
  if (window.TokX) return;

  // ---------------------------------------------------------------- DOM helpers
  function h(tag, attrs) {
    const e = tag === "svg" || SVG_TAGS.has(tag)
      ? document.createElementNS("http://www.w3.org/2000/svg", tag)
      : document.createElement(tag);
    if (attrs) {
      for (const k in attrs) {
        const v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === "text") e.textContent = v;
        else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : String(v));
      }
    }
    for (let i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function add(parent, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) { kid.forEach((k) => add(parent, k)); return; }
    parent.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  const SVG_TAGS = new Set(["svg", "g", "line", "polyline", "circle", "text", "rect", "path", "title"]);
  const fmt = (x) => Math.round(x).toLocaleString("en-US");
  const fmtd = (x, d) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
  function fmtBig(x) {
    if (x >= 1e9) return fmtd(x / 1e9, 2) + " B";
    if (x >= 1e6) return fmtd(x / 1e6, 2) + " M";
    if (x >= 1e4) return fmtd(x / 1e3, 1) + " k";
    return fmt(x);
  }
  function fmtRel(x) {
    if (x >= 100) return fmt(x) + "×";
    if (x >= 10) return fmtd(x, 1) + "×";
    if (x >= 0.1) return fmtd(x, 2) + "×";
    return x.toPrecision(2) + "×";
  }
  const hue = (id) => ((((id * 137.508) % 360) + 360) % 360).toFixed(1);
  const hex2 = (b) => (b < 16 ? "0" : "") + b.toString(16).toUpperCase();

  // ------------------------------------------------------- visible whitespace
  const WS = { " ": "␣", "\t": "⇥", "\n": "⏎", "\r": "␍" };
  const OTHER_WS = /[\u000b\u000c\u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
  function appendVisible(parent, s) {
    let buf = "";
    for (const ch of s) {
      const g = WS[ch] || (OTHER_WS.test(ch) ? "·" : null);
      if (g === null) { buf += ch; continue; }
      if (buf) { parent.append(document.createTextNode(buf)); buf = ""; }
      parent.append(h("span", { class: "tokx-ws" }, g));
      if (ch === "\n") parent.append(h("br"));
    }
    if (buf) parent.append(document.createTextNode(buf));
  }
  function visibleText(s) {
    let out = "";
    for (const ch of s) out += WS[ch] || (OTHER_WS.test(ch) ? "·" : ch);
    return out;
  }

  // ----------------------------------------------------------- token views
  // view = {mode: "chars" | "bytes" | "pieces", toks: [[id, start, end, flags], ...]}
  // flags: 1 = made by the merge just taken, 2 = the unknown token.
  function tokSpan(t, idx, label) {
    const cls = "tokx-t" + (t[3] & 1 ? " tokx-new" : "") + (t[3] & 2 ? " tokx-unk" : "");
    return h("span", { class: cls, style: "--h:" + hue(t[0]), "data-t": idx, "data-id": t[0],
      title: "id " + t[0] + " · " + JSON.stringify(label) });
  }
  function renderView(view, text, label, showIds) {
    const frag = document.createDocumentFragment();
    const toks = view.toks;
    const last = new Array(toks.length);
    if (view.mode === "chars") {
      const cps = Array.from(text);
      let pos = 0;
      for (let i = 0; i < toks.length; i++) {
        const t = toks[i];
        if (t[1] > pos) {
          const g = h("span", { class: "tokx-gap" });
          appendVisible(g, cps.slice(pos, t[1]).join(""));
          frag.append(g, h("wbr"));
        }
        // Several tokens with one and the same span (byte fallback: <0xC3> <0xA9>):
        // the characters once, the tokens as boxes underneath.
        let j = i + 1;
        while (j < toks.length && t[2] > t[1] && toks[j][1] === t[1] && toks[j][2] === t[2]) j++;
        if (j - i > 1) {
          const row = h("span", { class: "tokx-split-bytes" });
          for (let m = i; m < j; m++) {
            const u = toks[m], lab = label(u[0]), hx = /^<0x([0-9A-Fa-f]{2})>$/.exec(lab);
            const box = h("span", { class: "tokx-b" + (u[3] & 1 ? " tokx-new" : ""), style: "--h:" + hue(u[0]), "data-t": m, "data-id": u[0],
              title: "id " + u[0] + " · " + JSON.stringify(lab) }, hx ? hx[1].toUpperCase() : visibleText(lab));
            row.append(box);
            last[m] = box;
          }
          const chars = cps.slice(t[1], t[2]).join("");
          frag.append(h("span", { class: "tokx-split", title: JSON.stringify(chars) + " is " + (j - i) + " tokens" },
            h("span", { class: "tokx-split-ch" }, chars), row), h("wbr"));
          pos = Math.max(pos, t[2]);
          i = j - 1;
          continue;
        }
        const piece = label(t[0]);
        const span = tokSpan(t, i, piece);
        const txt = cps.slice(t[1], t[2]).join("");
        appendVisible(span, txt);
        if (piece !== txt && !(t[3] & 2) && piece.startsWith(txt)) {
          span.append(h("span", { class: "tokx-sfx" }, piece.slice(txt.length)));
        }
        frag.append(span, h("wbr"));
        last[i] = span;
        pos = Math.max(pos, t[2]);
      }
      if (pos < cps.length) {
        const g = h("span", { class: "tokx-gap" });
        appendVisible(g, cps.slice(pos).join(""));
        frag.append(g);
      }
    } else if (view.mode === "bytes") {
      const enc = new TextEncoder();
      const cps = Array.from(text);
      const cpBytes = cps.map((c) => enc.encode(c));
      const starts = [];
      let nb = 0;
      cpBytes.forEach((b) => { starts.push(nb); nb += b.length; });
      const owner = new Int32Array(nb).fill(-1);
      toks.forEach((t, i) => { for (let b = t[1]; b < t[2] && b < nb; b++) owner[b] = i; });
      let run = null, runIdx = -2, runText = "";
      const close = () => {
        if (run) { appendVisible(run, runText); frag.append(run, h("wbr")); if (runIdx >= 0) last[runIdx] = run; }
        run = null; runIdx = -2; runText = "";
      };
      for (let ci = 0; ci < cps.length; ci++) {
        const b0 = starts[ci], n = cpBytes[ci].length, o = owner[b0];
        let same = true;
        for (let b = b0 + 1; b < b0 + n; b++) if (owner[b] !== o) { same = false; break; }
        if (same) {
          if (o !== runIdx) {
            close();
            run = o < 0 ? h("span", { class: "tokx-gap" }) : tokSpan(toks[o], o, label(toks[o][0]));
            runIdx = o;
          }
          runText += cps[ci];
          continue;
        }
        close();
        const ids = [];
        const row = h("span", { class: "tokx-split-bytes" });
        for (let b = b0; b < b0 + n; b++) {
          const oi = owner[b], t = oi >= 0 ? toks[oi] : null;
          if (t && ids.indexOf(t[0]) < 0) ids.push(t[0]);
          const box = h("span", {
            class: "tokx-b" + (t && t[3] & 1 ? " tokx-new" : ""),
            style: t ? "--h:" + hue(t[0]) : null, "data-t": t ? oi : null, "data-id": t ? t[0] : null,
            title: t ? "byte 0x" + hex2(cpBytes[ci][b - b0]) + " of id " + t[0] + " · " + JSON.stringify(label(t[0])) : null,
          }, hex2(cpBytes[ci][b - b0]));
          row.append(box);
          if (oi >= 0) last[oi] = box;
        }
        frag.append(h("span", { class: "tokx-split", title: JSON.stringify(cps[ci]) + " = " + n + " UTF-8 bytes, split between ids " + ids.join(", ") },
          h("span", { class: "tokx-split-ch" }, cps[ci]), row), h("wbr"));
      }
      close();
    } else {
      toks.forEach((t, i) => {
        const span = tokSpan(t, i, label(t[0]));
        appendVisible(span, label(t[0]));
        frag.append(span, h("wbr"));
        last[i] = span;
      });
    }
    if (showIds) {
      toks.forEach((t, i) => {
        if (!last[i]) return;
        last[i].append(h("span", { class: "tokx-id" }, String(t[0])));
      });
    }
    return frag;
  }
  function pill(id, label, extra) {
    const s = h("span", { class: "tokx-t tokx-pill" + (extra || ""), style: "--h:" + hue(id), title: "id " + id });
    appendVisible(s, label);
    return s;
  }

  // --------------------------------------------------------------- regexes
  const reCache = new Map();
  function compileRegex(spec, classes) {
    const key = spec.source;
    let re = reCache.get(key);
    if (!re) {
      const src = spec.source.replace(/\{\{(\w+)\}\}/g, (_, n) => {
        const c = (spec.classes && spec.classes[n]) || (classes && classes[n]);
        if (c === undefined) throw new Error("tokx: unknown character class " + n);
        return c;
      });
      re = new RegExp(src, "gu");
      reCache.set(key, re);
    }
    return re;
  }
  // All matches, as Python's finditer gives them: [start, end, text], offsets in code points.
  function findall(re, text) {
    re.lastIndex = 0;
    const out = [];
    let cu = 0, cp = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m[0].length === 0) { re.lastIndex = m.index + (text.codePointAt(m.index) > 0xffff ? 2 : 1); continue; }
      cp += cpLen(text, cu, m.index);
      const s = cp;
      cp += cpLen(text, m.index, m.index + m[0].length);
      cu = m.index + m[0].length;
      out.push([s, cp, m[0]]);
    }
    return out;
  }
  function cpLen(text, a, b) {
    let n = 0;
    for (let i = a; i < b; i++) { const c = text.charCodeAt(i); if (c < 0xdc00 || c > 0xdfff || i === a || !isHigh(text.charCodeAt(i - 1))) n++; }
    return n;
  }
  const isHigh = (c) => c >= 0xd800 && c <= 0xdbff;

  // ------------------------------------------------- the tokenizers' twins
  function pieceIndex(spec) {
    if (!spec._index) {
      spec._index = new Map();
      spec.pieces.forEach((p, i) => { if (!spec._index.has(p)) spec._index.set(p, i); });
    }
    return spec._index;
  }
  const ENCODERS = {
    // tokref.char.CharTokenizer: one token per code point.
    char(spec, text) {
      const idx = pieceIndex(spec);
      const toks = [];
      let i = 0;
      for (const ch of text) {
        const id = idx.has(ch) ? idx.get(ch) : spec.unk;
        toks.push([id, i, i + 1, id === spec.unk ? 2 : 0]);
        i++;
      }
      return { mode: "chars", toks };
    },
    // tokref.word.WordTokenizer: WORD_PATTERN matches, looked up (lowercased if asked).
    word(spec, text, classes) {
      const idx = pieceIndex(spec);
      return {
        mode: "chars",
        toks: findall(compileRegex(spec.re, classes), text).map(([s, e, w]) => {
          if (spec.lowercase) w = w.toLowerCase();
          const id = idx.has(w) ? idx.get(w) : spec.unk;
          return [id, s, e, id === spec.unk ? 2 : 0];
        }),
      };
    },
    // tokref.bpe.BPETokenizer: whitespace-separated words, characters + </w>, merges
    // applied in rank order (tokref.bpe.apply_merges).
    bpe(spec, text, classes) {
      const idx = pieceIndex(spec);
      if (!spec._ranks) {
        spec._ranks = new Map();
        const m = spec.merges;
        for (let r = 0; r < m.length; r += 3) {
          const key = m[r] * 1048576 + m[r + 1];
          if (!spec._ranks.has(key)) spec._ranks.set(key, [r / 3, m[r + 2]]);
        }
        spec._cache = new Map();
      }
      const toks = [];
      for (const [start, end, word] of findall(compileRegex(spec.ws, classes), text)) {
        let syms = spec._cache.get(word);
        if (!syms) {
          syms = [];
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
          spec._cache.set(word, syms);
        }
        let off = start;
        for (const s of syms) {
          const unk = s < 0 || s === spec.unk;
          const id = s < 0 ? spec.unk : s;
          const p = spec.pieces[id];
          const n = unk ? 1 : Array.from(p.endsWith("</w>") ? p.slice(0, -4) : p).length;
          toks.push([id, off, Math.min(off + n, end), unk ? 2 : 0]);
          off += n;
        }
      }
      return { mode: "chars", toks };
    },
    // tokref.bytelevel.ByteLevelBPETokenizer: regex pieces, then tiktoken's rule on the
    // UTF-8 bytes of each (tokref.bytelevel.bpe_encode_piece). Bytes are kept as
    // "binary strings" (one char per byte) so that they can be Map keys.
    bytelevel(spec, text, classes) {
      if (!spec._ranks) {
        const bytes = [];
        for (let i = 0; i < 256; i++) bytes.push(String.fromCharCode(i));
        if (spec.merges) {
          const m = spec.merges;
          for (let k = 0; k < m.length; k += 2) bytes.push(bytes[m[k]] + bytes[m[k + 1]]);
        } else {
          spec.ranks.forEach(([hx, r]) => {
            let s = "";
            for (let i = 0; i < hx.length; i += 2) s += String.fromCharCode(parseInt(hx.slice(i, i + 2), 16));
            bytes[r] = s;
          });
        }
        spec._bytes = bytes;
        spec._ranks = new Map();
        bytes.forEach((b, r) => { if (b !== undefined) spec._ranks.set(b, r); });
        spec._cache = new Map();
      }
      const ranks = spec._ranks, enc = new TextEncoder(), toks = [];
      let pos = 0;
      for (const [, , piece] of findall(compileRegex(spec.re, classes), text)) {
        let ids = spec._cache.get(piece);
        if (!ids) {
          const u8 = enc.encode(piece);
          let s = "";
          for (const b of u8) s += String.fromCharCode(b);
          ids = bpePiece(s, ranks);
          spec._cache.set(piece, ids);
        }
        for (const id of ids) { const n = spec._bytes[id].length; toks.push([id, pos, pos + n, 0]); pos += n; }
      }
      // Bytes that no piece covers (a pattern that skips characters) are gaps.
      return { mode: "bytes", toks };
    },
    // tokref.wordpiece.WordPieceTokenizer (without [CLS]/[SEP], as encode_with_offsets):
    // special tokens written in the text, BertNormalizer, BertPreTokenizer, greedy
    // longest match. Every Unicode table comes from Python (spec.tables), none from the
    // browser. Offsets and their quirks follow tokref line by line.
    wordpiece(spec, text) {
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
      const plain = (a, b) => {  // runs of non-whitespace (tokref's _CHUNK_RE)
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
    },
    // tokref.unigram.UnigramTokenizer: normalization, dummy prefix, units cut before
    // each space, Viterbi with tokref's tie rule (float64 sums in the same order), byte
    // fallback or a fused <unk>. Spans as tokref.explorer._unigram_view.
    unigram(spec, text) {
      const T = spec.tables;
      if (!spec._trie) {
        if (T.probe && T.probe[0].normalize("NFKC") !== T.probe[1]) {
          throw new Error("tokx: this browser's Unicode is older than " + T.unicode + " (Python's): its NFKC would differ");
        }
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
        spec._trie = trie;
        spec._cache = new Map();
      }
      const [norm, st, en] = unigramAligned(spec, text);
      if (spec.dummy_prefix && norm.length) { st.unshift(st[0]); en.unshift(st[0]); }
      // Units: the (prefixed) text cut before every space.
      const s = spec.dummy_prefix && norm.length ? [" "].concat(norm) : norm;
      let units = [];
      if (s.length && !spec.split) units = [s];
      else if (s.length) {
        // Python: parts = s.split(" "); units = [" " + p for p in parts[1:]], and
        // parts[0] first if it is not empty.
        const parts = [[]];
        for (const ch of s) { if (ch === " ") parts.push([]); else parts[parts.length - 1].push(ch); }
        if (parts[0].length) units.push(parts[0]);
        for (let k = 1; k < parts.length; k++) units.push([" "].concat(parts[k]));
      }
      const fuse = spec.byte_fallback ? null : spec.unk, toks = [];
      let o = 0;
      for (const unit of units) {
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
    },
  };
  // ------------------------------------- Unicode data inlined from Python
  // Ranges are flat lists [a0, b0, a1, b1, ...] of code points, sorted.
  function inRanges(r, cp) {
    let lo = 0, hi = (r.length >> 1) - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (cp < r[2 * m]) hi = m - 1; else if (cp > r[2 * m + 1]) lo = m + 1; else return true;
    }
    return false;
  }
  // [gap, value, ...] (tokref.explorer._map_runs) -> Map code point -> string.
  function mapTable(flat) {
    const m = new Map();
    let cp = 0;
    for (let i = 0; i < flat.length; i += 2) {
      cp += flat[i];
      const v = flat[i + 1];
      m.set(cp, typeof v === "number" ? String.fromCodePoint(cp + v) : v);
    }
    return m;
  }
  function cccTable(flat) {
    const m = new Map();
    for (let i = 0; i < flat.length; i += 3) for (let c = flat[i]; c <= flat[i + 1]; c++) m.set(c, flat[i + 2]);
    return m;
  }
  function utf8(cp) {  // as Python's "surrogatepass": lone surrogates too
    if (cp < 0x80) return [cp];
    if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
    if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  }

  // WordPiece: tokref.wordpiece._chunk_words on one chunk (an array of code points):
  // [[word (array of code points), index in the chunk of each of its characters], ...].
  function wpWords(spec, chunk) {
    const T = spec.tables, cp = (c) => c.codePointAt(0);
    // Cleaning: drop control, format, private-use characters.
    let s = [], idx = [];
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
  // tokref.wordpiece._strip_accents: NFD (Python's, with tokref's exceptions), canonical
  // ordering by its combining classes, tokenizers' alignment, then no non-spacing marks.
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
  // tokref.wordpiece._greedy: spans of the longest-match-first split, or null.
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

  // Unigram: the normalized text as an array of code points, and the span of the text
  // behind each (tokref.explorer._unigram_aligned).
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
  function bpePiece(s, ranks) {
    const whole = ranks.get(s);
    if (whole !== undefined) return [whole];
    const parts = [];
    for (let i = 0; i <= s.length; i++) parts.push(i);
    const pr = [];
    for (let i = 0; i < s.length - 1; i++) { const r = ranks.get(s.slice(i, i + 2)); pr.push(r === undefined ? Infinity : r); }
    while (parts.length > 2) {
      let best = Infinity, bi = -1;
      for (let i = 0; i < pr.length; i++) if (pr[i] < best) { best = pr[i]; bi = i; }
      if (bi < 0) break;
      parts.splice(bi + 1, 1);
      pr.splice(bi, 1);
      if (bi < pr.length) { const r = ranks.get(s.slice(parts[bi], parts[bi + 2])); pr[bi] = r === undefined ? Infinity : r; }
      if (bi > 0) { const r = ranks.get(s.slice(parts[bi - 1], parts[bi + 1])); pr[bi - 1] = r === undefined ? Infinity : r; }
    }
    const out = [];
    for (let i = 0; i + 1 < parts.length; i++) out.push(ranks.get(s.slice(parts[i], parts[i + 1])));
    return out;
  }
  function bytesLabel(spec, id) {
    const b = spec._bytes && spec._bytes[id];
    if (b === undefined) return "#" + id;
    const u8 = Uint8Array.from(b, (c) => c.charCodeAt(0));
    try { return new TextDecoder("utf-8", { fatal: true }).decode(u8); }
    catch (e) { return Array.from(u8, (x) => (x < 128 ? String.fromCharCode(x) : "\\x" + hex2(x).toLowerCase())).join(""); }
  }
  function encode(spec, text, classes) {
    const f = ENCODERS[spec.engine];
    if (!f) throw new Error("tokx: no JavaScript encoder for " + spec.engine);
    return f(spec, text, classes);
  }

  // ------------------------------------------------------------- line chart
  // A small SVG chart: series of [x, y] points, optional log x axis, a marker.
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
  // Points of a step series to draw: every step early on, log-spaced later.
  function sampleSteps(K, n) {
    const ks = new Set();
    for (let k = 0; k <= Math.min(K, 60); k++) ks.add(k);
    for (let i = 0; i <= n; i++) ks.add(Math.min(K, Math.round(Math.pow(K + 1, i / n) - 1)));
    ks.add(K);
    return Array.from(ks).sort((a, b) => a - b);
  }

  // --------------------------------------------------------- merge explorer
  function mountMerge(root, d) {
    const K = d.K, names = d.names, nodes = d.nodes;
    const label = (id) => (names[id] !== undefined ? names[id] : "#" + id);
    const api = { k: -1, lastUpdateMs: 0, kind: "merge" };
    const slider = h("input", { type: "range", min: 0, max: K, step: 1, value: d.start || 0, "aria-label": "number of merges" });
    const readout = h("span", { class: "tokx-readout" });
    const playBtn = h("button", { type: "button", class: "tokx-btn", title: "play / pause" }, "▶");
    const prev = h("button", { type: "button", class: "tokx-btn", title: "one merge back" }, "−1");
    const next = h("button", { type: "button", class: "tokx-btn", title: "one merge on" }, "+1");
    const info = h("div", { class: "tokx-info" });
    const stats = h("div", { class: "tokx-stats" });
    const seg = h("div", { class: "tokx-seg", "aria-live": "polite" });
    const table = h("table", { class: "tokx-table" });
    const caption = h("div", { class: "tokx-caption" });
    const sampleSeries = [], corpusSeries = [];
    sampleSteps(K, 260).forEach((k) => {
      sampleSeries.push([k + 1, d.sample_tokens[k] / d.n_chars]);
      if (d.corpus_tokens) corpusSeries.push([k + 1, d.corpus_tokens[k] / d.corpus_chars]);
    });
    const ymax = Math.max(1, ...sampleSeries.map((p) => p[1]), ...corpusSeries.map((p) => p[1]));
    const series = [{ pts: sampleSeries, cls: "tokx-s1", name: "sample" }];
    if (d.corpus_tokens) series.push({ pts: corpusSeries, cls: "tokx-s2", name: "corpus" });
    const svg = chart({
      series, xlog: true, x0: 1, x1: K + 1, y0: 0, y1: Math.ceil(ymax * 10) / 10,
      xticks: logTicks(1, K + 1), yticks: niceTicks(0, ymax, 4), yfmt: (v) => fmtd(v, 1),
      xfmt: (v) => (v >= 1000 ? v / 1000 + "k" : String(v)),
      xlabel: "merges + 1 (log scale)", ylabel: "tokens per character", label: "tokens per character against merges",
    });
    root.replaceChildren(
      h("div", { class: "tokx-head" }, h("span", { class: "tokx-title" }, d.title), h("span", { class: "tokx-badge", title: "runs in your browser: no kernel, no network" }, "static · interactive")),
      h("div", { class: "tokx-controls" }, playBtn, prev, slider, next, readout),
      info, seg, stats,
      h("div", { class: "tokx-cols" }, h("div", { class: "tokx-col" }, caption, table), h("div", { class: "tokx-col tokx-chartbox" }, svg)),
    );

    function update(k) {
      const t0 = performance.now();
      k = Math.max(0, Math.min(K, k | 0));
      api.k = k;
      slider.value = k;
      readout.textContent = "merge " + fmt(k) + " / " + fmt(K);
      // The merge just taken, or the next one.
      info.replaceChildren();
      if (k > 0) {
        const m = d.merges[k - 1];
        info.append(h("span", { class: "tokx-k" }, "Merge " + fmt(k) + ": "), pill(m[0], label(m[0])), " + ", pill(m[1], label(m[1])),
          " → ", pill(m[3], label(m[3]), " tokx-new"), h("span", { class: "tokx-muted" }, "  id " + m[3] + " · count " + fmt(m[2]) + (d.count_label ? " " + d.count_label : "")));
      } else if (K > 0) {
        const m = d.merges[0];
        info.append(h("span", { class: "tokx-k" }, "No merge yet: "), "the sample in base symbols. First merge: ", pill(m[0], label(m[0])), " + ", pill(m[1], label(m[1])));
      }
      // The sample after k merges: the nodes alive at step k.
      const toks = [];
      let made = 0;
      for (let i = 0; i < nodes.length; i += 5) {
        if (nodes[i + 3] <= k && k < nodes[i + 4]) {
          const isNew = k > 0 && nodes[i + 3] === k;
          made += isNew ? 1 : 0;
          toks.push([nodes[i], nodes[i + 1], nodes[i + 2], (isNew ? 1 : 0) | (nodes[i] === d.unk ? 2 : 0)]);
        }
      }
      if (k > 0) info.append(h("span", { class: "tokx-muted" }, made ? " · " + made + " in the sample" : " · not in the sample"));
      seg.replaceChildren(renderView({ mode: d.mode, toks }, d.text, label, false));
      const n = d.sample_tokens[k];
      stats.textContent = fmt(n) + " tokens for " + fmt(d.n_chars) + " characters · " + fmtd(d.n_chars / n, 2) + " characters per token" +
        (d.corpus_tokens ? " · corpus: " + fmtd(d.corpus_chars / d.corpus_tokens[k], 2) + " characters per token" : "");
      // Pair counts when merge k was chosen.
      const ti = Math.max(0, k - 1), top = d.tops[ti] || [];
      caption.textContent = (k > 0 ? "Pair counts when merge " + fmt(k) + " was chosen" : "Pair counts now") + " (" + d.tops_label + ")";
      const rows = [h("tr", {}, h("th", {}, "#"), h("th", {}, "pair"), h("th", { class: "tokx-num" }, "count"), h("th", {}))];
      const maxc = top.length ? top[2] : 1, chosen = d.merges[ti];
      for (let j = 0; j < top.length; j += 3) {
        const isChosen = chosen && top[j] === chosen[0] && top[j + 1] === chosen[1];
        rows.push(h("tr", { class: isChosen ? "tokx-chosen" : null },
          h("td", { class: "tokx-muted" }, String(j / 3 + 1)),
          h("td", {}, pill(top[j], label(top[j])), " ", pill(top[j + 1], label(top[j + 1]))),
          h("td", { class: "tokx-num" }, fmt(top[j + 2])),
          h("td", { class: "tokx-barcell" }, h("span", { class: "tokx-bar", style: "width:" + (100 * top[j + 2] / maxc).toFixed(1) + "%" }))));
      }
      table.replaceChildren(...rows);
      svg.mark(k + 1, [d.sample_tokens[k] / d.n_chars, d.corpus_tokens ? d.corpus_tokens[k] / d.corpus_chars : null]);
      api.lastUpdateMs = performance.now() - t0;
    }
    let timer = null;
    function stop() { if (timer) { clearInterval(timer); timer = null; playBtn.textContent = "▶"; } }
    playBtn.addEventListener("click", () => {
      if (timer) { stop(); return; }
      if (api.k >= K) update(0);
      playBtn.textContent = "❚❚";
      timer = setInterval(() => { if (api.k >= K) { stop(); return; } update(api.k + Math.max(1, Math.floor(api.k / 25))); }, 90);
    });
    prev.addEventListener("click", () => { stop(); update(api.k - 1); });
    next.addEventListener("click", () => { stop(); update(api.k + 1); });
    slider.addEventListener("input", () => { stop(); update(+slider.value); });
    api.set = update;
    update(d.start || 0);
    return api;
  }

  // ---------------------------------------------------- comparison explorer
  function mountCompare(root, d) {
    const api = { kind: "compare", lastUpdateMs: 0 };
    const ta = h("textarea", { class: "tokx-input", rows: 4, spellcheck: "false", "aria-label": "text to tokenize" });
    ta.value = d.text;
    const showIds = h("input", { type: "checkbox" });
    const chips = h("div", { class: "tokx-chips" }, h("span", { class: "tokx-muted" }, "Try: "),
      d.samples.map((s, i) => h("button", { type: "button", class: "tokx-chip", title: s, onclick: () => { ta.value = s; update(); } },
        (Array.from(visibleText(s)).slice(0, 22).join("") + (Array.from(s).length > 22 ? "…" : "")))));
    const cards = d.tokenizers.map((t) => {
      const c = {
        t, stats: h("span", { class: "tokx-cardstats" }), bar: h("span", { class: "tokx-bar" }),
        body: h("div", { class: "tokx-seg tokx-seg-small" }),
        label: t.engine === "bytelevel" ? (id) => bytesLabel(t, id) : t.pieces ? (id) => (t.pieces[id] !== undefined ? t.pieces[id] : "#" + id) : (id) => (t.labels[id] !== undefined ? t.labels[id] : "#" + id),
      };
      c.el = h("div", { class: "tokx-card", "data-name": t.name },
        h("div", { class: "tokx-cardhead" }, h("span", { class: "tokx-cardname" }, t.name),
          h("span", { class: "tokx-muted" }, " " + t.description + (t.vocab ? " · " + fmt(t.vocab) + " ids" : "")),
          h("span", { class: "tokx-barbox" }, c.bar), c.stats),
        c.body);
      return c;
    });
    root.replaceChildren(
      h("div", { class: "tokx-head" }, h("span", { class: "tokx-title" }, d.title), h("span", { class: "tokx-badge", title: "runs in your browser: no kernel, no network" }, "static · interactive")),
      ta, h("div", { class: "tokx-controls" }, chips, h("label", { class: "tokx-toggle" }, showIds, " show ids")),
      h("div", { class: "tokx-cards" }, cards.map((c) => c.el)),
    );
    function update() {
      const t0 = performance.now();
      const text = ta.value, nChars = Array.from(text).length;
      const results = cards.map((c) => {
        const t = c.t;
        if (t.engine) {
          try { return encode(t, text, d.classes); } catch (e) { return { error: String(e.message || e) }; }
        }
        return Object.prototype.hasOwnProperty.call(t.pre, text) ? t.pre[text] : null;
      });
      const maxN = Math.max(1, ...results.map((r) => (r && r.toks ? r.toks.length : 0)));
      cards.forEach((c, i) => {
        const v = results[i];
        if (!v || v.error) {
          c.stats.textContent = "";
          c.bar.style.width = "0";
          c.body.replaceChildren(h("span", { class: "tokx-note" }, v ? "The JavaScript version of this tokenizer cannot run here (" + v.error + "). Run the notebook to tokenize any text."
            : "No JavaScript version of this tokenizer: the page shows it for the sample texts above only. Run the notebook to tokenize any text."));
          c.el.dataset.tokens = "";
          return;
        }
        const n = v.toks.length;
        c.stats.textContent = fmt(n) + " tokens · " + fmt(nChars) + " chars · " + (n ? fmtd(nChars / n, 2) : "–") + " chars/token";
        c.bar.style.width = (100 * n / maxN).toFixed(1) + "%";
        c.el.dataset.tokens = n;
        c.el.dataset.chars = nChars;
        c.body.replaceChildren(renderView(v, text, c.label, showIds.checked));
      });
      api.lastUpdateMs = performance.now() - t0;
    }
    ta.addEventListener("input", update);
    showIds.addEventListener("change", update);
    api.update = update;
    api.textarea = ta;
    update();
    return api;
  }

  // ------------------------------------------------------ trade-off explorer
  function mountTradeoff(root, d) {
    const api = { kind: "tradeoff", lastUpdateMs: 0 };
    const P = d.points;
    const slider = h("input", { type: "range", min: 0, max: P.length - 1, step: 1, value: d.start, "aria-label": "vocabulary size" });
    const readout = h("span", { class: "tokx-readout" });
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
      h("div", { class: "tokx-head" }, h("span", { class: "tokx-title" }, d.title), h("span", { class: "tokx-badge", title: "runs in your browser: no kernel, no network" }, "static · interactive")),
      h("div", { class: "tokx-controls" }, h("span", { class: "tokx-muted" }, "vocabulary"), slider, readout, width),
      h("div", { class: "tokx-cols" }, h("div", { class: "tokx-col" }, out), h("div", { class: "tokx-col tokx-chartbox" }, svg)),
      segCap, seg,
    );
    const maxV = Math.max(...allX);
    function meter(name, value, frac, note) {
      return h("div", { class: "tokx-meter" },
        h("div", { class: "tokx-meterhead" }, h("span", {}, name), h("span", { class: "tokx-meterval" }, value)),
        h("div", { class: "tokx-meterbar" }, h("span", { style: "width:" + Math.max(0.5, Math.min(100, 100 * frac)).toFixed(1) + "%" })),
        h("div", { class: "tokx-muted tokx-meternote" }, note));
    }
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
      const s = d.sample;
      let toks = [];
      if (s.nodes) {
        const nd = s.nodes;
        for (let j = 0; j < nd.length; j += 5) if (nd[j + 3] <= k && k < nd[j + 4]) toks.push([nd[j], nd[j + 1], nd[j + 2], nd[j] === s.unk ? 2 : 0]);
      } else toks = s.views[i].toks;
      segCap.textContent = "The sample with " + fmt(V) + " ids: " + fmt(toks.length) + " tokens for " + fmt(Array.from(s.text).length) + " characters";
      seg.replaceChildren(renderView({ mode: s.mode, toks }, s.text, sampleLabel, false));
      api.lastUpdateMs = performance.now() - t0;
    }
    slider.addEventListener("input", () => update(+slider.value));
    width.addEventListener("change", () => update(api.i));
    api.set = update;
    update(d.start);
    return api;
  }

  // ------------------------------------------------------------------ mount
  const MOUNTS = { merge: mountMerge, compare: mountCompare, tradeoff: mountTradeoff };
  function mount(id) {
    const root = typeof id === "string" ? document.getElementById(id) : id;
    if (!root || root.tokx) return root && root.tokx;
    const data = JSON.parse(document.getElementById(root.id + "-data").textContent);
    try {
      root.tokx = MOUNTS[data.kind](root, data);
      root.classList.add("tokx-live");
    } catch (e) {
      root.append(h("div", { class: "tokx-note" }, "This explorer could not start: " + e));
      throw e;
    }
    return root.tokx;
  }

  window.TokX = { mount, encode, compileRegex, findall, renderView, bpePiece, version: 1 };
})();
