"""The one block scanner (bookbuild/blocks.py) and the splitters that read it.

Every expected value is counted by hand from the text beside it (lines numbered from 0 in the comments).
"""
from bookbuild.blocks import Block, continues, div_opens, scan, structural
from bookbuild.book.translation import prose_blocks
from bookbuild.pieces import pieces

CHAPTER = [
    "---",                      # 0  front matter
    "title: x",                 # 1
    "---",                      # 2
    "",                         # 3
    "Para one",                 # 4  a block at depth 0
    "and two.",                 # 5
    "",                         # 6
    "::: {.callout-note}",      # 7  opens a div: the block starts at depth 0
    "Inside.",                  # 8
    "",                         # 9
    "```python",                # 10 a fence inside the div, blank line and all one block
    "a = 1",                    # 11
    "",                         # 12
    "b = 2",                    # 13
    "```",                      # 14
    ":::",                      # 15 closes the div, in the fence's block
    "",                         # 16
    "<!-- a comment",           # 17 opens a comment that spans lines
    "",                         # 18
    "::: spans -->",            # 19 commented: no div opens here
    "Last.",                    # 20
]


def test_the_blocks_of_a_chapter_and_what_each_line_belongs_to():
    sc = scan(CHAPTER)
    assert sc.front_end == 2
    assert sc.blocks == (Block(0, 2, 0), Block(4, 5, 0), Block(7, 8, 0), Block(10, 15, 1), Block(17, 17, 0),
                         Block(19, 20, 0))
    assert sc.fenced == {11, 12, 13, 14}
    assert sc.commented == {18, 19}
    assert sc.balanced
    assert [(f.start, f.end, f.info) for f in sc.fences] == [(10, 14, "python")]


def test_a_chapter_is_cut_where_a_top_level_block_starts_that_cannot_continue_the_one_above():
    # 4: a paragraph; 7: a div opening (":" could continue, but it opens a div); 10: inside the div;
    # 17: "<" may continue the block above; 19: in a comment
    got = pieces("\n".join(CHAPTER))
    assert got == ["\n".join(CHAPTER[:4]), "\n".join(CHAPTER[4:7]), "\n".join(CHAPTER[7:])]


def test_a_div_closed_that_was_never_opened_ties_the_text_together():
    assert not scan([":::", "", "text"]).balanced
    assert pieces(":::\n\ntext") is None


def test_an_unclosed_fence_runs_to_the_end():
    sc = scan(["a", "", "```", "x", "", "y"])
    assert [(f.start, f.end, f.closed) for f in sc.fences] == [(2, 5, False)]
    assert sc.fenced == {3, 4, 5}
    assert sc.blocks == (Block(0, 0, 0), Block(2, 5, 0))


def test_the_front_matter_holds_no_div_and_no_fence():
    sc = scan(["---", ":::", "```", "---", "", "text"])
    assert sc.balanced and sc.fences == () and sc.blocks == (Block(0, 3, 0), Block(5, 5, 0))


def test_a_comment_opened_inside_a_fence_is_code():
    sc = scan(["```", "<!--", "```", "", "::: {.a}", "", ":::"])
    assert sc.commented == frozenset()
    assert sc.balanced and sc.blocks == (Block(0, 2, 0), Block(4, 4, 0), Block(6, 6, 1))


def test_what_a_first_line_may_be():
    assert continues("  indented") and continues("- item") and continues("1. item") and continues("| a |")
    assert continues(": caption") and continues("<div>") and not continues("Para one") and not continues("```")
    assert div_opens("::: {.callout-note}") and div_opens(":::: name") and not div_opens(":::")
    assert structural("# Head") and structural("Table: t") and structural("![a](b.svg)")
    assert not structural("A plain sentence.") and not structural("2026 was a year")


def test_the_prose_a_translation_follows_is_the_blocks_without_chunks():
    text = "\n".join([
        "Intro line",       # 0
        "```{python}",      # 1 a chunk inside the block ends the paragraph before it
        "x = 1",            # 2
        "",                 # 3
        "y = 2",            # 4
        "```",              # 5
        "After.",           # 6
        "",                 # 7
        "```text",          # 8 a fence that is not a chunk: one paragraph, its blank line inside
        "line a",           # 9
        "",                 # 10
        "line b",           # 11
        "```",              # 12
    ])
    assert [(b.line, b.text) for b in prose_blocks(text)] == [
        (1, "Intro line"), (7, "After."), (9, "```text line a line b ```")]


def test_a_div_fence_inside_a_comment_opens_nothing():
    # 0-2: a comment holding a div's opening line; 4: a paragraph after it, still at depth 0
    sc = scan(["<!--", "::: {.callout-note}", "-->", "", "After."])
    assert sc.commented == {1, 2}
    assert sc.balanced and sc.blocks == (Block(0, 2, 0), Block(4, 4, 0))
