"""The extension's Lua filters (_extensions/mlsysim-book/*.lua) run in pandoc's own Lua engine, the pandoc the
project uses (pypandoc-binary's), each on small documents written here with the output it must give, written
by hand: a harness per filter file (``run``), with tests/fixtures/quarto-shim.lua standing in for the few Quarto
functions they call. Every filter file of the extension is named here (a new one fails the last test until it
has tests of its own)."""
from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import pypandoc
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "_extensions" / "mlsysim-book"
SHIM = ROOT / "tests" / "fixtures" / "quarto-shim.lua"
PANDOC = pypandoc.get_pandoc_path()


def run(filter_name: str, text: str, to: str, *args: str, fmt: str = "markdown", env: dict | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    """``text`` through pandoc (``fmt`` -> ``to``) with the extension's ``filter_name`` (under the shim)."""
    e = {**os.environ, "MLSYSIM_LUA_FILTER": str(EXT / filter_name), **(env or {})}
    r = subprocess.run([PANDOC, "-f", fmt, "-t", to, "--wrap=none", "--lua-filter", str(SHIM), *args], input=text,
                       capture_output=True, text=True, env=e, timeout=60)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def blocks(filter_name: str, text: str, to: str, *args: str, **kw) -> list:
    """The document's blocks after the filter, as pandoc's JSON (the filter runs for format ``to``)."""
    # the writer decides FORMAT: write ``to`` through a filter that dumps the AST after ours
    dump = ROOT / "tests" / "fixtures" / "dump-ast.lua"
    r = run(filter_name, text, to, *args, "--lua-filter", str(dump), "-o", os.devnull, **kw)
    return json.JSONDecoder().raw_decode(r.stderr.split("AST:", 1)[1])[0]["blocks"]


# ---------------------------------------------------------------- equations.lua

def test_equations_html_moves_quartos_number_out_of_the_math():
    # what Quarto's crossref filter leaves for MathML: the number appended to the TeX (equations.lua, eqQquad)
    src = "[$$t \\approx \\frac{2N}{\\pi} \\qquad(A.1)$$]{#eq-prefill}\n\n$$P = \\min(a, b)$$\n"
    out = run("equations.lua", src, "html", "--mathjax").stdout
    assert ('<span id="eq-prefill" class="quarto-eq"><span class="eq-body"><span class="math display">'
            '\\[t \\approx \\frac{2N}{\\pi}\\]</span></span><span class="eq-number">(A.1)</span></span>') in out
    # an unlabelled equation is left as it is
    assert '<span class="math display">\\[P = \\min(a, b)\\]</span>' in out
    assert out.count("quarto-eq") == 1


def test_equations_epub_as_html_and_a_span_without_a_number_left_alone():
    src = "[$$x = 1 \\qquad(19.2)$$]{#eq-a}\n\n[$$y$$]{#eq-b}\n\n[$$z \\qquad(1)$$]{#sec-not-an-equation}\n"
    html = run("equations.lua", src, "html", "--mathjax").stdout
    assert '<span class="eq-number">(19.2)</span>' in html
    assert '<span id="eq-b"><span class="math display">\\[y\\]</span></span>' in html
    assert '<span id="sec-not-an-equation"><span class="math display">\\[z \\qquad(1)\\]</span></span>' in html
    # EPUB takes the same markup (its formula, its number)
    b = blocks("equations.lua", src, "epub")
    first = b[0]["c"][0]
    assert first["t"] == "Span" and first["c"][0] == ["eq-a", ["quarto-eq"], []]
    assert first["c"][1][1] == {"t": "Span", "c": [["", ["eq-number"], []], [{"t": "Str", "c": "(19.2)"}]]}


def test_equations_typst_sets_unlabelled_equations_unnumbered_and_keeps_quartos_labelled_ones():
    src = ("$$a = b$$\n\n"
           "`#math.equation(block: true, numbering: equation-numbering, [ `{=typst}$$c = d$$` ])<eq-x>`{=typst}\n")
    out = run("equations.lua", src, "typst").stdout
    assert "#math.equation(block: true, numbering: none, [ $ a = b $ ])" in out
    assert "#math.equation(block: true, numbering: equation-numbering, [$ c = d $])<eq-x>" in out
    assert out.count("#math.equation(") == 2


# ---------------------------------------------------------------- references-heading.lua

def test_references_heading_ends_a_citing_chapter_in_its_language():
    b = blocks("references-heading.lua", "See @knuth1984 and @fig-x.\n", "html")
    assert b[-2] == {"t": "Header", "c": [2, ["references", ["unnumbered"], []], [{"t": "Str", "c": "References"}]]}
    assert b[-1] == {"t": "Div", "c": [["refs", [], []], []]}
    zh = blocks("references-heading.lua", "见 [@knuth1984]。\n", "html", "-M", "lang=zh-CN")
    assert zh[-2]["c"][2] == [{"t": "Str", "c": "参考文献"}]


@pytest.mark.parametrize("src,to", [("Only cross-references: @fig-x, @tbl-y, @eq-z, @sec-w.\n", "html"),
                                    ("Cites @knuth1984.\n\n::: {#refs}\n:::\n", "html"),
                                    ("Cites @knuth1984.\n", "typst")])
def test_references_heading_leaves_a_chapter_without_citations_its_own_refs_or_another_format(src, to):
    b = blocks("references-heading.lua", src, to)
    assert not any(x["t"] == "Header" for x in b)


# ---------------------------------------------------------------- cjk-caption.lua

def test_cjk_caption_drops_the_space_after_a_fullwidth_colon_in_chinese_only():
    src = "图 A.1： 标题\n"
    assert blocks("cjk-caption.lua", src, "html", "-M", "lang=zh")[0]["c"] == [
        {"t": "Str", "c": "图"}, {"t": "Space"}, {"t": "Str", "c": "A.1："}, {"t": "Str", "c": "标题"}]
    assert {"t": "Space"} in blocks("cjk-caption.lua", src, "html", "-M", "lang=en")[0]["c"][3:4]


# ---------------------------------------------------------------- static-figures.lua

def _marker(meta: dict) -> str:
    return "<!-- quarto-file-metadata: " + base64.b64encode(json.dumps(meta).encode()).decode() + " -->"


FIGURE = '<div class="mlsysim-plot" data-figure="roofline" lang="en" id="p"></div>'


def test_static_figures_put_the_chapters_svg_in_the_epub_and_nothing_in_html():
    # the figure as a cell's output holds it (a div of the cell's output), after the chapter's book marker
    src = "\n".join(["```{=html}", _marker({"bookItemFile": "appendix/inference-cost.qmd"}), "```", "",
                     "::: {.cell-output-display}", "```{=html}", FIGURE, "```", ":::", ""])
    epub = blocks("static-figures.lua", src, "epub")
    assert epub[-1]["c"][1] == [{"t": "Para", "c": [{"t": "Image", "c": [["", [], []], [],
                                                                        ["appendix/figures/roofline.en.svg", ""]]}]}]
    html = blocks("static-figures.lua", src, "html")
    assert html[-1]["c"][1][0]["t"] == "RawBlock" and FIGURE in html[-1]["c"][1][0]["c"][1]


# ---------------------------------------------------------------- chapter-number.lua

def _chapter(tmp_path: Path, offset: str) -> Path:
    f = tmp_path / "lectures" / "l.qmd"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(f"---\ntitle: Agent stalls\nnumber-offset: {offset}\n---\n\n# Agent stalls\n", encoding="utf-8")
    return f


def test_chapter_number_sets_typsts_heading_counter_before_a_declared_chapter(tmp_path):
    _chapter(tmp_path, "[18]")
    src = "\n".join(["```{=html}", _marker({"bookItemType": "chapter", "bookItemFile": "lectures/l.qmd"}), "```", "",
                     "# Agent stalls", "", "## A section", ""])
    b = blocks("chapter-number.lua", src, "typst", env={"MLSYSIM_LUA_PROJECT": str(tmp_path)})
    i = next(k for k, x in enumerate(b) if x["t"] == "Header" and x["c"][0] == 1)
    assert b[i - 1] == {"t": "RawBlock", "c": ["typst", '#pagebreak(to: "odd", weak: true)\n#counter(heading).update(18)']}
    assert sum(1 for x in b if x["t"] == "RawBlock" and x["c"][0] == "typst") == 1


def test_chapter_number_gives_the_html_page_its_declared_number(tmp_path):
    f = _chapter(tmp_path, "[18]")
    before = "crossref = {index = {section = {3}, sectionOffsets = {3}, numberOffset = {3}}}"
    src = '---\ntitle: "[3]{.chapter-number} [Agent stalls]{.chapter-title}"\n---\n\n# Agent stalls\n'
    dump = ROOT / "tests" / "fixtures" / "dump-ast.lua"
    r = run("chapter-number.lua", src, "html", "--lua-filter", str(dump),
            env={"MLSYSIM_LUA_INPUT": str(f), "MLSYSIM_LUA_BEFORE": before})
    title = json.loads(r.stderr.split("AST:", 1)[1])["meta"]["title"]["c"]
    assert title[0] == {"t": "Span", "c": [["", ["chapter-number"], []], [{"t": "Str", "c": "19"}]]}


def test_chapter_number_refuses_an_offset_that_is_not_one_whole_number(tmp_path):
    f = _chapter(tmp_path, "[1.5]")
    before = "crossref = {index = {section = {3}, sectionOffsets = {3}, numberOffset = {3}}}"
    r = run("chapter-number.lua", "# X\n", "html", env={"MLSYSIM_LUA_INPUT": str(f), "MLSYSIM_LUA_BEFORE": before},
            check=False)
    assert r.returncode != 0 and "number-offset must be one whole number" in r.stderr


# ---------------------------------------------------------------- own-files.lua

def _own(tmp_path, text: str, to: str = "epub"):
    """``text`` as a chapter of a project at tmp_path/book, beside a folder outside it holding a secret."""
    book, outside = tmp_path / "book", tmp_path / "outside"
    (book / "ch").mkdir(parents=True, exist_ok=True)
    outside.mkdir(exist_ok=True)
    (outside / "s.svg").write_text("<svg/>", encoding="utf-8")
    (book / "ch" / "ok.svg").write_text("<svg/>", encoding="utf-8")
    if not (book / "ch" / "link.svg").is_symlink():
        (book / "ch" / "link.svg").symlink_to(outside / "s.svg")
    env = {"MLSYSIM_LUA_PROJECT": str(book), "MLSYSIM_LUA_INPUT": str(book / "ch" / "c.qmd")}
    return run("own-files.lua", text, "html", env=env, check=False), (outside / "s.svg").resolve()


@pytest.mark.parametrize("text, said", [
    ('<img src="../../outside/s.svg">\n', 'raw HTML <img> file ../../outside/s.svg is outside the project ({real})'),
    ('A <video poster="link.svg"></video>.\n', 'raw HTML <video> file link.svg is outside the project ({real})'),
    ("<object data='/etc/hostname'></object>\n", "raw HTML <object> file /etc/hostname is outside the project (/etc/hostname)"),
    ('![x](link.svg)\n', 'image link.svg is outside the project ({real})'),
    ('<img src=https://example.org/a.png>\n', 'raw HTML <img> file https://example.org/a.png is not a local file'),
    ('<img srcset="a.svg 1x, b.svg 2x">\n', 'raw HTML <img srcset> a.svg 1x, b.svg 2x names a list'),
])
def test_own_files_stops_quartos_render_at_a_file_outside_the_project(tmp_path, text, said):
    """What a cell prints reaches Quarto's writers without our check: the filter refuses it in one line, the
    chapter named (links followed; an outside file would travel inside Quarto's EPUB)."""
    r, real = _own(tmp_path, text)
    assert r.returncode != 0 and r.stderr.startswith("ch/c.qmd: " + said.format(real=real)), r.stderr
    assert len([ln for ln in r.stderr.splitlines() if ln.strip()]) == 1, r.stderr


def test_own_files_passes_the_projects_files_and_leaves_them_as_they_are(tmp_path):
    text = '<img src="ok.svg" alt="">\n\n![y](ok.svg)\n\n<a href="https://example.org">a link</a> <img src="data:image/png;base64,AA">\n'
    r, _ = _own(tmp_path, text)
    assert r.returncode == 0, r.stderr
    assert '<img src="ok.svg" alt="">' in r.stdout and 'src="ok.svg"' in r.stdout


def test_every_filter_file_of_the_extension_has_tests_here():
    tested = {"equations.lua", "references-heading.lua", "cjk-caption.lua", "static-figures.lua", "chapter-number.lua",
              "cjk-xref.lua", "own-files.lua"}   # cjk-xref.lua: tests/unit/test_cjk_xref_lua.py
    assert {p.name for p in EXT.glob("*.lua")} == tested


# ---------------------------------------------------------------- typst-book.typ (the typst header the book adds)

def test_the_typst_header_breaks_long_tables_with_their_header_and_refers_to_equations_as_the_html(tmp_path):
    import subprocess as sp
    import typst
    rows = "".join(f"[row {i}], [{i * 7}],\n" for i in range(1, 121))
    # what Quarto's book writes, cut down: its equation numbering (numbering.typ for books), a chapter, an
    # equation Quarto labelled, one the extension set unnumbered, a reference, a long table in Quarto's float
    src = ((EXT / "typst-book.typ").read_text(encoding="utf-8") + "\n"
        '#let equation-numbering = it => numbering("(1.1)", counter(heading).get().first(), it)\n'
        "#set heading(numbering: \"1.1\")\n= Chapter\n"
        "#math.equation(block: true, numbering: none, [ $ P = min(a, b) $ ])\n"
        "#math.equation(block: true, numbering: equation-numbering, [ $ t = N / beta $ ])<eq-decode>\n"
        "By #ref(<eq-decode>, supplement: [Equation]) the floor holds.\n"
        '#figure(kind: "quarto-float-tbl", supplement: [Table], caption: [Long],\n'
        "  table(columns: 2, table.header([Name], [Value]),\n" + rows + "))\n")
    f = tmp_path / "t.typ"
    f.write_text(src, encoding="utf-8")
    pdf = tmp_path / "t.pdf"
    pdf.write_bytes(typst.compile(str(f)))
    pages = sp.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout.split("\f")
    text = "\n".join(pages)
    assert "By Equation 1.1 the floor holds" in " ".join(text.split())      # not "Equation (1.1)"
    assert "(1.1)" in text and "(1.2)" not in text                           # the unlabelled one has no number
    assert "row 120" in text                                                 # every row, across pages
    with_rows = [p for p in pages if "row " in p]
    assert len(with_rows) >= 2 and all("Name" in p and "Value" in p for p in with_rows)   # the header repeated
