// The Python of a practice page: Pyodide in a classic Web Worker, so that a cell that
// never ends blocks this thread only, and the page can end it with worker.terminate().
// practice.js is the only caller. Messages in and out:
//   {type:"init", staticURL, assignment, files, runtime} -> {type:"ready", seconds} | {type:"fatal", message}
//   {type:"run", id, code, name}       -> {type:"result", id, ok, execution_count, outputs, seconds}
//   {type:"selfcheck", id, spec, visible} -> {type:"report", id, report}  (report.description: its words)
//   any JS exception                   -> {type:"error", id, message}
// Every request goes to the site's own _static/ folder; Pyodide loads no packages.
"use strict";

const HOME = "/home/pyodide";
const LIB = HOME + "/lib";

let pyodide = null;
const TIME_ALLOWANCE = 2;
let kernel = null;  // PyProxy of tokgrade.selfcheck.Kernel

// Messages are handled one at a time, in order: init is asynchronous (it fetches), and
// a run sent meanwhile must wait for the kernel rather than find none.
let queue = Promise.resolve();
self.onmessage = (event) => {
  const msg = event.data || {};
  queue = queue.then(() => handle(msg));
};

async function handle(msg) {
  try {
    if (msg.type === "init") await init(msg);
    else if (msg.type === "run") run(msg);
    else if (msg.type === "selfcheck") selfcheck(msg);
    else throw new Error(`unknown message type ${JSON.stringify(msg.type)}`);
  } catch (e) {
    const message = errorText(e);
    if (msg.type === "init") self.postMessage({ type: "fatal", message });
    else self.postMessage({ type: "error", id: msg.id, message });
  }
}

function errorText(e) {
  return (e && (e.message || e.toString())) || String(e);
}

// Only relative paths inside the target folder: the lists come from the page, but a
// stray "../" must not write elsewhere in the file system.
function checkRelative(path) {
  if (typeof path !== "string" || !path || path.startsWith("/") || path.split("/").includes("..")) {
    throw new Error(`bad file name ${JSON.stringify(path)}`);
  }
  return path;
}

async function fetchBytes(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`could not fetch ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

function writeFile(path, bytes) {
  const dir = path.slice(0, path.lastIndexOf("/"));
  if (dir) pyodide.FS.mkdirTree(dir);
  pyodide.FS.writeFile(path, bytes);
}

async function init(msg) {
  const started = performance.now();
  const staticURL = msg.staticURL;
  const workdir = `${HOME}/${checkRelative(msg.assignment)}`;
  importScripts(staticURL + "pyodide/pyodide.js");
  // Start the runtime and data downloads while the interpreter boots.
  const runtime = (msg.runtime || []).map((p) =>
    [`${LIB}/${checkRelative(p)}`, fetchBytes(`${staticURL}practice/py/${p}`)]);
  const files = (msg.files || []).map((f) =>
    [`${workdir}/${checkRelative(f)}`, fetchBytes(`${staticURL}practice/${msg.assignment}/${f}`)]);
  // Swallow early rejections here; they are rethrown by the awaits below.
  for (const [, p] of [...runtime, ...files]) p.catch(() => {});
  pyodide = await self.loadPyodide({ indexURL: staticURL + "pyodide/", packages: [] });
  for (const [path, bytes] of [...runtime, ...files]) writeFile(path, await bytes);
  pyodide.FS.mkdirTree(workdir);
  const ns = pyodide.toPy({ LIB, WORKDIR: workdir });
  try {
    pyodide.runPython([
      "import os, sys",
      "sys.path.insert(0, LIB)",
      "os.chdir(WORKDIR)",
      "from tokgrade.selfcheck import Kernel",
      "kernel = Kernel()",
    ].join("\n"), { globals: ns });
    kernel = ns.get("kernel");
  } finally {
    ns.destroy();
  }
  self.postMessage({ type: "ready", seconds: (performance.now() - started) / 1000 });
}

function requireKernel() {
  if (!kernel) throw new Error("Python is not ready (no init message, or it failed)");
  return kernel;
}

function run(msg) {
  const text = requireKernel().run_cell_json(String(msg.code), String(msg.name || "cell"));
  self.postMessage({ type: "result", id: msg.id, ...JSON.parse(text) });
}

function selfcheck(msg) {
  const visible = typeof msg.visible === "string" ? msg.visible : JSON.stringify(msg.visible || {});
  // Time limits (two hidden tests have one) get twice the floor the grader gives: Python in
  // WebAssembly on a reader's machine may be slower than the CPython the limits were set on.
  const text = requireKernel().self_check_json(String(msg.spec), visible, TIME_ALLOWANCE);
  self.postMessage({ type: "report", id: msg.id, report: JSON.parse(text) });
}
