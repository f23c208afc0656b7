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

from bookbuild.pipeline import check_book
from bookbuild.project import profiles
from bookbuild.render import render_profile

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", "_build", "_book", "__pycache__", ".pytest_cache", "node_modules"}
# numbers the seeds print (seed 001 lists them as the expected output of the cells)
GOLDEN = ("295", "591", "21.1", "327,680", "526.0", "48")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("realbook")
    shutil.copytree(ROOT, root, dirs_exist_ok=True,
                    ignore=lambda d, names: [n for n in names if n in SKIP_DIRS])
    names = profiles(root)
    assert {"en", "zh"} <= set(names)
    checked = check_book(root, names)
    for cp in checked:
        render_profile(root, cp.book.profile, cp.executed_dir, root / "_book")
    return root / "_book", {cp.book.profile: cp.book for cp in checked}


def _soup(p: Path) -> BeautifulSoup:
    return BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser")


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
    for page in pages:
        s = _soup(page)
        text = _text(s)
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
            if parts.scheme in ("http", "https", "mailto"):
                continue      # a link the reader may follow (e.g. a DOI), never a load
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            assert target.exists(), f"{page}: {a['href']}"
            if parts.fragment and target.suffix == ".html":
                assert _soup(target).find(id=parts.fragment) is not None, f"{page}: {a['href']}"
    blob = " ".join(_text(_soup(p)) for p in pages)
    for n in GOLDEN:
        assert n in blob, n


@pytest.mark.parametrize("profile", ["en", "zh"])
def test_real_book_pdf(built, profile):
    out, _ = built
    pdfs = sorted((out / profile).glob("*.pdf"))
    assert len(pdfs) == 1
    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.skip("pdftotext (poppler-utils) is not installed: apt-get install -y poppler-utils")
    text = subprocess.run([exe, str(pdfs[0]), "-"], capture_output=True, text=True,
                          check=True).stdout
    for n in GOLDEN:
        assert n in text, n
    assert "??" not in text
    info = subprocess.run([shutil.which("pdfinfo") or "pdfinfo", str(pdfs[0])], capture_output=True, text=True,
                          check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    # title + contents + preface + chapters: the English book also carries the lecture
    low, high = {"en": (25, 60), "zh": (12, 35)}[profile]
    assert low <= pages <= high, f"{profile} PDF has {pages} pages, expected {low}..{high}"
    if profile == "zh":
        assert "附录 A" in text and len(re.findall(r"[\u4e00-\u9fff]", text)) > 1000
    else:
        assert "Appendix A" in text
