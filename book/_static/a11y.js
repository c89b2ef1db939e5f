// WCAG 2.1 AA fixes that need the page's layout (book/_ext/a11y.py adds this file).
// A box that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1, axe
// scrollable-region-focusable). The static page makes every code block and table a Tab
// stop (a11y.py); here, at the window's width, a box that scrolls keeps (or gets) its
// stop and one that does not loses it, so the keyboard is not taxed by boxes that fit.
//
// Fitting runs whenever anything could change whether a box scrolls, never at moments
// picked in advance: a box's size (ResizeObserver, on every box including ones added
// later), the article's content, the theme, fonts, MathJax, a CSS transition ending, a
// folded cell opened. A box can overflow later than the load on a slow machine or phone.
// TokA11y.settled() is the page's readiness signal: it resolves once the page's own
// scripts are done (window.TokPending), nothing has asked for a fit for a few frames and
// no finite animation or transition runs — then the Tab stops match the layout.
(() => {
  "use strict";
  const SELECTOR = ".bd-article pre, .bd-article .cell_output > .output, "
    + ".bd-article .pst-scrollable-table-container, .bd-article .tokx-seg, .bd-article .tp-output, "
    + ".bd-article mjx-container";  // a wide formula scrolls; MathJax keeps formulas out of the Tab order
  const sizes = window.ResizeObserver ? new ResizeObserver(() => later()) : null;
  let changes = 0;  // how many times a fit was asked for: settled() waits for it to stop moving

  function fit() {
    for (const el of document.querySelectorAll(SELECTOR)) {
      if (sizes) sizes.observe(el);  // observing a box twice is a no-op; new boxes join here
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
  function later() {
    changes += 1;
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => { pending = 0; fit(); });
  }

  // A finite animation or transition still running (the theme's sidebar, colours): the
  // layout is not final. A spinner that turns forever is not waited for.
  function animating() {
    if (!document.getAnimations) return false;
    return document.getAnimations().some((a) => a.playState === "running"
      && a.effect && a.effect.getTiming().iterations !== Infinity);
  }
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));

  async function settled({ quietFrames = 3, maxFrames = 1200 } = {}) {
    if (document.readyState !== "complete") await new Promise((r) => window.addEventListener("load", r, { once: true }));
    if (document.fonts) await document.fonts.ready.catch(() => {});
    const mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    if (mj) await mj.catch(() => {});
    await Promise.allSettled(window.TokPending || []);
    let quiet = 0, seen = -1, frames = 0;
    while (quiet < quietFrames && frames < maxFrames) {
      await frame();
      frames += 1;
      const still = changes === seen && !pending && !animating();
      quiet = still ? quiet + 1 : 0;
      seen = changes;
    }
    fit();
    return { settled: quiet >= quietFrames, frames };
  }

  const start = () => {
    later();
    const mj = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    if (mj) mj.then(later, () => {});
  };
  if (document.readyState === "complete") start(); else window.addEventListener("load", start);
  window.addEventListener("resize", later);
  document.addEventListener("toggle", later, true);  // a folded cell opened
  document.addEventListener("transitionend", later, true);
  document.addEventListener("animationend", later, true);
  if (document.fonts) {
    document.fonts.addEventListener("loadingdone", later);
    document.fonts.ready.then(later, () => {});
  }
  // fit changes only tabindex and data-a11y-tab attributes, which no observer here
  // watches, so it cannot wake itself.
  new MutationObserver(later).observe(document.documentElement,
    { attributes: true, attributeFilter: ["data-theme", "data-mode", "class", "style"] });
  const watch = () => {
    const article = document.querySelector(".bd-article");
    if (!article) return;
    new MutationObserver(later).observe(article, { childList: true, subtree: true, characterData: true });
    if (sizes) sizes.observe(article);
    fit();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch); else watch();
  window.TokA11y = { fit, settled };
})();
