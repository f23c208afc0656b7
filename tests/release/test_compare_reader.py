"""compare-render in Chromium (bookbuild.pagecheck.reader_facts): two renderings that give readers the same thing
compare equal; each way a rendering can fail its reader shows as a difference of that kind."""
from __future__ import annotations

import re
import shutil

from bookbuild.pagecheck.reader_facts import compare_reader

PAGES = [(f"en/{p}", f"en/{p}") for p in ("index.html", "appendix/inference-cost.html",
                                          "lectures/lecture19-agent-stalls.html")]


def _kinds(diffs):
    return {(d.page, d.category) for d in diffs}


def test_the_same_book_compares_equal_and_a_broken_one_does_not(rendered_book, browser, tmp_path):
    ours = rendered_book
    diffs, facts = compare_reader(ours, ours, PAGES, browser)
    assert diffs == [], [d.format() for d in diffs]
    app = facts["en/appendix/inference-cost.html"]
    assert app["figures"] == ["7 of 7 figure(s) drawn"]   # six figures and the explorer's roofline
    assert app["choice"][0].startswith("choice bar with ") and app["explanation"][0]
    assert any(v.startswith("[as loaded] ServingRef.ratio_str = ") for v in app["values"])
    assert len({v.split("]")[0] for v in app["values"]}) == 4   # as loaded, reference, another, not computable

    shutil.copytree(ours, tmp_path / "book")
    broken = tmp_path / "book" / "en"
    app_page = broken / "appendix" / "inference-cost.html"
    html = app_page.read_text(encoding="utf-8")
    # a value the page prints differently, a figure whose data is gone
    html, n = re.subn(r'(data-attr="ServingRef\.ratio_str"[^>]*>)[^<]+<', r"\g<1>296<", html, count=1)
    assert n == 1
    html, n = re.subn(r'<script type="application/json" class="mlsysim-plot-json">.*?</script>', "", html, count=1,
                      flags=re.S)
    assert n == 1
    app_page.write_text(html, encoding="utf-8")
    # the lecture loads an image from elsewhere (its policy gone), the preface lost its language switch
    lec = broken / "lectures" / "lecture19-agent-stalls.html"
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", lec.read_text(encoding="utf-8"))
    lec.write_text(text.replace("</main>", '<img src="http://203.0.113.9/pixel.png" alt=""></main>'), encoding="utf-8")
    idx = broken / "index.html"
    idx.write_text(re.sub(r'<a class="lang-switch"[^>]*>[^<]*</a>', "", idx.read_text(encoding="utf-8")), encoding="utf-8")
    (broken / next(p.name for p in (ours / "en").glob("*.epub"))).unlink()

    diffs, _ = compare_reader(ours, tmp_path / "book", PAGES, browser)
    kinds = _kinds(diffs)
    assert ("en/appendix/inference-cost.html", "reader: values") in kinds
    assert ("en/appendix/inference-cost.html", "reader: figures") in kinds
    assert ("en/lectures/lecture19-agent-stalls.html", "reader: requests") in kinds
    assert ("en/index.html", "reader: language") in kinds
    assert ("en/index.html", "reader: formats") in kinds   # the EPUB the pages link is gone
    values = next(d for d in diffs if d.category == "reader: values")
    assert any("ServingRef.ratio_str = 296" in x for x in values.only_other)
