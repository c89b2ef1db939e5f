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
  // A box can start to scroll later than any of those moments: a web font, MathJax or an
  // editor that settles after the load (a slow machine, a slow phone), or a theme switched
  // after it. Fit again whenever fonts load, the theme changes, a box's size changes or the
  // article's content does (fit itself changes only tabindex attributes, which no observer
  // here watches, so it cannot wake itself).
  if (document.fonts) {
    document.fonts.addEventListener("loadingdone", later);
    document.fonts.ready.then(later, () => {});
  }
  new MutationObserver(later).observe(document.documentElement,
    { attributes: true, attributeFilter: ["data-theme", "data-mode", "class", "style"] });
  const watch = () => {
    const article = document.querySelector(".bd-article");
    if (!article) return;
    new MutationObserver(later).observe(article, { childList: true, subtree: true, characterData: true });
    if (window.ResizeObserver) {
      const sizes = new ResizeObserver(later);
      for (const el of article.querySelectorAll(SELECTOR)) sizes.observe(el);
    }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch); else watch();
  window.TokA11y = { fit };
})();
