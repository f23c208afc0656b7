"""Placeholder glyphs (a character drawn as a box): in a matplotlib SVG figure, and in a typst PDF's text.

For the PDF build (:mod:`.pdf` refuses either) and the reader's-eye check (``bookbuild.pagecheck``). The
figures' own drawing code applies the same SVG test to what it draws; tests/release/test_pages.py checks that the
two agree.
"""
from __future__ import annotations

import re
import zlib
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
