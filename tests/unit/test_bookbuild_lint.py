"""bookbuild.book.lint: typed numbers and inline-expression rules, on source text."""
from bookbuild.book.lint import inline_rules, load_allowlist, typed_numbers
from bookbuild.text import scan

ALLOW = load_allowlist()


def nums(text):
    return [(e.line, e.message.split(" in prose")[0]) for e in typed_numbers(text, "c.qmd", ALLOW)]


def test_typed_number_is_an_error_with_line():
    assert nums("# T\n\nThe fleet holds 42 sessions.\n") == [(3, "typed number '42'")]


def test_non_prose_is_masked():
    text = """---
title: "Chapter 7"
---

# Heading {#sec-x2 .unnumbered}

Value `{python} Ref.x2_str` and math $x_2 = 10^3$ and $$y = 2$$ {#eq-y2}.
See @sec-vol3-intro, [@williams2009], <https://example.org/v2>, https://a.b/c3 and
[a link](../ch3.qmd#sec-4) ![alt](fig3.svg){width=300}.
<!-- TODO: 17 things -->
1. first item
2. second item

```{python}
x = 5
```

Principle \\ref{pri-vol3-memory}, <span style="width:3px">tag</span>.
"""
    assert nums(text) == []


def test_allowlisted_names_pass_but_quantities_do_not():
    ok = ("Lecture 5 and §19.3 on Oct 7 and Nov 18; Exercise 3 and Assignment 2; "
          "Mon/Wed 11:15am–12:30pm, SEC LL2.221; 第19讲 10月7日")
    assert nums(ok) == []
    assert nums("Lecture 5 measured 30 seconds.") == [(1, "typed number '30'")]


def test_a_bit_width_in_prose_is_a_number():
    """"16-bit storage" beside a reader's 8-bit keys was a false sentence no check saw: the widths the prose
    names are the scenario's (``kv_bits_str``, ``pool_bits_str``), so a typed one is a typed number."""
    assert nums("and 16-bit storage") == [(1, "typed number '16-bit'")]
    assert nums("8-bit weights at 16 bits") == [(1, "typed number '8-bit', '16'")]   # one line, every number
    assert nums("以 16 位精度存储") == [(1, "typed number '16'")]
    assert nums("and `{python} Ref.kv_bits_str`-bit storage") == []


def test_caption_option_is_linted():
    assert nums('```{python}\n#| fig-cap: "The 3 regimes."\nx = 1\n```\n') == [(2, "typed number '3'")]


def test_inline_rules_attribute_reads_only_outside_math_and_captions():
    text = """A `{python} Ref.ok_str` read.
A call `{python} fmt(Ref.x)` and arithmetic `{python} Ref.a * 2`.
Math $t = `{python} Ref.t_str`$ here.
: **Caption** with `{python} Ref.c_str`. {#tbl-x}
![Figure `{python} Ref.f_str`](f.svg)
"""
    errs = [(e.line, e.message.split(":")[0]) for e in inline_rules(text, "c.qmd")]
    assert errs == [
        (2, "inline expression `{python} fmt(Ref.x)` is not a plain attribute read"),
        (2, "inline expression `{python} Ref.a * 2` is not a plain attribute read"),
        (3, "inline expression `{python} Ref.t_str` inside math"),
        (4, "inline expression `{python} Ref.c_str` inside a caption"),
        (5, "inline expression `{python} Ref.f_str` inside a caption"),
    ]


def test_scan_finds_inline_positions():
    sc = scan("x\n\nsee `{python} A.b_str` and $a$ `{python} C.d_str`\n")
    assert [(i.line, i.expr, i.in_math) for i in sc.inline] == [(3, "A.b_str", False), (3, "C.d_str", False)]
    assert "python" not in sc.masked


def test_dollar_amounts_are_not_math():
    assert nums("It costs $5 and $6 per call.") == [(1, "typed number '$5', '$6'")]


def test_chinese_precision_names_are_numbers_too():
    assert nums("采用 8 位精度，以 16 位存储。") == [(1, "typed number '8', '16'")]
    assert nums("有 3 位工程师。") == [(1, "typed number '3'")]


def test_an_inline_value_right_after_a_key_is_refused():
    """"@eq-a [value]{.mlsysim-v}" is pandoc's in-text citation with a suffix: Quarto 1.7.34 printed Figure A.2's
    "for the reference model on the reference accelerator" as nothing. A word or punctuation in between is fine."""
    def said(text):
        return [e.message.split(":")[0] for e in inline_rules(text, "c.qmd")]
    assert said("draws both terms of @eq-appdx-prefill-long `{python} Ref.x_str`.") == [
        "inline value `{python} Ref.x_str` right after a cross-reference or citation"]
    assert said("@fig-a `{python} Ref.x_str` 两项") == [
        "inline value `{python} Ref.x_str` right after a cross-reference or citation"]
    assert said("draws, `{python} Ref.x_str`, both terms of @eq-a.") == []
    assert said("@fig-a 画出`{python} Ref.x_str` @eq-a 两项") == []
    assert said("[@smith2020] `{python} Ref.x_str` and mail a@b.org `{python} Ref.y_str`") == []
