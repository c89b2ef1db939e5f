/* tokref explorers, the static face: vanilla JavaScript, no library, no network.
 * Each explorer is a <div class="tokx"> followed by its data (a JSON <script>);
 * TokX.mount(id) builds the view. The tokenizers' JavaScript twins (char, word, BPE,
 * byte-level BPE, WordPiece, Unigram) follow tokref's Python code line by line;
 * tests/test_browser.py checks them against it.
 *
 * The ES modules of this folder are bundled by book/_web/build.mjs (entry index.js)
 * into tokref's static/tokx.js. This module is their base: the namespace `tokx` that
 * every other module (each a closure of its own) fills in, and the helpers they all
 * import. mount.js publishes the namespace's API as window.TokX. */

export const tokx = { ENCODERS: {} };

// ---------------------------------------------------------------- DOM helpers
export const SVG_TAGS = new Set(["svg", "g", "line", "polyline", "circle", "text", "rect", "path", "title"]);
export function h(tag, attrs) {
  const e = SVG_TAGS.has(tag)
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
export function add(parent, kid) {
  if (kid === null || kid === undefined || kid === false) return;
  if (Array.isArray(kid)) { kid.forEach((k) => add(parent, k)); return; }
  parent.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
}
// The title bar of an explorer.
export const headBar = (title) => h("div", { class: "tokx-head" }, h("span", { class: "tokx-title" }, title),
  h("span", { class: "tokx-badge", title: "runs in your browser: no kernel, no network" }, "static · interactive"));

// One polite live region per explorer, read by screen readers only: it says the
// figures that changed, once the control has been still for a moment (a slider held
// down or playing would otherwise queue an announcement per step), never the tokens.
export function announcer(root) {
  const region = h("div", { class: "tokx-sr tokx-live", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  let timer = null, first = true;
  region.say = (text) => {
    if (first) { first = false; return; }  // the first state is on screen, not news
    clearTimeout(timer);
    timer = setTimeout(() => { if (region.textContent !== text) region.textContent = text; }, 500);
  };
  return region;
}

// ------------------------------------------------------------------ numbers
export const fmt = (x) => Math.round(x).toLocaleString("en-US");
export const fmtd = (x, d) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
export function fmtBig(x) {
  if (x >= 1e9) return fmtd(x / 1e9, 2) + " B";
  if (x >= 1e6) return fmtd(x / 1e6, 2) + " M";
  if (x >= 1e4) return fmtd(x / 1e3, 1) + " k";
  return fmt(x);
}
export function fmtRel(x) {
  if (x >= 100) return fmt(x) + "×";
  if (x >= 10) return fmtd(x, 1) + "×";
  if (x >= 0.1) return fmtd(x, 2) + "×";
  return x.toPrecision(2) + "×";
}
// Python's format(x, f".{d}f"): the exact binary value of x rounded to d decimals,
// an exact tie to the even neighbour. toFixed takes the upper one (6.25 -> "6.3",
// Python "6.2"), and ties do happen (100 * 1 / 16): the markup must be Python's.
export function pyFixed(x, d) {
  const a = Math.abs(x), sign = x < 0 ? "-" : "";
  const up = a.toFixed(d);
  if (!isFinite(a) || a >= 1e21) return sign + up;
  const exact = a.toFixed(100);  // every digit of a double of this size
  const cut = exact.indexOf(".") + 1 + d;
  if (exact[cut] !== "5" || /[1-9]/.test(exact.slice(cut + 1))) return sign + up;
  const down = exact.slice(0, d ? cut : cut - 1);
  return sign + (+down[down.length - 1] % 2 === 0 ? down : up);
}
// The colour of an id, as tokref.explorer.render.hue (Python's float %, then .1f).
export function hue(id) {
  let r = (id * 137.508) % 360;
  if (r < 0) r += 360;
  return pyFixed(r, 1);
}
export const hex2 = (b) => (b < 16 ? "0" : "") + b.toString(16).toUpperCase();

// ------------------------------------------------- escaping, visible whitespace
export const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
export const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ESC[c]);  // Python's html.escape
export const WS = { " ": "␣", "\t": "⇥", "\n": "⏎", "\r": "␍" };
export const OTHER_WS = /[\u000b\u000c\u001c-\u001f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
// s as HTML with its whitespace visible (tokref.explorer.render.vis).
export function visHTML(s) {
  let out = "";
  for (const ch of s) {
    const g = WS[ch] || (OTHER_WS.test(ch) ? "·" : null);
    out += g === null ? esc(ch) : '<span class="tokx-ws">' + g + "</span>" + (ch === "\n" ? "<br>" : "");
  }
  return out;
}
export function visibleText(s) {
  let out = "";
  for (const ch of s) out += WS[ch] || (OTHER_WS.test(ch) ? "·" : ch);
  return out;
}

// ------------------------------------------------------ the tokenizers' twins
// Each engine file adds tokx.ENCODERS[engine](spec, text, classes) -> view.
export function pieceIndex(spec) {
  if (!spec._index) {
    spec._index = new Map();
    spec.pieces.forEach((p, i) => { if (!spec._index.has(p)) spec._index.set(p, i); });
  }
  return spec._index;
}
export function encode(spec, text, classes) {
  const f = tokx.ENCODERS[spec.engine];
  if (!f) throw new Error("tokx: no JavaScript encoder for " + spec.engine);
  return f(spec, text, classes);
}
