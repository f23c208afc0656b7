"""The AST filters that make a chapter ready for a writer, one concern per file, applied in order.

- :mod:`.headers`: chapter and section numbers on headings (top-down, before the rest);
- then one bottom-up walk that hands each element to its filter: :mod:`.citations` (cross-references
  become numbered links, citations are grouped for citeproc), :mod:`.equations` (numbered display
  equations), :mod:`.tables` and :mod:`.figures` (numbered captions, column widths, alt text),
  :mod:`.visibility` (``content-visible``/``content-hidden`` by format), :mod:`.callouts`,
  :mod:`.scriptless` (a scripted figure as its static SVG where no script runs: EPUB);
- :mod:`.cjk_spacing` (a Chinese book): no space beside a reference between two Chinese characters;
- :mod:`.references`: the bibliography's place at the end of a chapter that cites.

Numbers come from the book's one index (:mod:`bookbuild.numbering`); nothing here numbers anything.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ... import pandoc_ast as A
from ...errors import RenderError
from ...pandoc import Pandoc
from ...numbering import Index
from . import callouts, citations, cjk_spacing, equations, figures, headers, references, scriptless, tables, visibility


@dataclass
class Chapter:
    """One chapter as the renderer sees it."""
    index: int
    source: str
    page: str                 # output page, relative to the book folder
    appendix: bool
    ast: dict
    number: str | None = None
    title: str = ""
    label: str = ""
    headings: list = field(default_factory=list)   # (level, id, number, text, unlisted)
    cited: list = field(default_factory=list)      # bibliography keys it cites (set by the citations filter)


@dataclass
class Context:
    fmt: str                      # "html" | "typst" | "epub"
    lang: str
    prefixes: dict
    chapters: list[Chapter]
    index: Index
    bib_keys: set[str] | None     # None: do not check
    pandoc: Pandoc
    cite_args: tuple[str, ...] = ()   # pandoc's citeproc arguments (bibliography.citeproc_args)

    def chapter_of(self, source: str) -> Chapter:
        return next(c for c in self.chapters if c.source == source)


@dataclass
class Pass:
    """What the filters of one chapter share while they run."""
    ctx: Context
    ch: Chapter
    missing: list[str] = field(default_factory=list)
    cited: set[str] = field(default_factory=set)


def _visitor(p: Pass):
    def visit(el: dict) -> Any:
        t = el["t"]
        if t == "Cite":
            return citations.on_cite(p, el)
        if t in ("Para", "Plain"):
            return equations.on_para(p, el)
        if t == "Table":
            return tables.on_table(p, el)
        if t == "Figure":
            return figures.on_figure(p, el)
        if t == "RawBlock":
            return scriptless.on_raw_block(p, el)
        if t == "Div":
            for f in (visibility.on_div, callouts.on_div, figures.on_div, tables.on_div):
                out = f(p, el)
                if out is not None:
                    return out
        return None
    return visit


def transform(ctx: Context, ch: Chapter) -> dict:
    """A copy of the chapter's AST with numbers, resolved references, callouts and format-specific
    content applied, ready for pandoc's writer of ``ctx.fmt``."""
    ast = json.loads(json.dumps(ch.ast))
    p = Pass(ctx, ch)
    ast["blocks"] = headers.number_headers(p, ast["blocks"])
    ast["blocks"] = A.walk(ast["blocks"], _visitor(p))
    if ctx.lang.startswith("zh"):
        ast["blocks"] = cjk_spacing.apply(ast["blocks"])
    if p.missing:
        raise RenderError(ch.source, None, "unresolved: " + ", ".join(sorted(set(p.missing))))
    ast["blocks"] = references.append_references(p, ast["blocks"])
    ch.cited = sorted(p.cited)
    return ast
