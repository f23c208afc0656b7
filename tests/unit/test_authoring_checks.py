"""``check`` refuses, with file and line and all at once, what a later step would refuse
(bookbuild/book/authoring.py): a translation without ``translation-of``, a chapter in one profile only, a
chapter without the book's kernel, a value quoted in one language only, numbering that goes backwards,
a capacity that is not whole GiB, a sparse rate that is not twice dense. Each rule over a small
project described here (the real book passes them: ``check``)."""
from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path
from types import SimpleNamespace as NS

from bookbuild.book import authoring
from bookbuild.source import InlineUse

ROOT = Path(__file__).resolve().parents[2]


def chapter(path: str, front: dict, text: str | None = None):
    return NS(path=path, front_matter=front, text=text if text is not None else "---\nx: 1\n---\n# T\n")


def context(tmp_path: Path, docs: list, en: list[str], zh: list[str], executed=None, index=None):
    (tmp_path / authoring.EXTENSION).mkdir(parents=True, exist_ok=True)
    books = [NS(profile="en", lang="en", chapters=[NS(path=Path(p)) for p in en]),
             NS(profile="zh", lang="zh", chapters=[NS(path=Path(p)) for p in zh])]
    return NS(root=tmp_path, books=books, all_books=books, documents={d.path: d for d in docs},
              executed=executed or {}, index=index or {})


OK = {"jupyter": "mlsysim-book"}


def tr(path: str) -> dict:
    return dict(OK, **{"translation-of": {"path": path, "sha256": "0"}})


def test_a_translation_without_translation_of_and_a_chapter_in_one_profile_only(tmp_path):
    docs = [chapter("a.qmd", OK), chapter("a.zh.qmd", OK), chapter("b.qmd", OK)]
    errs = [e.format() for e in authoring.pairs(context(tmp_path, docs, ["a.qmd", "b.qmd"], ["a.zh.qmd"]))]
    assert errs[0].startswith("a.zh.qmd:1: a translation without translation-of") and "--source a.qmd" in errs[0]
    # a.zh.qmd is still a.qmd's translation by its name and position (its parity is still compared)
    assert errs[1].startswith("b.qmd:1: in the English book only: _quarto-zh.yml lists no translation of it")
    assert len(errs) == 2   # all at once


def test_a_translation_at_another_position_or_of_no_listed_chapter(tmp_path):
    docs = [chapter("a.qmd", OK), chapter("b.qmd", OK), chapter("b.zh.qmd", tr("b.qmd")),
            chapter("a.zh.qmd", tr("a.qmd")), chapter("c.zh.qmd", tr("c.qmd"), "---\ntranslation-of:\n  path: c.qmd\n---\n")]
    errs = [e.format() for e in authoring.pairs(context(tmp_path, docs, ["a.qmd", "b.qmd"],
                                                        ["b.zh.qmd", "a.zh.qmd", "c.zh.qmd"]))]
    assert any(e.startswith("b.zh.qmd:1: the translation of b.qmd is chapter 1") for e in errs)
    assert any(e.startswith("c.zh.qmd:3: translation-of names c.qmd, which the English book") for e in errs)


def test_the_paired_book_passes(tmp_path):
    docs = [chapter("a.qmd", OK), chapter("a.zh.qmd", tr("a.qmd"))]
    ctx = context(tmp_path, docs, ["a.qmd"], ["a.zh.qmd"])
    assert authoring.pairs(ctx) == [] and authoring.kernel(ctx) == []


def test_a_chapter_without_the_book_s_kernel(tmp_path):
    docs = [chapter("a.qmd", {}), chapter("a.zh.qmd", dict(tr("a.qmd"), jupyter="python3"),
                                          "---\ntranslation-of: {}\njupyter: python3\n---\n")]
    errs = [e.format() for e in authoring.kernel(context(tmp_path, docs, ["a.qmd"], ["a.zh.qmd"]))]
    assert errs[0].startswith("a.qmd:1: the chapter names no kernel 'mlsysim-book' (jupyter: None)")
    assert errs[1].startswith("a.zh.qmd:3: the chapter names no kernel 'mlsysim-book' (jupyter: 'python3')")


def test_a_value_quoted_in_one_language_only(tmp_path):
    docs = [chapter("a.qmd", OK), chapter("a.zh.qmd", tr("a.qmd"))]
    en = NS(source=Path("a.qmd"), inline=[InlineUse("A.x_str", "a.qmd", 3), InlineUse("A.y_str", "a.qmd", 5)])
    zh = NS(source=Path("a.zh.qmd"), inline=[InlineUse("A.x_str", "a.zh.qmd", 4), InlineUse("A.z_str", "a.zh.qmd", 9)])
    ctx = context(tmp_path, docs, ["a.qmd"], ["a.zh.qmd"], executed={"en": [en], "zh": [zh]})
    errs = [e.format() for e in authoring.parity(ctx)]
    assert errs == ["a.qmd:5: A.y_str is quoted in English only: a.zh.qmd does not quote it (parity: the "
                    "translation quotes the same values in order)",
                    "a.zh.qmd:9: A.z_str is quoted in the translation only: a.qmd does not quote it"]
    zh.inline = [InlineUse("A.y_str", "a.zh.qmd", 4), InlineUse("A.x_str", "a.zh.qmd", 6)]
    assert [e.format() for e in authoring.parity(ctx)][0].startswith("a.zh.qmd:4: A.y_str is quoted here where a.qmd:3")
    zh.inline = [InlineUse("A.x_str", "a.zh.qmd", 4), InlineUse("A.y_str", "a.zh.qmd", 6)]
    assert authoring.parity(ctx) == []


def test_numbering_that_goes_backwards(tmp_path):
    """Preface, Lecture 19, a new chapter (numbered 2 by position), appendix A."""
    chapters = [NS(source="index.qmd", appendix=False, number=None), NS(source="l19.qmd", appendix=False, number="19"),
                NS(source="new.qmd", appendix=False, number="2"), NS(source="app.qmd", appendix=True, number="A")]
    docs = [chapter("new.qmd", OK)]
    ctx = context(tmp_path, docs, [], [], index={"en": NS(chapters=chapters), "zh": NS(chapters=[])})
    errs = [e.format() for e in authoring.numbering(ctx)]
    assert errs == ["new.qmd:1: chapter 2 comes after chapter 19 (l19.qmd) in the 'en' book: numbers go backwards; "
                    "declare number-offset: [19] in its front matter"]
    chapters[2].number = "20"
    assert authoring.numbering(ctx) == []


def _registry(tmp_path: Path, old: str, new: str) -> Path:
    root = tmp_path / "p"
    shutil.copytree(ROOT / "mlsysim" / "data", root / "mlsysim" / "data")
    p = root / "mlsysim" / "data" / "accelerators.toml"
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def test_the_registry_s_conventions_hold_for_the_book():
    assert authoring.registry_conventions(ROOT) == []


def test_a_capacity_in_decimal_gb_and_a_sparse_rate_not_twice_dense(tmp_path):
    root = _registry(tmp_path, 'memory.capacity = { value = "192 GiB"', 'memory.capacity = { value = "192 GB"')
    p = root / "mlsysim" / "data" / "accelerators.toml"
    text = p.read_text(encoding="utf-8").replace('sparse = "5229.8 Tflop/s", source = "amd-mi300x-datasheet", note',
                                                 'sparse = "5230.6 Tflop/s", source = "amd-mi300x-datasheet", note', 1)
    p.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    cap = next(i for i, ln in enumerate(lines, 1) if '"192 GB", source = "amd-mi300x-datasheet", note = "HBM3' in ln)
    fp8 = next(i for i, ln in enumerate(lines, 1) if "5230.6" in ln)
    errs = [e.format() for e in authoring.registry_conventions(root)]
    assert errs == [f"mlsysim/data/accelerators.toml:{cap}: [MI300X] memory.capacity '192 GB' is 178.8 GiB, not a whole "
                    "number: the registry stores a part's capacity in GiB, the vendor's 'GB' read the JEDEC way "
                    "(write '192 GiB')",
                    f"mlsysim/data/accelerators.toml:{fp8}: [MI300X] compute.fp8: sparse '5230.6 Tflop/s' is 2.00031 "
                    "times dense '2614.9 Tflop/s', not exactly twice: store the sparse figure as 2 x dense (5229.8 "
                    "Tflop/s) and note the vendor's rounding"]


def test_a_quoted_value_without_a_name_in_the_page_s_language(tmp_path):
    """The hover titles a value with its name in the page's language: an identifier, or an English name on
    a Chinese page, is named where the value is quoted, with the table to write its name in."""
    docs = [chapter("a.qmd", OK), chapter("a.zh.qmd", tr("a.qmd"))]
    prov = {"A.x_str": {"name": {"en": "x", "zh": "x"}, "file": "c/_cells/a.qmd"},
            "A.bw_str": {"name": {"en": "memory bandwidth", "zh": "memory bandwidth"}, "file": "c/_cells/a.qmd"},
            "A.ok_str": {"name": {"en": "memory bandwidth", "zh": "内存带宽"}, "file": "c/_cells/a.qmd"},
            "A.t_str": {"name": {"en": "T*", "zh": "T*"}, "file": "c/_cells/a.qmd"}}
    use = [("A.x_str", 3), ("A.bw_str", 4), ("A.ok_str", 5), ("A.t_str", 6), ("A.x_str", 7)]
    en = NS(source=Path("a.qmd"), inline=[InlineUse(e, "a.qmd", n) for e, n in use], extras={"provenance": prov})
    zh = NS(source=Path("a.zh.qmd"), inline=[InlineUse(e, "a.zh.qmd", n) for e, n in use], extras={"provenance": prov})
    ctx = context(tmp_path, docs, ["a.qmd"], ["a.zh.qmd"], executed={"en": [en], "zh": [zh]})
    errs = [e.format() for e in authoring.names(ctx)]
    assert errs == [
        "a.qmd:3: A.x_str has no English name for its hover (it shows 'x'): add [names.A] x = { en = \"...\", "
        "zh = \"...\" } to c/_cells/names.toml",
        "a.zh.qmd:3: A.x_str has no Chinese name for its hover (it shows 'x'): add [names.A] x = { en = \"...\", "
        "zh = \"...\" } to c/_cells/names.toml",
        "a.zh.qmd:4: A.bw_str has no Chinese name for its hover (it shows 'memory bandwidth'): add [names.A] bw = "
        "{ en = \"...\", zh = \"...\" } to c/_cells/names.toml"]


def test_every_failing_guard_of_a_chapter_is_reported_in_one_run(tmp_path):
    """Two claims of one cell and one of the next fail: all three are named, each with its line, not only
    the first (a cell's first failing guard used to hide the rest)."""
    from bookbuild.book.hooks import BookHooks
    from bookbuild.errors import BuildFailed
    from bookbuild.execute import execute_chapter
    (tmp_path / "_quarto.yml").write_text("project: {type: book}\nbook: {chapters: [c.qmd]}\n", encoding="utf-8")
    (tmp_path / "c.qmd").write_text(
        "# C\n\n```{python}\n#| label: calc-a\nfrom mlsysim.guards import check\n\nclass A:\n    x = 1\n"
        "    check(x > 2, 'x exceeds two')\n    check(x > 0, 'x is positive')\n    check(x > 3, 'x exceeds three')\n"
        "```\n\n```{python}\n#| label: calc-b\nclass B:\n    check(A.x > 4, 'x exceeds four')\n```\n\nText.\n",
        encoding="utf-8")
    try:
        execute_chapter(tmp_path / "c.qmd", tmp_path, tmp_path / "fig", hooks=BookHooks(tmp_path, explain=False))
    except BuildFailed as e:
        got = [x.format() for x in e.errors]
    else:
        raise AssertionError("the chapter's failing guards were not reported")
    assert got == ["c.qmd:9: [calc-a] guard failed: x exceeds two", "c.qmd:11: [calc-a] guard failed: x exceeds three",
                   "c.qmd:17: [calc-b] guard failed: x exceeds four"]


def _reference_context(tmp_path, en_md: str, zh_md: str):
    """Two one-chapter books whose prose is ``en_md`` / ``zh_md``, with a section 19.3, a chapter 20 and a
    figure 19.1 to refer to, the words Quarto's defaults give and the Chinese book's word order (_quarto-zh.yml)."""
    from bookbuild.execute.runner import ExecutedChapter
    from bookbuild.numbering import Index, Target
    from bookbuild.pandoc import Pandoc
    targets = {"sec-fates": Target("sec-fates", "sec", "19.3", "c.qmd"),
               "sec-card": Target("sec-card", "chapter", "20", "d.qmd"),
               "fig-map": Target("fig-map", "fig", "19.1", "c.qmd")}
    en = {"sec": "Section", "chapter": "Chapter", "appendix": "Appendix", "fig": "Figure", "tbl": "Table",
          "eq": "Equation"}
    zh = {"sec": "节", "chapter": "章节", "appendix": "附录", "fig": "图", "tbl": "表", "eq": "式",
          "form:节": "第 {} 节"}
    books = [NS(profile="en", lang="en", crossref=en), NS(profile="zh", lang="zh", crossref=zh)]
    pandoc, asts, executed = Pandoc(), {}, {}
    for book, path, md in (("en", "c.qmd", en_md), ("zh", "c.zh.qmd", zh_md)):
        asts[book, path] = pandoc.md_to_ast(md)
        executed[book] = [ExecutedChapter(source=Path(path), markdown=md, front_matter={}, title="", line_map=[],
                                          inline=[], figures=[], files=[path], cells=[])]
    index = Index(chapters=[], targets=targets)
    return NS(root=tmp_path, books=books, all_books=books, documents={}, executed=executed,
              index={"en": index, "zh": index}, ast=lambda profile, src: asts[profile, src])


def test_a_reference_with_its_own_word_beside_it(tmp_path):
    """The reference prints its word (Quarto's "Section 19.3", the Chinese book's "第 19.3 节", "章节 20"):
    the word written beside it too reads twice. Expected lines typed here from those printed forms."""
    en = "Intro.\n\nAs Section @sec-fates shows, and see figure @fig-map.\n\nFine: @sec-fates, -@sec-fates.\n"
    zh = "引言。\n\n见第 @sec-fates 节，与第 @sec-card 节。\n\n可以：@sec-fates 节省内存，@fig-map。\n"
    errs = [e.format() for e in authoring.reference_words(_reference_context(tmp_path, en, zh))]
    assert errs == [
        "c.qmd:3: 'Section' beside @sec-fates: the reference prints its own words ('Section 19.3'), so the "
        "reader would read 'Section' twice; write @sec-fates alone (-@sec-fates gives the number only)",
        "c.qmd:3: 'Figure' beside @fig-map: the reference prints its own words ('Figure 19.1'), so the reader "
        "would read 'Figure' twice; write @fig-map alone (-@fig-map gives the number only)",
        "c.zh.qmd:3: '第' beside @sec-fates: the reference prints its own words ('第 19.3 节'), so the reader "
        "would read '第' twice; write @sec-fates alone (-@sec-fates gives the number only)",
        "c.zh.qmd:3: '第' beside @sec-card: the reference prints its own words ('章节 20'), so the reader "
        "would read '第' twice; write @sec-card alone (-@sec-card gives the number only)"]


def test_a_measurement_whose_source_has_no_citation(tmp_path):
    """The appendix's calibration table cites each measurement's source ([@cite]); a source without ``cite``
    would print its bare key there, so check names the measurement's ``source`` line and the entry to fix."""
    root = _registry(tmp_path, "[H100]", "[H100]")
    data = root / "mlsysim" / "data"
    src = data / "sources.toml"
    text = src.read_text(encoding="utf-8")
    first = next(k for k, v in tomllib.loads(text).items() if v.get("cite"))   # a source a measurement cites
    cite = re.search(rf'(?m)^cite = "{re.escape(tomllib.loads(text)[first]["cite"])}"\n', text)
    src.write_text(text[:cite.start()] + text[cite.end():], encoding="utf-8")
    src_line = src.read_text(encoding="utf-8").splitlines().index(f"[{first}]") + 1
    measured = (data / "measurements.toml").read_text(encoding="utf-8")
    rows = [k for k, v in tomllib.loads(measured).items() if v["source"] == first]
    lines = measured.splitlines()
    want = []
    for key in rows:   # the row's own source line, counted by hand below its header
        head = lines.index(f"[{key}]")
        at = next(i for i in range(head, len(lines)) if lines[i].startswith("source ="))
        want.append(f"mlsysim/data/measurements.toml:{at + 1}: [{key}] source '{first}' has no cite: the appendix's "
                    f"calibration table cites each measurement's source; add cite = \"<its references.bib key>\" to "
                    f"mlsysim/data/sources.toml:{src_line} [{first}] and the entry to references.bib")
    assert rows and [e.format() for e in authoring.registry_conventions(root)] == want
