"""The renderer's interface strings, one file per language (``ui/<lang>.toml``); a language without
a file reads English."""
from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

FOLDER = Path(__file__).with_name("ui")


@lru_cache(maxsize=None)
def ui(lang: str) -> dict:
    base = lang.split("-")[0]
    f = FOLDER / f"{base}.toml"
    return tomllib.loads((f if f.is_file() else FOLDER / "en.toml").read_text(encoding="utf-8"))
