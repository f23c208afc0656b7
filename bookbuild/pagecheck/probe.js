/* The reader's-eye check's probes (bookbuild/pagecheck): injected into each page the check opens, as an
   inline script (nothing is requested). Every function returns plain data; the Python side words the
   one-line problems. Nothing here changes the page. */
window.__pagecheck = (function () {
  "use strict";
  var ERRORS = [
    [/\bTraceback\b|\b[A-Z][A-Za-z]*(?:Error|Exception)\b/, "exception text"],
    [/\bNone\b(?!\s+[a-z])/, "None"],  /* Python's None, not the English "None of them" */
    [/\bNaN\b/, "NaN"],
    [/\bundefined\b/, "undefined"],
    [/\[object\b/, "[object …]"],
    /* the same mark twice (half- or full-width), or two Chinese sentence marks in a row; an ellipsis "..." is not doubled */
    [/(?<![.])[.。]\s?[.。](?![.])|[,，]\s?[,，]|[;；]\s?[;；]|[:：]\s?[:：]|[!！]\s?[!！]|[?？]\s?[?？]|[、。，；：][、。，；：]/,
      "doubled punctuation"]
  ];

  function describe(e) {
    var s = e.tagName.toLowerCase();
    if (e.id) s += "#" + e.id;
    else if (e.classList && e.classList.length) s += "." + Array.prototype.slice.call(e.classList, 0, 2).join(".");
    var t = (e.textContent || "").trim().replace(/\s+/g, " ");
    if (t) s += " “" + (t.length > 48 ? t.slice(0, 48) + "…" : t) + "”";
    return s;
  }
  function shown(e) {
    if (!e.getClientRects().length) return false;
    var cs = getComputedStyle(e);
    return cs.visibility !== "hidden" && cs.display !== "none";
  }

  /* error text a reader would see: the page's visible text, and the labels of what is shown */
  function errorsIn(text, where) {
    var found = [];
    ERRORS.forEach(function (pair) {
      var m = pair[0].exec(text);
      if (!m) return;
      var a = Math.max(0, m.index - 30), b = Math.min(text.length, m.index + m[0].length + 30);
      found.push({ what: pair[1], match: m[0], context: text.slice(a, b).replace(/\s+/g, " "), where: where || "text" });
    });
    return found;
  }
  function errorText(root) {
    root = root || document.body;
    var found = [];
    function look(text, where) {
      ERRORS.forEach(function (pair) {
        var m = pair[0].exec(text);
        if (!m) return;
        var a = Math.max(0, m.index - 30), b = Math.min(text.length, m.index + m[0].length + 30);
        found.push({ what: pair[1], match: m[0], context: text.slice(a, b).replace(/\s+/g, " "), where: where });
      });
    }
    look(root.innerText || "", "text");
    Array.prototype.forEach.call(root.querySelectorAll("[aria-label], [title], img[alt]"), function (e) {
      if (!shown(e)) return;
      ["aria-label", "title", "alt"].forEach(function (k) {
        var v = e.getAttribute(k);
        if (v) look(v, describe(e).split(" ")[0] + "[" + k + "]");
      });
    });
    return found;
  }

  /* the outermost elements under `el` whose box leaves [left, right] (a scrolling box keeps its content) */
  function escapees(el, left, right, out) {
    out = out || [];
    Array.prototype.forEach.call(el.children, function (c) {
      var cs = getComputedStyle(c);
      if (cs.display === "none" || cs.position === "fixed" || c.tagName === "SCRIPT") return;
      var r = c.getBoundingClientRect();
      if (r.width > 1 && r.height > 0 && (r.right > right + 1 || r.left < left - 1)) {
        out.push({ el: describe(c), left: Math.round(r.left), right: Math.round(r.right), width: Math.round(r.width) });
        return;
      }
      if (cs.overflowX !== "visible") return;
      escapees(c, left, right, out);
    });
    return out;
  }

  function layout() {
    var de = document.documentElement, vw = de.clientWidth;
    var res = { viewport: vw, pageWidth: Math.max(de.scrollWidth, document.body.scrollWidth), wide: [], column: [], topbar: [] };
    if (res.pageWidth > vw + 1) res.wide = escapees(document.body, 0, vw).slice(0, 4);
    var main = document.querySelector("main.content"), article = main && main.querySelector("article");
    if (main && article) {
      var mr = main.getBoundingClientRect();
      res.column = escapees(article, mr.left, mr.right).slice(0, 4);
    }
    var bar = document.querySelector(".topbar");
    if (bar) {
      var br = bar.getBoundingClientRect();
      Array.prototype.forEach.call(bar.children, function (c) {
        if (!shown(c)) return;
        var r = c.getBoundingClientRect();
        if (r.left < br.left - 1 || r.right > br.right + 1 || r.top < br.top - 1 || r.bottom > br.bottom + 1) {
          res.topbar.push(describe(c) + " leaves the top bar");
        } else if (lines(c) > 1) {
          res.topbar.push(describe(c) + " wraps onto " + lines(c) + " lines");
        }
      });
    }
    return res;
  }
  function lines(e) {
    var range = document.createRange();
    range.selectNodeContents(e);
    var tops = {};
    Array.prototype.forEach.call(range.getClientRects(), function (r) { if (r.width > 0) tops[Math.round(r.top / 4)] = 1; });
    return Object.keys(tops).length;
  }

  /* every figure drawn: plotly figures ready with a drawn SVG, images loaded; legends clear of the data */
  function figures() {
    var out = [];
    Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-plot"), function (p) {
      var name = p.getAttribute("data-figure") || p.id;
      var svg = p.querySelector("svg.main-svg"), r = p.getBoundingClientRect();
      if (p.getAttribute("data-ready") !== "1" || !svg || r.width < 50 || r.height < 50) {
        out.push({ figure: name, what: "is not drawn (" + Math.round(r.width) + "×" + Math.round(r.height) + " px box)" });
        return;
      }
      var over = legendOverlap(p);
      if (over) out.push({ figure: name, what: "its legend covers " + over });
    });
    Array.prototype.forEach.call(document.querySelectorAll("main img"), function (img) {
      if (!img.complete || img.naturalWidth === 0) out.push({ figure: img.getAttribute("src"), what: "image does not load" });
      else if (!shown(img) && img.closest("figure")) out.push({ figure: img.getAttribute("src"), what: "image is not shown" });
    });
    return out;
  }
  function inside(x, y, r) { return x > r.left + 1 && x < r.right - 1 && y > r.top + 1 && y < r.bottom - 1; }
  function legendOverlap(p) {
    var leg = p.querySelector("g.legend");
    if (!leg) return null;
    var bg = leg.querySelector("rect.bg") || leg;
    var lr = bg.getBoundingClientRect();
    if (lr.width < 2 || lr.height < 2) return null;
    var hit = null;
    /* only what is drawn inside a plot area counts (plotly clips traces to it) */
    var areas = Array.prototype.map.call(p.querySelectorAll(".draglayer .nsewdrag"), function (r) { return r.getBoundingClientRect(); });
    function drawn(x, y) { return !areas.length || areas.some(function (a) { return x >= a.left && x <= a.right && y >= a.top && y <= a.bottom; }); }
    /* lines (traces and reference lines), sampled every 3 px along their path */
    var paths = p.querySelectorAll(".scatterlayer path.js-line, .shapelayer path");
    for (var i = 0; i < paths.length && !hit; i++) {
      var path = paths[i], m = path.getScreenCTM();
      if (!m || getComputedStyle(path).opacity === "0") continue;
      var total = 0;
      try { total = path.getTotalLength(); } catch (e) { continue; }
      var stroke = parseFloat(getComputedStyle(path).strokeWidth) || 0;
      var fill = getComputedStyle(path).fillOpacity;
      if (stroke === 0 && path.closest(".shapelayer") && fill !== "0") {
        continue;  /* a shaded band behind the data is not data */
      }
      for (var l = 0; l <= total; l += 3) {
        var pt = path.getPointAtLength(l);
        var x = pt.x * m.a + pt.y * m.c + m.e, y = pt.x * m.b + pt.y * m.d + m.f;
        if (inside(x, y, lr) && drawn(x, y)) { hit = "a line (" + (path.closest(".trace") ? "series" : "reference line") + ")"; break; }
      }
    }
    /* markers and bars */
    var marks = p.querySelectorAll(".scatterlayer path.point, .barlayer path");
    for (var j = 0; j < marks.length && !hit; j++) {
      var mk = marks[j], cs = getComputedStyle(mk);
      if (cs.opacity === "0" || (mk.parentNode && getComputedStyle(mk.parentNode).opacity === "0")) continue;
      var mr = mk.getBoundingClientRect();
      if (mr.width === 0 && mr.height === 0) continue;
      if (mr.right > lr.left + 1 && mr.left < lr.right - 1 && mr.bottom > lr.top + 1 && mr.top < lr.bottom - 1) {
        hit = mk.closest(".barlayer") ? "a bar" : "a marker";
      }
    }
    return hit;
  }

  /* what Tab visits: focusable, shown, not disabled, tabIndex >= 0 */
  function tabStops() {
    var sel = "a[href], button, input, select, textarea, summary, [tabindex], [contenteditable]";
    var stops = [], positive = [], values = 0;
    Array.prototype.forEach.call(document.querySelectorAll(sel), function (e) {
      if (e.tabIndex < 0 || e.disabled || !shown(e) || e.closest("[inert], [hidden]")) return;
      if (e.closest("details:not([open])") && e.tagName !== "SUMMARY") return;
      stops.push(e);
      if (e.tabIndex > 0) positive.push(describe(e));
      if (e.classList.contains("mlsysim-v")) values++;
    });
    return { count: stops.length, positive: positive, values: values,
      first: stops.length ? describe(stops[0]) : "nothing", first_cls: stops.length ? String(stops[0].className || "") : "" };
  }

  function focused() {
    var a = document.activeElement;
    if (!a || a === document.body) return { el: "body" };
    var r = a.getBoundingClientRect();
    return { el: describe(a), id: a.id, cls: a.className && a.className.baseVal === undefined ? a.className : "",
      visible: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth };
  }
  return { errorsIn: errorsIn, errorText: errorText, escapees: escapees, layout: layout, figures: figures, tabStops: tabStops, focused: focused, describe: describe };
})();
