// The self-check report: showReport(report) fills the #tp-report panel (built by
// toolbar.js) with the report tokref.selfcheck made in the worker, shows it, focuses it,
// and keeps it as page.lastReport (the browser test compares it with check.py's).
// fmt and points word the numbers, for the status line too.
import { page } from "./state.js";
import { el } from "./util.js";

const SELF_CHECK_NOTE = "This is a self-check on cases of its own; your instructor grades "
  + "in a sandbox with other seeds.";

export function points(n) {
  return `${fmt(n)} point${n === 1 ? "" : "s"}`;
}

export function fmt(n) {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}

// One cell of the report: passed, or the first failure (the visible test's first).
function reportVerdict(c) {
  if (c.visible && c.visible.ok === false) return { ok: false, text: c.visible.message || "failed" };
  if (c.breadth && c.breadth.ok === false) return { ok: false, text: c.breadth.message || "failed" };
  const n = c.breadth && c.breadth.cases;
  const cases = n ? ` (${n} case${n === 1 ? "" : "s"})` : "";
  return { ok: true, text: `passed${cases}` };
}

function reportPart(part) {
  const items = (part.cells || []).map((c) => {
    const v = reportVerdict(c);
    return el("li", { class: v.ok ? "tp-pass" : "tp-fail" }, [
      el("span", { class: "tp-icon", "aria-hidden": "true", text: v.ok ? "✓" : "✗" }),
      el("strong", { text: `${c.label || c.grade_id}: ` }),
      v.ok ? v.text : el("span", { class: "tp-sr", text: "failed: " }),
      v.ok ? null : el("span", { class: "tp-report-message", text: v.text }),
      el("span", { class: "tp-report-points", text: ` (${fmt(c.points)} of ${points(c.max_points)})` }),
    ]);
  });
  return el("section", { class: "tp-report-part" }, [
    el("h3", { text: `${part.title || part.part} — ${fmt(part.points)} of ${points(part.max_points)}` }),
    el("ul", {}, items),
  ]);
}

export function showReport(report) {
  page.lastReport = report;  // the browser test compares it with check.py's
  const panel = page.report;
  const unscored = report.unscored || [];
  // No null among the children: replaceChildren would write it out as the text "null".
  panel.replaceChildren(...[
    el("h2", { id: "tp-report-title", text: `Self-check: ${fmt(report.total)} of ${points(report.max_total)}` }),
    el("p", { class: "tp-report-note", text: SELF_CHECK_NOTE }),
    ...(report.parts || []).map(reportPart),
    unscored.length ? el("p", { class: "tp-report-unscored",
      text: "Not scored here (your instructor reads them): "
        + unscored.map((u) => `${u.title || u.grade_id} (${points(u.points)})`).join("; ") }) : null,
  ].filter(Boolean));
  panel.hidden = false;
  panel.focus();
}

// The panel emptied and hidden (a new check, a reset): no old score stays on the page.
export function hideReport() {
  page.report.hidden = true;
  page.report.replaceChildren();
}
