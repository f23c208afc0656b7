"""Quarto's ``project: post-render`` step: the book's own layer over the book Quarto just rendered.

1. The build's passes up to the book's layer run for the profile Quarto rendered (``parse`` → ``book``,
   cached by content: the variants, explanations and guards of the chapters Quarto executed);
2. their :class:`~bookbuild.render.additions.Additions` go into Quarto's pages as into ours: each page's
   data script, the reader's scripts and styles, the vendored plotly.js and the figure script;
3. what Quarto's book lacks: the bridge (:file:`assets/quarto-bridge.js`: Quarto's dark mode as the
   ``data-theme`` the figures read, search from ``file:``, the choice placed under the title) and the
   language switch to the same chapter of the other books.

Quarto's pages are edited as text at two places (the end of ``<head>`` and of ``<body>``), and one thing
Quarto wrote is rewritten: a chapter's number in the links to it (sidebar, breadcrumbs, page navigation and
the search index's crumbs), which Quarto's book takes from the chapter's position; the build's index has the
number the chapter declares (``number-offset``, bookbuild/numbering.py), which the extension's
``chapter-number.lua`` already gave the page's own title, sections, figures, tables and equations.

A Chinese book's references to sections, which Quarto's book writes after its filters ran
(book-crossrefs.ts: "节 A.6"), take the book's word order (``crossref-form``: "第 A.6 节") and lose the space the
source needs before ``@ref`` where it would stand between two Chinese characters, as every other reference
did in the extension's ``cjk-xref.lua`` and as bookbuild's own pages (``render/filters/cjk_spacing.py``).

What a reader's check finds in Quarto's own chrome is mended in its markup, the rest left as Quarto wrote it:
a skip link to the text as the first tab stop (in the book's language, right after ``<body>``), the
previous/next links named by what they show (their number too), and the headers of collapsible callouts
made buttons (Quarto gives them aria-expanded but no role).

Each page gets the Content-Security-Policy our pages have (:mod:`.policy`): Quarto's own scripts and the
layer's run; a script the prose or a cell's output put into the page's text is made inert and said.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import sys
from pathlib import Path, PurePosixPath

from .. import passes
from ..book.layer import BOOK
from ..book.reader import PLOT_MARK, VALUE_MARK
from ..errors import BuildError, BuildFailed, decode_utf8
from ..project import load_book, profiles
from ..render.additions import Additions, PageAddition
from ..render.html import ASSETS as RENDER_ASSETS, scroll_boxes_tag
from ..render.pages import page_for, relpath, source_key
from ..render.strings import ui
from ..settings import Settings, quarto_environment
from .policy import with_policy

ASSETS = Path(__file__).parent / "assets"
BRIDGE_JS = "assets/quarto-bridge.js"
BRIDGE_CSS = "assets/quarto-bridge.css"
SCROLL_BOXES_JS = "assets/scroll-boxes.js"
#: what scrolls sideways on Quarto's pages (the renderer's assets/scroll-boxes.js makes each a tab stop)
QUARTO_SCROLLERS = ("#quarto-document-content table, #quarto-document-content math, "
                    "#quarto-document-content .math.display, #quarto-document-content pre")
SEARCH_DATA = "assets/quarto-search-data.js"
MARK = "<!-- bookbuild: the book's own layer -->"
#: what a page lacks when a mark the book's layer needs is missing from Quarto's page, and why
MISSING = {
    VALUE_MARK: "has no marked values, so the reader's choice and explanations would change nothing: Quarto ran "
                "its chapter in another Jupyter kernel (the chapter's front matter names 'jupyter: mlsysim-book'; "
                "python -m bookbuild.quarto install-kernel registers it)",
    PLOT_MARK: "has no interactive figure where the book draws one: its figures reached Quarto as another output",
}


def profile_of(root: Path, active: str) -> str:
    """The profile Quarto rendered: the first of ``QUARTO_PROFILE`` that the project has, else its default."""
    names = profiles(root)
    for p in (x.strip() for x in active.split(",")):
        if p in names:
            return p
    return load_book(root, None).profile


def quarto_page(source: str) -> str:
    """The page Quarto writes for a chapter: its source path with ``.html`` (``index.zh.qmd`` ->
    ``index.zh.html``; Quarto adds an ``index.html`` that only redirects there, which gets no layer)."""
    return str(PurePosixPath(source).with_suffix(".html"))


def other_books(root: Path, profile: str, out_dir: Path | None = None) -> list[tuple[str, Path, dict[str, str]]]:
    """(language, output folder, source key -> Quarto's page) of every other profile. Rendered elsewhere
    (``quarto render --output-dir DIR/en``, ``out_dir``), the other books are where the same command puts
    them (``DIR/zh``): each profile's ``output-dir`` below the folder they share (``_book``) is kept below
    the folder ``out_dir`` is in."""
    books = {name: load_book(root, name) for name in profiles(root)}
    folders = {name: (root / b.output_dir).resolve() for name, b in books.items()}
    base = Path(os.path.commonpath([str(f) for f in folders.values()])) if len(folders) > 1 else None
    moved = None
    if out_dir is not None and base is not None and profile in folders and out_dir.resolve() != folders[profile]:
        mine = folders[profile].relative_to(base)
        moved = out_dir.resolve()
        for _ in mine.parts:
            moved = moved.parent
    out = []
    for name, book in books.items():
        if name == profile:
            continue
        pages = {source_key(ch.path.as_posix()): quarto_page(ch.path.as_posix()) for ch in book.chapters}
        folder = folders[name] if moved is None else moved / folders[name].relative_to(base)
        out.append((book.lang, folder, pages))
    return out


def language_links(page: str, source: str, out_dir: Path, others) -> str:
    links = []
    for lang, folder, pages in others:
        target = folder / pages.get(source_key(source), "index.html")
        href = os.path.relpath(target, (out_dir / page).parent).replace(os.sep, "/")
        u = ui(lang)
        links.append(f'<a class="mlsysim-lang-switch" href="{html.escape(href)}" hreflang="{lang}" lang="{lang}" '
                     f'title="{html.escape(u["switch"])}">{html.escape(u["lang_name"])}</a>')
    return f'<nav class="mlsysim-langs" aria-label="language">{"".join(links)}</nav>' if links else ""


BODY_OPEN = re.compile(r"<body\b[^>]*>")


def page_text(text: str, head: str, body: str, start: str = "") -> str:
    """Quarto's page with our additions before ``</head>`` and ``</body>`` and ``start`` right after
    ``<body>`` (a second run replaces them)."""
    text = re.sub(re.escape(MARK) + ".*?" + re.escape(MARK), "", text, flags=re.S)
    text = text.replace("</head>", f"{MARK}{head}{MARK}</head>", 1)
    if start:
        text = BODY_OPEN.sub(lambda m: f"{m.group(0)}{MARK}{start}{MARK}", text, count=1)
    return text.replace("</body>", f"{MARK}{body}{MARK}</body>", 1)


#: the element holding the text in Quarto's pages, where the skip link goes
CONTENT_ID = "quarto-document-content"


def skip_link(text: str, lang: str) -> str:
    """The skip link to the text, the page's first tab stop, in the page's language (the book's own string);
    nothing where the page has no such element."""
    if f'id="{CONTENT_ID}"' not in text:
        return ""
    return f'<a class="skip-link mlsysim-skip-link" href="#{CONTENT_ID}">{html.escape(ui(lang)["skip"])}</a>'


def page_lang(text: str, default: str = "en") -> str:
    m = re.search(r'<html\b[^>]*\blang="([^"]+)"', text[:4000])
    return m.group(1).split("-")[0] if m else default


PAGINATION = re.compile(r'(<a\s[^>]*?class="pagination-link"[^>]*?\saria-label=")([^"]*)("[^>]*>)(.*?)(</a>)', re.S)


def visible_text(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", markup)).split())


def pagination_names(text: str) -> str:
    """Quarto's previous/next links named by what they show: Quarto labels them with the chapter's title
    alone, while they show its number too (an accessible name must hold the visible text)."""
    def one(m: re.Match) -> str:
        shown = visible_text(m.group(4))
        return m.group(1) + html.escape(shown) + m.group(3) + m.group(4) + m.group(5) if shown else m.group(0)
    return PAGINATION.sub(one, text)


CALLOUT_TOGGLE = re.compile(r'<div class="callout-header\b[^"]*"[^>]*\bdata-bs-toggle="collapse"[^>]*>')


def callout_toggles(text: str) -> str:
    """Quarto's collapsible callouts: the header that opens and closes one has aria-expanded and
    aria-controls but no role, so they mean nothing to a screen reader (and it is no tab stop). It
    becomes a button (``role``, ``tabindex``; the bridge adds Enter and Space), named by its title, not
    Quarto's "Toggle callout" (an accessible name must hold the visible text)."""
    def one(m: re.Match) -> str:
        tag = m.group(0)
        if re.search(r"\srole=", tag):
            return tag
        tag = re.sub(r'\saria-label="[^"]*"', "", tag)
        return tag[:-1] + ' role="button" tabindex="0">'
    return CALLOUT_TOGGLE.sub(one, text)


DOWNLOAD_ITEM = re.compile(r'<li>\s*<a class="dropdown-item sidebar-tools-main-item" href="([^"]+)"[^>]*>.*?</a>\s*</li>\s*',
                           re.S)
DOWNLOAD_TOOL = re.compile(r'<a href="([^"]+\.(?:pdf|epub))"[^>]*class="[^"]*quarto-navigation-tool[^"]*"[^>]*>.*?</a>', re.S)
EMPTY_DROPDOWN = re.compile(r'<div class="dropdown">\s*<a [^>]*class="[^"]*quarto-navigation-tool[^"]*"[^>]*>.*?</a>\s*'
                            r'<ul class="dropdown-menu"[^>]*>\s*</ul>\s*</div>', re.S)


def downloads_that_exist(text: str, page: Path) -> str:
    """Quarto's download links (the sidebar's tools) to a file that is there: Quarto links every format of
    ``book: downloads`` whether or not this render wrote it (1.7.34 writes no typst book, so its PDF link was
    a 404); a link to no file goes, and a menu left empty with it."""
    def gone(href: str) -> bool:
        h = html.unescape(href).split("#")[0].split("?")[0]
        return bool(h) and "://" not in h and not (page.parent / h).is_file()
    text = DOWNLOAD_ITEM.sub(lambda m: "" if gone(m.group(1)) else m.group(0), text)
    text = DOWNLOAD_TOOL.sub(lambda m: "" if gone(m.group(1)) else m.group(0), text)
    return EMPTY_DROPDOWN.sub("", text)


def quarto_chrome(text: str, page: Path | None = None) -> str:
    """What the book's layer mends in Quarto's own markup of a page (each step leaves a mended page as it is;
    ``page``: where it lies, for the downloads it links)."""
    text = callout_toggles(pagination_names(text))
    return downloads_that_exist(text, page) if page is not None else text


def script_tags(scripts: list[tuple[str, bool]], page: str) -> str:
    return "".join(f'<script src="{html.escape(relpath(src, page))}"' + (' charset="utf-8"' if cs else "") + "></script>"
                   for src, cs in scripts)


def bridge_tag(page: str, lang: str) -> str:
    """The bridge's script tag, and the renderer's scroll-box script with what scrolls on Quarto's pages
    and the word it says (``render/ui``)."""
    return (f'<script src="{html.escape(relpath(BRIDGE_JS, page))}"></script>'
            + scroll_boxes_tag(relpath(SCROLL_BOXES_JS, page), QUARTO_SCROLLERS, ui(lang)["equation"]))


def rendered_pages(root: Path, out_dir: Path, output_files: str | None) -> set[Path] | None:
    """The HTML pages this render wrote (``None``: Quarto did not say, so every chapter's page)."""
    if output_files is None or not output_files.strip():
        return None
    files = {(root / line.strip()).resolve() for line in output_files.splitlines() if line.strip()}
    return {f for f in files if f.suffix == ".html" and out_dir in f.parents}


LINK_NUMBER = re.compile(r'(<a\s[^>]*?href="([^"#]+)(?:#[^"]*)?"[^>]*>(?:(?!</a>).)*?<span class="chapter-number">)'
                         r'([^<]*)(</span>)', re.S)
CRUMB_NUMBER = re.compile(r"(<span class=['\"]chapter-number['\"]>)([^<]*)(</span>)")


def renumber_links(text: str, page: str, numbers: dict[str, str]) -> str:
    """``text`` (the page ``page``) with each link to a chapter page in ``numbers`` (page -> the chapter's
    number) showing that number."""
    base = PurePosixPath(page).parent

    def one(m: re.Match) -> str:
        target = os.path.normpath((base / m.group(2)).as_posix()).replace(os.sep, "/")
        return m.group(1) + html.escape(numbers[target]) + m.group(4) if target in numbers else m.group(0)
    return LINK_NUMBER.sub(one, text)


def renumber_search(data: str, numbers: dict[str, str]) -> str:
    """Quarto's search.json with each chapter's crumbs showing its number (entries name their page)."""
    entries = json.loads(data)
    for e in entries if isinstance(entries, list) else []:
        page = str(e.get("href", "")).split("#")[0].removeprefix("./")
        if page in numbers and isinstance(e.get("crumbs"), list):
            e["crumbs"] = [CRUMB_NUMBER.sub(lambda m: m.group(1) + numbers[page] + m.group(3), c)
                           if isinstance(c, str) else c for c in e["crumbs"]]
    return json.dumps(entries, ensure_ascii=False)


_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
#: a cross-reference Quarto's book resolved after pandoc: the link, its word, the number, and the spaces around
BOOK_XREF = re.compile(r"(?P<before>(?<=[" + _CJK + r"]) )?(?P<open><a\s[^>]*class=\"quarto-xref\"[^>]*><span>)"
                       r"(?P<word>[^<\s\u00a0]+)[ \u00a0](?P<num>[^<\s]+)(?P<close></span></a>)"
                       r"(?P<after> (?=[" + _CJK + r"]))?")


def cjk_xrefs(text: str, forms: dict[str, str]) -> str:
    """Quarto's "汇总于 节 A.6，" as the book writes it, "汇总于第 A.6 节，" (``forms``: word -> form with ``{}``)."""
    cjk = re.compile("[" + _CJK + "]")

    def one(m: re.Match) -> str:
        form = forms.get(m["word"])
        if form is None:
            return m[0]
        words = form.replace(" ", "\u00a0").replace("{}", m["num"])
        return ((m["before"] or "") if not cjk.match(words[0]) else "") + m["open"] + html.escape(words) \
            + m["close"] + ((m["after"] or "") if not cjk.match(words[-1]) else "")
    return BOOK_XREF.sub(one, text)


def cjk_xrefs_search(data: str, forms: dict[str, str]) -> str:
    """Quarto's search.json with its texts' references as the pages read them after :func:`cjk_xrefs`
    ("汇总于 节 A.6，" -> "汇总于第 A.6 节，"): the index holds each reference as plain text."""
    cjk = re.compile("[" + _CJK + "]")
    words = "|".join(re.escape(w) for w in sorted(forms, key=len, reverse=True))
    ref = re.compile(r"(?P<before>(?<=[" + _CJK + r"]) )?(?P<word>" + words + r")[ \u00a0]"
                     r"(?P<num>(?:[A-Z]|\d+)(?:\.\d+)*)(?P<after> (?=[" + _CJK + r"]))?")

    def one(m: re.Match) -> str:
        out = forms[m["word"]].replace("{}", m["num"])
        return ((m["before"] or "") if not cjk.match(out[0]) else "") + out \
            + ((m["after"] or "") if not cjk.match(out[-1]) else "")
    entries = json.loads(data)
    for e in entries if isinstance(entries, list) and words else []:
        for key in ("text", "section", "title"):
            if isinstance(e.get(key), str):
                e[key] = ref.sub(one, e[key])
    return json.dumps(entries, ensure_ascii=False)


MATH = re.compile(r"<math\b[^>]*>(.*?)</math>", re.S)
TEX = re.compile(r'<annotation encoding="application/x-tex">(.*?)</annotation>', re.S)


def math_texts(page: str) -> list[tuple[str, str]]:
    """(what a reader sees, its TeX source) of each MathML formula of a page."""
    out = []
    for m in MATH.finditer(page):
        tex = TEX.search(m.group(1))
        if tex:
            seen = html.unescape(re.sub(r"<[^>]*>", "", TEX.sub("", m.group(1))))
            out.append((seen, html.unescape(tex.group(1))))
            # ... as search.json may hold them: with the markup's entities (&gt;) kept
            out.append((html.escape(seen, quote=False), html.escape(html.unescape(tex.group(1)), quote=False)))
    return out


def search_without_tex(data: str, pages: list[str]) -> str:
    """Quarto's search.json with the TeX source of the pages' math taken out of its texts: Quarto indexes a
    formula's MathML text and, right after it, its TeX annotation (``d=TmodelTmodel+Ttool(19.1)d =
    \\frac{T_{\\text{model}}}…``), so a snippet showed the source. ``pages``: the HTML of the book's pages."""
    pairs = sorted({p for page in pages for p in math_texts(page)}, key=lambda p: len(p[0]) + len(p[1]), reverse=True)
    entries = json.loads(data)
    for e in entries if isinstance(entries, list) else []:
        text = e.get("text")
        if not isinstance(text, str):
            continue
        for seen, tex in pairs:
            if tex in text and re.search(r"[\\{}^_]", tex):   # source a reader would not read as text
                text = re.sub(re.escape(seen) + r"\s*" + re.escape(tex), lambda _m, s=seen: s, text)
        e["text"] = text
    return json.dumps(entries, ensure_ascii=False)


#: what to do about a file of Quarto's book that does not read
RENDER_AGAIN = "render the book again with Quarto (the file was cut short or altered)"


def _quarto_text(f: Path) -> str:
    """A file Quarto wrote, as text; one that is not UTF-8 is ONE line naming it, its line and column."""
    try:
        data = f.read_bytes()
    except OSError as e:
        raise BuildError(str(f), None, f"cannot be read ({e.strerror})") from None
    return decode_utf8(data, str(f), RENDER_AGAIN)


def _search_index(search: Path) -> str:
    """Quarto's search.json, read and checked: a truncated or altered one is ONE line naming it."""
    text = _quarto_text(search)
    try:
        json.loads(text)
    except ValueError as e:
        raise BuildError(str(search), getattr(e, "lineno", None),
                         f"is not valid JSON ({getattr(e, 'msg', e)}): {RENDER_AGAIN}") from None
    return text


def apply(out_dir: Path, additions: Additions, chapters: list[str], others,
          rendered: set[Path] | None = None, numbers: dict[str, str] | None = None,
          lang: str | None = None, forms: dict[str, str] | None = None) -> list[Path]:
    """Write the additions into the pages of Quarto's book at ``out_dir`` (those in ``rendered``, the HTML
    pages this render wrote; all when ``None``; ``numbers``: each chapter's number by Quarto's page, for the
    links to it and the search index's crumbs; ``lang``: the book's language, else each page's own;
    ``forms``: the book's ``crossref-form``, for the references Quarto's book resolved after its filters);
    returns the pages changed. Every page is checked first (it exists and holds what the layer needs), so
    a refused book is left as Quarto wrote it."""
    pages = []
    for source in chapters:
        f = out_dir / quarto_page(source)
        if rendered is not None and f.resolve() not in rendered:
            continue   # another format, or a render of other files
        if not f.is_file():
            raise BuildError(str(f), None, "Quarto rendered no such page; the book and the project disagree")
        add = additions.pages.get(page_for(source)) or PageAddition()   # the build's page of the same chapter
        text = _quarto_text(f)
        for mark in add.marks:
            if mark not in text:
                raise BuildError(str(f), None, MISSING.get(mark, f"lacks {mark}, which the book's layer needs"))
        pages.append((source, f, add, text))
    if not pages:
        return []
    numbers = numbers or {}
    search = out_dir / "search.json"
    index = _search_index(search) if search.is_file() else None   # checked before anything is written
    if index is not None:   # the chapters' numbers, and no TeX in the snippets
        if numbers:
            index = renumber_search(index, numbers)
        index = search_without_tex(index, [t for _, _, _, t in pages])
        if forms:
            index = cjk_xrefs_search(index, forms)
        search.write_text(index, encoding="utf-8")
    if index is not None:   # Quarto's own index, for the bridge to answer its fetch from file: pages
        (out_dir / SEARCH_DATA).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / SEARCH_DATA).write_text("window.MLSYSIM_QUARTO_SEARCH = " + index
                                           .replace("</", "<\\/") + ";\n", encoding="utf-8")
    assets = {**additions.assets, BRIDGE_JS: ASSETS / "quarto-bridge.js", BRIDGE_CSS: ASSETS / "quarto-bridge.css",
              SCROLL_BOXES_JS: RENDER_ASSETS / "scroll-boxes.js"}
    for rel, src in sorted(assets.items()):
        (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out_dir / rel)
    for source, f, add, text in pages:
        page = quarto_page(source)
        for rel, data in sorted(add.files.items()):
            (out_dir / rel).write_text(data, encoding="utf-8")
        body = language_links(page, source, out_dir, others) + script_tags(add.scripts, page)
        head = "".join(f'<link rel="stylesheet" href="{html.escape(relpath(s, page))}">'
                       for s in [BRIDGE_CSS] + add.styles)
        page_language = lang or page_lang(text)
        head += script_tags([(SEARCH_DATA, True)] if search.is_file() else [], page) + bridge_tag(page, page_language)
        start = skip_link(text, page_language)
        if forms:
            text = cjk_xrefs(text, forms)
        text = page_text(quarto_chrome(renumber_links(text, page, numbers), f), head, body, start)
        ours = set(assets) | set(add.files) | {src for src, _ in add.scripts}
        text, inert = with_policy(text, page, set(additions.own_scripts), ours, add.policy)
        if inert:
            print(f"post-render: {page}: {inert} script{'s' if inert > 1 else ''} in the page's text "
                  "(raw HTML or a cell's output) not the book's own: made inert, as the page's policy runs only "
                  "the book's scripts", file=sys.stderr)
        f.write_text(text, encoding="utf-8")
    return [f for _, f, _, _ in pages]


def run(root: Path, active_profile: str, output_dir: str, output_files: str | None = None) -> list[Path]:
    root = Path(root).resolve()
    profile = profile_of(root, active_profile)
    book = load_book(root, profile)
    out_dir = (root / output_dir).resolve() if output_dir else (root / book.output_dir).resolve()
    rendered = rendered_pages(root, out_dir, output_files)
    if rendered is not None and not rendered:
        return []   # no HTML this time (typst, epub): nothing of the layer to add
    settings = Settings.make(root, layer=BOOK, quiet=True)
    b = passes.run(settings, [profile], passes.COMMANDS["check"])
    numbers = {quarto_page(c.source): c.number for c in b.index[profile].chapters if c.number is not None}
    forms = {k[len("form:"):]: v for k, v in book.crossref.items() if k.startswith("form:")}
    return apply(out_dir, b.additions[profile], [ch.path.as_posix() for ch in b.books[0].chapters],
                 other_books(root, profile, out_dir), rendered, numbers, book.lang, forms)


def main(argv: list[str]) -> int:
    env = quarto_environment()
    try:
        pages = run(Path.cwd(), env["profile"], env["output_dir"], env["output_files"])
    except BuildFailed as e:
        for err in e.errors:
            print(err.format(), file=sys.stderr)
        return 1
    except BuildError as e:
        print(e.format(), file=sys.stderr)
        return 1
    print(f"bookbuild: the book's layer added to {len(pages)} page(s) of Quarto's book")
    return 0


__all__ = ["apply", "cjk_xrefs", "main", "run"]
