"""The book's figures: one description per figure, drawn by plotly (HTML) and by matplotlib (PDF).

- :mod:`.spec`: what a figure shows (:class:`FigureSpec`: axes, series, lines, bands, notes; labels in
  both languages);
- :mod:`.catalog`, :mod:`.lecture`, :mod:`.calibration`: each figure of the book, computed once from
  the physics functions;
- :mod:`.plotly_figure`: :func:`plotly_json` / :func:`to_plotly` (the HTML book's interactive figure);
- :mod:`.matplotlib_figure`: :func:`to_matplotlib`, saved as deterministic SVG by :func:`save_svg`;
- :mod:`.book`: :func:`book_figure` writes the static SVG for the book's language (``QUARTO_PROFILE``)
  and returns a :class:`BookFigure`, which displays as the plotly figure in HTML and the SVG elsewhere;
  within :func:`static_figures` ``(False)`` it describes the figure without writing the SVG.
"""
from .book import BookFigure, book_figure, static_figures
from .calibration import calibration_data, calibration_spec
from .catalog import (APPENDIX_FIGURES, KNEE_CA2, KNEE_CS2, KNEE_MARKS, REFERENCE_CONTEXT, REFERENCE_KV_BYTES,
                      REFERENCE_PRECISION, appendix_specs, batch_spec, kv_design_spec, prefill_spec, queueing_spec,
                      roofline_spec)
from .lecture import ROW_LABELS_ZH, overcommit_spec, policy_map_spec
from .matplotlib_figure import SVG_SALT, mpl_text, plain_text, save_svg, svg_bytes, to_matplotlib
from .plotly_figure import PLOTLY_CONFIG, plot_div, plotly_json, to_plotly
from .spec import DARK, LANGS, Axis, Band, FigureSpec, Note, Panel, RefLine, Series, T, book_lang

__all__ = ["FigureSpec", "Series", "Axis", "Panel", "RefLine", "Band", "Note", "T", "LANGS", "book_lang",
           "roofline_spec", "prefill_spec", "batch_spec", "kv_design_spec", "queueing_spec", "policy_map_spec",
           "overcommit_spec", "appendix_specs", "calibration_data", "calibration_spec", "to_plotly", "plotly_json",
           "to_matplotlib", "plot_div", "BookFigure", "book_figure", "static_figures", "svg_bytes", "save_svg",
           "APPENDIX_FIGURES", "DARK", "PLOTLY_CONFIG", "SVG_SALT", "mpl_text", "plain_text", "ROW_LABELS_ZH", "REFERENCE_PRECISION",
           "REFERENCE_KV_BYTES", "REFERENCE_CONTEXT", "KNEE_CA2", "KNEE_CS2", "KNEE_MARKS"]
