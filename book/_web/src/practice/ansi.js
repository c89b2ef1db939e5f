// ANSI colours: ansiToHtml(text) turns the escape sequences of IPython's tracebacks
// into escaped HTML with tp-ansi-* classes. Pure; window.TokPractice.ansiToHtml is this.
import { escapeHtml } from "./util.js";

// The SGR codes of IPython's tracebacks: 16 colours (30-37, 90-97 and the
// backgrounds), bold, underline, resets. 256-colour and RGB codes are skipped (their
// arguments too) and the text kept; every other escape sequence is dropped.
export function ansiToHtml(text) {
  let fg = null, bg = null, bold = false, underline = false;
  let html = "";
  const parts = String(text).split(/\x1b\[([0-9;]*)([A-Za-z])/);
  for (let i = 0; i < parts.length; i += 3) {
    const chunk = parts[i].replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b[^[]/g, "");
    if (chunk) {
      const cls = [];
      if (fg !== null) cls.push(`tp-ansi-fg${fg}`);
      if (bg !== null) cls.push(`tp-ansi-bg${bg}`);
      if (bold) cls.push("tp-ansi-bold");
      if (underline) cls.push("tp-ansi-underline");
      html += cls.length ? `<span class="${cls.join(" ")}">${escapeHtml(chunk)}</span>` : escapeHtml(chunk);
    }
    if (i + 2 >= parts.length || parts[i + 2] !== "m") continue;
    const codes = parts[i + 1] === "" ? [0] : parts[i + 1].split(";").map(Number);
    for (let j = 0; j < codes.length; j++) {
      const c = codes[j];
      if (c === 0) { fg = bg = null; bold = underline = false; }
      else if (c === 1) bold = true;
      else if (c === 22) bold = false;
      else if (c === 4) underline = true;
      else if (c === 24) underline = false;
      else if (c >= 30 && c <= 37) fg = c - 30;
      else if (c >= 90 && c <= 97) fg = c - 90 + 8;
      else if (c === 39) fg = null;
      else if (c >= 40 && c <= 47) bg = c - 40;
      else if (c >= 100 && c <= 107) bg = c - 100 + 8;
      else if (c === 49) bg = null;
      else if (c === 38 || c === 48) {
        const mode = codes[j + 1];
        const colour = mode === 5 ? from256(codes[j + 2]) : mode === 2 ? fromRGB(...codes.slice(j + 2, j + 5)) : null;
        if (c === 38) fg = colour; else bg = colour;
        j += mode === 5 ? 2 : mode === 2 ? 4 : 1;
      }
    }
  }
  return html;
}

// 256-colour and RGB codes (newer IPython uses a few) become the nearest of the 16.
function fromRGB(r = 0, g = 0, b = 0) {
  const bright = Math.max(r, g, b) > 200;
  const half = bright ? 150 : 96;
  return (r > half ? 1 : 0) + (g > half ? 2 : 0) + (b > half ? 4 : 0) + (bright ? 8 : 0);
}

function from256(n) {
  if (!(n >= 0 && n <= 255)) return null;
  if (n < 16) return n;
  if (n >= 232) { const v = 8 + (n - 232) * 10; return fromRGB(v, v, v); }
  const steps = [0, 95, 135, 175, 215, 255];
  const i = n - 16;
  return fromRGB(steps[Math.floor(i / 36)], steps[Math.floor(i / 6) % 6], steps[i % 6]);
}
