"""Shared fixtures: the executed appendix in both languages (executed once per test session)."""
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden"


FIXTURE_BOOK = Path(__file__).parent / "fixtures" / "book"


def copy_with_edits(src: Path, dst: Path, edits=None, ignore=("_build", "__pycache__")) -> Path:
    """Copy ``src`` to ``dst`` and apply ``{relative path: (old, new)}`` (each ``old`` must be there)."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*ignore))
    for rel, (old, new) in (edits or {}).items():
        p = dst / rel
        text = p.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return dst


def book_copy(tmp_path, edits=None, name="book") -> Path:
    """A private copy of the mlsysim-free fixture book, with edits applied."""
    sys.modules.pop("stubsim", None)  # each copy imports its own stub
    return copy_with_edits(FIXTURE_BOOK, tmp_path / name, edits)


def golden(name: str) -> dict:
    """Expected values copied from the seed documents into ``tests/golden/<name>.toml`` (each file
    says where its values were typed from). The project never reads outside its own tree."""
    return tomllib.loads((GOLDEN / f"{name}.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def executed_appendix(tmp_path_factory):
    from bookbuild.execute import execute_chapter
    out = tmp_path_factory.mktemp("executed")
    return {
        lang: execute_chapter(ROOT / f"appendix/inference-cost{suffix}.qmd", ROOT, out / lang / "figures",
                              md_dir=out / lang, profile=lang)
        for lang, suffix in (("en", ""), ("zh", ".zh"))
    }


#: headless Chromium for the browser tests (tests/test_browser_explorer.py, tests/test_reader_page.py):
#: one Playwright instance per session, because the sync API cannot run two at once in one thread
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    # never skipped: scripts/setup.sh installs Debian's Chromium and the playwright package
    assert CHROMIUM.exists(), "the browser tests need /usr/bin/chromium (Debian package chromium; scripts/setup.sh installs it)"
    import playwright.sync_api as sync_api
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


_IGNORE = shutil.ignore_patterns(".git", "_book", "_build", "tests", "bench", ".pytest_cache", ".hypothesis",
                                 "__pycache__", ".benchmarks", "figures", ".ci", "scripts", ".venv")


def SOURCES_IGNORE(folder, names):
    """What a copy of the sources leaves out: builds, tests, drawn figures; but not the package
    mlsysim/figures (the figure descriptions), which the copy's chapters and its live mode import."""
    out = _IGNORE(folder, names)
    return out - {"figures"} if Path(folder).name == "mlsysim" else out


def render_copy(dest: Path, *args: str) -> Path:
    """Copy the book's sources to ``dest`` and render them (``args``: extra render options); returns
    dest/_book. A copy, so a build of the working tree at the same time is not disturbed."""
    import subprocess
    shutil.copytree(ROOT, dest, ignore=SOURCES_IGNORE, dirs_exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "bookbuild", "render", "--profile", "all", "--root", str(dest), *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"bookbuild render failed:\n{r.stdout}\n{r.stderr}"
    return dest / "_book"


@pytest.fixture(scope="session")
def rendered_book(tmp_path_factory) -> Path:
    """The whole book (both languages, HTML and PDF) rendered once per test session, for the browser tests."""
    return render_copy(tmp_path_factory.mktemp("rendered-book") / "src")
