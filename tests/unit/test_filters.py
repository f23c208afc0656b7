"""bookbuild.render.filters: each filter on a small chapter, through the renderer's one transform.

Expected texts are Quarto's own (a book's appendix A): "Appendix A — Title", "A.1" on a section,
"Table A.1:" and "Figure A.1:" before captions, "(A.1)" after an equation, "Section A.1" for a reference.
"""
from __future__ import annotations

import json

import pytest

from bookbuild import pandoc_ast as A
from bookbuild.numbering import number_book
from bookbuild.render.filters import Chapter, Context, transform
from bookbuild.errors import RenderError
from bookbuild.pandoc import Pandoc
from bookbuild.render.profile import prefixes_for

PANDOC = Pandoc()
SOURCE = """# Costs {#sec-costs}

## Roofline {#sec-roof}

See @sec-roof, @Tbl-x, [-@eq-r] and @fig-p [@williams2009].

$$P = \\min(\\pi, I\\beta)$$ {#eq-r}

| a | b |
|---|---|
| 1 | 2 |

: Values. {#tbl-x tbl-colwidths="[30,70]"}

![Roof.](roof.svg){#fig-p fig-alt="A rising line."}

::: {.content-visible when-format="html"}
Only on the web.
:::

::: {.content-hidden when-format="html"}
Only in print.
:::

::: {.callout-note}
Remember this.
:::
"""


def render(fmt: str = "html", lang: str = "en", source: str = SOURCE, keys=("williams2009",)):
    ast = PANDOC.md_to_ast(source)
    index = number_book([("appendix/a.qmd", True, ast)])
    n = index.chapters[0]
    ch = Chapter(0, "appendix/a.qmd", "appendix/a.html", True, ast, n.number, n.title, n.label, n.headings)
    ctx = Context(fmt, lang, prefixes_for(lang, None), [ch], index, set(keys), PANDOC)
    return transform(ctx, ch), ch


def text(ast) -> str:
    return A.stringify(ast["blocks"]).replace("\u00a0", " ")


def test_headings_carry_the_appendix_and_section_numbers():
    ast, _ = render()
    h1, h2 = [b for b in ast["blocks"] if b["t"] == "Header"][:2]
    assert A.stringify(h1["c"][2]) == "Appendix A — Costs"
    assert A.stringify(h2["c"][2]) == "A.1 Roofline"


def test_references_become_numbered_links():
    ast, ch = render()
    links = [e for e in A.iter_elements(ast["blocks"]) if e["t"] == "Link" and "quarto-xref" in e["c"][0][1]]
    assert [A.stringify(ln["c"][1]).replace("\u00a0", " ") for ln in links] == \
        ["Section A.1", "Table A.1", "A.1", "Figure A.1"]
    assert [ln["c"][2][0] for ln in links] == ["#sec-roof", "#tbl-x", "#eq-r", "#fig-p"]
    assert ch.cited == ["williams2009"]


def test_equations_tables_and_figures_are_numbered():
    ast, _ = render()
    t = text(ast)
    assert "(A.1)" in t and "Table A.1: Values." in t and "Figure A.1: Roof." in t
    table = next(e for e in A.iter_elements(ast["blocks"]) if e["t"] == "Table")
    assert [round(cs[1]["c"], 2) for cs in table["c"][2]] == [0.3, 0.7]
    img = next(e for e in A.iter_elements(ast["blocks"]) if e["t"] == "Image")
    assert A.stringify(img["c"][1]) == "A rising line."


def test_each_format_keeps_its_own_blocks():
    html, _ = render("html")
    typst, _ = render("typst")
    assert "Only on the web." in text(html) and "Only in print." not in text(html)
    assert "Only in print." in text(typst) and "Only on the web." not in text(typst)
    raw = json.dumps(typst)
    assert "#math.equation(block: true, numbering: _ => \\\"(A.1)\\\"" in raw and "#callout(kind: \\\"note\\\"" in raw


def test_callouts_and_references_speak_the_books_language():
    zh, _ = render(lang="zh")
    t = text(zh)
    assert "注释" in t and "参考文献" in t and "附录 A — Costs" in t and "节 A.1" in t


def test_an_unresolved_reference_or_citation_is_one_error():
    with pytest.raises(RenderError, match=r"unresolved: @sec-nowhere, \[@nobody2020\] \(not in the bibliography\)"):
        render(source="# A {#sec-a}\n\nSee @sec-nowhere [@nobody2020].\n")


def test_iter_elements_is_document_order_parents_first():
    """A hand-made AST: a paragraph holding emphasis, a div with a list, metadata maps walked through."""
    ast = {"blocks": [
        {"t": "Para", "c": [{"t": "Str", "c": "a"}, {"t": "Emph", "c": [{"t": "Str", "c": "b"}]}]},
        {"t": "Div", "c": [["d", [], []], [{"t": "BulletList", "c": [[{"t": "Plain", "c": [{"t": "Str", "c": "c"}]}]]}]]},
        {"t": "HorizontalRule"}],
        "meta": {"title": {"t": "MetaInlines", "c": [{"t": "Str", "c": "T"}]}}}
    seen = [e["t"] + (":" + e["c"] if isinstance(e.get("c"), str) else "") for e in A.iter_elements(ast)]
    assert seen == ["Para", "Str:a", "Emph", "Str:b", "Div", "BulletList", "Plain", "Str:c", "HorizontalRule",
                    "MetaInlines", "Str:T"]


ZH_SOURCE = """# 成本 {#sec-costs}

## 屋顶线 {#sec-roof}

各项输入汇总于 @sec-roof，从 @tbl-x 中读取，而 @eq-r 给出下限，见 @sec-roof 和 @fig-p。屋顶线模型 [@williams2009] 以最先构成瓶颈的极限为准；Firecracker [@williams2009] 是一例，见 @williams2009 的说明。

$$P = \\\\min(\\\\pi, I\\\\beta)$$ {#eq-r}

| a | b |
|---|---|
| 1 | 2 |

: 数值。 {#tbl-x}

![屋顶线。](roof.svg){#fig-p}
"""


def render_zh(source: str = ZH_SOURCE, fmt: str = "html"):
    ast = PANDOC.md_to_ast(source)
    index = number_book([("appendix/a.zh.qmd", True, ast)])
    n = index.chapters[0]
    ch = Chapter(0, "appendix/a.zh.qmd", "appendix/a.zh.html", True, ast, n.number, n.title, n.label, n.headings)
    words = prefixes_for("zh", {"sec": "节", "tbl": "表", "fig": "图", "eq": "公式", "form:节": "第 {} 节"})
    return transform(Context(fmt, "zh", words, [ch], index, {"williams2009", "little1961"}, PANDOC), ch)


@pytest.mark.parametrize("fmt", ["html", "typst", "epub"])
def test_chinese_references_read_in_chinese_order_with_no_stray_space(fmt):
    """Issue 38: "汇总于 节 A.6", "从 表 A.1 中", "而 公式 A.1": the word order of crossref-form and no space
    between the reference and a Chinese character (the space Latin text keeps: "表 A.1 中")."""
    t = text(render_zh(fmt=fmt))
    assert "汇总于第 A.1 节，从表 A.1 中读取，而公式 A.1 给出下限，见第 A.1 节和图 A.1。" in t, t
    # a parenthetical citation is full-width at both edges (the zh style): no space on either side;
    # in text it opens with the author's Latin name, so the space before it stays
    assert "屋顶线模型[@williams2009]以" in t and "Firecracker[@williams2009]是" in t, t
    assert "见 @williams2009的说明" in t, t


def test_a_book_without_a_form_keeps_quartos_order():
    ast = PANDOC.md_to_ast("# 成本\n\n## 屋顶线 {#sec-roof}\n\n汇总于 @sec-roof，\n")
    index = number_book([("appendix/a.zh.qmd", True, ast)])
    n = index.chapters[0]
    ch = Chapter(0, "appendix/a.zh.qmd", "appendix/a.zh.html", True, ast, n.number, n.title, n.label, n.headings)
    out = transform(Context("html", "zh", prefixes_for("zh", {"sec": "节"}), [ch], index, set(), PANDOC), ch)
    assert "汇总于节 A.1，" in text(out)


def test_chinese_citations_are_full_width_in_the_books_style():
    """The zh book's style sets "（Williams 等，2009）" and "（A；B）", and the page has no space against it."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    ast = render_zh("# 成本\n\n屋顶线模型 [@williams2009] 以极限为准，并行 [@williams2009; @little1961]。\n")
    out = PANDOC.run(["-f", "json", "-t", "plain", "--wrap=none", "-M", "lang=zh-CN", "--citeproc",
                      "--bibliography", str(root / "references.bib"),
                      "--csl", str(root / "csl" / "gb-t-7714-2015-author-date.csl")], json.dumps(ast))
    assert "屋顶线模型（Williams 等，2009）以极限为准，并行（Williams 等，2009；Little，1961）。" in out, out
