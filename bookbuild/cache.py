"""A content cache that cannot serve a stale or a tampered entry (unlike Quarto's ``freeze``, quarto-cli #6793).

Every entry is named by the :class:`Inputs` its step declares (its kind, the environment, its values, the
files it reads by digest): the one way a key is made. What code is involved is never a hand-kept list: :func:`environment_digest` covers whole code trees (bookbuild's own, and the libraries the
chapters import), the data folders named, Python's version and every installed distribution.

Entries verify themselves: each carries a digest of its content (and the cache's format), checked on
every read; a corrupt, truncated, foreign-version or altered entry is discarded, noted in
:attr:`Store.notes` (one line each) and rebuilt, never served and never fatal. Entries are written
atomically (a temporary name, then a rename), so an interrupted build leaves the old entry or the new.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Union

CACHE_FORMAT = "3"   # 3: the seal covers the entry's kind and key
MAGIC = b"bookbuild-cache"

#: every kind of entry the build keeps, and what one holds (a kind not listed here is refused: a new step
#: declares its kind here). An entry is named by its step's :class:`Inputs`.
KINDS = {
    "pandoc": "one pandoc run's output, by its input, options and pandoc's version",
    "pandoc-piece": "a chapter's piece (a block or a run of blocks) read into pandoc's AST",
    "pandoc-html-piece": "a block written as HTML by pandoc",
    "exec": "an executed chapter and its figures, with the files, folders and variables its code read",
    "exec-index": "the data and file digests of an exec entry (Store.put_tree)",
    "cells": "the last run of a chapter's cells (a prose edit replays it)",
    "index": "a book's cross-reference index over its executed chapters",
    "verify": "a verification that passed, with the files the checks read",
    "check": "one check that passed over the chapters it declares, with the files it read",
    "check-memo": "a check's work over one document (a pass, or what it read of the cells), the work's name in its key",
    "variants": "every reader's choice of a chapter, computed",
    "compact": "a page's data for the reader's choices, compacted from the variants",
    "fragment": "a chapter's HTML body",
    "outline": "a page's contents and search records",
    "pdf": "a typeset PDF, by its typst source, fonts and typst's version",
    "render": "a rendered book's stamp, kept in the book's own folder (not in the store): everything it was made of",
    "font": "a font subset for the EPUB",
    "unchanged": "the record of a build that changed nothing (its inputs and what it printed)",
    "library": "what a chapter's library keeps through the build (its drawings and data), by the library's own key",
}


def sha256_bytes(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()


def _declared(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"cache kind {kind!r} is not declared in bookbuild.cache.KINDS")


def _part(value: Any) -> bytes:
    """One declared value as the bytes its key digests, tagged by its type (``"1"`` and ``1`` differ)."""
    if isinstance(value, bytes):
        return b"b" + value
    if isinstance(value, str):
        return b"s" + value.encode("utf-8", "surrogatepass")
    return b"j" + json.dumps(value, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")


@dataclass(frozen=True)
class Inputs:
    """What a step's result depends on, declared by the step: the name of its cache entry.

    ``kind`` is one of :data:`KINDS`; ``environment`` the build's :func:`environment_digest` (or another
    identity of the code, a tool's version); ``values`` what the step reads that is not a file (texts,
    options, other steps' keys: bytes, a string, or anything JSON writes); ``files`` the files it reads,
    each by its digest. Files a step reads that it cannot name before it runs are recorded while it runs
    (:class:`Watch`) and checked on reuse. The key is the digest of all of it, computed once, when asked."""
    kind: str
    values: tuple = ()
    environment: str = ""
    files: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        _declared(self.kind)

    @cached_property
    def key(self) -> str:
        return sha256_bytes(self.kind.encode(), self.environment.encode(), *map(_part, self.values),
                            *(f"{name}:{digest}".encode("utf-8", "surrogatepass") for name, digest in self.files))


@dataclass(frozen=True)
class Entry:
    """An entry named by a key one step recorded of another's :class:`Inputs` (the last run of a chapter's
    cells points at its executed chapter); a key that is not a digest names nothing (ValueError)."""
    kind: str
    key: str

    def __post_init__(self):
        _declared(self.kind)
        if not (isinstance(self.key, str) and len(self.key) == 64 and all(c in "0123456789abcdef" for c in self.key)):
            raise ValueError(f"not a cache key: {self.key!r}")


#: what names an entry: a step's declared inputs, or a key one entry recorded of another
Named = Union[Inputs, Entry]


def file_digest(path: Path | str) -> str:
    """A file by its content; a folder is "folder" (a path looked up may be one), anything else "missing"."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except IsADirectoryError:
        return "folder"
    except OSError:
        return "missing"


def tree_digest(folder: Path | str, suffixes: Iterable[str] | None = None) -> str:
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
def installed_versions() -> tuple[tuple[str, str], ...]:
    """Python's version and every installed distribution with its version (read from the names of the
    ``*.dist-info`` / ``*.egg-info`` folders on ``sys.path``: no metadata file is parsed). The folder the
    command was started from is not an installation (``python -m`` puts it first on ``sys.path``), so the
    keys are the same from any folder inside the project."""
    seen: dict[str, str] = {}
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:
        here = ""
    for entry in sys.path:
        if not entry or os.path.realpath(entry) == here:
            continue
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for n in names:
            if n.endswith((".dist-info", ".egg-info")) and "-" in n:
                name, _, version = n.rsplit(".", 1)[0].partition("-")
                seen.setdefault(name.lower().replace("_", "-"), version)
    return (("python", sys.version),) + tuple(sorted(seen.items()))


#: where fonts are installed (fontconfig's default folders): a figure drawn by a cell depends on them
FONT_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")
FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".otc", ".pfb", ".woff", ".woff2")


def installed_fonts() -> list[str]:
    """Every installed font file (path, size, modification time): a font installed, removed or replaced
    changes what a cell draws (a label in a missing font is drawn as boxes)."""
    out = []
    for folder in FONT_FOLDERS:
        base = Path(folder).expanduser()
        try:
            files = sorted(p for p in base.rglob("*") if p.suffix.lower() in FONT_SUFFIXES)
        except OSError:
            continue
        for p in files:
            try:
                st = p.stat()
            except OSError:
                continue
            out.append(f"{p}:{st.st_size}:{st.st_mtime_ns}")
    return out


def environment_digest(code_trees: Iterable[Path], data_dirs: Iterable[Path | None] = ()) -> str:
    """Everything a result may depend on besides its own inputs: the code trees (whole), the data
    folders, Python and the installed distributions, the installed fonts, and this cache's format."""
    parts = {"format": CACHE_FORMAT, "versions": installed_versions(), "fonts": installed_fonts(),
             "code": [tree_digest(t) for t in code_trees],
             "data": [tree_digest(d) if d else "" for d in data_dirs]}
    return sha256_bytes(json.dumps(parts, sort_keys=True, default=str).encode())


def _sealed_digest(name: str, data: bytes) -> bytes:
    """The digest a seal carries: the entry's name (``kind/key``) and its payload, so an entry moved or
    copied under another key is as wrong as an altered one."""
    return sha256_bytes(name.encode("utf-8"), data).encode()


def _seal(name: str, data: bytes) -> bytes:
    return MAGIC + f" {CACHE_FORMAT} ".encode() + _sealed_digest(name, data) + f" {len(data)}\n".encode() + data


def _unseal(name: str, raw: bytes) -> bytes | None:
    """The payload of the entry ``name`` (``kind/key``), or None when the header, length or digest (of the
    name and the payload) does not match."""
    head, sep, data = raw.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 4 or parts[0] != MAGIC or parts[1] != CACHE_FORMAT.encode():
        return None
    if parts[3] != str(len(data)).encode() or parts[2] != _sealed_digest(name, data):
        return None
    return data


def _write_atomic(path: Path, data: bytes) -> None:
    if path.is_dir():   # an entry in an older layout
        shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def digests(root: Path, rels: Iterable[str]) -> dict[str, str]:
    """The digest of each file (relative to ``root``), in a stable order."""
    return {r: file_digest(Path(root) / r) for r in sorted(set(rels))}


def unchanged(root: Path, recorded: dict[str, str]) -> bool:
    """Every recorded file (relative to ``root``) has the digest recorded: the one test of "valid while the
    files it read are unchanged", for every step that keeps what it read."""
    return all(file_digest(Path(root) / r) == d for r, d in recorded.items())


class Watch:
    """The project files a step reads: recorded while it runs (``record()``: a context manager that yields the
    set of paths read relative to ``root``, :func:`bookbuild.execute.audit.reading`), checked by digest on
    reuse. ``read`` collects what the steps it watched read (recorded or recalled)."""

    def __init__(self, root: Path, record: Callable[[], Any]):
        self.root, self.record, self.read = Path(root), record, set()


class Store:
    """Entries in ``<folder>/<kind>/<key[:2]>/<key>``, each named by the :class:`Inputs` of its step; nothing at
    all when ``folder`` is None (--no-cache)."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder else None
        self.hits = 0
        self.misses = 0
        self.notes: list[str] = []

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def entry(self, inputs: Named) -> Path:
        return self._path(inputs.kind, inputs.key)

    def _path(self, kind: str, key: str) -> Path:
        assert self.folder is not None
        return self.folder / kind / key[:2] / key

    def _discard(self, path: Path, why: str) -> None:
        self.notes.append(f"the cache entry {path.parent.name}/{path.name[:12]} ({path.parent.parent.name}) "
                          f"was {why}: discarded and rebuilt")
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)

    # -- blobs: a pandoc output, a PDF, a verification result
    def get_blob(self, inputs: Named) -> bytes | None:
        return self._get(inputs.kind, inputs.key) if self.enabled else None

    def _get(self, kind: str, key: str) -> bytes | None:
        path = self._path(kind, key)
        if path.is_dir():   # an entry in an older layout
            self._discard(path, "from another version of bookbuild")
            self.misses += 1
            return None
        try:
            raw = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        data = _unseal(f"{kind}/{key}", raw)
        if data is None:
            self._discard(path, "corrupt, truncated or from another version of bookbuild")
            self.misses += 1
            return None
        self.hits += 1
        return data

    def put_blob(self, inputs: Named, data: bytes) -> None:
        if self.enabled:
            self._put(inputs.kind, inputs.key, data)

    def _put(self, kind: str, key: str, data: bytes) -> None:
        try:
            _write_atomic(self._path(kind, key), _seal(f"{kind}/{key}", data))
        except OSError:
            pass

    def get_json(self, inputs: Named) -> Any:
        return self._get_json(inputs.kind, inputs.key) if self.enabled else None

    def _get_json(self, kind: str, key: str) -> Any:
        raw = self._get(kind, key)
        if raw is None:
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._discard(self._path(kind, key), "not the JSON it should hold")
            return None

    def put_json(self, inputs: Named, value: Any) -> None:
        """Store ``value`` as JSON, keeping the order of its mappings (an order can carry meaning)."""
        self.put_blob(inputs, _json_bytes(value))

    def memo(self, inputs: Named | None, compute: Callable[[], Any], accept: Callable[[Any], bool] | None = None,
             *, keep: Callable[[Any], bool] | None = None, watch: Watch | None = None) -> Any:
        """The one memo: ``compute()``'s JSON result kept under its declared ``inputs``. ``watch``: the project
        files the step reads are recorded while it runs and kept with the result; on reuse each must have its
        digest, else the step runs again. ``accept``: a kept result of another shape runs again; ``keep``:
        which results are kept (default: any but None). With the cache off (or ``inputs`` None: a step that
        cannot declare them) it always runs."""
        kept = self.enabled and inputs is not None
        if kept:
            hit = self.get_json(inputs)
            if watch is not None:
                fresh = isinstance(hit, dict) and "value" in hit and isinstance(hit.get("reads"), dict) \
                    and unchanged(watch.root, hit["reads"])
                value = hit.get("value") if fresh else None
                if fresh and (accept is None or accept(value)):
                    watch.read.update(hit["reads"])
                    return value
            elif hit is not None and (accept is None or accept(hit)):
                return hit
        if watch is None:
            out, reads = compute(), set()
        else:
            with watch.record() as mine:
                out = compute()
            reads = set(mine)
            watch.read.update(reads)
        if kept and (keep(out) if keep is not None else out is not None):
            self.put_json(inputs, out if watch is None else {"value": out, "reads": digests(watch.root, reads)})
        return out

    # -- trees: JSON data with files beside it (an executed chapter and its figures)
    def get_tree(self, inputs: Named) -> tuple[Any, Path] | None:
        """The entry's data and the folder holding its files (each file verified), or None."""
        if not self.enabled:
            return None
        folder, index = self.entry(inputs), inputs.kind + "-index"
        if not folder.is_dir():
            self.misses += 1
            return None
        got = self._get_json(index, inputs.key)
        if got is None:
            self.misses += 1
            return None
        if not (isinstance(got, dict) and "data" in got and isinstance(got.get("files"), dict)):
            self._discard(folder, "listed by an index of another shape")
            self._path(index, inputs.key).unlink(missing_ok=True)
            self.misses += 1
            return None
        for rel, digest in got["files"].items():
            if file_digest(folder / rel) != digest:
                self._discard(folder, f"altered ({rel} does not match its digest)")
                self.misses += 1
                return None
        return got["data"], folder

    def put_tree(self, inputs: Named, data: Any, files: dict[str, Path]) -> None:
        """Store ``data`` and copies of ``files`` (relative name -> file)."""
        if not self.enabled:
            return
        final = self.entry(inputs)
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=final.parent))
            for rel, src in files.items():
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, tmp / rel)
            if final.exists():
                shutil.rmtree(final, ignore_errors=True)
            os.replace(tmp, final)
            self._put(inputs.kind + "-index", inputs.key,
                      _json_bytes({"data": data, "files": {r: file_digest(final / r) for r in files}}))
        except OSError:
            shutil.rmtree(locals().get("tmp", final.parent / ".none"), ignore_errors=True)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")


class LibraryStore:
    """The build's store as a chapter's library reaches it (its protocol: ``get`` and ``put`` of bytes by kind
    and key): every entry under the kind ``library``, the library's kind and key its values."""

    def __init__(self, store: Store):
        self.store = store

    def get(self, kind: str, key: str) -> bytes | None:
        return self.store.get_blob(Inputs("library", (kind, key)))

    def put(self, kind: str, key: str, data: bytes) -> None:
        self.store.put_blob(Inputs("library", (kind, key)), data)
