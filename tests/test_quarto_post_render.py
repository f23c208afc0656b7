"""The Quarto post-render step: a chapter's declared number in the links Quarto's book numbers by position.

The markup is Quarto's, copied from the pages Quarto 1.11.0 and 1.7.34 wrote for this book (identical in
both): the sidebar, the breadcrumbs, the previous/next link, and the crumbs of search.json.
"""
import json
from pathlib import Path

import yaml

from bookbuild.quarto.post_render import quarto_page, renumber_links, renumber_search

ROOT = Path(__file__).resolve().parents[1]
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
