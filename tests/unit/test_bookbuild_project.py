"""bookbuild.project: profile merge, chapter list, crossref words."""
from pathlib import Path

import pytest

from bookbuild.errors import ConfigError
from bookbuild.project import load_book, merge, profiles

FIX = Path(__file__).parents[1] / "fixtures" / "book"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def test_merge_appends_lists_merges_maps_and_overrides_scalars():
    base = {"a": [1, 2], "m": {"x": 1, "l": ["p"]}, "s": "base"}
    over = {"a": [3], "m": {"y": 2, "l": ["q"]}, "s": "over"}
    assert merge(base, over) == {"a": [1, 2, 3], "m": {"x": 1, "y": 2, "l": ["p", "q"]}, "s": "over"}
    assert base["a"] == [1, 2]  # inputs untouched


def test_profile_lists_append_like_quarto(tmp_path):
    root = write(tmp_path, {
        "_quarto.yml": "project: {type: book}\nprofile: {default: zh}\n"
                       "book: {chapters: [index.qmd]}\nbibliography: [a.bib]\n",
        "_quarto-zh.yml": "lang: zh\nbook: {title: T, chapters: [z.qmd], appendices: [app/b.qmd]}\n"
                          "bibliography: [b.bib]\nproject: {output-dir: _book/zh}\n",
        "_quarto-en.yml": "lang: en\nbook: {title: E, chapters: [e.qmd]}\n",
        "index.qmd": "# I\n", "z.qmd": "# Z\n", "e.qmd": "# E\n", "app/b.qmd": "# B\n",
        "a.bib": "", "b.bib": "",
    })
    assert profiles(root) == ["en", "zh"]
    book = load_book(root, None)  # profile: default: zh
    assert book.profile == "zh" and book.lang == "zh"
    # the base list leaks into the profile's list: that is how Quarto merges
    assert [c.path.as_posix() for c in book.chapters] == ["index.qmd", "z.qmd", "app/b.qmd"]
    assert [c.appendix for c in book.chapters] == [False, False, True]
    assert [b.as_posix() for b in book.bibliography] == ["a.bib", "b.bib"]
    assert book.output_dir.as_posix() == "_book/zh"
    # no overrides: Quarto 1.7.34's zh words (_language-zh.yml: 小节, 式, 附录)
    assert book.crossref["sec"] == "小节" and book.crossref["eq"] == "式" and book.crossref["appendix"] == "附录"
    en = load_book(root, "en")
    assert [c.path.as_posix() for c in en.chapters] == ["index.qmd", "e.qmd"]
    assert en.crossref["tbl"] == "Table"


def test_parts_and_crossref_overrides(tmp_path):
    root = write(tmp_path, {
        "_quarto.yml": "profile: {default: en}\n",
        "_quarto-en.yml": "lang: en\ncrossref: {eq-prefix: Eq., appendix-title: Annex}\n"
                          "book:\n  chapters:\n    - index.qmd\n    - part: Basics\n      chapters: [a.qmd]\n",
        "index.qmd": "# I\n", "a.qmd": "# A\n",
    })
    book = load_book(root, "en")
    assert [(c.path.as_posix(), c.part) for c in book.chapters] == [("index.qmd", None), ("a.qmd", "Basics")]
    assert book.crossref["eq"] == "Eq." and book.crossref["appendix"] == "Annex"


def test_crossref_words_are_read_where_quarto_reads_them(tmp_path):
    root = write(tmp_path, {
        "_quarto.yml": "profile: {default: zh}\n",
        "_quarto-zh.yml": "lang: zh\ncrossref: {fig-prefix: 图, eq-prefix: 公式}\n"
                          "language: {crossref-sec-prefix: 节, crossref-tbl-title: 表格}\n"
                          "book: {chapters: [index.qmd]}\n",
        "index.qmd": "# I\n",
    })
    book = load_book(root, "zh")
    assert book.crossref["sec"] == "节"          # language: crossref-sec-prefix (the key Quarto 1.7 reads)
    assert book.crossref["tbl"] == "表格"        # language: crossref-tbl-title
    assert book.crossref["eq"] == "公式" and book.crossref["fig"] == "图"   # crossref: X-prefix
    (root / "_quarto-zh.yml").write_text("lang: zh\ncrossref: {sec-prefix: 节}\nbook: {chapters: [index.qmd]}\n",
                                         encoding="utf-8")
    # Quarto 1.7 ignores crossref: sec-prefix in a book (its pages said "小节"): refused, naming the key to use
    with pytest.raises(ConfigError, match="language: crossref-sec-prefix"):
        load_book(root, "zh")


def test_fixture_profiles_and_missing_chapter(tmp_path):
    en = load_book(FIX, "en")
    assert en.title == "Tiny Book" and en.execute_options == {"echo": False}
    assert [c.path.as_posix() for c in en.chapters] == ["index.qmd", "appendix/ref.qmd"]
    root = write(tmp_path, {"_quarto.yml": "profile: {default: en}\n",
                            "_quarto-en.yml": "book: {chapters: [gone.qmd]}\n"})
    with pytest.raises(ConfigError, match="gone.qmd does not exist"):
        load_book(root, "en")
    with pytest.raises(ConfigError, match="profile 'fr'"):
        load_book(root, "fr")
