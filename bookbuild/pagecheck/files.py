"""The file half of the reader's-eye check: every figure file and both PDFs, without a browser.

- an SVG figure (matplotlib, ``svg.fonttype = path``) must draw no placeholder glyph
  (:func:`bookbuild.render.glyphs.placeholder_glyphs`);
- a PDF must embed every font it uses, embed a CJK font where its text is Chinese (poppler's ``pdffonts``),
  and show no ``.notdef`` glyph (glyph 0 of a typst Identity-H font: a character no font had, drawn as a
  box), which :func:`bookbuild.render.glyphs.notdef_glyphs` finds in the page content streams.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from ..render.glyphs import UnreadablePdf, notdef_glyphs, placeholder_glyphs
from .problems import Problem

CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def check_files(book: Path) -> tuple[list[Problem], dict]:
    book = Path(book).resolve()
    problems: list[Problem] = []
    svgs = sorted(book.rglob("*.svg"))
    pdfs = sorted(book.rglob("*.pdf"))
    for svg in svgs:
        problems += check_svg(svg, book)
    for pdf in pdfs:
        problems += check_pdf(pdf, book)
    if not pdfs:
        problems.append(Problem(book.name, "holds no PDF"))
    return problems, {"svgs": len(svgs), "pdfs": len(pdfs)}


def check_svg(path: Path, book: Path | None = None) -> list[Problem]:
    where = _rel(path, book)
    data = path.read_bytes()
    out = [Problem(where, what) for what in placeholder_glyphs(data)]
    if b"<text" in data and path.name.endswith((".en.svg", ".zh.svg")):
        out.append(Problem(where, "keeps its text as <text> (its look then depends on the reader's fonts): "
                                  "draw it with svg.fonttype = path"))
    return out


def check_pdf(path: Path, book: Path | None = None) -> list[Problem]:
    where = _rel(path, book)
    data = path.read_bytes()
    out: list[Problem] = []
    fonts = pdf_fonts(path)
    if fonts is None:
        return [Problem(where, "cannot be checked: poppler's pdffonts is not installed (apt-get install poppler-utils)")]
    for f in fonts:
        if f["emb"] != "yes" and f["type"] != "Type 3":
            out.append(Problem(where, f"font {f['name']} is not embedded"))
    text = pdf_text(path)
    if text is not None and CJK_RE.search(text) and not any("CJK" in f["name"] for f in fonts):
        out.append(Problem(where, "has Chinese text but embeds no CJK font"))
    for m in re.finditer(r"^(?:图|表) [A-Z]?[0-9.]+ ?:.{0,20}", text or "", re.M):
        out.append(Problem(where, f"a Chinese caption mixes colon styles: “{m.group(0)}”"))
    try:
        n, context = notdef_glyphs(data)
    except UnreadablePdf as e:
        return out + [Problem(where, f"cannot be read as a PDF: {e}")]
    if n:
        out.append(Problem(where, f"draws {n} character(s) with the missing-glyph box (.notdef)"
                                  + (f", e.g. for “{context}”" if context else "")))
    return out


def pdf_fonts(path: Path) -> list[dict] | None:
    exe = shutil.which("pdffonts")
    if not exe:
        return None
    r = subprocess.run([exe, str(path)], capture_output=True, text=True)
    lines = r.stdout.splitlines()
    out = []
    # name, type (may hold spaces), encoding, emb, sub, uni, object, ID: parse from the right
    for ln in lines[2:]:
        parts = ln.split()
        if len(parts) < 7:
            continue
        name = parts[0]
        emb, sub, uni = parts[-5], parts[-4], parts[-3]
        ftype = " ".join(parts[1:-6])
        out.append({"name": name, "type": ftype, "emb": emb, "sub": sub, "uni": uni})
    return out


def pdf_text(path: Path) -> str | None:
    exe = shutil.which("pdftotext")
    if not exe:
        return None
    r = subprocess.run([exe, "-enc", "UTF-8", str(path), "-"], capture_output=True)
    return r.stdout.decode("utf-8", "replace")


def _rel(path: Path, book: Path | None) -> str:
    if book is not None:
        try:
            return Path(path).resolve().relative_to(Path(book).resolve()).as_posix()
        except ValueError:
            pass
    return str(path)
