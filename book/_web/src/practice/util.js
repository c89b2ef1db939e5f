// Small pure helpers of the practice page: building DOM nodes, escaping, nbformat text,
// and the wording of counts and numbers. No state; nothing here touches the page.

export function el(tag, props = {}, children = []) {
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

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// nbformat allows a multi-line string to be stored as a list of lines.
export function joinText(value) {
  return Array.isArray(value) ? value.join("") : String(value ?? "");
}

// Jupyter's way of writing a source: lines, each but the last keeping its "\n".
export function splitLines(text) {
  return text === "" ? [] : text.split(/(?<=\n)/);
}

export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
