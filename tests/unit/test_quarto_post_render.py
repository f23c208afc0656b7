"""The Quarto post-render step: a chapter's declared number in the links Quarto's book numbers by position.

The markup is Quarto's, copied from the pages Quarto 1.11.0 and 1.7.34 wrote for this book (identical in
both): the sidebar, the breadcrumbs, the previous/next link, and the crumbs of search.json. And what the
step mends in Quarto's own chrome (markup copied from Quarto 1.11's English book, _book/en): the skip link,
the previous/next links' names, the collapsible callouts' headers.
"""
import json
from pathlib import Path

import yaml

from bookbuild.quarto.post_render import (callout_toggles, page_lang, page_text, pagination_names, quarto_chrome,
                                          quarto_page, renumber_links, renumber_search, skip_link)

ROOT = Path(__file__).resolve().parents[2]
LECTURE = "lectures/lecture19-agent-stalls.html"
APPENDIX = "appendix/inference-cost.html"
#: the chapters' numbers as the build's index has them: the lecture declares number-offset: [18]
NUMBERS = {LECTURE: "19", APPENDIX: "A"}

SIDEBAR = """<li class="sidebar-item">
  <div class="sidebar-item-container"> 
  <a href="../lectures/lecture19-agent-stalls.html" class="sidebar-item-text sidebar-link active">
 <span class="menu-text"><span class="chapter-number">1</span>&nbsp; <span class="chapter-title">Agent Stalls: Keep, Swap or Discard</span></span></a>
  </div>
</li>
<li class="sidebar-item">
  <a href="../appendix/inference-cost.html" class="sidebar-item-text sidebar-link">
 <span class="menu-text"><span class="chapter-number">A</span>&nbsp; <span class="chapter-title">Inference Cost Foundations</span></span></a>
</li>
<li class="sidebar-item"><a href="../index.html" class="sidebar-item-text sidebar-link">
 <span class="menu-text">Preface</span></a></li>
<p>A table cell <span class="chapter-number">1</span> outside any link stays.</p>"""

BREADCRUMB = ('<nav class="quarto-page-breadcrumbs" aria-label="breadcrumb"><ol class="breadcrumb"><li class="breadcrumb-item">'
              '<a href="../lectures/lecture19-agent-stalls.html"><span class="chapter-number">1</span>&nbsp; '
              '<span class="chapter-title">Agent Stalls: Keep, Swap or Discard</span></a></li></ol></nav>')

NEXT = """<div class="nav-page nav-page-next">
      <a href="./lectures/lecture19-agent-stalls.html" class="pagination-link" aria-label="Agent Stalls: Keep, Swap or Discard">
        <span class="nav-page-text"><span class="chapter-number">1</span>&nbsp; <span class="chapter-title">Agent Stalls: Keep, Swap or Discard</span></span> <i class="bi bi-arrow-right-short"></i>
      </a>
  </div>"""


def test_the_sidebar_shows_the_declared_number():
    out = renumber_links(SIDEBAR, APPENDIX, NUMBERS)
    assert out.count('<span class="chapter-number">19</span>') == 1
    assert out.count('<span class="chapter-number">A</span>') == 1
    assert '<span class="chapter-number">1</span> outside any link stays' in out
    # everything else as Quarto wrote it
    assert out.replace(">19<", ">1<", 1) == SIDEBAR


def test_breadcrumbs_and_page_navigation_show_it_from_any_folder():
    assert renumber_links(BREADCRUMB, LECTURE, NUMBERS) == BREADCRUMB.replace(">1<", ">19<")
    assert renumber_links(NEXT, "index.html", NUMBERS) == NEXT.replace(">1<", ">19<")
    # a chapter without a number in the index (or another page) is left alone
    assert renumber_links(NEXT, "index.html", {APPENDIX: "A"}) == NEXT
    # the same link read from a page in another folder names another page: left alone
    assert renumber_links(NEXT, APPENDIX, NUMBERS) == NEXT


def test_search_crumbs_show_it():
    crumb = "<span class='chapter-number'>1</span>\u00a0 <span class='chapter-title'>Agent Stalls: Keep, Swap or Discard</span>"
    data = json.dumps([
        {"objectID": "a", "href": "lectures/lecture19-agent-stalls.html#sec-lec19-fates", "crumbs": [crumb]},
        {"objectID": "b", "href": "lectures/lecture19-agent-stalls.html", "crumbs": [crumb]},
        {"objectID": "c", "href": "index.html", "crumbs": ["Preface"]},
    ])
    got = json.loads(renumber_search(data, NUMBERS))
    assert [e["crumbs"] for e in got] == [[crumb.replace(">1<", ">19<")]] * 2 + [["Preface"]]


def test_the_extension_runs_the_number_filter_and_the_pages_are_quartos():
    ext = yaml.safe_load((ROOT / "_extensions/mlsysim-book/_extension.yml").read_text(encoding="utf-8"))
    assert "chapter-number.lua" in ext["contributes"]["filters"]
    assert (ROOT / "_extensions/mlsysim-book/chapter-number.lua").is_file()
    assert quarto_page("lectures/lecture19-agent-stalls.qmd") == LECTURE


# ------------------------------------------------------------------ Quarto's own chrome, mended

#: the start of Quarto 1.11's page lectures/lecture19-agent-stalls.html (its first tab stop is the sidebar's
#: title link, at a phone's width the sidebar's toggle button)
PAGE = """<html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en"><head><title>t</title></head>
<body class="nav-sidebar floating quarto-light"><script id="quarto-html-before-body" type="application/javascript">
</script>
<div id="quarto-search-results"></div>
<main class="content" id="quarto-document-content">
<p>text</p>
</main>
</body></html>"""

#: the previous/next links of the same page (the appendix is chapter A)
PAGINATION = """<nav class="page-navigation">
  <div class="nav-page nav-page-previous">
      <a href="../index.html" class="pagination-link" aria-label="Preface">
        <i class="bi bi-arrow-left-short"></i> <span class="nav-page-text">Preface</span>
      </a>          
  </div>
  <div class="nav-page nav-page-next">
      <a href="../appendix/inference-cost.html" class="pagination-link" aria-label="Inference Cost Foundations">
        <span class="nav-page-text"><span class="chapter-number">A</span>&nbsp; <span class="chapter-title">Inference Cost Foundations</span></span> <i class="bi bi-arrow-right-short"></i>
      </a>
  </div>
</nav>"""

#: a collapsible callout (the lecture's exercise solution) and one that does not collapse
CALLOUTS = """<div class="callout callout-style-default callout-tip callout-titled" title="Solution sketch">
<div class="callout-header d-flex align-content-center collapsed" data-bs-toggle="collapse" data-bs-target=".callout-10-contents" aria-controls="callout-10" aria-expanded="false" aria-label="Toggle callout">
<div class="callout-icon-container">
<i class="callout-icon"></i>
</div>
<div class="callout-title-container flex-fill">
<span class="screen-reader-only">Tip</span>Solution sketch
</div>
<div class="callout-btn-toggle d-inline-block border-0 py-1 ps-1 pe-0 float-end"><i class="callout-toggle"></i></div>
</div>
<div id="callout-10" class="callout-10-contents callout-collapse collapse">
<div class="callout callout-style-default callout-note callout-titled" title="Instructor notes: timing plan">
<div class="callout-header d-flex align-content-center">
<div class="callout-icon-container">"""


def test_the_skip_link_is_the_first_tab_stop_in_the_pages_language():
    assert page_lang(PAGE) == "en"
    out = page_text(PAGE, "<link>", "<script></script>", skip_link(PAGE, "en"))
    body = out.index('<body class="nav-sidebar floating quarto-light">')
    first_link = out.index("<a ", body)
    assert out[first_link:].startswith('<a class="skip-link mlsysim-skip-link" href="#quarto-document-content">'
                                       "Skip to the text</a>")
    assert out.index("<a ", body) < out.index("quarto-html-before-body")
    assert ">跳到正文</a>" in skip_link(PAGE, "zh")   # the book's own string (bookbuild/render/ui/zh.toml)
    # a second run replaces it, and the rest of the page is Quarto's
    again = page_text(out, "<link>", "<script></script>", skip_link(out, "en"))
    assert again == out and again.count('class="skip-link') == 1
    # a page without Quarto's content element (the redirecting index.html) gets none
    assert skip_link("<html><body><p>x</p></body></html>", "en") == ""


def test_previous_next_links_are_named_by_what_they_show():
    out = pagination_names(PAGINATION)
    assert 'class="pagination-link" aria-label="Preface">' in out
    assert 'class="pagination-link" aria-label="A Inference Cost Foundations">' in out
    assert pagination_names(out) == out
    # only the labels changed
    assert out.replace('aria-label="A Inference', 'aria-label="Inference') == PAGINATION
    # after the renumbering, the name has the declared number
    renumbered = pagination_names(renumber_links(PAGINATION, LECTURE, NUMBERS))
    assert 'aria-label="A Inference Cost Foundations"' in renumbered


def test_collapsible_callout_headers_are_buttons_named_by_their_title():
    out = callout_toggles(CALLOUTS)
    assert ('<div class="callout-header d-flex align-content-center collapsed" data-bs-toggle="collapse" '
            'data-bs-target=".callout-10-contents" aria-controls="callout-10" aria-expanded="false" '
            'role="button" tabindex="0">') in out
    assert 'aria-label="Toggle callout"' not in out
    # a callout that does not collapse keeps its header as it is
    assert out.count('role="button"') == 1 and '<div class="callout-header d-flex align-content-center">' in out
    assert callout_toggles(out) == out and quarto_chrome(out) == out


def test_the_bridge_sets_the_script_gate_and_tab_stops_for_scroll_boxes():
    js = (ROOT / "bookbuild/quarto/assets/quarto-bridge.js").read_text(encoding="utf-8")
    boxes = (ROOT / "bookbuild/render/assets/scroll-boxes.js").read_text(encoding="utf-8")   # shared with ours
    css = (ROOT / "bookbuild/quarto/assets/quarto-bridge.css").read_text(encoding="utf-8")
    assert 'doc.classList.add("js")' in js and 'setAttribute("tabindex", "0")' in boxes
    assert "scrollBoxes" not in js and "scrollBoxes" not in (ROOT / "bookbuild/render/assets/book.js").read_text(
        encoding="utf-8")   # one mechanism for both renderers' pages
    assert "html:not(.js) #mlsysim-explorer figure { display: none; }" in css
    assert "#mlsysim-explorer figure { min-width: 0; max-width: 100%; }" in css
    assert "innerHTML" not in js


#: Quarto 1.11's top bar (its secondary nav, shown below Bootstrap's lg width), copied from its English appendix
#: the few of Bootstrap's and Quarto's rules the bar's layout rests on (their values)


# ---------------------------------------------------------------- search snippets and downloads (issue 39)

def test_quartos_search_texts_lose_the_tex_source_of_the_math():
    import json
    from bookbuild.quarto.post_render import search_without_tex
    page = ('<p>The share is <math display="inline"><semantics><mi>d</mi><annotation encoding="application/x-tex">d'
            '</annotation></semantics></math>:</p><math display="block"><semantics><mrow><mi>d</mi><mo>=</mo><mfrac>'
            '<msub><mi>T</mi><mtext>model</mtext></msub><mi>T</mi></mfrac></mrow><annotation encoding="application/x-tex">'
            'd = \\frac{T_{\\text{model}}}{T}</annotation></semantics></math><math><semantics><mrow><mi>a</mi><mo>&gt;</mo>'
            '<mi>b</mi></mrow><annotation encoding="application/x-tex">a &gt; b</annotation></semantics></math>')
    # as Quarto 1.11 indexes it: each formula's text, then its TeX (entities kept as in the page)
    data = json.dumps([{"href": "a.html#x", "text": "The share is dd:\nd=TmodelTd = \\frac{T_{\\text{model}}}{T}\n"
                                                    "so a&gt;ba &gt; b holds; the word dd stays."}])
    got = json.loads(search_without_tex(data, [page]))[0]["text"]
    # TeX that reads as text (a single letter, a &gt; b) is left: removing it could eat the prose ("word dd")
    assert got == "The share is dd:\nd=TmodelT\nso a&gt;ba &gt; b holds; the word dd stays."


def test_a_download_link_without_its_file_goes_and_its_menu_with_it(tmp_path):
    from bookbuild.quarto.post_render import downloads_that_exist
    menu = ('<div class="dropdown">\n<a href="" title="Download" id="quarto-navigation-tool-dropdown-0" '
            'class="quarto-navigation-tool dropdown-toggle px-1" data-bs-toggle="dropdown"><i class="bi bi-download"></i></a>\n'
            '<ul class="dropdown-menu" aria-labelledby="quarto-navigation-tool-dropdown-0">\n'
            '<li>\n<a class="dropdown-item sidebar-tools-main-item" href="../book.pdf">\n<i class="bi bi-file-pdf pe-1"></i>\n'
            'Download PDF\n</a>\n</li>\n<li>\n<a class="dropdown-item sidebar-tools-main-item" href="../book.epub">\n'
            'Download ePub\n</a>\n</li>\n</ul>\n</div>\n<a href="" class="quarto-color-scheme-toggle quarto-navigation-tool px-1">T</a>')
    single = '<a href="../book.pdf" title="Download PDF" class="quarto-navigation-tool px-1"><i class="bi bi-file-pdf"></i></a>'
    page = tmp_path / "appendix" / "a.html"
    page.parent.mkdir()
    (tmp_path / "book.epub").write_bytes(b"epub")
    kept = downloads_that_exist(menu, page)
    assert "book.pdf" not in kept and 'href="../book.epub"' in kept and "dropdown-menu" in kept
    assert downloads_that_exist(single, page) == ""
    (tmp_path / "book.epub").unlink()
    gone = downloads_that_exist(menu, page)
    assert "dropdown" not in gone and "quarto-color-scheme-toggle" in gone


def test_the_language_switch_of_a_book_rendered_elsewhere_points_at_the_other_book_there():
    """``quarto render --output-dir DIR/en`` and ``--profile zh --output-dir DIR/zh`` (README, "With
    Quarto"): the switch leads from DIR/en to DIR/zh, never back into the project's _book."""
    from bookbuild.quarto.post_render import language_links, other_books
    elsewhere = Path("/tmp/quarto-book/en")
    (lang, folder, pages), = other_books(ROOT, "en", elsewhere)
    assert (lang, folder) == ("zh", Path("/tmp/quarto-book/zh"))
    nav = language_links(APPENDIX, "appendix/inference-cost.qmd", elsewhere, other_books(ROOT, "en", elsewhere))
    assert 'href="../../zh/appendix/inference-cost.zh.html"' in nav
    (_, folder, _), = other_books(ROOT, "zh", Path("/tmp/quarto-book/zh"))
    assert folder == Path("/tmp/quarto-book/en")
    # rendered where the profile says: the profile's own folders
    (_, folder, _), = other_books(ROOT, "en", ROOT / "_book" / "en")
    assert folder == ROOT / "_book" / "zh"


def test_quartos_search_texts_read_chinese_references_as_the_pages():
    """Issue 38: the pages read "汇总于第 A.6 节" (cjk_xrefs), Quarto's search index still "汇总于 节 A.6"."""
    import json
    from bookbuild.quarto.post_render import cjk_xrefs_search
    data = json.dumps([{"href": "a.html#x", "title": "x", "section": "见 节 A.1",
                        "text": "各项输入汇总于 节 A.6，以便；见 节 A.1 和 节 A.3 与 表 A.1 中; see Section 3 here"}],
                      ensure_ascii=False)
    got = json.loads(cjk_xrefs_search(data, {"节": "第 {} 节"}))[0]
    assert got["text"] == "各项输入汇总于第 A.6 节，以便；见第 A.1 节和第 A.3 节与 表 A.1 中; see Section 3 here"
    assert got["section"] == "见第 A.1 节"
    assert cjk_xrefs_search(data, {}) == data
