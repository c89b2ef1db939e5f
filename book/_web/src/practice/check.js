// Check my work: a fresh Python runs every code cell in order (as nbgrader does), then
// tokgrade.selfcheck scores the work in the worker against the assignment's self-check
// spec (selfcheck.json.gz), and report.js shows the result. checkMyWork() is the
// toolbar's button; a Stop during it ends it without a score (run.js's stop).
import { hideReport, showReport } from "./report.js";
import { clearCell } from "./outputs.js";
import { discardPython, onChain, runBatch } from "./run.js";
import { beginCheck, cellTimeout, endCheck, page, setStatus, staticURL } from "./state.js";
import { Stopped, ensureWorker, request } from "./worker.js";

export async function checkMyWork() {
  discardPython("restart", true);  // a fresh start: nothing to run again
  page.codeCells.forEach(clearCell);
  // The last report goes at once: a stopped or failed check must not leave an old score.
  hideReport();
  beginCheck();
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
