// "Practice in the page": the UI of a book page generated from an nbgrader assignment.
// The reader edits the solution cells in CodeMirror editors (practice/editor.js) and
// runs them in Python: Pyodide in a Web Worker (practice-worker.js), started on the
// first Run only, so reading the page costs nothing. The page thread never runs Python,
// so a cell that never ends cannot freeze the tab: Stop (or the watchdog) terminates
// the worker, starts a fresh one and runs again the cells that had run before.
// The page contract (#tp-root, #tp-data, .tp-cell[data-index][data-kind]) is written
// by the book's Sphinx extension.
(() => {
  "use strict";

  const STORAGE_PREFIX = "tokref-practice:";
  const PYODIDE_MB = 12;  // dist/pyodide, uncompressed (MANIFEST.json has the exact bytes)
  const DEFAULT_TIMEOUT = 120;  // seconds a cell may run before the watchdog stops it
  const SAVE_DELAY = 300;  // ms of quiet typing before an edit is saved
  const SPARE_DELAY = 1500;  // ms after a Python is up before the next one starts booting
  // The largest cell Open notebook loads: a solution is a few kB; a cell of megabytes
  // (a wrong file, or a paste gone wrong) would freeze the page for seconds to minutes.
  const MAX_CELL_CHARS = 200000;
  const CODE_KINDS = new Set(["setup", "solution", "test", "code"]);
  const EDITABLE_KINDS = new Set(["solution", "answer"]);

  const root = document.documentElement;
  const staticURL = new URL(`${root.dataset.content_root || "./"}_static/`, document.baseURI).href;

  const page = {
    data: null,
    cells: [],  // every cell of tp-data that has a .tp-cell on the page, in notebook order
    codeCells: [],  // the runnable ones (setup, solution, test, code)
    status: null,
    buttons: {},
    report: null,
    saveTimer: 0,
  };

  // ---------------------------------------------------------------- small helpers

  function el(tag, props = {}, children = []) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of [].concat(children)) if (c) node.append(c);
    return node;
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) =>
      ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  // nbformat allows a multi-line string to be stored as a list of lines.
  function joinText(value) {
    return Array.isArray(value) ? value.join("") : String(value ?? "");
  }

  // Jupyter's way of writing a source: lines, each but the last keeping its "\n".
  function splitLines(text) {
    return text === "" ? [] : text.split(/(?<=\n)/);
  }

  function setStatus(text, link = null) {
    const s = page.status;
    s.textContent = text;
    if (link) s.append(" ", el("a", { href: link.href, text: link.text }));
  }

  function cellTimeout() {
    const fromRoot = Number(document.getElementById("tp-root")?.dataset.cellTimeout);
    const fromData = Number(page.data.cell_timeout);
    return fromRoot > 0 ? fromRoot : fromData > 0 ? fromData : DEFAULT_TIMEOUT;
  }

  // ---------------------------------------------------------------- ANSI colours

  // The SGR codes of IPython's tracebacks: 16 colours (30-37, 90-97 and the
  // backgrounds), bold, underline, resets. 256-colour and RGB codes are skipped (their
  // arguments too) and the text kept; every other escape sequence is dropped.
  function ansiToHtml(text) {
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

  // ---------------------------------------------------------------- outputs

  function outputBlock(cls, html) {
    const pre = el("pre", { class: `tp-out ${cls}` });
    pre.innerHTML = html;  // always escaped by the caller (escapeHtml / ansiToHtml)
    return pre;
  }

  function renderOutput(out) {
    const type = out.output_type;
    if (type === "stream") {
      return outputBlock(out.name === "stderr" ? "tp-stderr" : "tp-stdout", ansiToHtml(joinText(out.text)));
    }
    if (type === "execute_result" || type === "display_data") {
      const data = out.data || {};
      if (!("text/plain" in data)) return null;
      return outputBlock("tp-result", escapeHtml(joinText(data["text/plain"])));
    }
    if (type === "error") {
      const tb = out.traceback && out.traceback.length
        ? out.traceback.join("\n") : `${out.ename}: ${out.evalue}`;
      return outputBlock("tp-error", ansiToHtml(tb));
    }
    return null;
  }

  function showOutputs(cell, outputs) {
    const area = cell.output;
    area.replaceChildren(...outputs.map(renderOutput).filter(Boolean));
    area.hidden = !area.firstChild;
    fitOutput(area);
  }

  function appendNote(cell, text, cls = "tp-note") {
    cell.output.append(el("p", { class: cls, text }));
    cell.output.hidden = false;
    fitOutput(cell.output);
  }

  // A scrolling output must be reachable by keyboard to be scrolled.
  function fitOutput(area) {
    requestAnimationFrame(() => {
      if (area.scrollHeight > area.clientHeight + 1) area.setAttribute("tabindex", "0");
      else area.removeAttribute("tabindex");
    });
  }

  function setPrompt(cell, text) {
    if (cell.prompt) cell.prompt.textContent = `[${text}]:`;
  }

  // A test cell shows whether it passed: a class for the colour, an icon and a word.
  function markTest(cell, ok) {
    if (cell.kind !== "test") return;
    cell.el.classList.toggle("tp-pass", ok === true);
    cell.el.classList.toggle("tp-fail", ok === false);
    cell.badge.replaceChildren();
    if (ok === null) return;
    cell.badge.append(el("span", { "aria-hidden": "true", text: ok ? "✓" : "✗" }),
      ` ${ok ? "passed" : "failed"}`);
  }

  function clearCell(cell) {
    if (cell.output) { cell.output.replaceChildren(); cell.output.hidden = true; }
    setPrompt(cell, " ");
    markTest(cell, null);
  }

  // ---------------------------------------------------------------- the worker

  // One interpreter at a time. `generation` grows whenever it is ended: replies and
  // queued runs meant for an older interpreter are then dropped.
  const py = {
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

  class Stopped extends Error {}

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
  function killWorker(reason) {
    py.generation += 1;
    if (py.worker) py.worker.terminate();
    if (py.rejectReady) py.rejectReady(reason);
    py.worker = null;
    py.ready = null;
    py.rejectReady = null;
    for (const w of py.pending.values()) w.reject(reason);
    py.pending.clear();
  }

  async function ensureWorker() {
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

  function request(msg) {
    const worker = py.worker;
    if (!worker) return Promise.reject(new Stopped("no python"));
    return new Promise((resolve, reject) => {
      const id = py.nextId++;
      py.pending.set(id, { resolve, reject });
      worker.postMessage({ ...msg, id });
    });
  }

  // ---------------------------------------------------------------- running cells

  function cellCode(cell) {
    return cell.editor ? cell.editor.getValue() : cell.meta.source;
  }

  function cellName(cell) {
    return cell.gradeId || `cell ${cell.meta.index}`;
  }

  // Put a task on the kernel's queue; `busy` keeps Stop enabled until it is done.
  function onChain(task) {
    py.busy += 1;
    updateButtons();
    const done = py.chain.then(task).finally(() => { py.busy -= 1; updateButtons(); });
    py.chain = done.catch(() => {});
    return done;
  }

  // Queue a run; resolves to the result ({ok, outputs, ...}) or {stopped: why}.
  function enqueue(cell, total = null) {
    const generation = py.generation;
    setPrompt(cell, "*");
    return onChain(() => (generation === py.generation ? runNow(cell, total) : { stopped: "cancelled" }));
  }

  async function runNow(cell, total) {
    const k = page.codeCells.indexOf(cell) + 1;
    try {
      await ensureWorker();
    } catch (e) {
      setPrompt(cell, " ");
      if (!(e instanceof Stopped)) setStatus(e.message);
      return { stopped: e instanceof Stopped ? e.message : "no python", error: e.message };
    }
    if (py.restored !== py.generation && !(await restoreHistory(cell))) {
      setPrompt(cell, " ");
      return { stopped: "reader" };
    }
    setStatus(progressText(k, total));
    showOutputs(cell, []);  // as Jupyter: the old output goes when the cell starts again
    markTest(cell, null);
    const code = cellCode(cell);
    const timeout = cellTimeout();
    const timer = setTimeout(() => stop("timeout"), timeout * 1000);
    py.current = { cell, timeout };
    try {
      const result = await request({ type: "run", code, name: cellName(cell) });
      if (result.ok) py.history.set(cell, code); else py.history.delete(cell);
      showOutputs(cell, result.outputs || []);
      setPrompt(cell, result.execution_count ?? " ");
      markTest(cell, !!result.ok);
      return result;
    } catch (e) {
      if (e instanceof Stopped) return { stopped: e.message };
      showOutputs(cell, []);
      appendNote(cell, `The page could not run this cell: ${e.message}`, "tp-note tp-note-error");
      setPrompt(cell, " ");
      return { ok: false, outputs: [], error: e.message };
    } finally {
      clearTimeout(timer);
      if (py.current && py.current.cell === cell) py.current = null;
    }
  }

  // The status says how the cell ended (a screen reader hears it): a test passed or
  // failed, a cell raised, or just ran.
  async function runCell(cell) {
    const result = await enqueue(cell);
    if (!py.busy && !result.stopped && py.ready) {
      const name = cellName(cell);
      if (cell.kind === "test") setStatus(`${name}: ${result.ok ? "passed" : "failed (see its output)"}`);
      else setStatus(result.ok ? `Ran ${name}` : `${name} raised an error (see its output)`);
    }
    return result;
  }

  // Every code cell in order, whatever fails (as nbgrader runs them); only the reader's
  // Stop ends the batch. Returns the results, or null if stopped.
  async function runBatch() {
    const batch = py.batch;
    const cells = page.codeCells;
    cells.forEach((c) => setPrompt(c, "*"));
    const results = [];
    for (const cell of cells) {
      if (batch !== py.batch) return null;
      const result = await enqueue(cell);
      if (result.stopped === "reader" || batch !== py.batch) {
        cells.forEach((c) => { if (c.prompt.textContent === "[*]:") setPrompt(c, " "); });
        return null;
      }
      results.push(result);
    }
    return results;
  }

  async function runAll() {
    const results = await runBatch();
    if (!results || py.busy || !py.ready) return;
    const tests = page.codeCells.filter((c) => c.kind === "test");
    const passed = tests.filter((c) => results[page.codeCells.indexOf(c)].ok).length;
    setStatus(`Ran ${results.length} cells`
      + (tests.length ? `: ${passed} of ${tests.length} test cells passed` : ""));
  }

  // Stop: end the worker (the only way to interrupt Python that never returns), then
  // start a fresh one and run again, silently, what had run successfully: each cell once,
  // its latest code, in page order (restoreHistory). The reader's state is back, minus
  // the cell stopped. A Stop during that re-run stops it too; the history is kept, and
  // the next Run finishes the job before it runs its own cell.
  function stop(reason) {
    const current = py.current;
    if (reason !== "timeout") py.batch += 1;
    killWorker(new Stopped(reason === "timeout" ? "timeout" : "reader"));
    py.current = null;
    if (current) py.history.delete(current.cell);
    for (const c of page.codeCells) if (c.prompt.textContent === "[*]:") setPrompt(c, " ");
    if (current) {
      appendNote(current.cell, reason === "timeout"
        ? `Stopped after ${current.timeout} s` : "Stopped by the reader", "tp-note tp-note-error");
    }
    // A stopped Check my work gives no score, and says so.
    const what = page.checking ? "Check my work stopped (no score)" : "Stopped";
    if (page.checking) endCheck("stopped");
    if (!py.history.size) { setStatus(what); return; }
    setStatus(`${what}: starting a fresh Python…`);
    onChain(async () => {
      try {
        await ensureWorker();
        if (py.restored !== py.generation && await restoreHistory(null)) {
          setStatus(`${what}: a fresh Python was started and the ${plural(py.history.size, "cell")} `
            + "that had run were run again");
        }
      } catch (e) {
        if (!(e instanceof Stopped)) setStatus(e.message);
      }
    });
  }

  // Run again in this (fresh) interpreter what ran before; false if it was stopped (the
  // history stays for the next try). `before`: the cell about to run, not re-run itself.
  async function restoreHistory(before) {
    const generation = py.generation;
    const todo = page.codeCells.filter((c) => c !== before && py.history.has(c));
    let n = 0;
    for (const cell of todo) {
      if (generation !== py.generation) return false;
      n += 1;
      setStatus(`Running again the cells run before (${n} of ${todo.length})…`);
      // Too slow now: dropped from the history, or every fresh Python would time out again.
      const timer = setTimeout(() => { py.history.delete(cell); stop("timeout"); }, cellTimeout() * 1000);
      try {
        const result = await request({ type: "run", code: py.history.get(cell), name: cellName(cell) });
        setPrompt(cell, result.execution_count ?? " ");
        if (!result.ok) py.history.delete(cell);
      } catch (e) {
        if (e instanceof Stopped) return false;
        throw e;
      } finally {
        clearTimeout(timer);
      }
    }
    if (generation !== py.generation) return false;
    py.restored = generation;
    return true;
  }

  function plural(n, word) {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
  }

  // "Running cell 3 of 20", and during Check my work the part it is in.
  function progressText(k, total) {
    const run = `Running cell ${k} of ${total || page.codeCells.length}`;
    if (!page.checking) return run;
    const cell = page.codeCells[k - 1];
    const part = cell && cell.part ? `, ${cell.part}` : "";
    return `Check my work: ${run.toLowerCase()}${part}… (Stop ends the check)`;
  }

  // ---------------------------------------------------------------- check my work

  async function checkMyWork() {
    py.batch += 1;  // a Run all or Check under way goes no further
    killWorker(new Stopped("restart"));
    py.history.clear();
    py.restored = py.generation;  // a fresh start: nothing to run again
    page.codeCells.forEach(clearCell);
    // The last report goes at once: a stopped or failed check must not leave an old score.
    page.report.hidden = true;
    page.report.replaceChildren();
    page.checking = true;
    page.checkStarted = performance.now();
    setStatus("Check my work: starting a fresh Python…");
    // The spec downloads while the cells run.
    const specPromise = fetchSpec(page.data.selfcheck_url);
    specPromise.catch(() => {});
    const results = await runBatch();
    if (!results || results.some((r) => r.stopped === "no python")) {
      if (page.checking) { endCheck("stopped"); setStatus("Check my work stopped (no score)"); }
      return;
    }
    const visible = {};
    page.codeCells.forEach((cell, i) => {
      if (cell.kind !== "test" || !cell.gradeId) return;
      const r = results[i];
      const err = (r.outputs || []).find((o) => o.output_type === "error");
      const message = err ? `${err.ename}: ${err.evalue}` : r.stopped ? `Stopped after ${cellTimeout()} s` : r.error || "failed";
      visible[cell.gradeId] = r.ok ? { ok: true, message: null } : { ok: false, message };
    });
    try {
      setStatus("Check my work: scoring…");
      const spec = await specPromise;
      // On the kernel's queue: after any re-run that a timeout may have started.
      const { report } = await onChain(async () => {
        await ensureWorker();
        return request({ type: "selfcheck", spec, visible });
      });
      if (!page.checking) return;  // stopped meanwhile
      endCheck("done");
      showReport(report);
      setStatus(`Self-check done: ${report.description.score}.`,
        { href: "#tp-report", text: "Read the report" });
    } catch (e) {
      endCheck("failed");
      if (!(e instanceof Stopped)) setStatus(`The self-check failed: ${e.message}`);
    }
  }

  function endCheck(how) {
    if (!page.checking) return;
    page.checking = false;
    page.lastCheck = { how, seconds: (performance.now() - page.checkStarted) / 1000 };
  }

  async function fetchText(relative) {
    const url = `${staticURL}practice/${relative}`;
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`could not fetch ${relative} (HTTP ${response.status})`);
    return response.text();
  }

  // The self-check spec is served gzipped (selfcheck.json.gz) by a static server that
  // does not say so (no Content-Encoding): unpack it here when it starts with gzip's magic.
  async function fetchSpec(relative) {
    const response = await fetch(`${staticURL}practice/${relative}`, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`could not fetch ${relative} (HTTP ${response.status})`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return new TextDecoder().decode(bytes);
    if (typeof DecompressionStream === "undefined") {
      throw new Error("this browser cannot unpack the self-check (no DecompressionStream); "
        + "run `python check.py` in the assignment's folder instead");
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  // The report as tokgrade.selfcheck.describe_report words it (check.py prints the same
  // strings): the page adds only icons and classes from the ok flags.
  function reportPart(part) {
    const items = part.cells.map((c) => el("li", { class: c.ok ? "tp-pass" : "tp-fail" }, [
      el("span", { class: "tp-icon", "aria-hidden": "true", text: c.ok ? "✓" : "✗" }),
      el("strong", { text: c.label }), " ", c.text,
      ...(c.message === null ? [] : [" ", el("span", { class: "tp-report-message", text: c.message })]),
    ]));
    return el("section", { class: "tp-report-part" }, [
      el("h3", { text: `${part.heading}: ${part.points}` }),
      el("ul", {}, items),
    ]);
  }

  function showReport(report) {
    page.lastReport = report;  // the browser test compares it with check.py's
    const d = report.description;
    page.report.replaceChildren(
      el("h2", { id: "tp-report-title", text: d.title }),
      ...d.parts.map(reportPart),
      ...d.unscored.map((text) => el("p", { class: "tp-report-unscored", text })),
      el("p", { class: "tp-report-note", text: d.total }));
    page.report.hidden = false;
    page.report.focus();
  }

  // ---------------------------------------------------------------- saving edits

  function storageKey() {
    return STORAGE_PREFIX + page.data.assignment;
  }

  function loadSaved() {
    try {
      const saved = JSON.parse(localStorage.getItem(storageKey()) || "null");
      return saved && saved.version === 1 && saved.cells && typeof saved.cells === "object" ? saved.cells : {};
    } catch (e) {
      return {};
    }
  }

  // Only the cells that differ from the released source: an untouched cell then follows
  // a new edition of the book instead of pinning the old one.
  function saveNow() {  // true if saved (or nothing to save)
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

  function scheduleSave() {
    clearTimeout(page.saveTimer);
    page.saveTimer = setTimeout(saveNow, SAVE_DELAY);
  }

  // ---------------------------------------------------------------- download / open

  async function downloadNotebook() {
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

  async function openNotebook(file) {
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
    py.batch += 1;
    killWorker(new Stopped("reset"));
    py.history.clear();
    try { localStorage.removeItem(storageKey()); } catch (e) { /* nothing saved, nothing to clear */ }
    for (const c of page.cells) {
      if (c.editor) c.editor.setValue(c.meta.source);
      clearCell(c);
    }
    clearTimeout(page.saveTimer);
    page.report.hidden = true;
    page.report.replaceChildren();
    setStatus("Assignment reset to the released notebook. " + notStartedText());
  }

  // ---------------------------------------------------------------- building the page

  function notStartedText() {
    return `Python not started — it loads when you first press Run (about ${PYODIDE_MB} MB, once; `
      + "then from the browser's cache)";
  }

  function updateButtons() {
    if (page.buttons.stop) page.buttons.stop.disabled = !(py.busy || (py.ready && py.current));
  }

  function button(text, onclick, extra = {}) {
    return el("button", { type: "button", class: "tp-button", text, onclick, ...extra });
  }

  function buildToolbar(host) {
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

  function editorLabel(cell) {
    const what = cell.kind === "answer" ? "Written answer" : "Solution code";
    const keys = cell.kind === "answer" ? "" : " Shift+Enter runs it.";
    return `${what} ${cell.gradeId || cell.meta.index}, editable.${keys} Escape then Tab leaves the editor.`;
  }

  // The cell's bar: prompt, the page's label of the cell ("Your code · grade_id"), the
  // buttons and the test's verdict, on one line that wraps on a narrow screen.
  function buildCell(cell, saved) {
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
    if (EDITABLE_KINDS.has(cell.kind)) mountEditor(cell, saved);
    if (code) {
      cell.output = el("div", { class: "tp-output", role: "region",
        "aria-label": `Output of ${cellName(cell)}`, hidden: true });
      node.append(cell.output);
    }
    node.classList.add(`tp-kind-${cell.kind}`);
  }

  function mountEditor(cell, saved) {
    const old = cell.el.querySelector(":scope > div[class^='highlight'], :scope > pre");
    const host = el("div", { class: "tp-editor" });
    if (old) old.replaceWith(host); else cell.el.append(host);
    const doc = cell.gradeId && typeof saved[cell.gradeId] === "string" ? saved[cell.gradeId] : cell.meta.source;
    const options = {
      doc, language: cell.kind === "answer" ? "markdown" : "python", label: editorLabel(cell),
      onChange: scheduleSave,
      onRun: cell.kind === "answer" ? null : () => { runCell(cell); },
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

  function loadEditorBundle() {
    if (window.TokEditor) return Promise.resolve();
    return new Promise((resolve) => {
      const s = el("script", { src: `${staticURL}practice/editor.js` });
      s.onload = resolve;
      s.onerror = resolve;  // the textarea fallback takes over
      document.head.append(s);
    });
  }

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
    page.data = readData();
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
      page.cells.push(cell);
      if (CODE_KINDS.has(cell.kind)) page.codeCells.push(cell);
    }
    buildToolbar(host);
    page.cells.forEach((c) => buildCell(c, saved));
    // A reload or a closed tab within the save delay must not lose the last keystrokes.
    window.addEventListener("pagehide", () => { if (page.saveTimer) saveNow(); });
    window.TokPractice = { ansiToHtml, page, py, openNotebook };  // for the book's browser tests
  }

  // The page's readiness signal (a11y.js's TokA11y.settled waits for it): the cells built.
  const started = new Promise((resolve) => {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", resolve);
    else resolve();
  }).then(init);
  (window.TokPending = window.TokPending || []).push(started);
})();
