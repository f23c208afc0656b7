"""Render the small fixture book (English + Chinese) to HTML and PDF and check the result.

The fixture (tests/fixtures/render_book) is executed markdown as ``bookbuild.execute``
writes it: the English appendix of seed 000 with numbers filled in, a short lecture with
a figure, callouts, format-specific blocks and a raw-HTML explorer, and a short Chinese
book with the same labels.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from bookbuild.render.profile import render_profile

FIXTURE = Path(__file__).parents[1] / "fixtures" / "render_book"
PROFILES = ("en", "zh")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _render(root: Path) -> dict[str, list[Path]]:
    return {p: render_profile(root, p, root / "_build" / "executed", root / "_book")
            for p in PROFILES}


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("book")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    _render(root)
    return root / "_book"


def pages(book: Path, profile: str) -> list[Path]:
    return sorted((book / profile).rglob("*.html"))


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def norm(text: str) -> str:
    """Collapse whitespace but keep non-breaking spaces (str.split() would eat them)."""
    return re.sub(r"[ \t\r\n]+", " ", text).strip()


def visible_text(s: BeautifulSoup) -> str:
    s = BeautifulSoup(str(s), "html.parser")
    for t in s(["script", "style", "math"]):
        t.decompose()
    return norm(s.get_text(" "))


# ------------------------------------------------------------------ HTML
@pytest.mark.parametrize("profile", PROFILES)
def test_pages_exist(book, profile):
    names = {p.relative_to(book / profile).as_posix() for p in pages(book, profile)}
    suffix = "" if profile == "en" else ".zh"
    assert {"index.html", f"lectures/demo{suffix}.html",
            f"appendix/inference-cost{suffix}.html"} <= names
    assert (book / profile / "search-index.js").is_file()
    assert (book / profile / "assets" / "book.css").is_file()


@pytest.mark.parametrize("profile", PROFILES)
def test_every_link_resolves(book, profile):
    ids_cache: dict[Path, set[str]] = {}

    def ids(p: Path) -> set[str]:
        if p not in ids_cache:
            ids_cache[p] = {t["id"] for t in soup(p).find_all(id=True)}
        return ids_cache[p]

    checked = 0
    for page in pages(book, profile):
        for a in soup(page).find_all("a", href=True):
            href = a["href"]
            parts = urlsplit(href)
            if a.find_parent(id="refs") is not None and parts.scheme == "https":
                continue          # a DOI/URL in a bibliography entry: a link, not a load
            assert not parts.scheme and not parts.netloc, f"{page.name}: external link {href}"
            # a preview held for another page (<template id="xref-previews">) links from that page
            held = a.find_parent(attrs={"data-page": True})
            base = (page.parent / held["data-page"]) if held is not None else page
            target = base if not parts.path else (base.parent / unquote(parts.path)).resolve()
            assert target.exists(), f"{page.name}: {href} -> missing {target}"
            if parts.fragment:
                assert parts.fragment in ids(target), f"{page.name}: {href} -> no id"
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("profile", PROFILES)
def test_no_unresolved_refs_and_math_is_mathml(book, profile):
    for page in pages(book, profile):
        s = soup(page)
        text = visible_text(s)
        assert "??" not in text, page
        assert not re.search(r"[@?](sec|tbl|eq|fig)-", text, re.I), page
        assert "$$" not in text and "\\frac" not in text, page
        for eq in s.select(".quarto-eq"):
            assert eq.find("math") is not None
            assert re.fullmatch(r"\([A-Z0-9]+\.\d+\)", eq.select_one(".eq-number").get_text())


@pytest.mark.parametrize("profile", PROFILES)
def test_nothing_loads_from_another_host(book, profile):
    for f in sorted((book / profile).rglob("*")):
        if f.suffix == ".html":
            s = soup(f)
            for tag in s.find_all(True):
                if tag.name == "a" and tag.find_parent(id="refs") is not None:
                    continue      # bibliography DOIs are links the reader may follow
                for attr in ("src", "href", "data", "poster", "srcset", "action"):
                    v = tag.get(attr)
                    if v:
                        assert not re.match(r"^([a-z][a-z0-9+.-]*:|//)", v, re.I) or \
                            v.startswith(("#", "data:")), f"{f.name}: <{tag.name} {attr}={v}>"
        elif f.suffix in (".css", ".js") and f.name != "search-index.js":
            text = f.read_text(encoding="utf-8")
            assert not re.search(r"url\(\s*['\"]?(https?:)?//", text), f
            assert "@import" not in text, f
            if f.parent.name == "vendor":  # third-party plotly.js: only the reviewed strings below
                assert set(re.findall(r"https?://[^\s\"' )]*", text)) <= VENDOR_URLS, f
            else:
                assert not re.search(r"https?://", text), f


#: every URL string inside the vendored plotly.js (assets/vendor): XML namespace names and credits, which load
#: nothing, and the addresses of features the book's figures never use (geo maps' topojson, the chart-studio
#: export, the logo link: PLOTLY_CONFIG disables the last two; the basic bundle has no geo traces). The browser
#: tests check that no request leaves file: while the figures are used.
VENDOR_URLS = {
    "http://www.w3.org/1999/xhtml", "http://www.w3.org/1999/xlink", "http://www.w3.org/2000/svg",
    "http://www.w3.org/2000/xmlns/", "http://www.w3.org/XML/1998/namespace",
    "http://getify.mit-license.org", "http://syntheti.cc", "https://github.com/d3/d3-format/tree/v1.4.5#d3-format",
    "https://github.com/d3/d3-time-format/tree/v2.2.3#locale_format", "https://github.com/voidqk/polybooljs",
    "https://plotly.com/javascript/animations/",
    "https://cdn.plot.ly/un/", "https://cloud.plotly.com/newchart", "https://plotly.com/",
}


def test_english_numbering(book):
    s = soup(book / "en" / "appendix" / "inference-cost.html")
    assert norm(s.h1.get_text()) == "Appendix A — Inference Cost Foundations"
    h2 = [norm(h.get_text()) for h in s.find_all("h2")]
    assert "How to Use This Appendix" in h2          # unnumbered
    assert "A.1 Why Output Costs More Than Input" in h2
    assert "A.6 Reference Values" in h2
    assert "A.1.1 The roofline" in [norm(h.get_text()) for h in s.find_all("h3")]
    caps = [norm(c.get_text()) for c in s.find_all("caption")]
    assert caps[0].startswith("Table\u00a0A.1: Question-to-Derivation Lookup")
    assert s.find(id="eq-appdx-decode-prefill-ratio").select_one(".eq-number").get_text() == "(A.3)"
    # tbl-colwidths="[42,26,32]" became column widths
    widths = [c.get("style") for c in s.find("table").find_all("col")]
    assert widths == ["width: 42%", "width: 26%", "width: 32%"]
    text = visible_text(s)
    assert "Section\u00a0A.6" in text and "Equation\u00a0A.1" in text
    assert "Table\u00a0A.2 applies" in text             # @Tbl- at sentence start
    assert "Williams et al. 2009" in text
    assert s.find(id="refs").find(class_="csl-entry") is not None


def test_english_lecture_page(book):
    s = soup(book / "en" / "lectures" / "demo.html")
    assert norm(s.h1.get_text()) == "1 Serving Agents: The Tool Stall"
    links = {norm(a.get_text()): a["href"] for a in s.select("a.quarto-xref")}
    assert links["Equation\u00a0A.2"] == "../appendix/inference-cost.html#eq-appdx-shuttle-floor"
    assert links["Figure\u00a01.1"] == "#fig-demo-roofline"
    assert links["Table\u00a0A.3"].endswith("#tbl-appdx-hardware-constants")
    assert links["1.1"] == "#sec-demo-stall"           # -@sec-x: number only
    fig = s.find(id="fig-demo-roofline")
    assert fig.find("img")["src"] == "roofline.svg"
    assert fig.find("img")["alt"].startswith("A roofline plot")
    assert "Figure\u00a01.1:" in fig.get_text()
    # callouts: collapse="true" -> closed <details>; plain callout -> titled box
    det = s.find("details", class_="callout-note")
    assert det is not None and not det.has_attr("open")
    assert det.summary.get_text(strip=True) == "Why the ratio is 295"
    assert s.find("div", class_="callout-warning").select_one(".callout-header").get_text(
        strip=True) == "Not a benchmark"
    text = visible_text(s)
    assert "interactive explorer below" in text              # when-format="html" kept
    assert "HTML edition of this book" not in text           # when-format="pdf" dropped
    assert s.find(id="explorer-demo") is not None            # raw html block
    preface = soup(book / "en" / "index.html")
    assert "Chapter\u00a01" in visible_text(preface) and "Appendix\u00a0A" in visible_text(preface)


def test_chinese_numbering_and_citations(book):
    s = soup(book / "zh" / "appendix" / "inference-cost.zh.html")
    assert s.html["lang"] == "zh"
    assert norm(s.h1.get_text()) == "附录 A — 推理成本基础"
    text = visible_text(s)
    for want in ("节\u00a0A.4", "表\u00a0A.1", "公式\u00a0A.2", "公式\u00a0A.3"):
        assert want in text, want
    assert "Williams 等" in text           # citeproc with the zh-CN locale
    assert "参考文献" in [h.get_text(strip=True) for h in s.find_all("h2")]
    cap = s.find("caption").get_text()
    assert cap.startswith("表\u00a0A.1:")


@pytest.mark.parametrize("profile,other", [("en", "zh"), ("zh", "en")])
def test_language_switch(book, profile, other):
    for page in pages(book, profile):
        s = soup(page)
        if s.find("meta", attrs={"http-equiv": "refresh"}):
            continue
        sw = s.select("a.lang-switch")
        assert len(sw) == 1, page
        target = (page.parent / sw[0]["href"]).resolve()
        assert target.is_file(), f"{page}: {sw[0]['href']}"
        assert target.is_relative_to((book / other).resolve())
    # chapter i <-> chapter i
    s = soup(book / profile / "lectures" / f"demo{'' if profile == 'en' else '.zh'}.html")
    assert s.select_one("a.lang-switch")["href"] == \
        f"../../{other}/lectures/demo{'' if other == 'en' else '.zh'}.html"


@pytest.mark.parametrize("profile", PROFILES)
def test_site_chrome(book, profile):
    s = soup(book / profile / "lectures" / f"demo{'' if profile == 'en' else '.zh'}.html")
    assert s.select_one("#sidebar a.active").get_text(" ", strip=True).startswith("1")
    assert len(s.select("#sidebar .chapter-list a")) == 3
    assert s.select("#toc a[href='#sec-demo-stall']")
    assert s.select_one("a[rel=prev]") and s.select_one("a[rel=next]")
    pdf = s.select_one("a.pdf-link")["href"]
    assert pdf.endswith(".pdf") and (book / profile / "lectures" / unquote(pdf)).resolve().is_file()
    assert s.select_one("button.theme-toggle") is not None
    assert "prefers-color-scheme" in str(s.head) and "localStorage" in str(s.head)
    assert s.select_one("#search-input") is not None


@pytest.mark.parametrize("profile", PROFILES)
def test_search_index(book, profile):
    js = (book / profile / "search-index.js").read_text(encoding="utf-8")
    m = re.fullmatch(r"window\.BOOK_SEARCH_INDEX = (.*);\n", js, re.S)
    recs = json.loads(m.group(1))
    assert {r["p"] for r in recs} == {p.relative_to(book / profile).as_posix()
                                      for p in pages(book, profile)}
    for r in recs:
        assert set(r) == {"p", "a", "t", "x", "c"}
        if r["a"]:
            target = book / profile / r["p"]
            assert soup(target).find(id=r["a"]) is not None, r
    blob = " ".join(r["x"] for r in recs)
    if profile == "zh":
        assert "屋顶线" in blob
    else:
        assert "Little's law" in blob or "Little’s law" in blob


# ------------------------------------------------------------------ PDF
def pdftotext(pdf: Path) -> str:
    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.fail("pdftotext (poppler-utils) is not installed: apt-get install -y poppler-utils" + " (scripts/setup.sh installs it)")
    return subprocess.run([exe, "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def test_english_pdf(book):
    pdfs = sorted((book / "en").glob("*.pdf"))
    assert [p.name for p in pdfs] == ["Inference-Cost-Foundations-for-Agent-Engineers.pdf"]
    text = pdftotext(pdfs[0])
    for want in ("Appendix A — Inference Cost Foundations", "Table A.1:", "A.1 Why Output",
                 "Equation A.2", "(A.3)", "295", "Williams, Samuel", "HTML edition of this book"):
        assert want in text, want
    assert "interactive explorer below" not in text
    assert "??" not in text and not re.search(r"@(sec|tbl|eq|fig)-", text)


def test_chinese_pdf(book):
    pdfs = sorted((book / "zh").glob("*.pdf"))
    assert len(pdfs) == 1
    text = pdftotext(pdfs[0])
    assert len(CJK.findall(text)) > 200
    for want in ("附录 A — 推理成本基础", "表 A.1", "公式 A.2", "295", "目录"):
        assert want in text, want
    fonts = subprocess.run(["pdffonts", str(pdfs[0])], capture_output=True, text=True).stdout \
        if shutil.which("pdffonts") else "NotoSerifCJK"
    assert "NotoSerifCJK" in fonts.replace("-", "").replace(" ", "") or "NotoSerif" in fonts


def test_pdf_internal_links(book):
    pdf = next((book / "en").glob("*.pdf")).read_bytes()
    # cross-references are GoTo links inside the document, never URIs
    assert pdf.count(b"/GoTo") + pdf.count(b"/Dest") > 20


# ------------------------------------------------------------------ determinism
def test_render_is_deterministic(book, tmp_path):
    shutil.copytree(FIXTURE, tmp_path, dirs_exist_ok=True)
    _render(tmp_path)
    first = {p.relative_to(book).as_posix(): p.read_bytes()
             for p in sorted(book.rglob("*")) if p.is_file()}
    second = {p.relative_to(tmp_path / "_book").as_posix(): p.read_bytes()
              for p in sorted((tmp_path / "_book").rglob("*")) if p.is_file()}
    assert first.keys() == second.keys()
    differ = [k for k in first if first[k] != second[k]]
    assert not differ, differ
