"""A build that would change nothing, recognised before the passes are imported.

``check`` and ``render`` first look for the record of the last build of the same command, profiles and
options that changed nothing (a Store entry of kind ``unchanged``). It holds the digest of every input that
build had, the code trees it ran, what it printed and the stamps of the books it left. When the inputs'
digest is the same now, every book is still as its stamp says and the executed chapters in ``_build`` are
as it left them, the build prints what that build printed
and stops; otherwise the passes run as always (and record themselves when they changed nothing).

The inputs, each because a result depends on it:

- every file of the project (the chapters, what they include and read, the configuration, the bibliography,
  the registry, the code inside the project, the vendored live runtime), by content (a file over
  :data:`BIG` by size, modification time and inode: the vendored runtime is pinned by its lock file, which is
  read by content), build outputs, caches and version control left out;
- the code trees the build ran that lie outside the project (an installed bookbuild or library), by content;
- Python and the installed distributions (pandoc and typst among them) and the installed fonts: what
  :func:`bookbuild.cache.environment_digest` covers for every cache key;
- the data folders the user's variables name, and every option that can change what a build writes.

A record is written only by a build that ran no cell, rendered no book, noted and deferred nothing, and
whose inputs were the same when it ended as when it began (an edit saved during a build is never taken
for the state it built).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path

from .cache import CACHE_FORMAT, Inputs, Store, installed_fonts, installed_versions, sha256_bytes, tree_digest
from .stamp import intact, read_stamp

KIND = "unchanged"
#: a file at least this big is known by its size, modification time and inode, not its bytes
BIG = 1 << 20
#: folders of the project that are not inputs: version control, environments, caches, build outputs
SKIP = frozenset({".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache",
                  "node_modules", "_build"})
#: options that change how a build runs, never what it writes
NOT_INPUTS = ("jobs", "quiet", "debug")


def project_digest(root: Path, skip: frozenset[str] = frozenset()) -> str:
    """Every file under ``root`` but the folders :data:`SKIP`, ``_book*`` and ``skip`` name."""
    h = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and d not in skip and not d.startswith("_book")
                         and not d.endswith(".egg-info"))
        for name in sorted(files):
            p = os.path.join(folder, name)
            try:
                st = os.stat(p)
                if st.st_size >= BIG:
                    mark = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}".encode()
                else:
                    with open(p, "rb") as fh:
                        mark = hashlib.sha256(fh.read()).digest()
            except OSError as e:
                mark = f"unreadable: {e.strerror}".encode()
            h.update(os.path.relpath(p, root).encode("utf-8", "surrogateescape") + b"\0" + mark)
    return h.hexdigest()


def written_mark(folders: list[Path]) -> str:
    """The folders a build writes besides the books (the executed chapters in ``_build``), by every file's
    name, size and modification time: a folder removed or a file touched since is not the build's any more."""
    h = hashlib.sha256()
    for base in folders:
        h.update(str(base).encode() + b"\0")
        for folder, dirs, files in os.walk(base):
            dirs.sort()
            for name in sorted(files):
                p = os.path.join(folder, name)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                h.update(f"{os.path.relpath(p, base)}:{st.st_size}:{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _options(settings) -> dict:
    return {f.name: str(getattr(settings, f.name)) for f in dataclasses.fields(settings) if f.name not in NOT_INPUTS}


def record_key(settings, command: str, profiles: list[str]) -> Inputs:
    """Where the record of a build of this command, these profiles and options is kept (what the build read
    is in the record: :func:`inputs_digest`)."""
    return Inputs(KIND, (command, profiles, _options(settings)))


def inputs_digest(settings, trees: list[str]) -> str:
    root = Path(settings.root).resolve()
    outside = [t for t in trees if not Path(t).resolve().is_relative_to(root)]
    skip = frozenset({Path(settings.output_dir).name}) if settings.output_dir is not None and \
        Path(settings.output_dir).resolve().is_relative_to(root) else frozenset()
    parts = {"format": CACHE_FORMAT, "versions": installed_versions(), "fonts": installed_fonts(),
             "trees": {t: tree_digest(t) for t in outside}, "data": [tree_digest(d) for d in settings.data_dirs],
             "project": project_digest(root, skip)}
    return sha256_bytes(json.dumps(parts, sort_keys=True, default=str).encode())


def printed(settings, command: str, profiles: list[str]) -> list[str] | None:
    """What the last build that changed nothing printed, when this one would change nothing too; else None."""
    store = Store(settings.cache_folder)
    if not store.enabled:
        return None
    rec = store.get_json(record_key(settings, command, profiles))
    if not isinstance(rec, dict) or rec.get("inputs") != inputs_digest(settings, rec.get("trees") or []):
        return None
    if rec.get("written") != written_mark([Path(d) for d in rec.get("folders") or []]):
        return None
    for dest, key in (rec.get("stamps") or {}).items():
        stamp = read_stamp(Path(dest))
        if stamp is None or stamp[0] != key or not intact(Path(dest), stamp[1]):
            return None
    return list(rec.get("lines") or [])


def record(settings, command: str, profiles: list[str], before: str, trees: list[str], lines: list[str],
           destinations: list[Path], folders: list[Path]) -> None:
    """Keep what a build that changed nothing printed, under the inputs it had (``before``, their digest
    when it began), unless they changed while it ran."""
    store = Store(settings.cache_folder)
    if not store.enabled or inputs_digest(settings, trees) != before:
        return
    stamps = {}
    for dest in destinations:
        stamp = read_stamp(dest)
        if stamp is None:
            return
        stamps[str(dest)] = stamp[0]
    store.put_json(record_key(settings, command, profiles),
                   {"inputs": before, "trees": trees, "lines": lines, "stamps": stamps,
                    "folders": [str(f) for f in folders], "written": written_mark(folders)})
