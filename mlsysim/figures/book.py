"""A figure as the book displays it: :func:`book_figure` writes the static SVG for the book's language
and returns a :class:`BookFigure`, which displays through ``_repr_markdown_`` alone: a raw HTML block
with the plotly figure (a ``<div class="mlsysim-plot">`` holding its JSON, drawn by the book's own
``plotly.js``) and the static SVG for formats without HTML."""
from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from .. import diskcache
from .matplotlib_figure import font_identity, placeholder_glyphs, save_svg, to_matplotlib
from .plotly_figure import plot_div, plotly_json
from .spec import FigureSpec, book_lang


def html_block(html: str) -> str:
    """``html`` as a raw HTML block of Pandoc markdown (the fence longer than any run of backticks in it)."""
    n = 3
    while "`" * n in html:
        n += 1
    return f"{'`' * n}{{=html}}\n{html.rstrip()}\n{'`' * n}"


class BookFigure:
    """One figure in one language, as the book displays it: ONE display (one output of its cell) under
    every renderer, so Quarto and bookbuild number and caption it alike.

    ``_repr_markdown_`` only: a raw HTML block holding the interactive figure (a ``div.mlsysim-plot`` with
    its plotly JSON, drawn by the book's own ``figures.js`` and vendored plotly.js), then the static SVG
    written by :func:`book_figure` for formats without HTML. No ``text/html`` output: Quarto would take
    one for a JavaScript widget and load require.js and jQuery from a CDN; and never plotly's notebook
    output, whose separate loader Quarto shows as a second sub-figure and which loads plotly.js from a CDN."""

    def __init__(self, spec: FigureSpec, lang: str, svg_link: str):
        self.spec, self.lang, self.svg_link = spec, lang, svg_link

    @property
    def data(self) -> dict:
        return self.spec.data

    def _repr_markdown_(self) -> str:
        return html_block(plot_div(self.spec, self.lang, static=self.svg_link)) + (
            '\n\n::: {.content-hidden when-format="html"}\n' f"![]({self.svg_link})\n:::")

    def __repr__(self) -> str:
        return f"<mlsysim figure {self.spec.key} ({self.lang})>"


#: whether :func:`book_figure` writes the static SVG (see :func:`static_figures`)
_STATIC: ContextVar[bool] = ContextVar("mlsysim_static_figures", default=True)


@contextmanager
def static_figures(draw: bool):
    """Within the block, :func:`book_figure` writes its static SVG (``draw``, the default) or not: a run
    that reads only a chapter's numbers or its figures' descriptions (``bookbuild diff``; the reader's
    choices and live mode, which send plotly JSON) gets the same :class:`BookFigure`, the same markdown
    and the same link, without matplotlib drawing a file nobody opens."""
    token = _STATIC.set(bool(draw))
    try:
        yield
    finally:
        _STATIC.reset(token)


def book_figure(spec: FigureSpec, out_dir="figures", *, lang: str | None = None) -> BookFigure:
    """Write ``out_dir/<key>.<lang>.svg`` (the static figure) and return the displayable :class:`BookFigure`.
    ``lang`` defaults to the book's language (:func:`book_lang`). ``out_dir`` is relative to the chapter.
    Under ``static_figures(False)`` the file is not written (the figure displays the same)."""
    lang = lang or book_lang()
    path = Path(out_dir) / f"{spec.key}.{lang}.svg"
    if not _STATIC.get():
        return BookFigure(spec, lang, path.as_posix())
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
                diskcache.put("figures", cached, path.read_bytes())
        _DRAWN[str(path.resolve())] = key
    return BookFigure(spec, lang, path.as_posix())


def _figure_cache(fingerprint: str, lang: str) -> str | None:
    """The key the SVG of this exact figure is kept under between builds (in the store the host hands
    :mod:`mlsysim.diskcache`; None without one): the figure's full description, its language, the mlsysim
    package's code, matplotlib's version and the font files its labels resolve to (:func:`font_identity`), so a
    kept drawing is always the drawing this code would make with these fonts: a font installed, removed or
    changed draws again."""
    if not diskcache.keeping():
        return None
    return diskcache.key("figure", fingerprint, lang, font_identity(lang))


def _read_clean(cached: str | None) -> bytes | None:
    """A kept drawing, unless it is missing or carries a placeholder glyph (then it is drawn again)."""
    data = diskcache.get("figures", cached) if cached is not None else None
    return None if data is None or placeholder_glyphs(data) else data



def _spec_fingerprint(spec: FigureSpec, lang: str) -> str:
    return json.dumps(plotly_json(spec, lang), sort_keys=True, allow_nan=False)


_DRAWN: dict = {}

