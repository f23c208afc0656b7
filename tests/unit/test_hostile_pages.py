"""Every string from data is text where it reaches a page (issue "Hostile input, round 3", class 3): an
inline value, a table cell, the calibration table built from the registry; and every page carries a
Content-Security-Policy, so markup that slipped in anyway still cannot run. Helpers and conventions:
``test_hostile_engine.py``.
"""
from __future__ import annotations

import shutil

from bs4 import BeautifulSoup

from conftest import ROOT

HOSTILE = ("<img src=x onerror=alert(1)> <script>alert(2)</script> *bold* _em_ `code` $x^2$ ~sub~ @little1961 "
           "[link](javascript:alert(3)) {.cls} | a & b &amp; \\ </span>")


def test_the_calibration_table_prints_registry_text_as_written(tmp_path):
    data = shutil.copytree(ROOT / "mlsysim" / "data", tmp_path / "data")
    models = data / "models.toml"
    text = models.read_text(encoding="utf-8")
    assert 'display_name = "Llama-3.3-70B"' in text
    models.write_text(text.replace('display_name = "Llama-3.3-70B"',
                                   'display_name = "Llama <img src=x onerror=alert(1)> *3.3* | 70B"'), encoding="utf-8")
    # the measurements of the edited copy, loaded against its own registry (what MLSYSIM_DATA_DIR=data gives
    # mlsysim.measurements.MEASUREMENTS), through the table the appendix prints and Pandoc
    from bookbuild.pandoc import Pandoc
    from mlsysim.measurements import load_measurements, table_markdown
    from mlsysim.registry import load_registry
    measurements = load_measurements(data, load_registry(data))
    assert {m.model.display_name for m in measurements.values()} >= {"Llama <img src=x onerror=alert(1)> *3.3* | 70B"}
    html = Pandoc().run(['-f', 'markdown', '-t', 'html5'], table_markdown(measurements, 'en'), 't.md')
    soup = BeautifulSoup(html, "html.parser")
    assert not soup.find_all("img") and not soup.find_all("strong") and not soup.find_all("em")
    cells = [" ".join(td.get_text().split()) for td in soup.find_all("td")]
    assert "Llama <img src=x onerror=alert(1)> *3.3* | 70B" in cells
    assert len(soup.find("tr").find_all("th")) == len(soup.find_all("tr")[1].find_all("td"))   # no column split


def test_a_value_without_markup_characters_is_unchanged_and_every_markup_character_is_escaped():
    from bookbuild.book.hooks import markdown_text, value_span
    for plain in ("1,234", "0.1–5", "8 × H100, fp8, TP 8", "≤ 3,200", "55 %", "Llama-3.3-70B", "2.5×", "c = 1",
                  "NVIDIA H100 SXM5 80GB", "10⁻³ s", "it's \"quoted\"", "a -- b ...", "三百"):
        assert markdown_text(plain) == plain
    assert markdown_text("<b>*x*_y_`z`$m$^s^~t~@k&amp;|#[l](u){.c}\\") == (
        "\\<b\\>\\*x\\*\\_y\\_\\`z\\`\\$m\\$\\^s\\^\\~t\\~\\@k\\&amp;\\|\\#\\[l\\](u)\\{.c\\}\\\\")
    assert markdown_text("- item") == "\\- item" and markdown_text("1. item") == "1\\. item"
    assert markdown_text("two\nlines") == "two lines"
    assert value_span("Ref.x_str", "<i>") == '[\\<i\\>]{.mlsysim-v data-attr="Ref.x_str"}'


def test_a_layer_may_add_only_compiling_webassembly_to_a_pages_policy(tmp_path):
    import pytest
    from bookbuild.render.additions import Additions, PageAddition
    from bookbuild.render.html import content_policy
    strict = content_policy([])
    wasm = content_policy([], {"script-src": ["'wasm-unsafe-eval'"]})
    assert "'wasm-unsafe-eval'" not in strict
    assert wasm == strict.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")   # nothing else changes
    for wider in ({"script-src": ["'unsafe-eval'"]}, {"script-src": ["https://cdn.example.org"]},
                  {"script-src": ["blob:"]}, {"connect-src": ["*"]}, {"worker-src": ["'wasm-unsafe-eval'"]}):
        with pytest.raises(ValueError, match="may gain only"):
            content_policy([], wider)
        with pytest.raises(ValueError, match="may gain only"):
            Additions(pages={"a.html": PageAddition(policy=wider)}).write(tmp_path)
    Additions(pages={"a.html": PageAddition(policy={"script-src": ["'wasm-unsafe-eval'"]})}).write(tmp_path)
    assert Additions.read(tmp_path).pages["a.html"].policy == {"script-src": ["'wasm-unsafe-eval'"]}


# ───────────────────────────── round 4 (issue "Hostile input, round 4"): the policy admits the book's own scripts ─────────────────────────────


def test_a_pages_policy_hashes_only_the_engines_and_the_layers_own_scripts():
    """Whatever reaches a page, its policy names only the theme's script and those the layer vouches for."""
    from types import SimpleNamespace

    from bookbuild.render.additions import Additions
    from bookbuild.render.html import THEME_BOOT, inline_script_hashes, own_script_hashes
    own = "<script>var explorer = 1;</script>"
    foreign = "<script>document.title = 'ran'</script><script type=module>import('x')</script>"
    site = SimpleNamespace(additions=Additions(own_scripts=inline_script_hashes(own)))
    got = own_script_hashes(site, own + foreign)
    assert got == inline_script_hashes(THEME_BOOT) + inline_script_hashes(own)
    assert not set(got) & set(inline_script_hashes(foreign))
    assert own_script_hashes(SimpleNamespace(additions=Additions()), own) == inline_script_hashes(THEME_BOOT)
