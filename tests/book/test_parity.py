"""Every chapter pair of the book (preface, lecture, appendix): the Chinese chapter quotes the same
inline values in the same order as the English one, and has the same sections, tables, equations,
figures, cross-references and citations. The comparison is tests/parity.py's; the localized
pairs (English words or billions against Chinese digits or 亿) come from notes/glossary.toml and must
show the same number."""
import pytest

from bookbuild.book.translation import Localized, translation_of
from parity import ROOT, chapter_pairs, compare_inline, compare_structure, load_localized, quoted_number, structure

PAIRS = chapter_pairs()


@pytest.fixture(scope="session")
def executed_pairs(tmp_path_factory, book_sources):
    from bookbuild.execute import execute_chapter
    out = tmp_path_factory.mktemp("pairs")
    done = {}
    for i, (en, zh) in enumerate(PAIRS):
        done[en] = tuple(
            execute_chapter(book_sources / path, book_sources, out / f"{i}{lang}" / "figures", md_dir=out / f"{i}{lang}", profile=lang)
            for path, lang in ((en, "en"), (zh, "zh")))
    return done


def test_the_chinese_book_has_every_chapter():
    """Each English chapter's translation at its position (FILE.qmd -> FILE.zh.qmd), whatever chapters an
    author adds; the book's own chapters, named here, among them."""
    assert [zh for _, zh in PAIRS] == [en.removesuffix(".qmd") + ".zh.qmd" for en, _ in PAIRS]
    assert {"index.zh.qmd", "lectures/lecture19-agent-stalls.zh.qmd", "appendix/inference-cost.zh.qmd"} <= \
        {zh for _, zh in PAIRS}


@pytest.mark.parametrize("en, zh", PAIRS)
def test_each_translation_names_its_english_chapter(en, zh):
    meta = translation_of((ROOT / zh).read_text(encoding="utf-8"))
    assert meta is not None and meta["path"] == en


@pytest.mark.parametrize("en, zh", PAIRS)
def test_same_inline_values_in_the_same_order(executed_pairs, en, zh):
    a, b = executed_pairs[en]
    problems = compare_inline([(u.expr, u.value) for u in a.inline], [(u.expr, u.value) for u in b.inline],
                              load_localized(ROOT))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("en, zh", PAIRS)
def test_same_sections_tables_equations_figures_references_citations(executed_pairs, en, zh):
    a, b = executed_pairs[en]
    assert not compare_structure(a.markdown, b.markdown)


# what each chapter holds, counted by hand in the English sources (so an empty comparison is not vacuous):
# the lecture's 9 sections (the chapter and its 8 numbered sections), 5 tables (timing, fates, policy,
# taxonomy, numbers), 10 equations, 2 figures; the appendix's 8, 3, 11, 5 before its calibration section,
# which adds 1 section, 1 table (the measurements), 2 equations (the tensor-parallel decode floor, the
# batch roofline) and 1 figure: 9, 4, 13, 6.
#: the works the prose cites, counted by hand: the lecture InferCept, PASTE, DeltaBox, Firecracker, Sandlock,
#: Continuum, Autellix and Parrot; the appendix 14 (both of Erlang's papers among them: the 1917 one for
#: Erlang C, the 1909 one in the note that says so). The appendix's calibration table cites, besides, each
#: measurement's source (its ``cite``), whichever the registry holds: those are read from the registry.
PROSE_CITED = {"lectures/lecture19-agent-stalls.qmd": 8, "appendix/inference-cost.qmd": 14}
EXPECTED = {
    "lectures/lecture19-agent-stalls.qmd": dict(sec=9, tbl=5, eq=10, fig=2),
    "appendix/inference-cost.qmd": dict(sec=9, tbl=4, eq=13, fig=6),
}


def _cited(en: str) -> int:
    if not en.startswith("appendix/"):
        return PROSE_CITED[en]
    from mlsysim.measurements import MEASUREMENTS
    return PROSE_CITED[en] + len({m.source.cite for m in MEASUREMENTS.values()})


@pytest.mark.parametrize("en", sorted(EXPECTED))
def test_the_compared_structure_is_the_chapters(executed_pairs, en):
    s = structure(executed_pairs[en][0].markdown)
    counts = {k: sum(1 for x in s["labels"] if x.startswith(k + "-")) for k in ("sec", "tbl", "eq", "fig")}
    counts["citations"] = len(set(s["citations"]))
    assert counts == {**EXPECTED[en], "citations": _cited(en)}
    assert len(s["images"]) == EXPECTED[en]["fig"]


def test_the_lecture_has_values_to_compare(executed_pairs):
    a, b = executed_pairs["lectures/lecture19-agent-stalls.qmd"]
    assert len(a.inline) == len(b.inline) > 400


# ---- the comparison itself can fail

def test_a_missing_value_is_reported():
    en = [("A.x_str", "1"), ("A.y_str", "2")]
    assert compare_inline(en, [("A.x_str", "1")], {})


def test_a_different_value_is_reported():
    assert compare_inline([("A.x_str", "1")], [("A.x_str", "2")], {})


def test_a_localized_value_must_show_the_same_number():
    loc = {"A.w_words_str": Localized("A.w_words_str", "A.w_str")}
    assert not compare_inline([("A.w_words_str", "twenty-two")], [("A.w_str", "22")], loc)
    assert compare_inline([("A.w_words_str", "twenty-two")], [("A.w_str", "21")], loc)
    yi = {"A.b_str": Localized("A.b_str", "A.yi_str", 0.1)}
    assert not compare_inline([("A.b_str", "6.74")], [("A.yi_str", "67.4")], yi)
    assert compare_inline([("A.b_str", "6.74")], [("A.yi_str", "6.74")], yi)


@pytest.mark.parametrize("shown, number", [("Twenty-nine", 29), ("sixty-seven", 67), ("a sixth", 1 / 6),
                                           ("Half", 0.5), ("一半", 0.5), ("六分之一", 1 / 6), ("1,333", 1333),
                                           ("21.3", 21.3), ("eleven", 11)])
def test_quoted_numbers_are_read(shown, number):
    assert quoted_number(shown) == pytest.approx(number)


def test_a_structural_difference_is_reported():
    en = "## A {#sec-a}\n\nSee @sec-a and [@knuth1984].\n\n$$x$$ {#eq-x}\n"
    assert compare_structure(en, en) == []
    assert compare_structure(en, en.replace("[@knuth1984]", ""))
    assert compare_structure(en, en.replace("{#eq-x}", ""))
    assert compare_structure(en, en.replace("## A", "### A"))
