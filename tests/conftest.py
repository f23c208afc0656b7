"""Shared fixtures: the executed appendix in both languages (executed once per test session), the whole book
rendered once per test session (however many pytest-xdist workers share it)."""
import fcntl
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import hypothesis
import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden"


def compiled_in_the_environment() -> Path | None:
    """Where this test process keeps compiled modules, the test files as pytest rewrites them among them:
    ``<virtual environment>/pycache``, never beside the sources. A machine that asks Python not to write
    bytecode (PYTHONDONTWRITEBYTECODE, as some images set) otherwise compiles every test file again in every
    worker of every run (collecting the unit tier took 2.9 s instead of 1.4). Outside a virtual environment
    Python's own setting is left alone. Fresh interpreters started by tests keep theirs (tests/fresh.py)."""
    if sys.prefix == sys.base_prefix:
        return None
    folder = Path(sys.prefix) / "pycache"
    if not os.environ.get("PYTEST_XDIST_WORKER"):   # what earlier runs compiled of their temporary copies
        import tempfile
        shutil.rmtree(folder / Path(tempfile.gettempdir()).resolve().relative_to("/"), ignore_errors=True)
    sys.pycache_prefix, sys.dont_write_bytecode = str(folder), False
    return folder


compiled_in_the_environment()


#: the property tests' examples: each names its full count as ``examples(n)``. ``.ci/run`` runs every one
#: (``--hypothesis-profile=full``); any other run, the fast tier's among them, a fifth of each (at least 20):
#: Hypothesis's own pattern of a quick profile for the edit loop and a thorough one for CI
hypothesis.settings.register_profile("fast")
hypothesis.settings.register_profile("full")
hypothesis.settings.load_profile("fast")    # the default; Hypothesis's plugin loads the one the option names


def examples(n: int) -> int:
    """``n`` examples under the full profile, a fifth of them (at least 20, at most ``n``) under the fast one."""
    return n if hypothesis.settings.get_current_profile_name() == "full" else min(n, max(20, n // 5))


def a_share(cases: list) -> list:
    """An exhaustive sweep's cases as :func:`examples` counts them: every one under the full profile; under the
    fast one ``examples(len(cases))`` of them, evenly spaced from the first (so a sweep ordered field by field
    still reaches every field, each with other wrong values)."""
    k = examples(len(cases))
    return [cases[i * len(cases) // k] for i in range(k)]


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
    broken data folders: tests/fresh.py, tests/unit/test_hostile_registry.py and tests/book/test_hostile_environment.py.)"""
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
    """Asserts at the end of the test that the checkout is as it was (:func:`unchanged_since`)."""
    before = watched_state()
    yield
    unchanged_since(before, "a command wrote outside the test's temporary folder")


@pytest.fixture
def world(tmp_path):
    """A private copy of the fixture book with a folder beside it (tests/worlds.py), checked untouched after."""
    from worlds import World
    w = World(tmp_path)
    yield w
    w.untouched()


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
def executed_appendix(tmp_path_factory, book_sources):
    """The appendix executed in both languages (from :func:`book_sources`), once per test session
    (:func:`session_folder`)."""
    import pickle

    def make(out: Path) -> None:
        from bookbuild.execute import execute_chapter
        root = book_sources
        chapters = {lang: execute_chapter(root / f"appendix/inference-cost{suffix}.qmd", root, out / lang / "figures",
                                          md_dir=out / lang, profile=lang)
                    for lang, suffix in (("en", ""), ("zh", ".zh"))}
        (out / "executed.pickle").write_bytes(pickle.dumps(chapters))
    folder = session_folder(tmp_path_factory, "executed", make)
    return pickle.loads((folder / "executed.pickle").read_bytes())


#: headless Chromium for the browser tests (tests/book/test_browser_explorer.py, tests/book/test_reader_page.py):
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


def chapter_sources_copy(dest: Path) -> Path:
    """The book's sources copied to ``dest`` without the project's packages (the chapters import the
    installed mlsysim, this checkout's, so a test's objects and a chapter's are the same classes)."""
    def ignore(folder, names):
        top = {"mlsysim", "bookbuild"} if Path(folder) == ROOT else set()
        return SOURCES_IGNORE(folder, names) | (top & set(names))
    shutil.copytree(ROOT, dest, ignore=ignore, dirs_exist_ok=True)
    return dest


@pytest.fixture(scope="session")
def book_sources(tmp_path_factory) -> Path:
    """The book's sources, copied once per test session, for the tests that execute the real chapters in
    this process: a chapter writes its static figures beside itself (``figures/<name>.<lang>.svg``, as under
    Quarto), and a test writes under its temporary folder, never into the checkout."""
    return session_folder(tmp_path_factory, "book-sources", chapter_sources_copy)


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
    again, and fails as the first did. A worker is known by its own folder (``popen-gwN``), not by the
    variable alone: a pytest started by a test inherits ``PYTEST_XDIST_WORKER`` and would otherwise share
    ``/tmp/pytest-of-<user>/<name>`` with every earlier run. The folder is read, never written, by the tests
    that use it."""
    base = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and base.name == f"popen-{worker}":
        base = base.parent    # the session's folder above the workers' own (never a fixed folder shared by runs)
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


@pytest.fixture(scope="session")
def warm_cache(rendered_book) -> Path:
    """The content cache the session's rendered book left: every chapter of both languages executed, its
    figures drawn, its pages and both PDFs made. A test that builds a copy of the real book to look at
    something other than a cold build starts from a copy of it (:func:`with_cache`), as an author who has
    built before does. Read, never written."""
    return rendered_book.parent / "_build" / "cache"


def with_cache(root: Path, cache: Path) -> Path:
    """``root`` (a copy of the book) with a private copy of ``cache`` as its content cache (a copy, never a
    link: a test may damage its entries)."""
    shutil.copytree(cache, root / "_build" / "cache")
    return root


#: the suite's three tiers, one folder each; a test's tier is its folder (``pytest tests/unit`` is the fast tier,
#: ``pytest`` runs all three, as .ci/run does; ``-m unit|book|release`` selects the same sets):
#: - ``unit``: in-process, synthetic documents, ASTs and registries; no book built, no browser, no Node;
#: - ``book``: the real book (or the fixture book) executed and rendered, browsers, fresh interpreters,
#:   signalled processes;
#: - ``release``: the product checks over a rendered book (the reader's-eye page check, compare-reader,
#:   Pyodide's live mode, EPUBCheck, mutation builds).
TESTS = Path(__file__).resolve().parent
TIERS = ("unit", "book", "release")
#: fixtures that build or open a whole book: a unit test that asks for one is in the wrong folder
BOOK_FIXTURES = frozenset({"rendered_book", "warm_cache", "executed_appendix", "browser", "world", "book_sources"})
# a test module may import another's helpers whatever its tier's folder (``from test_hostile_engine import world``)
sys.path[:0] = [str(TESTS / tier) for tier in TIERS if str(TESTS / tier) not in sys.path]


def tier_of(path: Path) -> str | None:
    try:
        top = Path(path).resolve().relative_to(TESTS).parts[0]
    except (ValueError, IndexError):
        return None
    return top if top in TIERS else None


def misplaced(items) -> list[str]:
    """Why each of ``items`` (pytest's, or anything with ``nodeid``, ``path`` and ``fixturenames``) is in the
    wrong place: outside the three tiers' folders, or a unit test asking for a fixture that builds a book."""
    out = []
    for item in items:
        tier = tier_of(item.path)
        if tier is None:
            out.append(f"{item.nodeid}: a test outside tests/unit, tests/book and tests/release has no tier")
        elif tier == "unit" and BOOK_FIXTURES & set(getattr(item, "fixturenames", ())):
            out.append(f"{item.nodeid}: a unit test uses {sorted(BOOK_FIXTURES & set(item.fixturenames))}: "
                       "it belongs in tests/book")
    return out


def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = tier_of(item.path)
        if tier is not None:
            item.add_marker(getattr(pytest.mark, tier))
    if wrong := misplaced(items):
        raise pytest.UsageError("\n".join(wrong))


#: what a test run may leave in the checkout: git's, the virtual environment, compiled modules and pytest's
#: and hypothesis's own folders (everything else a test writes goes under its temporary folder)
UNWATCHED = frozenset({".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "vendor"})


#: the build's own folders: a test's check (:func:`unchanged_since`) leaves them to the run's, at its end (after
#: a build they hold about 1,200 of the checkout's 1,600 files; twice a test, 124 tests, they made the walks the
#: unit tier's largest cost)
BUILT = frozenset({"_build", "_book"})


def checkout_state(root: Path = ROOT, unwatched: frozenset = UNWATCHED) -> dict[str, tuple[int, int]]:
    """Every file of the checkout (the ignored ``_build`` and ``_book`` included, unless ``unwatched`` names
    them) with its mtime and size, by its path under the checkout."""
    state: dict[str, tuple[int, int]] = {}

    def walk(folder: str, under: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in unwatched:
                        walk(e.path, under + e.name + "/")
                    continue
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            state[under + e.name] = (st.st_mtime_ns, st.st_size)
    walk(str(root), "")
    return state


def changed_files(before: dict, after: dict) -> list[str]:
    """The files added, removed or changed between two :func:`checkout_state`."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def watched_state(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """The :func:`checkout_state` a test's check compares: the build's folders (:data:`BUILT`) left out."""
    return checkout_state(root, UNWATCHED | BUILT)


def unchanged_since(before: dict, what: str, root: Path = ROOT) -> None:
    """Fails saying ``what``, naming the files of the checkout added, removed or changed since ``before`` (a
    :func:`watched_state`): a test's check (``untouched``, tests/worlds.py) on the record the whole run's
    (:func:`pytest_sessionfinish`) compares, which also covers the build's folders."""
    if touched := changed_files(before, watched_state(root)):
        raise AssertionError(f"{what}: " + ", ".join(touched[:20]) + (" …" if len(touched) > 20 else ""))


def pytest_sessionstart(session):
    if not os.environ.get("PYTEST_XDIST_WORKER"):   # the controller looks, once for the whole run
        session.config.stash[CHECKOUT] = checkout_state()


def pytest_sessionfinish(session, exitstatus):
    """No test writes into the checkout: a run that changed, added or removed a file there fails, naming it."""
    before = session.config.stash.get(CHECKOUT, None)
    if before is None or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return
    if touched := changed_files(before, checkout_state()):
        report = session.config.pluginmanager.get_plugin("terminalreporter")
        lines = ["a test wrote into the checkout (tests write under their temporary folder):"]
        lines += [f"  {p}" for p in touched[:20]] + (["  …"] if len(touched) > 20 else [])
        if report is not None:
            report.write_line("\n".join(lines), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


CHECKOUT = pytest.StashKey[dict]()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """The run is over and reported: what it made is frozen out of the garbage collector, so the
    interpreter's shutdown does not walk its hundreds of thousands of objects again (about a second in each worker,
    which the controller waits for before it prints the summary). Nothing is skipped: exit handlers run and
    files close as before; only the last collections pass over these objects."""
    import gc
    gc.freeze()
