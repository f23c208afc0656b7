"""Headless Chromium reads the built appendix as a reader would: the hardware choice at the top of the
page (assets/reader.js), the claims it breaks, and the explanation behind every computed number.

The book is rendered (HTML only) once per session from a copy of the sources. Expected numbers come
from ``python -m mlsysim reference`` (the library's command line, not the page's data), formatted here
by hand as the book prints them; every page load asserts that nothing was requested from the network
and that no script error happened. Skipped only where /usr/bin/chromium is absent.
"""
from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from pathlib import Path

import pytest

from parity import _chapters

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
EN = "en/appendix/inference-cost.html"
ZH = "zh/appendix/inference-cost.zh.html"
LECTURE_EN = "en/lectures/lecture19-agent-stalls.html"
BAD_TEXT = {"", "nan", "inf", "-inf", "none", "undefined", "null"}

@pytest.fixture(scope="session")
def book(rendered_book) -> Path:
    """The book rendered once per session (conftest.py), shared with test_browser_explorer.py."""
    return rendered_book


@pytest.fixture
def open_page(browser, book):
    """Open a built page (with an optional query); at the end, no network request and no script error.
    plotly.js is replaced by an empty script unless ``plotly=True`` (the page works without it)."""
    pages = []

    def open_(path: str, query: str = "", plotly: bool = False):
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.external, page.errors = [], []

        def guard(route):
            if route.request.url.startswith(("file:", "data:", "about:")):
                route.continue_()
            else:
                page.external.append(route.request.url)
                route.abort()

        page.route("**/*", guard)
        if not plotly:  # drawing six figures takes seconds; figures have their own tests (test_browser_explorer)
            page.route("**/assets/vendor/plotly-basic.min.js",
                       lambda route: route.fulfill(body="/* not drawn here */", content_type="text/javascript"))
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto((book / path).as_uri() + query)
        page.wait_for_load_state("load")
        pages.append(page)
        return page

    yield open_
    for p in pages:
        assert p.external == [], p.external
        assert p.errors == [], p.errors
        p.close()


@lru_cache(maxsize=None)
def cli_reference(accel: str, model: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "mlsysim", "reference", "-a", accel, "-m", model, "--json"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def book_number(x: float, decimals: int) -> str:
    """As the book prints numbers: rounded half up, thousands separators."""
    q = Decimal(repr(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{q:,.{decimals}f}"


SECTION_VALUES = """sel => { const out = {}; let n = document.getElementById(sel).nextElementSibling;
    while (n && n.tagName !== 'H2') {
        n.querySelectorAll('.mlsysim-v').forEach(s => {
            (out[s.dataset.attr] = out[s.dataset.attr] || []).push(s.textContent); });
        n = n.nextElementSibling; }
    return out; }"""


@pytest.mark.parametrize("path", [EN, ZH])
def test_choice_in_the_address_recomputes_the_first_section(open_page, path):
    page = open_page(path, "?accelerator=B200")
    ref = cli_reference("B200", "Llama3_1_70B")
    # the CLI: 281.25 decode/prefill, 562.5 FLOP/byte, 8.825 ms on B200 (fp8, 8 TB/s, 4.5 PFLOP/s dense)
    expected = {"ServingRef.ratio_str": book_number(ref["decode_to_prefill_ratio"], 0),
                "ServingRef.ridge_str": book_number(ref["ridge_flop_per_byte"], 0),
                "ServingRef.t_dec_val_str": book_number(ref["decode_floor_s"] * 1e3, 1)}
    assert expected == {"ServingRef.ratio_str": "281", "ServingRef.ridge_str": "563",
                        "ServingRef.t_dec_val_str": "8.8"}
    shown = page.evaluate(SECTION_VALUES, "sec-vol3-appendix-inference-roofline")
    for attr, text in expected.items():
        assert shown.get(attr) and set(shown[attr]) == {text}, (attr, shown.get(attr))
    assert page.input_value("#mlsysim-choice-accelerator") == "B200"
    assert page.input_value("#mlsysim-choice-model") == "Llama3_1_70B"
    assert "model=Llama3_1_70B" in page.url and "accelerator=B200" in page.url


# No registry choice breaks a claim of the appendix (tests/book/test_every_reader.py proves it over the whole
# choice space); the marking is still the reader's promise for a choice that would. So one choice's entry is
# given the failure a claim of serving-ref.qmd would report (its check at the ratio: "two orders of magnitude",
# with its zh= text), exactly as the build writes a failed entry, and the page must say it once, after its
# sentence, in the page's language, and take it back when the reader moves on.
RATIO_CLAIM = {"file": "appendix/_cells/serving-ref.qmd", "line": 149,
               "message": "An output token costs two orders of magnitude more time than a prompt token (99 times)",
               "zh": "一个输出词元的耗时比一个提示词元高两个数量级（99 倍）", "protects": ["ServingRef.ratio_str"]}


@pytest.mark.parametrize("path, message", [(EN, RATIO_CLAIM["message"]), (ZH, RATIO_CLAIM["zh"])])
def test_a_failing_claim_is_said_once_after_its_sentence(open_page, path, message):
    page = open_page(path)
    assert page.locator(".mlsysim-claim-broken, .mlsysim-claim-marker").count() == 0   # the reference holds
    # the choice the test breaks holds its claims of its own (another choice may fail one: it is marked there)
    own = page.evaluate("k => window.MLSYSIM_PAGE.variants.choices[k].failed || []",
                        "|".join(["H100", "Llama2_7B", page.evaluate("() => window.MLSYSIM_PAGE.variants.reference.precision")]))
    assert own == []
    page.evaluate("g => { window.MLSYSIM_PAGE.variants.choices[['H100', 'Llama2_7B', window.MLSYSIM_PAGE.variants.reference.precision].join('|')].failed = [g]; }", RATIO_CLAIM)
    page.select_option("#mlsysim-choice-model", "Llama2_7B")
    markers = page.locator(".mlsysim-claim-marker", has_text=message)
    assert markers.count() == 1, "one message per page per claim"
    assert page.locator(".mlsysim-claim-marker").count() == 1
    assert markers.first.get_attribute("role") == "note" and markers.first.is_visible()
    # the marker closes its paragraph: nothing of the paragraph's text follows it
    assert page.evaluate("""m => { const p = m.closest('p, li, dd'); return !p || p.lastElementChild === m
        || !!p.lastElementChild.matches('.mlsysim-claim-flag'); }""", markers.first.element_handle())
    # and it is the paragraph that quotes the ratio
    assert page.evaluate("""m => !!m.closest('p, li, dd').querySelector('.mlsysim-v[data-attr="ServingRef.ratio_str"]')""",
                         markers.first.element_handle())
    page.select_option("#mlsysim-choice-model", "Llama3_1_70B")
    assert page.locator(".mlsysim-claim-broken, .mlsysim-claim-marker, .mlsysim-fig-note").count() == 0


# serving-ref.qmd pins the reference's 48 trajectories to the KV chapter: an author's regression check, which
# fails for most other accelerators (B200 holds more) and must never reach a reader
@pytest.mark.parametrize("path, words", [(EN, "KV chapter"), (ZH, "KV 缓存一章")])
def test_an_authors_pin_is_never_shown(open_page, path, words):
    page = open_page(path)
    page.select_option("#mlsysim-choice-accelerator", "B200")
    concurrency = f"{cli_reference('B200', 'Llama3_1_70B')['resident_trajectories']:,}"
    assert concurrency != "48"
    assert page.locator(".mlsysim-v[data-attr='ServingRef.conc_agent_str']").first.inner_text() == concurrency
    said = page.evaluate("() => document.body.innerText")
    assert words not in said and "must match" not in said
    failed = page.evaluate("() => Object.values(window.MLSYSIM_PAGE.variants.choices).flatMap(c => c.failed || [])")
    assert not [f for f in failed if "KV chapter" in f["message"]]


def _display_name(kind: str, key: str) -> str:
    import tomllib
    data = tomllib.loads((Path(__file__).parents[2] / "mlsysim" / "data" / f"{kind}.toml").read_text(encoding="utf-8"))
    return data[key]["display_name"]


# the prose names what it computed for: the reference's words for the reference, the registry's name otherwise
@pytest.mark.parametrize("path, reference, chosen", [
    (EN, "For the reference accelerator at 8-bit precision", "For the {a} at 8-bit precision"),
    (ZH, "对于采用 8 位精度的参考加速器", "对于采用 8 位精度的 {a}")])
def test_the_prose_names_the_chosen_accelerator(open_page, path, reference, chosen):
    page = open_page(path)
    span = page.locator(".mlsysim-v[data-attr='ServingRef.for_accel_str']").first
    assert span.inner_text() == reference
    page.select_option("#mlsysim-choice-accelerator", "B200")
    name = _display_name("accelerators", "B200")   # "NVIDIA B200 (HGX B200, 1000 W)"
    if path == ZH:   # the book's full-width brackets and comma in Chinese
        name = name.replace(" (", "（").replace(")", "）").replace(", ", "，")
    assert span.inner_text() == chosen.format(a=name)


def test_an_impossible_choice_leaves_the_selects_on_what_the_page_shows(open_page):
    page = open_page(EN, "?precision=bf16")
    # Llama-3.1-405B at 16 bits is 810 GB: more than 8 x 80 GiB = 687 GB, so H100's node pool cannot hold it;
    # at 8 bits (405 GB) it can: the page moves to the other weight precision first, and the selects follow
    page.select_option("#mlsysim-choice-model", "Llama3_405B")
    assert _shown(page) == "H100|Llama3_405B|fp8"
    assert [page.input_value(f"#mlsysim-choice-{k}") for k in ("accelerator", "model", "precision")] == \
        ["H100", "Llama3_405B", "fp8"]
    status = page.locator("#mlsysim-choice .mc-status").inner_text()
    assert "cannot be computed" in status and "do not fit" in status and "instead" in status, status
    assert "Error" not in status, status


def test_every_accelerator_gives_printable_numbers(open_page):
    page = open_page(EN)
    variants = page.evaluate("window.MLSYSIM_PAGE.variants")
    ref_model = variants["reference"]["model"]
    models = [m["name"] for m in variants["models"]]
    for acc in (a["name"] for a in variants["accelerators"]):
        prec = variants["reference"]["precision"]
        fits = [m for m in [ref_model] + models if "error" not in variants["choices"][f"{acc}|{m}|{prec}"]]
        assert fits, f"no model fits {acc}"
        page.select_option("#mlsysim-choice-accelerator", acc)
        page.select_option("#mlsysim-choice-model", fits[0])
        applied = page.get_attribute("html", "data-mlsysim-choice")
        assert applied in (f"{acc}|{fits[0]}|{prec}", "reference"), applied
        texts = page.eval_on_selector_all(".mlsysim-v", "els => els.map(e => e.textContent.trim())")
        assert len(texts) > 50
        bad = [t for t in texts if t.lower() in BAD_TEXT or "nan" in t.lower().split() or "undefined" in t]
        assert not bad, (acc, fits[0], bad)


def _shown(page) -> str:
    """The choice the page shows, as the selects' key."""
    got = page.get_attribute("html", "data-mlsysim-choice")
    return page.evaluate("window.MLSYSIM_PAGE.variants.reference.accelerator + '|' + "
                         "window.MLSYSIM_PAGE.variants.reference.model + '|' + "
                         "window.MLSYSIM_PAGE.variants.reference.precision") if got == "reference" else got


def test_a_choice_that_cannot_be_computed_moves_to_one_that_can_and_says_so(open_page):
    # Llama-3.1-405B at 8 bits is 405 GB of weights; a TPU v5e host holds 8 x 16 GiB = 137 GB: at no precision
    # does it fit, so the model just chosen keeps its precision and moves to the first accelerator that holds it
    page = open_page(EN, "?accelerator=TPUv5e&model=Llama3_405B")
    status = page.inner_text("#mlsysim-choice .mc-status")
    assert "cannot be computed" in status and "do not fit" in status and "instead" in status, status
    shown = _shown(page)
    assert shown.endswith("|Llama3_405B|fp8") and not shown.startswith("TPUv5e|")
    assert "|".join(page.input_value(f"#mlsysim-choice-{k}") for k in ("accelerator", "model", "precision")) == shown
    assert "error" not in page.evaluate("k => window.MLSYSIM_PAGE.variants.choices[k]", shown)
    page.select_option("#mlsysim-choice-accelerator", "TPUv5e")
    page.select_option("#mlsysim-choice-model", "Llama3_8B")
    assert _shown(page) == "TPUv5e|Llama3_8B|fp8"
    assert "int8" in page.inner_text("#mlsysim-choice .mc-status")            # no fp8 rate: says what is used
    # Llama-3.1-70B at 16 bits (141 GB and a 20 GB reserve) does not fit the 137 GB either; at 8 bits it does
    page.select_option("#mlsysim-choice-precision", "bf16")
    page.select_option("#mlsysim-choice-model", "Llama3_1_70B")
    assert _shown(page) == "TPUv5e|Llama3_1_70B|fp8"
    zh = open_page(ZH, "?accelerator=TPUv5e&model=Llama3_1_70B&precision=bf16")
    zstatus = zh.inner_text("#mlsysim-choice .mc-status")
    assert "无法为此选择计算" in zstatus and "放不进" in zstatus and ", " not in zstatus, zstatus
    # an accelerator the registry holds no fp8 rate for (read from the registry, not named here)
    from mlsysim import Hardware
    no_fp8 = next(a.name for a in Hardware.Cloud if "fp8" not in a.precisions)
    zh2 = open_page(ZH, f"?accelerator={no_fp8}")
    assert "未公布 fp8 算力" in zh2.inner_text("#mlsysim-choice .mc-status")


def test_unknown_names_in_the_address_are_ignored_with_a_note(open_page):
    page = open_page(EN, "?accelerator=H900&model=Llama3_8B")
    assert "H900" in page.inner_text("#mlsysim-choice .mc-status")
    assert page.input_value("#mlsysim-choice-accelerator") == "H100"
    assert page.get_attribute("html", "data-mlsysim-choice") == "H100|Llama3_8B|fp8"


def test_figures_say_they_show_the_reference(open_page):
    page = open_page(EN, "?accelerator=MI300X&model=Llama3_1_70B", plotly=True)
    figures = page.locator("article figure:has(.mlsysim-plot):not(#mlsysim-explorer-roofline)")
    assert figures.count() >= 5
    for i in range(figures.count()):
        note = figures.nth(i).locator(".mlsysim-fig-note")
        assert note.count() == 1 and "H100" in note.inner_text() and "Llama-3.1-70B" in note.inner_text()
    # the explorer follows the choice instead
    assert page.get_attribute("#mlsysim-explorer", "data-accelerator") == "MI300X"
    page.click("#mlsysim-choice .mc-reset")
    assert page.locator(".mlsysim-fig-note").count() == 0


def tip_text(page) -> str:
    page.wait_for_selector("#mlsysim-tip:not([hidden])")
    return page.inner_text("#mlsysim-tip")


def test_the_ratio_explains_itself_with_the_h100_sources(open_page):
    page = open_page(EN)
    span = page.locator(".mlsysim-v[data-attr='ServingRef.ratio_str']").first
    assert span.inner_text() == "295"
    span.hover()
    page.locator("#mlsysim-tip details.mt-fold").evaluate("d => { d.open = true; }")   # the steps, folded
    text = tip_text(page)
    # H100 SXM5: 3.35 TB/s HBM3 (datasheet) and 1,979 TFLOP/s dense fp8 (3,958 with sparsity)
    assert "decode-to-prefill" in text and "3.35 TB/s" in text and "1,979 TFLOP/s" in text, text
    assert "H100 Tensor Core GPU datasheet" in text and "whitepaper" in text, text
    hrefs = page.eval_on_selector_all("#mlsysim-tip a[href^='http']", "as => as.map(a => a.href)")
    assert sum("nvidia.com" in h for h in hrefs) >= 2, hrefs
    # the popover does not cover the number
    s, t = span.bounding_box(), page.locator("#mlsysim-tip").bounding_box()
    assert t["y"] >= s["y"] + s["height"] or t["y"] + t["height"] <= s["y"]
    # with another choice the popover gives the shown value, the reference's, and that choice's inputs
    page.select_option("#mlsysim-choice-accelerator", "H200")
    span.hover()
    text = tip_text(page)
    assert "reference" in text and "295" in text and span.inner_text() in text
    assert "computed for " + _display_name("accelerators", "H200") in text and "reference’s" not in text, text


def test_keyboard_only(open_page):
    page = open_page(EN)
    def tab_until(selector: str, limit: int = 120) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
                return
        raise AssertionError(f"Tab never reached {selector}")
    tab_until("#mlsysim-choice-accelerator")
    page.keyboard.press("ArrowDown")                                   # H100 -> the next accelerator
    assert page.input_value("#mlsysim-choice-accelerator") == "H200"
    assert page.get_attribute("html", "data-mlsysim-choice") == "H200|Llama3_1_70B|fp8"
    assert "accelerator=H200" in page.url
    tab_until(".mlsysim-v")
    focused = page.evaluate("document.activeElement.dataset.attr")
    assert tip_text(page)
    assert page.evaluate("document.activeElement.getAttribute('aria-describedby')") == "mlsysim-tip"
    page.keyboard.press("Escape")
    assert page.locator("#mlsysim-tip").is_hidden()
    assert page.evaluate("document.activeElement.dataset.attr") == focused   # focus stays on the number


@pytest.mark.parametrize("path, other", [(EN, ZH), (ZH, EN)])
def test_the_language_switch_and_lecture_links_carry_the_choice(open_page, path, other):
    page = open_page(path, "?accelerator=B200")
    assert "accelerator=B200" in page.get_attribute("a.lang-switch", "href")
    page.select_option("#mlsysim-choice-model", "Llama3_8B")                 # a later choice is carried too
    assert "model=Llama3_8B" in page.get_attribute("a.lang-switch", "href")
    page.click("a.lang-switch")
    page.wait_for_load_state("load")
    assert page.url.split("?")[0].endswith(other) and "accelerator=B200" in page.url
    assert page.input_value("#mlsysim-choice-accelerator") == "B200"
    assert page.input_value("#mlsysim-choice-model") == "Llama3_8B"


def test_links_to_the_lecture_carry_the_choice_and_the_lecture_notes_it(open_page):
    page = open_page(EN, "?accelerator=B200")
    links = page.locator("a[href*='lectures/lecture19']")                   # the sidebar's, the pager's when next
    en = _chapters("_quarto-en.yml")
    before = en.index("appendix/inference-cost.qmd") - 1                    # the page before the appendix's
    assert links.count() >= 1 + (en[before] == "lectures/lecture19-agent-stalls.qmd")
    for i in range(links.count()):
        href = links.nth(i).get_attribute("href")
        assert "accelerator=B200" in href and "model=Llama3_1_70B" in href, href
    page.locator("#sidebar a[href*='lectures/lecture19']").click()
    page.wait_for_load_state("load")
    assert "accelerator=B200" in page.url
    # the lecture has no variants: it says its numbers are the reference's, and carries the choice on
    note = page.locator(".mlsysim-lecture-note")
    assert note.count() == 1 and "reference hardware" in note.inner_text() and "appendix" in note.inner_text()
    assert "Llama3_1_70B" not in note.inner_text()   # a registry key is no name a reader knows
    assert page.locator("#mlsysim-choice select").count() == 0    # no hardware choice: only live mode's control
    assert "accelerator=B200" in page.get_attribute("a.lang-switch", "href")
    # and its numbers explain themselves from the provenance alone
    span = page.locator(".mlsysim-v").first
    span.focus()
    text = tip_text(page)
    name = page.evaluate("a => window.MLSYSIM_PAGE.provenance.values[a].name.en", span.get_attribute("data-attr"))
    assert name and name in text
    plain = open_page(LECTURE_EN)
    assert plain.locator(".mlsysim-lecture-note").count() == 0


def _registry(kind: str) -> dict:
    import tomllib
    return tomllib.loads((Path(__file__).parents[2] / "mlsysim" / "data" / f"{kind}.toml").read_text(encoding="utf-8"))


# the hover explains the chosen inputs: the chosen accelerator's bandwidth with its published source, the chosen
# model's parameters, as the build computed them for that choice (tests/unit/test_choice_explanations.py: the data)
@pytest.mark.parametrize("path, note", [(EN, "The steps and inputs below are computed for "),
                                        (ZH, "下列步骤与输入均按 ")])
def test_a_chosen_accelerator_and_model_explain_the_value_with_their_own_inputs(open_page, path, note):
    import tomllib
    accels, models, sources = _registry("accelerators"), _registry("models"), _registry("sources")
    names = tomllib.loads((Path(__file__).parents[2] / "appendix/_cells/names.toml").read_text("utf-8"))   # beside the cell
    page = open_page(path, "?accelerator=B200&model=Llama3_8B")
    span = page.locator(".mlsysim-v[data-attr='ServingRef.ratio_str']").first
    assert span.inner_text() != "295"
    span.focus()
    page.locator("#mlsysim-tip details.mt-fold").evaluate("d => { d.open = true; }")
    text = tip_text(page)
    lang = "zh" if path == ZH else "en"
    assert page.inner_text("#mlsysim-tip .mt-name") == names["names"]["ServingRef"]["ratio"][lang]
    assert note + _display_name("accelerators", "B200") in text and "295" in text, text
    b200, h100 = accels["B200"]["memory"]["bandwidth"], accels["H100"]["memory"]["bandwidth"]
    assert f"accel.memory.bandwidth = {b200['value']}" in text, text           # "8 TB/s", as the registry stores it
    assert f"accel.memory.bandwidth = {h100['value']}" not in text, text        # not the H100's 3.35 TB/s
    assert sources[b200["source"]]["title"] in text and sources[h100["source"]]["title"] not in text, text
    n = float(models["Llama3_8B"]["parameters"].split()[0])                     # "8.03e9 count"
    mant, exp = f"{n:e}".split("e")
    sup = str(int(exp)).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    assert f"model.parameters = {float(mant):g} × 10{sup}" in text, text        # 8.03 × 10⁹
    assert models["Llama3_8B"]["display_name"] + " · model.parameters" in text
    hrefs = page.eval_on_selector_all("#mlsysim-tip a[href^='http']", "as => as.map(a => a.href)")
    assert sources[b200["source"]]["url"] in hrefs, hrefs
    # back to the reference: the reference's inputs again, and no note
    page.click("#mlsysim-choice .mc-reset")
    span.focus()
    page.locator("#mlsysim-tip details.mt-fold").evaluate("d => { d.open = true; }")
    text = tip_text(page)
    assert f"accel.memory.bandwidth = {h100['value']}" in text and page.locator("#mlsysim-tip .mt-choice").count() == 0


def test_a_value_whose_explanation_is_not_recomputed_says_it_is_the_references(open_page):
    page = open_page(EN, "?accelerator=B200")
    # reference-only: it describes the reference whatever the choice, and its explanation stays the reference's
    span = page.locator(".mlsysim-v[data-attr='ServingRef.params_class_b_str']").first
    span.focus()
    assert "The steps and inputs below are the reference’s" in tip_text(page)
    # a live-mode result (computed in the browser, explained by nobody): the popover says the inputs are the reference's
    page.evaluate("""() => window.MLSYSIM_READER.show({key: "live|test", label: "typed inputs",
                                                      values: {"ServingRef.ratio_str": "123"}})""")
    ratio = page.locator(".mlsysim-v[data-attr='ServingRef.ratio_str']").first
    assert ratio.inner_text() == "123"
    ratio.focus()
    text = tip_text(page)
    assert "Shown for typed inputs: 123." in text and "The steps and inputs below are the reference’s" in text, text
    page.locator("#mlsysim-tip details.mt-fold").evaluate("d => { d.open = true; }")
    assert "accel.memory.bandwidth = 3.35 TB/s" in tip_text(page)
