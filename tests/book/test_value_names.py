"""Every value a page shows is titled with what it is, in the page's language.

The hover's heading is ``readable_name()``: the names table first, then the declared title of the
physics function whose result the value is, then the cell line's comment, then the identifier. The
unit tests pin that order on hand-written examples; the book test reads the rendered pages' data
(``window.MLSYSIM_PAGE``) and checks every value a page's text shows.
"""
import json
import re
import textwrap

import pytest

from bookbuild.book import provenance
from bookbuild.book.provenance import explain_class, readable_name

CJK = re.compile(r"[\u4e00-\u9fff]")

#: names that are the same in both languages because they are a symbol or a brand, not words.
#: Keep this tiny: a quantity a reader knows has a Chinese name.
SAME_IN_BOTH = {"T*"}

TITLE = {"name": "f", "title_en": "decode floor per token", "title_zh": "每词元解码时间下限"}


# ───────────────────────── readable_name's order, by hand

@pytest.fixture
def table(monkeypatch):
    entries = {"C.tabled": {"en": "tabled name", "zh": "表中的名字"}, "shared": {"en": "shared name", "zh": "共用的名字"},
               "C.shared": {"en": "qualified name", "zh": "限定的名字"}}
    monkeypatch.setattr(provenance, "_names_table", lambda *a: entries)
    return entries


def test_the_table_comes_first(table):
    assert readable_name("C", "tabled_str", "# a comment", TITLE) == {"en": "tabled name", "zh": "表中的名字"}
    assert readable_name("C", "shared_str", "# a comment", TITLE)["en"] == "qualified name"  # Cls.stem before stem
    assert readable_name("D", "shared_str", "# a comment", TITLE)["en"] == "shared name"


def test_then_the_declared_title_of_the_producing_function(table):
    assert readable_name("C", "t_dec_str", "# a comment", TITLE) == {"en": "decode floor per token",
                                                                    "zh": "每词元解码时间下限"}


def test_then_the_comment_then_the_identifier(table):
    assert readable_name("C", "t_dec_str", "# time of one step") == {"en": "time of one step", "zh": "time of one step"}
    assert readable_name("C", "t_dec_str", "# scenario: a stall") == {"en": "a stall", "zh": "a stall"}
    assert readable_name("C", "t_dec_str", "", {"name": "g"}) == {"en": "t dec", "zh": "t dec"}  # no declared title


CELL = textwrap.dedent('''\
    from mlsysim import *
    from mlsysim.fmt import fmt, fmt_int

    class Hand:
        params = 70e9 * count                       # scenario: parameters
        bw = 3.35 * TB / second                     # scenario: bandwidth
        peak = 989 * TFLOPs                         # scenario: peak
        t_dec = decode_time_per_token(params, 1 * byte, bw)
        t_pre = prefill_time_per_token(params, peak)
        t_alias = t_dec
        t_dec_ms_str = fmt(t_dec.to(ms).magnitude, precision=2)          # the title wins over this comment
        t_dec_us_str = fmt(t_dec.to(second).magnitude * 1e6, precision=0)
        t_alias_str = fmt(t_alias.to(ms).magnitude, precision=2)
        t_pre_us_str = fmt(t_pre.m_as(us), precision=2)
        inline_str = fmt(decode_time_per_token(params, 1 * byte, bw).to(ms).magnitude, precision=2)
        ratio_str = fmt_int((t_dec / t_pre).to("").magnitude)
        double_str = fmt(2 * t_dec.to(ms).magnitude, precision=2)        # twice the result is another number
        commented_str = fmt((t_dec + t_pre).to(ms).magnitude, precision=2)  # decode plus prefill of a token
    ''')


@pytest.fixture(scope="module")
def hand():
    ns: dict = {"__name__": "hand"}
    exec(compile(CELL, "hand.qmd", "exec"), ns)
    src = CELL[CELL.index("class Hand"):]
    first = CELL[:CELL.index("class Hand")].count("\n") + 1
    return explain_class(ns["Hand"], src, first_line=first, file="hand.qmd", namespace=ns)


def test_a_value_that_is_a_functions_result_takes_its_declared_title(hand):
    for attr in ("t_dec_ms_str", "t_dec_us_str", "t_alias_str", "inline_str"):
        assert hand[attr]["name"] == {"en": "decode floor per token", "zh": "每词元解码时间下限"}, attr
    assert hand["t_pre_us_str"]["name"] == {"en": "prefill time per token", "zh": "每词元预填充时间"}


def test_a_derived_value_does_not(hand):
    assert hand["ratio_str"]["name"]["en"] == "ratio"  # a ratio of two results: the identifier
    assert hand["double_str"]["name"]["en"] == "twice the result is another number"
    assert hand["commented_str"]["name"]["en"] == "decode plus prefill of a token"


# ───────────────────────── the built book: every value shown has a name a reader can use

def _page_data(js: str) -> dict:
    return json.loads(js[js.index("{"): js.rstrip().rstrip(";").rindex("}") + 1])


def _shown(book) -> list[tuple[str, str, dict]]:
    """(page, attr, name) for every value a page's text shows (its ``data-attr`` spans)."""
    out = []
    for lang in ("en", "zh"):
        for html in sorted((book / lang).rglob("*.html")):
            attrs = sorted(set(re.findall(r'data-attr="([^"]+)"', html.read_text("utf-8"))))
            data_js = html.with_name(html.stem + ".data.js")
            if not attrs or not data_js.is_file():
                continue
            prov = _page_data(data_js.read_text("utf-8"))["provenance"]
            for attr in attrs:
                v = prov["values"].get(attr)
                if isinstance(v, int):
                    v = prov["items"][v]
                out.append((f"{lang}/{html.name}", attr, (v or {}).get("name") or {}))
    return out


def test_every_value_a_page_shows_has_a_name_in_its_language(rendered_book):
    shown = _shown(rendered_book)
    assert len({a for _, a, _ in shown}) >= 300, "the pages show fewer values than the two books quote"
    bad = []
    for page, attr, name in shown:
        en, zh = name.get("en", ""), name.get("zh", "")
        stem = attr.split(".", 1)[1].removesuffix("_str")
        if not en or "_" in en or en in (stem, stem.replace("_", " ")):
            bad.append((page, attr, "en", en))
        if page.startswith("zh/") and not (CJK.search(zh) and zh != en) and zh not in SAME_IN_BOTH:
            bad.append((page, attr, "zh", zh))
    assert not bad, f"{len(bad)} values titled with a variable name or an English name on a Chinese page:\n" + \
        "\n".join(map(str, bad[:40]))
