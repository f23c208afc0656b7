"""The font half of test_quarto_pre_render.py: Quarto's pre-render step (bookbuild/quarto/pre_render.py): the Chinese EPUB's font subset holds every
Chinese character the book's sources can print, and an English book gets none."""
from __future__ import annotations

import shutil
from pathlib import Path


from bookbuild.quarto.pre_render import FONT, book_characters, write_font

ROOT = Path(__file__).resolve().parents[2]


def test_the_epub_font_is_written_for_the_chinese_book_only_and_covers_its_characters(tmp_path):
    from fontTools.ttLib import TTFont
    for name in ("_quarto.yml", "_quarto-en.yml", "_quarto-zh.yml", "index.qmd", "index.zh.qmd", "references.bib"):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("appendix", "lectures", "csl"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    assert write_font(tmp_path, "en") is None and not (tmp_path / FONT).exists()
    out = write_font(tmp_path, "zh")
    assert out == tmp_path / FONT
    cmap = TTFont(str(out)).getBestCmap()
    chars = book_characters(tmp_path, [Path("index.zh.qmd"), Path("appendix/inference-cost.zh.qmd")])
    assert all(ord(c) in cmap for c in chars if c not in "\u3000")
    before = out.read_bytes()
    write_font(tmp_path, "zh")
    assert out.read_bytes() == before        # two renders, the same file
