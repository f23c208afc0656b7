/* Book page behaviour: theme toggle, mobile sidebar, on-this-page highlight, full-text search.
   Works from file:// with no server: the search index is a script (search-index.js) that sets
   window.BOOK_SEARCH_INDEX = [{p: page, a: anchor, t: section title, c: chapter, x: text}, ...]. */
(function () {
  "use strict";
  var doc = document.documentElement;
  var body = document.body;
  var root = body.getAttribute("data-root") || "";
  doc.classList.add("js");   /* CSS: what only makes sense with scripts (the explorer's live figure) */

  /* a percent-encoded text from the address (?q=, an anchor), decoded; as typed when it is malformed
     (?q=% or a cut UTF-8 sequence: decodeURIComponent would throw "URI malformed") */
  function decoded(s) {
    try { return decodeURIComponent(s); } catch (e) { return s; }
  }

  /* boxes that scroll sideways: assets/scroll-boxes.js (shared with the pages Quarto renders) */

  /* the page's contents on a phone: close the menu once a section is chosen */
  var menu = document.querySelector("details.toc-menu");
  if (menu) {
    menu.addEventListener("click", function (e) { if (e.target.closest && e.target.closest("a")) menu.open = false; });
  }

  /* theme */
  var toggle = document.querySelector(".theme-toggle");
  if (toggle) {
    toggle.addEventListener("click", function () {
      var next = doc.getAttribute("data-theme") === "dark" ? "light" : "dark";
      doc.setAttribute("data-theme", next);
      try { localStorage.setItem("book-theme", next); } catch (e) { /* private mode */ }
    });
  }

  /* sidebar on narrow screens */
  var sbt = document.querySelector(".sidebar-toggle");
  if (sbt) {
    sbt.addEventListener("click", function () {
      var open = body.classList.toggle("sidebar-open");
      sbt.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }

  /* highlight the section being read in the right-hand TOC */
  var tocLinks = Array.prototype.slice.call(document.querySelectorAll(".toc a[href^='#']"));
  if (tocLinks.length && "IntersectionObserver" in window) {
    var byId = {};
    tocLinks.forEach(function (a) { byId[decoded(a.getAttribute("href").slice(1))] = a; });
    var obs = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting && byId[e.target.id]) {
          tocLinks.forEach(function (a) { a.classList.remove("active"); });
          byId[e.target.id].classList.add("active");
        }
      });
    }, { rootMargin: "-10% 0px -80% 0px" });
    Object.keys(byId).forEach(function (id) {
      var el = document.getElementById(id);
      if (el) obs.observe(el);
    });
  }

  /* search */
  var input = document.getElementById("search-input");
  var list = document.getElementById("search-results");
  var index = window.BOOK_SEARCH_INDEX || [];
  if (!input || !list) return;

  function esc(s) {
    return s.replace(/[&<>"]/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
    });
  }
  function norm(s) { return s.toLowerCase(); }
  function terms(q) {
    return norm(q).split(/\s+/).filter(function (t) { return t.length > 0; });
  }
  function count(hay, t) {
    var n = 0, i = hay.indexOf(t);
    while (i !== -1 && n < 50) { n++; i = hay.indexOf(t, i + t.length); }
    return n;
  }
  function highlight(text, ts) {
    var out = esc(text);
    ts.forEach(function (t) {
      var re = new RegExp("(" + esc(t).replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + ")", "gi");
      out = out.replace(re, "<mark>$1</mark>");
    });
    return out;
  }
  function snippet(text, ts) {
    var low = norm(text), at = -1;
    for (var i = 0; i < ts.length && at < 0; i++) at = low.indexOf(ts[i]);
    if (at < 0) at = 0;
    var start = Math.max(0, at - 60), end = Math.min(text.length, at + 140);
    return (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
  }
  function search(q) {
    var ts = terms(q);
    if (!ts.length) return [];
    var hits = [];
    index.forEach(function (r) {
      var title = norm(r.t), text = norm(r.x), score = 0;
      for (var i = 0; i < ts.length; i++) {
        var inTitle = count(title, ts[i]), inText = count(text, ts[i]);
        if (!inTitle && !inText) return;          /* every term must occur */
        score += 10 * inTitle + inText;
      }
      hits.push({ r: r, s: score });
    });
    hits.sort(function (a, b) { return b.s - a.s; });
    return hits.slice(0, 20).map(function (h) { return h.r; });
  }
  var selected = -1;
  function show() {
    var q = input.value.trim();
    list.innerHTML = "";
    selected = -1;
    if (!q) { list.hidden = true; return; }
    var ts = terms(q), res = search(q);
    if (!res.length) {
      list.innerHTML = '<li class="sr-empty">' + esc(body.getAttribute("data-noresults") || "No results") + "</li>";
    }
    res.forEach(function (r) {
      var li = document.createElement("li");
      var href = root + r.p + (r.a ? "#" + r.a : "");
      li.innerHTML = '<a href="' + esc(href) + '"><span class="sr-title">' + highlight(r.t, ts) +
        '</span>' + (r.c && r.c !== r.t ? '<span class="sr-chapter">' + esc(r.c) + "</span>" : "") +
        '<span class="sr-snippet">' + highlight(snippet(r.x, ts), ts) + "</span></a>";
      list.appendChild(li);
    });
    list.hidden = false;
  }
  function move(d) {
    var links = list.querySelectorAll("a");
    if (!links.length) return;
    if (selected >= 0) links[selected].classList.remove("selected");
    selected = (selected + d + links.length) % links.length;
    links[selected].classList.add("selected");
    links[selected].scrollIntoView({ block: "nearest" });
  }
  input.addEventListener("input", show);
  input.addEventListener("keydown", function (e) {
    if (e.key === "ArrowDown") { move(1); e.preventDefault(); }
    else if (e.key === "ArrowUp") { move(-1); e.preventDefault(); }
    else if (e.key === "Enter") {
      var links = list.querySelectorAll("a");
      if (links.length) { window.location.href = links[Math.max(0, selected)].href; }
    } else if (e.key === "Escape") { input.value = ""; show(); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement !== input) { input.focus(); e.preventDefault(); }
  });
  var m = /[?&]q=([^&]*)/.exec(window.location.search);
  if (m) { input.value = decoded(m[1].replace(/\+/g, " ")); show(); }
})();
