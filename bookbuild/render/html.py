"""HTML site: one page per chapter, sidebar, on-this-page TOC, search, language switch.

Everything the pages load is written next to them (``assets/``, ``search-index.js``); no page names
another host. What a layer above adds (page data, scripts: :class:`~.additions.Additions`) goes in
at the end of each page's body. Output is deterministic: no timestamps, sorted JSON.

Every page carries a Content-Security-Policy (:func:`content_policy`): scripts only from the book's own
folder and the inline scripts the book wrote (the engine's, and the library's the layer vouches for, named by
their digest; never one from the prose or a cell's printed output), no inline event handlers, no
``javascript:`` links, no plugins, nothing from another host; so text that slipped into a page as markup
still cannot run. It holds for a book opened from disk (``file:``) as for one served. A page whose layer
runs WebAssembly (live mode) also allows compiling it (``'wasm-unsafe-eval'``), and only that page.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..cache import Inputs, file_digest
from .additions import Additions, check_policy
from . import outline as outline_module
from .filters import Chapter, Context, transform
from .outline import Heading, Section
from .pages import relpath, source_key
from .. import pieces
from . import jinja, previews
from .jinja import TEMPLATES, macro, markup
from ..errors import RenderError
from ..pandoc import read_files
from .strings import ui

ASSETS = Path(__file__).parent / "assets"
SITE_ASSETS = ("book.css", "book.js", "scroll-boxes.js")
#: what scrolls sideways on the book's pages (assets/scroll-boxes.js makes each a tab stop while it does)
SCROLLERS = "article table, article .eq-body, article math[display='block'], article pre"


@dataclass
class OtherProfile:
    profile: str
    lang: str
    pages: dict[str, str]  # language-neutral source key -> page in that profile's folder


@dataclass
class Site:
    profile: str
    lang: str
    title: str
    chapters: list[Chapter]
    ctx: Context
    bibliography: list[Path]
    pdf_name: str | None                 # None: the render makes no PDF (no link to one)
    others: list[OtherProfile]
    epub_name: str | None = None
    repo_url: str | None = None          # Quarto's book: repo-url
    additions: Additions = field(default_factory=Additions)
    store: object = None
    environment: str = ""                # the build's environment digest ("": page bodies are not cached)
    metadata: dict | None = None         # the book's metadata (its ``book:``: subtitle, author, date)


def citeproc_lang(lang: str) -> str:
    return {"en": "en-US", "zh": "zh-CN"}.get(lang, lang)


def fragment_scope(site: Site) -> bytes:
    """What every page body of ``site`` reads besides its own AST: the build's environment (the engine's
    code and tools), pandoc, the format and language, the words for numbers, the book's index and chapters
    (references point into them), the bibliography's keys and citeproc's arguments and files (by content)."""
    c = site.ctx
    return json.dumps([site.environment, c.pandoc.identity, c.fmt, c.lang, c.prefixes, c.index.to_json(),
                       sorted(c.bib_keys or []), c.bib_keys is None, list(c.cite_args), read_files(c.cite_args),
                       [[x.index, x.source, x.page, x.appendix, x.number, x.title, x.label, x.headings]
                        for x in c.chapters]], sort_keys=True, default=str).encode("utf-8")


def fragment_key(scope: bytes, ch: Chapter) -> Inputs:
    """Everything :func:`chapter_fragment` reads: the site's :func:`fragment_scope` (the environment in it)
    and the chapter's AST."""
    return Inputs("fragment", (scope, ch.source, ch.ast))


def _fragment_shape(hit) -> bool:
    return (isinstance(hit, dict) and isinstance(hit.get("html"), str) and isinstance(hit.get("cited"), list)
            and all(isinstance(c, str) for c in hit["cited"]))


def body_html(ctx: Context, ch: Chapter) -> str:
    """``ch``'s AST as a page body: the AST filters, then pandoc's HTML writer (with citeproc when it cites);
    sets ``ch.cited``. With a store, the citations are formatted by one citeproc run kept by the chapter's
    citations, and the blocks written piece by piece (:func:`.pieces.write`): the same HTML, byte for byte."""
    ast = transform(ctx, ch)
    ast["meta"] = {}
    args = ["-f", "json", "-t", "html5", "--mathml", "--wrap=none", "-M", f"lang={citeproc_lang(ctx.lang)}"]
    cite = [*ctx.cite_args, "-M", "link-citations=true"] if ch.cited else []
    store = ctx.pandoc.store
    if store is not None and store.enabled:
        try:
            if cite:
                pieces.resolve_citations(ast, lambda t: ctx.pandoc.run(
                    ["-f", "json", "-t", "json", "-M", f"lang={citeproc_lang(ctx.lang)}", *cite], t, ch.source))
            out = pieces.write(ast, lambda t: ctx.pandoc.run(args, t, ch.source, keep=False), store,
                               "\0".join([ctx.pandoc.identity, *args]))
        except (RenderError, ValueError):
            out = None   # the whole chapter is written below: pandoc's own message, if it has one
        if out is not None:
            return out
        ast = transform(ctx, ch)   # the citations may have been formatted in place: the filters' AST again
        ast["meta"] = {}
    return ctx.pandoc.run(args + cite, json.dumps(ast), ch.source)


def chapter_fragment(site: Site, ch: Chapter, scope: bytes | None = None) -> str:
    """The chapter's HTML body (the AST filters, then pandoc), from the cache when nothing it reads
    changed (:func:`fragment_key`; ``scope``: the site's :func:`fragment_scope`, None: not kept, as
    without the build's environment); sets ``ch.cited`` as the filters do."""
    def compute() -> dict:
        return {"html": body_html(site.ctx, ch), "cited": ch.cited}
    kept = scope is not None and site.store is not None and site.store.enabled
    got = site.store.memo(fragment_key(scope, ch), compute, _fragment_shape) if kept else compute()
    ch.cited = got["cited"]
    return got["html"]


def _nav(ch: Chapter) -> dict:
    """A chapter as the sidebar and the pager name it: its number (None: unnumbered) and title."""
    return {"number": ch.number, "title": ch.title}


def sidebar_items(site: Site, cur: Chapter) -> list[dict]:
    """The sidebar's entries: each chapter (its link, whether it is this page), the appendices' heading first."""
    u, items, in_appendix = ui(site.lang), [], False
    for ch in site.chapters:
        if ch.appendix and not in_appendix:
            in_appendix = True
            items.append({"section": u["appendices"]})
        items.append({"href": relpath(ch.page, cur.page), "active": ch is cur, **_nav(ch)})
    return items


def toc_html(toc: list[Heading], lang: str) -> str:
    """The on-page table of contents (:func:`bookbuild.render.outline.outline`'s entries)."""
    rows = [{"level": h.level, "id": h.id, "text": h.text} for h in toc]
    return str(macro("parts.html", "toc")(ui(lang), rows))


def search_records(sections: list[Section], ch: Chapter) -> list[dict]:
    """The page's search records: page, anchor, title, text and chapter of each section."""
    return [{"p": ch.page, "a": s.anchor, "t": s.title, "x": s.text, "c": ch.title} for s in sections]


def lang_links(site: Site, ch: Chapter) -> list[dict]:
    """The same chapter in the other language (a chapter with no translation links to that book's start)."""
    out = []
    for o in site.others:
        page = o.pages.get(source_key(ch.source), "index.html")
        u = ui(o.lang)
        out.append({"href": "../" * ch.page.count("/") + f"../{o.profile}/{page}", "lang": o.lang,
                    "switch": u["switch"], "name": u["lang_name"]})
    return out


def download_links(site: Site, root: str) -> list[dict]:
    """The top bar's links to the book's other formats and to its repository (when the book names one)."""
    u = ui(site.lang)
    out = [{"cls": "pdf-link", "href": root + name, "title": u[k + "_title"], "text": u[k]}
           for k, name in (("pdf", site.pdf_name), ("epub", site.epub_name)) if name]
    if site.repo_url:
        out.append({"cls": "pdf-link repo-link", "href": site.repo_url, "title": u["source_title"], "text": u["source"]})
    return out


def downloads(site: Site, root: str) -> str:
    """The top bar's download and repository links, as the page writes them."""
    return str(macro("parts.html", "downloads")(download_links(site, root)))


#: the script that sets the theme before the page paints (its digest is in every page's policy)
THEME_BOOT = "<script>" + (TEMPLATES / "theme-boot.js").read_text(encoding="utf-8").strip() + "</script>"


def added_styles(site: Site, ch: Chapter) -> list[str]:
    """The style sheets a layer above adds to this page."""
    add = site.additions.pages.get(ch.page)
    return [relpath(s, ch.page) for s in (add.styles if add else [])]


def added_scripts(site: Site, ch: Chapter) -> list[dict]:
    """The scripts a layer above adds to this page, in its order."""
    add = site.additions.pages.get(ch.page)
    return [{"src": relpath(src, ch.page), "charset": bool(charset)} for src, charset in (add.scripts if add else [])]


def _neighbour(site: Site, ch: Chapter, step: int) -> dict | None:
    i = ch.index + step
    if not 0 <= i < len(site.chapters):
        return None
    other = site.chapters[i]
    return {"href": relpath(other.page, ch.page), **_nav(other)}


#: an inline script element (no src) and its type; only JavaScript ones run
INLINE_SCRIPT = re.compile(r"<script(?P<attrs>(?:\s[^>]*)?)>(?P<code>.*?)</script\s*>", re.S | re.I)
SCRIPT_TYPE = re.compile(r"""\stype\s*=\s*["']?(?P<t>[^"'\s>]+)""", re.I)
JS_TYPES = ("", "text/javascript", "application/javascript", "module")


def script_source(code: str) -> str:
    """The policy source (``'sha256-…'``) that lets the inline script (or handler) ``code`` run."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii") + "'"


def inline_script_hashes(html_text: str) -> list[str]:
    """The CSP source (``'sha256-…'``) of every inline JavaScript element of ``html_text``, in order, once each."""
    out: list[str] = []
    for m in INLINE_SCRIPT.finditer(html_text):
        attrs = m.group("attrs") or ""
        if re.search(r"\ssrc\s*=", attrs, re.I):
            continue
        t = SCRIPT_TYPE.search(attrs)
        if (t.group("t").lower() if t else "") not in JS_TYPES:
            continue
        if script_source(m.group("code")) not in out:
            out.append(script_source(m.group("code")))
    return out


def own_script_hashes(site: Site, body: str) -> list[str]:
    """The inline scripts of a page its policy lets run: the engine's own (the theme's) and those the layer
    vouches for (:attr:`~.additions.Additions.own_scripts`) that the page holds; any other inline script
    (raw HTML in the prose, a cell's printed ``<script>``) is left out, so it does not run."""
    own = set(inline_script_hashes(THEME_BOOT)) | set(site.additions.own_scripts)
    return [h for h in inline_script_hashes(THEME_BOOT + body) if h in own]


def content_policy(scripts: list[str], added: dict[str, list[str]] | None = None) -> str:
    """The page's Content-Security-Policy: its own folder only; ``scripts``: the inline scripts allowed;
    ``added``: what the layer's scripts need for this page (:attr:`~.additions.PageAddition.policy`, checked
    by :func:`~.additions.check_policy`: compiling WebAssembly, for live mode). Styles may be inline
    (pandoc's column widths, plotly's figures); images and fonts may be ``data:``."""
    added = added or {}
    check_policy(added)
    return "; ".join([
        "default-src 'self'", "script-src " + " ".join(["'self'", *scripts, *added.get("script-src", [])]),
        "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:", "connect-src 'self'",
        "object-src 'none'", "base-uri 'none'", "form-action 'none'"])


def csp_meta(scripts: list[str], added: dict[str, list[str]] | None = None) -> str:
    """The policy as the page's first tag after its charset (it governs only what follows it)."""
    policy = html.escape(content_policy(scripts, added), quote=False).replace('"', "&quot;")
    return f'<meta http-equiv="Content-Security-Policy" content="{policy}">'


def added_policy(site: Site, ch: Chapter) -> dict[str, list[str]]:
    add = site.additions.pages.get(ch.page)
    return add.policy if add else {}


#: what holds a chapter's body in its page (:func:`page_html`)
ARTICLE = ('<article class="chapter">\n', "\n</article>")


def article_body(page: str) -> tuple[int, int] | None:
    """Where the chapter's body lies in a page :func:`page_html` wrote (start and end offsets), or None."""
    i, j = page.find(ARTICLE[0]), page.rfind(ARTICLE[1])
    return (i + len(ARTICLE[0]), j) if 0 <= i < j else None


def long_date(date: str, lang: str) -> str:
    """A ``YYYY-MM-DD`` date as Quarto's title block prints it (its default ``date-format``, dayjs's ``LL``):
    "December 1, 2026" in English (the pattern and month names: ``render/ui/<lang>.toml``); anything else as written."""
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", date.strip())
    u = ui(lang)
    if not m or not 1 <= int(m.group(2)) <= 12:
        return date.strip()
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    months = u.get("months") or []
    return u["date"].format(year=y, month=mo, day=d, month_name=months[mo - 1] if len(months) == 12 else mo)


def book_fields(metadata: dict | None) -> dict:
    """The book's ``subtitle``, ``author`` (a list) and ``date`` (``book:`` first, then the top level), each
    as text; a keyword date (``today``) is left out, as the PDF's cover leaves it (two builds would differ)."""
    meta = metadata or {}
    book = meta.get("book") if isinstance(meta.get("book"), dict) else {}

    def field(k: str):
        return book.get(k, meta.get(k))
    sub, date, authors = field("subtitle"), field("date"), field("author")
    authors = [authors] if isinstance(authors, str) else authors if isinstance(authors, list) else []
    date = str(date).strip() if isinstance(date, (str, int)) else ""
    return {"subtitle": str(sub).strip() if isinstance(sub, str) else "",
            "author": [str(a).strip() for a in authors if isinstance(a, str) and a.strip()],
            "date": "" if date in ("today", "last-modified", "now") else date}


def title_fields(site: Site) -> dict:
    """The book's title block (its first page, as Quarto's): the title, subtitle, author and date."""
    f = book_fields(site.metadata)
    return {"title": site.title, **f, "long_date": long_date(f["date"], site.lang) if f["date"] else ""}


def title_block(site: Site) -> str:
    return str(macro("parts.html", "title_block")(ui(site.lang), title_fields(site)))


def page_html(site: Site, ch: Chapter, body: str, toc: str, previews: str = "") -> str:
    """A chapter's page (``templates/page.html``): ``body`` its HTML, ``toc`` the on-page contents' HTML,
    ``previews`` the reading aids' templates of the targets on other pages."""
    root = "../" * ch.page.count("/")
    return jinja.render(
        "page.html", lang=site.lang, root=root, u=ui(site.lang), title=site.title,
        page_title=f"{ch.title} – {site.title}" if ch.title != site.title else site.title,
        csp=markup(csp_meta(own_script_hashes(site, body), added_policy(site, ch))), theme_boot=markup(THEME_BOOT),
        styles=added_styles(site, ch), others=lang_links(site, ch), formats=download_links(site, root),
        chapters=sidebar_items(site, ch), toc_html=markup(toc),
        # the book's title heads its first page, as Quarto's title block does
        book_title=title_fields(site) if ch.page == "index.html" and site.title else None,
        article=(markup(ARTICLE[0]), markup(ARTICLE[1])), body=markup(body), previews=markup(previews),
        prev=_neighbour(site, ch, -1), next=_neighbour(site, ch, 1), scripts=added_scripts(site, ch),
        scroll_boxes=markup(scroll_boxes_tag(root + "assets/scroll-boxes.js", SCROLLERS, ui(site.lang)["equation"])))


def scroll_boxes_tag(src: str, scrollers: str, equation: str) -> str:
    """The tag of ``assets/scroll-boxes.js`` (both renderers' pages): what scrolls, and the word for an equation."""
    return (f'<script src="{html.escape(src)}" data-scrollers="{html.escape(scrollers)}" '
            f'data-equation="{html.escape(equation)}"></script>')


def redirect_html(site: Site, target: str) -> str:
    """The book's ``index.html`` when no chapter is its first page: on to ``target``."""
    return jinja.render("redirect.html", lang=site.lang, csp=markup(csp_meta([])), title=site.title, target=target,
                        u=ui(site.lang))


def page_outline(site: Site, body: str, ch: Chapter) -> tuple[list[dict], str]:
    """The page's search records and on-page table of contents (cached by the page's content, its name,
    title and language, and the engine: the build's environment, else this module and the outline's)."""
    def compute() -> dict:
        o = outline_module.outline(body, ch.title)
        return {"records": search_records(o.sections, ch), "toc": toc_html(o.toc, site.lang)}
    store = site.store
    if store is None or not store.enabled:
        out = compute()
    else:
        engine = site.environment or file_digest(Path(__file__)) + file_digest(Path(outline_module.__file__))
        out = store.memo(Inputs("outline", (body, ch.page, ch.title, site.lang), engine), compute,
                         lambda hit: isinstance(hit, dict) and isinstance(hit.get("records"), list)
                         and isinstance(hit.get("toc"), str))
    return out["records"], out["toc"]


def _write(path: Path, text: str, written: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    written.append(path)


def render_site(site: Site, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    records: list[dict] = []
    scope = fragment_scope(site) if site.environment else None
    bodies = {ch.page: chapter_fragment(site, ch, scope) for ch in site.chapters}
    for ch in site.chapters:
        body = bodies[ch.page]
        recs, toc = page_outline(site, body, ch)
        records.extend(recs)
        _write(out / ch.page, page_html(site, ch, body, toc, previews.templates(ch.page, body, bodies)), written)
    if not any(ch.page == "index.html" for ch in site.chapters):
        _write(out / "index.html", redirect_html(site, site.chapters[0].page), written)
    (out / "assets").mkdir(exist_ok=True)
    for page, add in sorted(site.additions.pages.items()):
        for rel, text in sorted(add.files.items()):
            _write(out / rel, text, written)
    for name in SITE_ASSETS:
        shutil.copyfile(ASSETS / name, out / "assets" / name)
        written.append(out / "assets" / name)
    for rel, src in sorted(site.additions.assets.items()):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out / rel)
        written.append(out / rel)
    index_js = "window.BOOK_SEARCH_INDEX = " + json.dumps(records, ensure_ascii=False, sort_keys=True, indent=0) + ";\n"
    _write(out / "search-index.js", index_js, written)
    return written
