"""bookbuild.book.variants: a chapter's own cells for other registry choices, through the engine's one
runner, with the scenario passed in and guards recorded; the page data keeps only what differs."""
from __future__ import annotations


from bookbuild.book.variants import compact, keep, one_choice
from bookbuild.execute import RunOptions
from bookbuild.source import parse
from mlsysim import Hardware

CHAPTER = """---
mlsysim-variants: true
---
# Bandwidth

```{python}
#| label: calc-bw
from mlsysim import *

class R:
    sc = reference_scenario()
    bw = sc.accelerator.memory.bandwidth.to("TB/s").magnitude
    check(bw < 4, f"the bandwidth stays under 4 TB/s, got {bw:.2f}", zh="带宽低于 4 TB/s")
    bw_str = fmt(bw, precision=2)
    name_str = sc.accelerator.display_name
```

```{python}
#| label: fig-never
raise RuntimeError("figure cells do not run for a variant")
```

It moves `{python} R.bw_str` TB/s.
"""


def doc(tmp_path):
    (tmp_path / "ch.qmd").write_text(CHAPTER, encoding="utf-8")
    return parse("ch.qmd", tmp_path)


def opts(tmp_path):
    return RunOptions(root=tmp_path, fig_dir=tmp_path / "fig", md_dir=tmp_path, raw_errors=True, cell_timeout=60)


def test_figure_cells_and_variant_false_cells_are_left_out(tmp_path):
    d = doc(tmp_path)
    assert [c.label for c in d.cells if keep(c)] == ["calc-bw"]


def test_each_choice_computes_its_own_values_and_records_its_broken_claims(tmp_path):
    d, o = doc(tmp_path), opts(tmp_path)
    h100 = one_choice(d, o, {"accelerator": "H100", "model": "Llama3_1_70B", "precision": "fp8"}, "fp8")
    b200 = one_choice(d, o, {"accelerator": "B200", "model": "Llama3_1_70B", "precision": "fp8"}, "fp8")
    bw = Hardware.Cloud.B200.memory.bandwidth.to("TB/s").magnitude
    assert h100["values"]["R.bw_str"] == "3.35" and h100["failed"] == [] and h100["reference"] is True
    assert b200["values"]["R.bw_str"] == f"{bw:.2f}" and b200["values"]["R.name_str"] == Hardware.Cloud.B200.display_name
    assert [(f["file"], f["zh"]) for f in b200["failed"]] == [("ch.qmd", "带宽低于 4 TB/s")]
    assert f"got {bw:.2f}" in b200["failed"][0]["message"]


def test_a_choice_the_cells_cannot_compute_is_named_not_raised(tmp_path):
    r = one_choice(doc(tmp_path), opts(tmp_path), {"accelerator": "NoSuchChip", "model": "Llama3_1_70B", "precision": "fp8"}, "fp8")
    assert "error" in r and "NoSuchChip" in r["error"] and "values" not in r


def test_the_page_data_keeps_only_what_differs_from_the_reference(tmp_path):
    d, o = doc(tmp_path), opts(tmp_path)
    results = [one_choice(d, o, {"accelerator": a, "model": "Llama3_1_70B", "precision": "fp8"}, "fp8") for a in ("H100", "B200")]
    guard_map = [{"file": "ch.qmd", "line": results[1]["failed"][0]["line"], "protects": ["R.bw_str"]}]
    data = compact(results, {"R.bw_str": "3.35", "R.name_str": Hardware.Cloud.H100.display_name}, guard_map)
    assert data["attrs"] == ["R.bw_str", "R.name_str"] and data["reference"]["accelerator"] == "H100"
    assert data["choices"]["H100|Llama3_1_70B|fp8"]["v"] == [None, None]
    b = data["choices"]["B200|Llama3_1_70B|fp8"]
    assert data["values"][b["v"][1]] == Hardware.Cloud.B200.display_name and b["failed"][0]["protects"] == ["R.bw_str"]


REF_ONLY = """# Sizes

```{python}
#| label: calc-size
from mlsysim import *
from mlsysim.scenario import reference

class S:
    honest_str = reference_only(fmt_int(reference().model.layers))            # how the chapters word the reference
    leaky_str = reference_only(fmt_int(reference_scenario().model.layers))    # follows the choice: a bug
```
"""


def test_a_reference_only_value_is_never_swapped_and_may_not_follow_the_choice(tmp_path):
    import pytest
    from bookbuild.book.variants import ReferenceOnlyError
    (tmp_path / "s.qmd").write_text(REF_ONLY, encoding="utf-8")
    d, o = parse("s.qmd", tmp_path), opts(tmp_path)
    results = [one_choice(d, o, {"accelerator": "H100", "model": m, "precision": "fp8"}, "fp8") for m in ("Llama3_1_70B", "Llama3_8B")]
    assert results[1]["reference_only"] == ["S.honest_str", "S.leaky_str"]
    reference = {"S.honest_str": "80", "S.leaky_str": "80"}
    with pytest.raises(ReferenceOnlyError, match=r"S.leaky_str is declared reference-only .* reads '32' for H100\|Llama3_8B\|fp8"):
        compact(results, reference)
    for r in results:
        del r["values"]["S.leaky_str"]
        r["reference_only"].remove("S.leaky_str")
    data = compact(results, reference)
    assert data["attrs"] == []          # nothing to swap: the page keeps the reference's words
