// The practice page's state: `page` (the cells and the page's own nodes) and `py` (the
// Python interpreter and the queue of runs), one object each, published as they are by
// window.TokPractice for the book's browser tests. Each field has one writer:
//   page.data, cells, codeCells   setData / addCell (here), from main.js
//   page.status, buttons, report  toolbar.js, when it builds the toolbar
//   page.checking, checkStarted,  beginCheck / endCheck (here)
//     lastCheck
//   page.saveTimer, saveError     storage.js
//   page.lastReport               report.js (showReport; the tests reset it)
//   py.worker … py.generation     worker.js (the interpreter)
//   py.chain … py.batch           run.js (the queue, the history, the batches)
// Also here: the page's status line, the URL of the static files, and the settings
// read from the page (cell timeout).
import { el } from "./util.js";

export const DEFAULT_TIMEOUT = 120;  // seconds a cell may run before the watchdog stops it
export const CODE_KINDS = new Set(["setup", "solution", "test", "code"]);
export const EDITABLE_KINDS = new Set(["solution", "answer"]);

const root = document.documentElement;
export const staticURL = new URL(`${root.dataset.content_root || "./"}_static/`, document.baseURI).href;

export const page = {
  data: null,
  cells: [],  // every cell of tp-data that has a .tp-cell on the page, in notebook order
  codeCells: [],  // the runnable ones (setup, solution, test, code)
  status: null,
  buttons: {},
  report: null,
  saveTimer: 0,
};

// One interpreter at a time. `generation` grows whenever it is ended: replies and
// queued runs meant for an older interpreter are then dropped.
export const py = {
  worker: null,
  spare: null,  // a fresh Python booting or booted, for the next Check or Stop (bootWorker)
  ready: null,  // Promise of the running worker's "ready" message
  rejectReady: null,
  pending: new Map(),  // request id -> {resolve, reject}
  nextId: 1,
  generation: 0,
  chain: Promise.resolve(),  // runs happen one after another, as in a kernel
  current: null,  // {cell, timeout} of the cell running now
  // cell -> the code it last ran without error, whatever interpreter ran it: what a
  // fresh Python runs again after Stop (each cell once, its latest code, in page order).
  // It outlives the interpreter, so a Stop during that re-run loses nothing.
  history: new Map(),
  restored: 0,  // generation whose interpreter has had the history run in it
  busy: 0,  // runs queued or running
  batch: 0,  // grows when the reader stops: a Run all or a Check then goes no further
};

// The page's data (tp-data), then its cells one by one, in notebook order.
export function setData(data) {
  page.data = data;
}

export function addCell(cell) {
  page.cells.push(cell);
  if (CODE_KINDS.has(cell.kind)) page.codeCells.push(cell);
}

export function beginCheck() {
  page.checking = true;
  page.checkStarted = performance.now();
}

export function endCheck(how) {
  if (!page.checking) return;
  page.checking = false;
  page.lastCheck = { how, seconds: (performance.now() - page.checkStarted) / 1000 };
}

export function setStatus(text, link = null) {
  const s = page.status;
  s.textContent = text;
  if (link) s.append(" ", el("a", { href: link.href, text: link.text }));
}

export function cellTimeout() {
  const fromRoot = Number(document.getElementById("tp-root")?.dataset.cellTimeout);
  const fromData = Number(page.data.cell_timeout);
  return fromRoot > 0 ? fromRoot : fromData > 0 ? fromData : DEFAULT_TIMEOUT;
}

export function cellName(cell) {
  return cell.gradeId || `cell ${cell.meta.index}`;
}
