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

  /* reading aids, as Quarto's anchor-sections, crossrefs-hover and citations-hover */
  anchors();
  previews();

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

  /* every section heading links to itself: a tab stop shown on hover or focus (always where nothing
     hovers: touch); its mark is drawn by CSS, so the heading's text stays what the page says */
  function anchors() {
    var label = body.getAttribute("data-anchor") || "Link to this section";
    var hs = document.querySelectorAll("article.chapter h2[id], article.chapter h3[id], article.chapter h4[id], " +
                                       "article.chapter h5[id], article.chapter h6[id]");
    Array.prototype.forEach.call(hs, function (h) {
      if (h.querySelector("a.anchor-link")) return;
      var a = document.createElement("a");
      a.className = "anchor-link";
      a.href = "#" + h.id;
      a.setAttribute("aria-label", label);
      h.appendChild(a);
    });
  }

  /* a cross-reference or citation previews what it points at: on hover, on keyboard focus, and on a
     first tap (a second tap follows it); Escape or a tap elsewhere closes it. A target on this page is
     copied from the page (as the reader's choice shows it); one on another page from the page's
     <template id="xref-previews">, which the build filled (file: pages can fetch nothing). */
  function previews() {
    var store = document.getElementById("xref-previews");
    var tip = document.createElement("div");
    tip.className = "xref-preview";
    tip.id = "xref-preview";
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    body.appendChild(tip);
    var owner = null, timer = null, touched = null;

    function linkOf(t) {
      var a = t && t.closest ? t.closest("a.quarto-xref, a[role='doc-biblioref']") : null;
      return a && !tip.contains(a) ? a : null;
    }
    function absolute(url, base) {
      try { return new URL(url, base).href; } catch (e) { return url; }
    }
    /* the copy shows, it does not act: no ids, no tab stops, no computed-number behaviour, no scripts */
    function inert(node, base) {
      Array.prototype.forEach.call(node.querySelectorAll("script, noscript, .mlsysim-plot, .anchor-link, button, select, input"),
        function (e) {
          var src = e.classList && e.classList.contains("mlsysim-plot") && e.getAttribute("data-static");
          if (src) {
            var img = document.createElement("img");
            img.src = base ? absolute(src, base) : src;
            img.alt = "";
            img.className = "mlsysim-static";
            e.parentNode.replaceChild(img, e);
          } else e.parentNode.removeChild(e);
        });
      [node].concat(Array.prototype.slice.call(node.querySelectorAll("*"))).forEach(function (e) {
        e.removeAttribute("id");
        e.removeAttribute("tabindex");
        e.removeAttribute("aria-describedby");
        if (e.classList.contains("mlsysim-v")) { e.classList.remove("mlsysim-v", "mlsysim-v-open"); e.removeAttribute("data-attr"); }
        if (e.tagName === "A") e.setAttribute("tabindex", "-1");
        if (base && e.hasAttribute("href")) e.setAttribute("href", absolute(e.getAttribute("href"), base));
        if (base && e.hasAttribute("src")) e.setAttribute("src", absolute(e.getAttribute("src"), base));
      });
      return node;
    }
    function content(a) {
      var href = a.getAttribute("href") || "";
      var out = document.createDocumentFragment(), target = null, base = null;
      if (href.charAt(0) === "#") {
        target = document.getElementById(decoded(href.slice(1)));
        if (!target) return null;
        out.appendChild(inert(target.cloneNode(true)));
        var next = target.nextElementSibling;
        if (/^H[1-6]$/.test(target.tagName) && next && next.tagName === "P") out.appendChild(inert(next.cloneNode(true)));
      } else if (store && store.content) {
        var held = Array.prototype.filter.call(store.content.children, function (d) {
          return d.getAttribute("data-preview") === href;
        })[0];
        if (!held) return null;
        base = absolute(held.getAttribute("data-page"), location.href);
        Array.prototype.forEach.call(held.children, function (c) { out.appendChild(inert(c.cloneNode(true), base)); });
      } else return null;
      return out;
    }
    function place(a) {
      var rects = a.getClientRects(), r = rects.length ? rects[0] : a.getBoundingClientRect();
      var bar = document.querySelector(".topbar"), barH = bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
      tip.style.left = "0px";
      tip.style.top = "0px";
      var w = tip.offsetWidth, h = tip.offsetHeight, vw = document.documentElement.clientWidth, vh = window.innerHeight;
      var below = vh - r.bottom - 10, above = r.top - barH - 10;
      var under = h <= below || below >= above;
      var top = under ? r.bottom + 6 : r.top - Math.min(h, above) - 6;
      var left = Math.min(Math.max(8, r.left), Math.max(8, vw - w - 8));
      tip.style.maxHeight = Math.max(120, under ? below : above) + "px";
      tip.style.left = (left + window.scrollX) + "px";
      tip.style.top = (top + window.scrollY) + "px";
    }
    function show(a) {
      clearTimeout(timer);
      if (owner === a && !tip.hidden) return;
      var c = content(a);
      if (!c) { hide(); return; }
      if (owner && owner !== a) owner.removeAttribute("aria-describedby");
      tip.innerHTML = "";
      tip.appendChild(c);
      tip.classList.toggle("xref-preview-cite", a.getAttribute("role") === "doc-biblioref");
      tip.hidden = false;
      owner = a;
      a.setAttribute("aria-describedby", "xref-preview");
      place(a);
    }
    function hide() {
      clearTimeout(timer);
      tip.hidden = true;
      if (owner) owner.removeAttribute("aria-describedby");
      owner = null;
    }
    function later() { clearTimeout(timer); timer = setTimeout(hide, 250); }

    document.addEventListener("mouseover", function (e) {
      var a = linkOf(e.target);
      if (a) { clearTimeout(timer); timer = setTimeout(function () { show(a); }, 120); }
      else if (tip.contains(e.target)) clearTimeout(timer);
    });
    document.addEventListener("mouseout", function (e) {
      var from = linkOf(e.target) || (tip.contains(e.target) ? tip : null);
      if (!from) return;
      var to = e.relatedTarget;
      if (to && (tip.contains(to) || (owner && owner.contains(to)))) return;
      if (owner && document.activeElement === owner) return;
      later();
    });
    document.addEventListener("focusin", function (e) {
      var a = linkOf(e.target);
      if (a) show(a);
      else if (owner && !tip.contains(e.target)) hide();
    });
    document.addEventListener("focusout", function (e) {
      if (owner && linkOf(e.target) === owner && !(e.relatedTarget && tip.contains(e.relatedTarget))) later();
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && owner) { hide(); e.stopPropagation(); }
    });
    /* touch: the first tap on a reference shows its preview, the second follows it */
    document.addEventListener("pointerdown", function (e) {
      var a = e.pointerType === "touch" ? linkOf(e.target) : null;
      touched = a && (owner !== a || tip.hidden) ? a : null;   /* before the tap's focus shows it */
    }, true);
    document.addEventListener("click", function (e) {
      var a = linkOf(e.target);
      if (a && touched === a) { e.preventDefault(); show(a); }
      else if (!a && owner && !tip.contains(e.target)) hide();
      touched = null;
    });
    window.addEventListener("resize", function () { if (owner) place(owner); });
  }
})();
