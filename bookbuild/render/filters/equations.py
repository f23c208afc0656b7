"""Numbered display equations: ``$$…$$ {#eq-x}`` gets its number "(A.3)" (a span in HTML, typst's own
numbering pinned to the book's number in the PDF)."""
from __future__ import annotations

from typing import Any

from ... import pandoc_ast as A
from ...numbering import labelled_equations


def on_para(p, el: dict) -> Any:
    inl = el["c"]
    eqs = labelled_equations(inl)
    if not eqs:
        return None
    out, pos = [], 0
    for i_math, j_label, label in eqs:
        out.extend(inl[pos:i_math])
        math = inl[i_math]
        num = p.ctx.index.targets[label].number
        if p.ctx.fmt == "typst":
            out.append(A.RawInline("typst", f'#math.equation(block: true, numbering: _ => "({num})", '))
            out.append({"t": "Math", "c": [{"t": "InlineMath"}, math["c"][1]]})
            out.append(A.RawInline("typst", f") <{label}>"))
        else:
            out.append(A.Span(A.attr(label, ["quarto-eq"]), [
                A.Span(A.attr("", ["eq-body"]), [math]),
                A.Span(A.attr("", ["eq-number"]), [A.Str(f"({num})")])]))
        pos = j_label + 1
    out.extend(inl[pos:])
    return {"t": el["t"], "c": out}
