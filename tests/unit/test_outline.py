"""bookbuild.render.outline: a page's table of contents and search records, read as a reader sees the page
(each expected value below is written from the HTML beside it)."""
from __future__ import annotations

from bookbuild.render.outline import Heading, outline

PAGE = """<!-- Chinese translation of appendix/x.qmd: a note to translators, not the page's text -->
<p>Before &amp; <em>after</em>
the first heading.</p>
<h2 id="sec-a" class="anchored">The <span>A</span> section</h2>
<p>Time per token <math><semantics><mrow><mi>T</mi></mrow><annotation encoding="application/x-tex">T_{tok}</annotation></semantics></math> is short.</p>
<script type="application/json">{"values": [1, 2]}</script>
<style>.x { color: red }</style>
<div><h3 id="sec-a-1">Inside a div</h3><p>still section A</p></div>
<h2 class="unlisted" id="sec-hidden">Not in the contents</h2>
<p>Hidden's text<br>joined</p>
<h2>No id: part of the section before</h2>
<hr>
<template><p>a template is not shown</p></template>
<h1 id="sec-b">B <math><mi>x</mi><annotation encoding="application/x-tex">x^2</annotation></math></h1>
loose text
"""


def test_contents_are_the_h2_and_h3_with_an_id_not_unlisted_in_page_order():
    assert outline(PAGE, "Page").toc == [Heading("h2", "sec-a", "The A section"),
                                          Heading("h3", "sec-a-1", "Inside a div")]


def test_records_split_at_top_level_headings_and_keep_only_what_a_reader_sees():
    got = [(s.anchor, s.title, s.text) for s in outline(PAGE, "Page").sections]
    assert got == [
        ("", "Page", "Before & after the first heading."),       # the comment is not text
        ("sec-a", "The A section",                                # math: its MathML text, not its TeX
         "Time per token T is short. Inside a div still section A"),  # no script or style; blocks apart
        ("sec-hidden", "Not in the contents", "Hidden's text joined No id: part of the section before"),
        ("sec-b", "B x", "loose text"),                           # the template is not text
    ]


def test_table_cells_and_paragraphs_in_one_block_never_run_together_and_inline_elements_do():
    page = ('<div><table><tr><th>Quantity</th><th>Value</th></tr><tr><td>Memory</td><td>80 GiB</td></tr>'
            '</table></div><div class="callout"><p>First.</p><p>Second <b>bold</b>ly said.</p></div>')
    assert outline(page, "T").sections[0].text == "Quantity Value Memory 80 GiB First. Second boldly said."


def test_an_end_tag_that_closes_nothing_is_ignored_and_what_is_left_open_ends_with_the_page():
    o = outline("</div><p>one</span> two</p><h2 id='x'>left <b>open", "T")
    assert [(s.anchor, s.title, s.text) for s in o.sections] == [("", "T", "one two"), ("x", "left open", "")]
    assert o.toc == [Heading("h2", "x", "left open")]
