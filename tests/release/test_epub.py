"""The EPUB of each book (bookbuild.render.epub): valid for EPUBCheck, the book's chapters and figures as
static SVG, no script, the Chinese text in an embedded font that has every character, deterministic."""
from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
import yaml

from parity import _chapters

ROOT = Path(__file__).resolve().parents[2]

EPUBCHECK = Path("/usr/share/java/epubcheck.jar")   # Debian's epubcheck (scripts/setup.sh installs it)


def _epub(book: Path, lang: str) -> Path:
    found = sorted((book / lang).glob("*.epub"))
    assert len(found) == 1, f"{lang}: expected one EPUB in {book / lang}, found {[p.name for p in found]}"
    return found[0]


def _texts(z: zipfile.ZipFile) -> dict[str, str]:
    return {n: z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".xhtml")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_epubcheck_finds_nothing(rendered_book, lang):
    assert EPUBCHECK.is_file() and shutil.which("java"), \
        "EPUBCheck is not installed (bash scripts/setup.sh installs Debian's epubcheck and a Java runtime)"
    r = subprocess.run(["java", "-jar", str(EPUBCHECK), str(_epub(rendered_book, lang))],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "No errors or warnings detected" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_epub_holds_the_book_scriptless(rendered_book, lang):
    with zipfile.ZipFile(_epub(rendered_book, lang)) as z:
        texts = _texts(z)
        body = "\n".join(v for k, v in texts.items() if "/text/ch" in k)
        svgs = [n for n in z.namelist() if n.endswith(".svg")]
        # every numbered figure of the HTML book (drawn there by a script) is a static SVG here
        html_figures = {m for p in (rendered_book / lang).rglob("*.html")
                        for m in re.findall(r'<figure[^>]*\sid="(fig-[^"]+)"', p.read_text(encoding="utf-8"))}
        assert html_figures and len(svgs) == len(html_figures), (len(svgs), sorted(html_figures))
        assert {f"fig-{m}" for m in re.findall(r'<figure[^>]*\sid="fig-([^"]+)"', body)} == html_figures
        assert "<script" not in body and "mlsysim-plot" not in body
        # the explorer is a page that runs a script (html:js): here, the static table of the PDF instead
        assert "mx-explorer" not in body and 'id="tbl-' in body
        # every chapter of the profile (an author's added ones too), numbered as in the HTML book
        assert len([k for k in texts if re.search(r"/text/ch\d+\.xhtml$", k)]) == len(_chapters(f"_quarto-{lang}.yml"))
        lecture_word, appendix = ("Lecture", "Appendix A") if lang == "en" else ("讲", "附录 A")
        assert "19" in body and appendix in body
        # the computed values are the HTML book's: the reference ratio as the appendix prints it
        page = next((rendered_book / lang / "appendix").glob("*.html")).read_text(encoding="utf-8")
        ratio = re.search(r'data-attr="ServingRef.ratio_str"[^>]*>([^<]+)<', page).group(1)
        assert f'data-attr="ServingRef.ratio_str">{ratio}<' in body.replace(' class="mlsysim-v"', "")
        # citations resolved, one reference list per citing chapter, ids unique across the book
        ids = re.findall(r'\sid="([^"]+)"', body)
        assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})[:5]
        assert "ref-" in body and "[@" not in body and "?@" not in body


def test_chinese_epub_embeds_a_font_with_every_character(rendered_book):
    from fontTools.ttLib import TTFont
    with zipfile.ZipFile(_epub(rendered_book, "zh")) as z:
        fonts = [n for n in z.namelist() if n.endswith(".otf")]
        assert len(fonts) == 1, fonts
        cmap = TTFont(BytesIO(z.read(fonts[0]))).getBestCmap()
        text = "".join(re.sub(r"<[^>]+>", "", v) for v in _texts(z).values())
        cjk = {c for c in text if "\u3400" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef"}
        assert len(cjk) > 500, len(cjk)   # the Chinese book, not a stub
        missing = sorted(c for c in cjk if ord(c) not in cmap)
        assert not missing, "".join(missing[:40])
        css = "".join(z.read(n).decode() for n in z.namelist() if n.endswith(".css"))
        assert "@font-face" in css and "Noto Serif CJK SC" in css
        assert len(z.read(fonts[0])) < 3_000_000   # a subset, not the 25 MB collection


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_epub_metadata_is_the_books_and_fixed(rendered_book, lang):
    with zipfile.ZipFile(_epub(rendered_book, lang)) as z:
        opf = z.read("EPUB/content.opf").decode("utf-8")
    title = "Inference Cost Foundations for Agent Engineers" if lang == "en" else "面向智能体工程师的推理成本基础"
    assert f">{title}<" in opf
    assert f"<dc:language>{'en-US' if lang == 'en' else 'zh-CN'}</dc:language>" in opf
    # the edition's date from _quarto.yml, not the time of the build; the identifier derived, not random
    date = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))["book"]["date"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", str(date))
    assert f'dcterms:modified">{date}T00:00:00Z<' in opf, opf[:2000]
    assert re.search(r"urn:uuid:[0-9a-f-]{36}", opf)
