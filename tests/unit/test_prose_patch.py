"""A prose edit shown in place before the build (bookbuild/prose_patch.py): which edits are patched.

Each expected value is written beside its case: the paragraphs a change touches, widened to the blank lines
around it, or None where the preview must wait for the build (the change is not to plain paragraphs).
"""
import pytest

from bookbuild.prose_patch import changed_paragraphs
from bookbuild.render.html import article_body

DOC = """---
title: x
---

# Title {#sec-x}

First paragraph, line one
and line two.

Second paragraph with a value [3.35]{.mlsysim-v data-attr="HW.bw_str"} and @sec-x.

```{=html}
<div class="mlsysim-plot">

inside a raw block
</div>
```

- a list item
- another

Last paragraph.
"""


def edit(old: str, new: str) -> str:
    assert DOC.count(old) == 1, old
    return DOC.replace(old, new)


def test_a_word_changed_in_a_paragraph_gives_that_whole_paragraph():
    assert changed_paragraphs(DOC, edit("and line two.", "and line 2.")) == (
        "First paragraph, line one\nand line two.", "First paragraph, line one\nand line 2.")


def test_a_value_span_and_a_reference_stay_in_the_paragraph():
    old = 'Second paragraph with a value [3.35]{.mlsysim-v data-attr="HW.bw_str"} and @sec-x.'
    new = old.replace("Second", "The second")
    assert changed_paragraphs(DOC, edit(old, new)) == (old, new)


def test_two_neighbouring_paragraphs_changed_come_together():
    was, now = changed_paragraphs(DOC, edit("and line two.", "and line 2.").replace("Second paragraph", "Paragraph 2"))
    assert was.startswith("First paragraph") and was.endswith("and @sec-x.") and "\n\n" in was
    assert now.startswith("First paragraph") and "Paragraph 2" in now


@pytest.mark.parametrize("old, new", [
    ("# Title {#sec-x}", "# A title {#sec-x}"),                     # a heading: numbers, contents, search
    ("- another", "- one more"),                                   # a list
    ("inside a raw block", "inside the raw block"),                # inside a fence
    ("Last paragraph.", "Last paragraph.\n\n| a | b |\n|---|---|\n| 1 | 2 |"),   # a table added
    ("Last paragraph.", "Last paragraph.\n\nA paragraph added."),   # a whole paragraph added: nothing to replace
    ("Last paragraph.", "![a figure](f.svg)"),                    # an image
    ("Last paragraph.", "Last paragraph.[^1]\n\n[^1]: A note."),    # a footnote's definition
])
def test_anything_but_plain_paragraphs_waits_for_the_build(old, new):
    assert changed_paragraphs(DOC, edit(old, new)) is None


def test_nothing_changed_is_no_patch():
    assert changed_paragraphs(DOC, DOC) is None


def test_the_body_is_what_the_article_holds():
    page = '<main>\n<article class="chapter">\n<p>one</p>\n<p>two</p>\n</article>\n<nav class="pager">'
    start, end = article_body(page)
    assert page[start:end] == "<p>one</p>\n<p>two</p>"
    assert article_body("<main><p>no article</p></main>") is None
