// tokref.bytelevel.ByteLevelBPETokenizer's twin: regex pieces, then tiktoken's rule on
// the UTF-8 bytes of each (tokref.bytelevel.bpe_encode_piece). Bytes are kept as
// "binary strings" (one char per byte) so that they can be Map keys.
import { tokx, hex2 } from "../core.js";
(function () {
  const { compileRegex, findall } = tokx;
  function tables(spec) {
    if (spec._ranks) return;
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
  // tiktoken's byte-pair merge of one piece (a binary string): its ranks.
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
  tokx.ENCODERS.bytelevel = function (spec, text, classes) {
    tables(spec);
    const ranks = spec._ranks, enc = new TextEncoder(), toks = [];
    let pos = 0;
    for (const [, , piece] of findall(compileRegex(spec.re, classes), text)) {
      let ids = spec._cache.get(piece);
      if (!ids) {
        let s = "";
        for (const b of enc.encode(piece)) s += String.fromCharCode(b);
        ids = bpePiece(s, ranks);
        spec._cache.set(piece, ids);
      }
      for (const id of ids) { const n = spec._bytes[id].length; toks.push([id, pos, pos + n, 0]); pos += n; }
    }
    // Bytes that no piece covers (a pattern that skips characters) are gaps.
    return { mode: "bytes", toks };
  };
  // The length of the well-formed UTF-8 sequence at u8[i] (0: none starts there).
  function utf8Length(u8, i) {
    const b = u8[i], cont = (k, lo = 0x80, hi = 0xbf) => i + k < u8.length && u8[i + k] >= lo && u8[i + k] <= hi;
    if (b < 0x80) return 1;
    if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
    if (b >= 0xe0 && b <= 0xef) {
      const lo = b === 0xe0 ? 0xa0 : 0x80, hi = b === 0xed ? 0x9f : 0xbf;
      return cont(1, lo, hi) && cont(2) ? 3 : 0;
    }
    if (b >= 0xf0 && b <= 0xf4) {
      const lo = b === 0xf0 ? 0x90 : 0x80, hi = b === 0xf4 ? 0x8f : 0xbf;
      return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
  }
  // A token's label, as ByteLevelBPETokenizer.id_to_token: its bytes decoded as UTF-8,
  // each byte of no well-formed sequence written \xNN (Python's "backslashreplace").
  function bytesLabel(spec, id) {
    const b = spec._bytes && spec._bytes[id];
    if (b === undefined) return "#" + id;
    const u8 = Uint8Array.from(b, (c) => c.charCodeAt(0)), dec = new TextDecoder("utf-8");
    let out = "";
    for (let i = 0; i < u8.length;) {
      const n = utf8Length(u8, i);
      if (n) { out += dec.decode(u8.subarray(i, i + n)); i += n; }
      else { out += "\\x" + hex2(u8[i]).toLowerCase(); i++; }
    }
    return out;
  }

  Object.assign(tokx, { bpePiece, bytesLabel });
})();
