"""Where pages and downloads go (bookbuild.render.pages), and the top bar's links to them."""
from __future__ import annotations

import pytest

from bookbuild.render.pages import epub_name, page_for, pdf_name, repo_url
from bookbuild.errors import RenderError


def test_pages_are_quartos_names():
    assert page_for("index.qmd") == "index.html" and page_for("index.zh.qmd") == "index.html"
    assert page_for("appendix/inference-cost.zh.qmd") == "appendix/inference-cost.zh.html"


def test_downloads_are_named_after_the_title():
    book = {"title": "Inference Cost: Foundations?"}
    assert pdf_name(book) == "Inference-Cost-Foundations.pdf"
    assert epub_name(book) == "Inference-Cost-Foundations.epub"
    assert epub_name({"pdf": "book.v2.pdf"}) == "book.v2.epub"


@pytest.mark.parametrize("meta, expected", [
    ({}, None), ({"book": {}}, None), ({"book": {"repo-url": ""}}, None),
    ({"book": {"repo-url": "https://example.org/inference-book"}}, "https://example.org/inference-book"),
])
def test_repo_url_is_quartos_key(meta, expected):
    assert repo_url({"metadata": meta}) == expected


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "ftp://x", 'https://x" onmouseover="y', ["https://x"], 3,
                                 "https://x/<script>"])
def test_a_repo_url_that_is_no_web_address_is_refused_in_one_line(bad):
    with pytest.raises(RenderError) as e:
        repo_url({"metadata": {"book": {"repo-url": bad}}})
    msg = str(e.value)
    assert "repo-url must be an http(s) address" in msg and "\n" not in msg


def test_top_bar_links_the_formats_made_and_the_repository():
    from bookbuild.render.html import Site, downloads
    site = Site(profile="zh", lang="zh", title="书", chapters=[], ctx=None, bibliography=[], pdf_name="书.pdf",
                others=[], epub_name=None, repo_url="https://example.org/a?b=1&c=2")
    bar = downloads(site, "../")
    assert 'href="../书.pdf"' in bar and ".epub" not in bar
    assert 'href="https://example.org/a?b=1&amp;c=2"' in bar and ">源代码<" in bar
    site.pdf_name, site.epub_name, site.repo_url = None, "书.epub", None
    bar = downloads(site, "")
    assert bar.count("<a ") == 1 and 'href="书.epub"' in bar and ">EPUB<" in bar


def _site(**kw):
    from bookbuild.render.html import Site
    return Site(**{"profile": "en", "lang": "en", "title": "A \"b\" <c> & 'd'", "chapters": [], "ctx": None,
                   "bibliography": [], "pdf_name": None, "others": [], **kw})


def test_the_redirect_page_is_the_template_filled_with_escaped_text():
    from bookbuild.render.html import redirect_html
    page = redirect_html(_site(), "ch/one \"two\".html")
    # written by hand: html.escape's entities (&quot; and &#x27;), the policy as the first tag after the charset
    assert "<title>A &quot;b&quot; &lt;c&gt; &amp; &#x27;d&#x27;</title>" in page
    assert '<meta http-equiv="refresh" content="0; url=ch/one &quot;two&quot;.html">' in page
    assert page.index('<meta charset="utf-8">') < page.index("Content-Security-Policy") < page.index("<title>")
    assert page.endswith("</html>\n") and "{{" not in page and "{%" not in page


def test_a_template_missing_a_name_fails_instead_of_writing_nothing():
    import jinja2
    from bookbuild.render import jinja
    with pytest.raises(jinja2.UndefinedError):
        jinja.render("redirect.html", lang="en")
