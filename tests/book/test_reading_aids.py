"""Quarto's reading aids on the book's own pages, in Chromium (the session's rendered book): a first tap on a
cross-reference previews it and a second follows it (a phone); the lecture previews the appendix's section it
refers to, from the page itself (file:, nothing fetched); the first page's title block. The page check
(bookbuild.pagecheck: check_reading_aids) holds every page to keyboard focus and heading anchors."""
from __future__ import annotations

import pytest



def _open(browser, url, **kw):
    ctx = browser.new_context(**kw)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    return ctx, page, errors


@pytest.mark.parametrize("lang,page", [("en", "appendix/inference-cost.html"), ("zh", "appendix/inference-cost.zh.html")])
def test_a_first_tap_previews_a_reference_and_a_second_follows_it(rendered_book, browser, lang, page):
    ctx, p, errors = _open(browser, (rendered_book / lang / page).as_uri(), viewport={"width": 390, "height": 800},
                           has_touch=True, is_mobile=True)
    try:
        a = p.locator("article a.quarto-xref[href^='#eq-']").first
        a.scroll_into_view_if_needed()
        target = a.get_attribute("href")
        a.tap()
        p.wait_for_timeout(200)
        shown = p.evaluate("() => { const t = document.getElementById('xref-preview'); return !t.hidden && t.innerText; }")
        assert shown and "(A." in shown, shown               # the equation and its number
        assert p.evaluate("() => location.hash") == ""        # not followed yet
        a.tap()
        p.wait_for_timeout(200)
        assert p.evaluate("() => location.hash") == target
        assert not errors, errors
    finally:
        ctx.close()


@pytest.mark.parametrize("lang,page,heading", [("en", "lectures/lecture19-agent-stalls.html", "A.1"),
                                               ("zh", "lectures/lecture19-agent-stalls.zh.html", "A.1")])
def test_the_lecture_previews_the_appendix_section_it_refers_to_from_file(rendered_book, browser, lang, page, heading):
    ctx, p, errors = _open(browser, (rendered_book / lang / page).as_uri(), viewport={"width": 1280, "height": 900})
    try:
        a = p.locator("article a.quarto-xref[href*='inference-cost'][href*='#sec-']").first
        a.scroll_into_view_if_needed()
        a.hover()
        p.wait_for_timeout(400)
        got = p.evaluate("""() => { const t = document.getElementById('xref-preview');
            return {shown: !t.hidden, head: (t.querySelector('h2, h3') || {}).textContent || '',
                    para: (t.querySelector('p') || {}).textContent || ''}; }""")
        assert got["shown"] and heading in a.inner_text() and got["head"].startswith(heading), (got, a.inner_text())
        assert len(got["para"]) > 40, got                    # the section's first paragraph, not only its title
        assert not errors, errors
    finally:
        ctx.close()


@pytest.mark.parametrize("lang,subtitle,author,date", [
    ("en", "The serving arithmetic behind agent design, computed", "Inference Cost Foundations authors", "December 1, 2026"),
    ("zh", "智能体设计背后的推理服务算术，逐一计算", "《推理成本基础》作者", "2026年12月1日")])
def test_the_first_page_has_quartos_title_block(rendered_book, lang, subtitle, author, date):
    # the values of book: in _quarto.yml / _quarto-zh.yml; the date as Quarto 1.11's title block prints it
    text = (rendered_book / lang / "index.html").read_text(encoding="utf-8")
    block = text[text.index('<header class="book-title-block">'):text.index("</header>", text.index("book-title-block"))]
    assert f'<p class="subtitle">{subtitle}</p>' in block
    assert f"<p>{author}</p>" in block
    assert f'<time datetime="2026-12-01">{date}</time>' in block
