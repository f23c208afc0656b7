"""The Quarto post-render step in a browser (the rest: test_quarto_post_render.py): the language switch in Quarto's top bar.

The markup is Quarto's, copied from the pages Quarto 1.11.0 and 1.7.34 wrote for this book (identical in
both): the sidebar, the breadcrumbs, the previous/next link, and the crumbs of search.json. And what the
step mends in Quarto's own chrome (markup copied from Quarto 1.11's English book, _book/en): the skip link,
the previous/next links' names, the collapsible callouts' headers.
"""
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
LECTURE = "lectures/lecture19-agent-stalls.html"
APPENDIX = "appendix/inference-cost.html"


QUARTO_BAR = """<header id="quarto-header" class="headroom fixed-top">
  <nav class="quarto-secondary-nav">
    <div class="container-fluid d-flex">
      <button type="button" class="quarto-btn-toggle btn" aria-label="Toggle sidebar navigation"><i class="bi bi-layout-text-sidebar-reverse"></i></button>
        <nav class="quarto-page-breadcrumbs" aria-label="breadcrumb"><ol class="breadcrumb"><li class="breadcrumb-item"><a href="../appendix/inference-cost.html">Appendices</a></li><li class="breadcrumb-item"><a href="../appendix/inference-cost.html"><span class="chapter-number">A</span>&nbsp; <span class="chapter-title">Inference Cost Foundations</span></a></li></ol></nav>
        <a class="flex-grow-1" role="navigation" aria-label="Toggle sidebar navigation"></a>
      <button type="button" class="btn quarto-search-button" aria-label="Search"><i class="bi bi-search"></i></button>
    </div>
  </nav>
</header>"""


QUARTO_RULES = """body { margin: 0; font: 17px/1.5 sans-serif; }
.fixed-top { position: fixed; top: 0; right: 0; left: 0; z-index: 1030; background: #fff; }
.d-flex { display: flex !important; } .flex-grow-1 { flex-grow: 1 !important; }
.container-fluid { width: 100%; padding: 0 0.75rem; box-sizing: border-box; }
.btn { display: inline-block; padding: 0.375rem 0.75rem; border: 1px solid transparent; }
.breadcrumb { display: flex; flex-wrap: wrap; padding: 0; margin: 0; list-style: none; }
.breadcrumb-item + .breadcrumb-item::before { content: ">"; padding: 0 0.5rem; }
@media (max-width: 991.98px) { .quarto-secondary-nav { display: block; } }
@media (min-width: 992px) { .quarto-secondary-nav { display: none; } }"""


def test_the_language_switch_sits_in_quartos_top_bar_on_a_phone_and_floats_on_a_wide_screen(tmp_path, browser):
    """On a phone Quarto's top bar comes and goes as the reader scrolls; a switch floating at the top right would
    cover its search button and, scrolled, the text. The bridge puts the switch in the bar, before the search
    button, on one line with the breadcrumbs; wider, back in its place at the end of the page (its tab order)."""
    import shutil
    for f in ("quarto-bridge.js", "quarto-bridge.css"):
        shutil.copy(ROOT / "bookbuild/quarto/assets" / f, tmp_path / f)
    langs = ('<nav class="mlsysim-langs" aria-label="language"><a class="mlsysim-lang-switch" '
             'href="../../zh/appendix/inference-cost.zh.html" hreflang="zh" lang="zh">中文</a></nav>')
    (tmp_path / "page.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A</title><style>{QUARTO_RULES}</style>'
        '<link rel="stylesheet" href="quarto-bridge.css"><script src="quarto-bridge.js"></script></head><body>'
        f'{QUARTO_BAR}<main><p>{"Text. " * 400}</p></main>{langs}<script id="after"></script></body></html>',
        encoding="utf-8")
    url = (tmp_path / "page.html").as_uri()
    where = """() => { const n = document.querySelector('.mlsysim-langs'), s = document.querySelector('.quarto-search-button');
      const a = n.getBoundingClientRect(), b = s.getBoundingClientRect();
      return {parent: n.parentNode.className || n.parentNode.tagName, next: n.nextElementSibling && (n.nextElementSibling.id || n.nextElementSibling.className),
              position: getComputedStyle(n).position, links: document.querySelectorAll('a[hreflang]').length,
              overlap: a.right > b.left && a.left < b.right && a.bottom > b.top && a.top < b.bottom,
              bar: document.getElementById('quarto-header').getBoundingClientRect().height}; }"""
    ctx = browser.new_context(viewport={"width": 390, "height": 800})
    try:
        page = ctx.new_page()
        page.goto(url)
        phone = page.evaluate(where)
        assert phone["parent"] == "container-fluid d-flex" and phone["next"] == "btn quarto-search-button", phone
        assert phone["position"] == "static" and not phone["overlap"] and phone["links"] == 1, phone
        assert phone["bar"] < 60, phone   # one line: the breadcrumbs shorten, they do not wrap
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_function("document.querySelector('.mlsysim-langs').parentNode.tagName === 'BODY'")
        wide = page.evaluate(where)
        assert wide["next"] == "after" and wide["position"] == "fixed" and wide["links"] == 1, wide
    finally:
        ctx.close()
    ctx = browser.new_context(viewport={"width": 390, "height": 800}, java_script_enabled=False)
    try:
        page = ctx.new_page()
        page.goto(url)   # the page's scripts off; the test reads the style from outside
        pos = page.locator(".mlsysim-langs").evaluate("n => getComputedStyle(n).position")
        assert pos == "absolute"   # without scripts it stays at the top of the page and scrolls away with it
    finally:
        ctx.close()
