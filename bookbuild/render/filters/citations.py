"""Citations and cross-references: ``@sec-x`` becomes a link "Section A.1" (``@Sec-x`` capitalised,
``-@sec-x`` the number alone); bibliography citations are kept, grouped as citeproc reads them."""
from __future__ import annotations

from typing import Any

from ... import pandoc_ast as A
from ...errors import RenderError
from ...numbering import XREF_RE
from ..pages import relpath


def ref_text(ctx, label_as_written: str, t, mode: str) -> str:
    if t.number is None:
        raise RenderError(t.chapter, None, f"@{label_as_written} refers to an unnumbered {t.kind} "
                                           f"('{t.title}'); refer to it by name instead")
    if mode == "SuppressAuthor":
        return t.number
    word = ctx.prefixes["appendix" if t.appendix else "chapter"] if t.kind == "chapter" else ctx.prefixes[t.kind]
    if label_as_written[0].isupper():
        word = word[:1].upper() + word[1:]
    form = ctx.prefixes.get(f"form:{word}")   # the language's word order around the number, project.crossref_forms
    if form is not None:
        return form.replace(" ", "\u00a0").replace("{}", t.number)
    return f"{word}\u00a0{t.number}"


def href(ctx, here, t) -> str:
    if ctx.fmt != "html" or t.chapter == here.source:
        return "#" + t.label
    return relpath(ctx.chapter_of(t.chapter).page, here.page) + "#" + t.label


class _Group:
    """Citations waiting to be written as one ``[@a; @b]`` (or ``@a`` in text)."""

    def __init__(self, out: list):
        self.out, self.pending = out, []

    def flush(self) -> None:
        if not self.pending:
            return
        keys = [c["citationId"] for c in self.pending]
        if len(self.pending) == 1 and self.pending[0]["citationMode"]["t"] == "AuthorInText":
            text = "@" + keys[0]
        else:
            text = "[" + "; ".join("@" + k for k in keys) + "]"
        self.out.append({"t": "Cite", "c": [list(self.pending), [A.Str(text)]]})
        self.pending = []


def _xref(p, c: dict, out: list) -> None:
    cid = c["citationId"]
    t = p.ctx.index.targets.get(cid[0].lower() + cid[1:])
    if t is None:
        p.missing.append("@" + cid)
        out.append(A.Str("@" + cid))
        return
    if out:
        out.append(A.Space())
    if c["citationPrefix"]:
        out.extend(c["citationPrefix"] + [A.Space()])
    out.append(A.Link(A.attr("", ["quarto-xref"]), [A.Str(ref_text(p.ctx, cid, t, c["citationMode"]["t"]))],
                      href(p.ctx, p.ch, t)))
    if c["citationSuffix"]:
        out.extend(c["citationSuffix"])


def on_cite(p, el: dict) -> Any:
    out: list = []
    group = _Group(out)
    for c in el["c"][0]:
        cid = c["citationId"]
        if XREF_RE.match(cid):
            group.flush()
            _xref(p, c, out)
            continue
        p.cited.add(cid)
        if p.ctx.bib_keys is not None and cid not in p.ctx.bib_keys:
            p.missing.append("[@" + cid + "] (not in the bibliography)")
        if group.pending and c["citationMode"]["t"] == "AuthorInText":
            group.flush()
        if out and not group.pending:
            out.append(A.Space())
        group.pending.append(c)
    group.flush()
    return out
