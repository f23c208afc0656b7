"""bookbuild.render.glyphs on PDFs: missing-glyph boxes and fonts, read through a PDF library (pikepdf)."""
from __future__ import annotations

from pathlib import Path

import pikepdf
import pytest

from bookbuild.render.glyphs import UnreadablePdf, font_names, notdef_glyphs


def typst_pdf(tmp_path: Path, text: str) -> bytes:
    """``text`` set in Libertinus Serif only: a Latin font, so each CJK character is a missing-glyph box."""
    import typst
    src = tmp_path / "t.typ"
    src.write_text(f'#set text(font: ("Libertinus Serif",))\n{text}\n', encoding="utf-8")
    return typst.compile(str(src), font_paths=[], ignore_system_fonts=True)


def test_each_character_no_font_has_is_one_box_and_latin_text_none(tmp_path):
    n, near = notdef_glyphs(typst_pdf(tmp_path, "Hello 中文 world"))
    assert n == 2                        # 中 and 文: two characters, two boxes
    assert near in {"中", "文"}           # the text typst records for a box's span
    assert notdef_glyphs(typst_pdf(tmp_path, "Hello world")) == (0, "")
    assert any("LibertinusSerif" in name for name in font_names(typst_pdf(tmp_path, "Hello")))


def test_a_box_inside_a_form_the_page_draws_is_counted(tmp_path):
    """Content drawn through a form XObject (as a converted figure is) is read too, not only the page's."""
    src = tmp_path / "page.pdf"
    src.write_bytes(typst_pdf(tmp_path, "Hello 中文 world"))
    pdf = pikepdf.open(src)
    page = pdf.pages[0]
    form = pikepdf.Stream(pdf, page.obj.Contents.read_bytes() if isinstance(page.obj.Contents, pikepdf.Stream)
                          else b"\n".join(c.read_bytes() for c in page.obj.Contents))
    form.Type, form.Subtype, form.BBox = pikepdf.Name.XObject, pikepdf.Name.Form, page.mediabox
    form.Resources = page.obj.Resources
    page.obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Fm0=form), Font=page.obj.Resources.Font)
    page.obj.Contents = pikepdf.Stream(pdf, b"/Fm0 Do")
    out = tmp_path / "form.pdf"
    pdf.save(out)
    with pikepdf.open(out) as saved:
        assert saved.pages[0].obj.Contents.read_bytes() == b"/Fm0 Do"   # the page itself shows no text
    assert notdef_glyphs(out.read_bytes())[0] == 2


def test_bytes_that_are_no_pdf_are_said_so(tmp_path):
    from bookbuild.pagecheck.files import check_pdf
    with pytest.raises(UnreadablePdf):
        notdef_glyphs(b"%PDF-1.7\n")
    bad = tmp_path / "book.pdf"
    bad.write_bytes(b"%PDF-1.7\nnot a pdf at all\n")
    assert any("cannot be read as a PDF" in p.what for p in check_pdf(bad, tmp_path))
