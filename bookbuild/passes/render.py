"""render: each book into a staging folder beside its destination, which replaces the destination only when
the whole book (every format, every asset) succeeded: ``_book/<lang>`` is old or new, never mixed.

A book whose inputs did not change since it was rendered (its stamp holds the same key) is left alone.
A destination that holds files the build did not write (no stamp: a ``.git``, a ``CNAME``) is refused,
never replaced. Staging sits in the destination's own folder, so the swap is a rename on one file system
wherever ``_build`` lives.
"""
from __future__ import annotations

import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..cache import file_digest, sha256_bytes, tree_digest
from ..errors import BuildError, BuildFailed
from ..project import Book
from ..render.pdf import find_cjk_font_dir, font_identity
from .state import Build

STAMP = ".bookbuild-stamp"


def destination(build: Build, book: Book) -> Path:
    s = build.settings
    if s.output_dir is not None:
        return (s.output_dir / book.output_dir.name).resolve()
    return (s.root / book.output_dir).resolve()


def render_key(build: Build, book: Book) -> str:
    """Everything a rendered book depends on once its chapters are executed: the executed book (its
    markdown, figures, page data), the bibliographies, the other books (the language switch), the
    code and tools (the environment), pandoc, the formats and the CJK fonts."""
    d = build.executed_dir(book.profile)
    parts = [b"render", ",".join(build.settings.formats).encode(), build.environment.encode(),
             tree_digest(d).encode(), build.pandoc.identity.encode()]
    parts += [file_digest(build.root / b).encode() for b in book.bibliography]
    parts.append(file_digest(build.root / book.csl).encode() if book.csl else b"default-csl")
    for other in sorted(d.parent.iterdir()):
        if other.name != d.name and (other / "book.json").is_file():
            parts.append(file_digest(other / "book.json").encode())
    fonts = find_cjk_font_dir(build.settings.cjk_font_dir)
    parts.append(font_identity(fonts).encode() if fonts else b"no-cjk-fonts")
    return sha256_bytes(*parts)


def _rel(p: Path, root: Path) -> str:
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return str(p)


def refuse_foreign(dest: Path, root: Path) -> None:
    """A destination the build did not write is never replaced."""
    if dest.is_dir() and not (dest / STAMP).is_file() and any(dest.iterdir()):
        shown = ", ".join(sorted(p.name for p in dest.iterdir())[:4])
        raise BuildError(_rel(dest, root), None, f"holds files the build did not write ({shown}): render into an "
                                                 "empty folder or one a previous render wrote (--output-dir)")


def _swap(stage: Path, dest: Path, root: Path) -> None:
    """Put ``stage`` where ``dest`` is: rename the old one aside, rename the new one in, delete the old."""
    old = dest.with_name(f".{dest.name}.old-{os.getpid()}-{time.monotonic_ns()}")
    try:
        if dest.exists():
            os.rename(dest, old)
        try:
            os.rename(stage, dest)
        except OSError:
            if old.exists():
                os.rename(old, dest)   # put the old book back
            raise
    except OSError as e:
        raise BuildError(_rel(dest, root), None, f"cannot replace the rendered book: {e.strerror}; "
                                                 "it was left as before") from None
    shutil.rmtree(old, ignore_errors=True)


def _render_one(build: Build, book: Book, key: str, dest: Path) -> Path:
    from ..render.profile import render_profile   # pandoc, typst and BeautifulSoup: only when something renders
    staging = dest.with_name(f".{dest.name}.staging-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    render_profile(build.root, book.profile, build.executed_dir(book.profile), staging, build.settings.formats,
                   pandoc=build.pandoc, cjk_font_dir=build.settings.cjk_font_dir)
    stage = staging / book.profile
    (stage / STAMP).write_text(key + "\n", encoding="utf-8")
    return stage


def run(build: Build) -> None:
    todo = []
    for book in build.books:
        key, dest = render_key(build, book), destination(build, book)
        stamp = dest / STAMP
        if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == key:
            build.report.up_to_date.append(book.profile)
            continue
        refuse_foreign(dest, build.root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        todo.append((book, key, dest))
    if not todo:
        return
    errors, staged = [], []
    try:
        with ThreadPoolExecutor(max_workers=len(todo)) as ex:
            futures = [(item, ex.submit(_render_one, build, *item)) for item in todo]
            for (book, _, dest), fut in futures:
                try:
                    staged.append((book, fut.result(), dest))
                except BuildError as e:
                    errors.append(e)
        if errors:
            kept = ", ".join(_rel(dest, build.root) for _, _, dest in todo)
            raise BuildFailed(errors + [BuildError(None, None, f"nothing was replaced: {kept} left as before")])
        for book, stage, dest in staged:
            _swap(stage, dest, build.root)
            build.report.rendered.append(book.profile)
    finally:
        for _, _, dest in todo:
            shutil.rmtree(dest.with_name(f".{dest.name}.staging-{os.getpid()}"), ignore_errors=True)
