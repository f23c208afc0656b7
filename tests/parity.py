"""The chapter pairs of the book (English chapter, its translation), read from the two profiles.

The parity logic itself lives in bookbuild/translation.py (structure, compare_structure,
compare_inline, load_localized): the tests and any future build step share it.
"""
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _chapters(profile_file: str) -> list[str]:
    book = yaml.safe_load((ROOT / profile_file).read_text(encoding="utf-8"))["book"]
    return list(book.get("chapters") or []) + list(book.get("appendices") or [])


def chapter_pairs() -> list[tuple[str, str]]:
    """(English chapter, Chinese chapter), position by position in _quarto-en.yml and _quarto-zh.yml."""
    en, zh = _chapters("_quarto-en.yml"), _chapters("_quarto-zh.yml")
    assert len(en) == len(zh), f"the English book has {len(en)} chapters, the Chinese {len(zh)}"
    return list(zip(en, zh))
