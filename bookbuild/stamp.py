"""A rendered book's stamp (``.bookbuild-stamp`` in its folder): the render's key, then every entry the render
wrote with its digest (``-`` for a folder). It is how a destination says it is ours and whether it is still as
the render wrote it (a page edited by hand is not). Read by the render pass and by the no-change check
(:mod:`bookbuild.unchanged`), which must not import the passes."""
from __future__ import annotations

import os
from pathlib import Path

from .cache import file_digest

STAMP = ".bookbuild-stamp"


def read_stamp(dest: Path) -> tuple[str, dict[str, str] | None] | None:
    """The stamp of a rendered book: its key, and every entry the render wrote with its digest (``-`` for
    a folder; None: a stamp of an older bookbuild, which did not list them); None when there is no stamp."""
    try:
        lines = (dest / STAMP).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines:
        return None
    listed = dict(reversed(ln.split(" ", 1)) for ln in lines[1:] if " " in ln)
    return lines[0].strip(), (listed if len(lines) > 1 else None)


def write_stamp(stage: Path, key: str) -> None:
    lines = [key] + [("-" if f.endswith("/") else file_digest(stage / f)) + " " + f for f in entries(stage)]
    (stage / STAMP).write_text("\n".join(lines) + "\n", encoding="utf-8")


def intact(dest: Path, listed: dict[str, str] | None) -> bool:
    """Every entry the stamp lists is there, as the render wrote it (a page edited by hand is not)."""
    return listed is not None and all(
        (dest / f).is_dir() if d == "-" else file_digest(dest / f) == d for f, d in listed.items())


def entries(folder: Path) -> list[str]:
    """Every entry under ``folder`` but the stamp, as posix paths relative to it (a folder with a trailing ``/``)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        out += [(here / n).relative_to(folder).as_posix() for n in filenames]
        out += [(here / n).relative_to(folder).as_posix() + ("" if (here / n).is_symlink() else "/")
                for n in dirnames]
    return sorted(f for f in out if f != STAMP)
