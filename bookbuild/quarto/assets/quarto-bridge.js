/* The book's reader features on the pages Quarto renders (added by `python -m bookbuild.quarto post-render`).

   - Quarto's dark mode (body.quarto-dark) becomes the html[data-theme] the figures and the reader read;
   - the reader's choice goes under Quarto's title block, where bookbuild's pages have it under the h1;
   - html.js (the explorer's live figure shows only with scripts) and Enter and Space on the headers of
     collapsible callouts, as on the book's own pages (boxes that scroll sideways: the renderer's own
     assets/scroll-boxes.js, whose tag the post-render step writes beside this one's);
   - search works from file: pages, where the browser refuses Quarto's fetch of search.json: the same
     index is read from assets/quarto-search-data.js, which the post-render step writes beside it;
   - the language switch in Quarto's top bar at a phone's or tablet's width, where a floating one would cover
     the bar's search button and, scrolled, the text;
   - nothing here loads anything: every file is the book's own. Loaded in the head, before Quarto's
     search asks for its index. */
(function () {
  "use strict";
  var doc = document.documentElement;
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
    /* Quarto's search (quarto-search.js, a classic script: its top-level var is the page's) alerts on
       file: before its first fetch, in English, and answers that keystroke with nothing; the index is here,
       so that warning is already given: the first keystroke fetches it (above) */
    document.addEventListener("DOMContentLoaded", function () {
      if (window.MLSYSIM_QUARTO_SEARCH && "shownWarning" in window) window.shownWarning = true;
    });
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

  /* the skip link stays a link within the page: served over http, Quarto's quarto-nav.js (its
     DOMContentLoaded handler, registered before this one) rewrites every link to ".../index.html#x" as
     ".../#x", another address, so on the book's first page the skip link would load the page again */
  function keepSkipLink() {
    var skip = document.querySelector("a.skip-link[data-original-href]");
    var hash = skip && skip.getAttribute("data-original-href").split("#")[1];
    if (hash) skip.setAttribute("href", "#" + hash);
  }

  /* the language switch: below Bootstrap's lg width, where Quarto shows its top bar (and hides it while the
     reader scrolls down), the switch sits in that bar before the search button and comes and goes with it,
     never over the text or the search button; wider, it floats at the top right, above the page's contents */
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 991.98px)") : null;
  var home = null;
  function placeLanguages() {
    var langs = document.querySelector(".mlsysim-langs");
    var bar = document.querySelector(".quarto-secondary-nav .container-fluid");
    if (!langs || !bar) return;
    if (!home) home = { parent: langs.parentNode, next: langs.nextSibling };   /* its place, and tab order */
    if (narrow && narrow.matches) {
      if (langs.parentNode !== bar) bar.insertBefore(langs, bar.querySelector(".quarto-search-button"));
      langs.classList.add("in-bar");
    } else if (langs.parentNode === bar) {
      home.parent.insertBefore(langs, home.next && home.next.parentNode === home.parent ? home.next : null);
      langs.classList.remove("in-bar");
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    placeLanguages();
    if (narrow && narrow.addEventListener) narrow.addEventListener("change", placeLanguages);
    keepSkipLink();
    syncTheme();
    if (window.MutationObserver) {
      new MutationObserver(syncTheme).observe(document.body, { attributes: true, attributeFilter: ["class"] });
    }
    placeChoice();
  });
  window.addEventListener("load", placeChoice);
})();
