// The reader's code, kept: in this browser's localStorage (key "tokref-practice:" + the
// assignment, {version: 1, cells: {grade_id: code}, saved: ISO time}, only the cells
// that differ from the released notebook), and in and out of .ipynb files (Download
// notebook, Open notebook…).
//   loadSaved()  the saved cells ({} if none or unreadable)
//   scheduleSave() / saveNow() / flushSave() / cancelSave() / forgetSaved()
//   downloadNotebook(), openNotebook(file)
// Writes page.saveTimer and page.saveError only.
import { page, setStatus, staticURL } from "./state.js";
import { el, joinText, plural, splitLines } from "./util.js";

const STORAGE_PREFIX = "tokref-practice:";
const SAVE_DELAY = 300;  // ms of quiet typing before an edit is saved
// The largest cell Open notebook loads: a solution is a few kB; a cell of megabytes
// (a wrong file, or a paste gone wrong) would freeze the page for seconds to minutes.
const MAX_CELL_CHARS = 200000;

// ---------------------------------------------------------------- saving edits

function storageKey() {
  return STORAGE_PREFIX + page.data.assignment;
}

export function loadSaved() {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey()) || "null");
    return saved && saved.version === 1 && saved.cells && typeof saved.cells === "object" ? saved.cells : {};
  } catch (e) {
    return {};
  }
}

// Only the cells that differ from the released source: an untouched cell then follows
// a new edition of the book instead of pinning the old one.
export function saveNow() {  // true if saved (or nothing to save)
  clearTimeout(page.saveTimer);
  page.saveTimer = 0;
  const cells = {};
  for (const c of page.cells) {
    if (c.editor && c.gradeId && c.editor.getValue() !== c.meta.source) cells[c.gradeId] = c.editor.getValue();
  }
  try {
    if (Object.keys(cells).length) {
      localStorage.setItem(storageKey(), JSON.stringify({ version: 1, cells, saved: new Date().toISOString() }));
    } else {
      localStorage.removeItem(storageKey());
    }
    return true;
  } catch (e) {
    page.saveError = e.message || String(e);
    setStatus(`Your edits could not be saved in this browser (${page.saveError}); use Download notebook to keep them`);
    return false;
  }
}

export function scheduleSave() {
  clearTimeout(page.saveTimer);
  page.saveTimer = setTimeout(saveNow, SAVE_DELAY);
}

// A reload or a closed tab within the save delay must not lose the last keystrokes.
export function flushSave() {
  if (page.saveTimer) saveNow();
}

export function cancelSave() {
  clearTimeout(page.saveTimer);
}

export function forgetSaved() {
  try { localStorage.removeItem(storageKey()); } catch (e) { /* nothing saved, nothing to clear */ }
}

// ---------------------------------------------------------------- download / open

async function fetchText(relative) {
  const url = `${staticURL}practice/${relative}`;
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`could not fetch ${relative} (HTTP ${response.status})`);
  return response.text();
}

export async function downloadNotebook() {
  try {
    const nb = JSON.parse(await fetchText(page.data.notebook_url));
    const byId = editableByGradeId();
    for (const cell of nb.cells || []) {
      const id = cell.metadata?.nbgrader?.grade_id;
      if (id && byId.has(id)) cell.source = splitLines(byId.get(id).editor.getValue());
      if (cell.cell_type === "code") { cell.outputs = []; cell.execution_count = null; }
    }
    const blob = new Blob([JSON.stringify(nb, null, 1) + "\n"], { type: "application/x-ipynb+json" });
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: page.data.notebook || `${page.data.assignment}.ipynb` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    setStatus(`Downloaded ${a.download} with your code`);
  } catch (e) {
    setStatus(`Download failed: ${e.message}`);
  }
}

function editableByGradeId() {
  return new Map(page.cells.filter((c) => c.editor && c.gradeId).map((c) => [c.gradeId, c]));
}

export async function openNotebook(file) {
  const what = `${file.name} was not loaded`;
  let nb;
  try {
    nb = JSON.parse(await file.text());
  } catch (e) {
    setStatus(`${what}: it is not a notebook (not JSON). Choose the .ipynb file of this assignment.`);
    return;
  }
  if (!nb || nb.nbformat !== 4 || !Array.isArray(nb.cells)) {
    setStatus(`${what}: it is not a Jupyter notebook in format 4. Choose the .ipynb file of this assignment.`);
    return;
  }
  const byId = editableByGradeId();
  // Only a cell of the right type (code for a solution, markdown for a written answer)
  // whose source is text: a markdown cell that carries a solution's grade_id, or a
  // source that is not a string (or list of strings), is not code to load.
  const fits = (c) => {
    const target = byId.get(c.metadata?.nbgrader?.grade_id);
    if (!target) return false;
    const type = target.kind === "answer" ? "markdown" : "code";
    const src = c.source;
    return c.cell_type === type && (typeof src === "string"
      || (Array.isArray(src) && src.every((line) => typeof line === "string")));
  };
  const found = nb.cells.filter(fits);
  const skipped = nb.cells.filter((c) => byId.has(c.metadata?.nbgrader?.grade_id) && !fits(c));
  const big = found.find((c) => joinText(c.source).length > MAX_CELL_CHARS);
  if (big) {
    setStatus(`${what}: its cell ${big.metadata.nbgrader.grade_id} has ${joinText(big.source).length.toLocaleString("en-US")} `
      + `characters, more than the ${MAX_CELL_CHARS.toLocaleString("en-US")} a cell of this page takes. `
      + "Is it the right notebook?");
    return;
  }
  if (!found.length) {
    setStatus(`${what}: it has none of the solution cells of ${page.data.assignment}. `
      + `Choose your ${page.data.notebook || "notebook"} of this assignment.`);
    return;
  }
  for (const c of found) byId.get(c.metadata.nbgrader.grade_id).editor.setValue(joinText(c.source));
  const saved = saveNow();
  const skip = skipped.length ? ` (${plural(skipped.length, "cell")} with a solution's name but the wrong type or `
    + `no text left out: ${skipped.map((c) => c.metadata.nbgrader.grade_id).join(", ")})` : "";
  setStatus(`Loaded ${plural(found.length, "cell")} from ${file.name}${skip}`
    + (saved ? "" : `, but they could not be saved in this browser (${page.saveError}): `
      + "they are lost when you leave or reload this page. Use Download notebook to keep them."));
}
