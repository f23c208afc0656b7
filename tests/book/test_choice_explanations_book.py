"""The rendered book's half of test_choice_explanations.py (the helpers are there): the hover explains the chosen inputs: for a precomputed choice, each value's steps and inputs are the ones
the build computed for that choice (bookbuild.book.variants.one_choice explains each cell as the reference
build's hooks do; bookbuild.book.provenance.pack_choices ships what differs from the reference's explanation,
apply_choice and reader.js read it back).

Expected numbers and sources are read here from the registry's own data files (mlsysim/data/*.toml), not
from the library or the page. The first tests run a small chapter (fast tier); the last read the rendered
book (book tier, through the ``rendered_book`` fixture).
"""
from __future__ import annotations

import json
from pathlib import Path

from bookbuild.book.provenance import apply_choice

from test_choice_explanations import number, page_data, quantity, registry

ROOT = Path(__file__).resolve().parents[2]


def test_every_choice_of_the_appendix_explains_the_ratio_with_its_accelerator(rendered_book):
    accels, sources = registry("accelerators.toml"), registry("sources.toml")
    for page in ("en/appendix/inference-cost.data.js", "zh/appendix/inference-cost.zh.data.js"):
        data = page_data(rendered_book, page)
        V = data["variants"]
        assert V["choices"][f"{V['reference']['accelerator']}|{V['reference']['model']}|{V['reference']['precision']}"]["x"] == []
        checked = 0
        for key, c in V["choices"].items():
            if "error" in c:
                assert "x" not in c
                continue
            mine = apply_choice(data["provenance"], V["explain"], c)
            assert "ServingRef.params_class_b_str" not in mine   # reference-only: its explanation stays the reference's
            bw = next(i for i in mine["ServingRef.ratio_str"]["inputs"] if i["name"] == "accel.memory.bandwidth")
            reg = accels[key.split("|")[0]]["memory"]["bandwidth"]
            want, unit = quantity(reg["value"])
            assert (number(bw["value"]), bw["unit"]) == (want, unit), (page, key, bw)
            assert bw["source"]["title"] == sources[reg["source"]]["title"], (page, key)
            checked += 1
        assert checked >= 50
    # the page's data grow with the choice space, by a packed entry per choice, and by nothing else: each part
    # under twice what it measured when the explanations were packed (a 126-choice space: the choices 1.76 kB
    # each, the rest 69 kB); an author's new accelerator or model adds choices, not bytes per choice
    raw = (rendered_book / "en/appendix/inference-cost.data.js").read_bytes()
    choices = page_data(rendered_book, "en/appendix/inference-cost.data.js")["variants"]["choices"]
    per_choice = len(json.dumps(choices, separators=(",", ":"), ensure_ascii=False).encode()) / len(choices)
    assert per_choice < 2 * 1_760 and len(raw) - per_choice * len(choices) < 2 * 69_000, (per_choice, len(raw))
