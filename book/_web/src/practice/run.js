// Running cells, as a kernel does: one queue (py.chain), the cells run in order, the
// history of what ran (for a fresh Python after Stop), batches (Run all, Check my work)
// that the reader's Stop ends.
//   runCell(cell), runAll(), runBatch(), stop(reason), onChain(task)
//   discardPython(reason, fresh)  end the Python and forget what ran (Check, Reset)
//   updateButtons()               Stop is enabled while anything is queued or running
// Writes py.chain, current, history, restored, busy and batch only.
import { appendNote, markTest, setPrompt, showOutputs } from "./outputs.js";
import { cellName, cellTimeout, endCheck, page, py, setStatus } from "./state.js";
import { plural } from "./util.js";
import { Stopped, ensureWorker, killWorker, request } from "./worker.js";

function cellCode(cell) {
  return cell.editor ? cell.editor.getValue() : cell.meta.source;
}

export function updateButtons() {
  if (page.buttons.stop) page.buttons.stop.disabled = !(py.busy || (py.ready && py.current));
}

// Put a task on the kernel's queue; `busy` keeps Stop enabled until it is done.
export function onChain(task) {
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
export async function runCell(cell) {
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
export async function runBatch() {
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

export async function runAll() {
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
export function stop(reason) {
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

// End the Python and forget what ran (Check my work, Reset assignment): a Run all or
// Check under way goes no further. `fresh`: the next Python has nothing to run again.
export function discardPython(reason, fresh = false) {
  py.batch += 1;
  killWorker(new Stopped(reason));
  py.history.clear();
  if (fresh) py.restored = py.generation;
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

// "Running cell 3 of 20", and during Check my work the part it is in.
function progressText(k, total) {
  const run = `Running cell ${k} of ${total || page.codeCells.length}`;
  if (!page.checking) return run;
  const cell = page.codeCells[k - 1];
  const part = cell && cell.part ? `, ${cell.part}` : "";
  return `Check my work: ${run.toLowerCase()}${part}… (Stop ends the check)`;
}
