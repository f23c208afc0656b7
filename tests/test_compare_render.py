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
