// The editor of an editable cell (solution code, written answer): CodeMirror from the
// editor bundle (window.TokEditor, practice/editor.js, loaded by loadEditorBundle), or a
// textarea with the same interface if the bundle is missing, so the page stays usable.
// mountEditor(cell, saved, {onChange, onRun}) replaces the cell's highlighted code with
// the editor and sets cell.editor: {view, getValue(), setValue(text), focus()}.
import { staticURL } from "./state.js";
import { el } from "./util.js";

function editorLabel(cell) {
  const what = cell.kind === "answer" ? "Written answer" : "Solution code";
  const keys = cell.kind === "answer" ? "" : " Shift+Enter runs it.";
  return `${what} ${cell.gradeId || cell.meta.index}, editable.${keys} Escape then Tab leaves the editor.`;
}

// `saved`: grade_id -> the reader's saved code; `onRun` is not offered to an answer.
export function mountEditor(cell, saved, { onChange, onRun }) {
  const old = cell.el.querySelector(":scope > div[class^='highlight'], :scope > pre");
  const host = el("div", { class: "tp-editor" });
  if (old) old.replaceWith(host); else cell.el.append(host);
  const doc = cell.gradeId && typeof saved[cell.gradeId] === "string" ? saved[cell.gradeId] : cell.meta.source;
  const options = {
    doc, language: cell.kind === "answer" ? "markdown" : "python", label: editorLabel(cell),
    onChange,
    onRun: cell.kind === "answer" ? null : onRun,
  };
  cell.editor = window.TokEditor ? window.TokEditor.create(host, options) : textareaEditor(host, options);
}

// If the editor bundle is missing, a textarea with the same interface keeps the page
// usable (no highlighting).
function textareaEditor(host, options) {
  const ta = el("textarea", { class: "tp-textarea", "aria-label": options.label, spellcheck: "false",
    rows: String(Math.max(3, options.doc.split("\n").length + 1)) });
  ta.value = options.doc;
  ta.addEventListener("input", () => options.onChange && options.onChange(ta.value));
  ta.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.shiftKey || e.ctrlKey || e.metaKey) && options.onRun) {
      e.preventDefault();
      options.onRun();
    }
  });
  host.append(ta);
  return {
    view: null, getValue: () => ta.value, focus: () => ta.focus(),
    setValue(text) { ta.value = text; if (options.onChange) options.onChange(text); },
  };
}

export function loadEditorBundle() {
  if (window.TokEditor) return Promise.resolve();
  return new Promise((resolve) => {
    const s = el("script", { src: `${staticURL}practice/editor.js` });
    s.onload = resolve;
    s.onerror = resolve;  // the textarea fallback takes over
    document.head.append(s);
  });
}
