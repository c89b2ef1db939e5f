// Pre-tokenization regexes translated by tokref.explorer.jsregex.js_regex.
import { tokx } from "./core.js";
(function () {
  const reCache = new Map();
  // spec = {source, classes?}: the source names each character class {{name}}; the
  // ranges come from spec.classes or the page's shared classes.
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

  Object.assign(tokx, { compileRegex, findall });
})();
