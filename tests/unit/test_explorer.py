"""The static explorer embeds, for every registry choice, exactly what reference_values computes."""
from __future__ import annotations

import html as htmllib
import json
import re

import pytest

from mlsysim import Hardware
from mlsysim.explorer import (SHOWN_KEYS, book_lang, explorer_html, lookup, static_table_markdown)


@pytest.fixture(scope="module")
def page():
    return explorer_html("en")


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="mlsysim-explorer-data">(.*?)</script>', page, re.S)
    assert m, "the explorer must embed its data as a JSON script"
    return json.loads(m.group(1))


def test_h200_llama3_8b_fp8_is_the_hand_derivation(page):
    """H200 (4.8 TB/s, 1,978.9 Tflop/s at fp8, 141 GiB; accelerators.toml) serving Llama-3-8B (8.03e9 parameters,
    32 layers, 8 KV heads of 128, an 8,192-token window; models.toml) at 8-bit weights, derived by hand."""
    got = lookup(embedded(page), "H200", "Llama3_8B", "fp8")
    assert got["ridge_flop_per_byte"] == pytest.approx(1978.9 / 4.8)
    assert got["decode_floor_s"] == pytest.approx(8.03e9 * 1 / 4.8e12)
    assert got["context"] == 8192 and got["context_wanted"] == 32_768   # the window caps the book's 32,768
    m_token = 2 * 32 * 8 * 128 * 2
    assert got["kv_bytes_per_token"] == m_token
    pool = 8 * 141 * 2**30 - 8.03e9 * 1 - 20e9        # the node holds the 8-bit weights it serves
    assert got["pool_precision"] == "fp8" and got["node_kv_pool_bytes"] == pytest.approx(pool)
    assert got["resident_trajectories"] == int(pool // (8192 * m_token))


def test_the_reference_entry_is_the_seed_s_pool(page):
    """The reference (H100, Llama-3.1-70B, fp8) holds its pool for 16-bit weights, as the seed: 526.0 GB, 48."""
    got = lookup(embedded(page), "H100", "Llama3_1_70B", "fp8")
    assert got["pool_precision"] == "bf16"
    assert got["node_kv_pool_bytes"] == pytest.approx(8 * 80 * 2**30 - 70.6e9 * 2 - 20e9)
    assert got["resident_trajectories"] == 48


def test_every_offered_combination_is_embedded_and_shown_as_stored(page):
    import mlsysim.scenario as S
    from mlsysim.reference import ReferenceValues, display_values
    data = embedded(page)
    assert [m["name"] for m in data["models"]] == list(S.SPACE.models)     # the choice space's models only
    for a in Hardware.Cloud:
        for p in a.precisions:
            for m in S.SPACE.models:
                got = lookup(data, a.name, m, p)
                assert got is not None, (a.name, m, p)
                rv = ReferenceValues(**got)
                entry = data["values"][a.name][p][m]
                assert entry["shown"] == [display_values(rv, a)[k] for k in SHOWN_KEYS]


def test_a_capped_context_changes_its_rows_labels(page):
    data = embedded(page)
    entry = data["values"]["H100"]["fp8"]["Llama2_7B"]
    assert entry["context"] == 4096
    labels = data["labels"]["4096"]
    assert labels["kv_bytes_at_context"] == "Attention state at 4,096 tokens (the model's window)"


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


def test_the_pages_policy_hashes_the_explorers_script_as_the_page_inlines_it(page):
    """The policy's hash is read from mlsysim/assets/explorer.js without importing mlsysim; the explorer a
    cell prints inlines that file: the two must be one text, or the page would refuse its own explorer."""
    import mlsysim.explorer as ex
    from bookbuild.book.hooks import library_script_hashes
    from bookbuild.render.html import script_source
    assert library_script_hashes() == [script_source(ex._JS)]
    assert f"<script>{ex._JS}</script>" in page     # page: explorer_html("en")
