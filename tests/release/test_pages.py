"""The page is the test: the reader's-eye check (bookbuild.pagecheck) over the rendered book, and the check's
own parts on small pages and files made here, so a check that stopped seeing a defect fails too.

The whole-book test uses the session's rendered book (conftest ``rendered_book``) and
its one Chromium (``browser``); it prints how long it took. The rest needs no rendered book.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bookbuild.pagecheck import Problem
from bookbuild.pagecheck.browser import check_html, serve
from bookbuild.pagecheck.files import check_pdf, check_svg
from bookbuild.render.glyphs import notdef_glyphs
from parity import _chapters

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ the whole book, as readers get it

def test_the_book_passes_the_readers_eye_check(rendered_book, browser):
    from bookbuild.pagecheck import check_book
    t0 = time.perf_counter()
    problems, stats = check_book(rendered_book, browser)
    took = time.perf_counter() - t0
    print(f"\nreader's-eye check: {stats} in {took:.0f} s")
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(p.format() for p in problems[:40])
    # it looked at everything it claims to: every chapter's page of each language (the profiles'), 2 widths x
    # 2 themes each, every registry choice of the appendix in both languages at both widths, both PDFs and
    # every figure file
    pages = len(_chapters("_quarto-en.yml")) + len(_chapters("_quarto-zh.yml"))
    assert pages >= 6 and stats["pages"] == pages and stats["pdfs"] == 2 and stats["svgs"] >= 16
    variants = json.loads(re.sub(r"^window\.MLSYSIM_PAGE = |;\s*$", "",
                                 (rendered_book / "en/appendix/inference-cost.data.js").read_text("utf-8")))
    n = len(variants["variants"]["choices"])
    assert n >= 70 and stats["choices"] == n * 2 * 2, stats


def test_a_choice_the_cells_cannot_compute_is_said_in_plain_words(rendered_book, browser):
    """Whatever the exception, the reader sees no exception text, in their own language (reader.js)."""
    for page, lang in (("en/appendix/inference-cost.html", "en"), ("zh/appendix/inference-cost.zh.html", "zh")):
        data = (rendered_book / page).with_name(Path(page).stem + ".data.js").read_text("utf-8")
        payload = json.loads(re.sub(r"^window\.MLSYSIM_PAGE = |;\s*$", "", data))
        V = payload["variants"]
        ref = f"{V['reference']['accelerator']}|{V['reference']['model']}|{V['reference']['precision']}"
        # a choice whose other weight precision cannot be computed either: the page cannot move to it first
        key = next(k for k in V["choices"] if k != ref and k.endswith("|fp8")
                   and "error" in V["choices"][k.replace("|fp8", "|bf16")])
        V["choices"][key] = {**V["choices"][key], "error": "KeyError: 'node'\nTraceback (most recent call last)"}
        V["choices"][key].pop("v", None)
        body = "window.MLSYSIM_PAGE = " + json.dumps(payload, ensure_ascii=False) + ";"
        with serve(rendered_book) as base:
            tab = browser.new_page()
            tab.route("**/*.data.js", lambda r: r.fulfill(body=body, content_type="text/javascript; charset=utf-8"))
            tab.route("**/plotly-basic.min.js", lambda r: r.fulfill(body="", content_type="text/javascript"))
            a, m, p = key.split("|")
            tab.goto(f"{base}{page}?accelerator={a}&model={m}&precision={p}")
            status = tab.inner_text("#mlsysim-choice .mc-status")
            tab.close()
        assert "Error" not in status and "Traceback" not in status and "node" not in status, status
        if lang == "zh":
            assert "无法为此选择计算" in status and "本书的计算不适用" in status, status
        else:
            assert "cannot be computed" in status and "do not apply" in status, status


def test_pdf_tables_are_not_hyphenated_and_figures_leave_no_holes(rendered_book):
    """Table cells are set ragged-right without hyphenation (the lecture's timing table broke "run- ning",
    "prob- lem"); a figure that does not fit floats to the next page instead of leaving the rest of its
    page empty."""
    for pdf in sorted(rendered_book.glob("*/*.pdf")):
        text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True).stdout
        broken = re.findall(r"\b(run|prob|band|In)-\s*\n\s*(ning|lem|width|stinct)\b", text)
        assert not broken, f"{pdf.name}: table words hyphenated: {broken}"
        for page, fill in _page_fill(pdf):
            assert fill > 0.6, f"{pdf.name}: page {page} is only {fill:.0%} full: a hole before a figure?"


def _page_fill(pdf: Path):
    """(page, how far down the page its text reaches, as a fraction of the text area) for each page that
    is neither the cover, a page before a chapter (a chapter starts on a new page) nor the last page."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True).stdout
    pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', out, re.S)
    heads = [re.search(r'yMin="([\d.]+)"', body) for _, _, body in pages]
    result = []
    for i, (w, h, body) in enumerate(pages):
        h = float(h)
        ys = [float(y) for y in re.findall(r'yMax="([\d.]+)"', body)]
        ys = [y for y in ys if y < h - 60]           # the page number sits in the bottom margin
        if i in (0, 1) or i == len(pages) - 1 or not ys:
            continue
        nxt = pages[i + 1][2]
        first = re.search(r'yMin="([\d.]+)"[^>]*>([^<]*)<', nxt)
        if first and float(first.group(1)) > 120:    # the next page opens a chapter (its heading starts low)
            continue
        top, bottom = 74.0, h - 74.0
        result.append((i + 1, (max(ys) - top) / (bottom - top)))
    del heads
    return result


# ------------------------------------------------------------------ the check finds what it should

BAD_PAGE = """<!DOCTYPE html><html lang="en" data-theme="light"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>bad</title>
<style>body {{ color: #000 }} a {{ color: #3a3f44; text-decoration: none }} .topbar {{ display: flex; height: 2rem; }}</style></head>
<body><header class="topbar"><a href="index.html">Title</a><button class="theme-toggle" type="button">T</button></header>
<main class="content" id="content"><article class="chapter"><h1>Bad page</h1>
<p>The ratio is NaN here, and the rest is None. See <a href="index.html">the start</a> in a sentence of text,,
which goes on for a while so that the link sits inside a block of text.</p>
<h2 id="sec-a">A section</h2>
<p>Its reference, <a href="#sec-a" class="quarto-xref">Section 1</a>, previews nothing on a page without book.js.</p>
<table><tr><td>{wide}</td></tr></table>
<img src="http://example.invalid/x.png" alt="remote">
<figure id="fig-x"><div class="mlsysim-plot" data-figure="x" role="img" aria-label="a figure"></div></figure>
</article></main>
<script>document.querySelector('.theme-toggle').addEventListener('click', function () {{
  var d = document.documentElement; d.setAttribute('data-theme', d.getAttribute('data-theme') === 'dark' ? 'light' : 'dark'); }});
</script></body></html>
"""


def test_the_check_finds_broken_pages(tmp_path, browser):
    book = tmp_path / "book"
    (book / "en").mkdir(parents=True)
    (book / "en" / "index.html").write_text(BAD_PAGE.format(wide="x" * 400), encoding="utf-8")
    problems, stats = check_html(book, browser, widths=(1280, 390), choices=False)
    text = "\n".join(p.format() for p in problems)
    for expected in ("shows NaN", "shows None", "doubled punctuation", "page is", "px wide in a 390px viewport",
                     "requested http://example.invalid/x.png", "figure x is not drawn", "not a skip link",
                     "axe serious link-in-text-block", "is an empty box without JavaScript",
                     "focusing the sec “Section 1” shows no preview", "1 of 1 headings have no link to themselves"):
        assert expected in text, f"the check missed {expected!r}:\n{text}"
    # one line per problem, naming the page and the width
    assert all("\n" not in p.format() and p.format().startswith("en/index.html [") for p in problems)
    assert stats["pages"] == 1


def test_problem_lines_name_page_width_theme_and_choice():
    p = Problem("zh/appendix/x.html", "page is 716px wide\n in a 390px viewport", 390, "dark", "TPUv5e|Llama3_70B")
    assert p.format() == "zh/appendix/x.html [390px dark choice TPUv5e|Llama3_70B]: page is 716px wide in a 390px viewport"


def test_check_pages_command_runs_on_a_book_folder(tmp_path):
    r = subprocess.run([sys.executable, "-m", "bookbuild", "check-pages", str(tmp_path / "missing")],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and "render the book first" in r.stderr
    svg_only = tmp_path / "book"
    (svg_only / "zh").mkdir(parents=True)
    (svg_only / "zh" / "fig.zh.svg").write_text(_tofu_svg(), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "bookbuild", "check-pages", "--files-only", str(svg_only)],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert "zh/fig.zh.svg: label “批大小” is drawn with 3 placeholder glyph(s)" in r.stdout, r.stdout
    assert "holds no PDF" in r.stdout


# ------------------------------------------------------------------ glyphs in figure files and PDFs

def _tofu_svg() -> str:
    """A matplotlib SVG (svg.fonttype = path) whose Chinese label was drawn with the last-resort font."""
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n'
            ' <g id="text_1">\n  <!-- 批大小 -->\n  <g transform="scale(0.1)">\n   <defs>\n'
            '    <path id="LastResortHE-Regular-7a" d="M 0 0 L 10 0 L 10 10 z"/>\n   </defs>\n'
            '   <use xlink:href="#LastResortHE-Regular-7a"/>\n   <use xlink:href="#LastResortHE-Regular-7a"/>\n'
            '   <use xlink:href="#LastResortHE-Regular-7a"/>\n  </g>\n </g>\n</svg>\n')


def test_svg_placeholder_glyphs_are_found(tmp_path):
    bad = tmp_path / "x.zh.svg"
    bad.write_text(_tofu_svg(), encoding="utf-8")
    assert [p.what for p in check_svg(bad)] == ["label “批大小” is drawn with 3 placeholder glyph(s) (LastResortHE-Regular)"]
    # a label whose CJK characters came out in a non-CJK font (mathtext's dummy symbol) is found too
    dummy = _tofu_svg().replace("LastResortHE-Regular-7a", "STIXGeneral-Regular-66")
    bad.write_text(dummy, encoding="utf-8")
    assert "has 3 CJK characters but only 0 CJK-font glyphs" in check_svg(bad)[0].what


def _typst_pdf(tmp_path: Path, text: str, fonts: list[str]) -> Path:
    import typst
    src = tmp_path / "t.typ"
    src.write_text(f'#set text(font: ("Libertinus Serif",))\n{text}\n', encoding="utf-8")
    pdf = tmp_path / "t.pdf"
    pdf.write_bytes(typst.compile(str(src), font_paths=fonts, ignore_system_fonts=True))
    return pdf


def test_pdf_notdef_glyphs_and_missing_cjk_font_are_found(tmp_path):
    pdf = _typst_pdf(tmp_path, "Hello 中文 world", [])
    n, near = notdef_glyphs(pdf.read_bytes())
    assert n == 2
    whats = " | ".join(p.what for p in check_pdf(pdf))
    assert "draws 2 character(s) with the missing-glyph box" in whats
    ok = _typst_pdf(tmp_path, "Hello world", [])
    assert notdef_glyphs(ok.read_bytes())[0] == 0 and check_pdf(ok) == []


def test_the_pdf_build_refuses_a_figure_with_placeholder_glyphs(tmp_path):
    from bookbuild.errors import RenderError
    from bookbuild.render.pdf import _verify_glyphs
    bad = tmp_path / "f.zh.svg"
    bad.write_text(_tofu_svg(), encoding="utf-8")
    with pytest.raises(RenderError, match="placeholder glyph"):
        _verify_glyphs(_typst_pdf(tmp_path, "Hello world", []).read_bytes(), [str(bad)], tmp_path / "book.typ")


# ------------------------------------------------------------------ fonts are part of a figure

STALE_DRAW = r"""
import json, sys
from pathlib import Path
import matplotlib
from mlsysim.figures import appendix_specs
from mlsysim.figures.matplotlib_figure import placeholder_glyphs, svg_bytes, to_matplotlib
spec = appendix_specs()["batch"]
svg = svg_bytes(to_matplotlib(spec, "zh"))
cache = json.loads(next(Path(matplotlib.get_cachedir()).glob("fontlist-*.json")).read_text())
print(json.dumps({"placeholders": placeholder_glyphs(svg),
                  "cjk_in_list": sum("CJK" in e["fname"] for e in cache["ttflist"])}))
"""


def test_a_font_list_written_before_the_cjk_font_is_brought_up_to_date(tmp_path):
    """A stale matplotlib font list (written while Noto CJK was not installed) no longer gives Chinese
    labels as boxes: the list is completed from the fonts on disk and written back."""
    import matplotlib
    from matplotlib import font_manager as fm
    fresh = json.loads(Path(matplotlib.get_cachedir(), f"fontlist-v{fm.FontManager.__version__}.json").read_text())
    assert any("CJK" in e["fname"] for e in fresh["ttflist"]), "this machine has no Noto CJK (apt-get install fonts-noto-cjk)"
    stale = dict(fresh, ttflist=[e for e in fresh["ttflist"] if "CJK" not in e["fname"]])
    mpl = tmp_path / "mpl"
    mpl.mkdir()
    (mpl / f"fontlist-v{fm.FontManager.__version__}.json").write_text(json.dumps(stale))
    env = dict(os.environ, MPLCONFIGDIR=str(mpl), PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", STALE_DRAW], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["placeholders"] == [] and out["cjk_in_list"] > 0, out


def test_a_label_no_font_can_draw_is_an_error_not_a_box():
    from mlsysim.figures import appendix_specs
    from mlsysim.figures.matplotlib_figure import FigureGlyphError, to_matplotlib
    spec = appendix_specs()["batch"]
    spec.panels[0].x.title = {"en": "batch \U000F0000", "zh": "批大小 \U000F0000"}   # a private-use character
    with pytest.raises(FigureGlyphError, match=r"figure batch \(zh\).*fell back to a placeholder glyph"):
        to_matplotlib(spec, "zh")


def test_the_figure_cache_key_covers_the_fonts_and_refuses_tofu(tmp_path, monkeypatch):
    from mlsysim.figures import appendix_specs, book as B
    from mlsysim.figures.matplotlib_figure import svg_bytes, to_matplotlib
    from bookbuild.cache import LibraryStore, Store
    from mlsysim import diskcache
    monkeypatch.setattr(diskcache, "_STORE", None)
    store = LibraryStore(Store(tmp_path / "cache"))   # the build's store, as the book's hooks hand it in
    diskcache.configure(store)
    spec = appendix_specs()["prefill"]
    fp = B._spec_fingerprint(spec, "zh")
    key1 = B._figure_cache(fp, "zh")
    with monkeypatch.context() as m:
        m.setattr(B, "font_identity", lambda lang: "Noto Sans CJK SC=/elsewhere/NotoSansCJK.ttc:1:2")
        assert B._figure_cache(fp, "zh") != key1, "a changed font must change the figure's cache key"
    # a tofu drawing sitting in the cache under the right key is drawn again, not copied into the book
    store.put("figures", key1, _tofu_svg().encode("utf-8"))
    B._DRAWN.clear()
    out = tmp_path / "figures"
    B.book_figure(spec, out, lang="zh")
    drawn = (out / "prefill.zh.svg").read_bytes()
    assert b"LastResort" not in drawn
    assert drawn == svg_bytes(to_matplotlib(spec, "zh")), "cached and uncached drawings differ"


def test_static_legends_are_clear_of_the_data():
    """The roofline's preferred corner (lower right) covers its roof: the drawing moves the legend."""
    from mlsysim.figures import appendix_specs
    from mlsysim.figures.matplotlib_figure import legend_overlap, to_matplotlib
    import matplotlib.pyplot as plt
    for key in ("roofline", "batch"):
        fig = to_matplotlib(appendix_specs()[key], "en")
        for ax in fig.axes:
            if ax.get_legend() is not None:
                assert legend_overlap(ax, ax.get_legend()) is None, key
        plt.close(fig)


def test_html_figures_carry_their_static_drawing_and_no_img_role():
    from mlsysim.figures import appendix_specs
    from mlsysim.figures.plotly_figure import plot_div, plotly_json
    spec = appendix_specs()["roofline"]
    div = plot_div(spec, "zh", alt="屋顶线", static="figures/roofline.zh.svg")
    assert 'role="group"' in div and 'role="img"' not in div
    assert '<noscript><img class="mlsysim-static" src="figures/roofline.zh.svg" alt="屋顶线"' in div
    legend = plotly_json(spec, "en")["layout"]["legend"]
    assert legend["orientation"] == "h" and legend["yref"] == "container" and legend["y"] == 0


# ------------------------------------------------------------------ the PDF cover

def test_the_pdf_cover_shows_title_subtitle_edition_and_date(tmp_path):
    from bookbuild.render.profile import render_profile
    root = tmp_path / "book"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "render_book", root)
    manifest = root / "_build" / "executed" / "en" / "book.json"
    book = json.loads(manifest.read_text(encoding="utf-8"))
    meta = book.setdefault("metadata", {})
    meta.setdefault("book", {}).update({"subtitle": "What a token costs", "edition": "Second edition",
                                        "date": "2025-11-30"})
    manifest.write_text(json.dumps(book), encoding="utf-8")
    files = render_profile(root, "en", root / "_build" / "executed", root / "_book", formats=("pdf",))
    pdf = next(f for f in files if f.suffix == ".pdf")
    cover = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True).stdout
    for want in (book["title"], "What a token costs", "Second edition", "2025-11-30"):
        assert want in " ".join(cover.split()), (want, cover)


def test_the_renderer_and_the_drawing_agree_on_placeholder_glyphs(tmp_path):
    """bookbuild's copy of the test (no mlsysim import in the renderer) gives what mlsysim's gives."""
    from bookbuild.render.glyphs import placeholder_glyphs as ours
    from mlsysim.figures.matplotlib_figure import placeholder_glyphs as theirs
    for svg in (_tofu_svg(), _tofu_svg().replace("LastResortHE-Regular-7a", "STIXGeneral-Regular-66"),
                _tofu_svg().replace("LastResortHE-Regular-7a", "NotoSansCJKsc-Regular-4e2d"),
                *(p.read_text("utf-8") for p in sorted((ROOT / "appendix" / "figures").glob("*.svg"))[:4])):
        assert ours(svg) == theirs(svg)
