"""A content cache that cannot serve a stale chapter (unlike Quarto's ``freeze``, quarto-cli #6793).

An executed chapter is stored under a key over everything that can change it:

- the chapter and every file it includes (expanded statically, as the executor does);
- the ``mlsysim`` package's code and data files (wherever it is imported from), and the registry
  folder ``MLSYSIM_DATA_DIR`` names when it is set;
- the profile, its execute options and language, and any scenario override of the run;
- Python's version and the versions of the packages that execute (pint, numpy, matplotlib, ...);
- bookbuild's own execution code.

And, checked when the entry is read, every file under the project that the chapter's code opened
while it ran (recorded by an audit hook in the chapter's process): a cell that reads a data file the
key did not foresee still re-runs when that file changes.

Rendering is cached the same way, one level down: every pandoc run by the hash of its arguments, its
input and the files it reads (bibliography), and each book's PDF by its typst source and images.
Entries are written atomically (a temporary name, then a rename), so a build that is interrupted
leaves either the old entry or the new one.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pickle
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

#: the packages whose versions can change what a chapter computes or how a page is rendered
PACKAGES = ("pint", "numpy", "matplotlib", "plotly", "pyyaml", "ipywidgets", "pypandoc-binary", "typst",
            "flexparser", "flexcache")
#: bookbuild's modules that shape an executed chapter
EXECUTION_MODULES = ("execute.py", "kernel.py", "lint.py", "errors.py", "xref.py", "cache.py", "variants.py",
                     "provenance.py", "provenance_names.toml")
#: environment variables that change what mlsysim loads
ENV_KEYS = ("MLSYSIM_DATA_DIR", "MLSYSIM_SCENARIO")
CACHE_FORMAT = "1"


def sha256_bytes(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()


def file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"


def tree_digest(folder: Path, suffixes: Iterable[str] | None = None) -> str:
    """Digest of every file under ``folder`` (names and contents; ``__pycache__`` left out)."""
    folder = Path(folder)
    h = hashlib.sha256()
    if not folder.is_dir():
        return "missing"
    for p in sorted(folder.rglob("*")):
        if "__pycache__" in p.parts or not p.is_file():
            continue
        if suffixes and p.suffix not in suffixes:
            continue
        h.update(p.relative_to(folder).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


@lru_cache(maxsize=1)
def package_versions() -> dict[str, str]:
    from importlib import metadata
    out = {"python": sys.version}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def mlsysim_dir(root: Path | None = None) -> Path | None:
    """Where a chapter's ``import mlsysim`` loads from (the project's own copy first, as the chapters
    see it with the project root first on ``sys.path``), without importing it."""
    loaded = sys.modules.get("mlsysim")
    if loaded is not None and getattr(loaded, "__file__", None):
        return Path(loaded.__file__).parent
    if root is not None and (Path(root) / "mlsysim" / "__init__.py").is_file():
        return Path(root) / "mlsysim"
    spec = importlib.util.find_spec("mlsysim")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def environment_digest(root: Path | None = None) -> str:
    """mlsysim's code and data, the registry override folder, the package versions, our executor."""
    parts = {"format": CACHE_FORMAT, "versions": package_versions()}
    m = mlsysim_dir(root)
    parts["mlsysim"] = tree_digest(m) if m else "absent"
    here = Path(__file__).parent
    parts["bookbuild"] = {n: file_digest(here / n) for n in EXECUTION_MODULES}
    for k in ENV_KEYS:
        v = os.environ.get(k)
        if v is None:
            continue
        parts[k] = tree_digest(Path(v)) if k.endswith("_DIR") else v
    return sha256_bytes(json.dumps(parts, sort_keys=True).encode())


def chapter_key(files: list[Path], root: Path, *, profile: str, lang: str, execute_options: dict,
                env: dict[str, str], environment: str) -> str:
    """``files``: the chapter then every file it includes (absolute; keyed relative to ``root``, so
    two checkouts of the same sources share entries)."""
    parts = [b"chapter", environment.encode(), profile.encode(), lang.encode(),
             json.dumps(execute_options, sort_keys=True, default=str).encode(),
             json.dumps(env, sort_keys=True).encode()]
    for f in files:
        try:
            name = Path(f).relative_to(root).as_posix()
        except ValueError:
            name = str(f)
        parts.append(name.encode())
        parts.append(file_digest(f).encode())
    return sha256_bytes(*parts)


class Store:
    """Entries in ``<folder>/<kind>/<key[:2]>/<key>/``; nothing when ``folder`` is None (--no-cache)."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder else None
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def entry(self, kind: str, key: str) -> Path:
        assert self.folder is not None
        return self.folder / kind / key[:2] / key

    # -- executed chapters
    def get_chapter(self, key: str, root: Path) -> tuple[Any, Path] | None:
        """The cached chapter, its folder (figures in ``figures/``) and the figures' names relative
        to the figure folder, or None."""
        if not self.enabled:
            return None
        d = self.entry("exec", key)
        try:
            reads = json.loads((d / "reads.json").read_text(encoding="utf-8"))
            for rel, digest in reads.items():
                if file_digest(Path(root) / rel) != digest:
                    self.misses += 1
                    return None
            with open(d / "chapter.pickle", "rb") as fh:
                ec = pickle.load(fh)
            figs = json.loads((d / "figures.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            self.misses += 1
            return None
        self.hits += 1
        return ec, d, figs

    def put_chapter(self, key: str, ec: Any, reads: dict[str, str], figures: list[Path],
                    fig_root: Path) -> None:
        if not self.enabled:
            return
        final = self.entry("exec", key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
        try:
            for f in figures:
                dest = tmp / "figures" / Path(f).relative_to(fig_root)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest)
            with open(tmp / "chapter.pickle", "wb") as fh:
                pickle.dump(ec, fh, protocol=pickle.HIGHEST_PROTOCOL)
            (tmp / "reads.json").write_text(json.dumps(reads, sort_keys=True), encoding="utf-8")
            (tmp / "figures.json").write_text(json.dumps([Path(f).relative_to(fig_root).as_posix()
                                                          for f in figures]), encoding="utf-8")
            if final.exists():
                shutil.rmtree(final, ignore_errors=True)
            os.replace(tmp, final)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)

    # -- blobs (pandoc outputs, PDFs)
    def get_blob(self, kind: str, key: str) -> bytes | None:
        if not self.enabled:
            return None
        try:
            data = (self.entry(kind, key) / "blob").read_bytes()
        except OSError:
            self.misses += 1
            return None
        self.hits += 1
        return data

    def put_blob(self, kind: str, key: str, data: bytes) -> None:
        if not self.enabled:
            return
        d = self.entry(kind, key)
        try:
            d.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, d / "blob")
        except OSError:
            pass


#: the store the renderer's pandoc/typst calls use (set by the pipeline; None: no caching)
STORE: Store = Store(None)


def use(store: Store) -> None:
    global STORE
    STORE = store


def reads_digest(reads: Iterable[str], root: Path) -> dict[str, str]:
    return {rel: file_digest(Path(root) / rel) for rel in sorted(set(reads))}
