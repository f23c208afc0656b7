"""Placeholder glyphs (a character drawn as a box): in a matplotlib SVG figure, and in a typst PDF's text.

For the PDF build (:mod:`.pdf` refuses either) and the reader's-eye check (``bookbuild.pagecheck``). The
figures' own drawing code applies the same SVG test to what it draws; tests/release/test_pages.py checks that the
two agree.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

_GLYPH_DEF = re.compile(rb'<path id="([^"]+)-([0-9a-f]+)"')
_TEXT_GROUP = re.compile(rb'<g id="(text_\d+)">\s*<!-- (.*?) -->(.*?)(?=<g id="text_\d+">|</svg>)', re.S)
_USE = re.compile(rb'xlink:href="#([^"]+)-([0-9a-f]+)"')
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")


def placeholder_glyphs(svg: bytes | str) -> list[str]:
    """Placeholder glyphs in a matplotlib SVG drawn with ``svg.fonttype = path`` (glyphs as ``<path
    id="<font>-<glyph index>">``): glyphs of matplotlib's last-resort font (its tofu boxes), glyph 0 of any
    font (``.notdef``), and labels whose CJK characters are fewer than the CJK-font glyphs drawing them
    (mathtext's dummy symbol). Returns one sentence per problem, naming the label."""
    data = svg.encode("utf-8") if isinstance(svg, str) else svg
    out = []
    bad_fonts = set()
    for ps, gid in _GLYPH_DEF.findall(data):
        name = ps.decode("utf-8", "replace")
        if name.lower().startswith("lastresort") or int(gid, 16) == 0:
            bad_fonts.add((name, int(gid, 16)))
    for gid_, comment, body in _TEXT_GROUP.findall(data):
        text = comment.decode("utf-8", "replace")
        uses = _USE.findall(body)
        boxes = [u for u in uses if (u[0].decode("utf-8", "replace"), int(u[1], 16)) in bad_fonts]
        cjk_needed = len(_CJK.findall(text))
        cjk_drawn = sum(1 for ps, _ in uses if b"CJK" in ps)
        if boxes:
            out.append(f"label “{text}” is drawn with {len(boxes)} placeholder glyph(s) "
                       f"({boxes[0][0].decode('utf-8', 'replace')})")
        elif cjk_needed > cjk_drawn:
            out.append(f"label “{text}” has {cjk_needed} CJK characters but only {cjk_drawn} CJK-font glyphs")
    if bad_fonts and not out:
        out.append("placeholder glyphs: " + ", ".join(f"{n}-{g:x}" for n, g in sorted(bad_fonts)[:3]))
    return out


def svg_placeholders(path: Path) -> list[str]:
    """One sentence per label of a matplotlib SVG drawn with a placeholder glyph; empty when every glyph is real."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return []
    return [f"{Path(path).name}: {s}" for s in placeholder_glyphs(data)]


class UnreadablePdf(ValueError):
    """The bytes are not a PDF qpdf can read (its message says why)."""


def _open(pdf: bytes):
    import pikepdf
    try:
        return pikepdf.open(io.BytesIO(pdf))
    except pikepdf.PdfError as e:
        raise UnreadablePdf(" ".join(str(e).split()).replace("stream <_io.BytesIO object at ", "<")) from None


def _contents(doc):
    """Each page and each form it draws (a figure typst converted, say), with the resources its text reads."""
    import pikepdf
    seen = set()
    todo = [(page.obj, page.obj.get("/Resources")) for page in doc.pages]
    while todo:
        obj, res = todo.pop()
        if obj.objgen != (0, 0) and obj.objgen in seen:   # (0, 0): a direct object, never shared
            continue
        seen.add(obj.objgen)
        yield obj, res
        forms = res.get("/XObject", {}) if res is not None else {}
        for xobj in forms.values():
            if isinstance(xobj, pikepdf.Stream) and xobj.get("/Subtype") == pikepdf.Name.Form:
                todo.append((xobj, xobj.get("/Resources", res)))


def _two_byte(res, font_name) -> bool:
    """The font the text is shown in has two-byte glyph codes (a Type0 font, as typst writes every font:
    Identity-H, a code per glyph index, 0 for ``.notdef``)."""
    try:
        return str(res["/Font"][font_name].get("/Subtype")) == "/Type0"
    except (KeyError, TypeError, AttributeError):
        return False


def notdef_glyphs(pdf: bytes) -> tuple[int, str]:
    """How many glyph codes 0 (``.notdef``, a character no font had) the PDF's text shows in a two-byte
    font, and the text (``/ActualText``) of the span nearest the first one. The PDF is read by pikepdf
    (qpdf): every page's content and the forms it draws, parsed into operators."""
    import pikepdf
    count, context, want_next = 0, "", False
    with _open(pdf) as doc:
        for obj, res in _contents(doc):
            font, last = None, ""
            for operands, op in pikepdf.parse_content_stream(obj):
                name = str(op)
                if name == "Tf" and operands:
                    font = operands[0]
                elif name in ("BDC", "BMC") and len(operands) > 1 and isinstance(operands[1], pikepdf.Dictionary):
                    last = str(operands[1].get("/ActualText", "")) or last
                    if want_next and last:
                        context, want_next = last, False
                elif name in ("Tj", "TJ", "'", '"') and font is not None and _two_byte(res, font):
                    shown = operands[-1]
                    pieces = shown if isinstance(shown, pikepdf.Array) else [shown]
                    zeros = 0
                    for piece in pieces:
                        if isinstance(piece, pikepdf.String):
                            codes = bytes(piece)
                            zeros += sum(1 for i in range(0, len(codes) - 1, 2) if codes[i:i + 2] == b"\0\0")
                    if zeros:
                        count += zeros
                        if not context and not want_next:
                            context, want_next = (last, False) if last else ("", True)
    return count, context


def font_names(pdf: bytes) -> set[str]:
    """The base names of the fonts the PDF's pages and forms use (``/ABCDEF+NotoSansCJKsc-Regular``)."""
    out = set()
    with _open(pdf) as doc:
        for _, res in _contents(doc):
            for font in (res.get("/Font", {}) if res is not None else {}).values():
                out.add(str(font.get("/BaseFont", "")).lstrip("/"))
                for d in font.get("/DescendantFonts", []):
                    out.add(str(d.get("/BaseFont", "")).lstrip("/"))
    out.discard("")
    return out
