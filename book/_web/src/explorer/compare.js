// The comparison explorer (tokref.explorer.compare): one text, several tokenizers.
import { tokx, h, headBar, announcer, fmt, pyFixed, esc, visibleText, encode } from "./core.js";
(function () {
  const { viewHTML, bytesLabel } = tokx;

  // One tokenizer's card, as tokref.explorer.compare.card; v may also be null (no
  // twin, and not one of the texts computed in Python) or {error} (the twin failed).
  function cardHTML(name, description, vocab, v, text, label, showIds, maxN) {
    const nChars = Array.from(text).length;
    const ok = v && !v.error, n = ok ? v.toks.length : 0;
    const stats = ok ? fmt(n) + " tokens · " + fmt(nChars) + " chars · " + (n ? pyFixed(nChars / n, 2) : "–") + " chars/token" : "";
    const body = ok ? viewHTML(v, text, label, showIds) : '<span class="tokx-note">' + esc(v
      ? "The JavaScript version of this tokenizer cannot run here (" + v.error + "). Run the notebook to tokenize any text."
      : "No JavaScript version of this tokenizer: the page shows it for the sample texts above only. Run the notebook to tokenize any text.") + "</span>";
    return '<div class="tokx-card" data-name="' + esc(name) + '" data-tokens="' + (ok ? n : "") + '" data-chars="' + nChars + '">' +
      '<div class="tokx-cardhead"><span class="tokx-cardname">' + esc(name) + '</span><span class="tokx-muted"> ' + esc(description) +
      (vocab ? " · " + fmt(vocab) + " ids" : "") + '</span><span class="tokx-barbox"><span class="tokx-bar" style="width:' +
      (ok ? pyFixed(100 * n / maxN, 1) + "%" : "0") + '"></span></span><span class="tokx-cardstats">' + stats + "</span></div>" +
      '<div class="tokx-seg tokx-seg-small">' + body + "</div></div>";
  }
  function labelOf(t) {
    if (t.engine === "bytelevel") return (id) => bytesLabel(t, id);
    if (t.pieces) return (id) => (t.pieces[id] !== undefined ? t.pieces[id] : "#" + id);
    return (id) => (t.labels[id] !== undefined ? t.labels[id] : "#" + id);
  }

  function mountCompare(root, d) {
    const api = { kind: "compare", lastUpdateMs: 0 };
    const ta = h("textarea", { class: "tokx-input", rows: 4, spellcheck: "false", "aria-label": "text to tokenize" });
    ta.value = d.text;
    const showIds = h("input", { type: "checkbox" });
    const chips = h("div", { class: "tokx-chips" }, h("span", { class: "tokx-muted" }, "Try: "),
      d.samples.map((s, i) => {
        // The chip shows the sample's start with its whitespace drawn; its name says
        // what it does and repeats that text (a name must contain what is shown).
        const shown = Array.from(visibleText(s)).slice(0, 22).join("") + (Array.from(s).length > 22 ? "…" : "");
        return h("button", { type: "button", class: "tokx-chip", title: s, "aria-label": "sample " + (i + 1) + ": " + shown,
          onclick: () => { ta.value = s; update(); } }, shown);
      }));
    const labels = d.tokenizers.map(labelOf);
    const cards = h("div", { class: "tokx-cards" });
    const live = announcer(root);
    root.replaceChildren(
      headBar(d.title),
      ta, h("div", { class: "tokx-controls" }, chips, h("label", { class: "tokx-toggle" }, showIds, " show ids")),
      cards, live,
    );
    function update() {
      const t0 = performance.now();
      const text = ta.value;
      const results = d.tokenizers.map((t) => {
        if (t.engine) {
          try { return encode(t, text, d.classes); } catch (e) { return { error: String(e.message || e) }; }
        }
        return Object.prototype.hasOwnProperty.call(t.pre, text) ? t.pre[text] : null;
      });
      const maxN = Math.max(1, ...results.map((r) => (r && r.toks ? r.toks.length : 0)));
      cards.innerHTML = d.tokenizers.map((t, i) =>
        cardHTML(t.name, t.description, t.vocab, results[i], text, labels[i], showIds.checked, maxN)).join("");
      // Each tokenizer's count, said once typing pauses (the cards themselves are not live).
      live.say(d.tokenizers.map((t, i) => t.name + ": " + (results[i] && results[i].toks ? fmt(results[i].toks.length) + " tokens" : "not computed")).join("; ") + ".");
      api.lastUpdateMs = performance.now() - t0;
    }
    ta.addEventListener("input", update);
    showIds.addEventListener("change", update);
    api.update = update;
    api.textarea = ta;
    update();
    return api;
  }

  Object.assign(tokx, { mountCompare, cardHTML });
})();
