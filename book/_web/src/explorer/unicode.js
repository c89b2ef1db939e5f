// Unicode data inlined from Python (tokref.explorer.twins), never the browser's own.
// Ranges are flat lists [a0, b0, a1, b1, ...] of code points, sorted.
import { tokx } from "./core.js";
(function () {
  function inRanges(r, cp) {
    let lo = 0, hi = (r.length >> 1) - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (cp < r[2 * m]) hi = m - 1; else if (cp > r[2 * m + 1]) lo = m + 1; else return true;
    }
    return false;
  }
  // [gap, value, ...] (tokref.explorer.twins.map_runs) -> Map code point -> string.
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
  // [first, last, class, ...] -> Map code point -> canonical combining class.
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

  Object.assign(tokx, { inRanges, mapTable, cccTable, utf8 });
})();
