"""Live mode's runtime outside the browser: ``import mlsysim`` needs only pint, and the vendored Pyodide
(booted once, in Node.js) runs the appendix's own cells to exactly the strings the build's variants
compute in CPython, registry choices and free values alike; its figures are the build's figures."""
from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bookbuild.book import live as L
from bookbuild.book.live import runtime as R
from bookbuild.book.variants import cell_records, keep, one_choice
from bookbuild.execute import RunOptions
from bookbuild.source import parse

ROOT = Path(__file__).resolve().parents[2]
APPENDIX = "appendix/inference-cost.qmd"
CHOICES = [{"accelerator": "H100", "model": "Llama3_1_70B"},               # the reference
           {"accelerator": "B200", "model": "Llama3_3_70B"},               # a registry choice, broken claims
           {"accelerator": "H100", "model": "Llama3_1_70B", "bandwidth": "6"}]   # a free value


def blocked_python(code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter in which numpy, matplotlib and plotly cannot be imported."""
    prelude = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("numpy", "matplotlib", "plotly"):
                    raise ImportError(f"{name} is blocked in this test")
        sys.meta_path.insert(0, Block())
    """)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                                                       "HOME": str(ROOT / "_build"), "MLSYSIM_UNIT_CACHE": "off"})


def test_import_mlsysim_needs_only_pint():
    r = blocked_python("""
        import mlsysim, mlsysim.scenario as S
        from mlsysim.reference import reference_values
        assert not any(m.split(".")[0] in ("numpy", "matplotlib", "plotly") for m in sys.modules), "imported"
        sc = S.scenario("H100", bandwidth="6 TB/s")
        v = reference_values(sc.accelerator, sc.model)
        print(round(v.ridge_flop_per_byte, 6), round(v.decode_floor_s * 1e3, 6))
    """)
    assert r.returncode == 0, r.stderr
    # π/β = 1978.9e12 / 6e12 and N·b/β = 70.6e9 · 1 byte / 6e12 byte/s, by hand from the registry
    ridge, t_dec_ms = map(float, r.stdout.split())
    assert abs(ridge - 1978.9 / 6) < 1e-6
    assert abs(t_dec_ms - 70.6e9 / 6e12 * 1e3) < 1e-6   # models.toml: 70.6e9 parameters


def test_the_cli_reproduces_free_values_with_numpy_blocked():
    r = blocked_python("""
        from mlsysim.cli import main
        raise SystemExit(main(["reference", "--bandwidth", "6", "--json"]))
    """)
    assert r.returncode == 0, r.stderr
    v = json.loads(r.stdout)
    assert v["bandwidth_bytes_per_s"] == 6e12 and abs(v["ridge_flop_per_byte"] - 1978.9e12 / 6e12) < 1e-9


def test_the_bundle_is_reproducible_and_holds_the_runtime():
    a = L.bundle_bytes(ROOT / "mlsysim")
    assert a == L.bundle_bytes(ROOT / "mlsysim")
    import io
    import zipfile
    names = zipfile.ZipFile(io.BytesIO(a)).namelist()
    assert {"live_runtime.py", "numpy_lite.py", "mlsysim/__init__.py", "mlsysim/data/reference.toml",
            "mlsysim/data/units.txt"} <= set(names)
    assert not any("__pycache__" in n for n in names)


def test_numpy_lite_follows_numpy_where_the_figures_use_it():
    np = pytest.importorskip("numpy")
    from bookbuild.book.live import numpy_lite as nl
    for args in ((0, 0.95, 120), (1.0, 3.0, 7), (2.5, -1.0, 5)):
        assert list(nl.linspace(*args)) == [float(x) for x in np.linspace(*args)]
    lo, hi = math.log10(7.9), math.log10(1.2e6)
    ours, theirs = nl.logspace(lo, hi, 120), np.logspace(lo, hi, 120)
    assert max(abs(a - b) / b for a, b in zip(ours, theirs)) < 1e-15
    assert list(nl.unique(nl.concatenate([[3.0, 1.0], [2.0, 1.0]]))) == [1.0, 2.0, 3.0]
    assert list(4.0 / nl.array([1.0, 2.0]) - 1) == [3.0, 1.0] and nl.array([1, 5, 3]).max() == 5


# ───────────────────────────── the vendored Pyodide, once ─────────────────────────────

def _doc():
    return parse(APPENDIX, ROOT)


@pytest.fixture(scope="module")
def pyodide_run(tmp_path_factory):
    """One Node.js process: boots the vendored Pyodide, installs the wheels, runs the appendix for CHOICES."""
    assert shutil.which("node"), "the live-mode tests need Node.js (scripts/setup.sh checks for npm)"
    assert L.vendored(ROOT) is not None, "vendor/live/ is incomplete: run scripts/setup.sh (scripts/vendor_live.py)"
    tmp = tmp_path_factory.mktemp("live-node")
    (tmp / "mlsysim.zip").write_bytes(L.bundle_bytes(ROOT / "mlsysim"))
    doc = _doc()
    payload = {"cells": cell_records(doc, keep), "figures": [dict(c, figure=c["label"]) for c in cell_records(doc, L.figure_cell)],
               "root": L.BROWSER_ROOT, "precision": "fp8", "choices": CHOICES, "lang": "en"}
    (tmp / "payload.json").write_text(json.dumps(payload), encoding="utf-8")
    r = subprocess.run(["node", str(ROOT / "tests" / "live_node.mjs"), str(L.vendor_dir(ROOT)), str(tmp / "mlsysim.zip"),
                        str(tmp / "payload.json")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def test_pyodide_imports_mlsysim_without_numpy_and_with_the_builds_pint(pyodide_run):
    import pint
    assert pyodide_run["no_numpy"] is True
    assert pyodide_run["pint"] == pint.__version__, "vendor.toml must pin the pint the build runs"
    assert pyodide_run["python"].startswith("3.")


def test_pyodide_computes_exactly_the_builds_variants(pyodide_run, tmp_path):
    doc = _doc()
    opts = RunOptions(root=ROOT, fig_dir=tmp_path / "figures", md_dir=tmp_path, raw_errors=True, cell_timeout=120)
    for choice, live in zip(CHOICES, pyodide_run["results"]):
        assert "error" not in live, live.get("error")
        if set(choice) <= {"accelerator", "model"}:
            build = one_choice(doc, opts, choice, "fp8")     # what the build embeds for that choice
        else:
            with __import__("bookbuild.book.variants", fromlist=["chapter_process"]).chapter_process(doc, ROOT):
                build, _ = R.run_choice(cell_records(doc, keep), choice, root=str(ROOT), precision="fp8")
        assert live["values"] == build["values"], choice
        assert live["failed"] == build["failed"], choice
        assert {k: live[k] for k in ("accelerator", "model", "node", "precision", "note")} == \
               {k: build[k] for k in ("accelerator", "model", "node", "precision", "note")}
    ref, b200, fast = pyodide_run["results"]
    assert ref["failed"] == [] and len(ref["values"]) > 80
    # B200 holds more than the KV chapter's 48 trajectories: that author's pin fails, and is never reported
    assert b200["values"]["ServingRef.conc_agent_str"] != "48"
    assert not any("KV chapter" in f["message"] for f in b200["failed"])
    # 6 TB/s: the ridge is π/β = 1978.9 / 6 = 329.8 FLOP/byte, the decode floor N b / β = 11.8 ms (by hand)
    assert fast["values"]["ServingRef.ridge_str"] == "330" and fast["values"]["ServingRef.t_dec_val_str"] == "11.8"
    assert fast["values"]["ServingRef.bw_str"] == "6.00"


def test_pyodide_redraws_the_figures_the_build_draws(pyodide_run):
    from mlsysim.figures import plotly_json
    from bookbuild.book.variants import chapter_process
    doc = _doc()
    with chapter_process(doc, ROOT):
        _, module = R.run_choice(cell_records(doc, keep), CHOICES[0], root=str(ROOT), precision="fp8")
        figs = R.figures(module, [dict(c, figure=c["label"]) for c in cell_records(doc, L.figure_cell)], CHOICES[0],
                         "en", root=str(ROOT), precision="fp8")
    live = pyodide_run["figures"][0]
    assert live["failed"] == [] and set(live["figures"]) == set(figs["figures"]) >= {"roofline", "prefill", "batch",
                                                                                     "kv-designs", "queueing-knee"}
    for key, fig in figs["figures"].items():
        for a, b in zip(live["figures"][key]["data"], fig["data"]):
            for axis in ("x", "y"):
                xs, ys = a.get(axis) or [], b.get(axis) or []
                assert len(xs) == len(ys), (key, axis)
                for u, v in zip(xs, ys):
                    assert u == v or (isinstance(u, float) and abs(u - v) <= 1e-12 * abs(v)), (key, axis, u, v)
    # and the 6 TB/s roofline moved its ridge to π/β
    fast = pyodide_run["figures"][2]["figures"]["roofline"]
    ridge = next(t for t in fast["data"] if "Ridge" in str(t.get("name", "")))
    assert abs(ridge["x"][0] - 1978.9e12 / 6e12) < 1e-9
    del plotly_json


def test_a_build_without_the_vendored_runtime_ships_live_js_to_say_so(tmp_path):
    (tmp_path / "bookbuild" / "book").mkdir(parents=True)
    got = L.write_runtime(tmp_path, ROOT / "mlsysim", tmp_path / "out")
    assert got["unavailable"] == "vendor" and set(got["assets"]) == {"live/live.js"}
    assert L.page_pointer("appendix/x.html", got["version"], got["unavailable"]) == {
        "base": "../live/", "data": "x.live.json", "v": "none", "unavailable": "vendor"}


def test_live_data_names_the_chapter_and_ships_the_variants_cells():
    doc = _doc()
    data = L.page_data(doc, cell_records, keep, "fp8", [{"file": "f", "line": 1, "protects": ["A.b_str"]}])
    assert data["chapter"] == "appendix" and data["cells"] == cell_records(doc, keep)
    labels = [c["figure"] for c in data["figures"]]
    assert "fig-appdx-roofline" in labels and "calc-vol3-appendix-inference-figures" in labels
    assert not any("explorer" in lab for lab in labels)            # the explorer's cells are not figures
    lecture = L.page_data(parse("lectures/lecture19-agent-stalls.qmd", ROOT), cell_records, keep, "fp8", None)
    assert lecture["chapter"] == "lecture"


# ───────────────────────────── live mode's validator is the declared range ─────────────────────────────

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples


@settings(max_examples=examples(80), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_live_modes_validator_accepts_exactly_the_declared_range(data):
    """The page asks live_check (runtime.check_inputs) of every typed value: inside mlsysim.scenario.FREE's range
    it answers "" (the value computes), outside it one line naming the input, whatever the value (1e30, 1e308,
    1e-308, 5e-324, nan, words)."""
    import mlsysim.scenario as S
    key = data.draw(st.sampled_from([k for k, f in S.FREE.items() if not f.allowed and f.key != "context"]))
    f = S.FREE[key]
    inside = data.draw(st.one_of(st.sampled_from([f.low, f.high]),
                                 st.floats(math.log10(f.low), math.log10(f.high)).map(lambda e: 10 ** e))
                       .map(lambda x: min(f.high, max(f.low, x))))
    if f.kind in ("tokens", "count") or key == "capacity":
        inside = float(max(math.ceil(f.low), min(int(f.high), round(inside))))
    said = R.check_inputs({key: repr(inside)}, "fp8")
    # in range: computes, unless the lecture's budget then holds no session of its context (one line naming the budget)
    assert said == "" or (said.startswith("lecture_kv_budget: ") and "holds no standing session" in said
                          and "\n" not in said), (key, inside, said)
    outside = data.draw(st.one_of(st.sampled_from(["1e30", "1e308", "1e-308", "5e-324", "-1", "nan", "inf", "many"]),
                                  st.floats(f.high * 1.001, 1e308).map(repr), st.floats(-1e308, f.low * 0.999).map(repr))
                        .filter(lambda s: not _within(f, s)))
    said = R.check_inputs({key: outside}, "fp8")
    assert said.startswith(key + ": ") and "\n" not in said and f.range_text in said or "expected" in said, (key, outside, said)


def _within(f, text: str) -> bool:
    try:
        x = float(text)
    except ValueError:
        return False
    return math.isfinite(x) and f.low <= x <= f.high


@pytest.mark.parametrize("lang, path", [("en", "lectures/lecture19-agent-stalls.qmd"),
                                        ("zh", "lectures/lecture19-agent-stalls.zh.qmd")])
def test_the_lecture_computes_the_inputs_a_reader_typed_live(lang, path):
    """The lecture's cells, as live mode runs them, for the inputs that once gave "not a simple unit fraction"
    and "float division by zero": 15 s of tools and 90 s of model (a duty cycle of 90 / 105 = 6/7, 86 %),
    and a 2 GB budget, which holds no 2.147 GB session (16,384 tokens x 131,072 bytes): one line naming it."""
    cells = cell_records(parse(path, ROOT), keep)
    res, _ = R.run_choice(cells, {"accelerator": "H100", "t_tool": "15", "t_model": "90"}, root=str(ROOT),
                          precision="fp8", profile=lang)
    assert "error" not in res, res.get("error")
    assert res["values"]["StandingSession.duty_pct_str"] == "86" and not res["pins"]   # a claim it breaks is marked
    assert res["values"]["StandingSession.duty_words_str"] == {"en": "six sevenths", "zh": "七分之六"}[lang]
    res, _ = R.run_choice(cells, {"accelerator": "H100", "t_tool": "15", "t_model": "90", "lecture_kv_budget": "2"},
                          root=str(ROOT), precision="fp8", profile=lang)
    assert res["error"].startswith("InputError: lecture_kv_budget: 2 GB holds no standing session of 16,384 tokens")
    assert "\n" not in res["error"]
