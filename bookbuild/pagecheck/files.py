"""The file half of the reader's-eye check: every figure file and both PDFs, without a browser.

- an SVG figure (matplotlib, ``svg.fonttype = path``) must draw no placeholder glyph
  (:func:`.glyphs.placeholder_glyphs`);
- a PDF must embed every font it uses, embed a CJK font where its text is Chinese (poppler's ``pdffonts``),
  and show no ``.notdef`` glyph (glyph 0 of a typst Identity-H font: a character no font had, drawn as a
  box), which :func:`notdef_glyphs` finds in the page content streams.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import zlib
from pathlib import Path

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
    from .glyphs import placeholder_glyphs
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
    n, context = notdef_glyphs(data)
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


_STREAM = re.compile(rb"stream\r?\n")
_SHOW = re.compile(rb"(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>|\[(?:\\.|[^\]\\])*\])\s*(Tj|TJ|'|\")")
_PIECE = re.compile(rb"\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>")
_ACTUAL = re.compile(rb"/ActualText\s*<FEFF([0-9A-Fa-f]*)>")
_ESC = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f", b"(": b"(", b")": b")", b"\\": b"\\"}


def _literal(s: bytes) -> bytes:
    """A PDF literal string's bytes (the parentheses removed, escapes decoded)."""
    body, out, i = s[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i:i + 1]
        if c != b"\\":
            out += c
            i += 1
            continue
        nxt = body[i + 1:i + 2]
        if nxt in _ESC:
            out += _ESC[nxt]
            i += 2
        elif nxt.isdigit():
            m = re.match(rb"[0-7]{1,3}", body[i + 1:i + 4])
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        elif nxt in (b"\n", b"\r"):
            i += 2
        else:
            out += nxt
            i += 2
    return bytes(out)


def _codes(piece: bytes) -> bytes:
    if piece.startswith(b"("):
        return _literal(piece)
    hexs = re.sub(rb"\s", b"", piece[1:-1])
    if len(hexs) % 2:
        hexs += b"0"
    return bytes.fromhex(hexs.decode())


def notdef_glyphs(pdf: bytes) -> tuple[int, str]:
    """How many two-byte glyph codes 0 (``.notdef``) the PDF's text shows, and the ActualText nearest the
    first one (typst writes every font as Identity-H, a glyph code per two bytes, and code 0 for a
    character no font had). Streams that do not inflate (images, fonts) are skipped."""
    count, context = 0, ""
    for m in _STREAM.finditer(pdf):
        start = m.end()
        end = pdf.find(b"endstream", start)
        if end < 0:
            break
        raw = pdf[start:end]
        try:
            dec = zlib.decompress(raw)
        except zlib.error:
            try:
                dec = zlib.decompressobj().decompress(raw)
            except zlib.error:
                continue
        if b"BT" not in dec or (b"Tj" not in dec and b"TJ" not in dec):
            continue
        for show in _SHOW.finditer(dec):
            for piece in _PIECE.findall(show.group(1)):
                codes = _codes(piece)
                zeros = sum(1 for i in range(0, len(codes) - 1, 2) if codes[i] == 0 and codes[i + 1] == 0)
                if zeros:
                    count += zeros
                    if not context:
                        near = _ACTUAL.search(dec, max(0, show.start() - 400), show.end() + 400)
                        if near:
                            try:
                                context = bytes.fromhex(near.group(1).decode()).decode("utf-16-be")
                            except ValueError:
                                context = ""
    return count, context


def _rel(path: Path, book: Path | None) -> str:
    if book is not None:
        try:
            return Path(path).resolve().relative_to(Path(book).resolve()).as_posix()
        except ValueError:
            pass
    return str(path)
