"""pandoc piece by piece. The reader: a chapter's text cut where a top-level block must end, each piece read
once and kept by its text, and the chapter's AST put together from the pieces. The HTML writer (:func:`write`,
at the end): each top-level block written once and kept by its JSON, the citations formatted first.

An edit changes a few paragraphs of a chapter: a prose edit one, a cell edit those that quote the values it
moved. pandoc reads the whole appendix in 0.2-0.3 s; the pieces that changed, all in one run, in a few
hundredths. The AST put together is the one pandoc gives for the whole text (``tests/book/test_pieces.py`` compares
them on every chapter of the book and on each construct that ties blocks together). Where the text holds
such a construct, or the pieces' run warns, :func:`read` answers None and the whole text is read as before:

- link and footnote definitions, footnotes, example lists, LaTeX macros, a YAML block after the front matter,
  raw HTML at the start of a line (a ``<div>`` over blank lines is one block): the whole text is read;
- a cut only where a blank line ends a block and the next line cannot continue it (not indented, no list
  marker, no table or caption line, no definition, outside every fence, div and HTML comment);
- identifiers: pandoc makes a header's automatic identifier unique over the document (a second ``X`` is
  ``x-1``) and warns of an identifier given twice; put together, every identifier must be unique, and a
  piece's ``-1`` kept only where its text writes it;
- an implicit header reference (``[Header text]`` links to that header anywhere in the document): none may
  name a header of the chapter;
- ``citationNoteNum``: pandoc's counter over the document's citations, numbered on from piece to piece in
  the order pandoc gave within each piece.

A piece is kept only once its chapter put together passes every check above, so a kept piece never holds what
another piece's text made of it.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

from .blocks import continues, div_opens
from .blocks import scan as scan_blocks
from .cache import Inputs
from .pandoc_ast import iter_elements, stringify

#: what ties blocks together over the whole document (outside fences): the whole text is read
WHOLE = re.compile(r"^ {0,3}\[[^\]\n]+\]:|\^\[|^[ \t]*\(@[\w-]*\)[ \t]|\\(?:re)?newcommand|\\def\b|^[ \t]*<(?!!--)", re.M)
YAML_AGAIN = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
#: between two pieces of one run, a raw block no chapter writes
MARK = "```{=bookbuild-piece}\n```"
MARK_BLOCK = {"t": "RawBlock", "c": ["bookbuild-piece", ""]}
SUFFIXED = re.compile(r"-\d+$")
KIND = "pandoc-piece"


def pieces(text: str) -> list[str] | None:
    """``text`` cut where a top-level block must end (``"\\n".join`` of the pieces is ``text``), or None where
    something ties its blocks together: a block of :func:`bookbuild.blocks.scan` at depth 0, outside every
    comment, whose first line cannot continue the block above it (or opens a div)."""
    sc = scan_blocks(text.split("\n"))
    lines, fm = sc.lines, sc.front_end
    prose = [ln for i, ln in enumerate(lines) if i > fm and i not in sc.fenced]
    if WHOLE.search("\n".join(prose)) or any(YAML_AGAIN.match(ln) for ln in prose) or not sc.balanced:
        return None
    cuts = [b.start for b in sc.blocks if b.start > fm + 1 and b.depth == 0 and b.start not in sc.commented
            and (not continues(lines[b.start]) or div_opens(lines[b.start]))]
    out, start = [], 0
    for c in cuts:
        out.append("\n".join(lines[start:c]))
        start = c
    out.append("\n".join(lines[start:]))
    return out


def _ids(blocks: list) -> list[str]:
    out = []
    for el in iter_elements(blocks):
        c = el.get("c")
        if el["t"] == "Header":
            out.append(c[1][0])
        elif el["t"] in ("Div", "Span", "CodeBlock", "Code", "Table", "Figure", "Image", "Link") and c \
                and isinstance(c[0], list) and len(c[0]) == 3 and isinstance(c[0][0], str) and c[0][0]:
            out.append(c[0][0])
    return out


def _assembled(entries: list[dict], text: str) -> dict | None:
    """The chapter's AST from its pieces' entries, or None when a check fails (see the module). Citations are
    numbered on from piece to piece, each piece's own order kept (pandoc numbers in the order it reads, which
    is not always the AST's: a table's caption after its rows)."""
    blocks = [b for e in entries for b in e["blocks"]]
    ids = _ids(blocks)
    if len(ids) != len(set(ids)):
        return None
    low = text.lower()
    offset = 0
    for e in entries:
        cites = []
        for el in iter_elements(e["blocks"]):
            t = el["t"]
            if t == "Note":
                return None
            if t == "Header" and f"[{stringify(el['c'][2]).lower()}]" in low:
                return None
            if t == "Cite":
                cites += el["c"][0]
        order = {n: offset + i for i, n in enumerate(sorted({c["citationNoteNum"] for c in cites}), start=1)}
        for c in cites:
            c["citationNoteNum"] = order[c["citationNoteNum"]]
        offset += len(order)
    return {"pandoc-api-version": entries[0]["api"], "meta": entries[0].get("meta", {}), "blocks": blocks}


def _split_run(out: dict, missing: list[str]) -> list[dict] | None:
    """The blocks of one run over ``missing`` (joined by :data:`MARK`), piece by piece."""
    groups: list[list] = [[]]
    for b in out["blocks"]:
        if b == MARK_BLOCK:
            groups.append([])
        else:
            groups[-1].append(b)
    if len(groups) != len(missing):
        return None
    for g, piece in zip(groups, missing):   # an identifier pandoc numbered for another piece of the run
        if any(SUFFIXED.search(i) and f"#{i}" not in piece for i in _ids(g)):
            return None
    return [{"api": out["pandoc-api-version"], "blocks": g} for g in groups]


def _entry(raw: bytes | None) -> dict | None:
    """A kept piece, or None when there is none or it has another shape (it is then read again)."""
    try:
        e = json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    ok = isinstance(e, dict) and isinstance(e.get("api"), list) and isinstance(e.get("blocks"), list) \
        and isinstance(e.get("meta", {}), dict)
    return e if ok else None


def read(text: str, run: Callable[[str], str], store: Any, salt: str) -> dict | None:
    """``text``'s AST from its pieces: those ``store`` keeps, and one ``run`` (pandoc's reader on a text,
    returning its JSON) over the rest; None when the whole text must be read. ``salt``: pandoc and its
    arguments, which every piece's key covers."""
    parts = pieces(text)
    if parts is None or len(parts) < 2:
        return None
    inputs = [Inputs(KIND, (p,), salt) for p in parts]
    keys = [i.key for i in inputs]
    declared = dict(zip(keys, inputs))
    got: dict[str, dict] = {}
    for k in dict.fromkeys(keys):
        entry = _entry(store.get_blob(declared[k]))
        if entry is not None:
            got[k] = entry
    todo = [(k, p) for k, p in dict.fromkeys(zip(keys, parts)) if k not in got]
    new: dict[str, dict] = {}
    if todo:
        out = json.loads(run("\n\n".join([p for _, p in todo for p in (p, MARK)][:-1])))
        first_new = todo[0][0] == keys[0]
        if out.get("meta") and not first_new:
            return None
        split = _split_run(out, [p for _, p in todo])
        if split is None:
            return None
        for (k, _), e in zip(todo, split):
            new[k] = e
        if first_new:
            new[keys[0]]["meta"] = out.get("meta", {})
    entries, seen = [], set()
    for k in keys:   # a piece met twice: its own copy (its citations are numbered in place)
        e = got[k] if k in got else new[k]
        entries.append(json.loads(json.dumps(e)) if k in seen else e)
        seen.add(k)
    ast = _assembled(entries, text)
    if ast is not None:
        for k, e in new.items():
            store.put_blob(declared[k], json.dumps(e, ensure_ascii=False).encode("utf-8"))
    return ast


# ───────────────────────────── the writer, piece by piece

#: between two blocks of one writer run: an HTML comment no chapter writes
WRITE_MARK = "<!--bookbuild-piece-5e1f-->"
WRITE_KIND = "pandoc-html-piece"


def resolve_citations(ast: dict, run_json: Callable[[str], str]) -> None:
    """Format ``ast``'s citations as pandoc's citeproc would over the whole document, in place: one citeproc run
    (``run_json``, pandoc json -> json with citeproc's arguments) over a document of the citations alone, in
    order, and the bibliography's ``#refs`` div; each Cite and the div then take citeproc's output. What
    citeproc makes of a citation depends only on the citations before and after it and the bibliography, so
    this run is kept by them (a cell or prose edit that cites nothing new reads it from the cache)."""
    cites = [e for e in iter_elements(ast["blocks"]) if e["t"] == "Cite"]
    refs = [e for e in iter_elements(ast["blocks"]) if e["t"] == "Div" and e["c"][0][0] == "refs"]
    alone = {"pandoc-api-version": ast["pandoc-api-version"], "meta": ast.get("meta", {}),
             "blocks": [{"t": "Para", "c": [c]} for c in cites] + refs}
    out = json.loads(run_json(json.dumps(alone)))["blocks"]
    if len(out) != len(cites) + len(refs) or any(p["t"] != "Para" or len(p["c"]) != 1 for p in out[:len(cites)]):
        raise ValueError("citeproc gave another shape")
    for c, p in zip(cites, out):
        c["c"] = p["c"][0]["c"]
    for r, d in zip(refs, out[len(cites):]):
        r["c"] = d["c"]


def write(ast: dict, run: Callable[[str], str], store: Any, salt: str) -> str | None:
    """``ast``'s HTML from its top-level blocks: those ``store`` keeps, and one writer ``run`` (json -> html,
    no citeproc: :func:`resolve_citations` first) over the rest, a marker between two blocks; pandoc joins
    a document's blocks with one newline. None when the whole document must be written: a footnote (the
    writer numbers and collects them), a marker in the text, a run that does not split as sent."""
    blocks = [json.dumps(b, sort_keys=True) for b in ast["blocks"]]
    if not blocks or any(WRITE_MARK in b for b in blocks) or WRITE_MARK in json.dumps(ast.get("meta", {})) \
            or any(e["t"] == "Note" for e in iter_elements(ast["blocks"])):
        return None
    inputs = [Inputs(WRITE_KIND, (b,), salt) for b in blocks]
    keys = [i.key for i in inputs]
    declared = dict(zip(keys, inputs))
    got: dict[str, str] = {}
    for k in dict.fromkeys(keys):
        raw = store.get_blob(declared[k])
        if raw is not None:
            got[k] = raw.decode("utf-8", errors="replace")
    todo = list({k: b for k, b in zip(keys, ast["blocks"]) if k not in got}.items())
    if todo:
        mark = {"t": "RawBlock", "c": ["html", WRITE_MARK]}
        blocks = [x for _, b in todo for x in (b, mark)][:-1]
        out = run(json.dumps(dict(ast, blocks=blocks)))
        if not out.endswith("\n"):
            return None
        parts = out[:-1].split(f"\n{WRITE_MARK}\n")
        if len(parts) != len(todo):
            return None
        for (k, _), html in zip(todo, parts):
            got[k] = html
            store.put_blob(declared[k], html.encode("utf-8"))
    return "\n".join(got[k] for k in keys) + "\n"
