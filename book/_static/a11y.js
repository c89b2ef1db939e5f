// WCAG 2.1 AA fixes that need the page's layout (book/_ext/a11y.py adds this file).
// A box that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1, axe
// scrollable-region-focusable): code blocks, outputs and tables that are wider than the
// column (which depends on the window) get a Tab stop and a name, others lose theirs.
(() => {
  "use strict";
  const SELECTOR = ".bd-article pre, .bd-article .output, .bd-article .pst-scrollable-table-container, "
    + ".bd-article .table-wrapper, .bd-article div.cell_output, .bd-article .tokx-seg";
  function fit() {
    for (const el of document.querySelectorAll(SELECTOR)) {
      const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
      if (scrolls && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.dataset.a11yTab = "";
        if (!el.hasAttribute("aria-label") && !el.getAttribute("role")) {
          el.setAttribute("role", "region");
          el.setAttribute("aria-label", el.matches("pre") ? "code, scrolls" : "scrolling content");
        }
      } else if (!scrolls && "a11yTab" in el.dataset) {
        el.removeAttribute("tabindex");
        delete el.dataset.a11yTab;
        if (el.getAttribute("role") === "region") { el.removeAttribute("role"); el.removeAttribute("aria-label"); }
      }
    }
  }
  let pending = 0;
  const later = () => { cancelAnimationFrame(pending); pending = requestAnimationFrame(fit); };
  window.addEventListener("load", later);
  window.addEventListener("resize", later);
  document.addEventListener("toggle", later, true);  // a folded cell opened
  window.TokA11y = { fit };
})();
