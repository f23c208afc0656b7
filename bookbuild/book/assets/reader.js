/* Reader features of a computed chapter, from the page's data script (window.MLSYSIM_PAGE =
   {lang, provenance: PACKED, variants?: V, live?, ui: {reader, live?}}, see bookbuild/provenance.py
   pack/unpack, bookbuild/variants.py and bookbuild/book/reader.py):
   - every computed number (span.mlsysim-v) explains itself on hover or keyboard focus; for a precomputed
     choice with that choice's steps and inputs (computed by the build, bookbuild/provenance.py
     pack_choices; the page computes none), else with the reference's, and says which;
   - on a page with variants (the appendix) the reader chooses an accelerator and a model: the numbers
     are replaced by the precomputed ones, the sentences whose guards fail are marked, figures that
     keep showing the reference say so, and the choice lives in the URL (?accelerator=&model=&precision=);
   - on a page without variants (the lecture) a choice in the URL is carried on and noted.
   No libraries, nothing from the network; without JavaScript the page shows the reference. */
(function () {
  "use strict";
  var P = window.MLSYSIM_PAGE;
  if (!P) return;
  var lang = P.lang || "en";
  /* the interface strings, in the page's language: P.ui (bookbuild/book/ui/<lang>.toml, a table per script).
     T(key, values): the string, each {name} in it replaced by values[name]; a value is data, so the result
     goes into the page as text (textContent, attributes), never as markup. N(key, n, values): the plural
     form of key for the number n, with {n} (key_one, key_other: the categories of Intl.PluralRules) */
  function texts(table) {
    table = table || {};
    var rules = null;
    try { rules = new Intl.PluralRules(lang); } catch (e) { /* no Intl, or no such language: the "other" form */ }
    function say(key, values) {
      var s = table.hasOwnProperty(key) ? String(table[key]) : key;
      if (!values) return s;
      return s.replace(/\{(\w+)\}/g, function (m, k) { return values.hasOwnProperty(k) ? String(values[k]) : m; });
    }
    say.table = table;
    say.plural = function (key, n, values) {
      var form = key + "_" + (rules ? rules.select(n) : "other"), v = { n: n };
      for (var k in values || {}) v[k] = values[k];
      return say(table.hasOwnProperty(form) ? form : key + "_other", v);
    };
    return say;
  }
  var T = texts(P.ui && P.ui.reader), N = T.plural;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function each(list, f) { Array.prototype.forEach.call(list, f); }

  /* ---------- provenance: a port of bookbuild.provenance.unpack ---------- */
  function unpack(packed, skip) {
    var out = {};
    if (!packed || !packed.values) return out;
    function full(i) {
      var d = {}, src = packed.items[i] || {};
      for (var k in src) d[k] = src[k];
      if (typeof d.source === "number") d.source = packed.sources[d.source];
      if (typeof d.function === "string") d.function = packed.functions[d.function] || { name: d.function };
      return d;
    }
    Object.keys(packed.values).forEach(function (k) {
      if (skip && skip.hasOwnProperty(k)) return;
      var e = packed.values[k], c = {};
      for (var key in e) c[key] = e[key];
      if (typeof c.function === "string") c.function = packed.functions[c.function] || { name: c.function };
      c.steps = (e.steps || []).map(full);
      c.inputs = (e.inputs || []).map(full);
      out[k] = c;
    });
    return out;
  }
  var PROV = unpack(P.provenance);
  window.MLSYSIM_EXPLAIN = PROV;
  /* a precomputed choice's explanations, a port of bookbuild.provenance.apply_choice: the reference's items
     with the fields the build computed for that choice (c.x: flat triples item, field, value; the page's
     variants.explain: fields, strings, sources, fixed); the values it cannot explain (fixed, c.xu) are left
     out, and keep the reference's explanation, said as such */
  function choiceExplanations(c) {
    var T = P.variants && P.variants.explain, packed = P.provenance;
    if (!T || !packed || !packed.items || !c || !c.x) return null;
    var items = packed.items.map(function (d) { var o = {}; for (var k in d) o[k] = d[k]; return o; });
    for (var j = 0; j + 2 < c.x.length; j += 3) {
      var it = items[c.x[j]], f = T.fields[c.x[j + 1]], code = c.x[j + 2];
      if (!it || !f) continue;
      if (code < 0) delete it[f];
      else it[f] = f === "source" ? T.sources[code] : T.strings[code];
    }
    var skip = {};
    (T.fixed || []).forEach(function (a) { skip[a] = true; });
    (c.xu || []).forEach(function (i) { skip[T.strings[i]] = true; });
    return unpack({ sources: packed.sources, functions: packed.functions, items: items, values: packed.values }, skip);
  }
  var EXPL = null;             /* the applied choice's explanations (choiceExplanations), null: the reference's */

  var spans = Array.prototype.slice.call(document.querySelectorAll(".mlsysim-v"));
  /* the computed numbers are ONE tab stop (a roving tabindex), not hundreds: Tab reaches the first number
     after the reader's place, the arrow keys move from number to number (Home/End: first/last) */
  var rover = null;
  function rove(s) {
    if (rover === s) return;
    if (rover) rover.tabIndex = -1;
    rover = s;
    if (s) s.tabIndex = 0;
  }
  spans.forEach(function (s) {
    if (!s.hasAttribute("data-ref")) s.setAttribute("data-ref", s.textContent);
    s.tabIndex = -1;
  });
  rove(spans[0] || null);
  /* the first number after node n in the document (binary search over the numbers in document order) */
  function numberAfter(n) {
    var lo = 0, hi = spans.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (n.compareDocumentPosition(spans[mid]) & Node.DOCUMENT_POSITION_FOLLOWING) hi = mid; else lo = mid + 1;
    }
    return spans[lo] || null;
  }
  function usable(s) { return s.getClientRects().length > 0; }
  function step(from, d) {
    var i = spans.indexOf(from);
    for (var j = i + d; j >= 0 && j < spans.length; j += d) if (usable(spans[j])) return spans[j];
    return null;
  }
  document.addEventListener("focusin", function (ev) {
    var t = ev.target;
    if (t.classList && t.classList.contains("mlsysim-v")) { rove(t); return; }
    if (t === tip || (tip && tip.contains(t))) return;
    var next = numberAfter(t);
    if (next) rove(next);
  }, true);

  /* ---------- the choice ---------- */
  var V = P.variants;
  var article = document.querySelector("article.chapter") || document.querySelector("main") || document.body;
  var heading = article.querySelector("h1");
  var params = new URLSearchParams(window.location.search);
  var current = null;          /* the applied choice's key "ACCEL|MODEL"; null = reference */
  var currentLabel = "";

  function insertTop(node) {
    if (heading && heading.parentNode === article) article.insertBefore(node, heading.nextSibling);
    else article.insertBefore(node, article.firstChild);
  }
  function labelOf(list, name) {
    for (var i = 0; i < list.length; i++) if (list[i].name === name) return list[i].label;
    return null;
  }
  function queryString() {
    var q = params.toString();
    return q ? "?" + q : "";
  }
  /* carry ?accelerator=&model= on links to the book's other pages (language switch, lecture, sidebar) */
  function carryQuery() {
    var keep = new URLSearchParams();
    ["accelerator", "model", "precision"].forEach(function (k) { if (params.get(k)) keep.set(k, params.get(k)); });
    var q = keep.toString();
    each(document.querySelectorAll("a[href]"), function (a) {
      var href = a.getAttribute("href");
      if (/^[a-z]+:|^\/\/|^#/i.test(href)) return;            /* external, data:, same-page anchors */
      var m = /^([^?#]*\.html)(\?[^#]*)?(#.*)?$/.exec(href);
      if (!m) return;
      if (!a.hasAttribute("data-href")) a.setAttribute("data-href", m[1] + (m[3] || ""));
      var base = a.getAttribute("data-href"), hash = base.indexOf("#");
      var path = hash < 0 ? base : base.slice(0, hash), frag = hash < 0 ? "" : base.slice(hash);
      a.setAttribute("href", path + (q ? "?" + q : "") + frag);
    });
  }

  var status = null, summary = null, selA = null, selM = null, selP = null, lastLines = [];
  /* a choice's key in the page's data: "accelerator|model|precision" (mlsysim/choice_space.py) */
  function keyOf(a, m, p) { return a + "|" + m + "|" + p; }
  var refKey = V ? keyOf(V.reference.accelerator, V.reference.model, V.reference.precision) : "";
  function bitsLabel(p) { return T("bits", { bits: (V && (V.precisions || []).filter(function (o) { return o.name === p; })[0] || {}).bits || p }); }
  var refLabel = V ? T("choice", { accelerator: labelOf(V.accelerators, V.reference.accelerator), model: labelOf(V.models, V.reference.model),
                                   bits: bitsLabel(V.reference.precision) }) : "";

  /* the library's note (mlsysim.scenario writes it in English) said in the page's language */
  function translateNote(note) {
    if (!note) return note;
    var m = /^(.*) publishes no (\S+) rate: (\S+) is used$/.exec(note);
    return m ? T("no_rate", { accelerator: m[1], precision: m[2], used: m[3] }) : note;
  }
  /* why a choice or an input cannot be computed, in the reader's language: what the error means (its
     "why": mlsysim.errors.MlsysimError.why, a code and its values, kept in the choice's data beside the
     library's English line) worded by the page's why table ([reader.why] of ui/<lang>.toml); "extra":
     values the page words itself (live.js: the input's label and unit). Null for an error without one. */
  var W = texts(T.table.why);
  function reason(why, extra) {
    if (!why || !W.table.hasOwnProperty(why.code)) return null;
    var v = {}, k;
    for (k in why) v[k] = why[k];
    for (k in extra || {}) v[k] = extra[k];
    return W(why.code, v);
  }
  /* a choice the build could not compute: its reason, or plain words (never the exception's own text) */
  function plainError(c) { return reason(c.why) || T("uncomputable"); }
  /* why a registry model is not offered (mlsysim/choice_space.py NOT_OFFERED), in the page's language */
  function whyNot(o) { return o.why === "sliding_window" ? T("not_offered_sliding_window", o) : T("not_offered_reason"); }
  function choiceText(c) { return T("choice", { accelerator: c.accelerator, model: c.model, bits: c.bits ? T("bits", { bits: c.bits }) : (c.precision || "") }); }

  function clearMarks() {
    each(document.querySelectorAll(".mlsysim-claim-marker, .mlsysim-claim-flag"), function (n) { n.parentNode.removeChild(n); });
    each(document.querySelectorAll(".mlsysim-claim-broken"), function (n) { n.classList.remove("mlsysim-claim-broken"); });
    each(document.querySelectorAll(".mlsysim-fig-note"), function (n) { n.parentNode.removeChild(n); });
    if (summary) { summary.innerHTML = ""; summary.hidden = true; }
  }
  /* a guard's message: the library's own in the page's language where it gave one (g.zh), else the English one */
  function guardText(g) {
    return g[lang] || T("claim", { message: g.message });
  }
  function markClaims(c) {
    var n = 0, loose = [];
    function marker(g, tag) {
      var m = el(tag, "mlsysim-claim-marker");
      m.setAttribute("role", "note");
      var icon = el("span", "mcm-icon", "⚠ ");
      icon.setAttribute("aria-hidden", "true");
      m.appendChild(icon);
      m.appendChild(document.createTextNode(guardText(g)));
      m.title = g.file + ":" + g.line;
      return m;
    }
    (c.failed || []).forEach(function (g, gi) {
      var blocks = [];
      spans.forEach(function (s) {
        if ((g.protects || []).indexOf(s.getAttribute("data-attr")) < 0) return;
        if (s.closest(".mlsysim-choice")) return;
        var b = s.closest("li, tr, p, dd, figcaption, caption, blockquote") || s.parentNode;
        if (blocks.indexOf(b) < 0) blocks.push(b);
      });
      if (!blocks.length) { loose.push(g); return; }
      var first = null;   /* the message once per page per claim; later paragraphs link to it */
      blocks.forEach(function (b) {
        b.classList.add("mlsysim-claim-broken");
        if (b.tagName !== "TR") {
          if (!first) {
            first = marker(g, "span");
            first.id = "mlsysim-claim-" + gi;
            b.appendChild(first);
            n++;
            return;
          }
          var link = el("a", "mlsysim-claim-flag", "⚠");
          link.href = "#" + first.id;
          link.title = guardText(g);
          link.setAttribute("aria-label", guardText(g));
          b.appendChild(link);
          return;
        }
        /* a table row: a flag in the cell that holds the value (the message once, under the table) */
        var cell = null;
        each(b.querySelectorAll("td, th"), function (td) {
          if (cell) return;
          each(td.querySelectorAll(".mlsysim-v"), function (v) {
            if ((g.protects || []).indexOf(v.getAttribute("data-attr")) >= 0) cell = td;
          });
        });
        if (!first) {   /* the page's one message for this claim, under the first table that shows it */
          var table = b.closest("table");
          first = marker(g, "p");
          first.id = "mlsysim-claim-" + gi;
          var after = table.parentNode.classList.contains("table-wrap") ? table.parentNode : table;
          after.parentNode.insertBefore(first, after.nextSibling);
          n++;
        }
        var flag = el("a", "mlsysim-claim-flag", "⚠");
        flag.href = "#" + first.id;
        flag.title = guardText(g);
        flag.setAttribute("aria-label", guardText(g));
        (cell || b.lastElementChild || b).appendChild(flag);
      });
    });
    if (loose.length && summary) {
      summary.appendChild(el("p", "mcs-title", T("summary")));
      var ul = el("ul");
      loose.forEach(function (g) {
        var li = el("li", "mlsysim-claim-marker-summary", guardText(g));
        li.title = g.file + ":" + g.line;
        ul.appendChild(li);
      });
      summary.appendChild(ul);
      summary.hidden = false;
    }
    return n + loose.length;
  }
  function noteFigures(redrawn) {
    each(article.querySelectorAll("figure"), function (f) {
      if (!f.querySelector(".mlsysim-plot, img, svg") || f.closest("#mlsysim-explorer")) return;
      var plot = f.querySelector(".mlsysim-plot[data-figure]");   /* redrawn by live mode: follows the choice */
      if (plot && (redrawn || []).indexOf(plot.getAttribute("data-figure")) >= 0) return;
      if (f.id === "mlsysim-explorer-roofline" && explorerSynced) return;   /* follows the choice */
      var n = el("p", "mlsysim-fig-note", T("figure_note", { reference: refLabel }));
      n.setAttribute("role", "note");
      f.appendChild(n);
    });
  }
  var explorerSynced = false;
  function syncExplorer(a, m, p) {
    var ea = document.getElementById("mlsysim-explorer-accelerator");
    var em = document.getElementById("mlsysim-explorer-model");
    var ep = document.getElementById("mlsysim-explorer-precision");
    explorerSynced = false;
    if (!ea || !em) return;
    var hasA = ea.querySelector('option[value="' + a + '"]'), hasM = em.querySelector('option[value="' + m + '"]');
    if (!hasA || !hasM) return;
    explorerSynced = true;
    /* the explorer redraws its figure on each change: quick successive choices (a reader holding an arrow
       key on the select) redraw once, with the last one */
    clearTimeout(syncTimer);
    syncTimer = setTimeout(function () {
      if (ea.value !== a) { ea.value = a; ea.dispatchEvent(new Event("change")); }
      if (em.value !== m) { em.value = m; em.dispatchEvent(new Event("change")); }
      var po = p && ep && ep.querySelector('option[value="' + p + '"]');
      if (po && !po.disabled && ep.value !== p) { ep.value = p; ep.dispatchEvent(new Event("change")); }
    }, 0);
  }
  var syncTimer = null;

  function setStatus(lines) {
    if (!status) return;
    status.innerHTML = "";
    lines.forEach(function (t) {
      if (!t) return;
      var p = el("p", t.cls || "", t.text);
      status.appendChild(p);
    });
  }

  /* apply a choice; returns false (and changes nothing) when the choice cannot be computed */
  function apply(a, m, p, extra) {
    var key = keyOf(a, m, p), c = V.choices[key];
    var lines = (extra || []).slice();
    if (!c) return false;
    if (c.error) {
      var prev = current ? V.choices[current] : V.choices[refKey];
      lines.push({ cls: "mcs-error", text: T("cannot", { choice: choiceText(c), reason: plainError(c) }) });
      lines.push({ cls: "mcs-error", text: T("kept", { choice: choiceText(prev) }) });
      setStatus(lastLines.concat(lines));
      /* the selects show what the page shows: back to the choice still on the page */
      var shown = (current || refKey).split("|");
      if (selA && selM) { selA.value = shown[0]; selM.value = shown[1]; if (selP) selP.value = shown[2]; }
      return false;
    }
    return showEntry(c, key === refKey ? null : key, choiceText(c), lines, a, m, p);
  }
  /* show entry c (a precomputed choice, or one live mode computed: c.values by attribute); key null = the reference */
  function showEntry(c, key, label, lines, a, m, p) {
    clearMarks();
    var idx = {};
    if (V && V.attrs) V.attrs.forEach(function (k, i) { idx[k] = i; });
    var isRef = key === null;
    spans.forEach(function (s) {
      var i = idx[s.getAttribute("data-attr")];
      var v = isRef ? null : c.values ? (c.values.hasOwnProperty(s.getAttribute("data-attr")) ? c.values[s.getAttribute("data-attr")] : null)
        : (i !== undefined && c.v && c.v[i] !== null) ? V.values[c.v[i]] : null;
      var ref = s.getAttribute("data-ref");
      if (v === null || v === undefined) { s.textContent = ref; s.classList.remove("mlsysim-v-changed"); }
      else { s.textContent = v; s.classList.toggle("mlsysim-v-changed", v !== ref); }
    });
    current = isRef ? null : key;
    currentLabel = label;
    EXPL = isRef ? null : choiceExplanations(c);
    var nv = { node: c.node, precision: c.precision, pool: c.pool };
    if (c.node != null) lines.unshift({ cls: "mcs-info", text: c.pool && c.pool !== c.precision ? T("node_line_pool", nv) : T("node_line", nv) });
    if (c.note) lines.push({ cls: "mcs-note", text: T("note", { note: translateNote(c.note) }) });
    var broken = isRef ? 0 : markClaims(c);
    if (broken) lines.push({ cls: "mcs-broken", text: N("broken", broken) });
    if (a && m) syncExplorer(a, m, p || (c && c.precision));
    if (!isRef) noteFigures(c.figures);
    setStatus(lines);
    lastLines = lines;
    document.documentElement.setAttribute("data-mlsysim-choice", isRef ? "reference" : key);
    document.dispatchEvent(new Event("mlsysim-choice-applied"));
    return true;
  }

  function updateUrl(a, m, p) {
    if (keyOf(a, m, p) === refKey) { params.delete("accelerator"); params.delete("model"); params.delete("precision"); }
    else { params.set("accelerator", a); params.set("model", m); params.set("precision", p); }
    try { history.replaceState(null, "", window.location.pathname + queryString() + window.location.hash); }
    catch (e) { /* file: pages in some browsers */ }
    carryQuery();
  }

  /* the choice bar's spoken status line and its summary of broken claims, and the bar at the page's top */
  function statusArea(box) {
    status = el("div", "mc-status");
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    box.appendChild(status);
    summary = el("div", "mc-summary");
    summary.hidden = true;
    box.appendChild(summary);
    insertTop(box);
  }
  function buildChoice() {
    var box = el("section", "mlsysim-choice");
    box.id = "mlsysim-choice";
    box.setAttribute("aria-label", T("legend"));
    box.setAttribute("lang", lang);
    box.appendChild(el("p", "mc-intro", T("intro")));
    var row = el("div", "mc-row");
    function select(id, text, list, label) {
      var lab = el("label", "mc-label");
      lab.appendChild(el("span", "", text));
      var s = el("select");
      s.id = id;
      list.forEach(function (o) {
        var opt = el("option", "", label ? label(o) : o.label);
        opt.value = o.name;
        s.appendChild(opt);
      });
      lab.appendChild(s);
      row.appendChild(lab);
      return s;
    }
    selA = select("mlsysim-choice-accelerator", T("accelerator"), V.accelerators);
    selM = select("mlsysim-choice-model", T("model"), V.models);
    selP = select("mlsysim-choice-precision", T("precision"), V.precisions || [], function (o) { return T("bits", { bits: o.bits || o.name }); });
    var reset = el("button", "mc-reset", T("reset"));
    reset.type = "button";
    row.appendChild(reset);
    box.appendChild(row);
    if ((V.not_offered || []).length) {   /* registry models the appendix's equations do not cover: said once */
      box.appendChild(el("p", "mc-not-offered", T("not_offered", {
        models: V.not_offered.map(whyNot).join(T("sentence_space")) })));
    }
    statusArea(box);

    /* a choice the cells cannot compute: first the same accelerator and model at another weight precision
       (the weights fit at 8 bits), then the other half of it moves to the first one that can (the
       accelerator just chosen keeps it, with the first model that fits; a model just chosen, with the first
       accelerator that holds it), and the page says so; the selects always show the page's choice */
    function firstComputable(a, m, p) {
      var i, k, c;
      if (a && m) {
        for (i = 0; i < V.precisions.length; i++) {
          k = keyOf(a, m, V.precisions[i].name); c = V.choices[k];
          if (c && !c.error) return k;
        }
        return null;
      }
      var list = a ? V.models : V.accelerators;
      for (i = 0; i < list.length; i++) {
        k = a ? keyOf(a, list[i].name, p) : keyOf(list[i].name, m, p); c = V.choices[k];
        if (c && !c.error) return k;
      }
      return null;
    }
    function applyNearest(a, m, p, accelChanged, extra) {
      if (apply(a, m, p, extra)) return true;
      var failed = V.choices[keyOf(a, m, p)];
      var alt = firstComputable(a, m, p) || (accelChanged ? firstComputable(a, null, p) : firstComputable(null, m, p));
      if (!alt || !failed) return false;
      var lines = (extra || []).concat([
        { cls: "mcs-error", text: T("cannot", { choice: choiceText(failed), reason: plainError(failed) }) },
        { cls: "mcs-note", text: T("instead", { choice: choiceText(V.choices[alt]) }) }]);
      var k = alt.split("|");
      selA.value = k[0];
      selM.value = k[1];
      selP.value = k[2];
      return apply(k[0], k[1], k[2], lines);
    }
    function onChange(ev) {
      if (applyNearest(selA.value, selM.value, selP.value, ev && ev.target === selA))
        updateUrl(selA.value, selM.value, selP.value);
    }
    selA.addEventListener("change", onChange);
    selM.addEventListener("change", onChange);
    selP.addEventListener("change", onChange);
    reset.addEventListener("click", function () {
      selA.value = V.reference.accelerator;
      selM.value = V.reference.model;
      selP.value = V.reference.precision;
      onChange();
    });

    /* the choice in the address */
    var a = params.get("accelerator"), m = params.get("model"), p = params.get("precision"), extra = [];
    var gone = (V.not_offered || []).filter(function (o) { return o.name === m; })[0];
    if (a && !labelOf(V.accelerators, a)) { extra.push({ cls: "mcs-note", text: T("unknown_accelerator", { value: a }) }); a = null; }
    if (gone) { extra.push({ cls: "mcs-note", text: whyNot(gone) }); m = null; }
    else if (m && !labelOf(V.models, m)) { extra.push({ cls: "mcs-note", text: T("unknown_model", { value: m }) }); m = null; }
    if (p && !(V.precisions || []).some(function (o) { return o.name === p; })) {
      extra.push({ cls: "mcs-note", text: T("unknown_precision", { value: p }) }); p = null;
    }
    a = a || V.reference.accelerator;
    m = m || V.reference.model;
    p = p || V.reference.precision;
    selA.value = a;
    selM.value = m;
    selP.value = p;
    if (!applyNearest(a, m, p, !!params.get("accelerator") && !params.get("model"), extra)) {
      var lines = status ? Array.prototype.map.call(status.childNodes, function (q) { return { cls: q.className, text: q.textContent }; }) : [];
      apply(V.reference.accelerator, V.reference.model, V.reference.precision, lines);
      current = null;
    }
    var now = (current || refKey).split("|");
    updateUrl(now[0], now[1], now[2]);
  }

  /* ---------- live mode (assets/live.js, loaded only on demand; see bookbuild/book/live) ----------
     API for live.js, window.MLSYSIM_READER:
       show(entry): show a computed entry as if it were a precomputed choice (entry: {key, label, values:
         {attr: text}, failed: [{file, line, message, zh, protects}], figures: [keys live.js redrew],
         node?, precision?, note?, choice?: {accelerator, model}}); null entry = the reference.
       bar, status(lines), lang, params, select: {accelerator, model} (the choice bar's selects or null),
       T: live.js's strings (the page's P.ui.live), as T above; reason(why, extra): an error's meaning in the
       page's language, as for a choice (above), or null. */
  function liveControl(box) {
    var LV = P.live;
    if (!LV || !box) return;
    var row = el("div", "mc-row mc-live");
    var btn = el("button", "mc-live-open", T("live_open"));
    btn.type = "button";
    btn.id = "mlsysim-live-open";
    row.appendChild(btn);
    box.insertBefore(row, status);
    function start() {   /* live.js explains a file: page or a build without the live runtime itself */
      btn.disabled = true;
      if (window.MLSYSIM_LIVE) { window.MLSYSIM_LIVE.start(API); return; }
      var sc = document.createElement("script");
      sc.src = LV.base + "live.js?v=" + encodeURIComponent(LV.v || "");
      sc.onload = function () { if (window.MLSYSIM_LIVE) window.MLSYSIM_LIVE.start(API); else sc.onerror(); };
      sc.onerror = function () {   /* live.js missing (or not a script): say so, in the page's language */
        btn.disabled = false;
        document.documentElement.setAttribute("data-mlsysim-live", "error");
        setStatus([{ cls: "mcs-error", text: T("live_missing", { file: "live/live.js" }) }]);
        API.offerStatic();
      };
      document.head.appendChild(sc);
    }
    btn.addEventListener("click", start);
    var API = window.MLSYSIM_READER = {
      lang: lang, params: params, bar: box, button: btn, live: LV, T: texts(P.ui && P.ui.live), reason: reason,
      select: selA && selM ? { accelerator: selA, model: selM, precision: selP } : null,
      status: function (ls) { setStatus(ls); lastLines = ls; },
      /* after a failure of live mode: the page as built is what the reader has; a link to it without live */
      offerStatic: function () {
        if (!status) return;
        var q = new URLSearchParams();
        ["accelerator", "model", "precision"].forEach(function (k) { if (params.get(k)) q.set(k, params.get(k)); });
        var a = el("a", "mc-live-static", T("live_static"));
        a.href = window.location.pathname + (q.toString() ? "?" + q.toString() : "") + window.location.hash;
        var line = el("p", "mcs-note", T("live_static_before"));
        line.appendChild(a);
        status.appendChild(line);
      },
      /* values(map): set these values (the figure cells' words, once live mode redrew their figures) */
      values: function (vals) {
        spans.forEach(function (s) {
          var k = s.getAttribute("data-attr");
          if (!vals.hasOwnProperty(k)) return;
          s.textContent = vals[k];
          s.classList.toggle("mlsysim-v-changed", vals[k] !== s.getAttribute("data-ref"));
        });
      },
      show: function (entry) {
        if (!entry) { current = null; return showEntry({}, null, "", []); }
        var c = entry.choice || {};
        return showEntry(entry, entry.key || "live", entry.label || "", (entry.lines || []).slice(), c.accelerator, c.model, c.precision);
      }
    };
    if (params.get("live") === "1") start();
  }
  function liveBar() {   /* a page with live mode but no precomputed choices (the lecture) */
    var box = el("section", "mlsysim-choice");
    box.id = "mlsysim-choice";
    box.setAttribute("aria-label", T("legend"));
    box.setAttribute("lang", lang);
    statusArea(box);
    return box;
  }

  if (V && V.choices && V.attrs) {
    buildChoice();
    liveControl(document.getElementById("mlsysim-choice"));
  } else {
    if (P.live) liveControl(liveBar());
    var qa = params.get("accelerator"), qm = params.get("model"), qp = params.get("precision");
    if (qa || qm || qp) {
      var note = el("p", "mlsysim-lecture-note", T("lecture_note"));
      note.setAttribute("role", "note");
      insertTop(note);
    }
    carryQuery();
  }

  /* ---------- the explanation popover ---------- */
  var tip = el("div", "mlsysim-tip");
  tip.id = "mlsysim-tip";
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  document.body.appendChild(tip);
  var owner = null, hideTimer = null;

  function add(parent, tag, cls, text) { var e = el(tag, cls, text); parent.appendChild(e); return e; }
  function tidy(x) { return String(x).replace(/\.(to|m_as)\([^()]*\)/g, "").replace(/\.magnitude\b/g, ""); }
  function valueUnit(d) { return (d.value != null ? d.value : "") + (d.unit ? " " + d.unit : ""); }
  function fnLine(parent, f) {
    if (!f) return;
    var p = add(parent, "div", "mt-fn");
    add(p, "code", "", f.name);
    if (f.equation) { p.appendChild(document.createTextNode(": ")); add(p, "span", "mt-eq", f.equation); }
    if (f.ref && document.getElementById(f.ref)) {
      p.appendChild(document.createTextNode(" "));
      var a = add(p, "a", "", "(" + f.ref + ")");
      a.href = "#" + f.ref;
      var ref = document.querySelector('a[href="#' + f.ref + '"].quarto-xref');
      if (ref) a.textContent = "(" + ref.textContent + ")";
    }
  }
  function fill(span) {
    var attr = span.getAttribute("data-attr");
    var mine = current && EXPL && EXPL.hasOwnProperty(attr) ? EXPL[attr] : null;   /* computed for the choice */
    var e = mine || PROV[attr];
    tip.innerHTML = "";
    var head = add(tip, "div", "mt-head");
    add(head, "span", "mt-name", e ? (e.name && (e.name[lang] || e.name.en)) || e.attr : attr);
    add(head, "span", "mt-val", span.textContent);
    if (mine) {
      add(tip, "p", "mt-choice", T("choice_inputs", { choice: currentLabel, reference: refLabel, value: span.getAttribute("data-ref") }));
    } else if (current && span.textContent !== span.getAttribute("data-ref")) {
      add(tip, "p", "mt-choice", T("shown_for", { choice: currentLabel, value: span.textContent }) + T("sentence_space") +
        T("ref_inputs", { reference: refLabel, value: span.getAttribute("data-ref") }));
    } else if (current) {
      add(tip, "p", "mt-choice", T("ref_inputs", { reference: refLabel, value: span.getAttribute("data-ref") }));
    }
    if (!e) { add(tip, "p", "mt-none", T("no_explanation")); return; }
    /* the formula first (the declared equation of the function that computes it), the code folded away */
    /* only when the value is that function's result: the first step is the quantity the output formats */
    var fn = e.function || ((e.steps || [])[0] || {}).function;
    if (fn && fn.equation) {
      var eqp = add(tip, "p", "mt-formula");
      var title = fn["title_" + lang];
      if (title) { add(eqp, "span", "mt-fname", title); eqp.appendChild(document.createTextNode(T("colon"))); }
      add(eqp, "span", "mt-eq", fn.equation);
      if (fn.unit) add(eqp, "span", "mt-unit", " [" + fn.unit + "]");
    }
    var fold = add(tip, "details", "mt-fold");
    add(fold, "summary", "mt-h", T("steps"));
    if (e.expr) { var f = add(fold, "div", "mt-expr"); add(f, "code", "", e.expr); }
    if (e.steps && e.steps.length) {
      var ol = add(fold, "ol", "mt-steps");
      e.steps.forEach(function (s) {
        var li = add(ol, "li");
        add(li, "code", "", s.name + (s.expr ? " = " + tidy(s.expr) : ""));
        if (s.value != null) { li.appendChild(document.createTextNode(" → ")); add(li, "b", "", valueUnit(s)); }
        fnLine(li, s.function);
      });
    }
    if (e.inputs && e.inputs.length) {
      add(fold, "div", "mt-h", T("inputs"));
      var ul = add(fold, "ul", "mt-inputs");
      e.inputs.forEach(function (d) {
        var li = add(ul, "li");
        if (d.entry) add(li, "span", "mt-entry", d.entry + " · ");
        add(li, "code", "", d.name);
        if (d.value != null && !/ items$/.test(String(d.value))) { li.appendChild(document.createTextNode(" = ")); add(li, "b", "", valueUnit(d)); }
        if (d.scenario) add(li, "div", "mt-scn", T("scenario", { scenario: d.scenario }));
        if (d.note) add(li, "div", "mt-note", d.note);
        fnLine(li, d.function);
        var s = d.source;
        if (s && typeof s === "object") {
          var sd = add(li, "div", "mt-src");
          sd.appendChild(document.createTextNode(T("source")));
          var t = (s.publisher ? s.publisher + ", " : "") + (s.title || s.url || "");
          if (s.url && /^https?:\/\//.test(s.url)) {
            var a = add(sd, "a", "", t);
            a.href = s.url;
            a.rel = "noopener";
          } else sd.appendChild(document.createTextNode(t));
          if (s.note) add(sd, "div", "mt-note", s.note);
        }
      });
    }
  }
  function place(span) {
    var rects = span.getClientRects(), r = rects.length ? rects[0] : span.getBoundingClientRect();
    var bar = document.querySelector(".topbar"), barH = bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
    tip.style.left = "0px";
    tip.style.top = "0px";
    tip.style.maxHeight = "";
    var w = tip.offsetWidth, h = tip.offsetHeight, vw = document.documentElement.clientWidth, vh = window.innerHeight;
    var below = vh - r.bottom - 10, above = r.top - barH - 10;
    var under = h <= below || (h > above && below >= above);
    var room = under ? below : above;
    if (h > room) { tip.style.maxHeight = Math.max(100, room) + "px"; h = tip.offsetHeight; }
    var top = under ? r.bottom + 6 : r.top - h - 6;
    var left = Math.min(Math.max(8, r.left), Math.max(8, vw - w - 8));
    tip.style.left = (left + window.scrollX) + "px";
    tip.style.top = (top + window.scrollY) + "px";
  }
  function show(span) {
    clearTimeout(hideTimer);
    if (owner && owner !== span) owner.removeAttribute("aria-describedby");
    owner = span;
    fill(span);
    if (document.activeElement === span) add(tip, "p", "mt-keys", T("keys"));
    tip.hidden = false;
    span.setAttribute("aria-describedby", "mlsysim-tip");
    span.classList.add("mlsysim-v-open");
    place(span);
  }
  function hide() {
    clearTimeout(hideTimer);
    tip.hidden = true;
    if (owner) { owner.removeAttribute("aria-describedby"); owner.classList.remove("mlsysim-v-open"); }
    owner = null;
  }
  function later() { clearTimeout(hideTimer); hideTimer = setTimeout(hide, 250); }
  function spanOf(t) { return t && t.closest ? t.closest(".mlsysim-v") : null; }

  document.addEventListener("mouseover", function (ev) {
    var s = spanOf(ev.target);
    if (s) show(s);
    else if (tip.contains(ev.target)) clearTimeout(hideTimer);
  });
  document.addEventListener("mouseout", function (ev) {
    var s = spanOf(ev.target) || (tip.contains(ev.target) ? tip : null);
    if (!s || !owner) return;
    var to = ev.relatedTarget;
    if (to && (tip.contains(to) || owner.contains(to))) return;
    if (document.activeElement === owner) return;
    later();
  });
  document.addEventListener("focusin", function (ev) {
    var s = spanOf(ev.target);
    if (s) show(s);
    else if (!tip.contains(ev.target)) hide();
  });
  document.addEventListener("focusout", function (ev) {
    if (!owner) return;
    var to = ev.relatedTarget;
    if (to && (tip.contains(to) || spanOf(to))) return;
    if (spanOf(ev.target) || tip.contains(ev.target)) later();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && owner) {
      var o = owner;
      hide();
      if (document.activeElement !== o && tip.contains(document.activeElement)) o.focus();
      ev.stopPropagation();
    } else if ((ev.key === "Enter" || ev.key === " ") && spanOf(ev.target)) {
      var s2 = spanOf(ev.target);
      if (owner === s2) hide(); else show(s2);
      ev.preventDefault();
    } else if (spanOf(ev.target) && !ev.altKey && !ev.ctrlKey && !ev.metaKey &&
               (ev.key === "ArrowRight" || ev.key === "ArrowLeft" || ev.key === "Home" || ev.key === "End")) {
      var from = spanOf(ev.target), to = null;
      if (ev.key === "ArrowRight") to = step(from, 1);
      else if (ev.key === "ArrowLeft") to = step(from, -1);
      else if (ev.key === "Home") to = usable(spans[0]) ? spans[0] : step(spans[0], 1);
      else to = usable(spans[spans.length - 1]) ? spans[spans.length - 1] : step(spans[spans.length - 1], -1);
      if (to) { rove(to); to.focus(); }
      ev.preventDefault();
    }
  });
  document.addEventListener("click", function (ev) {
    var s = spanOf(ev.target);
    if (s) { if (owner !== s) show(s); }
    else if (owner && !tip.contains(ev.target)) hide();
  });
  window.addEventListener("resize", function () { if (owner) place(owner); });
})();
