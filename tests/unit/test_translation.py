"""The drift guard, the stamp command and the glossary check (bookbuild/translation.py)."""
from pathlib import Path

import pytest

from bookbuild.cli import dispatch
from bookbuild.book.translation import (check_drift, check_glossary, glossary_errors, load_glossary,
                                   prose_blocks, prose_hash, stamp, translation_of)

ROOT = Path(__file__).resolve().parents[2]
LECTURE, LECTURE_ZH = "lectures/lecture19-agent-stalls.qmd", "lectures/lecture19-agent-stalls.zh.qmd"
# an English paragraph of the lecture, and an edit a reviewer might make to it
OLD = "The rest of the lecture is about that parking lot: what it costs, what the alternatives cost,"
NEW = "The rest of the lecture is about that waiting room: what it costs, what the alternatives cost,"

EN = """# Title {#sec-t}

```{python}
#| label: calc-x
x_str = "1"
```

First paragraph quotes `{python} X.x_str` here,
over two lines.

{{< include _cells/x.qmd >}}

Second paragraph.
"""
ZH = "---\ntranslation-of:\n  path: en.qmd\n  sha256: unstamped\n---\n\n# 标题 {#sec-t}\n\n第一段。\n"


def _mini(tmp_path, en=EN, zh=ZH) -> Path:
    (tmp_path / "en.qmd").write_text(en, encoding="utf-8")
    (tmp_path / "zh.qmd").write_text(zh, encoding="utf-8")
    return tmp_path


# ---------------------------------------------------------------- the prose the hash covers

def test_prose_keeps_includes_and_inline_expressions_as_written_and_drops_cells():
    blocks = [b.text for b in prose_blocks(EN)]
    assert blocks == ["# Title {#sec-t}", "First paragraph quotes `{python} X.x_str` here, over two lines.",
                      "{{< include _cells/x.qmd >}}", "Second paragraph."]
    assert [b.line for b in prose_blocks(EN)] == [1, 8, 11, 13]


def test_a_cell_change_does_not_change_the_hash_and_a_prose_change_does():
    assert prose_hash(EN) == prose_hash(EN.replace('x_str = "1"', 'x_str = "2"'))
    assert prose_hash(EN) == prose_hash(EN.replace("over two lines.", "over   two\nlines."))  # whitespace only
    assert prose_hash(EN) != prose_hash(EN.replace("Second paragraph.", "Second paragraph, edited."))
    assert prose_hash(EN) != prose_hash(EN.replace("X.x_str", "X.y_str"))   # an inline expression as written


# ---------------------------------------------------------------- drift guard, pure functions

def test_unstamped_translation_fails_naming_the_chapter(tmp_path):
    root = _mini(tmp_path)
    errs = check_drift(root, Path("zh.qmd"))
    assert len(errs) == 1 and errs[0].path == "zh.qmd" and "never stamped" in errs[0].message
    assert "python -m bookbuild translated zh.qmd" in errs[0].message


def test_stamp_then_edit_then_stamp(tmp_path):
    root = _mini(tmp_path)
    stamp(root, Path("zh.qmd"))
    assert check_drift(root, Path("zh.qmd")) == []
    assert translation_of((root / "zh.qmd").read_text(encoding="utf-8"))["sha256"] == prose_hash(EN)
    assert (root / "zh.qmd").read_text(encoding="utf-8").endswith("# 标题 {#sec-t}\n\n第一段。\n")
    # a cell changes: still fresh
    (root / "en.qmd").write_text(EN.replace('x_str = "1"', 'x_str = "3"'), encoding="utf-8")
    assert check_drift(root, Path("zh.qmd")) == []
    # a paragraph changes: stale, naming the translation, pointing at the English paragraph with a diff
    (root / "en.qmd").write_text(EN.replace("Second paragraph.", "Second paragraph, now longer."), encoding="utf-8")
    errs = check_drift(root, Path("zh.qmd"))
    assert errs[0].path == "zh.qmd" and "stale" in errs[0].message and "en.qmd" in errs[0].message
    assert len(errs) == 2
    assert errs[1].path == "en.qmd" and errs[1].line == 13
    assert "[-paragraph.-]{+paragraph, now longer.+}" in errs[1].message and "[for zh.qmd]" in errs[1].message
    stamp(root, Path("zh.qmd"))
    assert check_drift(root, Path("zh.qmd")) == []


def test_added_and_removed_paragraphs_are_listed(tmp_path):
    root = _mini(tmp_path)
    stamp(root, Path("zh.qmd"))
    (root / "en.qmd").write_text(EN.replace("Second paragraph.\n", "A new paragraph.\n\nSecond paragraph.\n")
                                 .replace("{{< include _cells/x.qmd >}}\n", ""), encoding="utf-8")
    msgs = [e.message for e in check_drift(root, Path("zh.qmd"))[1:]]
    assert any("removed: {{< include _cells/x.qmd >}}" in m for m in msgs)
    assert any("added: A new paragraph." in m for m in msgs)


def test_a_missing_source_is_one_clear_error(tmp_path):
    root = _mini(tmp_path, zh=ZH.replace("en.qmd", "nope.qmd"))
    errs = check_drift(root, Path("zh.qmd"))
    assert len(errs) == 1 and "nope.qmd" in errs[0].message and "does not exist" in errs[0].message


def test_stamp_adds_front_matter_when_given_the_source(tmp_path):
    root = _mini(tmp_path, zh="# 标题\n")
    assert dispatch(["translated", "zh.qmd", "--root", str(root)]) == 1          # no translation-of, no --source
    assert dispatch(["translated", str(root / "zh.qmd"), "--root", str(root), "--source", "en.qmd"]) == 0
    text = (root / "zh.qmd").read_text(encoding="utf-8")
    assert text.startswith("---\ntranslation-of:\n  path: en.qmd\n  sha256: ") and text.endswith("# 标题\n")
    assert check_drift(root, Path("zh.qmd")) == []


# ---------------------------------------------------------------- the real book, through the CLI


# ---------------------------------------------------------------- glossary

def test_the_glossary_loads_and_lists_the_reviewed_terms():
    terms = {t.en: t for t in load_glossary(ROOT)}
    assert terms["compute-bound"].zh == "受计算限制" and len(terms["compute-bound"].variants) >= 5
    assert terms["arithmetic intensity"].zh == "算术强度" and "计算强度" in terms["arithmetic intensity"].variants
    assert terms["forward pass"].zh == "前向传播" and "前向计算" in terms["forward pass"].variants
    assert terms["resident"].zh == "驻留" and "常驻" in terms["resident"].variants
    assert terms["token"].zh == "词元" and terms["ridge point"].zh == "屋脊点"


def test_a_variant_is_flagged_with_its_line_and_the_glossary_form():
    terms = load_glossary(ROOT)
    text = "# 标题\n\n解码的计算强度很低。\n\n预填充则受算术运算能力限制。\n"
    errs = glossary_errors(text, "x.zh.qmd", terms)
    assert [(e.line, e.path) for e in errs] == [(3, "x.zh.qmd"), (5, "x.zh.qmd")]
    assert "'计算强度' is a variant of 'arithmetic intensity'; write '算术强度'" in errs[0].message
    assert "write '受计算限制'" in errs[1].message


def test_glossary_forms_code_and_math_are_not_flagged():
    terms = load_glossary(ROOT)
    text = ("屋脊点与算术强度。\n\n```python\n# 计算强度\n```\n\n$\\text{常驻}$ 与 `前向计算` 不是正文。\n\n"
            "<!-- 计算受限 -->\n")
    assert glossary_errors(text, "x.zh.qmd", terms) == []   # 脊点 inside 屋脊点 is the glossary's own form


@pytest.mark.parametrize("zh", ["index.zh.qmd", LECTURE_ZH, "appendix/inference-cost.zh.qmd"])
def test_the_chinese_chapters_follow_the_glossary(zh):
    assert check_glossary(ROOT, Path(zh)) == []


def test_a_broken_glossary_is_one_clear_error(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "glossary.toml").write_text('[terms."x"]\nvariants = ["y"]\n', encoding="utf-8")
    from bookbuild.errors import BuildError
    with pytest.raises(BuildError, match=r"terms\.'x' needs a zh"):
        load_glossary(tmp_path)


# ---------------------------------------------------------------- everything a reader reads drifts

READER_EN = """# Title {#sec-t}

{{< include _cells/c.qmd >}}

The value is `{python} C.x_str`.

| Setting | Value |
|:--|:--|
| rate | `{python} C.x_str` |

```{python}
#| label: fig-t
#| fig-cap: "**A Figure**: what it shows."
#| fig-alt: "A line rising to the right."
C.fig
```
"""
READER_CELL = """```{python}
#| label: calc-c
class C:
    x = 2
    check(x > 1, f"x exceeds one ({x})", zh=f"x 大于一（{x}）")
    pin(x < 10, "an author's pin is never shown")
    x_str = str(x)
```
"""
READER_NAMES = '[names.C]\nx = { en = "the value", zh = "数值" }\n'


@pytest.mark.parametrize("file, old, new, where", [
    ("en.qmd", "what it shows.", "what it plots.", ("en.qmd", 13)),                        # the caption
    ("en.qmd", "A line rising to the right.", "A line rising.", ("en.qmd", 14)),           # the alt text
    ("en.qmd", "| rate |", "| speed |", ("en.qmd", 7)),                                    # a table cell
    ("_cells/c.qmd", 'f"x exceeds one ({x})"', 'f"x is above one ({x})"', ("_cells/c.qmd", 5)),  # a guard message
    ("_cells/names.toml", 'en = "the value"', 'en = "the quoted value"', ("_cells/names.toml", 2)),  # a hover name
])
def test_an_edit_of_anything_a_reader_reads_makes_the_translation_stale(tmp_path, file, old, new, where):
    root = _mini(tmp_path, en=READER_EN)
    (root / "_cells").mkdir()
    (root / "_cells" / "c.qmd").write_text(READER_CELL, encoding="utf-8")
    (root / "_cells" / "names.toml").write_text(READER_NAMES, encoding="utf-8")
    stamp(root, Path("zh.qmd"))
    assert check_drift(root, Path("zh.qmd")) == []
    p = root / file
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    errs = check_drift(root, Path("zh.qmd"))
    assert errs and errs[0].path == "zh.qmd" and "is stale" in errs[0].message
    assert [(e.path, e.line) for e in errs[1:]] == [where], [e.format() for e in errs]
    assert "changed:" in errs[1].message


def test_code_and_an_author_s_pin_do_not_make_it_stale(tmp_path):
    root = _mini(tmp_path, en=READER_EN)
    (root / "_cells").mkdir()
    (root / "_cells" / "c.qmd").write_text(READER_CELL, encoding="utf-8")
    stamp(root, Path("zh.qmd"))
    cell = root / "_cells" / "c.qmd"
    cell.write_text(READER_CELL.replace("x = 2", "x = 3").replace("never shown", "not shown"), encoding="utf-8")
    assert check_drift(root, Path("zh.qmd")) == []
