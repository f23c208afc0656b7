"""The hostile tests' world (tests/book/test_hostile_*.py): a private copy of the fixture book with a folder
beside it that a build must never touch, and the helpers that check what a command left. The ``world``
fixture (tests/conftest.py) is a :class:`World` checked untouched at the end of its test."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, book_copy, watched_state, unchanged_since

CELL = "appendix/_cells/ref.qmd"
CHAPTER = "appendix/ref.qmd"
SECRET = "a secret of a file outside the project 7f3a"



def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (folders and links by name)."""
    if not folder.exists():
        return {}
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        out[rel] = p.read_bytes() if p.is_file() and not p.is_symlink() else (b"->" + os.readlink(p).encode()
                                                                               if p.is_symlink() else b"/")
    return out


class World:
    """A test's temporary folder: the project (``book``), a folder beside it that the build must never
    touch (``outside``: a ``.git``, a ``CNAME``, a secret), a private HOME and temp folder."""

    def __init__(self, tmp_path: Path, name: str = "book"):
        self.tmp = tmp_path
        self.root = book_copy(tmp_path, name=name)
        self.outside = tmp_path / "outside"
        (self.outside / ".git").mkdir(parents=True)
        (self.outside / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
        (self.outside / "CNAME").write_text("book.example.org\n", encoding="utf-8")
        (self.outside / "secret.qmd").write_text(SECRET + "\n", encoding="utf-8")
        (tmp_path / "home").mkdir()
        (tmp_path / "tmp").mkdir()
        self.before = (tree(self.outside), watched_state())

    def env(self, **extra: str) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("XDG_", "MLSYSIM_", "MPLCONFIGDIR", "TMPDIR", "TEMP", "TMP", "PANDOC",
                                    "BOOK_CJK_FONT_DIR", "BOOKBUILD_"))}
        env.update(HOME=str(self.tmp / "home"), TMPDIR=str(self.tmp / "tmp"), PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=str(ROOT))
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def cmd(self, *args: str, root: bool = True) -> list[str]:
        return [sys.executable, "-m", "bookbuild", *args, *(["--root", str(self.root)] if root else [])]

    def run(self, *args: str, root: bool = True, cwd: Path | None = None, env: dict | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(self.cmd(*args, root=root), cwd=cwd or self.tmp, capture_output=True, text=True,
                              timeout=timeout, env=env or self.env())

    def render_ok(self, *args: str) -> dict[str, bytes]:
        r = self.run("render", "--profile", "all", *args)
        assert r.returncode == 0, r.stderr
        return tree(self.root / "_book")

    def edit(self, rel: str, old: str, new: str) -> None:
        p = self.root / rel
        text = p.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        p.write_text(text.replace(old, new, 1), encoding="utf-8")

    def append(self, rel: str, text: str) -> int:
        """Append ``text`` to a file; returns the line number its first line gets."""
        p = self.root / rel
        old = p.read_text(encoding="utf-8")
        p.write_text(old + text, encoding="utf-8")
        return old.count("\n") + 1 + (len(text) - len(text.lstrip("\n")))

    def untouched(self) -> None:
        assert tree(self.outside) == self.before[0], "the build changed a folder beside the project"
        unchanged_since(self.before[1], "the build changed the checkout")


def one_line(r: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


def no_staging(book: Path) -> None:
    """``_book`` holds the books and nothing half-made (no staging or old folder)."""
    if book.is_dir():
        assert sorted(p.name for p in book.iterdir() if p.name.startswith(".")) == [], sorted(os.listdir(book))
