"""Shared fixtures: the executed appendix in both languages (executed once per test session)."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"


def seed_text(name: str) -> str:
    """A seed document. The seeds live beside the project (../shared/seeds); CI copies them there too."""
    path = SEEDS / name
    if not path.is_file():
        raise FileNotFoundError(f"seed {path} is missing: the golden tests read their expected numbers from it")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def executed_appendix(tmp_path_factory):
    from bookbuild.execute import execute_chapter
    out = tmp_path_factory.mktemp("executed")
    return {
        lang: execute_chapter(ROOT / f"appendix/inference-cost{suffix}.qmd", ROOT, out / lang / "figures",
                              md_dir=out / lang, profile=lang)
        for lang, suffix in (("en", ""), ("zh", ".zh"))
    }
