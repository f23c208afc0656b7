"""bookbuild.execute: includes, chunks, options, inline values, precise errors."""

import pytest

from bookbuild.errors import CellError, GuardFailure, IncludeError, InlineError
from bookbuild.book.unused import cell_facts
from bookbuild.execute import execute_chapter
from bookbuild.source import parse

from conftest import book_copy
CELL = "appendix/_cells/ref.qmd"
CHAPTER = "appendix/ref.qmd"




def run(root, rel=CHAPTER):
    return execute_chapter(root / rel, root, root / "_build" / "fig")


def test_include_expansion_and_inline_substitution(tmp_path):
    root = book_copy(tmp_path)
    ec = run(root)
    md = ec.markdown
    assert "{{< include" not in md and "{python}" not in md and "class Ref" not in md
    assert "Items arrive at 2 per second and stay 30 s." in md
    assert "| Live     | 60 |" in md                      # inline values in pipe tables
    assert ec.files == [CHAPTER, CELL]
    assert [(u.expr, u.file, u.line, u.value) for u in ec.inline][:2] == [
        ("Ref.arrival_str", CHAPTER, 5, "2"), ("Ref.stay_str", CHAPTER, 5, "30")]
    strs, _ = cell_facts(parse(CHAPTER, root))
    assert {s.name for s in strs} == {"Ref.arrival_str", "Ref.stay_str", "Ref.live_str"}
    assert [s.file for s in strs] == [CELL] * 3
    assert [h.id for h in parse(CHAPTER, root).headings if h.id][:3] == ["sec-appx-ref", "sec-appx-queue",
                                                                          "sec-appx-worked"]
    assert ec.title == "Reference Values"
    # every markdown line knows where it came from
    line = md.split("\n").index("Items arrive at 2 per second and stay 30 s.") + 1
    assert ec.origin(line).file == CHAPTER and ec.origin(line).line == 5


def test_figure_is_deterministic_svg_with_label_caption_alt(tmp_path):
    root = book_copy(tmp_path)
    ec = run(root)
    assert len(ec.figures) == 1 and ec.figures[0].suffix == ".svg"
    assert ("![Items in the system over time.](_build/fig/appendix-ref-fig-appx-queue.svg)"
            '{#fig-appx-queue fig-alt="A rising line."}') in ec.markdown
    first = ec.figures[0].read_bytes()
    assert b"<dc:date>" not in first
    assert "Line2D" not in ec.markdown                    # artists returned by plot() are not shown
    ec2 = run(root)
    assert ec2.figures[0].read_bytes() == first


def test_guard_failure_names_included_cell_file_label_line_and_text(tmp_path):
    root = book_copy(tmp_path, {CELL: ("check(live > 10,", "check(live > 1000,")})
    with pytest.raises(GuardFailure) as ei:
        run(root)
    assert ei.value.format() == (
        "appendix/_cells/ref.qmd:13: [calc-ref] guard failed: "
        "the queue must hold more than ten items, got 60.0")


def test_exception_in_cell_maps_to_file_and_line(tmp_path):
    root = book_copy(tmp_path, {CELL: ("live = arrival * stay", "live = arrival / 0")})
    with pytest.raises(CellError) as ei:
        run(root)
    e = ei.value
    assert (e.path, e.line, e.label) == (CELL, 11, "calc-ref")
    assert "ZeroDivisionError" in e.message
    assert not isinstance(e, GuardFailure)


def test_exception_inside_library_names_caller_line_and_origin(tmp_path):
    root = book_copy(tmp_path, {CELL: ("arrival_str = fmt_int(arrival)", "arrival_str = fmt_int('x')")})
    with pytest.raises(CellError) as ei:
        run(root)
    assert ei.value.line == 15 and "raised in stubsim.py" in ei.value.message


def test_syntax_error_in_chapter_chunk(tmp_path):
    root = book_copy(tmp_path, {CHAPTER: ("fig, ax = plt.subplots()", "fig, ax = = plt.subplots()")})
    with pytest.raises(CellError) as ei:
        run(root)
    assert (ei.value.path, ei.value.label) == (CHAPTER, "fig-appx-queue")
    assert ei.value.line == 47 and "syntax error" in ei.value.message


def test_unresolved_inline_expression(tmp_path):
    root = book_copy(tmp_path, {CHAPTER: ("there are `{python} Ref.live_str`", "there are `{python} Ref.lve_str`")})
    with pytest.raises(InlineError) as ei:
        run(root)
    assert (ei.value.path, ei.value.line) == (CHAPTER, 19)
    assert "Ref.lve_str" in ei.value.message and "does not resolve" in ei.value.message


def test_missing_include(tmp_path):
    root = book_copy(tmp_path, {CHAPTER: ("_cells/ref.qmd", "_cells/nope.qmd")})
    with pytest.raises(IncludeError) as ei:
        run(root)
    assert (ei.value.path, ei.value.line) == (CHAPTER, 3)
    assert "_cells/nope.qmd" in ei.value.message


def test_include_inside_code_block_is_left_alone(tmp_path):
    root = book_copy(tmp_path)
    (root / "x.qmd").write_text("# X\n\n```markdown\n{{< include missing.qmd >}}\n```\n", encoding="utf-8")
    assert "{{< include missing.qmd >}}" in run(root, "x.qmd").markdown


CHUNKS = '''# Options

```{python}
#| echo: true
x = 41 + 1
print("printed", x)
x_str = str(x)
```

```{python}
#| output: asis
print("**bold** from a cell")
```

```{python}
#| eval: false
raise RuntimeError("never runs")
```

```{python}
#| include: false
print("hidden")
```

```{python}
class Widget:
    def _repr_html_(self):
        return "<div id='w'>explorer</div>"
class Md:
    def _repr_markdown_(self):
        return "*md value*"
Widget()
```

Value `{python} x_str`, a string `{python} 'as written'`.

```python
`{python} not_evaluated`
```
'''


def test_chunk_options_outputs_and_inline_values(tmp_path):
    root = book_copy(tmp_path)
    (root / "c.qmd").write_text(CHUNKS, encoding="utf-8")
    md = run(root, "c.qmd").markdown
    assert "``` {.python .cell-code}\nx = 41 + 1\nprint(\"printed\", x)\nx_str = str(x)\n```" in md
    assert "#| echo" not in md
    assert "printed 42" in md and ".cell-output-stdout" in md
    assert "\n**bold** from a cell\n" in md
    assert "never runs" not in md.replace('raise RuntimeError("never runs")', "")
    assert "hidden" not in md
    assert "```{=html}\n<div id='w'>explorer</div>\n```" in md
    assert "Value 42, a string as written." in md
    assert "`{python} not_evaluated`" in md   # code blocks are not substituted


@pytest.mark.parametrize("expr, kind", [("x", "int"), ("0.5", "float"), ("Md()", "Md"),
                                        ("__import__('mlsysim').Q_(20, 'GB')", "Quantity")])
def test_inline_value_must_be_a_formatted_string(tmp_path, expr, kind):
    root = book_copy(tmp_path)
    (root / "c.qmd").write_text(CHUNKS + f"\nRaw `{{python}} {expr}` here.\n", encoding="utf-8")
    with pytest.raises(InlineError) as e:
        run(root, "c.qmd")
    line = (CHUNKS + "\n").count("\n") + 1
    assert e.value.format().startswith(f"c.qmd:{line}: inline `{{python}} {expr}` is a {kind}, not a formatted string")
    assert "*_str attribute" in e.value.message


def test_cwd_is_chapter_dir_and_root_on_path(tmp_path):
    root = book_copy(tmp_path)
    (root / "appendix" / "data.txt").write_text("7", encoding="utf-8")
    (root / "appendix" / "w.qmd").write_text(
        "# W\n\n```{python}\nimport stubsim\nclass D:\n    v_str = open('data.txt').read()\n```\n\n"
        "D is `{python} D.v_str`.\n", encoding="utf-8")
    assert "D is 7." in run(root, "appendix/w.qmd").markdown


def test_fresh_namespace_per_chapter(tmp_path):
    root = book_copy(tmp_path)
    run(root)  # defines Ref
    (root / "n.qmd").write_text("# N\n\nLeaked `{python} Ref.live_str`.\n", encoding="utf-8")
    with pytest.raises(InlineError, match="does not resolve"):
        run(root, "n.qmd")


def test_nondeterministic_display_fails(tmp_path):
    root = book_copy(tmp_path)
    (root / "o.qmd").write_text("# O\n\n```{python}\n#| label: calc-o\nobject()\n```\n", encoding="utf-8")
    with pytest.raises(CellError, match="memory address") as ei:
        run(root, "o.qmd")
    assert ei.value.label == "calc-o"


def test_parsed_inline_expressions_match_execution(tmp_path):
    root = book_copy(tmp_path)
    doc = parse(CHAPTER, root)
    ec = run(root)
    assert [u.expr for u in doc.inline] == [u.expr for u in ec.inline]
    assert [(u.file, u.line) for u in doc.inline] == [(u.file, u.line) for u in ec.inline]


def test_project_echo_default_and_chapter_override(tmp_path):
    root = book_copy(tmp_path, {"_quarto.yml": ("echo: false", "echo: true")})
    (root / "e.qmd").write_text("# E\n\n```{python}\ny = 1\n```\n", encoding="utf-8")
    assert "y = 1" in run(root, "e.qmd").markdown            # read from _quarto.yml
    (root / "f.qmd").write_text("---\nexecute:\n  echo: false\n---\n\n# F\n\n```{python}\ny = 1\n```\n",
                                encoding="utf-8")
    ec = run(root, "f.qmd")
    assert "y = 1" not in ec.markdown and ec.markdown.startswith("---\nexecute:")
    assert ec.front_matter == {"execute": {"echo": False}}


def test_fig_width_and_height_set_the_figure_size(tmp_path):
    root = book_copy(tmp_path)
    (root / "w.qmd").write_text(
        "# W\n\n```{python}\n#| label: fig-w\n#| fig-cap: Wide.\n#| fig-width: 10\n#| fig-height: 2\n"
        "import matplotlib.pyplot as plt\nplt.figure()\nplt.axis('off');\n```\n", encoding="utf-8")
    ec = run(root, "w.qmd")
    import re
    svg = ec.figures[0].read_text(encoding="utf-8")
    w, h = (float(x) for x in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    assert w / h > 3                                           # 10 x 2 inches, not the 7 x 5 default
    assert "{#fig-w}" in ec.markdown


def test_a_comprehension_reading_the_class_s_names_says_the_class_scope_trap(tmp_path):
    """A list comprehension in a cell's class body cannot see the class's attributes (Python's class scope):
    the one line names the cell, the line and the trap, with the fix."""
    root = book_copy(tmp_path, {CELL: ("live = arrival * stay", "live = [arrival * s for s in (stay, stay)][0]")})
    with pytest.raises(CellError) as ei:
        run(root)
    e = ei.value
    assert (e.path, e.line, e.label) == (CELL, 11, "calc-ref")
    assert e.message.startswith("NameError: name 'arrival' is not defined (a comprehension in a class body cannot "
                                "read the class's own names")
    assert "\n" not in e.format()


def test_a_name_error_elsewhere_is_only_the_name_error(tmp_path):
    root = book_copy(tmp_path, {CELL: ("live = arrival * stay", "live = arrivals * stay")})
    with pytest.raises(CellError) as ei:
        run(root)
    assert ei.value.message == "NameError: name 'arrivals' is not defined"
