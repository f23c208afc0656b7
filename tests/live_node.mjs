// Boot the vendored Pyodide in Node.js, install pint's wheels from disk, unpack the build's mlsysim
// bundle and run a chapter's cells for the given choices with the live runtime (what live.js does in
// the browser, minus the page). Used by tests/release/test_live_runtime.py; prints one JSON object.
//   node tests/live_node.mjs VENDOR_DIR BUNDLE_ZIP PAYLOAD_JSON
// PAYLOAD_JSON: {"cells": [...], "figures": [...], "root": "/book", "precision": "fp8", "choices": [...], "lang": "en"}
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [vendor, bundle, payloadFile] = process.argv.slice(2);
const t0 = performance.now();
const { loadPyodide } = await import(pathToFileURL(path.join(vendor, "pyodide", "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: path.join(vendor, "pyodide") + "/", packages: [], stdout: () => {}, stderr: () => {} });
const bootMs = performance.now() - t0;
for (const w of fs.readdirSync(path.join(vendor, "wheels")).sort()) {
  py.unpackArchive(new Uint8Array(fs.readFileSync(path.join(vendor, "wheels", w))), "wheel");
}
py.unpackArchive(new Uint8Array(fs.readFileSync(bundle)), "zip", { extractDir: "/home/pyodide/live" });
py.globals.set("PAYLOAD", fs.readFileSync(payloadFile, "utf8"));
const out = py.runPython(`
import json, sys, time
sys.path.insert(0, "/home/pyodide/live")
t = time.perf_counter()
blocked = True
try:
    import numpy  # noqa: F401 - Pyodide's npm package ships none: mlsysim must not need it
    blocked = False
except ImportError:
    pass
import mlsysim, numpy_lite
import_s = time.perf_counter() - t
sys.modules.setdefault("numpy", numpy_lite)
import live_runtime as R
P = json.loads(PAYLOAD)
results, figures, times = [], [], []
for ch in P["choices"]:
    t = time.perf_counter()
    res, module = R.run_choice(P["cells"], ch, root=P["root"], precision=P["precision"])
    figs = R.figures(module, P["figures"], ch, P["lang"], root=P["root"], precision=P["precision"]) if module and P["figures"] else {}
    times.append(time.perf_counter() - t)
    results.append(res)
    figures.append(figs)
json.dumps({"no_numpy": blocked, "python": sys.version.split()[0], "import_s": import_s, "results": results,
            "figures": figures, "times_s": times, "pint": __import__("pint").__version__})
`);
const res = JSON.parse(out);
res.boot_ms = bootMs;
process.stdout.write(JSON.stringify(res));
