"""The real book's half of tests/unit/test_numbering.py (its helpers are there). bookbuild.numbering: one cross-reference index for a book, numbered as Quarto numbers it, over the
chapters' pandoc ASTs; what a chapter refers to and cites, read from its AST."""
import shutil
import sys
from pathlib import Path

from bookbuild.execute import execute_chapter
from bookbuild.numbering import chapter_offset, number_book
from bookbuild.project import load_book
from bookbuild.pandoc import Pandoc
from test_numbering import index_of, word

FIX = Path(__file__).parents[1] / "fixtures" / "book"
PANDOC = Pandoc()


#: the course's lecture number of lectures/lecture19-agent-stalls*.qmd: the course schedule calls it
#: Lecture 19, so its front matter says number-offset: [18] (eighteen lectures before it)
COURSE_LECTURE = "19"


def real_index(root, tmp_path, profile):
    """The real book's index for ``profile`` (``root``: a copy of its sources, conftest.book_sources),
    numbered over its executed chapters (figures into tmp_path)."""
    book = load_book(root, profile)
    chapters, offsets = [], {}
    for c in book.chapters:
        ec = execute_chapter(root / c.path, root, tmp_path / profile / "figures", md_dir=tmp_path / profile,
                             profile=profile)
        chapters.append((c.path.as_posix(), c.appendix, PANDOC.md_to_ast(ec.markdown)))
        if (o := chapter_offset(ec.front_matter, c.path.as_posix())) is not None:
            offsets[c.path.as_posix()] = o
    return book, number_book(chapters, offsets)


def test_appendix_numbering_like_quarto(tmp_path):
    sys.modules.pop("stubsim", None)
    root = tmp_path / "b"
    shutil.copytree(FIX, root)
    book, idx = index_of(root, "en")
    got = {k: (v.kind, v.number) for k, v in idx.targets.items() if k.split("-")[0] in ("sec", "tbl", "eq", "fig")}
    assert got == {
        "sec-appx-ref": ("chapter", "A"),
        "sec-appx-queue": ("sec", "A.1"),        # the .unnumbered section before it does not count
        "sec-appx-worked": ("sec", "A.1.1"),
        "sec-appx-picture": ("sec", "A.2"),
        "tbl-appx-first": ("tbl", "A.1"),
        "tbl-appx-values": ("tbl", "A.2"),
        "eq-appx-little": ("eq", "A.1"),
        "eq-appx-w": ("eq", "A.2"),
        "eq-appx-rho": ("eq", "A.3"),
        "fig-appx-queue": ("fig", "A.1"),
    }
    t = idx.targets
    assert t["sec-appx-ref"].appendix and t["sec-appx-ref"].chapter == "appendix/ref.qmd"
    assert word(book, t["sec-appx-ref"]) == "Appendix A"
    assert word(book, t["tbl-appx-values"]) == "Table A.2"
    assert word(book, t["sec-appx-queue"], "Sec-appx-queue") == "Section A.1"
    zbook, zidx = index_of(root, "zh")
    assert word(zbook, zidx.targets["eq-appx-little"]) == "公式 A.1"
    assert word(zbook, zidx.targets["sec-appx-queue"]) == "节 A.1"


def test_the_lecture_is_numbered_as_the_course_numbers_it(tmp_path, book_sources):
    expected = {
        # the chapter and its numbered sections, in the order the lecture gives them
        "sec-lec19": ("chapter", "19"),
        "sec-lec19-duty-cycle": ("sec", "19.1"), "sec-lec19-currencies": ("sec", "19.2"),
        "sec-lec19-fates": ("sec", "19.3"), "sec-lec19-taxonomy": ("sec", "19.4"),
        "sec-lec19-sandbox": ("sec", "19.5"), "sec-lec19-overcommit": ("sec", "19.6"),
        "sec-lec19-shorten": ("sec", "19.7"), "sec-lec19-admission": ("sec", "19.8"),
        # the first and last of the lecture's equations, its figures
        "eq-lec19-duty-cycle": ("eq", "19.1"),
        "fig-lec19-policy-map": ("fig", "19.1"), "fig-lec19-overcommit": ("fig", "19.2"),
        # the appendix stays lettered by position
        "sec-vol3-appendix-inference": ("chapter", "A"),
    }
    for profile, word_sec, word_apx in (("en", "Section 19.3", "Appendix A"), ("zh", "第 19.3 节", "附录 A")):
        book, idx = real_index(book_sources, tmp_path, profile)
        got = {k: (idx.targets[k].kind, idx.targets[k].number) for k in expected}
        assert got == expected, profile
        lecture = next(c for c in idx.chapters if c.label == "sec-lec19")
        assert lecture.number == COURSE_LECTURE
        numbered = [h[2] for h in lecture.headings if h[2] is not None]
        assert numbered == [f"{COURSE_LECTURE}.{i}" for i in range(1, 9)], profile
        eqs = sorted((t.number for t in idx.targets.values() if t.kind == "eq" and t.chapter == lecture.source),
                     key=lambda n: int(n.split(".")[1]))
        assert eqs == [f"19.{i}" for i in range(1, 11)], profile       # ten labelled equations
        appendix = next(c for c in idx.chapters if c.appendix)
        assert appendix.number == "A" and appendix.headings[0][2] is None   # "How to Use This Appendix" is unnumbered
        assert next(h[2] for h in appendix.headings if h[2]) == "A.1"
        # the preface unnumbered, the lecture 19, the appendix A (above); every chapter of the profile, an
        # author's added ones too, numbered once, the numbered ones never going backwards
        assert idx.chapters[0].number is None and len(idx.chapters) == len(book.chapters)
        numbers = [int(c.number) for c in idx.chapters if c.number and not c.appendix]
        assert numbers == sorted(set(numbers)) and COURSE_LECTURE in [str(n) for n in numbers]
        assert word(book, idx.targets["sec-lec19-fates"]) == word_sec
        assert word(book, idx.targets["sec-vol3-appendix-inference"]) == word_apx
