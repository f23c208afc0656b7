"""The renderer fails loudly, with one line naming the problem, instead of printing '??'."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bookbuild.errors import XrefError
from bookbuild.numbering import number_book
from bookbuild.render import pdf as pdfmod
from bookbuild.errors import RenderError
from bookbuild.pandoc import Pandoc
from bookbuild.render.profile import render_profile

BIB = """@article{williams2009,
  author = {Williams, Samuel}, title = {Roofline}, journal = {CACM}, year = {2009}
}
"""


def make_book(root: Path, chapters: dict[str, str], *, lang: str = "en", appendix: tuple[str, ...] = ()) -> Path:
    """An executed book as the build's passes write it (its index numbered over the chapters' ASTs)."""
    ex = root / "_build" / "executed" / "en"
    ex.mkdir(parents=True)
    (root / "references.bib").write_text(BIB, encoding="utf-8")
    entries = []
    for name, text in chapters.items():
        (ex / name).parent.mkdir(parents=True, exist_ok=True)
        (ex / name).write_text(text, encoding="utf-8")
        entries.append({"source": name.replace(".md", ".qmd"), "executed": name,
                        "appendix": name in appendix, "title": name})
    pandoc = Pandoc()
    index = number_book([(e["source"], e["appendix"], pandoc.md_to_ast(chapters[e["executed"]])) for e in entries])
    book = {"profile": "en", "lang": lang, "title": "T", "chapters": entries,
            "bibliography": "references.bib", "index": index.to_json()}
    (ex / "book.json").write_text(json.dumps(book), encoding="utf-8")
    return root


def render_html(root: Path) -> list[Path]:
    return render_profile(root, "en", root / "_build" / "executed", root / "_book",
                          formats=("html",))


def test_unresolved_reference_fails(tmp_path):
    make_book(tmp_path, {"a.md": "# A {#sec-a}\n\nSee @sec-nowhere and @tbl-none.\n"})
    with pytest.raises(RenderError, match=r"a\.qmd.*unresolved: @sec-nowhere, @tbl-none"):
        render_html(tmp_path)


def test_duplicate_label_fails(tmp_path):
    with pytest.raises(XrefError, match="sec-x is defined twice"):
        make_book(tmp_path, {"a.md": "# A {#sec-a}\n\n## X {#sec-x}\n",
                             "b.md": "# B {#sec-b}\n\n## X {#sec-x}\n"})


def test_missing_citation_fails(tmp_path):
    make_book(tmp_path, {"a.md": "# A {#sec-a}\n\nAs shown [@nobody2020].\n"})
    with pytest.raises(RenderError, match="nobody2020.*not in the bibliography"):
        render_html(tmp_path)


def test_reference_to_unnumbered_section_fails(tmp_path):
    make_book(tmp_path, {"a.md": "# A {#sec-a}\n\n## Intro {#sec-intro .unnumbered}\n\n@sec-intro\n"})
    with pytest.raises(RenderError, match="unnumbered"):
        render_html(tmp_path)


def test_the_renderer_takes_the_numbers_of_the_index(tmp_path):
    """One numbering: the renderer prints what the stored index says (here altered by hand), it does not renumber."""
    make_book(tmp_path, {"a.md": "# A {#sec-a}\n\n## X {#sec-x}\n\nSee @sec-x.\n"})
    f = tmp_path / "_build" / "executed" / "en" / "book.json"
    book = json.loads(f.read_text(encoding="utf-8"))
    book["index"]["targets"]["sec-x"]["number"] = "1.7"
    f.write_text(json.dumps(book), encoding="utf-8")
    render_html(tmp_path)
    assert ">Section\u00a01.7</a>" in (tmp_path / "_book" / "en" / "a.html").read_text(encoding="utf-8")


def test_remote_image_fails(tmp_path):
    make_book(tmp_path, {"a.md": "# A {#sec-a}\n\n![x](https://example.org/x.png)\n"})
    with pytest.raises(RenderError, match="not a local file"):
        render_html(tmp_path)


def test_numbering_across_chapters_and_appendices(tmp_path):
    make_book(tmp_path, {
        "pre.md": "# Preface {.unnumbered}\n\n@Sec-b and @sec-c and @eq-e.\n",
        "b.md": "# Bee {#sec-b}\n\n## One\n\n## Two {#sec-two}\n\n$$x$$ {#eq-e}\n",
        "c.md": "# Cee {#sec-c}\n\n## Only {#sec-only}\n\n[-@sec-two]\n",
    }, appendix=("c.md",))
    render_html(tmp_path)
    pre = (tmp_path / "_book" / "en" / "pre.html").read_text(encoding="utf-8")
    assert re.search(r'href="b.html#sec-b"[^>]*>Chapter\u00a01</a>', pre)
    assert re.search(r'href="c.html#sec-c"[^>]*>Appendix\u00a0A</a>', pre)
    assert re.search(r'href="b.html#eq-e"[^>]*>Equation\u00a01.1</a>', pre)
    c = (tmp_path / "_book" / "en" / "c.html").read_text(encoding="utf-8")
    assert re.search(r'href="b.html#sec-two"[^>]*>1.2</a>', c)
    assert "A.1" in c and "Appendix A —" in c
    # no index chapter: index.html redirects to the first chapter
    idx = (tmp_path / "_book" / "en" / "index.html").read_text(encoding="utf-8")
    assert 'url=pre.html' in idx


def test_missing_cjk_font_is_one_clear_line(monkeypatch):
    monkeypatch.setattr(pdfmod, "CJK_DIRS", ("/nonexistent/fonts",))
    with pytest.raises(RenderError) as e:
        pdfmod.require_cjk_font_dir(None)
    msg = str(e.value)
    assert "\n" not in msg and "apt-get install -y fonts-noto-cjk" in msg
