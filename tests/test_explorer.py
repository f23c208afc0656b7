"""The static explorer embeds, for every registry choice, exactly what reference_values computes."""
from __future__ import annotations

import dataclasses
import html as htmllib
import json
import re

import pytest

from mlsysim import Hardware, Models
from mlsysim.explorer import (SHOWN_KEYS, book_lang, explorer_html, lookup, shown_values,
                              static_table_markdown)
from mlsysim.reference import reference_values


@pytest.fixture(scope="module")
def page():
    return explorer_html("en")


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="mlsysim-explorer-data">(.*?)</script>', page, re.S)
    assert m, "the explorer must embed its data as a JSON script"
    return json.loads(m.group(1))


def test_h200_llama3_8b_fp8_equals_reference_values(page):
    data = embedded(page)
    got = lookup(data, "H200", "Llama3_8B", "fp8")
    # Llama-3-8B's published window (8,192 tokens) is shorter than the book's 32,768: shown at its window
    want = dataclasses.asdict(reference_values(Hardware.Cloud.H200, Models.Language.Llama3_8B, weight_precision="fp8",
                                               context=8192))
    assert got == want


def test_every_combination_is_embedded(page):
    data = embedded(page)
    for a in Hardware.Cloud:
        for p in a.precisions:
            for m in Models.Language:
                ctx = min(32_768, m.context_length)   # the book's context, or the model's shorter window
                got = lookup(data, a.name, m.name, p)
                rv = reference_values(a, m, weight_precision=p, context=ctx)
                assert got == dataclasses.asdict(rv), (a.name, m.name, p)
                entry = data["values"][a.name][p][m.name]
                assert entry["shown"] == [shown_values(rv, a)[k] for k in SHOWN_KEYS]


def test_a100_has_no_fp8_and_is_marked_unavailable(page):
    data = embedded(page)
    assert "fp8" not in data["values"]["A100_80GB"]
    assert "fp8" in data["unavailable"]["A100_80GB"]
    assert lookup(data, "A100_80GB", "Llama3_8B", "fp8") is None
    got, msg = data["fallback"]["A100_80GB"]["fp8"]
    assert got == "int8" and "fp8" in msg
    # the markup marks it "not published" (never a zero) and the H100's fp8 is a normal option
    fp8 = re.search(r'<option value="fp8" data-off="([^"]*)"', page)
    assert "not published" in htmllib.unescape(fp8.group(1))


def test_default_view_is_the_appendix_table(page):
    # the reference configuration, shown with the appendix table's precision
    cells = dict(re.findall(r'data-key="([a-z_]+)">([^<]*)<', page))
    assert cells["ridge_flop_per_byte"] == "591"
    assert cells["decode_floor_s"] == "21.1"
    assert cells["prefill_per_token_s"] == "71"
    assert cells["decode_to_prefill_ratio"] == "295"
    assert cells["kv_bytes_per_token"] == "327,680"
    assert cells["node_kv_pool_bytes"] == "526.0"
    assert cells["resident_trajectories"] == "48"


def test_no_external_urls(page):
    assert not re.search(r'''(src|href)\s*=\s*["']?\s*(https?:)?//''', page, re.I)
    assert "url(" not in page and "@import" not in page
    for m in re.finditer(r"https?://[^\s\"'<>]+", page):  # only the SVG namespace name, which loads nothing
        assert m.group(0) == "http://www.w3.org/2000/svg", m.group(0)


def test_script_has_no_formula(page):
    js = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(js) == 1
    # lookups and string swaps only: no arithmetic on values, no Math.*
    assert "Math." not in js[0] and not re.search(r"[^+]\*[^/]|[^/*]/[^/*]", js[0].replace("//", ""))


def test_unavailable_precisions_are_never_zero(page):
    data = embedded(page)   # explorer_data("en"), as the page embeds it
    for a in Hardware.Cloud:
        assert set(data["values"][a.name]) == set(a.precisions)
        assert set(data["unavailable"][a.name]) == set(data["precisions"]) - set(a.precisions)


def test_chinese_labels_and_same_values(page):
    zh, en = explorer_html("zh"), page   # page: explorer_html("en")
    assert 'lang="zh"' in zh and "屋脊点" in zh and "未公布" in zh
    assert embedded(zh)["values"].keys() == embedded(en)["values"].keys()
    assert lookup(embedded(zh), "H100", "Llama3_1_70B", "fp8") == lookup(embedded(en), "H100", "Llama3_1_70B", "fp8")


def test_book_lang(monkeypatch):
    monkeypatch.setenv("QUARTO_PROFILE", "zh")
    assert book_lang() == "zh"
    monkeypatch.setenv("QUARTO_PROFILE", "draft,en")
    assert book_lang() == "en"
    monkeypatch.delenv("QUARTO_PROFILE")
    assert book_lang() == "en"


def test_the_markup_displays_as_one_raw_html_block(page):
    """Markdown, not text/html: Quarto would load require.js and jQuery from a CDN for a text/html output."""
    md = page._repr_markdown_()
    assert md == "```{=html}\n" + str(page).rstrip() + "\n```" and not hasattr(page, "_repr_html_")
    assert len(repr(page)) < 100


def test_static_table():
    md = static_table_markdown("en")
    lines = md.splitlines()
    assert lines[0].startswith("| Accelerator |") and len(lines) == 2 + len(list(Hardware.Cloud))
    h100 = next(line for line in lines if "H100" in line)
    assert "| fp8 | 591 | 21.1 | 71 | 295 | 526.0 | 48 |" in h100
    a100 = next(line for line in lines if "A100" in line)
    assert "| int8 |" in a100
    assert static_table_markdown("zh").startswith("| 加速器 |")
