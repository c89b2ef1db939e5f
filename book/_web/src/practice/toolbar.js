// The page's controls: the toolbar (Run all, Stop, Check my work, Reset assignment,
// Download notebook, Open notebook…) with the status line and the report panel after
// it (buildToolbar), and each cell's bar (prompt, label, Run cell / Reset cell, the
// test's verdict), its editor and its output area (buildCell). Writes page.status,
// page.buttons and page.report when it builds them, and the cell's nodes.
import { checkMyWork } from "./check.js";
import { mountEditor } from "./editor.js";
import { clearCell } from "./outputs.js";
import { hideReport } from "./report.js";
import { discardPython, runAll, runCell, stop } from "./run.js";
import { CODE_KINDS, EDITABLE_KINDS, cellName, page, setStatus } from "./state.js";
import { cancelSave, downloadNotebook, forgetSaved, openNotebook, saveNow, scheduleSave } from "./storage.js";
import { el } from "./util.js";

const PYODIDE_MB = 12;  // dist/pyodide, uncompressed (MANIFEST.json has the exact bytes)

// ---------------------------------------------------------------- resets

function resetCell(cell) {
  if (!confirm("Reset this cell to the code of the released notebook? Your edits to it will be lost.")) return;
  cell.editor.setValue(cell.meta.source);
  saveNow();
  cell.editor.focus();
}

function resetAssignment() {
  if (!confirm("Reset the whole assignment? Your edits in every cell will be lost (download the "
    + "notebook first to keep them), and Python will start again.")) return;
  discardPython("reset");
  forgetSaved();
  for (const c of page.cells) {
    if (c.editor) c.editor.setValue(c.meta.source);
    clearCell(c);
  }
  cancelSave();
  hideReport();
  setStatus("Assignment reset to the released notebook. " + notStartedText());
}

// ---------------------------------------------------------------- building the page

function notStartedText() {
  return `Python not started — it loads when you first press Run (about ${PYODIDE_MB} MB, once; `
    + "then from the browser's cache)";
}

function button(text, onclick, extra = {}) {
  return el("button", { type: "button", class: "tp-button", text, onclick, ...extra });
}

export function buildToolbar(host) {
  const input = el("input", {
    type: "file", accept: ".ipynb,application/x-ipynb+json,application/json", hidden: true,
    "aria-hidden": "true", tabindex: "-1",
    onchange: () => { if (input.files[0]) openNotebook(input.files[0]); input.value = ""; },
  });
  const b = page.buttons;
  b.runAll = button("Run all", () => { runAll(); });
  b.stop = button("Stop", () => { stop("reader"); }, { disabled: true });
  b.check = button("Check my work", () => { checkMyWork(); });
  b.reset = button("Reset assignment", resetAssignment);
  b.download = button("Download notebook", downloadNotebook);
  b.open = button("Open notebook…", () => input.click(),
    { title: "Load your code from a .ipynb file of this assignment" });
  page.status = el("p", { class: "tp-status", id: "tp-status", role: "status", "aria-live": "polite" });
  page.report = el("section", { id: "tp-report", class: "tp-report", tabindex: "-1",
    "aria-labelledby": "tp-report-title", hidden: true });
  // The toolbar and the status stay in view (sticky, on a large screen) while the
  // reader scrolls the cells; the report, which can be long, follows them.
  host.replaceChildren(
    el("div", { class: "tp-toolbar", role: "toolbar", "aria-label": "Practice: run and check your code" },
      [b.runAll, b.stop, b.check, b.reset, b.download, b.open, input]),
    page.status);
  host.after(page.report);
  setStatus(notStartedText());
}

// The cell's bar: prompt, the page's label of the cell ("Your code · grade_id"), the
// buttons and the test's verdict, on one line that wraps on a narrow screen.
export function buildCell(cell, saved) {
  const node = cell.el;
  const code = CODE_KINDS.has(cell.kind);
  const bar = el("div", { class: "tp-cell-bar" });
  let label = node.querySelector(":scope > .tp-cell-label");
  if (!label) {
    label = el("span", { class: "tp-cell-label tp-sr",
      text: `${cell.kind} cell${cell.gradeId ? ` ${cell.gradeId}` : ""}` });
  }
  label.id = label.id || `tp-cell-${cell.meta.index}-label`;
  if (code) {
    cell.prompt = el("span", { class: "tp-prompt", "aria-hidden": "true", text: "[ ]:" });
    bar.append(cell.prompt);
  }
  bar.append(label);
  const buttons = el("span", { class: "tp-cell-buttons" });
  if (code) {
    buttons.append(button("Run cell", () => { runCell(cell); },
      { "aria-describedby": label.id, title: "Run this cell (Shift+Enter in its editor)" }));
  }
  if (EDITABLE_KINDS.has(cell.kind)) {
    buttons.append(button("Reset cell", () => resetCell(cell), { "aria-describedby": label.id }));
  }
  cell.badge = el("span", { class: "tp-badge" });
  buttons.append(cell.badge);
  bar.append(buttons);
  node.prepend(bar);
  if (EDITABLE_KINDS.has(cell.kind)) {
    mountEditor(cell, saved, { onChange: scheduleSave, onRun: () => { runCell(cell); } });
  }
  if (code) {
    cell.output = el("div", { class: "tp-output", role: "region",
      "aria-label": `Output of ${cellName(cell)}`, hidden: true });
    node.append(cell.output);
  }
  node.classList.add(`tp-kind-${cell.kind}`);
}
