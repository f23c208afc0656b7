"""bookbuild.numbering: one cross-reference index for a book, numbered as Quarto numbers it, over the
chapters' pandoc ASTs; what a chapter refers to and cites, read from its AST."""
import shutil
import sys
from pathlib import Path

import pytest

from bookbuild.errors import XrefError
from bookbuild.execute import execute_chapter
from bookbuild.numbering import chapter_offset, citations, number_book, references
from bookbuild.project import load_book
from bookbuild.render.filters.citations import ref_text
from bookbuild.pandoc import Pandoc
from bookbuild.render.profile import prefixes_for

FIX = Path(__file__).parents[1] / "fixtures" / "book"
PANDOC = Pandoc()


def index_of(root, profile):
    book = load_book(root, profile)
    chapters, offsets = [], {}
    for c in book.chapters:
        ec = execute_chapter(root / c.path, root, root / "_build" / "fig", execute_options=book.execute_options)
        chapters.append((c.path.as_posix(), c.appendix, PANDOC.md_to_ast(ec.markdown)))
        if (o := chapter_offset(ec.front_matter, c.path.as_posix())) is not None:
            offsets[c.path.as_posix()] = o
    return book, number_book(chapters, offsets)


class _Ctx:
    def __init__(self, book):
        self.prefixes = prefixes_for(book.lang, book.crossref)


def word(book, target, written=None):
    return ref_text(_Ctx(book), written or target.label, target, "NormalCitation").replace("\u00a0", " ")


def test_chapters_numbered_appendices_lettered(tmp_path):
    files = {
        "_quarto.yml": "profile: {default: en}\n",
        "_quarto-en.yml": "book: {chapters: [index.qmd, one.qmd, two.qmd], appendices: [a.qmd, b.qmd]}\n",
        "index.qmd": "# Preface {.unnumbered}\n\n## About {#sec-about}\n\n$$x$$ {#eq-pre}\n",
        "one.qmd": "# One {#sec-one}\n\n## S {#sec-one-s}\n",
        "two.qmd": "# Two\n\n## S {#sec-two-s}\n\n### T {-}\n\n### U {#sec-two-u}\n",
        "a.qmd": "# A {#sec-a}\n",
        "b.qmd": "# B {#sec-b}\n\n# Second top-level heading\n\n## S {#sec-b-s}\n\n| x |\n|---|\n| 1 |\n\n: cap {#tbl-b}\n",
    }
    for k, v in files.items():
        (tmp_path / k).write_text(v, encoding="utf-8")
    _, idx = index_of(tmp_path, "en")
    num = {k: v.number for k, v in idx.targets.items()}
    assert num["sec-about"] is None and num["eq-pre"] == "1"
    assert num["sec-one"] == "1" and num["sec-one-s"] == "1.1"
    assert num["sec-two-s"] == "2.1" and num["sec-two-u"] == "2.1.1"
    assert num["sec-a"] == "A" and num["sec-b"] == "B" and num["sec-b-s"] == "B.1"
    assert num["tbl-b"] == "B.1"
    assert [c.number for c in idx.chapters] == [None, "1", "2", "A", "B"]


def test_a_label_defined_twice_is_refused(tmp_path):
    a = PANDOC.md_to_ast("# A {#sec-a}\n\n## S {#sec-x}\n")
    b = PANDOC.md_to_ast("# B {#sec-b}\n\n## T {#sec-x}\n")
    with pytest.raises(XrefError, match="sec-x is defined twice .also in a.qmd") as e:
        number_book([("a.qmd", False, a), ("b.qmd", False, b)])
    assert e.value.path == "b.qmd"


def test_references_and_citations_come_from_the_ast():
    md = """# T {#sec-t}

See @sec-a, @Sec-b and [@tbl-c; @fig-d]. @Eq-e. A theorem @thm-x is Quarto's, not a citation.
Mail me@example.org or see <https://x.org/@sec-not>.
Cite [@little1961; @gray1981transaction, p. 3] and @kwon2023.

```python
@sec-in-code
```
`@sec-inline-code` <!-- @sec-comment -->
"""
    ast = PANDOC.md_to_ast(md)
    assert references(ast) == [("sec-a", "AuthorInText"), ("Sec-b", "AuthorInText"), ("tbl-c", "NormalCitation"),
                               ("fig-d", "NormalCitation"), ("Eq-e", "AuthorInText")]
    assert citations(ast) == ["little1961", "gray1981transaction", "kwon2023"]


# --- a chapter's declared number (number-offset), as the book uses it -----------------------------------


def test_number_offset_declares_a_chapters_number(tmp_path):
    files = {
        "_quarto.yml": "profile: {default: en}\n",
        "_quarto-en.yml": "book: {chapters: [index.qmd, one.qmd, two.qmd, three.qmd], appendices: [a.qmd]}\n",
        "index.qmd": "# Preface {.unnumbered}\n",
        # eighteen chapters before it: chapter 19, and what it numbers is 19.x
        "one.qmd": "---\nnumber-offset: [18]\n---\n\n# One {#sec-one}\n\n## S {#sec-one-s}\n\n### T {#sec-one-t}\n\n"
                   "$$x$$ {#eq-one}\n\n| x |\n|---|\n| 1 |\n\n: cap {#tbl-one}\n",
        # no declaration: its position among numbered chapters, as Quarto's book gives it
        "two.qmd": "# Two {#sec-two}\n\n## S {#sec-two-s}\n",
        # a scalar, as Quarto also accepts it: 4 before it
        "three.qmd": "---\nnumber-offset: 4\n---\n\n# Three {#sec-three}\n\n## S {#sec-three-s}\n",
        "a.qmd": "# A {#sec-a}\n\n## S {#sec-a-s}\n",
    }
    for k, v in files.items():
        (tmp_path / k).write_text(v, encoding="utf-8")
    _, idx = index_of(tmp_path, "en")
    num = {k: v.number for k, v in idx.targets.items() if k != "preface"}   # the preface's own heading
    assert num == {"sec-one": "19", "sec-one-s": "19.1", "sec-one-t": "19.1.1", "eq-one": "19.1", "tbl-one": "19.1",
                   "sec-two": "2", "sec-two-s": "2.1", "sec-three": "5", "sec-three-s": "5.1",
                   "sec-a": "A", "sec-a-s": "A.1"}
    assert [c.number for c in idx.chapters] == [None, "19", "2", "5", "A"]


@pytest.mark.parametrize("value", [[18, 2], [], "eighteen", -1, [1.5], True, None, {"a": 1}])
def test_a_number_offset_that_is_not_one_whole_number_is_refused(value):
    with pytest.raises(XrefError) as e:
        chapter_offset({"number-offset": value}, "one.qmd")
    assert e.value.message == ("number-offset must be one whole number of chapters before this one, such as [18] "
                               f"(the chapter is then 19), not {value!r}")
    assert e.value.path == "one.qmd"
    assert chapter_offset({}, "one.qmd") is None and chapter_offset({"number-offset": [0]}, "x") == 0


def test_number_offset_where_it_cannot_apply_is_refused():
    one = PANDOC.md_to_ast("# One\n")
    two = PANDOC.md_to_ast("# Two\n")
    pre = PANDOC.md_to_ast("# Preface {.unnumbered}\n")
    def refused(chapters, offsets):
        with pytest.raises(XrefError) as e:
            number_book(chapters, offsets)
        return e.value.path, e.value.message
    assert refused([("one.qmd", False, one), ("a.qmd", True, two)], {"a.qmd": 3}) == (
        "a.qmd", "number-offset applies to chapters, not appendices (they are lettered by position)")
    assert refused([("index.qmd", False, pre)], {"index.qmd": 3}) == (
        "index.qmd", "number-offset on an unnumbered chapter: remove it or the heading's .unnumbered")
    # [0] on the second chapter makes it 1, the number the first has by position
    assert refused([("one.qmd", False, one), ("two.qmd", False, two)], {"two.qmd": 0}) == (
        "two.qmd", "chapter number 1 is also one.qmd's; give one of them another number-offset")


def test_a_refused_number_offset_names_the_line(tmp_path):
    from bookbuild import check_book
    from bookbuild.errors import BuildFailed
    root = tmp_path / "b"
    shutil.copytree(FIX, root)
    sys.modules.pop("stubsim", None)
    p = root / "appendix" / "ref.qmd"
    p.write_text("---\n# a comment\nnumber-offset: [2]\n---\n" + p.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises((XrefError, BuildFailed)) as e:
        check_book(root, ["en"])
    errs = e.value.errors if isinstance(e.value, BuildFailed) else [e.value]
    assert [x.format() for x in errs] == ["appendix/ref.qmd:3: number-offset applies to chapters, not appendices "
                                          "(they are lettered by position)"]
