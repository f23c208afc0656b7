"""_extensions/mlsysim-book/cjk-xref.lua: Quarto's cross-references and citations in a Chinese book as
bookbuild sets them (bookbuild/render/filters/citations.py, cjk_spacing.py), run by pandoc itself on the
elements Quarto's crossref filter leaves (crossref/refs.lua: a quarto-xref Link of word, nbsp, number; in typst
``#ref(<label>, supplement: [word])``); and the book-level references Quarto's HTML book resolves after its
filters, which bookbuild's post-render step words (bookbuild/quarto/post_render.cjk_xrefs)."""
from __future__ import annotations

import json
from pathlib import Path

from bookbuild.quarto.post_render import cjk_xrefs
from bookbuild.pandoc import Pandoc

ROOT = Path(__file__).resolve().parents[2]
LUA = ROOT / "_extensions" / "mlsysim-book" / "cjk-xref.lua"
PANDOC = Pandoc()
NBSP = "\u00a0"
API = json.loads(PANDOC.run(["-f", "markdown", "-t", "json"], "x"))["pandoc-api-version"]


def S(t):
    return {"t": "Str", "c": t}


SP = {"t": "Space"}


def xref(word, number, label):
    return {"t": "Link", "c": [["", ["quarto-xref"], []], [S(word), S(NBSP), S(number)], ["#" + label, ""]]}


def cite(key, mode="NormalCitation"):
    c = {"citationId": key, "citationPrefix": [], "citationSuffix": [], "citationMode": {"t": mode},
         "citationNoteNum": 1, "citationHash": 0}
    return {"t": "Cite", "c": [[c], [S("[@" + key + "]")]]}


def raw(text):
    return {"t": "RawInline", "c": ["typst", text]}


def run(inlines, to="plain", lang="zh"):
    meta = {"lang": {"t": "MetaInlines", "c": [S(lang)]},
            "crossref-form": {"t": "MetaMap", "c": {"节": {"t": "MetaInlines", "c": [S("第"), SP, S("{}"), SP, S("节")]}}}}
    doc = {"pandoc-api-version": API, "meta": meta, "blocks": [{"t": "Para", "c": inlines}]}
    return PANDOC.run(["-f", "json", "-t", to, "--wrap=none", "--lua-filter", str(LUA)], json.dumps(doc)).strip()


PARA = [S("汇总于"), SP, xref("节", "A.6", "sec-a"), S("，从"), SP, xref("表", "A.1", "tbl-a"), SP, S("中，而"), SP,
        xref("公式", "A.1", "eq-a"), SP, S("给出；模型"), SP, cite("w"), SP, S("以；Firecracker"), SP, cite("w"),
        S("；见"), SP, cite("w", "AuthorInText"), SP, S("的说明。")]


def test_quartos_references_read_in_chinese_order_with_no_stray_space():
    out = run(PARA).replace(NBSP, " ")
    assert out == "汇总于第 A.6 节，从表 A.1 中，而公式 A.1 给出；模型[@w]以；Firecracker[@w]；见 [@w]的说明。", out


def test_an_english_book_is_left_as_quarto_wrote_it():
    assert run(PARA, lang="en").replace(NBSP, " ").startswith("汇总于 节 A.6，从 表 A.1 中")


def test_typst_references_take_the_form_around_typsts_own_number():
    inl = [S("汇总于"), SP, raw("#ref(<sec-a>, supplement: ["), S("节"), raw("])"), S("，从"), SP,
           raw("#ref(<tbl-a>, supplement: ["), S("表"), raw("])"), SP, S("中")]
    out = run(inl, to="typst")   # pandoc's typst writer spells the no-break space ~
    assert "汇总于第~#ref(<sec-a>, supplement: none)~节，从#ref(<tbl-a>, supplement: [表]) 中" in out, out


def test_the_html_books_section_references_take_the_form_after_quarto_resolved_them():
    """book-crossrefs.ts writes "节 A.6" into the page after the filters ran."""
    page = ('汇总于 <a href="#sec-a" class="quarto-xref"><span>节 A.6</span></a>，见 '
            '<a href="b.html#sec-b" class="quarto-xref"><span>节 19.3</span></a> 和 <a href="#sec-c" '
            'class="quarto-xref"><span>节 A.1</span></a> 中；<a href="#sec-d" class="quarto-xref"><span>19.4</span></a>')
    out = cjk_xrefs(page, {"节": "第 {} 节"}).replace(NBSP, " ")
    assert out == ('汇总于<a href="#sec-a" class="quarto-xref"><span>第 A.6 节</span></a>，见'
                   '<a href="b.html#sec-b" class="quarto-xref"><span>第 19.3 节</span></a>和<a href="#sec-c" '
                   'class="quarto-xref"><span>第 A.1 节</span></a>中；<a href="#sec-d" class="quarto-xref"><span>19.4</span></a>'), out
