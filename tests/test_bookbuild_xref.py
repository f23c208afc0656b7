"""bookbuild.xref: Quarto numbering of a book and reference scanning."""
from pathlib import Path

from bookbuild.execute import execute_chapter
from bookbuild.project import load_book
from bookbuild.xref import build_index, find_citations, find_references, label_word

FIX = Path(__file__).parent / "fixtures" / "book"


def index_of(root, profile):
    book = load_book(root, profile)
    ex = [execute_chapter(root / c.path, root, root / "_build" / "fig", execute_options=book.execute_options)
          for c in book.chapters]
    return book, build_index(book, ex)


def test_appendix_numbering_like_quarto(tmp_path):
    import shutil
    import sys
    sys.modules.pop("stubsim", None)
    root = tmp_path / "b"
    shutil.copytree(FIX, root)
    book, idx = index_of(root, "en")
    got = {k: (v.kind, v.number) for k, v in idx.items()}
    assert got == {
        "sec-appx-ref": ("chapter", "A"),
        "sec-appx-queue": ("sec", "A.1"),        # the .unnumbered section before it does not count
        "sec-appx-worked": ("sec", "A.1.1"),
        "sec-appx-picture": ("sec", "A.2"),
        "tbl-appx-first": ("tbl", "A.1"),
        "tbl-appx-values": ("tbl", "A.2"),
        "eq-appx-little": ("eq", "A.1"),
        "eq-appx-w": ("eq", "A.2"),
        "eq-appx-rho": ("eq", "A.3"),
        "fig-appx-queue": ("fig", "A.1"),
    }
    assert idx["sec-appx-ref"].appendix and idx["sec-appx-ref"].chapter == "appendix/ref.qmd"
    assert idx["tbl-appx-values"].title == "**More values**: the stay."
    assert label_word(idx["sec-appx-ref"], book.crossref) == "Appendix A"
    assert label_word(idx["tbl-appx-values"], book.crossref) == "Table A.2"
    zbook, zidx = index_of(root, "zh")
    assert label_word(zidx["eq-appx-little"], zbook.crossref) == "公式 A.1"
    assert label_word(zidx["sec-appx-queue"], zbook.crossref) == "节 A.1"


def test_chapters_numbered_appendices_lettered(tmp_path):
    files = {
        "_quarto.yml": "profile: {default: en}\n",
        "_quarto-en.yml": "book: {chapters: [index.qmd, one.qmd, two.qmd], appendices: [a.qmd, b.qmd]}\n",
        "index.qmd": "# Preface {.unnumbered}\n\n## About {#sec-about}\n\n$$x$$ {#eq-pre}\n",
        "one.qmd": "# One {#sec-one}\n\n## S {#sec-one-s}\n",
        "two.qmd": "# Two\n\n## S {#sec-two-s}\n\n### T {-}\n\n### U {#sec-two-u}\n",
        "a.qmd": "# A {#sec-a}\n",
        "b.qmd": "# B {#sec-b}\n\n# Second top-level heading\n\n## S {#sec-b-s}\n\n: cap {#tbl-b}\n",
    }
    for k, v in files.items():
        (tmp_path / k).write_text(v, encoding="utf-8")
    _, idx = index_of(tmp_path, "en")
    num = {k: v.number for k, v in idx.items()}
    assert num["sec-about"] == "" and num["eq-pre"] == "1"
    assert num["sec-one"] == "1" and num["sec-one-s"] == "1.1"
    assert num["sec-two-s"] == "2.1" and num["sec-two-u"] == "2.1.1"
    assert num["sec-a"] == "A" and num["sec-b"] == "B" and num["sec-b-s"] == "B.1"
    assert num["tbl-b"] == "B.1"


def test_find_references_and_citations():
    md = """# T {#sec-t}

See @sec-a, @Sec-b and [@tbl-c; @fig-d]. @Eq-e.
Mail me@example.org or see https://x.org/@sec-not.
Cite [@little1961; @gray1981transaction, p. 3] and @kwon2023.

```python
@sec-in-code
```
`@sec-inline-code` <!-- @sec-comment -->
"""
    assert find_references(md) == [("sec-a", 3, False), ("sec-b", 3, True), ("tbl-c", 3, False),
                                   ("fig-d", 3, False), ("eq-e", 3, True)]
    assert find_citations(md) == [("little1961", 5), ("gray1981transaction", 5), ("kwon2023", 5)]
