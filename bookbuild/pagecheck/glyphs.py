"""Placeholder glyphs in the book's figure files, for the build (bookbuild/render/pdf.py) and the check."""
from __future__ import annotations

from pathlib import Path


def svg_placeholders(path: Path) -> list[str]:
    """One sentence per label of a matplotlib SVG drawn with a placeholder glyph (see
    :func:`mlsysim.figures.matplotlib_figure.placeholder_glyphs`); empty when every glyph is real."""
    from mlsysim.figures.matplotlib_figure import placeholder_glyphs
    try:
        data = Path(path).read_bytes()
    except OSError:
        return []
    return [f"{Path(path).name}: {s}" for s in placeholder_glyphs(data)]
