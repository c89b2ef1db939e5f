// The Pyodide worker client: one Python (practice-worker.js, a classic Web Worker) at a
// time, plus a spare booting in the background for the next Check my work or Stop.
//   ensureWorker()  the running Python's "ready" message, starting one if none runs
//   request(msg)    send a run/selfcheck message; resolves to the worker's reply
//   killWorker(why) end the Python: every waiter is rejected with `why`
//   Stopped         the error of a run ended on purpose (Stop, timeout, reset)
// Writes py.worker, spare, ready, rejectReady, pending, nextId and generation only.
import { page, py, setStatus, staticURL } from "./state.js";

const SPARE_DELAY = 1500;  // ms after a Python is up before the next one starts booting

export class Stopped extends Error {}

// A Python that has booted (Pyodide, the runtime files, the data) and run nothing yet.
// Check my work and Stop each need a fresh one; booting takes seconds, so one is kept
// ready, booted while the reader reads or types, and taken when needed.
function bootWorker() {
  const worker = new Worker(`${staticURL}practice-worker.js`);
  const spare = { worker, msg: null, error: null, listeners: [] };
  const settle = () => { for (const f of spare.listeners.splice(0)) f(); };
  worker.onmessage = (e) => {
    if (e.data && e.data.type === "ready") spare.msg = e.data;
    else if (e.data && e.data.type === "fatal") spare.error = e.data.message;
    settle();
  };
  worker.onerror = (e) => { e.preventDefault(); spare.error = e.message || "the worker script failed to load"; settle(); };
  worker.postMessage({
    type: "init", staticURL, assignment: page.data.assignment,
    files: page.data.files || [], runtime: page.data.runtime || [],
  });
  return spare;
}

function startWorker() {
  const spare = py.spare && !py.spare.error ? py.spare : bootWorker();
  if (py.spare && py.spare !== spare) py.spare.worker.terminate();
  py.spare = null;
  const worker = spare.worker;
  py.worker = worker;
  py.ready = new Promise((resolve, reject) => {
    py.rejectReady = reject;
    const adopt = () => {
      worker.onmessage = (e) => onWorkerMessage(e.data, resolve);
      worker.onerror = (e) => {
        e.preventDefault();
        fatal(e.message || "the worker script failed to load");
      };
      if (spare.error) fatal(spare.error);
      else if (spare.msg) resolve(spare.msg);
    };
    if (spare.msg || spare.error) adopt();
    else spare.listeners.push(adopt);
  });
  py.ready.catch(() => {});  // each caller handles it; no unhandled-rejection noise
  // The next fresh Python boots once this one is up and the page is idle.
  py.ready.then(() => setTimeout(() => {
    if (!py.spare && py.worker === worker) py.spare = bootWorker();
  }, SPARE_DELAY), () => {});
}

function onWorkerMessage(msg, resolveReady) {
  if (msg.type === "ready") { resolveReady(msg); return; }
  if (msg.type === "fatal") { fatal(msg.message); return; }
  const waiter = py.pending.get(msg.id);
  if (!waiter) return;
  py.pending.delete(msg.id);
  if (msg.type === "error") waiter.reject(new Error(msg.message));
  else waiter.resolve(msg);
}

function fatal(message) {
  killWorker(new Error(`Python could not start (${message}). Reload the page to try again`));
}

// End the interpreter: whoever waits for it gets `reason`.
export function killWorker(reason) {
  py.generation += 1;
  if (py.worker) py.worker.terminate();
  if (py.rejectReady) py.rejectReady(reason);
  py.worker = null;
  py.ready = null;
  py.rejectReady = null;
  for (const w of py.pending.values()) w.reject(reason);
  py.pending.clear();
}

export async function ensureWorker() {
  if (location.protocol === "file:") {
    throw new Error("Python in the page needs the book served over http(s), e.g. by "
      + "`python -m http.server` in the built site: a page opened as a file cannot start it");
  }
  if (!py.ready) {
    setStatus("Starting Python…");
    startWorker();
    const { seconds } = await py.ready;
    setStatus(`Ready (Python started in ${seconds.toFixed(1)} s)`);
  }
  return py.ready;
}

export function request(msg) {
  const worker = py.worker;
  if (!worker) return Promise.reject(new Stopped("no python"));
  return new Promise((resolve, reject) => {
    const id = py.nextId++;
    py.pending.set(id, { resolve, reject });
    worker.postMessage({ ...msg, id });
  });
}
