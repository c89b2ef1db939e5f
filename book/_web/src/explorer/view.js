// The markup of tokens: tokref.explorer.render's twin. Pure functions of the state
// (view, text, labels) to an HTML string, character for character the Python
// renderers' (tests/test_explorer.py and tests/test_browser.py compare them).
//
// view = {mode: "chars" | "bytes" | "pieces", toks: [[id, start, end, flags], ...]}
// flags: 1 = made by the merge just taken, 2 = the unknown token.
import { tokx, h, hue, hex2, esc, visHTML } from "./core.js";
(function () {
  const NEW = 1, UNK = 2;
  const title = (id, label) => esc("id " + id + " · " + JSON.stringify(label));
  function tokOpen(t, idx, label) {
    const cls = "tokx-t" + (t[3] & NEW ? " tokx-new" : "") + (t[3] & UNK ? " tokx-unk" : "");
    return '<span class="' + cls + '" style="--h:' + hue(t[0]) + '" data-t="' + idx + '" data-id="' + t[0] +
      '" title="' + title(t[0], label) + '">';
  }
  // A token drawn alone (in a merge, a table of pairs).
  function pillHTML(id, label, extra) {
    return '<span class="tokx-t tokx-pill' + (extra || "") + '" style="--h:' + hue(id) + '" title="id ' + id + '">' +
      visHTML(label) + "</span>";
  }
  const gap = (s) => '<span class="tokx-gap">' + visHTML(s) + "</span>";
  // Characters drawn once, the tokens (or bytes) they are split into as boxes under them.
  const split = (ttl, chars, boxes) => '<span class="tokx-split" title="' + esc(ttl) + '"><span class="tokx-split-ch">' +
    esc(chars) + '</span><span class="tokx-split-bytes">' + boxes.join("") + "</span></span><wbr>";

  function viewHTML(view, text, label, showIds) {
    // The id after each token: drawn when showIds, else for screen readers only (a
    // token boundary they can hear; render.py's id_badge_shown / id_badge_hidden).
    const badge = showIds
      ? (id) => '<span class="tokx-id"><span class="tokx-sr"> id </span>' + id + '<span class="tokx-sr">, </span></span>'
      : (id) => '<span class="tokx-sr"> id ' + id + ", </span>";
    if (view.mode === "chars") return charsView(view.toks, text, label, badge);
    if (view.mode === "bytes") return bytesView(view.toks, text, label, badge);
    return view.toks.map((t, i) => tokOpen(t, i, label(t[0])) + visHTML(label(t[0])) + badge(t[0]) + "</span><wbr>").join("");
  }
  function charsView(toks, text, label, badge) {
    const cps = Array.from(text), out = [];
    let pos = 0;
    for (let i = 0; i < toks.length;) {
      const t = toks[i];
      if (t[1] > pos) out.push(gap(cps.slice(pos, t[1]).join("")) + "<wbr>");
      // Several tokens with one and the same span (byte fallback: <0xC3> <0xA9>):
      // the characters once, the tokens as boxes underneath.
      let j = i + 1;
      while (j < toks.length && t[2] > t[1] && toks[j][1] === t[1] && toks[j][2] === t[2]) j++;
      if (j - i > 1) {
        const boxes = [];
        for (let m = i; m < j; m++) {
          const u = toks[m], lab = label(u[0]), hx = /^<0x([0-9A-Fa-f]{2})>$/.exec(lab);
          boxes.push('<span class="tokx-b' + (u[3] & NEW ? " tokx-new" : "") + '" style="--h:' + hue(u[0]) + '" data-t="' + m +
            '" data-id="' + u[0] + '" title="' + title(u[0], lab) + '">' + (hx ? hx[1].toUpperCase() : visHTML(lab)) + badge(u[0]) + "</span>");
        }
        const chars = cps.slice(t[1], t[2]).join("");
        out.push(split(JSON.stringify(chars) + " is " + (j - i) + " tokens", chars, boxes));
        pos = Math.max(pos, t[2]);
        i = j;
        continue;
      }
      const piece = label(t[0]), txt = cps.slice(t[1], t[2]).join("");
      const sfx = piece !== txt && !(t[3] & UNK) && piece.startsWith(txt)
        ? '<span class="tokx-sfx">' + esc(piece.slice(txt.length)) + "</span>" : "";
      out.push(tokOpen(t, i, piece) + visHTML(txt) + sfx + badge(t[0]) + "</span><wbr>");
      pos = Math.max(pos, t[2]);
      i++;
    }
    if (pos < cps.length) out.push(gap(cps.slice(pos).join("")));
    return out.join("");
  }
  // Runs of whole characters per token; a character whose bytes several tokens share
  // is drawn once, its bytes in hex underneath.
  function bytesView(toks, text, label, badge) {
    const enc = new TextEncoder(), cps = Array.from(text), cpBytes = cps.map((c) => enc.encode(c));
    let nb = 0;
    for (const b of cpBytes) nb += b.length;
    const owner = new Int32Array(nb).fill(-1);
    toks.forEach((t, i) => { for (let b = t[1]; b < t[2] && b < nb; b++) owner[b] = i; });
    const lastByte = new Map();  // token index -> its last byte
    owner.forEach((o, b) => { if (o >= 0) lastByte.set(o, b); });
    const out = [];
    let runIdx = -2, runText = "", runEnd = 0;
    const close = () => {
      if (runIdx === -1) out.push(gap(runText) + "<wbr>");
      else if (runIdx >= 0) {
        const t = toks[runIdx];
        out.push(tokOpen(t, runIdx, label(t[0])) + visHTML(runText) + (lastByte.get(runIdx) === runEnd - 1 ? badge(t[0]) : "") + "</span><wbr>");
      }
      runIdx = -2; runText = "";
    };
    let b0 = 0;
    cps.forEach((ch, ci) => {
      const bs = cpBytes[ci], o = owner[b0];
      let same = true;
      for (let b = b0 + 1; b < b0 + bs.length; b++) if (owner[b] !== o) { same = false; break; }
      if (same) {
        if (o !== runIdx) { close(); runIdx = o; }
        runText += ch;
        runEnd = b0 + bs.length;
      } else {
        close();
        out.push(splitChar(ch, bs, b0, owner, toks, label, badge, lastByte));
      }
      b0 += bs.length;
    });
    close();
    return out.join("");
  }
  function splitChar(ch, bs, b0, owner, toks, label, badge, lastByte) {
    const boxes = [], ids = [];
    bs.forEach((byte, k) => {
      const oi = owner[b0 + k], hx = hex2(byte);
      if (oi < 0) { boxes.push('<span class="tokx-b">' + hx + "</span>"); return; }
      const t = toks[oi];
      if (ids.indexOf(t[0]) < 0) ids.push(t[0]);
      boxes.push('<span class="tokx-b' + (t[3] & NEW ? " tokx-new" : "") + '" style="--h:' + hue(t[0]) + '" data-t="' + oi +
        '" data-id="' + t[0] + '" title="' + esc("byte 0x" + hx + " of id " + t[0] + " · " + JSON.stringify(label(t[0]))) + '">' +
        hx + (lastByte.get(oi) === b0 + k ? badge(t[0]) : "") + "</span>");
    });
    return split(JSON.stringify(ch) + " = " + bs.length + " UTF-8 bytes, split between ids " + ids.join(", "), ch, boxes);
  }
  // The same as DOM nodes (a DocumentFragment).
  function renderView(view, text, label, showIds) {
    const t = document.createElement("template");
    t.innerHTML = viewHTML(view, text, label, showIds);
    return t.content;
  }

  Object.assign(tokx, { viewHTML, pillHTML, renderView });
})();
