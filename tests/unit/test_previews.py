"""The previews of cross-references into other pages and the title block (bookbuild/render/previews.py,
render/html.py): what the build writes, read from small bodies written here."""
from __future__ import annotations

from bookbuild.render import previews
from bookbuild.render.html import book_fields, long_date

APPENDIX = """<h1 id="app">Appendix</h1>
<h2 id="sec-roof"><span class="header-section-number">A.1</span> The roofline</h2>
<p>Every call does <span class="mlsysim-v" data-attr="S.x_str">two</span> kinds of work.</p>
<p>Then more.</p>
<p><span id="eq-floor" class="quarto-eq"><span class="eq-body"><math display="block"><mi>t</mi></math></span><span class="eq-number">(A.2)</span></span></p>
<h2 id="sec-empty">A heading with a list after it</h2>
<ul><li>not a paragraph</li></ul>
<script type="application/json">{"x": "<b>a</b>"}</script>
<div id="ref-williams2009" class="csl-entry" role="listitem">Williams, Samuel. 2009. <a href="https://doi.org/10.1145/1498765.1498785">doi</a></div>
"""


def test_a_section_previews_its_heading_and_the_paragraph_after_it_without_ids():
    got = previews.element(APPENDIX, "sec-roof")
    assert got == ('<h2 ><span class="header-section-number">A.1</span> The roofline</h2>\n'
                   '<p>Every call does <span class="mlsysim-v">two</span> kinds of work.</p>')


def test_an_equation_previews_its_body_and_number_and_a_heading_without_a_paragraph_only_itself():
    assert previews.element(APPENDIX, "eq-floor") == ('<span class="quarto-eq"><span class="eq-body"><math display="block">'
                                                      '<mi>t</mi></math></span><span class="eq-number">(A.2)</span></span>')
    assert previews.element(APPENDIX, "sec-empty") == "<h2 >A heading with a list after it</h2>"
    # an element after a script whose text holds markup is still found whole
    assert previews.element(APPENDIX, "ref-williams2009").endswith("doi</a></div>")
    assert previews.element(APPENDIX, "sec-none") is None


def test_a_page_carries_the_previews_of_its_references_into_other_pages_once_each():
    lecture = ('<p>See <a href="../appendix/a.html#sec-roof" class="quarto-xref">Section A.1</a> and '
               '<a href="../appendix/a.html#eq-floor" class="quarto-xref">Equation A.2</a>, again '
               '<a href="../appendix/a.html#sec-roof" class="quarto-xref">Section A.1</a>, here '
               '<a href="#sec-local" class="quarto-xref">Section 19.1</a>, and a label the page lacks '
               '<a href="../appendix/a.html#sec-gone" class="quarto-xref">Section A.9</a>.</p>')
    t = previews.templates("lectures/l.html", lecture, {"appendix/a.html": APPENDIX})
    assert t.startswith('<template id="xref-previews">') and t.endswith("</template>\n")
    assert t.count("data-preview=") == 2
    assert '<div data-preview="../appendix/a.html#sec-roof" data-page="../appendix/a.html"><h2 >' in t
    assert '<div data-preview="../appendix/a.html#eq-floor" data-page="../appendix/a.html"><span class="quarto-eq">' in t
    assert " id=" not in t.removeprefix('<template id="xref-previews">')   # no id of the targets copied
    # a page whose references all stay on it carries nothing
    assert previews.templates("appendix/a.html", APPENDIX, {"appendix/a.html": APPENDIX}) == ""


def test_the_title_block_dates_read_as_quartos():
    # Quarto 1.11's title block for book: date: "2026-12-01" reads "December 1, 2026" (en), dayjs's LL in zh
    assert long_date("2026-12-01", "en") == "December 1, 2026"
    assert long_date("2026-12-01", "zh") == "2026年12月1日"
    assert long_date("2026-03-09", "en") == "March 9, 2026"
    assert long_date("Winter 2026", "en") == "Winter 2026"


def test_the_title_block_reads_book_before_the_top_level_and_leaves_a_keyword_date_out():
    f = book_fields({"book": {"subtitle": "Sub", "author": ["A", "B"], "date": "today"}, "subtitle": "Other"})
    assert f == {"subtitle": "Sub", "author": ["A", "B"], "date": ""}
    assert book_fields({"author": "One", "date": "2026-12-01"}) == {"subtitle": "", "author": ["One"], "date": "2026-12-01"}
    assert book_fields(None) == {"subtitle": "", "author": [], "date": ""}


def test_a_held_copy_shows_its_numbers_without_their_behaviour():
    """A preview held for another page copies computed numbers as text: no data-attr (the page's explanations
    and the reader's choice would count it as a value of this page, without its name), no tab stop."""
    from bookbuild.render.previews import element
    body = ('<h2 id="sec-a">A</h2>\n<p>x <span class="mlsysim-v" data-attr="S.r_str">83</span> and '
            '<span class="mlsysim-v big" data-attr="S.q_str" tabindex="0">1</span></p>')
    got = element(body, "sec-a")
    assert "data-attr" not in got and "tabindex" not in got, got
    assert ">83</span>" in got and 'class="mlsysim-v big">1<' in got
