"""bookbuild.compare: two renderings of one page are reduced to what a reader checks, and differ
exactly where a number, a label or a heading differs (hand-written pages, so the expected facts
are read off the HTML below)."""
from bookbuild.compare import compare_pages, page_facts

WORDS = ["Section", "Table", "Figure", "Equation", "Appendix"]

OURS = """<html><body><nav id="sidebar"><a>Chapter 9 99</a></nav>
<main id="content"><h2 id="sec-a"><span class="header-section-number">A.1</span> Roofline</h2>
<p>An output token costs about 295 times a prompt token; see <a class="quarto-xref" href="#tbl-x">Table A.1</a>.</p>
<table><caption>Table A.1: <strong>Reference values</strong></caption><tr><td>1,979</td></tr></table>
<math display="block"><mi>x</mi><mo>=</mo><mn>2</mn><mtext>(A.3)</mtext><annotation>x = 2 \\tag{A.3}</annotation></math>
<script>var data = [1, 2, 3];</script>
<div id="refs"><div class="csl-entry">Williams 2009, 65-76.</div></div></main>
<footer>1234</footer></body></html>"""


def test_page_facts_read_only_the_main_content():
    f = page_facts(OURS, WORDS)
    assert f.headings == ["A.1 Roofline"]
    assert f.xrefs == ["Table A.1"]
    assert f.captions == ["Table A.1"]
    assert f.equations == ["(A.3)"]
    assert "295" in f.numbers and "1,979" in f.numbers
    assert "99" not in f.numbers and "1234" not in f.numbers    # navigation and footer are not the page
    assert "3" not in f.numbers                                  # script data is not text
    assert f.bibliography == ["2009", "65", "76"]


def test_same_page_has_no_differences():
    assert compare_pages(OURS, OURS, WORDS, "p.html") == []


def test_a_changed_number_and_label_are_reported():
    other = OURS.replace("about 295 times", "about 296 times").replace(">Table A.1</a>", ">Table A.2</a>")
    diffs = {d.category: d for d in compare_pages(OURS, other, WORDS, "p.html")}
    assert set(diffs) == {"numbers", "xrefs"}
    assert diffs["numbers"].only_ours == ["295"] and diffs["numbers"].only_other == ["296"]
    assert diffs["xrefs"].only_other == ["Table A.2"]
    assert "only in ours: '295'" in diffs["numbers"].format()


QUARTO_ZH = """<html><body><main><p>各项输入汇总于 <a class="quarto-xref" href="#sec-a"><span>节 A.6</span></a>，从
<a class="quarto-xref" href="#tbl-a">表 A.1</a> 中读取；屋顶线模型 <span class="citation" data-cites="w">(Williams 等, 2009)</span> 以极限为准。</p>
<table><tr><td>问题的层级</td><td><a class="quarto-xref" href="#sec-b">第 A.1 节</a></td></tr></table></main></body></html>"""
OURS_ZH = """<html><body><main><p>各项输入汇总于<a class="quarto-xref" href="#sec-a">第 A.6 节</a>，从<a class="quarto-xref"
href="#tbl-a">表 A.1</a> 中读取；屋顶线模型<span class="citation" data-cites="w">（Williams 等，2009）</span>以极限为准。</p>
<table><tr><td>问题的层级</td><td><a class="quarto-xref" href="#sec-b">第 A.1 节</a></td></tr></table></main></body></html>"""


def test_a_space_beside_a_reference_between_chinese_characters_is_found_on_either_side():
    """Issue 38: "汇总于 节 A.6"; the text around a reference in another cell does not touch it."""
    from bookbuild.compare import stray_spaces
    assert page_facts(QUARTO_ZH, ["节", "表"]).cjk_spacing == ["于 节 A.6，", "从 表 A.1 中"]
    assert page_facts(OURS_ZH, ["节", "表"]).cjk_spacing == []
    diffs = {d.category: d for d in compare_pages(OURS_ZH, QUARTO_ZH, ["节", "表"], "p.html")}
    assert "ref_spacing" in diffs and "xrefs" in diffs
    assert stray_spaces("见 \x02第 A.1 节\x03 和") == ["见 第 A.1 节 和"] and stray_spaces("见 \x02A.1\x03 和") == []


# ---------------------------------------------------------------- the PDF and the EPUB (compare.py)

def test_a_pdfs_reading_text_leaves_out_running_heads_page_numbers_and_the_contents():
    from bookbuild.compare import reading_text
    pages = ["Contents\nA.1 Why Output Costs More Than Input . . . . . . 31\nA.2 Decode-Loop Mechanics          33\n",
             "8                 Chapter 19. Agent Stalls: Keep, Swap or Discard\nThe stall lasts 21.3 s.\n\n   9\n",
             "A.6 Reference Values                                 37\nTable A.4 holds 17 rows by Equa\u00ad\n  tion A.3.\n"]
    assert reading_text(pages).split("\n") == ["Contents", "The stall lasts 21.3 s.",
                                                "Table A.4 holds 17 rows by Equation A.3."]
    # Chinese text broken across lines joins without a space (pdftotext breaks where typst did)
    assert reading_text(["见公\n  式 A.3，时间：\n30 秒\n"]) == "见公式 A.3，时间：\n30 秒"


def test_a_documents_text_gives_its_references_equation_numbers_and_numbers():
    from bookbuild.compare import text_facts
    f = text_facts("By Equation A.3 the floor is 21.1 ms\n(A.3)\nand Table\u00a0A.4 lists 1,459 tok/s; 公式 A.2 同。",
                   ["Equation", "Table", "公式"])
    assert f.xrefs == ["Equation A.3", "Table A.4", "公式 A.2"]
    assert f.equations == ["(A.3)"]
    assert f.numbers == ["21.1", "1,459"]   # the labels' numbers are not counted twice: A.3 has a letter
    # a number set against Chinese characters, spaced or not, is one number (typst spaces it in type);
    # a caption's full-width delimiter is no cross-reference word
    assert text_facts("峰值为989.4 TFLOP/s，时间：30 秒", ["公式", "："]).numbers == ["989.4", "30"]
    assert text_facts("时间：30 秒", ["公式", "："]).xrefs == []


def test_an_epubs_chapters_are_read_in_spine_order_without_title_page_or_navigation(tmp_path):
    import zipfile
    from bookbuild.compare import epub_html, page_facts
    e = tmp_path / "b.epub"
    with zipfile.ZipFile(e, "w") as z:
        z.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                   '<rootfiles><rootfile full-path="EPUB/content.opf"/></rootfiles></container>')
        z.writestr("EPUB/content.opf", '<package xmlns="http://www.idpf.org/2007/opf"><manifest>'
                   '<item id="t" href="text/title_page.xhtml"/><item id="n" href="nav.xhtml" properties="nav"/>'
                   '<item id="c2" href="text/ch002.xhtml"/><item id="c1" href="text/ch001.xhtml"/></manifest>'
                   '<spine><itemref idref="t"/><itemref idref="n"/><itemref idref="c1"/><itemref idref="c2"/></spine></package>')
        z.writestr("EPUB/text/title_page.xhtml", "<html><body><h1>Title 2026</h1></body></html>")
        z.writestr("EPUB/nav.xhtml", "<html><body><nav><a>A.1 Nav 7</a></nav></body></html>")
        z.writestr("EPUB/text/ch001.xhtml", '<html><body><h1>19 Agent Stalls</h1><p>It waits 1.5 s.</p></body></html>')
        z.writestr("EPUB/text/ch002.xhtml", '<html><body><h1>附录 A — 推理成本基础</h1><p>见 <a class="quarto-xref">公式 A.2</a>。</p></body></html>')
    f = page_facts(epub_html(e), ["公式"])
    assert f.headings == ["19 Agent Stalls", "附录 A — 推理成本基础"]
    assert f.xrefs == ["公式 A.2"]
    assert "2026" not in f.numbers and "7" not in f.numbers and "1.5" in f.numbers
