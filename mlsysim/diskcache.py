"""Results kept between processes, for the computations a book build repeats unchanged, in the store the
host hands in (:class:`ResultStore`: ``get`` and ``put`` of bytes by kind and key).

mlsysim keeps no store of its own: a host that keeps results (bookbuild, in each chapter's process, hands
in its build's store with :func:`configure`) decides where and how; without one, every result is computed.
A result is keyed by its inputs AND by every file of the mlsysim package in use (its code and its registry
data), so a kept result is always the one this code and data would compute.
"""
from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Protocol


@lru_cache(maxsize=1)
def package_digest() -> str:
    """Every file of this package (code and data), and the registry folder MLSYSIM_DATA_DIR names."""
    h = hashlib.sha256()
    folders = [Path(__file__).parent]
    if os.environ.get("MLSYSIM_DATA_DIR"):
        folders.append(Path(os.environ["MLSYSIM_DATA_DIR"]))
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(p.relative_to(folder).as_posix().encode() + b"\0" + _file_digest(p))
    return h.hexdigest()


def _file_digest(path: Path) -> bytes:
    """The file's SHA-256; for a file that cannot be read, the reason (the registry then names it itself)."""
    try:
        return hashlib.sha256(path.read_bytes()).digest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}".encode()


class ResultStore(Protocol):
    """What a host's store offers: bytes kept by (kind, key); a failure to keep is the store's to absorb."""

    def get(self, kind: str, key: str) -> bytes | None: ...

    def put(self, kind: str, key: str, data: bytes) -> None: ...


_STORE: ResultStore | None = None


def configure(store: ResultStore | None) -> None:
    """Keep results in ``store`` from now on in this process (``None``: keep nothing)."""
    global _STORE
    _STORE = store


def keeping() -> bool:
    """Whether a store was handed in (results are kept)."""
    return _STORE is not None


def key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps([package_digest(), *parts], sort_keys=True, default=str).encode()).hexdigest()


def get(kind: str, key: str) -> bytes | None:
    """The bytes kept under (kind, key), or None (no store, or nothing kept)."""
    if _STORE is None:
        return None
    try:
        return _STORE.get(kind, key)
    except OSError:
        return None


def put(kind: str, key: str, data: bytes) -> None:
    """Keep ``data`` under (kind, key) when a store was handed in; a failure to keep is not an error."""
    if _STORE is not None:
        try:
            _STORE.put(kind, key, data)
        except OSError:
            pass


def json_memo(kind: str, parts: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, or its JSON-kept result for the same ``parts`` and the same package; either way as
    a JSON read gives it (keys sorted), so a build with the cache off writes the same bytes as one with it."""
    if _STORE is None:
        return json.loads(json.dumps(compute(), sort_keys=True))
    k = key(kind, *parts)
    raw = get(kind, k)
    if raw is not None:
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError:
            pass
    text = json.dumps(compute(), sort_keys=True)
    put(kind, k, text.encode("utf-8"))
    return json.loads(text)   # what a later read gives (keys sorted): a cold and a warm build write the same bytes
