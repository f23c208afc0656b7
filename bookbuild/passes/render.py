"""render: each book into a staging folder beside its destination, which replaces the destination only when
the whole book (every format, every asset) succeeded: ``_book/<lang>`` is old or new, never mixed.

A book whose inputs did not change since it was rendered (its stamp holds the same key, and every file
it lists is as the render wrote it) is left alone. The stamp (``.bookbuild-stamp``: the key, then every
file the render wrote with its digest) is how a destination says it is ours: one that holds anything else (no stamp, or a ``.git``, a ``CNAME`` added beside the pages) is
refused in one line, never replaced, and nothing in it is deleted. Staging sits in the destination's own
folder, so the swap is a rename on one file system wherever ``_build`` lives; it exchanges the two
folders in one step where the system can (``renameat2``), and is never cut in half by a signal. An
interrupted render stops its tools and removes its staging; what a killed one left is removed by the next.
"""
from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

from .. import procs
from ..cache import Inputs, file_digest, tree_digest
from ..errors import BuildError, BuildFailed
from ..project import Book
from ..stamp import entries, intact, read_stamp, write_stamp
from ..render.pdf import find_cjk_font_dir, font_identity
from .number import manifest_text
from .state import Build

#: how long an interrupted render waits for its threads once their tools are stopped (typst runs in-process)
STOP_WAIT = 10.0


def destination(build: Build, book: Book) -> Path:
    """Where the book goes: ``--output-dir``/<lang> (a folder the user names, anywhere), else the profile's
    ``output-dir``, which must lie inside the project (a link inside it, to a scratch disk say, is the
    user's own choice and is followed)."""
    s = build.settings
    if s.output_dir is not None:
        return (s.output_dir / book.output_dir.name).resolve()
    lexical = Path(os.path.normpath(s.root / book.output_dir))
    if lexical == s.root or not lexical.is_relative_to(s.root):
        src = "_quarto.yml" if book.profile == "default" else f"_quarto-{book.profile}.yml"
        raise BuildError(src, None, f"project: output-dir {book.output_dir.as_posix()} is "
                                    f"{'the project folder itself' if lexical == s.root else 'outside the project'}"
                                    ": name a folder inside it (such as _book/<lang>), or render elsewhere with "
                                    "--output-dir")
    return (s.root / book.output_dir).resolve()


#: the files a page or the PDF shows as an image
IMAGE_SUFFIXES = (".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf")


def render_key(build: Build, book: Book) -> str:
    """Everything a rendered book depends on once its chapters are executed: the executed book (its
    markdown, figures, page data), the bibliographies, the other books (the language switch), the
    code and tools (the environment), pandoc, the formats, the CJK fonts, and the images the chapters
    show from their own folders (``appendix/figures/*.svg``: drawn by a cell, or put there by hand)."""
    d = build.executed_dir(book.profile)
    files = [("executed", tree_digest(d))]
    files += [(b, file_digest(build.root / b)) for b in book.bibliography]
    files.append(("csl", file_digest(build.root / book.csl) if book.csl else "default-csl"))
    for other in sorted(d.parent.iterdir()):
        if other.name != d.name and (other / "book.json").is_file():
            files.append((f"{other.name}/book.json", file_digest(other / "book.json")))
    for folder in sorted({(build.root / ch.path).parent for ch in book.chapters}):
        shown = folder / "figures" if folder == build.root else folder   # the project's top: its figures/ only
        files.append((shown.relative_to(build.root).as_posix(), tree_digest(shown, IMAGE_SUFFIXES)))
    fonts = find_cjk_font_dir(build.settings.cjk_font_dir)
    return Inputs("render", (",".join(build.settings.formats), build.pandoc.identity,
                             font_identity(fonts) if fonts else "no-cjk-fonts"), build.environment, tuple(files)).key


def _rel(p: Path, root: Path) -> str:
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return str(p)


def refuse_foreign(dest: Path, root: Path) -> None:
    """A destination the build did not write, or one holding anything a render did not write, is never
    replaced (nor is anything in it deleted)."""
    if dest.is_symlink() and not dest.exists() or dest.exists() and not dest.is_dir():
        raise BuildError(_rel(dest, root), None, "is a file, not a folder: render into a folder "
                                                 "(--output-dir DIR puts each book in DIR/<lang>)")
    if not dest.is_dir():
        return
    stamp = read_stamp(dest)
    present = entries(dest)
    if stamp is None:
        foreign = present
    elif stamp[1] is None:
        return
    else:
        foreign = [f for f in present if f not in stamp[1]]
    if foreign:
        shown = ", ".join(foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
        raise BuildError(_rel(dest, root), None, f"holds files the build did not write ({shown}): move them out, "
                                                 "or render into an empty folder or one a previous render wrote "
                                                 "(--output-dir)")


_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?:staging|old)-(?P<pid>\d+)(?:-\d+)?$")


def sweep_leftovers(dest: Path) -> None:
    """Remove the staging and old folders a render that was killed left beside ``dest`` (only ours: our
    names, and a process that no longer runs)."""
    try:
        beside = list(dest.parent.iterdir())
    except OSError:
        return
    for p in beside:
        m = _LEFTOVER.match(p.name)
        if m and m.group("name") == dest.name and int(m.group("pid")) != os.getpid() and procs.ended(int(m.group("pid"))):
            shutil.rmtree(p, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def _swap(stage: Path, dest: Path, root: Path) -> None:
    """Put ``stage`` where ``dest`` is: exchange the two and delete the old one (or: rename the old one
    aside, rename the new one in, delete the old), with signals held so both renames happen or neither."""
    old = dest.with_name(f".{dest.name}.old-{os.getpid()}-{time.monotonic_ns()}")
    try:
        with procs.signals_held():
            if dest.exists() and _exchange(stage, dest):
                old = stage            # the old book is where the new one was
            else:
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
    from ..render.profile import Held, render_profile   # pandoc and typst: only when something renders
    staging = dest.with_name(f".{dest.name}.staging-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    held = Held(json.loads(manifest_text(build, book.profile)), build.index[book.profile],
                lambda source: build.ast(book.profile, source))
    render_profile(build.root, book.profile, build.executed_dir(book.profile), staging, build.settings.formats,
                   pandoc=build.pandoc, cjk_font_dir=build.settings.cjk_font_dir, environment=build.environment,
                   held=held)
    stage = staging / book.profile
    write_stamp(stage, key)
    return stage


def run(build: Build) -> None:
    todo, made = [], []   # made: the folders above the books this render created (gone again if it fails)
    for book in build.books:
        key, dest = render_key(build, book), destination(build, book)
        stamp = read_stamp(dest) if dest.is_dir() else None
        if stamp is not None and stamp[0] == key and intact(dest, stamp[1]):
            build.report.up_to_date.append(book.profile)
            continue
        refuse_foreign(dest, build.root)
        made += [p for p in [dest.parent, *dest.parent.parents] if not p.exists()]
        dest.parent.mkdir(parents=True, exist_ok=True)
        sweep_leftovers(dest)
        todo.append((book, key, dest))
    if not todo:
        return
    errors, staged, futures = [], [], []
    ex = ThreadPoolExecutor(max_workers=len(todo))
    try:
        futures = [(item, ex.submit(_render_one, build, *item)) for item in todo]
        for (book, _, dest), fut in futures:
            try:
                staged.append((book, fut.result(), dest))
            except BuildError as e:
                errors.append(e)
        if errors:
            kept = f"nothing was replaced: {', '.join(_rel(dest, build.root) for _, _, dest in todo)} left as before"
            if len(errors) == 1:   # one problem, one line
                e = errors[0]
                raise BuildFailed([type(e)(e.path or None, e.line, f"{e.message}; {kept}", e.label)])
            raise BuildFailed(errors + [BuildError(None, None, kept)])
        for book, stage, dest in staged:
            _swap(stage, dest, build.root)
            build.report.rendered.append(book.profile)
    except KeyboardInterrupt:
        procs.interrupt()   # the tools the threads run stop now, and no other starts
        raise
    finally:
        ex.shutdown(wait=False, cancel_futures=True)
        wait([f for _, f in futures], timeout=STOP_WAIT)
        for _, _, dest in todo:
            shutil.rmtree(dest.with_name(f".{dest.name}.staging-{os.getpid()}"), ignore_errors=True)
        for folder in made if len(build.report.rendered) < len(todo) else []:
            try:
                folder.rmdir()   # only if empty: a failed first render leaves no _book behind
            except OSError:
                pass
