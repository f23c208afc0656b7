"""EPUB 3 through pandoc: the book as one document, a file per chapter.

As the PDF: the same filters (numbers, cross-references, callouts; ``fmt="epub"``), citations resolved per
chapter with the book's style, a reference list at the end of each chapter that cites. As Quarto's EPUB:
``html`` content is in it, ``html:js`` content (the explorer) is not, and a figure the HTML draws with a
script is its static SVG (:mod:`.filters.scriptless`). Mathematics as MathML. A book with Chinese text
embeds the part of Noto Serif CJK SC it uses (a reading system may have no CJK font), subset with fontTools.

Deterministic: the identifier is derived from the title and language, the modification date is the book's
``date`` (or 1970-01-01 when it has none: never the time of the build), through ``SOURCE_DATE_EPOCH``.
"""
from __future__ import annotations

import io
import json
import re
import tempfile
import uuid
from datetime import datetime, timezone
from pathlib import Path

from .. import pandoc_ast as A
from .. import procs
from ..cache import Inputs
from ..media import SCHEME, is_raw_html, rewrite_files
from .filters import Chapter, Context, transform
from ..errors import RenderError
from ..pandoc import _checked
from .pdf import CJK_RE, find_cjk_font_dir, require_cjk_font_dir

STYLE = Path(__file__).parent / "templates" / "epub.css"
CJK_FACE = "Noto Serif CJK SC"
CJK_FILE = "NotoSerifCJK-Regular.ttc"
CJK_SUBSET = "NotoSerifCJKsc-book.otf"


def _unique_ids(blocks: list, n: int) -> list:
    """The reference list's ids (``refs``, ``ref-key``, the ``references`` heading) repeat in every chapter
    that cites: suffix them with the chapter, and the citations' links with them."""
    def own(i: str) -> bool:
        return i in ("refs", "references") or i.startswith("ref-")

    def fix(el: dict):
        t = el["t"]
        if t in ("Div", "Header", "Span"):
            a = el["c"][0] if t != "Header" else el["c"][1]
            if a[0] and own(a[0]):
                a = [f"{a[0]}--ch{n}", a[1], a[2]]
                el = {"t": t, "c": ([a, el["c"][1]] if t != "Header" else [el["c"][0], a, el["c"][2]])}
        elif t == "Link":
            a, inl, (url, title) = el["c"]
            if url.startswith("#") and own(url[1:]):
                return {"t": "Link", "c": [a, inl, [f"{url}--ch{n}", title]]}
        return el if el["t"] in ("Div", "Header", "Span") else None
    return A.walk(blocks, fix)


def chapter_blocks(ctx: Context, ch: Chapter, image_root: Path) -> tuple[list, list]:
    """One chapter's blocks, ready for the EPUB writer, and the pandoc API version of its AST."""
    ast = transform(ctx, ch)
    ast["meta"] = {}
    if ch.cited:
        ast = json.loads(ctx.pandoc.run(["-f", "json", "-t", "json", *ctx.cite_args, "-M", f"lang={_lang(ctx.lang)}",
                                         "-M", "link-citations=true"], json.dumps(ast), ch.source))

    def placed(src: str) -> str:   # the copy collect_images placed beside the page (render/profile.py)
        return str((image_root / Path(ch.page).parent / src).resolve())

    def abs_image(el: dict):
        if is_raw_html(el):   # pandoc's EPUB writer embeds raw HTML's files: the copies beside the page
            text = rewrite_files(el["c"][1], lambda name, _tag: None if SCHEME.match(name) else placed(name))
            return {"t": el["t"], "c": [el["c"][0], text]} if text != el["c"][1] else None
        if el["t"] != "Image":
            return None
        a, inl, (src, title) = el["c"]
        if src.startswith("data:"):
            return None
        return {"t": "Image", "c": [a, inl, [placed(src), title]]}
    return _unique_ids(A.walk(ast["blocks"], abs_image), ch.index), ast["pandoc-api-version"]


def _lang(lang: str) -> str:
    return "zh-CN" if lang.startswith("zh") else ("en-US" if lang == "en" else lang)


def _meta_str(s: str) -> dict:
    return {"t": "MetaInlines", "c": A.text_inlines(s)}


def book_meta(title: str, lang: str, metadata: dict | None) -> tuple[dict, int]:
    """The EPUB's metadata (title, subtitle, creator, language, identifier, date) and its modification time."""
    meta = metadata or {}
    book = meta.get("book") if isinstance(meta.get("book"), dict) else {}

    def field(k):
        v = book.get(k, meta.get(k))
        return v if isinstance(v, (str, list)) and v else None
    out = {"title": _meta_str(title), "lang": {"t": "MetaString", "c": _lang(lang)},
           "identifier": {"t": "MetaString", "c": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                                                f"bookbuild:{title}:{lang}"))}}
    if isinstance(field("subtitle"), str):
        out["subtitle"] = _meta_str(field("subtitle"))
    authors = field("author")
    if authors:
        out["creator"] = {"t": "MetaList", "c": [_meta_str(str(a)) for a in ([authors] if isinstance(authors, str)
                                                                              else authors) if isinstance(a, str)]}
    date, epoch = field("date"), 0
    if isinstance(date, str):
        try:
            epoch = int(datetime.strptime(date.strip(), "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp())
            out["date"] = {"t": "MetaString", "c": date.strip()}
        except ValueError:
            raise RenderError("_quarto.yml", None, f"book: date {date!r} is not a date as YYYY-MM-DD (the EPUB "
                                                   "and the cover print it; 'today' would make two builds differ)") from None
    return out, epoch


def cjk_subset(font_dir: Path, text: str, store=None) -> bytes:
    """Noto Serif CJK SC reduced to the characters of ``text`` (an OpenType font of a few hundred kB instead of
    the 25 MB collection), cached by the characters and the font file."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection
    chars = "".join(sorted(set(text) | set("0123456789")))
    src = font_dir / CJK_FILE
    st = src.stat()
    key = Inputs("font", (chars, f"{src}:{st.st_size}:{st.st_mtime_ns}"))
    hit = store.get_blob(key) if store is not None else None
    if hit is not None:
        return hit
    coll = TTCollection(str(src), recalcTimestamp=False)
    font = next((f for f in coll.fonts if f["name"].getDebugName(1) == CJK_FACE), None)
    if font is None:
        raise RenderError(str(src), None, f"{CJK_FACE} is not in this font collection")
    opts = subset.Options()
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.recalc_timestamp = False
    sub = subset.Subsetter(opts)
    sub.populate(text=chars)
    sub.subset(font)
    buf = io.BytesIO()
    font.save(buf)
    data = buf.getvalue()
    if store is not None:
        store.put_blob(key, data)
    return data


def render_epub(ctx: Context, chapters: list[Chapter], title: str, image_root: Path, epub_path: Path, *,
                cjk_font_dir: str | None = None, store=None, metadata: dict | None = None) -> Path:
    parts = [chapter_blocks(ctx, ch, image_root) for ch in chapters]
    blocks = [b for bl, _ in parts for b in bl]
    meta, epoch = book_meta(title, ctx.lang, metadata)
    doc = {"pandoc-api-version": parts[0][1], "meta": meta, "blocks": blocks}
    text = json.dumps(doc, ensure_ascii=False)
    needs_cjk = ctx.lang.startswith("zh") or bool(CJK_RE.search(re.sub(r'"/[^"]*"', "", text)))
    epub_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        css = STYLE.read_text(encoding="utf-8")
        args = ["-f", "json", "-t", "epub3", "--mathml", "--toc", "--toc-depth=2", "--split-level=1",
                "--epub-title-page=true", "-o", str(Path(tmp) / "book.epub")]
        if needs_cjk:
            d = require_cjk_font_dir(cjk_font_dir) if ctx.lang.startswith("zh") else find_cjk_font_dir(cjk_font_dir)
            if d is not None:
                font = Path(tmp) / CJK_SUBSET
                font.write_bytes(cjk_subset(d, "".join(CJK_RE.findall(text)) + title, store))
                args += ["--epub-embed-font", str(font)]
                css = (f'@font-face {{ font-family: "{CJK_FACE}"; src: url("../fonts/{CJK_SUBSET}"); }}\n'
                       + css.replace("/*CJK*/", f'"{CJK_FACE}", '))
        (Path(tmp) / "epub.css").write_text(css.replace("/*CJK*/", ""), encoding="utf-8")
        args += ["--css", str(Path(tmp) / "epub.css")]
        try:
            proc = procs.run([ctx.pandoc.path, *args], text.encode("utf-8"), cwd=tmp,
                             extra_env={"SOURCE_DATE_EPOCH": str(epoch)})
        except OSError as e:
            raise RenderError(None, None, f"cannot run pandoc ({ctx.pandoc.path}): {e.strerror}") from None
        _checked(proc, args, str(epub_path.name))
        epub_path.write_bytes((Path(tmp) / "book.epub").read_bytes())
    return epub_path
