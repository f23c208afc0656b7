"""Shared fixtures: the executed appendix in both languages (executed once per test session), the whole book
rendered once per test session (however many pytest-xdist workers share it)."""
import fcntl
import os
import shutil
import subprocess
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


def mlsysim_main(*args: str) -> subprocess.CompletedProcess:
    """``python -m mlsysim <args>``'s main, run in this process on the package's own data: its exit status
    and what it wrote to stdout and stderr. (The real command in a fresh process, and this same path for
    broken data folders: tests/fresh.py, tests/test_hostile_registry.py and tests/test_hostile_environment.py.)"""
    import contextlib
    import io

    from mlsysim.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse refuses an option this way
            status = exc.code
    return subprocess.CompletedProcess(["python", "-m", "mlsysim", *args], status, out.getvalue(), err.getvalue())


@pytest.fixture
def untouched():
    """Asserts at the end of the test that the project tree is as it was (tests/fresh.py: project_state)."""
    import fresh
    before = fresh.project_state()
    yield
    assert fresh.project_state() == before, "a command wrote outside the test's temporary folder"


@pytest.fixture(scope="session", autouse=True)
def _compiled_once(tmp_path_factory):
    """One folder per test session for the compiled modules of fresh interpreters (tests/fresh.py)."""
    import fresh
    fresh.COMPILED.append(tmp_path_factory.mktemp("pycache"))


def golden(name: str) -> dict:
    """Expected values copied from the seed documents into ``tests/golden/<name>.toml`` (each file
    says where its values were typed from). The project never reads outside its own tree."""
    return tomllib.loads((GOLDEN / f"{name}.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def executed_appendix(tmp_path_factory):
    """The appendix executed in both languages, once per test session (:func:`session_folder`)."""
    import pickle

    def make(out: Path) -> None:
        from bookbuild.execute import execute_chapter
        chapters = {lang: execute_chapter(ROOT / f"appendix/inference-cost{suffix}.qmd", ROOT, out / lang / "figures",
                                          md_dir=out / lang, profile=lang)
                    for lang, suffix in (("en", ""), ("zh", ".zh"))}
        (out / "executed.pickle").write_bytes(pickle.dumps(chapters))
    folder = session_folder(tmp_path_factory, "executed", make)
    return pickle.loads((folder / "executed.pickle").read_bytes())


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


_IGNORED = shutil.ignore_patterns(".git", "_book", "_build", "tests", "bench", ".pytest_cache", ".hypothesis",
                                  "__pycache__", ".benchmarks", ".ci", "scripts", ".venv")


def SOURCES_IGNORE(folder, names):
    """What a copy of the book's sources leaves out: build products, tests, tools; the figures the build
    writes (figures/ at the top and beside the chapters), never a package's figures/ (mlsysim/figures)."""
    out = set(_IGNORED(folder, names))
    if "figures" in names and not (Path(folder) / "figures" / "__init__.py").is_file():
        out.add("figures")
    return out


def render_copy(dest: Path, *args: str) -> Path:
    """Copy the book's sources to ``dest`` and render them (``args``: extra render options); returns
    dest/_book. A copy, so a build of the working tree at the same time is not disturbed."""
    shutil.copytree(ROOT, dest, ignore=SOURCES_IGNORE, dirs_exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "bookbuild", "render", "--profile", "all", "--root", str(dest), *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"bookbuild render failed:\n{r.stdout}\n{r.stderr}"
    return dest / "_book"


def session_folder(tmp_path_factory, name: str, make) -> Path:
    """The folder ``name`` that ``make(folder)`` fills, made once per test session: under pytest-xdist the
    workers share the session's temporary folder, and the first to ask makes it under a file lock while the
    others wait for it (pytest-xdist's own recipe); a worker finding it unfinished (``make`` failed) makes it
    again, and fails as the first did. The folder is read, never written, by the tests that use it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent    # the session's folder above the workers' own
    folder, done = base / name, base / f"{name}.done"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def rendered_book(tmp_path_factory) -> Path:
    """The whole book (both languages, HTML and PDF) rendered once per test session, for the browser tests."""
    return session_folder(tmp_path_factory, "rendered-book", lambda folder: render_copy(folder / "src")) / "src" / "_book"


#: fixtures that build or open the whole book: a test using one (directly or through another fixture) is in
#: the ``book`` tier; the fast tier is ``pytest -m "not book"`` (``world``: a copy of the tiny book that its
#: tests render, HTML and PDF)
BOOK_FIXTURES = frozenset({"rendered_book", "executed_appendix", "browser", "world"})
#: test files whose tests run builds of a book, Node, a browser, signalled processes or fresh interpreters
#: (seconds each)
BOOK_MODULES = frozenset({
    "test_translation", "test_hostile_engine", "test_hostile_environment", "test_hostile_processes", "test_hostile_inputs", "test_mutations",
    "test_author_loop", "test_parity", "test_live_runtime", "test_live_browser", "test_figures",
    "test_appendix_golden", "test_lecture_golden", "test_numbering", "test_compare_render", "test_render_book",
    "test_render_errors", "test_render_fixture", "test_bookbuild_execute", "test_bookbuild_check", "test_pages",
    "test_reader_page", "test_browser_explorer", "test_notebook_explorer", "test_quarto_post_render_live",
    "test_citations_pinned", "test_value_names", "test_passes", "test_measurements", "test_units_cold_start",
    "test_worker", "test_author_path"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if BOOK_FIXTURES & set(getattr(item, "fixturenames", ())) or item.module.__name__.rsplit(".", 1)[-1] in BOOK_MODULES:
            item.add_marker(pytest.mark.book)


def pytest_ignore_collect(collection_path, config):
    """Under ``-m "not book"`` (the fast tier) a BOOK_MODULES file is not imported at all: every test in it
    would be deselected, and importing it (its assertions rewritten, its build tools imported) costs
    seconds. Any other marker expression collects it as usual."""
    if " ".join((config.getoption("markexpr") or "").split()) == "not book" and \
            collection_path.suffix == ".py" and collection_path.stem in BOOK_MODULES:
        return True
    return None
