"""The renderer's interface strings, one file per language (``ui/<lang>.toml``); a language without
a file reads English. :func:`strings` reads any such folder by the same rule (the book's layer keeps
its own, ``bookbuild/book/ui``)."""
from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

FOLDER = Path(__file__).with_name("ui")


@lru_cache(maxsize=None)
def strings(folder: Path, lang: str) -> dict:
    """The strings of ``folder/<lang>.toml`` (``zh-CN`` reads ``zh``), or of ``folder/en.toml`` where the
    language has no file."""
    f = folder / f"{lang.split('-')[0]}.toml"
    return tomllib.loads((f if f.is_file() else folder / "en.toml").read_text(encoding="utf-8"))


def ui(lang: str) -> dict:
    return strings(FOLDER, lang)
