"""A cell's outputs as Quarto writes them into the executed markdown.

Streams become ``.cell-output-stdout`` blocks (or plain text with ``output: asis``); displayed objects
use their ``_repr_html_`` (a raw HTML block, with the ``_repr_markdown_`` fallback for formats without
HTML), ``_repr_markdown_``, ``_repr_svg_`` or ``repr``; matplotlib figures are saved as deterministic
SVG. A ``fig-`` cell becomes a labelled figure with its caption and alt text, a ``tbl-`` cell a
labelled table (a printed pipe table gets pandoc's caption line, as Quarto writes it).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..source import Cell
from .cells import Outputs

FIG_SALT = "bookbuild"
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``."""
    n = 3
    while "`" * n in text:
        n += 1
    return "`" * n


def attr_quote(s: str) -> str:
    return '"' + " ".join(str(s).split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


def is_artist(value: Any) -> bool:
    """matplotlib return values (Line2D lists, Text, ...): the figure shows them."""
    items = value if isinstance(value, (list, tuple)) and value else [value]
    return all(type(v).__module__.startswith("matplotlib") and not hasattr(v, "savefig") for v in items)


def is_figure(obj: Any) -> bool:
    return type(obj).__module__.startswith("matplotlib") and hasattr(obj, "savefig")


@dataclass
class FigureSink:
    """Where a chapter's matplotlib figures are saved, and the files written."""
    fig_dir: Path
    md_dir: Path
    slug: str
    written: list[Path] = field(default_factory=list)

    def save(self, fig: Any, name: str) -> str:
        import matplotlib
        matplotlib.rcParams["svg.hashsalt"] = FIG_SALT
        self.fig_dir.mkdir(parents=True, exist_ok=True)
        path = self.fig_dir / f"{name}.svg"
        fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
        self.written.append(path)
        return os.path.relpath(path, self.md_dir).replace(os.sep, "/")


def display_block(obj: Any, asis: bool) -> str:
    """One displayed object as markdown (raises ValueError for a display that changes from run to run)."""
    h, m = _repr(obj, "_repr_html_"), _repr(obj, "_repr_markdown_")
    if h is not None:
        fence = fence_for(h)
        block = f"{fence}{{=html}}\n{h.rstrip()}\n{fence}"
        if m is not None:  # static fallback for formats without HTML (Quarto's choice per format)
            block += f"\n\n::: {{.content-hidden when-format=\"html\"}}\n{m.rstrip()}\n:::"
        return block
    if m is not None:
        return str(m).rstrip()
    s = _repr(obj, "_repr_svg_")
    if s is not None:
        fence = fence_for(s)
        return f"{fence}{{=html}}\n{s.rstrip()}\n{fence}"
    text = repr(obj)
    if ADDRESS.search(text):
        raise ValueError(f"the cell displays {text[:60]!r}, whose text holds a memory address "
                         "and changes from run to run: assign the value or end the line with ';'")
    if asis:
        return text
    fence = fence_for(text)
    return f"::: {{.cell-output .cell-output-display}}\n{fence}\n{text}\n{fence}\n:::"


def _repr(obj: Any, name: str) -> str | None:
    fn = getattr(obj, name, None)
    out = fn() if callable(fn) else None
    return out[0] if isinstance(out, tuple) else out


def output_blocks(outputs: Outputs, figs: list[Any], cell: Cell, sink: FigureSink, asis: bool) -> list[str]:
    """Every output of ``cell``, then the figure or table its label makes of them."""
    blocks: list[str] = []
    for kind, obj in outputs.items:
        if kind == "stream":
            text = obj.rstrip("\n")
            if text.strip():
                fence = fence_for(text)
                blocks.append(text if asis else
                              f"::: {{.cell-output .cell-output-stdout}}\n{fence}\n{text}\n{fence}\n:::")
        elif is_figure(obj):
            if obj not in figs:
                figs.append(obj)
        else:
            blocks.append(display_block(obj, asis))
    label = cell.label
    if label and label.startswith("fig-"):
        return figure_blocks(blocks, figs, cell, sink)
    caption = str(cell.options.get("fig-cap") or "")
    for k, fig in enumerate(figs, start=1):
        link = sink.save(fig, f"{sink.slug}-{label or 'cell'}-{k}")
        blocks.append(f"![{caption if len(figs) == 1 else ''}]({link})")
    if label and label.startswith("tbl-") and blocks:
        return table_blocks(blocks, cell, asis)
    return blocks


class OutputError(ValueError):
    """A cell's outputs do not make what its label promises."""


def figure_blocks(blocks: list[str], figs: list[Any], cell: Cell, sink: FigureSink) -> list[str]:
    """A ``fig-`` cell: one matplotlib figure as a labelled image, or a displayed figure (HTML plus its
    static fallback) in a labelled div that keeps the alt text."""
    label, caption, alt = cell.label, str(cell.options.get("fig-cap") or ""), cell.options.get("fig-alt")
    if len(figs) > 1:
        raise OutputError(f"cell labelled {label} left {len(figs)} figures open: "
                          "give each figure its own fig- cell (or close the extra ones)")
    if figs:
        link = sink.save(figs[0], f"{sink.slug}-{label}")
        attrs = f"#{label}" + (f" fig-alt={attr_quote(alt)}" if alt else "")
        return [f"![{caption}]({link}){{{attrs}}}"] + blocks
    if not blocks:
        raise OutputError(f"cell labelled {label} produced no figure")
    div = f"::: {{#{label}" + (f" fig-alt={attr_quote(alt)}" if alt else "") + "}"
    parts = [div, *blocks, caption, ":::"] if caption else [div, *blocks, ":::"]
    return ["\n\n".join(parts)]


def table_blocks(blocks: list[str], cell: Cell, asis: bool) -> list[str]:
    """A ``tbl-`` cell: a printed pipe table gets pandoc's caption line; anything else a labelled div."""
    label, cap, widths = cell.label, str(cell.options.get("tbl-cap") or ""), cell.options.get("tbl-colwidths")
    if asis and len(blocks) == 1 and blocks[0].lstrip().startswith("|"):
        attrs = f"#{label}" + (f' tbl-colwidths="{json.dumps(widths, separators=(",", ""))}"' if widths else "")
        return [blocks[0].rstrip() + f"\n\n: {cap} {{{attrs}}}"]
    return ["\n\n".join([f"::: {{#{label}}}", *blocks] + ([cap] if cap else []) + [":::"])]


def echo_block(cell: Cell, echo: Any) -> str:
    """The cell's code as Quarto echoes it (options left out; ``echo: fenced`` keeps the fence)."""
    shown = [ln for ln in cell.code if not ln.startswith("#|")]
    while shown and not shown[0].strip():
        shown.pop(0)
    code = "\n".join(shown)
    fence = fence_for(code)
    hdr = f"{fence}{{python}}" if echo == "fenced" else f"{fence} {{.python .cell-code}}"
    return f"{hdr}\n{code}\n{fence}"
