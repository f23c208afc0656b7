"""Book-wide numbering and cross-reference resolution, as a pass over pandoc's JSON AST.

Why a Python pass and not a Lua filter: numbering a *book* needs every chapter at
once (a reference in chapter 1 to "Table A.2" depends on the appendix), the numbers
must agree with the manifest the executor wrote (``book.json``'s ``xref``), and the
same numbers feed four outputs (HTML pages, the search index, the sidebar/TOC, the
typst PDF).  One Python pass computes them once, checks them against the manifest,
and is unit-testable without spawning pandoc per filter.

Numbering follows what Quarto does for a book:

* chapter headings: ``1 Title``; appendices ``Appendix A — Title``;
  ``{.unnumbered}`` chapters get no number and neither do their sections;
* sections ``1.2``, ``A.1.3``; ``{.unnumbered}`` headings are skipped;
* tables ``Table A.1: caption`` (only labelled ``#tbl-`` tables), figures
  ``Figure A.1: caption`` (``#fig-``), equations ``(A.1)`` (``$$…$$ {#eq-…}``);
* ``@sec-x``/``@tbl-x``/``@eq-x``/``@fig-x`` become links "Section A.1", with the
  capitalised ``@Sec-x`` form; a chapter label gives "Chapter 1"/"Appendix A";
  ``-@sec-x`` gives only the number.
"""
from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass, field
from typing import Any

from . import pandoc as P
from .pandoc import RenderError

KINDS = ("sec", "tbl", "eq", "fig")
XREF_RE = re.compile(r"^([Ss]ec|[Tt]bl|[Ee]q|[Ff]ig)-")
EQ_LABEL_RE = re.compile(r"^\{#(eq-[^\s{}]+)\}$")

def prefixes_for(lang: str, given: dict | None) -> dict:
    """The manifest's cross-reference words (resolved by ``bookbuild.project``, as Quarto does),
    over Quarto's defaults for ``lang``."""
    from ..project import LANGUAGE_KEYS, quarto_language_defaults
    defaults = quarto_language_defaults(lang)
    base = {kind: defaults[key] for kind, key in LANGUAGE_KEYS.items()}
    base.update({k: v for k, v in (given or {}).items() if isinstance(v, str)})
    return base


@dataclass
class Target:
    label: str
    kind: str            # sec | tbl | eq | fig | chapter
    number: str | None   # None: unnumbered
    chapter: int         # index into the book's chapters
    title: str = ""
    appendix: bool = False


@dataclass
class ChapterInfo:
    index: int
    source: str
    page: str                 # output page, relative to the profile folder
    appendix: bool
    ast: dict
    number: str | None = None  # "1", "A", or None
    title: str = ""
    label: str = ""            # id of the chapter heading
    headings: list = field(default_factory=list)  # (level, id, number, text, unlisted)
    cited: list = field(default_factory=list)     # bibliography keys cited


def _is_eq_para_inlines(inlines: list) -> list[tuple[int, int, str]]:
    """Positions of labelled display equations in an inline list:
    (index of Math, index of label Str, label)."""
    found = []
    for i, el in enumerate(inlines):
        if el.get("t") == "Math" and el["c"][0]["t"] == "DisplayMath":
            j = i + 1
            while j < len(inlines) and inlines[j]["t"] in ("Space", "SoftBreak"):
                j += 1
            if j < len(inlines) and inlines[j]["t"] == "Str":
                m = EQ_LABEL_RE.match(inlines[j]["c"])
                if m:
                    found.append((i, j, m.group(1)))
    return found


def _letter(n: int) -> str:
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = string.ascii_uppercase[r] + s
    return s


def number_book(chapters: list[ChapterInfo]) -> dict[str, Target]:
    """Number every chapter, section, table, figure and equation of the book.
    Fills ``ChapterInfo.number/title/label/headings``; returns label -> Target."""
    targets: dict[str, Target] = {}
    n_chapter = 0
    n_appendix = 0

    def add(t: Target, where: str):
        if t.label in targets:
            other = chapters[targets[t.label].chapter].source
            raise RenderError(where, None, f"label '{t.label}' is defined twice "
                                           f"(also in {other})")
        targets[t.label] = t

    for ch in chapters:
        blocks = ch.ast["blocks"]
        first = next((b for b in blocks if b["t"] == "Header"), None)
        if first is None or first["c"][0] != 1:
            raise RenderError(ch.source, None, "a chapter must start with a level-1 heading "
                                               "(# Title)")
        unnumbered_ch = "unnumbered" in first["c"][1][1]
        if unnumbered_ch:
            ch.number = None
        elif ch.appendix:
            n_appendix += 1
            ch.number = _letter(n_appendix)
        else:
            n_chapter += 1
            ch.number = str(n_chapter)
        ch.title = P.stringify(first["c"][2]).strip()
        ch.label = first["c"][1][0]
        prefix = ch.number
        counters = [0] * 7
        n_tbl = n_fig = n_eq = 0

        def item(n: int) -> str:
            return f"{prefix}.{n}" if prefix else str(n)

        for el in P.iter_elements(blocks):
            t = el["t"]
            if t == "Header":
                level, a, inl = el["c"]
                text = P.stringify(inl).strip()
                if el is first:
                    if a[0]:
                        add(Target(a[0], "chapter", ch.number, ch.index, text, ch.appendix),
                            ch.source)
                    continue
                num = None
                if "unnumbered" not in a[1] and prefix and level >= 2:
                    counters[level] += 1
                    for k in range(level + 1, 7):
                        counters[k] = 0
                    num = ".".join([prefix] + [str(counters[k]) for k in range(2, level + 1)])
                ch.headings.append((level, a[0], num, text, "unlisted" in a[1]))
                if a[0]:
                    add(Target(a[0], "sec", num, ch.index, text, ch.appendix), ch.source)
            elif t in ("Table", "Figure", "Div"):
                ident = el["c"][0][0]
                if t == "Table" or (t == "Div" and ident.startswith("tbl-")):
                    if ident.startswith("tbl-"):
                        n_tbl += 1
                        add(Target(ident, "tbl", item(n_tbl), ch.index, "", ch.appendix),
                            ch.source)
                elif t == "Figure" or (t == "Div" and ident.startswith("fig-")):
                    if ident.startswith("fig-"):
                        n_fig += 1
                        add(Target(ident, "fig", item(n_fig), ch.index, "", ch.appendix),
                            ch.source)
            elif t in ("Para", "Plain"):
                for _, _, label in _is_eq_para_inlines(el["c"]):
                    n_eq += 1
                    add(Target(label, "eq", item(n_eq), ch.index, "", ch.appendix), ch.source)
    return targets


def check_against_manifest(targets: dict[str, Target], manifest_xref: dict | None,
                           chapters: list[ChapterInfo]) -> None:
    """The executor's manifest and this renderer must number the book alike."""
    if not manifest_xref:
        return
    wrong = []
    for label, rec in sorted(manifest_xref.items()):
        t = targets.get(label)
        num = rec.get("number") if isinstance(rec, dict) else None
        if t is None:
            continue
        if num is not None and t.number is not None and str(num) != t.number:
            wrong.append(f"{label}: manifest {num}, rendered {t.number}")
    if wrong:
        raise RenderError(None, None, "numbering disagrees with book.json xref: "
                          + "; ".join(wrong[:10]))


def build_xref(chapters: list[ChapterInfo], targets: dict[str, Target]) -> dict:
    """The manifest's ``xref`` shape, for fixtures and for checking."""
    out = {}
    for label, t in sorted(targets.items()):
        if not (XREF_RE.match(label) or t.kind == "chapter"):
            continue
        out[label] = {"kind": t.kind, "number": t.number,
                      "chapter": chapters[t.chapter].source, "title": t.title}
    return out


# ======================================================================= transform
@dataclass
class Context:
    fmt: str                      # "html" | "typst"
    lang: str
    prefixes: dict
    chapters: list[ChapterInfo]
    targets: dict[str, Target]
    bib_keys: set[str] | None     # None: do not check


def _ref_text(ctx: Context, label_as_written: str, t: Target, mode: str) -> str:
    if t.number is None:
        raise RenderError(ctx.chapters[t.chapter].source, None,
                          f"@{label_as_written} refers to an unnumbered {t.kind} "
                          f"('{t.title}'); refer to it by name instead")
    if mode == "SuppressAuthor":
        return t.number
    if t.kind == "chapter":
        word = ctx.prefixes["appendix" if t.appendix else "chapter"]
    else:
        word = ctx.prefixes[t.kind]
    if label_as_written[0].isupper():
        word = word[:1].upper() + word[1:]
    return f"{word}\u00a0{t.number}"


def _href(ctx: Context, here: ChapterInfo, t: Target) -> str:
    if ctx.fmt != "html":
        return "#" + t.label
    there = ctx.chapters[t.chapter]
    if there.index == here.index:
        return "#" + t.label
    return relpath(there.page, here.page) + "#" + t.label


def relpath(target_page: str, from_page: str) -> str:
    """Relative URL from one page to another (both relative to the profile folder)."""
    src = from_page.split("/")[:-1]
    dst = target_page.split("/")
    i = 0
    while i < len(src) and i < len(dst) - 1 and src[i] == dst[i]:
        i += 1
    return "/".join([".."] * (len(src) - i) + dst[i:])


def transform_chapter(ctx: Context, ch: ChapterInfo) -> dict:
    """A copy of the chapter AST with numbers, resolved references, callouts and
    format-specific content applied, ready for pandoc's ``fmt`` writer."""
    ast = json.loads(json.dumps(ch.ast))
    tgt = ctx.targets
    first_header_done = [False]
    counters = {"tbl": 0, "fig": 0}
    missing: list[str] = []
    cited: set[str] = set()

    def visible(a: list) -> bool:
        fmt_names = {"html": {"html", "html5", "html4"},
                     "typst": {"pdf", "typst", "latex", "beamer"}}[ctx.fmt]
        when = P.get_attr(a, "when-format")
        unless = P.get_attr(a, "unless-format")
        ok = True
        if when is not None:
            ok = when in fmt_names
        if unless is not None:
            ok = ok and unless not in fmt_names
        return ok

    def on_cite(el: dict) -> Any:
        cits, _content = el["c"]
        out: list = []
        pending: list = []

        def flush():
            if pending:
                keys = [c["citationId"] for c in pending]
                if len(pending) == 1 and pending[0]["citationMode"]["t"] == "AuthorInText":
                    text = "@" + keys[0]
                else:
                    text = "[" + "; ".join("@" + k for k in keys) + "]"
                out.append({"t": "Cite", "c": [list(pending), [P.Str(text)]]})
                pending.clear()

        for c in cits:
            cid = c["citationId"]
            if XREF_RE.match(cid):
                flush()
                label = cid[0].lower() + cid[1:]
                t = tgt.get(label)
                if t is None:
                    missing.append("@" + cid)
                    out.append(P.Str("@" + cid))
                    continue
                text = _ref_text(ctx, cid, t, c["citationMode"]["t"])
                if out:
                    out.append(P.Space())
                if c["citationPrefix"]:
                    out.extend(c["citationPrefix"] + [P.Space()])
                out.append(P.Link(P.attr("", ["quarto-xref"]), [P.Str(text)],
                                  _href(ctx, ch, t)))
                if c["citationSuffix"]:
                    out.extend(c["citationSuffix"])
            else:
                cited.add(cid)
                if ctx.bib_keys is not None and cid not in ctx.bib_keys:
                    missing.append("[@" + cid + "] (not in the bibliography)")
                if pending and c["citationMode"]["t"] == "AuthorInText":
                    flush()
                if out and not pending:
                    out.append(P.Space())
                pending.append(c)
        flush()
        return out

    def number_header(el: dict) -> Any:
        level, a, inl = el["c"]
        if not first_header_done[0]:
            first_header_done[0] = True
            if ch.number is None:
                return None
            if ch.appendix:
                lead = f"{ctx.prefixes['appendix']} {ch.number} —"
                new = [P.Span(P.attr("", ["chapter-number"]), P.text_inlines(lead)),
                       P.Space(), P.Span(P.attr("", ["chapter-title"]), inl)]
            else:
                new = [P.Span(P.attr("", ["chapter-number"]), [P.Str(ch.number)]),
                       P.Space(), P.Span(P.attr("", ["chapter-title"]), inl)]
            return P.Header(level, a, new)
        t = tgt.get(a[0]) if a[0] else None
        if t is None or t.number is None or t.kind != "sec":
            return None
        new = [P.Span(P.attr("", ["header-section-number"]), [P.Str(t.number)]), P.Space()] + inl
        return P.Header(level, a, new)

    def caption_prefix(kind: str, ident: str) -> list:
        t = tgt[ident]
        return [P.Str(f"{ctx.prefixes[kind]}\u00a0{t.number}:"), P.Space()]

    def on_table(el: dict) -> Any:
        a, caption, colspecs, head, bodies, foot = el["c"]
        ident = a[0]
        widths = P.get_attr(a, "tbl-colwidths")
        if widths:
            try:
                ws = [float(w) for w in json.loads(widths)]
            except (ValueError, TypeError):
                raise RenderError(ch.source, None, f"{ident or 'table'}: tbl-colwidths "
                                                   f"must be a list of numbers, got {widths}")
            if len(ws) != len(colspecs):
                raise RenderError(ch.source, None,
                                  f"{ident or 'table'}: tbl-colwidths has {len(ws)} "
                                  f"entries for {len(colspecs)} columns")
            total = sum(ws)
            colspecs = [[cs[0], {"t": "ColWidth", "c": w / total}] for cs, w in zip(colspecs, ws)]
        if ident.startswith("tbl-"):
            short, blocks = caption
            if blocks and blocks[0]["t"] in ("Plain", "Para"):
                blocks = [{"t": blocks[0]["t"], "c": caption_prefix("tbl", ident) + blocks[0]["c"]}
                          ] + blocks[1:]
            else:
                blocks = [P.Plain(caption_prefix("tbl", ident)[:1])] + blocks
            caption = [short, blocks]
        return {"t": "Table", "c": [P.drop_attr(a, "tbl-colwidths"), caption, colspecs,
                                    head, bodies, foot]}

    def on_figure(el: dict) -> Any:
        a, (short, cap_blocks), body = el["c"]
        ident = a[0]
        if ident.startswith("fig-"):
            if cap_blocks and cap_blocks[0]["t"] in ("Plain", "Para"):
                cap_blocks = [{"t": cap_blocks[0]["t"],
                               "c": caption_prefix("fig", ident) + cap_blocks[0]["c"]}
                              ] + cap_blocks[1:]
            else:
                cap_blocks = [P.Plain(caption_prefix("fig", ident)[:1])]

        def alt(img: dict) -> Any:
            if img["t"] != "Image":
                return None
            ia, inl, target = img["c"]
            text = P.get_attr(ia, "fig-alt")
            if text is None:
                return None
            return {"t": "Image", "c": [P.drop_attr(ia, "fig-alt"), P.text_inlines(text), target]}
        body = P.walk(body, alt)
        return {"t": "Figure", "c": [a, [short, cap_blocks], body]}

    def on_para(el: dict) -> Any:
        inl = el["c"]
        eqs = _is_eq_para_inlines(inl)
        if not eqs:
            return None
        out = []
        pos = 0
        for i_math, j_label, label in eqs:
            out.extend(inl[pos:i_math])
            math = inl[i_math]
            num = tgt[label].number
            if ctx.fmt == "html":
                out.append(P.Span(P.attr(label, ["quarto-eq"]), [
                    P.Span(P.attr("", ["eq-body"]), [math]),
                    P.Span(P.attr("", ["eq-number"]), [P.Str(f"({num})")])]))
            else:
                out.append(P.RawInline("typst", f'#math.equation(block: true, '
                                                f'numbering: _ => "({num})", '))
                out.append({"t": "Math", "c": [{"t": "InlineMath"}, math["c"][1]]})
                out.append(P.RawInline("typst", f") <{label}>"))
            pos = j_label + 1
        out.extend(inl[pos:])
        return {"t": el["t"], "c": out}

    def on_div(el: dict) -> Any:
        a, blocks = el["c"]
        classes = a[1]
        if "content-visible" in classes:
            return blocks if visible(a) else []
        if "content-hidden" in classes:
            return [] if visible(a) else blocks
        callout = next((c for c in classes if c.startswith("callout-")), None)
        if callout:
            return render_callout(ctx, callout[len("callout-"):], a, blocks)
        if a[0].startswith("fig-") and a[0] in tgt:
            return _figure_div(a, blocks)
        if a[0].startswith(("fig-", "tbl-")) and a[0] in tgt:
            kind = a[0][:3]
            # caption: the last paragraph of a figure/table div
            for k in range(len(blocks) - 1, -1, -1):
                if blocks[k]["t"] in ("Para", "Plain"):
                    blocks = blocks[:k] + [{"t": blocks[k]["t"], "c": caption_prefix(kind, a[0])
                                            + blocks[k]["c"]}] + blocks[k + 1:]
                    break
            return P.Div(a, blocks)
        return None

    def _figure_div(a: list, blocks: list) -> Any:
        """A displayed figure (``::: {#fig-x fig-alt=...}`` from a cell: an interactive HTML plot and a
        static image for other formats, then the caption) as a numbered pandoc Figure. The alt text
        goes on the plot (``aria-label``) in HTML and on the image in the PDF."""
        k = max((i for i, b in enumerate(blocks) if b["t"] in ("Para", "Plain")), default=None)
        if k is None or (k == 0 and len(blocks) == 1):
            cap, body = [], blocks
        else:
            cap, body = [blocks[k]], blocks[:k] + blocks[k + 1:]
        alt = P.get_attr(a, "fig-alt")
        if alt is not None:
            def put_alt(el: dict) -> Any:
                if el["t"] == "RawBlock" and el["c"][0] == "html" and 'class="mlsysim-plot"' in el["c"][1] \
                        and "aria-label=" not in el["c"][1]:
                    esc = (alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
                           .replace(">", "&gt;"))
                    return P.RawBlock("html", el["c"][1].replace('class="mlsysim-plot"',
                                                                 f'class="mlsysim-plot" aria-label="{esc}"', 1))
                if el["t"] == "Image" and P.get_attr(el["c"][0], "fig-alt") is None:
                    ia, inl, target = el["c"]
                    return {"t": "Image", "c": [ia, P.text_inlines(alt), target]}
                return None
            body = P.walk(body, put_alt)
        return on_figure({"t": "Figure", "c": [P.drop_attr(a, "fig-alt"), [None, cap], body]})

    # order matters: cites first (bottom-up walk handles nesting), then blocks
    def visitor(el: dict) -> Any:
        t = el["t"]
        if t == "Cite":
            return on_cite(el)
        if t in ("Para", "Plain"):
            return on_para(el)
        if t == "Table":
            return on_table(el)
        if t == "Figure":
            return on_figure(el)
        if t == "Div":
            return on_div(el)
        return None

    # headers must be numbered in document order before the bottom-up walk
    def headers_top_down(blocks: list) -> list:
        out = []
        for b in blocks:
            if b["t"] == "Header":
                nb = number_header(b)
                out.append(b if nb is None else nb)
            elif b["t"] == "Div":
                out.append({"t": "Div", "c": [b["c"][0], headers_top_down(b["c"][1])]})
            else:
                out.append(b)
        return out

    ast["blocks"] = headers_top_down(ast["blocks"])
    ast["blocks"] = P.walk(ast["blocks"], visitor)
    if missing:
        raise RenderError(ch.source, None, "unresolved: " + ", ".join(sorted(set(missing))))
    has_refs_div = any(e["t"] == "Div" and e["c"][0][0] == "refs"
                       for e in P.iter_elements(ast["blocks"]))
    if cited and not has_refs_div:
        title = REFERENCES_TITLE.get(ctx.lang.split("-")[0], REFERENCES_TITLE["en"])
        ast["blocks"].append(P.Header(2, P.attr("references", ["unnumbered"]),
                                      P.text_inlines(title)))
        ast["blocks"].append(P.Div(P.attr("refs", ["references"]), []))
    ch.cited = sorted(cited)
    return ast


REFERENCES_TITLE = {"en": "References", "zh": "参考文献"}

CALLOUT_TITLES = {
    "en": {"note": "Note", "tip": "Tip", "warning": "Warning", "important": "Important",
           "caution": "Caution"},
    "zh": {"note": "注释", "tip": "提示", "warning": "警告", "important": "重要",
           "caution": "注意"},
}


def render_callout(ctx: Context, kind: str, a: list, blocks: list) -> list:
    title = P.get_attr(a, "title")
    if title is not None:
        title_inl = P.md_to_ast(title)["blocks"]
        title_inl = title_inl[0]["c"] if title_inl else []
    elif blocks and blocks[0]["t"] == "Header":
        title_inl = blocks[0]["c"][2]
        blocks = blocks[1:]
    else:
        names = CALLOUT_TITLES.get(ctx.lang.split("-")[0], CALLOUT_TITLES["en"])
        title_inl = P.text_inlines(names.get(kind, kind.capitalize()))
    collapse = P.get_attr(a, "collapse")
    ident = a[0]
    if ctx.fmt == "html":
        idattr = f' id="{ident}"' if ident else ""
        if collapse in ("true", "false"):
            open_ = "" if collapse == "true" else " open"
            return [P.RawBlock("html", f'<details class="callout callout-{kind}"{idattr}{open_}>'
                                       f'<summary class="callout-header">'),
                    P.Plain(title_inl),
                    P.RawBlock("html", "</summary>"),
                    P.Div(P.attr("", ["callout-body"]), blocks),
                    P.RawBlock("html", "</details>")]
        return [P.RawBlock("html", f'<div class="callout callout-{kind}"{idattr}>'
                                   f'<div class="callout-header">'),
                P.Plain(title_inl),
                P.RawBlock("html", "</div>"),
                P.Div(P.attr("", ["callout-body"]), blocks),
                P.RawBlock("html", "</div>")]
    label = f" <{ident}>" if ident else ""
    return [P.RawBlock("typst", f'#callout(kind: "{kind}", title: ['),
            P.Plain(title_inl),
            P.RawBlock("typst", "])["),
            *blocks,
            P.RawBlock("typst", "]" + label)]
