/* The book's interactive figures: every div.mlsysim-plot holds its plotly figure as JSON (written at
   build time by mlsysim.figures); this script draws them with the book's own plotly.js (assets/vendor),
   and restyles them when the reader switches the page between light and dark themes.
   Nothing is computed here: the data are the build's.
   The figures are drawn one per task once the page is read in, those in or near the window first, so
   the text and the reader's controls never wait for plotly (drawing the appendix's figures takes about
   a second on a laptop, several on a phone); a figure that live mode redraws before its turn is drawn
   once, with the new data. Each drawn figure says so: data-ready="1". */
(function () {
  "use strict";
  if (!window.Plotly) {
    /* plotly.js did not load: each figure shows its static drawing (the SVG the PDF uses) instead of an empty box */
    Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-plot[data-static]"), function (el) {
      if (el.querySelector("img.mlsysim-static")) return;
      var img = document.createElement("img");
      img.className = "mlsysim-static";
      img.src = el.getAttribute("data-static");
      img.alt = el.getAttribute("aria-label") || "";
      el.style.minHeight = "";
      el.insertBefore(img, el.firstChild);
    });
    return;
  }
  var doc = document.documentElement;
  var THEMES = {
    light: { font: "#212529", grid: "#dddddd", line: "#888888", hoverbg: "#ffffff" },
    dark: { font: "#e6e6e6", grid: "#3a3f44", line: "#8a8f94", hoverbg: "#2b2f33" }
  };
  function theme() { return doc.getAttribute("data-theme") === "dark" ? "dark" : "light"; }
  function mapColor(c, dark, t) {
    if (t !== "dark" || typeof c !== "string") return c;
    return dark[c] || c;
  }
  function mapColors(v, dark, t) {
    if (Array.isArray(v)) return v.map(function (c) { return mapColor(c, dark, t); });
    return mapColor(v, dark, t);
  }
  /* a deep copy of the build's figure, in the page's theme */
  function themed(spec, t) {
    var fig = JSON.parse(JSON.stringify({ data: spec.data, layout: spec.layout }));
    var th = THEMES[t], dark = spec.dark || {};
    fig.data.forEach(function (tr) {
      if (tr.line && tr.line.color) tr.line.color = mapColor(tr.line.color, dark, t);
      if (tr.marker) {
        if (tr.marker.color) tr.marker.color = mapColors(tr.marker.color, dark, t);
        if (tr.marker.line && tr.marker.line.color) tr.marker.line.color = mapColor(tr.marker.line.color, dark, t);
      }
      if (tr.fillcolor) tr.fillcolor = mapColor(tr.fillcolor, dark, t);
    });
    var L = fig.layout;
    L.font = L.font || {}; L.font.color = th.font;
    L.hoverlabel = { bgcolor: th.hoverbg, font: { color: th.font } };
    Object.keys(L).forEach(function (k) {
      if (/^[xy]axis\d*$/.test(k)) {
        if (L[k].gridcolor !== "rgba(0,0,0,0)") L[k].gridcolor = th.grid;
        L[k].linecolor = th.line;
      }
    });
    (L.shapes || []).forEach(function (s) {
      if (s.fillcolor) s.fillcolor = mapColor(s.fillcolor, dark, t);
      if (s.line && s.line.color) s.line.color = mapColor(s.line.color, dark, t);
    });
    (L.annotations || []).forEach(function (a) {
      if (a.font && a.font.color) a.font.color = mapColor(a.font.color, dark, t);
      if (a.arrowcolor) a.arrowcolor = mapColor(a.arrowcolor, dark, t);
    });
    L.meta = L.meta || {}; L.meta.theme = t;
    return fig;
  }
  /* the figure's spec: the one it was last drawn with, else the build's (its JSON script) */
  function spec(el) {
    if (!el._mlsysimSpec) {
      var node = el.querySelector("script.mlsysim-plot-json");
      if (!node) return null;
      el._mlsysimSpec = JSON.parse(node.textContent);
    }
    return el._mlsysimSpec;
  }
  function drawn(el, promise) {
    el._mlsysimDrawn = promise.then(function () {
      el.setAttribute("data-theme", theme());
      el.setAttribute("data-ready", "1");
      follow(el);
    });
    return el._mlsysimDrawn;
  }
  function draw(el) {
    if (el._mlsysimDrawn) return el._mlsysimDrawn;
    var s = spec(el);
    if (!s) return null;
    var fig = themed(s, theme());
    el.style.minHeight = "";
    return drawn(el, Plotly.newPlot(el, fig.data, fig.layout, config(s)));
  }
  /* a figure follows its own box, not only the window (plotly's "responsive" watches the window): a box
     that narrows (a flex row, the sidebar, a phone turned) redraws the figure at its width */
  var observer = "ResizeObserver" in window ? new ResizeObserver(function (entries) {
    entries.forEach(function (e) {
      var el = e.target, w = Math.round(e.contentRect.width);
      if (!w || el._mlsysimWidth === w) return;
      el._mlsysimWidth = w;
      if (el._fullLayout && Math.abs(el._fullLayout.width - w) > 1) Plotly.Plots.resize(el);
    });
  }) : null;
  function follow(el) {
    if (!observer || el._mlsysimFollowed) return;
    el._mlsysimFollowed = true;
    el._mlsysimWidth = Math.round(el.getBoundingClientRect().width);
    if (el._fullLayout && Math.abs(el._fullLayout.width - el._mlsysimWidth) > 1) Plotly.Plots.resize(el);
    observer.observe(el);
  }
  /* printing: a figure drawn at a wide screen's width would be cut at the printed column's edge (plotly
     draws at a fixed size, and no resize reaches it before the page is set); each wider one is redrawn at a
     width every printed column holds (6.5 in, the text width of a Letter or A4 page), then given back its
     box's width */
  var PRINT_WIDTH = 624;
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-plot"), function (el) {
      if (el._fullLayout && el._fullLayout.width > PRINT_WIDTH) {
        el._mlsysimPrinted = true;
        Plotly.relayout(el, { width: PRINT_WIDTH });
      }
    });
  });
  window.addEventListener("afterprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-plot"), function (el) {
      if (!el._mlsysimPrinted) return;
      el._mlsysimPrinted = false;
      Plotly.relayout(el, { width: null });
    });
  });
  /* the figure's plotly options; where the figure follows its own box (below), plotly's window-resize
     handler is left off, so one resize redraws each figure once */
  function config(spec) {
    var c = {}, k, src = spec.config || {};
    for (k in src) c[k] = src[k];
    if (observer) c.responsive = false;
    return c;
  }
  /* redraw one figure with new data of the same shape (the explorer swaps precomputed arrays) */
  function update(el, s) {
    el._mlsysimSpec = s;
    var fig = themed(s, theme());
    el.style.minHeight = "";
    var p = Plotly.react(el, fig.data, fig.layout, config(s));
    if (!el._mlsysimDrawn) drawn(el, p);
    return p;
  }
  function restyleAll() {
    var t = theme();
    Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-plot"), function (el) {
      if (!el._mlsysimDrawn || el.getAttribute("data-theme") === t) return;   /* not drawn yet: drawn in t */
      var fig = themed(el._mlsysimSpec, t);
      Plotly.react(el, fig.data, fig.layout, config(el._mlsysimSpec)).then(function () {
        el.setAttribute("data-theme", t);
      });
    });
  }
  window.mlsysimFigures = { draw: draw, update: update, themed: themed, spec: spec };
  /* in or near the window first (a stable sort keeps the page's order otherwise), one per task */
  var vh = window.innerHeight || 800;
  var queue = Array.prototype.slice.call(document.querySelectorAll(".mlsysim-plot")).map(function (el, i) {
    var r = el.getBoundingClientRect();
    return { el: el, near: r.bottom > -vh && r.top < 2 * vh ? 0 : 1, i: i };
  }).sort(function (a, b) { return a.near - b.near || a.i - b.i; });
  function next() {
    var item = queue.shift();
    if (!item) return;
    var p = null, go = function () { setTimeout(next, 0); };
    try { p = draw(item.el); } catch (e) { p = null; }   /* one figure that cannot be drawn stops no other */
    if (p && p.then) p.then(go, go); else go();
  }
  function start() { setTimeout(next, 0); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
  if ("MutationObserver" in window) {
    new MutationObserver(restyleAll).observe(doc, { attributes: true, attributeFilter: ["data-theme"] });
  }
  document.dispatchEvent(new Event("mlsysim-figures-ready"));
})();
