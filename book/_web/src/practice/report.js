// The self-check report: showReport(report) fills the #tp-report panel (built by
// toolbar.js) with the report tokgrade.selfcheck made in the worker, shows it, focuses it,
// and keeps it as page.lastReport (the browser test compares it with check.py's).
// Every word and number comes from report.description (tokgrade.selfcheck.describe_report,
// which check.py prints too): the page adds only icons and classes from the ok flags.
import { page } from "./state.js";
import { el } from "./util.js";

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

export function showReport(report) {
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

// The panel emptied and hidden (a new check, a reset): no old score stays on the page.
export function hideReport() {
  page.report.hidden = true;
  page.report.replaceChildren();
}
