"""Compare two renderings of the same book page by page (ours and Quarto's ``_book``).

``python -m bookbuild compare-render OTHER_BOOK_DIR [--profile en|zh|all] [--ours DIR]``

For every chapter of the profile, the page each tool wrote is reduced to what a reader checks:

- ``headings``: chapter and section headings with their numbers ("A.1 Why Output Costs ...")
- ``xrefs``: the text of every cross-reference link ("Section A.6", "表 A.1")
- ``captions``: the numbered labels of figures and tables ("Figure A.1", "Table A.2")
- ``equations``: equation numbers ("(A.3)")
- ``numbers``: every number in the page's visible text, math included
- ``ref_spacing``: how each cross-reference and citation meets the text around it (the characters on
  either side and the spaces between), so a space one tool leaves and the other drops shows; and
  ``cjk_spacing``: on either side, a space beside a reference between Chinese characters or full-width
  punctuation (:func:`stray_spaces`, the rule of ``render/filters/cjk_spacing.py``), listed for each book

Only the page's main content counts (navigation, sidebars, scripts and styles are left out), so
what the two tools are expected to do differently (our language switch, search, the explorer's
script) does not show. The report lists, per page and category, what only one side has.

Then, unless ``--no-browser``, both books are opened in headless Chromium and compared by what a reader
gets (:mod:`bookbuild.pagecheck.reader_facts`): figures drawn, sub-figure captions, the reader's choice and the
values it shows, explanations, the language switch, downloads and requests that leave the page.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

from .errors import BuildError
from .project import load_book, profiles as list_profiles
from .render.pages import page_for

CATEGORIES = ("headings", "xrefs", "captions", "equations", "numbers", "ref_spacing", "bibliography")
#: what the two tools may render differently: the bibliography follows each pandoc's default CSL
#: (Quarto 1.7.34 bundles pandoc 3.6; pandoc 3.7+ updated its Chicago style: no page range when a
#: DOI is given); its heading ("References", id or Quarto's data-anchor-id "references") counts with it
INFORMATIONAL = ("bibliography",)
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")
EQ_NUMBER = re.compile(r"\(([A-Z]?\.?\d+(?:\.\d+)*)\)")
SKIP = {"script", "style", "nav", "noscript", "template", "button", "select", "option", "annotation"}
BLOCKS = {"p", "div", "td", "th", "tr", "li", "ul", "ol", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6",
          "figcaption", "caption", "figure", "table", "section", "blockquote", "main", "header", "footer"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def _norm(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").replace("\u2009", " ").replace("\u202f", " ").split())


@dataclass
class PageFacts:
    headings: list[str] = field(default_factory=list)
    xrefs: list[str] = field(default_factory=list)
    captions: list[str] = field(default_factory=list)
    equations: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    ref_spacing: list[str] = field(default_factory=list)
    bibliography: list[str] = field(default_factory=list)
    cjk_spacing: list[str] = field(default_factory=list)   # stray spaces (per book, not compared)


def _skipped(tag: str, a: dict) -> bool:
    """Not the page's reading text: scripts, navigation, tables of contents, hidden and meta parts."""
    cls = a.get("class") or ""
    return (tag in SKIP or "title-meta" in cls or a.get("aria-hidden") == "true"
            or "sidebar" in cls or "toc-menu" in cls or a.get("id") in ("TOC", "toc"))


class _Reader(HTMLParser):
    """Collects the facts of the page's <main> element."""

    def __init__(self, words: list[str]):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.in_main = 0
        self.skip = 0
        self.facts = PageFacts()
        self.text: list[str] = []
        self.flow: list[str] = []    # the text as written, each reference between \x02 and \x03
        self._ref: list[str] = []    # the open tags that started a reference
        self._heading: list[str] | None = None
        self._xref: list[str] | None = None
        self._caption: list[str] | None = None
        self._math = 0
        self._math_text: list[str] = []
        self._bib = 0
        self.bib_text: list[str] = []
        w = "|".join(re.escape(x) for x in sorted(words, key=len, reverse=True) if x)
        self.label_re = re.compile(rf"(?:{w})\s?[A-Z]?\.?\d+(?:\.\d+)*") if w else None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in VOID:
            return
        self.stack.append((tag, a))
        if tag in BLOCKS:
            self.flow.append("\x01")   # text in another block does not touch a reference
        if tag == "main":
            self.in_main += 1
        if not self.in_main:
            return
        cls = a.get("class") or ""
        if _skipped(tag, a):
            self.skip += 1
        elif re.fullmatch(r"h[1-4]", tag) and a.get("id") != "toc-title":
            self._heading = []
        elif tag == "a" and "quarto-xref" in cls:
            self._xref = []
        if not self.skip and not self._ref and (("quarto-xref" in cls and tag == "a")
                                                or (tag == "span" and "citation" in cls.split())):
            self._ref.append(tag)
            self.flow.append("\x02")
        elif tag in ("figcaption", "caption"):
            self._caption = []
        elif tag == "math":
            self._math += 1
        if "csl-entry" in cls or (re.fullmatch(r"h[1-4]", tag) and "references" in (a.get("id"), a.get("data-anchor-id"))):
            self._bib += 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:
            t, a = self.stack.pop()
            self._close(t, a)
            if t == tag:
                break

    def _close(self, tag, a):
        cls = a.get("class") or ""
        if tag in BLOCKS:
            self.flow.append("\x01")
        if tag == "main":
            self.in_main -= 1
            return
        if not self.in_main:
            return
        if "csl-entry" in cls or (re.fullmatch(r"h[1-4]", tag) and "references" in (a.get("id"), a.get("data-anchor-id"))):
            self._bib -= 1
            if tag != "div":
                self._heading = None
                self.bib_text.append("[heading]")
            return
        if self._ref and tag == self._ref[-1] and (("quarto-xref" in cls and tag == "a")
                                                   or (tag == "span" and "citation" in cls.split())):
            self._ref.pop()
            self.flow.append("\x03")
        if _skipped(tag, a):
            self.skip -= 1
        elif re.fullmatch(r"h[1-4]", tag) and self._heading is not None:
            h = _norm("".join(self._heading))
            if h:
                self.facts.headings.append(h)
            self._heading = None
        elif tag == "a" and self._xref is not None:
            self.facts.xrefs.append(_norm("".join(self._xref)))
            self._xref = None
        elif tag in ("figcaption", "caption") and self._caption is not None:
            c = _norm("".join(self._caption))
            m = self.label_re.match(c) if self.label_re else None
            if m:
                self.facts.captions.append(_norm(m.group(0)))
            self._caption = None
        elif tag == "math":
            self._math -= 1
            if self._math == 0:
                s = _norm(" ".join(self._math_text))
                self.facts.equations += [m.group(0) for m in EQ_NUMBER.finditer(s.replace(" ", ""))
                                         if re.search(r"\d", m.group(1)) and "." in m.group(1)]
                self._math_text = []

    def handle_data(self, data):
        if not self.in_main or self.skip:
            return
        if self._bib:
            self.bib_text.append(data)
            return
        for buf in (self._heading, self._xref, self._caption):
            if buf is not None:
                buf.append(data)
        if self._math:
            self._math_text.append(data)
        self.text.append(data)
        self.flow.append(data)


_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_FULL_WIDTH_PUNCT = "\u3000-\u303f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_REF_IN_FLOW = re.compile(r"(\S?)([ \t\n]*)\x02([^\x03]*)\x03([ \t\n]*)(\S?)")


def _joins(a: str, b: str) -> bool:
    cjk, punct = re.compile(f"[{_CJK}]"), re.compile(f"[{_FULL_WIDTH_PUNCT}]")
    return bool((a and b and cjk.match(a) and cjk.match(b)) or (a and punct.match(a)) or (b and punct.match(b)))


def ref_contexts(flow: str) -> list[tuple[str, bool, str, str, bool, str]]:
    """Each reference of ``flow`` (between \x02 and \x03) as (character before, a space before, its text,
    a space after, character after)."""
    out = []
    for m in _REF_IN_FLOW.finditer(flow):
        text = _norm(m[3])
        out.append((m[1], bool(m[2]), text, bool(m[4]), m[5]))
    return out


def stray_spaces(flow: str) -> list[str]:
    """A space beside a reference where Chinese text has none: between two Chinese characters, or beside
    full-width punctuation (bookbuild/render/filters/cjk_spacing.py)."""
    out = []
    for before, gap_b, text, gap_a, after in ref_contexts(flow):
        if text and ((gap_b and _joins(before, text[0])) or (gap_a and _joins(text[-1], after))):
            out.append(f"{before}{' ' if gap_b else ''}{text}{' ' if gap_a else ''}{after}")
    return out


def page_facts(html: str, words: list[str]) -> PageFacts:
    r = _Reader(words)
    r.feed(html)
    r.close()
    flow = "".join(r.flow)
    def edge(c: str) -> str:   # the reference's own edges, its number aside (compared by xrefs)
        return re.sub(r"\d", "0", c)
    r.facts.ref_spacing = [f"{b}{'␣' if gb else ''}⟨{edge(t[:1])}…{edge(t[-1:])}⟩{'␣' if ga else ''}{a}"
                           for b, gb, t, ga, a in ref_contexts(flow)]
    r.facts.cjk_spacing = stray_spaces(flow)
    text = _norm(" ".join(r.text))
    r.facts.numbers = NUMBER.findall(text)
    r.facts.bibliography = NUMBER.findall(_norm(" ".join(r.bib_text)))
    # equation numbers written outside MathML (our pandoc pages put them in a span)
    if not r.facts.equations:
        r.facts.equations = [m.group(0) for m in re.finditer(r"\(([A-Z]\.\d+|\d+\.\d+)\)", text)]
    return r.facts


@dataclass
class PageDiff:
    page: str
    category: str
    only_ours: list[str]
    only_other: list[str]

    def format(self) -> str:
        def show(xs):
            return ", ".join(repr(x) for x in xs[:12]) + (f" … (+{len(xs) - 12})" if len(xs) > 12 else "")
        parts = []
        if self.only_ours:
            parts.append(f"only in ours: {show(self.only_ours)}")
        if self.only_other:
            parts.append(f"only in the other: {show(self.only_other)}")
        return f"{self.page}: {self.category}: " + "; ".join(parts)


def _multiset_diff(a: list[str], b: list[str]) -> tuple[list[str], list[str]]:
    ca, cb = Counter(a), Counter(b)
    return sorted((ca - cb).elements()), sorted((cb - ca).elements())


def compare_pages(ours: str, other: str, words: list[str], page: str) -> list[PageDiff]:
    fa, fb = page_facts(ours, words), page_facts(other, words)
    out = []
    for cat in CATEGORIES:
        x, y = _multiset_diff(getattr(fa, cat), getattr(fb, cat))
        if x or y:
            out.append(PageDiff(page, cat, x, y))
    return out


def other_page(other_dir: Path, source: str, ours_page: str) -> Path | None:
    """Quarto names a chapter's page after its source; fall back to our page name."""
    for cand in (PurePosixPath(source).with_suffix(".html").as_posix(), ours_page):
        p = other_dir / cand
        if p.is_file():
            return p
    return None


@dataclass
class Comparison:
    pages: list[str]
    diffs: list[PageDiff]
    missing: list[str]
    counts: dict[str, int]

    @property
    def same(self) -> bool:
        """No page missing and no difference outside the informational categories."""
        return not self.missing and all(d.category in INFORMATIONAL for d in self.diffs)


def compare_books(ours_dir: Path, other_dir: Path, chapters: list[dict], words: list[str]) -> Comparison:
    """``chapters``: the book.json chapter entries (``source``), in order."""
    diffs, missing, pages = [], [], []
    counts = Counter()
    for e in chapters:
        mine = page_for(e["source"], e.get("executed"))
        a = ours_dir / mine
        b = other_page(other_dir, e["source"], mine)
        if not a.is_file() or b is None:
            missing.append(f"{e['source']}: page missing in {'ours' if not a.is_file() else 'the other'}")
            continue
        pages.append(mine)
        ta, tb = a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")
        facts = page_facts(ta, words)
        for cat in CATEGORIES:
            counts[cat] += len(getattr(facts, cat))
        diffs += compare_pages(ta, tb, words, mine)
        stray = (facts.cjk_spacing, page_facts(tb, words).cjk_spacing)
        if any(stray):
            diffs.append(PageDiff(mine, "cjk_spacing", *stray))
    return Comparison(pages, diffs, missing, dict(counts))


# ---------------------------------------------------------------- the PDF and the EPUB

CJK = "[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
TOC_LINE = re.compile(r"(?:\.\s?){6,}\s*\d*\s*$|(?:\.\s?){3,}\s*\d+\s*$|\S\s{3,}\d+\s*$")
LONE_NUMBER = re.compile(r"^\s*[\divxlc]+\s*$", re.I)


def pdf_text(pdf: Path) -> str:
    """A PDF's reading text (poppler's pdftotext, page by page): without page numbers, running heads and the
    table of contents, which two books paginate each their own way."""
    import subprocess
    try:
        out = subprocess.run(["pdftotext", "-layout", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                             timeout=120).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BuildError(str(pdf), None, f"cannot read the PDF's text with pdftotext (poppler-utils): {e}") from None
    return reading_text(re.sub("[\u200b-\u200d\u2060\ufeff]", "", out).split("\f"))   # typst's word joiners


def reading_text(pages: list[str]) -> str:
    """The pages' text (pdftotext's, one string a page) without what pagination puts there: a first line that
    starts or ends with the page number (a running head), a line that is only a page number, and the table of
    contents' lines (a title, then its page number after dots or a wide gap)."""
    kept = []
    for page in pages:
        lines = [ln for ln in page.splitlines() if ln.strip()]
        if lines and re.search(r"^\s*\d+\s|\s\d+\s*$", lines[0]) and len(lines[0].split()) <= 12:
            lines = lines[1:]
        kept.append("\n".join(ln for ln in lines if not LONE_NUMBER.match(ln) and not TOC_LINE.search(ln)))
    text = re.sub(r"\u00ad\s*", "", "\n".join(kept))   # a word hyphenated at a line's end, whole again
    # a line broken beside a Chinese character or full-width sign: Chinese text has no space there
    return re.sub(f"(?<={CJK})[ \t]*\n\\s*(?={CJK})", "", text)


def text_facts(text: str, words: list[str]) -> PageFacts:
    """The facts of a document's plain text (a PDF's): cross-reference texts ("Equation A.3", "表 A.1"),
    equation numbers ("(A.3)"), every number; headings and captions are read in the pages and the EPUB."""
    # a Latin word or number beside a Chinese character stands apart, spaced or not (typst spaces it in type)
    text = _norm(re.sub(f"(?<={CJK})(?=[0-9A-Za-z])|(?<=[0-9A-Za-z])(?={CJK})", " ", text))
    w = "|".join(re.escape(x) for x in sorted(words, key=len, reverse=True) if re.search(r"\w", x))
    xrefs = [_norm(m.group(0)) for m in re.finditer(rf"(?:{w})\s?[A-Z]?\.?\d+(?:\.\d+)*", text)] if w else []
    equations = [m.group(0) for m in re.finditer(r"\((?:[A-Z]|\d+)\.\d+\)", text)]
    return PageFacts(xrefs=xrefs, equations=equations, numbers=NUMBER.findall(text))


def epub_html(epub: Path) -> str:
    """An EPUB's chapters in reading order (its spine, without the title page and the navigation), as one
    page's main content, for :func:`page_facts`."""
    import zipfile
    from xml.etree import ElementTree as ET
    try:
        z = zipfile.ZipFile(epub)
        container = ET.fromstring(z.read("META-INF/container.xml"))
        opf_path = next(e.get("full-path") for e in container.iter() if e.get("full-path"))
        opf = ET.fromstring(z.read(opf_path))
    except (OSError, KeyError, StopIteration, zipfile.BadZipFile, ET.ParseError) as e:
        raise BuildError(str(epub), None, f"is not a readable EPUB ({e})") from None
    ns = "{http://www.idpf.org/2007/opf}"
    items = {i.get("id"): i for i in opf.iter(ns + "item")}
    base = PurePosixPath(opf_path).parent
    bodies = []
    for ref in opf.iter(ns + "itemref"):
        item = items.get(ref.get("idref"))
        if item is None or "nav" in (item.get("properties") or "") or re.search(r"title_page|nav\.x?html$", item.get("href", "")):
            continue
        text = z.read((base / item.get("href")).as_posix()).decode("utf-8", "replace")
        m = re.search(r"<body[^>]*>(.*)</body>", text, re.S)
        bodies.append(m.group(1) if m else "")
    return "<main>" + "\n".join(bodies) + "</main>"


def the_file(folder: Path, suffix: str) -> Path | None:
    found = sorted(folder.glob("*" + suffix))
    return found[0] if len(found) == 1 else None


def compare_documents(ours: Path, other: Path, words: list[str]) -> list[PageDiff]:
    """Our PDF or EPUB against the other rendering's, by the categories their text holds."""
    if ours.suffix == ".pdf":
        fa, fb, cats = text_facts(pdf_text(ours), words), text_facts(pdf_text(other), words), ("xrefs", "equations", "numbers")
    else:
        fa, fb, cats = page_facts(epub_html(ours), words), page_facts(epub_html(other), words), CATEGORIES
    out = []
    for cat in cats:
        x, y = _multiset_diff(getattr(fa, cat), getattr(fb, cat))
        if x or y:
            out.append(PageDiff(ours.name, cat, x, y))
    return out


def run(args, reader_compare=None) -> int:
    """``compare-render OTHER_BOOK_DIR`` (its options: :mod:`bookbuild.cli`): our rendered pages against another
    rendering (Quarto's); ``reader_compare`` (:func:`bookbuild.pagecheck.reader_facts.compare_reader`, which
    :func:`bookbuild.commands.run_compare` passes): the same pages in Chromium, unless ``--no-browser``."""
    root = args.root
    ours = (args.ours or root / "_book").resolve()
    other = args.other.resolve()
    if not other.is_dir():
        raise BuildError(str(args.other), None, "is not a folder: give the other rendering's _book")
    same = True
    names = (list_profiles(root) or ["default"]) if args.profile == "all" else [args.profile]
    for name in names:
        book = load_book(root, name)
        sub = book.output_dir.name
        mine, theirs = ours / sub, (other / sub if (other / sub).is_dir() else other)
        if not mine.is_dir():
            raise BuildError(str(mine), None, "does not exist: run python -m bookbuild render first")
        chapters = [{"source": ch.path.as_posix()} for ch in book.chapters]
        words = [v for k, v in book.crossref.items() if not k.startswith("form:")]
        cmp = compare_books(mine, theirs, chapters, words)
        counts = ", ".join(f"{v} {k}" for k, v in cmp.counts.items())
        print(f"{name}: {len(cmp.pages)} pages compared ({counts}) against {theirs}")
        for m in cmp.missing:
            print(f"  {m}")
        for d in cmp.diffs:
            note = " (expected: the tools differ here)" if d.category in INFORMATIONAL else ""
            print(f"  {d.format()}{note}")
        if cmp.same:
            print(f"{name}: same headings, cross-references, captions, equation numbers and numbers")
        same = same and cmp.same
        for suffix in (".pdf", ".epub"):   # the book's other formats, where both renderings wrote one
            a, b = the_file(mine, suffix), the_file(theirs, suffix)
            if a is None or b is None:
                print(f"  {suffix[1:].upper()}: {'ours' if a is None else 'the other'} has none to compare")
                continue
            diffs = compare_documents(a, b, list(book.crossref.values()))
            for d in diffs:
                note = " (expected: the tools differ here)" if d.category in INFORMATIONAL else ""
                print(f"  {suffix[1:].upper()} {d.format()}{note}")
            if not any(d.category not in INFORMATIONAL for d in diffs):
                print(f"{name}: the {suffix[1:].upper()}s have the same " +
                      ("cross-references, equation numbers and numbers" if suffix == ".pdf" else
                       "headings, cross-references, captions, equation numbers and numbers"))
            same = same and not any(d.category not in INFORMATIONAL for d in diffs)
        if reader_compare is not None and not args.no_browser and cmp.pages:
            # served from the folders above the language folders (when there are), so the switch can be followed
            root_a, root_b = (mine.parent if mine != ours else mine), (theirs.parent if theirs != other else theirs)
            pairs = [((mine / p).relative_to(root_a).as_posix(),
                      other_page(theirs, ch["source"], p).relative_to(root_b).as_posix())
                     for ch, p in ((c, page_for(c["source"])) for c in chapters) if p in cmp.pages]
            diffs, facts = reader_compare(root_a, root_b, pairs)
            for d in diffs:
                print(f"  {d.format()}")
            drawn = sum(int(f["figures"][0].split()[0]) for f in facts.values() if f["figures"])
            values = sum(len(f["values"]) for f in facts.values())
            print(f"{name}: in Chromium, {len(pairs)} pages: {drawn} figures drawn, {values} values read across the "
                  f"choices, " + ("the same for the reader" if not diffs else f"{len(diffs)} difference(s)"))
            same = same and not diffs
    return 0 if same else 1
