"""Placeholder glyphs in the book's figure files, for the build (bookbuild/render/pdf.py) and the check.

The same test as :func:`mlsysim.figures.matplotlib_figure.placeholder_glyphs` (which the drawing applies
to its own output), kept here without importing mlsysim so the renderer stays free of it;
tests/test_pages.py checks that the two agree.
"""
from __future__ import annotations

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
