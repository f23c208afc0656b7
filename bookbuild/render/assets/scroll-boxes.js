/* A box that scrolls sideways (a table, a display equation, code) is a tab stop while it scrolls, so a
   keyboard reader can scroll it too; the rest of the time it is not. A scrolling equation is a named
   group: its number when it has one (.eq-number beside it), else the word for an equation.

   One script for both renderers' pages: its tag names what scrolls (data-scrollers, a CSS selector) and
   the word (data-equation, from render/ui/<lang>.toml): bookbuild's pages load it at the end of the body,
   the pages Quarto renders in the head (the post-render step writes the tag). */
(function () {
  "use strict";
  var me = document.currentScript;
  var SCROLLERS = me && me.getAttribute("data-scrollers");
  var EQUATION = me && me.getAttribute("data-equation");
  if (!SCROLLERS) return;

  function scrollBoxes() {
    Array.prototype.forEach.call(document.querySelectorAll(SCROLLERS), function (el) {
      var over = el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible";
      var mine = el.hasAttribute("data-scroll-box");
      if (over && !mine && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("data-scroll-box", "");
        if (el.tagName !== "TABLE" && el.tagName !== "PRE") {
          el.setAttribute("role", "group");
          var num = el.parentNode && el.parentNode.querySelector(".eq-number");
          var name = num ? num.textContent.trim() : EQUATION;
          if (name) el.setAttribute("aria-label", name);
        }
      } else if (!over && mine) {
        el.removeAttribute("tabindex");
        el.removeAttribute("data-scroll-box");
        if (el.getAttribute("role") === "group") { el.removeAttribute("role"); el.removeAttribute("aria-label"); }
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scrollBoxes);
  else scrollBoxes();
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(scrollBoxes, 100); });
  window.addEventListener("load", scrollBoxes);
  document.addEventListener("mlsysim-choice-applied", scrollBoxes);
})();
