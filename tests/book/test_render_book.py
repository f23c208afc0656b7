"""Execute and render the real book (both languages) in a scratch copy, then check the
HTML site and the PDFs the way a reader would meet them."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from bookbuild.project import load_book, profiles

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".git", "_build", "_book", "__pycache__", ".pytest_cache", "node_modules"}
# numbers the seeds print (seed 001 lists them as the expected output of the cells)
GOLDEN = ("295", "591", "21.1", "327,680", "526.0", "48")


@pytest.fixture(scope="module")
def built(rendered_book):
    """The session's rendered book (tests/conftest.py) and its books by profile."""
    root = rendered_book.parent
    names = profiles(root)
    assert {"en", "zh"} <= set(names)
    return rendered_book, {n: load_book(root, n) for n in names}


def _soup(p: Path) -> BeautifulSoup:
    return BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")


def _ids(s: BeautifulSoup) -> set[str]:
    return {t["id"] for t in s.find_all(id=True)}


def _text(s: BeautifulSoup) -> str:
    s = BeautifulSoup(str(s), "html.parser")
    for t in s(["script", "style", "math"]):
        t.decompose()
    return re.sub(r"[ \t\r\n]+", " ", s.get_text(" "))


@pytest.mark.parametrize("profile", ["en", "zh"])
def test_real_book_html(built, profile):
    out, books = built
    pages = sorted((out / profile).rglob("*.html"))
    assert len(pages) >= len(books[profile].chapters)
    soups = {page: _soup(page) for page in pages}
    # each page's ids, read once (a page is the target of a hundred links); a page of another profile when first linked
    ids = {page.resolve(): _ids(s) for page, s in soups.items()}
    texts = []
    for page, s in soups.items():
        text = _text(s)
        texts.append(text)
        assert "??" not in text, page
        assert not re.search(r"[@?](sec|tbl|eq|fig)-", text, re.I), page
        for eq in s.select(".quarto-eq"):
            assert eq.find("math") is not None, page
        for tag in s.find_all(["script", "link", "img", "iframe", "source", "video", "audio",
                               "object", "embed"]):
            for attr in ("src", "href", "data"):
                v = tag.get(attr)
                assert not v or not re.match(r"^([a-z][a-z0-9+.-]*:|//)", v, re.I) \
                    or v.startswith("data:"), f"{page}: {tag.name} loads {v}"
        for a in s.find_all("a", href=True):
            parts = urlsplit(a["href"])
            if parts.scheme in ("http", "https", "mailto", "data"):
                continue      # a link the reader may follow (a DOI) or download (a data: notebook), never a load
            target = (page if not parts.path else page.parent / unquote(parts.path)).resolve()
            assert target.exists(), f"{page}: {a['href']}"
            if parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = _ids(_soup(target))
                assert parts.fragment in ids[target], f"{page}: {a['href']}"
    blob = " ".join(texts)
    for n in GOLDEN:
        assert n in blob, n


@pytest.mark.parametrize("profile", ["en", "zh"])
def test_real_book_pdf(built, profile):
    out, _ = built
    pdfs = sorted((out / profile).glob("*.pdf"))
    assert len(pdfs) == 1
    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.fail("pdftotext (poppler-utils) is not installed: apt-get install -y poppler-utils" + " (scripts/setup.sh installs it)")
    text = subprocess.run([exe, str(pdfs[0]), "-"], capture_output=True, text=True,
                          check=True).stdout
    for n in GOLDEN:
        assert n in text, n
    assert "??" not in text
    info = subprocess.run([shutil.which("pdfinfo") or "pdfinfo", str(pdfs[0])], capture_output=True, text=True,
                          check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    # title + contents + preface + chapters: the English book also carries the lecture
    low, high = {"en": (25, 60), "zh": (12, 45)}[profile]
    assert low <= pages <= high, f"{profile} PDF has {pages} pages, expected {low}..{high}"
    if profile == "zh":
        assert "附录 A" in text and len(re.findall(r"[\u4e00-\u9fff]", text)) > 1000
    else:
        assert "Appendix A" in text


# every figure of the book, by its numbered caption (issue 13: the PDF keeps the static figures)
PDF_FIGURES = {"en": ["Figure 19.1:", "Figure 19.2:", "Figure A.1:", "Figure A.2:", "Figure A.3:", "Figure A.4:",
                      "Figure A.5:", "Figure A.6:"],
               "zh": ["图 19.1：", "图 19.2：", "图 A.1：", "图 A.2：", "图 A.3：", "图 A.4：", "图 A.5：", "图 A.6："]}
# (the Chinese profile's crossref: title-delim is the full-width colon)


def _tallest_drawing_rows(pdf: Path, page: int, dpi: int = 30) -> int:
    """The tallest run of consecutive page rows with ink: a figure is inches tall, text lines are not."""
    out = subprocess.run([shutil.which("pdftoppm") or "pdftoppm", "-f", str(page), "-l", str(page), "-r", str(dpi),
                          "-gray", str(pdf)], capture_output=True, check=True).stdout
    # a binary PGM: P5\n<w> <h>\n255\n<pixels>
    head = out.split(b"\n", 3)
    w, h = (int(v) for v in head[1].split())
    px = head[3]
    best = run = 0
    for y in range(h):
        row = px[y * w:(y + 1) * w]
        run = run + 1 if min(row) < 200 else 0
        best = max(best, run)
    return best


@pytest.mark.parametrize("profile", ["en", "zh"])
def test_pdf_has_every_figure(built, profile):
    out, _ = built
    pdf = next((out / profile).glob("*.pdf"))
    assert shutil.which("pdftotext") and shutil.which("pdftoppm"), \
        "pdftotext/pdftoppm (poppler-utils) are needed: scripts/setup.sh installs them"
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\f")
    for caption in PDF_FIGURES[profile]:
        on = [i + 1 for i, p in enumerate(pages) if caption in p]
        assert len(on) == 1, f"{profile}: caption {caption!r} on pages {on}"
        # the figure is drawn on the caption's page (or the one before, when the caption breaks to the next)
        tallest = max(_tallest_drawing_rows(pdf, p) for p in {on[0], max(1, on[0] - 1)})
        assert tallest >= 30 * 1.5, f"{profile}: no figure drawn near {caption!r} (tallest ink run {tallest} rows)"
    # the Chinese book's figures are drawn with Chinese labels (axis text is glyph outlines, so read the SVGs)
    svgs = sorted((out.parent / "appendix" / "figures").glob(f"*.{profile}.svg"))
    assert len(svgs) == 6   # the appendix's roofline, prefill, batch, attention designs, queueing knee, calibration


def test_chinese_references_and_citations_are_set_as_chinese(built):
    """Issue 38: in our Chinese pages a cross-reference reads "第 A.6 节", "表 A.1", "公式 A.1" with no space
    against Chinese text, and a citation "（Williams 等，2009）"; the PDF (typst) the same."""
    from bookbuild.compare import page_facts
    out, books = built
    words = [v for k, v in books["zh"].crossref.items() if not k.startswith("form:")]
    pages = sorted((out / "zh").rglob("*.html"))
    seen = 0
    for page in pages:
        facts = page_facts(page.read_text(encoding="utf-8"), words)
        assert facts.cjk_spacing == [], (page, facts.cjk_spacing)
        assert not [x for x in facts.xrefs if re.match(r"节\s", x)], page
        seen += len(facts.ref_spacing)
    assert seen > 100
    text = " ".join(_soup(p).get_text("") for p in pages).replace("\u00a0", " ")   # the text as it runs
    assert "汇总于第 A.6 节，" in text and "屋顶线模型（Williams 等，2009）以" in text
    assert not re.search(r"\([A-Z][^()]*, \d{4}[a-z]?\)", text)     # no half-width citation "(Williams 等, 2009)"
    pdf = sorted((out / "zh").glob("*.pdf"))[0]
    ptext = subprocess.run([shutil.which("pdftotext") or "pdftotext", str(pdf), "-"], capture_output=True,
                           text=True, check=True).stdout
    flat = re.sub(r"\s+", "", ptext)
    assert "汇总于第A.6节，" in flat and "（Williams等，2009）" in flat
