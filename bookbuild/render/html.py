"""HTML site: one page per chapter, sidebar, on-this-page TOC, search, language switch.

Everything the pages load is written next to them (``assets/``, ``search-index.js``);
no page names another host.  Output is deterministic: no timestamps, sorted JSON.
"""
from __future__ import annotations

import html
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup

from . import pandoc as P
from .crossref import ChapterInfo, Context, relpath, transform_chapter

ASSETS = Path(__file__).parent / "assets"

UI = {
    "en": {"toc": "On this page", "search": "Search the book", "prev": "Previous",
           "next": "Next", "appendices": "Appendices", "theme": "Toggle dark mode",
           "pdf": "PDF", "pdf_title": "Download the book as PDF", "menu": "Chapters",
           "noresults": "No results", "lang_name": "English", "switch": "Read in English",
           "redirect": "Redirecting to", "skip": "Skip to the text"},
    "zh": {"toc": "本页目录", "search": "搜索全书", "prev": "上一章", "next": "下一章",
           "appendices": "附录", "theme": "切换深色模式", "pdf": "PDF",
           "pdf_title": "下载本书 PDF", "menu": "章节", "noresults": "没有结果",
           "lang_name": "中文", "switch": "阅读中文版", "redirect": "正在跳转到",
           "skip": "跳到正文"},
}


def source_key(source: str) -> str:
    """``appendix/x.zh.qmd`` -> ``appendix/x.qmd``: what a chapter and its translation share."""
    return re.sub(r"\.[a-z]{2}(?:-[A-Za-z]{2,4})?(?=\.(?:qmd|md|ipynb|rmd)$)", "", source)


def ui(lang: str) -> dict:
    return UI.get(lang.split("-")[0], UI["en"])


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
    chapters: list[ChapterInfo]
    ctx: Context
    bibliography: list[Path]
    pdf_name: str
    others: list[OtherProfile]
    #: page -> the reader data of that page: {"provenance": ..., "variants": ...} (see bookbuild.variants)
    page_data: dict[str, dict] = field(default_factory=dict)


def citeproc_lang(lang: str) -> str:
    return {"en": "en-US", "zh": "zh-CN"}.get(lang, lang)


def chapter_fragment(site: Site, ch: ChapterInfo) -> str:
    ast = transform_chapter(site.ctx, ch)
    ast["meta"] = {}
    args = ["-f", "json", "-t", "html5", "--mathml", "--wrap=none",
            "-M", f"lang={citeproc_lang(site.lang)}"]
    if ch.cited:
        args += ["--citeproc", "-M", "link-citations=true"]
        for b in site.bibliography:
            args += ["--bibliography", str(b)]
    return P.run(args, json.dumps(ast), ch.source)


def nav_label(site: Site, ch: ChapterInfo) -> str:
    t = html.escape(ch.title)
    if ch.number is None:
        return f'<span class="chapter-title">{t}</span>'
    return (f'<span class="chapter-number">{html.escape(ch.number)}</span>'
            f'<span class="chapter-title">{t}</span>')


def sidebar(site: Site, cur: ChapterInfo) -> str:
    u = ui(site.lang)
    items = []
    in_appendix = False
    for ch in site.chapters:
        if ch.appendix and not in_appendix:
            in_appendix = True
            items.append(f'<li class="sidebar-section">{html.escape(u["appendices"])}</li>')
        cls = ' class="active" aria-current="page"' if ch is cur else ""
        href = html.escape(relpath(ch.page, cur.page))
        items.append(f'<li><a href="{href}"{cls}>{nav_label(site, ch)}</a></li>')
    return "\n".join(items)


def toc_html(soup: BeautifulSoup, lang: str) -> str:
    rows = []
    for h in soup.find_all(["h2", "h3"]):
        if not h.get("id") or "unlisted" in (h.get("class") or []):
            continue
        text = " ".join(h.get_text("").split())
        rows.append(f'<li class="toc-{h.name}"><a href="#{html.escape(h["id"])}">'
                    f'{html.escape(text)}</a></li>')
    if not rows:
        return ""
    return (f'<h2 class="toc-title">{html.escape(ui(lang)["toc"])}</h2>\n'
            f'<ul>\n' + "\n".join(rows) + "\n</ul>")


def search_records(soup: BeautifulSoup, ch: ChapterInfo) -> list[dict]:
    """Split a page into sections at h1/h2/h3 and keep their text."""
    soup = BeautifulSoup(str(soup), "html.parser")
    for m in soup.find_all("math"):
        for ann in m.find_all("annotation"):
            ann.decompose()
        m.replace_with(m.get_text(""))
    recs: list[dict] = []
    cur = {"p": ch.page, "a": "", "t": ch.title, "x": []}

    def close():
        text = " ".join(" ".join(cur["x"]).split())
        if text or cur["a"]:
            recs.append({"p": cur["p"], "a": cur["a"], "t": cur["t"], "x": text})

    for node in soup.children:
        name = getattr(node, "name", None)
        if name in ("h1", "h2", "h3") and node.get("id"):
            close()
            cur = {"p": ch.page, "a": node["id"],
                   "t": " ".join(node.get_text("").split()), "x": []}
            continue
        text = node.get_text("").strip() if name else str(node).strip()
        if text:
            cur["x"].append(text)
    close()
    for r in recs:
        r["c"] = ch.title
    return recs


def lang_links(site: Site, ch: ChapterInfo) -> str:
    out = []
    for o in site.others:
        # the same chapter in the other language: same source path without the language
        # suffix (appendix/x.zh.qmd <-> appendix/x.qmd); a chapter with no translation
        # links to the other book's start page
        page = o.pages.get(source_key(ch.source), "index.html")
        href = "../" * ch.page.count("/") + f"../{o.profile}/{page}"
        u = ui(o.lang)
        out.append(f'<a class="lang-switch" href="{html.escape(href)}" hreflang="{o.lang}" '
                   f'lang="{o.lang}" title="{html.escape(u["switch"])}">'
                   f'{html.escape(u["lang_name"])}</a>')
    return "\n".join(out)


THEME_BOOT = ("<script>(function(){try{var t=localStorage.getItem('book-theme');}catch(e){}"
              "if(t!=='light'&&t!=='dark'){t=(window.matchMedia&&"
              "matchMedia('(prefers-color-scheme: dark)').matches)?'dark':'light';}"
              "document.documentElement.setAttribute('data-theme',t);"
              "document.documentElement.classList.add('js');})();</script>")


#: the book's own plotly.js (partial bundle, see assets/vendor/README.md) and the script that draws figures
PLOTLY_JS = "assets/vendor/plotly-basic.min.js"
FIGURES_JS = "assets/figures.js"
VENDOR_FILES = ("plotly-basic.min.js", "plotly-basic.LICENSE", "README.md")


def data_file(page: str) -> str:
    """The script next to a page that carries its reader data (``appendix/x.html`` -> ``appendix/x.data.js``)."""
    return page[: -len(".html")] + ".data.js" if page.endswith(".html") else page + ".data.js"


def reader_scripts(site: "Site", ch: ChapterInfo, root: str) -> str:
    """The page's own data (hover explanations, hardware choices) and the script that uses it."""
    if ch.page not in site.page_data:
        return ""
    own = data_file(ch.page).rsplit("/", 1)[-1]
    return (f'<script src="{html.escape(own)}" charset="utf-8"></script>\n'
            f'<script src="{root}assets/reader.js"></script>\n')


def figure_scripts(body: str, root: str) -> str:
    """plotly.js and figures.js, only on a page with an interactive figure (one file, cached across pages)."""
    if 'class="mlsysim-plot' not in body:
        return ""
    return (f'<script src="{root}{PLOTLY_JS}" charset="utf-8"></script>\n'
            f'<script src="{root}{FIGURES_JS}"></script>\n')


def page_html(site: Site, ch: ChapterInfo, body: str, toc: str) -> str:
    u = ui(site.lang)
    root = "../" * ch.page.count("/")
    prev_ = site.chapters[ch.index - 1] if ch.index > 0 else None
    next_ = site.chapters[ch.index + 1] if ch.index + 1 < len(site.chapters) else None
    # the book's title heads its first page, as Quarto's title block does
    title_block = (f'<header class="book-title-block"><h1 class="title">{html.escape(site.title)}</h1></header>\n'
                   if ch.page == "index.html" and site.title else "")
    pager = []
    if prev_:
        pager.append(f'<a class="pager-prev" rel="prev" href="{html.escape(relpath(prev_.page, ch.page))}">'
                     f'<span class="pager-dir">← {html.escape(u["prev"])}</span>'
                     f'<span class="pager-title">{nav_label(site, prev_)}</span></a>')
    else:
        pager.append('<span></span>')
    if next_:
        pager.append(f'<a class="pager-next" rel="next" href="{html.escape(relpath(next_.page, ch.page))}">'
                     f'<span class="pager-dir">{html.escape(u["next"])} →</span>'
                     f'<span class="pager-title">{nav_label(site, next_)}</span></a>')
    page_title = f"{ch.title} – {site.title}" if ch.title != site.title else site.title
    pdf_href = root + site.pdf_name
    return f"""<!DOCTYPE html>
<html lang="{html.escape(site.lang)}" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="bookbuild (pandoc)">
<title>{html.escape(page_title)}</title>
{THEME_BOOT}
<link rel="stylesheet" href="{root}assets/book.css">
</head>
<body data-root="{root}" data-noresults="{html.escape(u['noresults'])}">
<a class="skip-link" href="#content">{html.escape(u['skip'])}</a>
<header class="topbar">
<button type="button" class="sidebar-toggle" aria-controls="sidebar" aria-expanded="false" title="{html.escape(u['menu'])}">☰</button>
<a class="topbar-title" href="{root}index.html">{html.escape(site.title)}</a>
<span class="topbar-spacer"></span>
{lang_links(site, ch)}
<a class="pdf-link" href="{html.escape(pdf_href)}" title="{html.escape(u['pdf_title'])}">{html.escape(u['pdf'])}</a>
<button type="button" class="theme-toggle" title="{html.escape(u['theme'])}" aria-label="{html.escape(u['theme'])}"><span class="icon-light">☾</span><span class="icon-dark">☀</span></button>
</header>
<div class="layout">
<nav id="sidebar" class="sidebar" aria-label="{html.escape(u['menu'])}">
<div class="sidebar-title">{html.escape(site.title)}</div>
<div class="search">
<input type="search" id="search-input" placeholder="{html.escape(u['search'])}" aria-label="{html.escape(u['search'])}" autocomplete="off">
<ol id="search-results" class="search-results" hidden></ol>
</div>
<ul class="chapter-list">
{sidebar(site, ch)}
</ul>
</nav>
<main id="content" class="content" tabindex="-1">
{f'<details class="toc-menu"><summary>{html.escape(u["toc"])}</summary>{toc}</details>' if toc else ""}
{title_block}<article class="chapter">
{body}
</article>
<nav class="pager">
{"".join(pager)}
</nav>
</main>
<nav id="toc" class="toc" aria-label="{html.escape(u['toc'])}">
{toc}
</nav>
</div>
{figure_scripts(body, root)}{reader_scripts(site, ch, root)}<script src="{root}search-index.js"></script>
<script src="{root}assets/book.js"></script>
</body>
</html>
"""


def redirect_html(site: Site, target: str) -> str:
    u = ui(site.lang)
    t = html.escape(target)
    return f"""<!DOCTYPE html>
<html lang="{html.escape(site.lang)}">
<head>
<meta charset="utf-8">
<title>{html.escape(site.title)}</title>
<meta http-equiv="refresh" content="0; url={t}">
</head>
<body>
<p>{html.escape(u['redirect'])} <a href="{t}">{t}</a></p>
</body>
</html>
"""


def page_outline(body: str, ch: ChapterInfo, lang: str) -> tuple[list[dict], str]:
    """The page's search records and on-page table of contents (parsing the HTML is the slow part
    of a page, so the result is cached by the page's content, its name, title and language)."""
    from .. import cache as C
    key = (C.sha256_bytes(b"outline", body.encode("utf-8"), ch.page.encode(), ch.title.encode(), lang.encode(),
                          C.file_digest(Path(__file__)).encode()) if C.STORE.enabled else "")
    hit = C.STORE.get_blob("outline", key) if key else None
    if hit is not None:
        data = json.loads(hit.decode("utf-8"))
        return data["records"], data["toc"]
    soup = BeautifulSoup(body, "html.parser")
    recs, toc = search_records(soup, ch), toc_html(soup, lang)
    if key:
        C.STORE.put_blob("outline", key, json.dumps({"records": recs, "toc": toc}, ensure_ascii=False).encode("utf-8"))
    return recs, toc


def render_site(site: Site, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    records: list[dict] = []
    for ch in site.chapters:
        body = chapter_fragment(site, ch)
        recs, toc = page_outline(body, ch, site.lang)
        records.extend(recs)
        page = out / ch.page
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(page_html(site, ch, body, toc), encoding="utf-8")
        written.append(page)
    if not any(ch.page == "index.html" for ch in site.chapters):
        idx = out / "index.html"
        idx.write_text(redirect_html(site, site.chapters[0].page), encoding="utf-8")
        written.append(idx)
    (out / "assets").mkdir(exist_ok=True)
    for page, data in sorted(site.page_data.items()):
        target = out / data_file(page)
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps(dict(data, lang=site.lang), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        target.write_text("window.MLSYSIM_PAGE = " + payload.replace("</", "<\\/") + ";\n", encoding="utf-8")
        written.append(target)
    for name in ("book.css", "book.js", "figures.js", "reader.js"):
        shutil.copyfile(ASSETS / name, out / "assets" / name)
        written.append(out / "assets" / name)
    (out / "assets" / "vendor").mkdir(exist_ok=True)
    for name in VENDOR_FILES:
        shutil.copyfile(ASSETS / "vendor" / name, out / "assets" / "vendor" / name)
        written.append(out / "assets" / "vendor" / name)
    index_js = ("window.BOOK_SEARCH_INDEX = "
                + json.dumps(records, ensure_ascii=False, sort_keys=True, indent=0)
                + ";\n")
    (out / "search-index.js").write_text(index_js, encoding="utf-8")
    written.append(out / "search-index.js")
    return written
