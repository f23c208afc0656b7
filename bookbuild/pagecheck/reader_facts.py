"""What a reader gets from each rendering, in headless Chromium: the browser half of ``compare-render``.

For every chapter page of both books (ours and the other, Quarto's ``_book``), at 1280 px, one tab each:

- ``figures``: how many figures the page's script drew (plotly's ``svg.main-svg`` in a ``.mlsysim-plot``);
- ``subfigures``: captions that read "(a)", "(b)": a figure split into sub-figures by mistake;
- ``choice``: the reader's choice bar (its selects) and how many choices the page data holds;
- ``values``: every computed value's text (``data-attr`` → text) as the page loads, then after applying the
  same choices through the page's own selects: the reference, the first other computable choice and one the
  cells cannot compute;
- ``explanation``: the popover's heading when the first value is focused;
- ``language``: the other language's page the switch links, and whether that file exists;
- ``formats``: the downloads the page links (PDF, EPUB) that exist beside it;
- ``requests``: every request that leaves the page (each is also a problem of its own).

A fact that differs between the two renderings is a difference, reported as ``compare-render`` reports
the page's text (``PageDiff``).
"""
from __future__ import annotations

from pathlib import Path

from ..compare import PageDiff

FACTS = ("figures", "subfigures", "choice", "values", "explanation", "language", "formats", "requests")

PAGE_FACTS = r"""() => {
  const own = document.querySelector('main') || document.body;
  const plots = Array.from(document.querySelectorAll('.mlsysim-plot'));
  const drawn = plots.filter(p => p.querySelector('svg.main-svg')).length;
  const sub = Array.from(document.querySelectorAll('figcaption, .quarto-subfloat-caption'))
    .map(c => c.textContent.trim()).filter(t => /^\([a-z]\)/.test(t)).map(t => t.slice(0, 40));
  const V = window.MLSYSIM_PAGE && window.MLSYSIM_PAGE.variants;
  const bar = !!document.getElementById('mlsysim-choice-accelerator') && !!document.getElementById('mlsysim-choice-model');
  const lang = Array.from(document.querySelectorAll('a[hreflang]')).map(a => a.href);
  const downloads = Array.from(document.querySelectorAll('a[href]')).map(a => a.href)
    .filter(h => /\.(pdf|epub)$/i.test(h));
  return {plots: plots.length, drawn: drawn, sub: sub, bar: bar, choices: V ? Object.keys(V.choices).length : 0,
          keys: V ? Object.keys(V.choices).sort() : [], reference: V ? V.reference.accelerator + '|' + V.reference.model + '|' + V.reference.precision : null,
          errors: V ? Object.keys(V.choices).filter(k => V.choices[k].error).sort() : [],
          lang: lang, downloads: Array.from(new Set(downloads)).sort()};
}"""

VALUES = r"""() => Array.from(document.querySelectorAll('.mlsysim-v[data-attr]'))
  .map(s => s.getAttribute('data-attr') + ' = ' + s.textContent.replace(/\s+/g, ' ').trim())"""

EXPLAIN = r"""async () => {
  const v = document.querySelector('.mlsysim-v[data-attr]');
  if (!v) return null;
  v.focus(); v.dispatchEvent(new FocusEvent('focusin', {bubbles: true})); v.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
  await new Promise(r => setTimeout(r, 150));
  const tip = document.getElementById('mlsysim-tip');
  if (!tip || tip.hidden) return '';
  const head = tip.querySelector('.mt-head');
  return (head ? head.textContent : tip.textContent).replace(/\s+/g, ' ').trim().slice(0, 120);
}"""


def _exists(root: Path, base: str, url: str) -> bool:
    """Whether the file an address of the served ``root`` names is there (a folder: its index.html)."""
    from urllib.parse import unquote
    if not url.startswith(base):
        return False
    target = root / unquote(url[len(base):].split("#")[0].split("?")[0])
    try:
        target = target.resolve()
        return target.is_relative_to(root.resolve()) and (target.is_file() or (target / "index.html").is_file())
    except OSError:
        return False


def _shown(base: str, url: str) -> str:
    from urllib.parse import unquote
    return unquote(url[len(base):]) if url.startswith(base) else url


def reader_facts(tab, root: Path, base: str, page: str) -> dict[str, list[str]]:
    """The facts of one page (``page``, relative to the served folder ``root``, at ``base``), each a list of
    strings."""
    from .browser import _wait_figures, set_choice
    facts: dict[str, list[str]] = {k: [] for k in FACTS}
    if not tab.open(base + page, page, 1280):
        facts["requests"] = [p.what for p in tab.problems]
        return facts
    _wait_figures(tab)
    f = tab.js(PAGE_FACTS)
    facts["figures"] = [f"{f['drawn']} of {f['plots']} figure(s) drawn"]
    facts["subfigures"] = f["sub"]
    facts["choice"] = ([f"choice bar with {f['choices']} choices ({len(f['errors'])} not computable)"]
                       if f["bar"] else ["no choice bar"] if f["choices"] == 0 else [f"{f['choices']} choices, no bar"])
    facts["language"] = [f"{_shown(base, h)} ({'exists' if _exists(root, base, h) else 'missing'})" for h in f["lang"]]
    facts["formats"] = [f"{_shown(base, h)} ({'exists' if _exists(root, base, h) else 'missing'})" for h in f["downloads"]]
    facts["explanation"] = [str(tab.page.evaluate(EXPLAIN))]
    facts["values"] = [f"[as loaded] {v}" for v in tab.js(VALUES)]
    if f["bar"] and f["keys"]:
        others = [k for k in f["keys"] if k != f["reference"] and k not in f["errors"]]
        for key in [f["reference"], *others[:1], *f["errors"][:1]]:
            set_choice(tab, key)
            tab.page.wait_for_timeout(100)
            facts["values"] += [f"[{key}] {v}" for v in tab.js(VALUES)]
        set_choice(tab, f["reference"])
    facts["requests"] = sorted(p.what for p in tab.problems if p.what.startswith("requested"))
    return facts


def compare_reader(ours: Path, other: Path, pages: list[tuple[str, str]], browser=None) -> tuple[list[PageDiff], dict]:
    """``pages``: (our page, the other's page) relative to ``ours`` and ``other``, the folders served (the
    books' folders holding ``en/`` and ``zh/``, so that the language switch can be followed). Returns the
    differences and, per page, our facts (for the summary)."""
    from .browser import Tab, _launch, serve
    own = None
    if browser is None:
        own = _launch()
        browser = own[1]
    diffs: list[PageDiff] = []
    summary: dict[str, dict] = {}
    try:
        with serve(ours) as base_a, serve(other) as base_b:
            ctx = browser.new_context()
            try:
                for mine, theirs in pages:
                    ta, tb = Tab(ctx, base_a, False), Tab(ctx, base_b, False)
                    fa, fb = reader_facts(ta, ours, base_a, mine), reader_facts(tb, other, base_b, theirs)
                    ta.page.close()
                    tb.page.close()
                    summary[mine] = fa
                    if fa["requests"] or fb["requests"]:   # none is the only right number, on either side
                        diffs.append(PageDiff(mine, "reader: requests", fa["requests"], fb["requests"]))
                    for k in FACTS[:-1]:
                        a, b = sorted(fa[k]), sorted(fb[k])
                        if k in ("language", "formats"):   # the two books name their files differently: what
                            sa, sb = ([x.rsplit(" (", 1)[1] for x in v] for v in (a, b))   # counts is each one's state
                            if sorted(sa) != sorted(sb):
                                diffs.append(PageDiff(mine, f"reader: {k}", a, b))
                        elif a != b:
                            diffs.append(PageDiff(mine, f"reader: {k}", [x for x in a if x not in b],
                                                  [x for x in b if x not in a]))
            finally:
                ctx.close()
    finally:
        if own is not None:
            own[1].close()
            own[0].stop()
    return diffs, summary
