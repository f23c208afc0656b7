"""The hover explains the chosen inputs: for a precomputed choice, each value's steps and inputs are the ones
the build computed for that choice (bookbuild.book.variants.one_choice explains each cell as the reference
build's hooks do; bookbuild.book.provenance.pack_choices ships what differs from the reference's explanation,
apply_choice and reader.js read it back).

Expected numbers and sources are read here from the registry's own data files (mlsysim/data/*.toml), not
from the library or the page. The first tests run a small chapter (fast tier); the last read the rendered
book (book tier, through the ``rendered_book`` fixture).
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from bookbuild.book.hooks import BookHooks
from bookbuild.book.provenance import CHOICE_FIELDS, apply_choice, pack, pack_choices, unpack
from bookbuild.book.variants import compact, one_choice
from bookbuild.execute import RunOptions, execute_chapter
from bookbuild.source import parse

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "mlsysim" / "data"
SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")

CHAPTER = """---
mlsysim-variants: true
---
# Decode

```{python}
#| label: calc-decode
from mlsysim import *

class Decode:
    sc = reference_scenario()
    accel = sc.accelerator
    model = sc.model
    bw = accel.memory.bandwidth.to("TB/s")
    n = model.parameters.to(ureg.count).magnitude
    t = (n * 2 * ureg.byte / bw).to("ms")   # the decode floor at 16 bits
    bw_str = fmt(bw.magnitude, precision=2)
    t_str = fmt(t.magnitude, precision=1)
```

It reads `{python} Decode.bw_str` TB/s: `{python} Decode.t_str` ms.
"""


def registry(name: str) -> dict:
    return tomllib.loads((DATA / name).read_text(encoding="utf-8"))


def number(shown: str) -> float:
    """A value as provenance prints it ("8", "2,039", "8.03 × 10⁹") as a float, read back by hand."""
    mant, _, exp = shown.replace(",", "").partition(" × 10")
    return float(f"{mant}e{exp.translate(SUPER)}" if exp else mant)


def quantity(text: str) -> tuple[float, str]:
    """A registry quantity string ("8 TB/s", "8.03e9 count") as (number, unit)."""
    v, _, unit = text.partition(" ")
    return float(v), unit


def run_small_chapter(tmp_path: Path, choices):
    (tmp_path / "ch.qmd").write_text(CHAPTER, encoding="utf-8")
    ec = execute_chapter(tmp_path / "ch.qmd", tmp_path, tmp_path / "fig", hooks=BookHooks(tmp_path))
    opts = RunOptions(root=tmp_path, fig_dir=tmp_path / "fig", md_dir=tmp_path, raw_errors=True, cell_timeout=60)
    doc = parse("ch.qmd", tmp_path)
    results = [one_choice(doc, opts, {"accelerator": a, "model": m, "precision": "fp8"}, "fp8") for a, m in choices]
    provenance = ec.extras["provenance"]
    data = compact(results, {u.expr.strip(): u.value for u in ec.inline}, None, provenance)
    return provenance, results, data


def test_a_choice_explains_itself_with_its_own_registry_values_and_sources(tmp_path):
    provenance, results, data = run_small_chapter(tmp_path, [("H100", "Llama3_1_70B"), ("B200", "Llama3_8B")])
    accels, models, sources = registry("accelerators.toml"), registry("models.toml"), registry("sources.toml")
    # the reference choice, recomputed by the variants, is explained exactly as the reference build explains it
    assert data["choices"]["H100|Llama3_1_70B|fp8"]["x"] == [] and "xu" not in data["choices"]["H100|Llama3_1_70B|fp8"]
    mine = apply_choice(pack(provenance), data["explain"], data["choices"]["B200|Llama3_8B|fp8"])
    assert set(mine) == {"Decode.bw_str", "Decode.t_str"}
    bw_in = next(i for i in mine["Decode.bw_str"]["inputs"] if i["name"] == "accel.memory.bandwidth")
    b200 = accels["B200"]["memory"]["bandwidth"]
    want_bw, want_unit = quantity(b200["value"])
    assert number(bw_in["value"]) == want_bw and bw_in["unit"] == want_unit
    assert bw_in["entry"] == accels["B200"]["display_name"]
    assert bw_in["source"]["title"] == sources[b200["source"]]["title"] and bw_in["source"]["note"] == b200["note"]
    h100_bw = quantity(accels["H100"]["memory"]["bandwidth"]["value"])[0]
    assert number(provenance["Decode.bw_str"]["inputs"][0]["value"]) == h100_bw != want_bw   # the reference: H100's
    t = mine["Decode.t_str"]
    params = next(i for i in t["inputs"] if i["name"] == "model.parameters")
    want_n = quantity(models["Llama3_8B"]["parameters"])[0]
    assert number(params["value"]) == want_n and params["entry"] == models["Llama3_8B"]["display_name"]
    assert params["source"]["title"] == sources[models["Llama3_8B"]["source"]]["title"]
    # the floor N·2 bytes / β, by hand from the registry's numbers (provenance shows four significant digits)
    floor_ms = want_n * 2 / (want_bw * 1e12) * 1e3
    step = next(s for s in t["steps"] if s["name"] == "t")
    assert abs(number(step["value"]) - floor_ms) <= 5e-4 * floor_ms and step["unit"] == "ms"
    # every field the choice's own explanation has is what the page reads back; the rest is the reference's code
    for attr, e in results[1]["explain"].items():
        for part in ("steps", "inputs"):
            got = [{k: d.get(k, "") for k in CHOICE_FIELDS} for d in mine[attr][part]]
            assert got == [{k: d.get(k, "") for k in CHOICE_FIELDS} for d in e[part]], (attr, part)
            assert [d.get("expr") for d in mine[attr][part]] == [d.get("expr") for d in provenance[attr][part]]


def test_the_page_carries_only_what_differs(tmp_path):
    provenance, _, data = run_small_chapter(tmp_path, [("H100", "Llama3_1_70B"), ("H100", "Llama3_8B")])
    packed, table = pack(provenance), data["explain"]
    x = data["choices"]["H100|Llama3_8B|fp8"]["x"]
    assert x and len(x) % 3 == 0
    for j in range(0, len(x), 3):
        item, field, code = packed["items"][x[j]], table["fields"][x[j + 1]], x[j + 2]
        new = table["sources"][code] if field == "source" else table["strings"][code]
        old = packed["sources"][item["source"]] if field == "source" else item.get(field, "")
        assert new != old, (item, field)
        assert field != "source" or "Llama" in new["title"] or "Meta" in new["publisher"]   # only the model changed
    shipped = json.dumps(table["strings"], ensure_ascii=False)
    assert "NVIDIA" not in shipped and "3.35" not in shipped   # the accelerator's entries are the reference's


def _packed(items, values):
    return {"sources": [], "functions": {}, "items": items, "values": values}


def test_a_chain_of_another_shape_or_a_shared_item_read_two_ways_keeps_the_reference():
    items = [{"name": "a", "expr": "x * 2", "value": "2"}, {"name": "x", "value": "1"},
             {"name": "b", "expr": "x + 1", "value": "2"}]
    packed = _packed(items, {"C.a_str": {"attr": "C.a_str", "steps": [0], "inputs": [1]},
                             "C.b_str": {"attr": "C.b_str", "steps": [2], "inputs": [1]},
                             "C.c_str": {"attr": "C.c_str", "steps": [2], "inputs": []},
                             "C.r_str": {"attr": "C.r_str", "steps": [], "inputs": [1]}})
    choice = {"C.a_str": {"steps": [{"name": "a", "value": "6"}], "inputs": [{"name": "x", "value": "3"}]},
              # x read as 4 here, as 3 above: the item both share cannot say both
              "C.b_str": {"steps": [{"name": "b", "value": "5"}], "inputs": [{"name": "x", "value": "4"}]},
              # another chain: a step more than the reference's
              "C.c_str": {"steps": [{"name": "b", "value": "5"}, {"name": "y", "value": "0"}], "inputs": []},
              "C.r_str": {"steps": [], "inputs": [{"name": "x", "value": "9"}]}}
    table, (entry, none) = pack_choices(packed, [choice, None], fixed={"C.r_str"})
    assert none is None and table["fixed"] == ["C.r_str"]
    unusable = sorted(table["strings"][i] for i in entry["xu"])
    assert unusable == ["C.a_str", "C.b_str", "C.c_str"]
    assert apply_choice(packed, table, entry) == {}
    # one value alone reads its items through the patch; an absent field is removed (-1)
    choice2 = {"C.b_str": {"steps": [{"name": "b", "value": "5"}], "inputs": [{"name": "x"}]}}
    table2, (entry2,) = pack_choices(packed, [choice2])
    assert table2["fixed"] == ["C.a_str", "C.c_str", "C.r_str"]   # explained for no choice: the reference's
    got = apply_choice(packed, table2, entry2)
    assert list(got) == ["C.b_str"] and got["C.b_str"]["steps"] == [{"name": "b", "expr": "x + 1", "value": "5"}]
    assert got["C.b_str"]["inputs"] == [{"name": "x"}]
    assert unpack(packed)["C.b_str"]["inputs"] == [{"name": "x", "value": "1"}]   # the reference is untouched


def test_a_registry_input_may_read_another_precision():
    items = [{"name": "accel.compute.fp8", "entry": "H100", "value": "1,979", "unit": "TFLOP/s"}]
    packed = _packed(items, {"C.p_str": {"attr": "C.p_str", "steps": [], "inputs": [0]}})
    choice = {"C.p_str": {"steps": [], "inputs": [{"name": "accel.compute.int8", "entry": "A100", "value": "624",
                                                   "unit": "TFLOP/s"}]}}
    table, (entry,) = pack_choices(packed, [choice])
    assert apply_choice(packed, table, entry)["C.p_str"]["inputs"] == choice["C.p_str"]["inputs"]
    other = {"C.p_str": {"steps": [], "inputs": [{"name": "model.layers", "value": "80"}]}}
    table, (entry,) = pack_choices(packed, [other])
    assert [table["strings"][i] for i in entry["xu"]] == ["C.p_str"]


# ───────────── the rendered book (book tier: the rendered_book fixture) ─────────────

def page_data(book: Path, page: str) -> dict:
    return json.loads(re.sub(r"^window\.MLSYSIM_PAGE = |;\s*$", "", (book / page).read_text("utf-8")))


def test_an_explanation_that_fails_stops_the_build_naming_the_cell(tmp_path, monkeypatch):
    """The explainer raising is a bug of ours: the build says so on the cell's line instead of publishing the
    page with its explanations silently missing."""
    from bookbuild.book import hooks
    from bookbuild.errors import CellError

    def broken(*args, **kwargs):
        return {}["values"]
    monkeypatch.setattr(hooks, "explain_cell", broken)
    (tmp_path / "ch.qmd").write_text("---\ntitle: t\n---\n\n```{python}\n#| label: calc-v\nclass V:\n    x = 1\n```\n",
                                     encoding="utf-8")
    with pytest.raises(CellError) as e:
        execute_chapter(tmp_path / "ch.qmd", tmp_path, tmp_path / "fig", hooks=BookHooks(tmp_path))
    assert e.value.format().startswith(f"ch.qmd:5: [calc-v] explaining this cell's values failed at {__file__}:"), \
        e.value.format()
    assert e.value.format().endswith("(KeyError: 'values'), a bug of the book's engine: the build stops rather than "
                                     "publish the page without its explanations")
    # without explanations asked for, the explainer is not run
    execute_chapter(tmp_path / "ch.qmd", tmp_path, tmp_path / "fig", hooks=BookHooks(tmp_path, explain=False))
