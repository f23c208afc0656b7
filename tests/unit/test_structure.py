"""The house stays readable: no import cycle, small functions, the engine apart from the book's layer,
one place for settings, the reference choice and interface strings.

Each rule reads the code as text (``ast``), imports included wherever they stand (a function-local
import counts: it is how a cycle hides)."""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest
from sourcegraph import imported, modules, nodes_of

ROOT = Path(__file__).resolve().parents[2]
MAX_FUNCTION = 80
MAX_CLASS_WITHOUT_DOC = 300


MODULES = modules(ROOT)


def imports_of(name: str, path: Path) -> set[str]:
    """The project modules ``name`` imports."""
    return {m for m in imported(name, path, nodes_of(path)) if m in MODULES and m != name}


@lru_cache(maxsize=None)
def graph() -> dict[str, set[str]]:
    """Each project module's project imports: read once, by the first rule that needs them (not at
    collection, which every test process pays)."""
    return {name: imports_of(name, path) for name, path in MODULES.items()}


def _package_edges(m: str) -> set[str]:
    """A module's imports, without the package that contains it (importing a submodule runs its package
    first: that is not a cycle of the code's ideas)."""
    return {t for t in graph()[m] if not m.startswith(t + ".")}


def test_no_import_cycle():
    seen, stack, cycles = set(), [], []

    def visit(m):
        if m in stack:
            cycles.append(stack[stack.index(m):] + [m])
            return
        if m in seen:
            return
        seen.add(m)
        stack.append(m)
        for t in sorted(_package_edges(m)):
            visit(t)
        stack.pop()

    for m in sorted(graph()):
        visit(m)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles[:5])


def test_the_engine_never_imports_the_books_layer():
    # the passes are the engine's: they reach the layer through Settings.layer (bookbuild.layer), never by import
    composers = ("bookbuild.__main__", "bookbuild.preview", "bookbuild.worker", "bookbuild.commands", "bookbuild.book",
                 "bookbuild.quarto", "bookbuild.pagecheck")
    engine = [m for m in graph() if m.startswith("bookbuild") and not m.startswith(composers) and m != "bookbuild"]
    assert {"bookbuild.execute.runner", "bookbuild.render.html", "bookbuild.passes.execute", "bookbuild.layer"} <= set(engine)
    bad = {m: sorted(t for t in graph()[m] if t.startswith("bookbuild.book")) for m in engine}
    assert not {m: v for m, v in bad.items() if v}


#: the rooms that use the renderer (it renders for them); every other room of the engine lies below it
ABOVE_THE_RENDERER = ("bookbuild.render", "bookbuild.passes", "bookbuild.book", "bookbuild.quarto", "bookbuild.pagecheck",
                      "bookbuild.compare", "bookbuild.prose_patch", "bookbuild.commands", "bookbuild.preview",
                      "bookbuild.worker", "bookbuild.__main__", "bookbuild.cli")


def test_nothing_below_the_renderer_imports_it():
    """Reading (pandoc's runner, the pieces, the bibliography, numbering, the cells) lies below rendering: the
    bibliography once reached pandoc through ``render/pandoc.py``, the one arrow back up."""
    below = [m for m in graph() if m.startswith("bookbuild.") and not m.startswith(ABOVE_THE_RENDERER)]
    assert "bookbuild.pandoc" in below and "bookbuild.bibliography" in below and "bookbuild.pieces" in below
    up = {m: sorted(t for t in graph()[m] if t.startswith("bookbuild.render")) for m in below}
    assert not {m: v for m, v in up.items() if v}


def test_the_engine_knows_nothing_of_mlsysim():
    composers = ("bookbuild.book", "bookbuild.quarto", "bookbuild.pagecheck")   # the check reads the reader's layer
    engine = [p for m, p in MODULES.items() if m.startswith("bookbuild") and not m.startswith(composers)]
    named = [p.relative_to(ROOT).as_posix() for p in engine if re.search(r"\bmlsysim\b", p.read_text(encoding="utf-8"))]
    assert not named


@pytest.mark.parametrize("name", sorted(MODULES))
def test_small_functions_and_documented_classes(name):
    long = []
    for node in nodes_of(MODULES[name]):
        n = node.end_lineno - node.lineno + 1 if hasattr(node, "end_lineno") else 0
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and n > MAX_FUNCTION:
            long.append(f"{node.name}: {n} lines")
        if isinstance(node, ast.ClassDef) and n > MAX_CLASS_WITHOUT_DOC and not ast.get_docstring(node):
            long.append(f"class {node.name}: {n} lines without a docstring")
    assert not long, f"{MODULES[name].relative_to(ROOT)}: {long}"


def test_only_settings_reads_the_environment():
    """bookbuild's state travels as arguments; the user's few variables are read in settings.py alone
    (the runner sets QUARTO_PROFILE for the cells, as Quarto does: that is the cells' interface)."""
    readers = []
    for name, p in MODULES.items():
        if not name.startswith("bookbuild") or name == "bookbuild.settings":
            continue
        for m in re.finditer(r"os\.environ(?:\.get)?\s*\(?\s*\[?\s*\"([A-Z_]+)\"", p.read_text(encoding="utf-8")):
            if m.group(1) not in ("QUARTO_PROFILE", "MPLBACKEND"):
                readers.append(f"{p.relative_to(ROOT)}: {m.group(1)}")
    assert not readers


def test_the_reference_choice_is_stated_once():
    """data/reference.toml names the reference; no code types its registry names again."""
    ref = (ROOT / "mlsysim" / "data" / "reference.toml").read_text(encoding="utf-8")
    names = re.findall(r'^(?:accelerator|model)\s*=\s*"([^"]+)"', ref, re.M)
    assert len(names) == 2
    typed = []
    for name, p in MODULES.items():
        for node in nodes_of(p):
            if isinstance(node, ast.Constant) and node.value in names:
                typed.append(f"{p.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not typed


def test_interface_strings_live_in_one_file_per_language():
    """No Chinese text in the renderer's code (its modules and its page script): its strings are
    render/ui/<lang>.toml."""
    han = re.compile(r"[\u4e00-\u9fff]")
    render = [p for m, p in MODULES.items() if m.startswith("bookbuild.render")]
    render += sorted((ROOT / "bookbuild" / "render" / "assets").glob("*.js"))
    found = [p.relative_to(ROOT).as_posix() for p in render if han.search(p.read_text(encoding="utf-8"))]
    assert not found
    ui = ROOT / "bookbuild" / "render" / "ui"
    import tomllib
    en, zh = (tomllib.loads((ui / f"{lang}.toml").read_text(encoding="utf-8")) for lang in ("en", "zh"))
    assert en.keys() == zh.keys() and en["callout"].keys() == zh["callout"].keys()


#: the browser scripts of the book's layer and of the Quarto bridge: what they say is in a strings file
#: (bookbuild/book/ui/<lang>.toml, render/ui/<lang>.toml), shipped to the page with its data
PAGE_SCRIPTS = ("bookbuild/book/assets", "bookbuild/quarto/assets", "bookbuild/render/assets")
#: Chinese characters, CJK punctuation and full-width forms (（）：，。 …)
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
#: a table of strings per language ({en: {...}, zh: {...}}, zh: "..."), or a string chosen by language
PER_LANGUAGE = re.compile(r"""\b(?:en|zh)\s*:\s*[{"'`]|\blang\s*[!=]==?\s*["']|\.lang\.indexOf\(\s*["']""")


def test_the_page_scripts_say_nothing_in_a_language_of_their_own():
    """No Chinese text and no per-language table in the pages' scripts (reader.js, live.js, figures.js,
    the bridge, book.js): every string a reader sees comes from one file per language."""
    scripts = sorted(p for d in PAGE_SCRIPTS for p in (ROOT / d).glob("*.js"))
    assert {p.name for p in scripts} >= {"reader.js", "live.js", "figures.js", "quarto-bridge.js", "book.js"}
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}" for p in scripts
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if CJK.search(line) or PER_LANGUAGE.search(line)]
    assert not found, "\n".join(found)


#: the import names of the test extra's packages (pyproject.toml: [project.optional-dependencies] test)
TEST_ONLY = {"pytest": "pytest", "pytest-xdist": "xdist", "hypothesis": "hypothesis", "beautifulsoup4": "bs4",
             "playwright": "playwright", "ruff": "ruff"}
#: the one place that may: check-pages drives Chromium through playwright, and says so in one line without it
DRIVES_A_BROWSER = {"bookbuild.pagecheck.browser: playwright"}


def test_the_library_and_the_engine_import_nothing_only_the_test_extra_installs():
    """`pip install .[book]` must build the book: no module of mlsysim or bookbuild may import a package that
    only the test extra brings (the engine once read its pages' outlines with BeautifulSoup), except the
    page check's browser driver."""
    import tomllib
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert {re.split(r"[<>=!~ \[]", d, maxsplit=1)[0] for d in extra["test"]} == set(TEST_ONLY), \
        "name the import of each test-only package in TEST_ONLY"
    bad = {f"{name}: {top}" for name, path in MODULES.items()
           for top in {m.split(".")[0] for m in imported(name, path, nodes_of(path))} if top in TEST_ONLY.values()}
    assert bad == DRIVES_A_BROWSER, bad
