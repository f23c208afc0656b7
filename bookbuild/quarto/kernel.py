"""An IPython extension for Quarto's Jupyter kernel: inline values marked as the book's own build marks them.

Quarto evaluates an inline ```{python} ServingRef.ratio_str``` as a Jupyter *user expression* and inserts
the result's ``text/markdown`` when there is one. This extension wraps the shell's ``user_expressions``:
for an attribute read whose value is a string, the markdown becomes the book's value span
(:func:`bookbuild.book.hooks.value_span`), exactly what bookbuild's executor writes, so the same reader
scripts work on Quarto's pages. Anything else passes through unchanged.
"""
from __future__ import annotations

from ..book.hooks import ATTR_EXPR, value_span


def mark(expressions: dict, results: dict, namespace: dict) -> dict:
    """``results`` (IPython's user_expressions reply) with every attribute read's string marked."""
    for key, expr in expressions.items():
        e, r = expr.strip(), results.get(key)
        if not r or r.get("status") != "ok" or not ATTR_EXPR.match(e):
            continue
        try:
            value = eval(e, namespace)  # noqa: S307 - the expression Quarto just evaluated, an attribute read
        except Exception:  # noqa: BLE001 - leave IPython's own result
            continue
        if isinstance(value, str):
            text = str.__str__(value)
            r["data"] = {"text/markdown": value_span(e, text), "text/plain": repr(text)}
    return results


def load_ipython_extension(ip) -> None:
    original = ip.user_expressions

    def user_expressions(expressions):
        return mark(expressions, original(expressions), ip.user_ns)

    ip.user_expressions = user_expressions
