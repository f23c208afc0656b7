"""PDF through typst: pandoc ``-t typst`` per chapter, our template, ``typst.compile``.

Fonts: Latin text and math use the fonts typst embeds (Libertinus Serif, New Computer
Modern Math, DejaVu Sans Mono); Chinese uses Noto CJK from Debian's ``fonts-noto-cjk``,
passed explicitly through ``font_paths``.  System fonts are ignored, so the PDF does not
depend on what else happens to be installed, and the creation date is unset
(``#set document(date: none)``), so two renders give identical bytes.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..cache import Inputs, file_digest, installed_versions
from .. import pandoc_ast as A
from .filters import Chapter, Context, transform
from .glyphs import UnreadablePdf, font_names, notdef_glyphs, svg_placeholders
from ..errors import RenderError
from .strings import ui

TEMPLATE = Path(__file__).parent / "templates" / "book.typ"

CJK_SERIF = "Noto Serif CJK SC"
CJK_SANS = "Noto Sans CJK SC"
CJK_FILES = ("NotoSerifCJK-Regular.ttc", "NotoSansCJK-Regular.ttc")
CJK_DIRS = ("/usr/share/fonts/opentype/noto", "/usr/share/fonts/noto-cjk",
            "/usr/share/fonts/google-noto-cjk", "/usr/share/fonts/opentype/noto-cjk",
            "/usr/local/share/fonts")
CJK_RE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")



def find_cjk_font_dir(given: str | None = None) -> Path | None:
    """The folder holding Noto CJK (``given``, the settings' ``BOOK_CJK_FONT_DIR``, wins)."""
    cands = [given or ""] + list(CJK_DIRS)
    for d in cands:
        if d and all((Path(d) / f).is_file() for f in CJK_FILES):
            return Path(d)
    return None


def require_cjk_font_dir(given: str | None = None) -> Path:
    d = find_cjk_font_dir(given)
    if d is None:
        raise RenderError(None, None,
                          "the Chinese PDF needs the Noto CJK fonts (NotoSerifCJK-Regular.ttc, "
                          "NotoSansCJK-Regular.ttc), not found in "
                          + ", ".join(CJK_DIRS)
                          + ": install them with `apt-get install -y fonts-noto-cjk` "
                          "or set BOOK_CJK_FONT_DIR to their folder")
    return d


def _typst_str(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _typst_markup(s: str) -> str:
    return re.sub(r"([\\#*_`$<>@\[\]=/~-])", r"\\\1", s)


def chapter_typst(ctx: Context, ch: Chapter, bibliography: list[Path], image_root: Path) -> str:
    ast = transform(ctx, ch)
    ast["meta"] = {}

    def abs_image(el: dict):
        if el["t"] != "Image":
            return None
        a, inl, (src, title) = el["c"]
        path = (image_root / Path(ch.page).parent / src).resolve()
        try:   # typst's root is the book's folder: a path from it, the same wherever the book is staged
            rel = path.relative_to(Path(image_root).resolve()).as_posix()
        except ValueError:
            raise RenderError(ch.source, None, f"image {src} is outside the book's folder: a chapter may show "
                              "only files of the book's own folder") from None
        return {"t": "Image", "c": [a, inl, ["/" + rel, title]]}
    ast["blocks"] = A.walk(ast["blocks"], abs_image)
    args = ["-f", "json", "-t", "typst", "--wrap=preserve",
            "-M", f"lang={'zh-CN' if ctx.lang.startswith('zh') else 'en-US'}"]
    if ch.cited:
        args += ctx.cite_args
    body = ctx.pandoc.run(args, json.dumps(ast), ch.source)
    body = f"{CHAPTER_MARK}{ch.source}\n{body}"   # where typst's errors are told by chapter
    # labels of the bibliography block and entries repeat per chapter; make them unique
    return re.sub(r"<(refs|ref-[^>\s]+)>", lambda m: f"<{m.group(1)}--ch{ch.index}>", body)


def _font_paths(needs_cjk: bool, given: str | None) -> list[str]:
    if needs_cjk:
        return [str(require_cjk_font_dir(given))]
    d = find_cjk_font_dir(given)
    return [str(d)] if d is not None else []


def cover_vars(metadata: dict | None) -> dict[str, str]:
    """The cover's subtitle, edition and date from the book metadata (``book.subtitle``, ``book.edition``,
    ``book.date``, or top-level ``subtitle``/``date``), as typst code for the template; empty when absent.
    A date is printed as written (Quarto's keywords ``today``/``last-modified`` would make two builds differ)."""
    meta = metadata or {}
    book = meta.get("book") if isinstance(meta.get("book"), dict) else {}

    def field(k: str) -> str:
        v = book.get(k, meta.get(k))
        v = "" if v is None or isinstance(v, (dict, list)) else str(v).strip()
        return "" if k == "date" and v in ("today", "last-modified", "now") else v
    sub, ed, date = field("subtitle"), field("edition"), field("date")
    return {
        "{{COVER_SUBTITLE}}": (f'v(0.5cm)\n  text(size: 15pt, font: {{{{HEADING_FONTS}}}}, fill: rgb("#3d4650"))[{_typst_markup(sub)}]'
                               if sub else ""),
        "{{COVER_EDITION}}": f'text(size: 12pt, font: {{{{HEADING_FONTS}}}})[{_typst_markup(ed)}]\n  linebreak()' if ed else "",
        "{{COVER_DATE}}": f'text(size: 12pt, font: {{{{HEADING_FONTS}}}}, fill: rgb("#59636e"))[{_typst_markup(date)}]' if date else "",
    }


def book_source(title: str, lang: str, body: str, font_paths: list[str], metadata: dict | None = None) -> str:
    """The whole book as one typst file: the template filled in (the cover from ``metadata``)."""
    is_zh = lang.startswith("zh")
    cjk = f'"{CJK_SERIF}"' if font_paths else ""
    fonts = "(" + ", ".join(x for x in ('"Libertinus Serif"', cjk) if x) + ",)"
    heading_fonts = "(" + ", ".join(x for x in ('"Libertinus Serif"', f'"{CJK_SANS}"' if font_paths else "") if x) + ",)"
    repl = {**cover_vars(metadata),   # first: the cover's code names {{HEADING_FONTS}}
        "{{TITLE_STR}}": _typst_str(title),
        "{{TITLE}}": _typst_markup(title),
        "{{FONTS}}": fonts,
        "{{HEADING_FONTS}}": heading_fonts,
        "{{CJK_FONT}}": cjk or '"Libertinus Serif"',
        "{{LANG}}": "zh" if is_zh else lang.split("-")[0],
        "{{REGION}}": ', region: "cn"' if is_zh else "",
        "{{LEADING}}": "0.9em" if is_zh else "0.68em",
        "{{CONTENTS}}": ui("zh" if is_zh else "en")["contents"],
        "{{BODY}}": body,
    }
    src = TEMPLATE.read_text(encoding="utf-8")
    for k, v in repl.items():
        src = src.replace(k, v)
    return src


#: the typst comment before each chapter's body: a typst error is told by the chapter it stands in
CHAPTER_MARK = "// chapter: "


def compile_typst(src: str, typ_path: Path, root: Path, font_paths: list[str], needs_cjk: bool,
                  store=None) -> bytes:
    """The PDF of a typst source, cached by the source, the images it loads, typst's version and the fonts.
    typst's root is ``root``, the book's own (staging) folder: its images are paths from it (``/figures/…``,
    so the key is the same wherever the book is staged) and typst reads nothing outside it (a raw
    ``#read("/etc/hostname")`` finds no such file). ``typ_path``: a copy of the source for the author."""
    import typst  # the pip package "typst": only when a PDF is made
    typ_path.parent.mkdir(parents=True, exist_ok=True)
    typ_path.write_text(src, encoding="utf-8")
    root = Path(root).resolve()
    shown = sorted(set(IMAGE_RE.findall(src)))      # paths from the root: the same wherever it is staged
    images = [root / m.lstrip("/") for m in shown]
    kept = store is not None and store.enabled
    key = Inputs("pdf", (src,), dict(installed_versions()).get("typst", ""),
                 tuple((m, file_digest(path)) for m, path in zip(shown, images))
                 + tuple((f"font:{i}", font_identity(Path(d))) for i, d in enumerate(font_paths))) if kept else None
    pdf = store.get_blob(key) if kept else None
    if pdf is None:
        main = root / f".{typ_path.stem}.typ"   # typst's main file lies inside its root
        main.write_text(src, encoding="utf-8")
        try:
            pdf, warnings = typst.compile_with_warnings(str(main), root=str(root), font_paths=font_paths,
                                                        ignore_system_fonts=True)
        except Exception as e:  # typst.TypstError carries the diagnostics
            raise _typst_error(e, src, main.name, typ_path) from None
        finally:
            main.unlink(missing_ok=True)
        try:
            _verify_fonts(warnings, pdf, needs_cjk, font_paths, typ_path)
            _verify_glyphs(pdf, [str(m) for m in images], typ_path)
        except UnreadablePdf as e:
            raise RenderError(str(typ_path), None, f"typst wrote a PDF that cannot be read back: {e}") from None
        if kept:
            store.put_blob(key, pdf)
    return pdf


def _typst_error(e: Exception, src: str, main: str, typ_path: Path) -> RenderError:
    """typst's failure as one line naming the chapter whose text it failed in (the line of the source typst
    names, under the last chapter mark above it), else the typst file."""
    text = " ".join(str(getattr(e, "message", "") or e).split())[:1500]
    m = re.search(re.escape(main) + r":(\d+):\d+", str(getattr(e, "diagnostic", "") or ""))
    where = str(typ_path)
    if m:
        lines = src.split("\n")[: int(m.group(1))]
        marks = [ln[len(CHAPTER_MARK):] for ln in lines if ln.startswith(CHAPTER_MARK)]
        if marks:
            where = marks[-1]
        text += f" ({typ_path.name} line {m.group(1)})"
    return RenderError(where, None, f"typst failed: {text}")


def render_pdf(ctx: Context, chapters: list[Chapter], title: str, bibliography: list[Path], image_root: Path,
               pdf_path: Path, typ_path: Path, *, cjk_font_dir: str | None = None, store=None,
               metadata: dict | None = None) -> Path:
    body = "\n\n#pagebreak(weak: true)\n\n".join(chapter_typst(ctx, ch, bibliography, image_root) for ch in chapters)
    text = IMAGE_RE.sub("", body)   # an image's path is no text of the book (the project may sit in a CJK-named folder)
    needs_cjk = ctx.lang.startswith("zh") or bool(CJK_RE.search(text)) or bool(CJK_RE.search(title))
    font_paths = _font_paths(needs_cjk, cjk_font_dir)
    pdf = compile_typst(book_source(title, ctx.lang, body, font_paths, metadata), typ_path, image_root, font_paths,
                        needs_cjk, store)
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    pdf_path.write_bytes(pdf)
    return pdf_path


IMAGE_RE = re.compile(r'image\("([^"]+)"')


def font_identity(d: Path) -> str:
    """Font files of a folder by name, size and time (hashing 50 MB of CJK fonts every build costs more)."""
    out = []
    for p in sorted(Path(d).glob("*")):
        try:
            st = p.stat()
        except OSError:
            continue
        out.append(f"{p.name}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(out)


def _verify_fonts(warnings, pdf: bytes, needs_cjk: bool, font_paths: list[str], typ_path: Path) -> None:
    """Every glyph found a font: typst's font warnings are errors, and a book with Chinese text must
    embed the CJK font (a folder of empty or broken font files would otherwise give boxes)."""
    msgs = [" ".join(str(getattr(w, "message", w)).split()) for w in (warnings or [])]
    bad = [m for m in msgs if "font" in m.lower() or "glyph" in m.lower()]
    if bad:
        raise RenderError(str(typ_path), None, "typst could not set every character: " + " | ".join(bad[:3])
                          + (f" (fonts from {', '.join(font_paths)})" if font_paths else ""))
    if needs_cjk and not any("CJK" in name for name in font_names(pdf)):
        raise RenderError(str(typ_path), None, "the PDF embeds no CJK font, so its Chinese text would "
                          f"show as boxes: the fonts in {', '.join(font_paths) or 'no folder'} are not "
                          "usable Noto CJK fonts (apt-get install fonts-noto-cjk, or fix BOOK_CJK_FONT_DIR)")


def _verify_glyphs(pdf: bytes, images: list[str], typ_path: Path) -> None:
    """No placeholder glyph: none in the text (``.notdef``), none in a figure the PDF shows."""
    n, near = notdef_glyphs(pdf)
    if n:
        raise RenderError(str(typ_path), None, f"the PDF draws {n} character(s) as a missing-glyph box"
                          + (f" (near “{near}”)" if near else "") + ": no font given to typst has them")
    for img in images:
        if img.endswith(".svg"):
            bad = svg_placeholders(Path(img))
            if bad:
                raise RenderError(img, None, bad[0] + " (a figure drawn before its font was known: "
                                  "draw it again, e.g. python -m bookbuild render --no-cache)")
