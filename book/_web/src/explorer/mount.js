// Mounting, and the namespace's public face: publish() sets window.TokX (index.js calls
// it once per page: a page with several explorers runs the bundle once per explorer,
// and the first TokX stays).
import { tokx, h, visHTML, encode } from "./core.js";

export function publish() {
  const MOUNTS = { merge: tokx.mountMerge, compare: tokx.mountCompare, tradeoff: tokx.mountTradeoff };
  function mount(id) {
    const root = typeof id === "string" ? document.getElementById(id) : id;
    if (!root || root.tokx) return root && root.tokx;
    const data = JSON.parse(document.getElementById(root.id + "-data").textContent);
    try {
      root.tokx = MOUNTS[data.kind](root, data);
      root.classList.add("tokx-live");
    } catch (e) {
      root.append(h("div", { class: "tokx-note" }, "This explorer could not start: " + e));
      throw e;
    }
    return root.tokx;
  }

  window.TokX = {
    mount, encode, compileRegex: tokx.compileRegex, findall: tokx.findall, renderView: tokx.renderView,
    bpePiece: tokx.bpePiece, version: 1,
    // The renderers, pure functions of the state to HTML (tokref.explorer.render & co.'s twins).
    html: { vis: visHTML, pill: tokx.pillHTML, view: tokx.viewHTML, card: tokx.cardHTML,
            mergeInfo: tokx.mergeInfo, mergeStats: tokx.mergeStats, pairRows: tokx.pairRows },
  };
}
