/* Live mode: the chapter's own cells, run in the reader's browser with the reader's inputs.
   Loaded on demand by reader.js (the "Live" control of the choice bar, or ?live=1), from the book's
   live/ folder (bookbuild/book/live): Pyodide's core (live/pyodide/), the wheels of pint and its
   dependencies (live/wheels/), and live/mlsysim.zip (mlsysim with its data, the build's live runtime
   bookbuild/book/live/runtime.py and numpy_lite.py). Nothing leaves the page: every file is the book's.

   The page's <page>.live.json holds the cells the build's variants run, in order; live_runtime.run_choice
   runs them under mlsysim.scenario.use(choice) exactly as the build does for a registry choice, so a
   registry choice computed here is the build's variant, string for string (tests/test_live_browser.py).
   The result goes to reader.js (window.MLSYSIM_READER.show), which swaps every value span and marks
   broken claims as for a precomputed choice; figures are redrawn from the figure cells' descriptions
   through figures.js (window.mlsysimFigures.update).

   window.MLSYSIM_LIVE: start(api), compute(choice) (a Promise of the entry shown), timings
   ({boot_ms, first_ms, changes: [ms, ...]}); html[data-mlsysim-live] is "loading", "ready" or "error". */
(function () {
  "use strict";
  if (window.MLSYSIM_LIVE) return;
  var doc = document.documentElement;
  var T0 = 0, api = null, py = null, data = null, inputs = [], fields = {}, panel = null, pending = null;
  var timings = { boot_ms: null, first_ms: null, first_figures_ms: null, changes: [], figures: [] };
  var generation = 0;
  /* what live mode says, in the page's language: T(key, values) from reader.js (window.MLSYSIM_READER.T,
     the page's strings P.ui.live, bookbuild/book/ui/<lang>.toml): {name} filled with values, as text */
  var T = function (key) { return key; }, units = {};   /* units: the words of live inputs' units (T's table) */

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function say(lines) { if (api) api.status(lines); }
  function style() {
    var css = ".mc-live-panel{margin:.4rem 0;padding:.4rem 0;border-top:1px solid var(--border,#ddd)}" +
      ".mc-live-panel .mc-live-grid{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:flex-end}" +
      ".mc-live-panel label{display:flex;flex-direction:column;font-size:.85rem;gap:.1rem}" +
      ".mc-live-panel input{width:8.5em;font:inherit;padding:.1rem .3rem}" +
      ".mc-live-panel .mc-live-unit{color:var(--muted,#666);font-size:.8rem}" +
      ".mc-live-panel .mc-live-bad{outline:2px solid var(--callout-important,#c00)}";
    var s = el("style");
    s.textContent = css;
    document.head.appendChild(s);
  }

  /* ---------- the interpreter's snapshot, in the browser's Cache Storage (localhost and https only) ----------
     saved with its SHA-256 (a header of the stored response); a snapshot whose bytes do not match it, or
     that Pyodide cannot start from, is discarded (timings.snapshot_discarded), and the page boots as a first
     visit does: a damaged copy in the browser's cache never breaks a later visit */
  async function sha256(bytes) {
    var d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return Array.prototype.map.call(d, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }
  function whole(b) {   /* the shape of Pyodide's snapshot: a header (its size, a multiple of 16, in the second word) and
                          the interpreter's memory after it, whole 64 KiB pages; anything else would hang its loader */
    if (b.length < 48 || b.length % 4) return false;
    var w = new Uint32Array(b.buffer, b.byteOffset, 3), head = w[1];
    return head >= 48 && head % 16 === 0 && w[2] <= head && head < b.length && (b.length - head) % 65536 === 0;
  }
  var snapshot = {
    name: "mlsysim-live-snapshots",
    header: "X-Mlsysim-Sha256",
    can: function () { return !!(window.caches && window.isSecureContext && window.crypto && crypto.subtle); },
    load: async function (key) {
      if (!this.can()) return null;
      try {
        var r = await (await caches.open(this.name)).match(key);
        if (!r) return null;
        var want = r.headers.get(this.header), got = new Uint8Array(await r.arrayBuffer());
        if (want && whole(got) && await sha256(got) === want) return got;
      } catch (e) { /* unreadable: discarded below */ }
      await this.discard(key);
      return null;
    },
    discard: async function (key) {
      timings.snapshot_discarded = true;
      try { await (await caches.open(this.name)).delete(key); } catch (e) { /* nothing kept to discard */ }
    },
    save: async function (key, bytes) {
      try {
        var c = await caches.open(this.name), headers = { "Content-Type": "application/octet-stream" };
        headers[this.header] = await sha256(bytes);
        (await c.keys()).forEach(function (k) { if (k.url !== key) c.delete(k); });   /* older versions */
        await c.put(key, new Response(bytes, { headers: headers }));
        timings.snapshot_saved = bytes.length;
      } catch (e) { /* a full or refused cache: no snapshot */ }
    }
  };

  /* ---------- the runtime's files, checked against the manifest before Pyodide reads them ----------
     a missing or damaged file (live/pyodide/pyodide.asm.wasm truncated, a wheel replaced) is refused by
     name, in the page's language, instead of a WebAssembly loader that never answers */
  function Missing(file, damaged) {
    var e = new Error(file + (damaged ? ": damaged" : ": missing"));
    e.live = { key: damaged ? "damaged" : "missing", file: file };
    return e;
  }
  async function checked(base, name, manifest, v) {
    var r;
    try { r = await fetch(base + name + (v || "")); } catch (e) { throw Missing(name, false); }
    if (!r.ok) throw Missing(name, false);
    var b = new Uint8Array(await r.arrayBuffer()), want = manifest.files[name];
    if (want && (b.length !== want.size || (window.crypto && crypto.subtle && await sha256(b) !== want.sha256)))
      throw Missing(name, true);
    return b;
  }

  /* ---------- boot: Pyodide, the wheels, mlsysim, the page's cells ---------- */
  async function boot() {
    var base = new URL(api.live.base, window.location.href).href;
    var v = api.live.v ? "?v=" + encodeURIComponent(api.live.v) : "";
    var manifest;
    try { manifest = await (await fetch(base + "manifest.json" + v)).json(); }
    catch (e) { throw Missing("manifest.json", false); }
    /* the files Python needs download while Pyodide starts; Pyodide's own are checked first */
    var files = Promise.all(manifest.wheels.map(function (w) { return checked(base, "wheels/" + w, manifest); })
      .concat([checked(base, "mlsysim.zip", manifest, v), fetch(api.live.data + v).then(function (r) {
        if (!r.ok) throw Missing(api.live.data, false);
        return r.json();
      })]));
    files.catch(function () { /* reported where it is awaited */ });
    await Promise.all(Object.keys(manifest.files).filter(function (n) { return n.indexOf("pyodide/") === 0; })
      .map(function (n) { return checked(base, n, manifest); }));
    var mod = await import(base + "pyodide/pyodide.mjs");
    /* a later visit starts from the interpreter as the first one left it after importing mlsysim (Pyodide's
       memory snapshot, kept by the browser per version of the live files); a first visit makes it */
    var snapKey = window.location.origin + "/mlsysim-live-snapshot?v=" + encodeURIComponent(manifest.version);  /* both books */
    var snap = await snapshot.load(snapKey);
    function options(from) {   /* a new object each time: loadPyodide writes into the one it is given */
      var o = { indexURL: base + "pyodide/", lockFileURL: base + "pyodide/pyodide-lock.json", packages: [],
                fullStdLib: false, stdout: function () {}, stderr: function () {} };
      if (from) o._loadSnapshot = from; else if (snapshot.can()) o._makeSnapshot = true;
      return o;
    }
    var opts = options(snap);
    try {
      py = await mod.loadPyodide(opts);
    } catch (e) {
      if (!snap) throw e;
      await snapshot.discard(snapKey);     /* a snapshot Pyodide cannot start from: start as a first visit */
      snap = null;
      opts = options(null);                /* and make a good one for the next visit */
      py = await mod.loadPyodide(opts);
    }
    timings.restored = !!snap;
    timings.pyodide_ms = Math.round(performance.now() - T0);
    var got = await files;
    /* pint's parsed unit definitions, kept by the browser (IndexedDB, this origin: both books, every page) */
    var cache = "/home/pyodide/.cache/pint";
    if (!snap) try {
      py.FS.mkdirTree(cache);
      py.FS.mount(py.FS.filesystems.IDBFS, {}, cache);
      await new Promise(function (r) { py.FS.syncfs(true, function () { r(); }); });
    } catch (e) { /* no IndexedDB (a private window): pint parses its files, as on a first visit */ }
    manifest.wheels.forEach(function (w, i) { py.unpackArchive(got[i], "wheel"); });
    py.unpackArchive(got[manifest.wheels.length], "zip", { extractDir: "/home/pyodide/live" });
    data = got[manifest.wheels.length + 1];
    py.runPython([
      "import json, sys",
      "if '/home/pyodide/live' not in sys.path: sys.path.insert(0, '/home/pyodide/live')",
      "import mlsysim, numpy_lite",                       /* pint first, with no numpy in sight */
      "sys.modules.setdefault('numpy', numpy_lite)",      /* then the figures' numpy subset */
      "import live_runtime as R, mlsysim.figures, mlsysim.measurements, mlsysim.explorer"
    ].join("\n"));
    timings.imports_ms = Math.round(performance.now() - T0) - timings.pyodide_ms;
    if (opts._makeSnapshot) {
      try { var made = py.makeMemorySnapshot(); setTimeout(function () { snapshot.save(snapKey, made); }, 1000); }
      catch (e) { /* no snapshot this time: the next visit boots as this one did */ }
    }
    py.globals.set("LIVE_DATA_JSON", JSON.stringify(data));
    py.globals.set("LIVE_LANG", api.lang);   /* the book's profile is its language: a cell may word values in it */
    py.runPython([
      "import json",
      "import live_runtime as R",
      "LIVE = json.loads(LIVE_DATA_JSON)",
      "LAST = {}",
      "def live_compute(choice_json):",
      "    ch = json.loads(choice_json)",
      "    res, module = R.run_choice(LIVE['cells'], ch, root=LIVE['root'], precision=LIVE['precision'], profile=LIVE_LANG)",
      "    LAST.update(module=module, choice=ch)",
      "    return json.dumps(res, allow_nan=False)",
      "def live_figures(lang):",
      "    if LAST.get('module') is None: return json.dumps({'figures': {}, 'failed': []})",
      "    return json.dumps(R.figures(LAST['module'], LIVE['figures'], LAST['choice'], lang, root=LIVE['root'], precision=LIVE['precision'], profile=LIVE_LANG), allow_nan=False)",
      "def live_inputs(choice_json):",
      "    return json.dumps(R.free_inputs(LIVE['chapter'], json.loads(choice_json), LIVE['precision']))",
      "def live_check(choice_json):",
      "    return json.dumps(R.input_problem(json.loads(choice_json), LIVE['precision']))"
    ].join("\n"));
    try { py.FS.syncfs(false, function () {}); } catch (e) { /* nothing to keep */ }
  }

  /* ---------- the inputs ---------- */
  function registryChoice() {
    var c = {};
    if (api.select) {
      c.accelerator = api.select.accelerator.value; c.model = api.select.model.value;
      if (api.select.precision) c.precision = api.select.precision.value;
    } else {
      ["accelerator", "model", "precision"].forEach(function (k) { if (api.params.get(k)) c[k] = api.params.get(k); });
    }
    return c;
  }
  function choice() {
    var c = registryChoice();
    inputs.forEach(function (f) {
      var v = fields[f.key].value.trim();
      if (v !== "" && !same(f, v)) c[f.key] = f.options ? v : v.replace(/,/g, "");
    });
    return c;
  }
  function same(f, v) {   /* a typed value equal to the reference is the reference (a registry choice) */
    if (f.options) return String(v) === String(f.reference);
    var x = Number(v.replace(/,/g, ""));
    return isFinite(x) && Math.abs(x - f.reference) <= 1e-12 * Math.abs(f.reference);
  }
  function shown(x) { return typeof x === "number" ? String(Number(x.toPrecision(12))) : String(x); }
  function refreshReferences() {
    inputs = JSON.parse(py.globals.get("live_inputs")(JSON.stringify(registryChoice())));
    inputs.forEach(function (f) {
      var input = fields[f.key];
      if (!input) return;
      if (input.tagName === "SELECT") {
        input.options[0].textContent = T("reference_option", { value: f.reference });
      } else input.placeholder = shown(f.reference);
    });
  }
  function buildPanel() {
    panel = el("div", "mc-live-panel");
    panel.id = "mlsysim-live";
    panel.appendChild(el("p", "mc-intro", T("title")));
    var grid = el("div", "mc-live-grid");
    inputs.forEach(function (f) {
      var lab = el("label");
      /* the unit after the name, as the language sets it (Chinese: a word in full-width brackets, no space) */
      var name = el("span", "", (f.label[api.lang] || f.label.en) + (f.unit ? T("unit_gap") : ""));
      if (f.unit) name.appendChild(el("span", "mc-live-unit", T("unit", { unit: units[f.unit] || f.unit })));
      lab.appendChild(name);
      var input;
      if (f.options) {   /* a precision, or a count that takes only some values (the lecture's key-value heads) */
        input = el("select");
        input.appendChild(el("option", "", ""));
        input.options[0].value = "";
        f.options.forEach(function (o) { var op = el("option", "", String(o)); op.value = String(o); input.appendChild(op); });
      } else {
        input = el("input");
        input.type = "text";
        input.inputMode = "decimal";
        input.autocomplete = "off";
      }
      input.id = "mlsysim-live-" + f.key;
      input.setAttribute("data-key", f.key);
      var q = api.params.get(f.key);
      if (q !== null) input.value = q;
      input.addEventListener("change", schedule);
      if (input.tagName === "INPUT") input.addEventListener("input", schedule);
      fields[f.key] = input;
      lab.appendChild(input);
      grid.appendChild(lab);
    });
    var reset = el("button", "mc-live-reset", T("reset"));
    reset.type = "button";
    reset.addEventListener("click", function () {
      inputs.forEach(function (f) { fields[f.key].value = ""; });
      schedule();
    });
    grid.appendChild(reset);
    panel.appendChild(grid);
    api.bar.insertBefore(panel, api.button.parentNode.nextSibling);
    refreshReferences();
    if (api.select) {
      [api.select.accelerator, api.select.model, api.select.precision].forEach(function (s) {
        if (!s) return;
        s.addEventListener("change", function () { refreshReferences(); schedule(); });
      });
      var back = api.bar.querySelector(".mc-reset");   /* the choice bar's Reference: the live inputs too */
      if (back) back.addEventListener("click", function () {
        inputs.forEach(function (f) { fields[f.key].value = ""; });
        refreshReferences();
        schedule();
      });
    }
  }
  function updateUrl(c) {
    var p = api.params;
    p.set("live", "1");
    inputs.forEach(function (f) { if (c.hasOwnProperty(f.key)) p.set(f.key, c[f.key]); else p.delete(f.key); });
    try { history.replaceState(null, "", window.location.pathname + "?" + p.toString() + window.location.hash); }
    catch (e) { /* some browsers refuse it on file: pages */ }
  }

  /* ---------- compute and show ---------- */
  var timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(function () { compute(choice()); }, 120);
  }
  function labelOf(res, c) {
    var parts = [res.accelerator, res.model];
    inputs.forEach(function (f) { if (c.hasOwnProperty(f.key)) parts.push((f.label[api.lang] || f.label.en) + " " + c[f.key] + (f.unit ? " " + f.unit : "")); });
    return parts.join(T("list_separator"));
  }
  function protects(g) {
    for (var i = 0; i < data.protects.length; i++) {
      var p = data.protects[i];
      if (p.file === g.file && p.line === g.line) return p.protects;
    }
    return [];
  }
  function redraw(figs) {
    var done = [];
    Object.keys(figs).forEach(function (key) {
      var div = document.querySelector('.mlsysim-plot[data-figure="' + key + '"]');
      var old = div && window.mlsysimFigures && window.mlsysimFigures.spec(div);   /* drawn or not yet */
      if (!old) return;
      window.mlsysimFigures.update(div, { data: figs[key].data, layout: figs[key].layout, config: old.config, dark: old.dark });
      done.push(key);
    });
    return done;
  }
  /* why an input or a choice is not computed, in the page's language: the error's meaning worded by the
     page's table (reader.js's reason), with the input's label and unit as this page names them; the
     library's English line where the error carries no meaning (a cell's own failure) */
  function worded(why, text) {
    var f = why && why.key ? inputs.filter(function (i) { return i.key === why.key; })[0] : null;
    var extra = { input: f ? (f.label[api.lang] || f.label.en) : why && why.key || "",
                  unit: f && f.unit ? " " + (units[f.unit] || f.unit) : "" };
    return (api.reason && api.reason(why, extra)) || String(text).replace(/^[A-Za-z]+Error:\s*/, "");
  }
  async function compute(c) {
    var t = performance.now();
    inputs.forEach(function (f) { fields[f.key].classList.remove("mc-live-bad"); });
    var bad = JSON.parse(py.globals.get("live_check")(JSON.stringify(c)));
    if (bad.text) {
      window.MLSYSIM_LIVE.last = { choice: c, invalid: bad.text, why: bad.why || null };
      var key = (bad.why && bad.why.key) || bad.text.split(":")[0];
      if (fields[key]) fields[key].classList.add("mc-live-bad");
      say([{ cls: "mcs-error", text: T("invalid", { reason: worded(bad.why, bad.text) }) }]);
      return null;
    }
    var res = JSON.parse(py.globals.get("live_compute")(JSON.stringify(c)));
    var mine = ++generation;
    if (res.error) {
      window.MLSYSIM_LIVE.last = { choice: c, result: res, figures: [] };
      say([{ cls: "mcs-error", text: T("invalid", { reason: worded(res.why, res.error) }) }]);
      return null;
    }
    var values = {};   /* a value declared reference-only describes the reference: never swapped */
    Object.keys(res.values).forEach(function (k) { if ((res.reference_only || []).indexOf(k) < 0) values[k] = res.values[k]; });
    var entry = { key: "live|" + JSON.stringify(c), label: labelOf(res, c), values: values, node: res.node,
                  precision: res.precision, pool: res.pool, note: res.note, figures: [],
                  choice: { accelerator: c.accelerator, model: c.model, precision: c.precision },
                  failed: res.failed.map(function (g) { return { file: g.file, line: g.line, message: g.message, zh: g.zh, protects: protects(g) }; }) };
    var ms = Math.round(performance.now() - t);
    entry.lines = [{ cls: "mcs-note", text: T("ready", { ms: ms }) }];
    api.show(entry);     /* the text first; the figures in the next task, after the browser has painted it */
    Array.prototype.forEach.call(document.querySelectorAll(".mlsysim-lecture-note"), function (n) {
      n.parentNode.removeChild(n);   /* "computed for the reference hardware": no longer so, the page follows the choice */
    });
    updateUrl(c);
    var first = timings.first_ms === null;
    if (first) timings.first_ms = Math.round(performance.now() - T0);
    else timings.changes.push(ms);
    window.MLSYSIM_LIVE.last = { choice: c, result: res, figures: [] };
    await new Promise(function (r) { setTimeout(r, 0); });
    if (mine !== generation) return entry;          /* a newer input arrived: its figures will follow it */
    var tf = performance.now();
    var figs = JSON.parse(py.globals.get("live_figures")(api.lang));
    var drawn = redraw(figs.figures);
    drawn.forEach(function (key) {                  /* these follow the choice: not "shown at the reference" */
      var div = document.querySelector('.mlsysim-plot[data-figure="' + key + '"]');
      var fig = div && div.closest("figure");
      if (fig) Array.prototype.forEach.call(fig.querySelectorAll(".mlsysim-fig-note"), function (n) { n.parentNode.removeChild(n); });
    });
    if (figs.failed.length) {
      var st = api.bar.querySelector(".mc-status");
      if (st) st.appendChild(el("p", "mcs-note", T("figures_kept", { figures: figs.failed.map(function (f) { return f.label; }).join(T("figure_separator")) })));
    }
    if (figs.values && api.values) api.values(figs.values);   /* the words of the figure cells follow their figures */
    entry.figures = drawn;
    window.MLSYSIM_LIVE.last.figures = drawn;
    var fms = Math.round(performance.now() - tf);
    if (first) timings.first_figures_ms = Math.round(performance.now() - T0);
    else timings.figures.push(fms);
    doc.setAttribute("data-mlsysim-live-n", String((+doc.getAttribute("data-mlsysim-live-n") || 0) + 1));
    return entry;
  }

  async function start(a) {
    if (py) return;
    api = a;
    if (api.T) { T = api.T; units = T.table.units || {}; }
    if (api.live.unavailable || window.location.protocol === "file:") {   /* say why, change nothing */
      say([{ cls: "mcs-note", text: api.live.unavailable ? T("none") : T("file") }]);
      api.button.disabled = false;
      return;
    }
    T0 = performance.now();
    doc.setAttribute("data-mlsysim-live", "loading");
    say([{ cls: "mcs-note", text: T("loading") }]);
    try {
      style();
      await boot();
      timings.boot_ms = Math.round(performance.now() - T0);
      say([{ cls: "mcs-note", text: T("running") }]);
      inputs = JSON.parse(py.globals.get("live_inputs")(JSON.stringify(registryChoice())));
      buildPanel();
      api.button.hidden = true;
      await compute(choice());
      doc.setAttribute("data-mlsysim-live", "ready");
    } catch (e) {
      py = null;
      doc.setAttribute("data-mlsysim-live", "error");
      var reason = e && e.live ? (e.live.key === "damaged" ? T("damaged", { file: "live/" + e.live.file })
                                                          : T("missing", { file: "live/" + e.live.file }))
                               : String(e && e.message || e).split("\n").slice(-2).join(" ");
      say([{ cls: "mcs-error", text: T("failed", { reason: reason }) }]);
      api.offerStatic();
      api.button.disabled = false;
    }
  }

  window.MLSYSIM_LIVE = { start: start, compute: function (c) { return compute(c); }, timings: timings,
                          inputs: function () { return inputs; } };
})();
