"""bookbuild.execute.replay: a prose edit assembled from the last run of the same cells, equal to a run."""
from __future__ import annotations

import pytest

from bookbuild.execute import NotReplayable, Replay, RunOptions, Runner, cells_signature, to_json
from bookbuild.source import parse

CHAPTER = """---
title: Tiny
---

# Tiny {#sec-tiny}

```{python}
class A:
    x_str = "one"
print("| a | b |\\n|---|---|\\n| 1 | 2 |")
```

Before the second cell A.x_str is `{python} A.x_str`.

```{python}
class A:
    x_str = "two"
```

After it, `{python} A.x_str`; again `{python} A.x_str`.
"""


def _opts(root):
    return RunOptions(root=root, fig_dir=root / "_fig", md_dir=root)


def _run(root, text: str):
    (root / "ch.qmd").write_text(text, encoding="utf-8")
    doc = parse("ch.qmd", root)
    return doc, Runner(doc, _opts(root)).chapter()


def _same(a, b, root) -> None:
    ja, jb = to_json(a, root / "_fig"), to_json(b, root / "_fig")
    assert ja == jb


def test_a_reworded_sentence_is_the_run_s_chapter_without_running(tmp_path):
    _, first = _run(tmp_path, CHAPTER)
    # the values depend on where they stand: the same read gives "one" above the second cell, "two" below
    assert "A.x_str is one." in first.markdown and "After it, two; again two." in first.markdown
    edited = CHAPTER.replace("After it,", "Below it,").replace("Before the second cell", "Above cell two,")
    (tmp_path / "ch.qmd").write_text(edited, encoding="utf-8")
    doc = parse("ch.qmd", tmp_path)
    replayed = Replay(doc, _opts(tmp_path), None, first).chapter()
    assert "Above cell two, A.x_str is one." in replayed.markdown and "Below it, two; again two." in replayed.markdown
    assert "| 1 | 2 |" in replayed.markdown                      # the first cell's printed table, as it was
    _, ran = _run(tmp_path, edited)
    _same(replayed, ran, tmp_path)                               # markdown, line map, inline uses, cells


def test_a_paragraph_below_the_last_cell_reuses_a_value_read_there(tmp_path):
    _, first = _run(tmp_path, CHAPTER)
    edited = CHAPTER + "\nA new paragraph: `{python} A.x_str`.\n"
    (tmp_path / "ch.qmd").write_text(edited, encoding="utf-8")
    replayed = Replay(parse("ch.qmd", tmp_path), _opts(tmp_path), None, first).chapter()
    assert replayed.markdown.endswith("A new paragraph: two.\n")
    _same(replayed, _run(tmp_path, edited)[1], tmp_path)


@pytest.mark.parametrize("edit", [
    lambda t: t.replace("Before the second cell A.x_str is `{python} A.x_str`.", "Now `{python} A.x_str.upper()`."),
    lambda t: t + "\nA name read nowhere before: `{python} B.y_str`.\n",
    lambda t: t.replace("Before the second cell A.x_str is `{python} A.x_str`.", "Above: `{python} A.y_str`."),
], ids=["a call, not a read", "a name no run read", "an attribute no run read there"])
def test_an_inline_value_the_run_did_not_read_there_runs_the_chapter(tmp_path, edit):
    _, first = _run(tmp_path, CHAPTER)
    (tmp_path / "ch.qmd").write_text(edit(CHAPTER), encoding="utf-8")
    with pytest.raises(NotReplayable):
        Replay(parse("ch.qmd", tmp_path), _opts(tmp_path), None, first).chapter()


def test_a_read_whose_value_changed_between_two_uses_is_not_replayed(tmp_path):
    text = CHAPTER.replace('class A:\n    x_str = "two"', 'class C:\n    n = 0\n    @property\n    def s(self):\n'
                           '        C.n += 1\n        return str(C.n)\nc = C()') + "\n`{python} c.s` and `{python} c.s`.\n"
    _, first = _run(tmp_path, text)
    assert first.markdown.endswith("1 and 2.\n")                # a property that counts: a read, but not pure
    (tmp_path / "ch.qmd").write_text(text.replace("After it", "Then"), encoding="utf-8")
    with pytest.raises(NotReplayable):
        Replay(parse("ch.qmd", tmp_path), _opts(tmp_path), None, first).chapter()


def test_the_signature_covers_each_cell_s_code_options_and_place(tmp_path):
    def sig(text: str) -> bytes:
        (tmp_path / "ch.qmd").write_text(text, encoding="utf-8")
        return cells_signature(parse("ch.qmd", tmp_path))
    base = sig(CHAPTER)
    assert sig(CHAPTER.replace("After it,", "Below it,")) == base                      # prose: the same
    assert sig(CHAPTER + "\nMore prose.\n") == base
    assert sig(CHAPTER.replace('x_str = "two"', 'x_str = "2"')) != base                 # code
    assert sig(CHAPTER.replace('```{python}\nclass A:\n    x_str = "two"',
                               '```{python}\n#| echo: true\nclass A:\n    x_str = "two"')) != base   # options
    assert sig(CHAPTER.replace("# Tiny {#sec-tiny}\n", "# Tiny {#sec-tiny}\n\nA new line.\n")) != base  # lines moved
    assert sig(CHAPTER.replace("title: Tiny", "title: Small")) != base                  # front matter


@pytest.mark.parametrize("replay", [
    {}, {"blocks": [["x"]], "values": []}, {"blocks": "no", "values": []},
    {"blocks": [[""], [""]], "values": [["A.x_str", "1", "one"]]}, {"blocks": [[""], [1]], "values": []},
    {"blocks": [[""], [""]], "values": [["A.x_str", 1]]},
], ids=["empty", "a block short", "not a list", "a count that is text", "a line that is a number", "a pair"])
def test_a_recording_of_another_shape_is_not_replayed(tmp_path, replay):
    """What the cache holds is checked before it is used: a recording of any other shape runs the chapter."""
    _, first = _run(tmp_path, CHAPTER)
    first.replay = replay
    with pytest.raises(NotReplayable):
        Replay(parse("ch.qmd", tmp_path), _opts(tmp_path), None, first).chapter()
