"use strict";
// "Practice in the page": the UI of a book page generated from an nbgrader assignment.
// The reader edits the solution cells in CodeMirror editors (practice/editor.js) and
// runs them in Python: Pyodide in a Web Worker (practice-worker.js), started on the
// first Run only, so reading the page costs nothing. The page thread never runs Python,
// so a cell that never ends cannot freeze the tab: Stop (or the watchdog) terminates
// the worker, starts a fresh one and runs again the cells that had run before.
// The page contract (#tp-root, #tp-data, .tp-cell[data-index][data-kind]) is written
// by the book's Sphinx extension (book/_ext/practice_pages.py).
//
// The entry module: bundled by book/_web/build.mjs into dist/practice/practice.js (an
// IIFE the page loads deferred). It reads tp-data, builds the page once the DOM is
// parsed, publishes window.TokPractice (for the book's browser tests) and pushes its
// promise on window.TokPending (a11y.js's TokA11y.settled waits for it).
import { ansiToHtml } from "./ansi.js";
import { loadEditorBundle } from "./editor.js";
import { addCell, page, py, setData } from "./state.js";
import { flushSave, loadSaved, openNotebook } from "./storage.js";
import { buildCell, buildToolbar } from "./toolbar.js";
import { joinText } from "./util.js";

function readData() {
  const node = document.getElementById("tp-data");
  if (!node) return null;
  try {
    return JSON.parse(node.textContent);
  } catch (e) {
    return null;
  }
}

async function init() {
  const host = document.getElementById("tp-root");
  setData(readData());
  if (!host || !page.data || !Array.isArray(page.data.cells)) return;
  await loadEditorBundle();
  const saved = loadSaved();
  let partNo = 0;
  for (const meta of page.data.cells) {
    const node = document.querySelector(`.tp-cell[data-index="${Number(meta.index)}"]`);
    if (!node) continue;
    const cell = { meta, el: node, kind: node.dataset.kind || meta.kind,
      gradeId: node.dataset.gradeId || meta.grade_id || null, editor: null, output: null, prompt: null };
    cell.meta = { ...meta, source: joinText(meta.source) };
    // Each part of an assignment opens with its solution cell: the cells from one to
    // the next are that part (for the progress of Check my work).
    if (cell.kind === "solution") partNo += 1;
    cell.part = partNo ? `part ${partNo}` : "";
    addCell(cell);
  }
  buildToolbar(host);
  page.cells.forEach((c) => buildCell(c, saved));
  // A reload or a closed tab within the save delay must not lose the last keystrokes.
  window.addEventListener("pagehide", flushSave);
  window.TokPractice = { ansiToHtml, page, py, openNotebook };  // for the book's browser tests
}

// The page's readiness signal (a11y.js's TokA11y.settled waits for it): the cells built.
const started = new Promise((resolve) => {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", resolve);
  else resolve();
}).then(init);
(window.TokPending = window.TokPending || []).push(started);
