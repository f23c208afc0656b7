"""bookbuild.numbering: one cross-reference index for a book, numbered as Quarto numbers it, over the
chapters' pandoc ASTs; what a chapter refers to and cites, read from its AST."""
import shutil
import sys
from pathlib import Path

from bookbuild.execute import execute_chapter
from bookbuild.numbering import citations, number_book, references
from bookbuild.project import load_book
from bookbuild.render.filters.citations import ref_text
from bookbuild.render.pandoc import Pandoc
from bookbuild.render.profile import prefixes_for

FIX = Path(__file__).parent / "fixtures" / "book"
PANDOC = Pandoc()


def index_of(root, profile):
    book = load_book(root, profile)
    chapters = []
    for c in book.chapters:
        ec = execute_chapter(root / c.path, root, root / "_build" / "fig", execute_options=book.execute_options)
        chapters.append((c.path.as_posix(), c.appendix, PANDOC.md_to_ast(ec.markdown)))
    return book, number_book(chapters)


class _Ctx:
    def __init__(self, book):
        self.prefixes = prefixes_for(book.lang, book.crossref)


def word(book, target, written=None):
    return ref_text(_Ctx(book), written or target.label, target, "NormalCitation").replace("\u00a0", " ")


def test_appendix_numbering_like_quarto(tmp_path):
    sys.modules.pop("stubsim", None)
    root = tmp_path / "b"
    shutil.copytree(FIX, root)
    book, idx = index_of(root, "en")
    got = {k: (v.kind, v.number) for k, v in idx.targets.items() if k.split("-")[0] in ("sec", "tbl", "eq", "fig")}
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
    t = idx.targets
    assert t["sec-appx-ref"].appendix and t["sec-appx-ref"].chapter == "appendix/ref.qmd"
    assert word(book, t["sec-appx-ref"]) == "Appendix A"
    assert word(book, t["tbl-appx-values"]) == "Table A.2"
    assert word(book, t["sec-appx-queue"], "Sec-appx-queue") == "Section A.1"
    zbook, zidx = index_of(root, "zh")
    assert word(zbook, zidx.targets["eq-appx-little"]) == "公式 A.1"
    assert word(zbook, zidx.targets["sec-appx-queue"]) == "节 A.1"


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
    import pytest
    from bookbuild.errors import XrefError
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
