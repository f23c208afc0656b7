/* The book's reader features on the pages Quarto renders (added by `python -m bookbuild.quarto post-render`).

   - Quarto's dark mode (body.quarto-dark) becomes the html[data-theme] the figures and the reader read;
   - the reader's choice goes under Quarto's title block, where bookbuild's pages have it under the h1;
   - html.js (the explorer's live figure shows only with scripts), boxes that scroll sideways as tab stops,
     and Enter and Space on the headers of collapsible callouts, as on the book's own pages;
   - search works from file: pages, where the browser refuses Quarto's fetch of search.json: the same
     index is read from assets/quarto-search-data.js, which the post-render step writes beside it;
   - nothing here loads anything: every file is the book's own. Loaded in the head, before Quarto's
     search asks for its index. */
(function () {
  "use strict";
  var doc = document.documentElement;
  /* the interface strings, in the page's language (render/ui/<lang>.toml): the post-render step writes
     them on this script's tag, as bookbuild's renderer writes them on the body of its own pages */
  var me = document.currentScript;
  var EQUATION = me && me.getAttribute("data-equation");
  doc.classList.add("js");   /* as the book's own pages (book.js): CSS shows what only works with scripts */

  if (location.protocol === "file:" && window.fetch && window.Response) {
    var fetch0 = window.fetch.bind(window);
    window.fetch = function (input, init) {
      var url = typeof input === "string" ? input : (input && input.url) || "";
      if (/search\.json(\?|#|$)/.test(url) && window.MLSYSIM_QUARTO_SEARCH) {
        return Promise.resolve(new Response(JSON.stringify(window.MLSYSIM_QUARTO_SEARCH),
                                            { status: 200, headers: { "Content-Type": "application/json" } }));
      }
      return fetch0(input, init);
    };
  }

  function syncTheme() {
    var dark = document.body && document.body.classList.contains("quarto-dark");
    doc.setAttribute("data-theme", dark ? "dark" : "light");
  }

  function placeChoice() {
    var box = document.querySelector(".mlsysim-choice");
    var title = document.getElementById("title-block-header");
    if (box && title && title.parentNode && box.previousElementSibling !== title) {
      title.parentNode.insertBefore(box, title.nextSibling);
    }
  }

  /* a box that scrolls sideways (a table, an equation, code) is a tab stop while it scrolls, so a keyboard
     reader can scroll it too; the rest of the time it is not (as book.js does on the book's own pages) */
  var SCROLLERS = "#quarto-document-content table, #quarto-document-content math, " +
                  "#quarto-document-content .math.display, #quarto-document-content pre";
  function scrollBoxes() {
    Array.prototype.forEach.call(document.querySelectorAll(SCROLLERS), function (el) {
      var over = el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible";
      var mine = el.hasAttribute("data-scroll-box");
      if (over && !mine && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("data-scroll-box", "");
        if (el.tagName !== "TABLE" && el.tagName !== "PRE") {
          el.setAttribute("role", "group");
          if (EQUATION) el.setAttribute("aria-label", EQUATION);
        }
      } else if (!over && mine) {
        el.removeAttribute("tabindex");
        el.removeAttribute("data-scroll-box");
        if (el.getAttribute("role") === "group") { el.removeAttribute("role"); el.removeAttribute("aria-label"); }
      }
    });
  }

  /* Quarto's collapsible callouts: the post-render step made each header a button (role, tabindex);
     Enter and Space open and close it as a click does */
  function calloutKeys(e) {
    var h = e.target;
    if ((e.key === "Enter" || e.key === " ") && h.classList && h.classList.contains("callout-header") &&
        h.getAttribute("role") === "button") {
      e.preventDefault();
      h.click();
    }
  }

  document.addEventListener("keydown", calloutKeys);
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(scrollBoxes, 100); });
  window.addEventListener("load", scrollBoxes);
  document.addEventListener("mlsysim-choice-applied", scrollBoxes);

  /* the skip link stays a link within the page: served over http, Quarto's quarto-nav.js (its
     DOMContentLoaded handler, registered before this one) rewrites every link to ".../index.html#x" as
     ".../#x", another address, so on the book's first page the skip link would load the page again */
  function keepSkipLink() {
    var skip = document.querySelector("a.skip-link[data-original-href]");
    var hash = skip && skip.getAttribute("data-original-href").split("#")[1];
    if (hash) skip.setAttribute("href", "#" + hash);
  }

  document.addEventListener("DOMContentLoaded", function () {
    keepSkipLink();
    scrollBoxes();
    syncTheme();
    if (window.MutationObserver) {
      new MutationObserver(syncTheme).observe(document.body, { attributes: true, attributeFilter: ["class"] });
    }
    placeChoice();
  });
  window.addEventListener("load", placeChoice);
})();
