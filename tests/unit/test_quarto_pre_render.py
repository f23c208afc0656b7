"""Quarto's pre-render step (bookbuild/quarto/pre_render.py): the Chinese EPUB's font subset holds every
Chinese character the book's sources can print, and an English book gets none."""
from __future__ import annotations

from pathlib import Path


from bookbuild.quarto.pre_render import book_characters

ROOT = Path(__file__).resolve().parents[2]


def test_the_characters_come_from_the_chapters_and_the_libraries_chinese_once_each():
    chars = book_characters(ROOT, [Path("index.zh.qmd")])
    assert chars == "".join(sorted(set(chars)))
    # the preface's heading, the appendix label Quarto's EPUB writes (_quarto-zh.yml), the caption colon
    for c in "前言附录：参考文献":
        assert c in chars, c
    assert not any(c.isascii() for c in chars)
