"""What the book's layer adds while a chapter runs (:class:`BookHooks`, given to the engine's runner).

- every inline value that reads an attribute is marked ``[295]{.mlsysim-v data-attr="ServingRef.ratio_str"}``,
  so the HTML book's reader (hover explanations, the reader's choice) finds it; text, PDF and search
  see only the value; the value is text (:func:`markdown_text`): a registry name holding ``<script>``,
  ``*`` or ``@`` prints those characters, it never becomes markup;
- every cell class's ``*_str`` is explained (:mod:`.provenance`), every guard mapped to the values it
  protects;
- guards are recorded (``mlsysim.guards.recording``) and kept with the chapter, so ``diff`` reads the
  same cached chapters as the build; the first guard that fails still fails the chapter, named by its
  file, line and cell, as it would have raised (``raise_guards=False``: kept, for ``diff``);
- mlsysim keeps figures and explorer data between builds in the build's store (``cache.LibraryStore``, kind ``library``); a run that reads
  only the numbers (``draw_figures=False``: ``diff``) describes each figure without drawing its static SVG
  (``mlsysim.figures.static_figures``).
"""
from __future__ import annotations

import contextlib
import re
import sys
from pathlib import Path
from typing import Any

from .. import pool
from ..cache import LibraryStore, Store
from ..errors import BuildError, BuildFailed, CellError, GuardFailure, raised_at
from ..execute import Hooks
from ..source import Cell
from .provenance import explain_cell

#: imported once in the build process before any chapter's process is forked
PRELOAD = ("numpy", "pint", "matplotlib", "mlsysim")
#: what the layer's own checks import in the build process (the typography check reads the library's strings)
CHECKS_IMPORT = ("mlsysim.explorer", "mlsysim.measurements")
#: what loads and checks every registry file (data/*.toml), imported before any chapter runs (library_loads)
REGISTRY_IMPORT = ("mlsysim", "mlsysim.measurements")
#: the libraries whose whole code and data the chapters' results depend on
LIBRARIES = ("mlsysim",)
#: the inline scripts the library's outputs carry (package, the script's file in it: the explorer a cell
#: prints inlines that file's text): the only inline scripts a page runs besides the engine's own (the
#: page's policy hashes them; any other is refused). Read from the file, the library is not imported.
LIBRARY_SCRIPTS = (("mlsysim", "assets/explorer.js"),)
ATTR_EXPR = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")


#: what pandoc's markdown reads as markup inside a line: HTML, emphasis, code, math, links and spans,
#: citations, super/subscripts, entities, table cells, escapes (quotes and dashes stay typographic)
MARKUP = re.compile(r"([\\`*_{}\[\]<>$^~@&|#])")
#: what starts a block when it opens a line (a list item)
BLOCK_START = re.compile(r"^(\s*)(\d+)([.)])(?=\s)|^(\s*)([-+])(?=\s)")


def markdown_text(value: str) -> str:
    """``value`` as markdown that shows exactly its text (each markup character backslash-escaped, line
    breaks as spaces); a value without markup characters is unchanged."""
    value = " ".join(value.splitlines()) if ("\n" in value or "\r" in value) else value
    value = MARKUP.sub(r"\\\1", value)
    return BLOCK_START.sub(lambda m: (m.group(1) + m.group(2) + "\\" + m.group(3)) if m.group(2)
                           else (m.group(4) + "\\" + m.group(5)), value)


def value_span(expr: str, value: str) -> str:
    """An inline value as the book marks it (attribute reads only; an empty value stays empty), as text."""
    if ATTR_EXPR.match(expr) and value.strip():
        return f'[{markdown_text(value)}]{{.mlsysim-v data-attr="{expr}"}}'
    return markdown_text(value)


def _one_or_all(failed: list[GuardFailure]) -> BuildError | BuildFailed:
    return failed[0] if len(failed) == 1 else BuildFailed(failed)


class BookHooks(Hooks):
    """The book's hooks for one chapter run (created in the chapter's own process)."""

    def __init__(self, root: Path, *, mark_inline: bool = True, explain: bool = True,
                 cache_folder: Path | None = None, raise_guards: bool = True, draw_figures: bool = True,
                 defer_guards: bool = False):
        self.root = Path(root).resolve()
        self.mark_inline, self.explain, self.cache_folder = mark_inline, explain, cache_folder
        self.raise_guards, self.draw_figures = raise_guards, draw_figures
        #: a chapter that ran to its end with failing guards returns them (``extras()["failed"]``) instead of
        #: raising, so that the build checks its references and citations too and says everything at once
        self.defer_guards = defer_guards
        self.failed: list[GuardFailure] = []
        self.cells_files: set[str] | None = None   # the files the chapter's cells live in (set by around())
        self.provenance: dict[str, dict] = {}
        self.guard_map: list[dict] = []
        self.cells: list[Cell] = []
        self.records: list[dict] = []

    @contextlib.contextmanager
    def around(self, doc):
        self.cells_files = {c.body.file for c in doc.cells}
        try:   # mlsysim loads (and validates) its registry on import: a chapter that imports it reports that
            from mlsysim import diskcache
            from mlsysim.guards import recording
        except Exception:  # noqa: BLE001
            yield
            return
        diskcache.configure(LibraryStore(Store(self.cache_folder)) if self.cache_folder else None)
        with self._figures(), recording(accept=self._in_chapter) as rec:
            try:
                yield
            except BuildError:
                failed = self._failures(rec.records)
                if failed and self.raise_guards:   # a cell broke because a claim before it no longer held
                    raise _one_or_all(failed) from None
                raise
            finally:
                self.records = [dict(r, file=self._rel(r["file"])) for r in rec.records]
        failed = self._failures(rec.records)
        if failed and self.raise_guards and self.defer_guards:
            self.failed = failed
        elif failed and self.raise_guards:   # every guard of the chapter that failed, each once, in one run
            raise _one_or_all(failed)

    def _figures(self) -> contextlib.AbstractContextManager:
        """Static figures drawn or only described (``draw_figures``); an mlsysim older than
        ``static_figures`` (another revision's, under ``diff``) draws them, as it always did."""
        try:
            from mlsysim.figures import static_figures
        except ImportError:
            return contextlib.nullcontext()
        return static_figures(self.draw_figures)

    def _in_chapter(self, filename: str) -> bool:
        """A guard of the chapter's own cells (the library's own checks raise as they always do)."""
        return self.cells_files is None or self._rel(filename) in self.cells_files

    def _failures(self, records: list[dict]) -> list[GuardFailure]:
        """Each guard that failed, once (a guard in a loop fails once per line), in the order they ran."""
        out, seen = [], set()
        for r in records:
            if r["passed"]:
                continue
            rel = self._rel(r["file"])
            cell = next((c for c in self.cells if c.body.file == rel and c.body.line <= r["line"] < c.body.line + len(c.code)),
                        None)
            g = GuardFailure(rel, r["line"], f"guard failed: {r['message']}", cell.tag if cell else None)
            if g.format() not in seen:
                seen.add(g.format())
                out.append(g)
        return out


    def _rel(self, file: str) -> str:
        try:
            return Path(file).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return file

    def inline(self, expr: str, value: str) -> str:
        return value_span(expr, value) if self.mark_inline else markdown_text(value)

    def after_cell(self, cell: Cell, namespace: dict) -> None:
        self.cells.append(cell)
        if not self.explain or "class " not in cell.source:
            return
        try:
            res = explain_cell(cell.source, namespace, first_line=1, file=cell.body.file)
        except Exception as exc:  # noqa: BLE001 - said, naming the cell and where it failed: never hidden
            where = f" at {at}" if (at := raised_at(exc)) else ""
            raise CellError(cell.head.file, cell.head.line, f"explaining this cell's values failed{where} "
                            f"({type(exc).__name__}: {exc}), a bug of the book's engine: the build stops rather "
                            "than publish the page without its explanations", cell.tag) from None
        self.provenance.update(res.get("values", {}))
        self.guard_map += res.get("guards", [])

    def extras(self) -> dict[str, Any]:
        out = {"provenance": self.provenance, "guard_map": self.guard_map, "guards": self.records}
        if self.failed:
            out["failed"] = [[g.path, g.line, g.message, g.label] for g in self.failed]
        return out


def preload(root: Path, cache_folder: Path | None) -> None:
    """Import what every chapter imports, once, before the chapters' processes are forked; pyplot too
    (0.6 s) unless the figure cache already holds drawings."""
    sys.path.insert(0, str(root))   # the project's own mlsysim, as the chapters import it
    try:   # matplotlib's font cache must be writable under any HOME, before matplotlib is first imported
        from mlsysim.cachedirs import use_writable_mplconfigdir
        use_writable_mplconfigdir([Path(cache_folder) / "matplotlib"] if cache_folder else [])
    except Exception:  # noqa: BLE001 - a broken registry is reported by the chapter that imports it
        pass
    finally:
        sys.path.remove(str(root))
    pool.preload(PRELOAD, root)
    library_loads(root)
    drawn = cache_folder is not None and any((Path(cache_folder) / "library").glob("*/*"))
    try:
        import matplotlib
        matplotlib.use("agg")
        if not drawn:
            import matplotlib.pyplot  # noqa: F401
    except Exception:  # noqa: BLE001 - a chapter that needs it reports the error itself
        pass


def library_loads(root: Path) -> None:
    """``import mlsysim`` and its measurements (the project's own, as the chapters import them) in the build
    process, before any chapter runs: a registry file they refuse is the build's one problem, reported once, naming the data
    file (relative to the project), the entry and the field, instead of once per chapter against whichever
    cell imported it first."""
    if "mlsysim" in sys.modules and REGISTRY_IMPORT[-1] in sys.modules:
        return
    sys.path.insert(0, str(root))
    try:
        for name in REGISTRY_IMPORT:
            __import__(name)
    except Exception as exc:  # noqa: BLE001 - only the registry's own error is the build's; others stay the cells'
        from mlsysim.errors import RegistryError
        if not isinstance(exc, RegistryError):
            return
        path = exc.path
        if path is not None:
            try:
                path = path.resolve().relative_to(Path(root).resolve())
            except (ValueError, OSError):   # a data folder outside the project (MLSYSIM_DATA_DIR)
                pass
        raise BuildFailed([BuildError(path, exc.line, exc.detail)]) from None
    finally:
        sys.path.remove(str(root))


def warm_up(root: Path, cache_folder: Path | None) -> None:
    """Everything a build of this book imports, once, for a process that forks many builds (the
    preview's warm worker): :func:`preload` and what the checks read."""
    preload(root, cache_folder)
    pool.preload(CHECKS_IMPORT, root)


def library_dirs(root: Path) -> list[Path]:
    """Where the chapters' ``import mlsysim`` loads from (the project's own copy first, as the chapters
    see it with the project root first on ``sys.path``), without importing it."""
    import importlib.util
    out = []
    for name in LIBRARIES:
        loaded = sys.modules.get(name)
        if loaded is not None and getattr(loaded, "__file__", None):
            out.append(Path(loaded.__file__).parent)
        elif (Path(root) / name / "__init__.py").is_file():
            out.append(Path(root) / name)
        else:
            spec = importlib.util.find_spec(name)
            if spec is not None and spec.submodule_search_locations:
                out.append(Path(list(spec.submodule_search_locations)[0]))
    return out


def library_script_hashes() -> list[str]:
    """The policy sources ('sha256-…') of :data:`LIBRARY_SCRIPTS`, as a page's ``<script>`` holds them."""
    import importlib.util
    from ..render.html import script_source
    out = []
    for package, name in LIBRARY_SCRIPTS:
        spec = importlib.util.find_spec(package)   # where it is, without running it
        path = Path(spec.origin).parent / name if spec is not None and spec.origin else None
        if path is None or not path.is_file():   # a book without that library: none of its scripts
            continue
        out.append(script_source(path.read_text(encoding="utf-8")))
    return out
