/* The book's interactive figures: every div.mlsysim-plot holds its plotly figure as JSON (written at
   build time by mlsysim.figures); this script draws them with the book's own plotly.js (assets/vendor),
   and restyles them when the reader switches the page between light and dark themes.
   Nothing is computed here: the data are the build's. */
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
  function draw(el) {
    var node = el.querySelector("script.mlsysim-plot-json");
    if (!node) return;
    var spec = JSON.parse(node.textContent);
    el._mlsysimSpec = spec;
    var fig = themed(spec, theme());
    el.style.minHeight = "";
    return Plotly.newPlot(el, fig.data, fig.layout, config(spec)).then(function () {
      el.setAttribute("data-theme", theme());
      el.setAttribute("data-ready", "1");
      follow(el);
    });
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
  /* the figure's plotly options; where the figure follows its own box (below), plotly's window-resize
     handler is left off, so one resize redraws each figure once */
  function config(spec) {
    var c = {}, k, src = spec.config || {};
    for (k in src) c[k] = src[k];
    if (observer) c.responsive = false;
    return c;
  }
  /* redraw one figure with new data of the same shape (the explorer swaps precomputed arrays) */
  function update(el, spec) {
    el._mlsysimSpec = spec;
    var fig = themed(spec, theme());
    return Plotly.react(el, fig.data, fig.layout, config(spec));
  }
  function restyleAll() {
    var t = theme();
    Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-plot"), function (el) {
      if (!el._mlsysimSpec || el.getAttribute("data-theme") === t) return;
      var fig = themed(el._mlsysimSpec, t);
      Plotly.react(el, fig.data, fig.layout, config(el._mlsysimSpec)).then(function () {
        el.setAttribute("data-theme", t);
      });
    });
  }
  window.mlsysimFigures = { draw: draw, update: update, themed: themed };
  Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-plot"), draw);
  if ("MutationObserver" in window) {
    new MutationObserver(restyleAll).observe(doc, { attributes: true, attributeFilter: ["data-theme"] });
  }
  document.dispatchEvent(new Event("mlsysim-figures-ready"));
})();
