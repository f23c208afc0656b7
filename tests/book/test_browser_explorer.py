"""Headless Chromium drives the explorer in the built appendix page and reads values back.

The book is rendered once per session with ``python -m bookbuild render`` from a copy of the
sources (so a parallel build of the working tree is not disturbed). Never skipped (scripts/setup.sh
installs Debian's Chromium) and never runs ``playwright install``.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mlsysim.reference import shown

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")



@pytest.fixture(scope="session")
def built_book(rendered_book) -> Path:
    return rendered_book     # conftest.py: rendered once per session, shared with test_reader_page.py


# ``browser`` (one headless Chromium per session) is in conftest.py, shared with test_reader_page.py


@pytest.fixture
def page_of(browser):
    opened = []

    def open_page(path: Path):
        page = browser.new_page()
        external = []

        def guard(route):
            if route.request.url.startswith(("file:", "data:", "about:")):
                route.continue_()
            else:
                external.append(route.request.url)
                route.abort()

        page.route("**/*", guard)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_selector("#mlsysim-explorer[data-ready='1']", timeout=10_000)
        page.external, page.errors = external, errors
        opened.append(page)
        return page

    yield open_page
    for p in opened:
        p.close()


#: the published context windows of the models these tests pick (config.json max_position_embeddings):
#: the explorer shows a model whose window is shorter than the book's 32,768 tokens at its window
WINDOW = {"Llama3_8B": 8192, "Llama3_70B": 8192}


def cli_reference(accel: str, model: str, precision: str = "fp8") -> dict:
    ctx = ["--context", str(WINDOW[model])] if model in WINDOW else []
    out = subprocess.run([sys.executable, "-m", "mlsysim", "reference", "-a", accel, "-m", model, "-p", precision,
                          "--json", *ctx], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def read(page, key: str) -> str:
    return page.inner_text(f"#mlsysim-explorer [data-key={key}]").strip()


def test_h200_llama3_8b_matches_cli(built_book, page_of):
    page = page_of(built_book / "en" / "appendix" / "inference-cost.html")
    page.select_option("#mlsysim-explorer-accelerator", "H200")
    page.select_option("#mlsysim-explorer-model", "Llama3_8B")
    page.select_option("#mlsysim-explorer-precision", "fp8")
    ref = cli_reference("H200", "Llama3_8B")
    assert read(page, "ridge_flop_per_byte") == shown(ref["ridge_flop_per_byte"], 0)
    assert read(page, "decode_floor_s") == shown(ref["decode_floor_s"] * 1e3, 1)
    assert read(page, "resident_trajectories") == f"{ref['resident_trajectories']:,}"
    assert page.get_attribute("#mlsysim-explorer", "data-accelerator") == "H200"
    assert page.external == [] and page.errors == []


def test_reference_selection_is_the_appendix_table(built_book, page_of):
    page = page_of(built_book / "en" / "appendix" / "inference-cost.html")
    ref = cli_reference("H100", "Llama3_1_70B")
    assert read(page, "ridge_flop_per_byte") == shown(ref["ridge_flop_per_byte"], 0) == "591"
    assert read(page, "decode_floor_s") == shown(ref["decode_floor_s"] * 1e3, 1) == "21.1"


def test_unpublished_precision_is_disabled_not_zero(built_book, page_of):
    page = page_of(built_book / "en" / "appendix" / "inference-cost.html")
    page.select_option("#mlsysim-explorer-model", "Llama3_8B")
    page.select_option("#mlsysim-explorer-accelerator", "A100_80GB")
    assert page.is_disabled("#mlsysim-explorer-precision option[value=fp8]")
    assert "not published" in page.inner_text("#mlsysim-explorer-precision option[value=fp8]")
    assert page.input_value("#mlsysim-explorer-precision") == "int8"
    assert "fp8" in page.inner_text("#mlsysim-explorer-status")
    ref = cli_reference("A100_80GB", "Llama3_8B", "int8")
    assert read(page, "ridge_flop_per_byte") == shown(ref["ridge_flop_per_byte"], 0)
    # back on an accelerator with fp8, the reader's choice returns
    page.select_option("#mlsysim-explorer-accelerator", "H100")
    assert page.input_value("#mlsysim-explorer-precision") == "fp8"
    assert page.inner_text("#mlsysim-explorer-status").strip() == ""


def plot_data(page, selector: str) -> list:
    """The traces plotly drew in the element (x, y, name, visibility, colours)."""
    return page.evaluate("""sel => { const gd = document.querySelector(sel);
        return gd.data.map(t => ({x: Array.from(t.x), y: Array.from(t.y), name: t.name, visible: t.visible,
                                  key: (t.meta || {}).key, color: (t.line || {}).color || (t.marker || {}).color}));
    }""", selector)


def test_roofline_redraws_from_precomputed_data(built_book, page_of):
    page = page_of(built_book / "en" / "appendix" / "inference-cost.html")
    page.wait_for_selector("#mlsysim-explorer-plot[data-ready='1']")
    before = {t["key"]: t for t in plot_data(page, "#mlsysim-explorer-plot")}
    assert before["ridge"]["x"][0] == pytest.approx(cli_reference("H100", "Llama3_1_70B")["ridge_flop_per_byte"], rel=1e-9)
    page.select_option("#mlsysim-explorer-accelerator", "B200")
    page.select_option("#mlsysim-explorer-precision", "fp4")
    page.wait_for_selector("#mlsysim-explorer-plot[data-precision='fp4']")
    after = {t["key"]: t for t in plot_data(page, "#mlsysim-explorer-plot")}
    ref = cli_reference("B200", "Llama3_1_70B", "fp4")
    assert after["ridge"]["x"][0] == pytest.approx(ref["ridge_flop_per_byte"], rel=1e-9)
    assert after["roof"]["y"] != before["roof"]["y"]
    assert page.locator("#mlsysim-explorer svg polyline").count() == 0   # no hand-drawn SVG chart left
    assert page.external == [] and page.errors == []


# the appendix's six numbered figures and the explorer's roofline; the lecture's two figures
FIGURES = {"en/appendix/inference-cost.html": 7, "zh/appendix/inference-cost.zh.html": 7,
           "en/lectures/lecture19-agent-stalls.html": 2, "zh/lectures/lecture19-agent-stalls.zh.html": 2}


@pytest.mark.parametrize("path, n", FIGURES.items())
def test_every_figure_is_interactive_and_local(built_book, browser, path, n):
    page = browser.new_page()
    external = []
    page.route("**/*", lambda r: (r.continue_() if r.request.url.startswith(("file:", "data:", "about:"))
                                  else (external.append(r.request.url), r.abort())))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((built_book / path).as_uri())
    page.wait_for_function(f"() => document.querySelectorAll('.mlsysim-plot[data-ready=\"1\"]').length === {n}",
                           timeout=15_000)
    assert page.locator("script[src$='vendor/plotly-basic.min.js']").count() == 1   # once per page
    for fig in page.locator("figure:has(.mlsysim-plot)").all():
        assert fig.locator("figcaption").inner_text().strip()                    # caption with its number
        plot = fig.locator(".mlsysim-plot")
        # a labelled group, not role=img: it holds plotly's legend and mode-bar buttons (axe nested-interactive)
        assert plot.get_attribute("role") == "group" and len(plot.get_attribute("aria-label") or "") > 20
    assert external == [] and errors == []
    page.close()


def _point_xy(page, selector: str, key: str):
    """Page coordinates of the centre of the first drawn point of the trace ``key``."""
    i = page.evaluate("([sel, key]) => document.querySelector(sel).data.findIndex(t => (t.meta || {}).key === key)",
                      [selector, key])
    box = page.locator(selector + " .scatterlayer .trace").nth(i).locator(".point").first.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_hover_shows_label_and_value(built_book, page_of):
    page = page_of(built_book / "en" / "appendix" / "inference-cost.html")
    sel = "#fig-appdx-roofline .mlsysim-plot"
    page.wait_for_selector(sel + "[data-ready='1']")
    page.locator(sel).scroll_into_view_if_needed()
    x, y = _point_xy(page, sel, "ridge")
    page.mouse.move(x, y)
    page.wait_for_selector(sel + " .hoverlayer .hovertext", timeout=5_000)
    text = page.evaluate(f"document.querySelector('{sel} .hoverlayer').textContent")
    # H100 SXM: 1,978.9 TFLOP/s dense fp8 over 3.35 TB/s = 590.7 FLOP/byte, at the peak 1.98 PFLOP/s
    assert "Ridge point" in text and "591" in text and "FLOP/byte" in text and "1.98P" in text, text


def test_hover_is_in_the_page_language(built_book, page_of):
    page = page_of(built_book / "zh" / "appendix" / "inference-cost.zh.html")
    sel = "#fig-appdx-roofline .mlsysim-plot"
    page.wait_for_selector(sel + "[data-ready='1']")
    page.locator(sel).scroll_into_view_if_needed()
    x, y = _point_xy(page, sel, "decode_b1")
    page.mouse.move(x, y)
    page.wait_for_selector(sel + " .hoverlayer .hovertext", timeout=5_000)
    text = page.evaluate(f"document.querySelector('{sel} .hoverlayer').textContent")
    assert "解码" in text and "FLOP/字节" in text, text
    assert "算术强度" in page.inner_text(sel)  # the glossary's term (计算强度 is a listed variant)


def test_legend_toggle_hides_a_series(built_book, page_of):
    page = page_of(built_book / "en" / "appendix" / "inference-cost.html")
    sel = "#fig-appdx-prefill .mlsysim-plot"
    page.wait_for_selector(sel + "[data-ready='1']")
    page.locator(sel).scroll_into_view_if_needed()
    drawn = page.locator(sel + " .scatterlayer .trace").count()
    page.locator(sel + " .legend .traces").filter(has_text="Attention term").click()
    # a function, not an expression string: the page's Content-Security-Policy allows no eval
    page.wait_for_function(f"() => document.querySelector('{sel}').data.some(t => t.visible === 'legendonly')")
    hidden = [t["key"] for t in plot_data(page, sel) if t["visible"] == "legendonly"]
    assert hidden == ["attention"]
    assert page.locator(sel + " .scatterlayer .trace").count() == drawn - 1


def test_dark_mode_restyles_figures(built_book, page_of):
    page = page_of(built_book / "en" / "appendix" / "inference-cost.html")
    sel = "#fig-appdx-roofline .mlsysim-plot"
    page.wait_for_selector(sel + "[data-ready='1']")
    light = page.evaluate(f"document.querySelector('{sel}')._fullLayout.font.color")
    roof_light = next(t for t in plot_data(page, sel) if t["key"] == "roof")["color"]
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") == "light"
    page.click(".theme-toggle")
    page.wait_for_selector(sel + "[data-theme='dark']")
    dark = page.evaluate(f"document.querySelector('{sel}')._fullLayout.font.color")
    roof_dark = next(t for t in plot_data(page, sel) if t["key"] == "roof")["color"]
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
    assert light != dark and roof_light != roof_dark
    assert page.wait_for_selector("#mlsysim-explorer-plot[data-theme='dark']")


def test_chinese_page_has_chinese_explorer(built_book, page_of):
    # the build exports QUARTO_PROFILE while a chapter runs, as Quarto does; the explorer reads it
    page = page_of(built_book / "zh" / "appendix" / "inference-cost.zh.html")
    assert page.get_attribute("#mlsysim-explorer", "lang") == "zh"
    assert "屋脊点" in page.inner_text("#mlsysim-explorer")
    page.select_option("#mlsysim-explorer-accelerator", "H200")
    page.select_option("#mlsysim-explorer-model", "Llama3_8B")
    ref = cli_reference("H200", "Llama3_8B")
    assert read(page, "ridge_flop_per_byte") == shown(ref["ridge_flop_per_byte"], 0)
    assert read(page, "decode_floor_s") == shown(ref["decode_floor_s"] * 1e3, 1)
    assert page.external == [] and page.errors == []


@pytest.mark.parametrize("lang, page_path, other, table_words", [
    ("en", "en/appendix/inference-cost.html", "zh/appendix/inference-cost.zh.html", ("Ridge point", "Decode floor")),
    ("zh", "zh/appendix/inference-cost.zh.html", "en/appendix/inference-cost.html", ("屋脊点", "解码")),
])
def test_what_a_reader_sees_on_the_appendix_page(built_book, page_of, lang, page_path, other, table_words):
    """The reference-values table with the seed's numbers, a numbered equation, and the language switch."""
    page = page_of(built_book / page_path)
    table = page.locator("table#tbl-appdx-hardware-constants")  # the reference values table
    text = table.inner_text()
    for word in table_words:
        assert word in text
    # seed values; the Chinese book counts parameters in 亿 (the seed's "70.6 十亿" is "706 亿": glossary [values])
    params = "70.6" if lang == "en" else "706 亿"
    for value in (params, "3.35", "1,979", "591", "21.1", "71", "327,680", "526.0", "80 GB"):
        assert value in text, value
    # equations are MathML that the browser lays out, with Quarto's numbers (A.1) ...
    assert page.locator("math").count() > 10
    assert page.locator("math").first.bounding_box()["width"] > 10
    assert "(A.3)" in page.inner_text("body")
    # ... and the language switch leads to the same chapter in the other book
    switch = page.locator("a.lang-switch")
    assert switch.count() == 1
    switch.click()
    page.wait_for_load_state()
    assert page.url.endswith(other)


@pytest.mark.parametrize("path, lang, words", [("en/appendix/inference-cost.html", "en", "explorer (live)"),
                                               ("zh/appendix/inference-cost.zh.html", "zh", "探索器")])
def test_explorer_links_the_notebook_in_the_page_language(built_book, page_of, path, lang, words):
    import base64
    page = page_of(built_book / path)
    link = page.locator("#mlsysim-explorer a[download='explorer.ipynb']")
    assert link.count() == 1
    href = link.get_attribute("href")
    assert href.startswith("data:application/x-ipynb+json;base64,")
    nb = json.loads(base64.b64decode(href.split(",", 1)[1]))
    assert nb["nbformat"] == 4 and f'lang="{lang}"' in "".join(nb["cells"][1]["source"])
    assert words in "".join(nb["cells"][0]["source"]).lower() or words in "".join(nb["cells"][0]["source"])
