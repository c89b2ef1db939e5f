// A cell's output area, prompt and test verdict: what a run shows. Each function takes
// the cell ({el, kind, output, prompt, badge}, built by toolbar.js) and changes only
// that cell's nodes; no state of its own.
import { ansiToHtml } from "./ansi.js";
import { el, escapeHtml, joinText } from "./util.js";

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

export function showOutputs(cell, outputs) {
  const area = cell.output;
  area.replaceChildren(...outputs.map(renderOutput).filter(Boolean));
  area.hidden = !area.firstChild;
  fitOutput(area);
}

export function appendNote(cell, text, cls = "tp-note") {
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

export function setPrompt(cell, text) {
  if (cell.prompt) cell.prompt.textContent = `[${text}]:`;
}

// A test cell shows whether it passed: a class for the colour, an icon and a word.
export function markTest(cell, ok) {
  if (cell.kind !== "test") return;
  cell.el.classList.toggle("tp-pass", ok === true);
  cell.el.classList.toggle("tp-fail", ok === false);
  cell.badge.replaceChildren();
  if (ok === null) return;
  cell.badge.append(el("span", { "aria-hidden": "true", text: ok ? "✓" : "✗" }),
    ` ${ok ? "passed" : "failed"}`);
}

export function clearCell(cell) {
  if (cell.output) { cell.output.replaceChildren(); cell.output.hidden = true; }
  setPrompt(cell, " ");
  markTest(cell, null);
}
