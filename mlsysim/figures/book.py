"""A figure as the book displays it: :func:`book_figure` writes the static SVG for the book's language
and returns a :class:`BookFigure`, which displays through the standard IPython repr methods only:
``_repr_html_`` (the plotly figure as a ``<div class="mlsysim-plot">`` holding its JSON, drawn by the
book's own ``plotly.js``) and ``_repr_markdown_`` (the static SVG, which formats without HTML use)."""
from __future__ import annotations

import json
from pathlib import Path

from .. import diskcache
from .matplotlib_figure import font_identity, placeholder_glyphs, save_svg, to_matplotlib
from .plotly_figure import PLOTLY_CONFIG, plot_div, plotly_json
from .spec import FigureSpec, book_lang


class BookFigure:
    """One figure in one language, as the book displays it.

    ``_repr_html_``: the interactive plotly figure (under Quarto's Jupyter setup, which sets plotly's
    renderer to ``notebook``/``notebook_connected``, plotly's own notebook output instead).
    ``_repr_markdown_``: the static SVG written by :func:`book_figure` (formats without HTML)."""

    def __init__(self, spec: FigureSpec, lang: str, svg_link: str):
        self.spec, self.lang, self.svg_link = spec, lang, svg_link

    @property
    def data(self) -> dict:
        return self.spec.data

    def _repr_html_(self) -> str:
        try:
            import plotly.io as pio
            quarto = str(pio.renderers.default) in ("notebook", "notebook_connected")
        except Exception:  # noqa: BLE001 - no plotly: the book's own div
            quarto = False
        if quarto:
            bundle = pio.renderers._build_mime_bundle(plotly_json(self.spec, self.lang), pio.renderers.default,
                                                      config=PLOTLY_CONFIG)
            return bundle.get("text/html", "")
        return plot_div(self.spec, self.lang, static=self.svg_link)

    def _repr_markdown_(self) -> str:
        return f"![]({self.svg_link})"

    def __repr__(self) -> str:
        return f"<mlsysim figure {self.spec.key} ({self.lang})>"


def book_figure(spec: FigureSpec, out_dir="figures", *, lang: str | None = None) -> BookFigure:
    """Write ``out_dir/<key>.<lang>.svg`` (the static figure) and return the displayable :class:`BookFigure`.
    ``lang`` defaults to the book's language (:func:`book_lang`). ``out_dir`` is relative to the chapter."""
    lang = lang or book_lang()
    path = Path(out_dir) / f"{spec.key}.{lang}.svg"
    key = (str(path.resolve()), _spec_fingerprint(spec, lang))
    if _DRAWN.get(str(path.resolve())) != key or not path.exists():
        cached = _figure_cache(key[1], lang)
        data = _read_clean(cached)
        if data is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)
        else:
            save_svg(to_matplotlib(spec, lang), path)
            if cached is not None:
                diskcache.store(cached, path.read_bytes())
        _DRAWN[str(path.resolve())] = key
    return BookFigure(spec, lang, path.as_posix())


def _figure_cache(fingerprint: str, lang: str) -> Path | None:
    """Where the SVG of this exact figure is kept between builds (``MLSYSIM_CACHE``, which bookbuild
    sets): keyed by the figure's full description, its language, the mlsysim package's code, matplotlib's
    version and the font files its labels resolve to (:func:`font_identity`), so a cached drawing is always
    the drawing this code would make with these fonts: a font installed, removed or changed draws again."""
    folder = diskcache.folder("figures")
    if folder is None:
        return None
    return folder / f"{diskcache.key('figure', fingerprint, lang, font_identity(lang))}.svg"


def _read_clean(cached: Path | None) -> bytes | None:
    """A cached drawing, unless it is missing or carries a placeholder glyph (then it is drawn again)."""
    if cached is None or not cached.is_file():
        return None
    data = cached.read_bytes()
    return None if placeholder_glyphs(data) else data



def _spec_fingerprint(spec: FigureSpec, lang: str) -> str:
    return json.dumps(plotly_json(spec, lang), sort_keys=True, allow_nan=False)


_DRAWN: dict = {}

