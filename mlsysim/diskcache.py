"""Results kept between processes, for the computations a book build repeats unchanged.

Only where a folder is named: :func:`configure` (bookbuild names ``_build/cache/mlsysim`` in each
chapter's process) or the user's ``MLSYSIM_CACHE``; nothing is kept otherwise. A result is keyed by its
inputs AND by every file of the mlsysim package in use (its code and its registry data), so a cached
result is always the one this code and data would compute.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

ENV = "MLSYSIM_CACHE"


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


_FOLDER: Path | None = None


def configure(path: Path | str | None) -> None:
    """Keep results in ``path`` from now on in this process (``None``: back to ``MLSYSIM_CACHE``)."""
    global _FOLDER
    _FOLDER = Path(path) if path else None


def folder(kind: str) -> Path | None:
    base = _FOLDER or os.environ.get(ENV)
    return Path(base) / kind if base else None


def key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps([package_digest(), *parts], sort_keys=True, default=str).encode()).hexdigest()


def store(path: Path, data: bytes) -> None:
    """Write atomically (a temporary name, then a rename); a failure to write is not an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        pass


def json_memo(kind: str, parts: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, or its JSON-stored result for the same ``parts`` and the same package; either way as
    a JSON read gives it (keys sorted), so a build with the cache off writes the same bytes as one with it."""
    d = folder(kind)
    if d is None:
        return json.loads(json.dumps(compute(), sort_keys=True))
    path = d / f"{key(kind, *parts)}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    text = json.dumps(compute(), sort_keys=True)
    store(path, text.encode("utf-8"))
    return json.loads(text)   # what a later read gives (keys sorted): a cold and a warm build write the same bytes
