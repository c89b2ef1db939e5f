// WCAG 2.1 AA fixes that need the page's layout (book/_ext/a11y.py adds this file).
// A box that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1, axe
// scrollable-region-focusable). The static page makes every code block and table a Tab
// stop (a11y.py); here, at the window's width, a box that scrolls keeps (or gets) its
// stop and one that does not loses it, so the keyboard is not taxed by boxes that fit.
// The theme does the same for code blocks, but 300 ms after a resize; this runs at once.
(() => {
  "use strict";
  const SELECTOR = ".bd-article pre, .bd-article .cell_output > .output, "
    + ".bd-article .pst-scrollable-table-container, .bd-article .tokx-seg, .bd-article .tp-output, "
    + ".bd-article mjx-container";  // a wide formula scrolls; MathJax keeps formulas out of the Tab order
  function fit() {
    for (const el of document.querySelectorAll(SELECTOR)) {
      if (el.hidden) continue;
      // As axe and the theme judge it: any overflow at all.
      const scrolls = el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight;
      const tab = el.getAttribute("tabindex");
      if (scrolls && tab !== "0") {
        el.setAttribute("tabindex", "0");
        el.dataset.a11yTab = "";
      } else if (!scrolls && tab === "0" && "a11yTab" in el.dataset) {
        el.removeAttribute("tabindex");
      }
    }
  }
  let pending = 0;
  const later = () => { cancelAnimationFrame(pending); pending = requestAnimationFrame(fit); };
  const start = () => {
    later();
    // Formulas are typeset after the page loads: fit again once MathJax is done.
    const mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    if (mj) mj.then(later, () => {});
  };
  if (document.readyState === "complete") start(); else window.addEventListener("load", start);
  window.addEventListener("resize", later);
  document.addEventListener("toggle", later, true);  // a folded cell opened
  window.TokA11y = { fit };
})();
