"""Running pandoc (below the renderer, which writes with it, and the bibliography, which reads with it):
:class:`Pandoc` runs it (a warning is an error) and caches each run by content.

Pandoc comes from the pip package ``pypandoc-binary`` (``pypandoc.get_pandoc_path()``), unless the
build's settings name another binary (``PANDOC``). The AST helpers are in :mod:`bookbuild.pandoc_ast`.
"""
from __future__ import annotations

import json
import os
import shutil
from functools import cached_property
from typing import Any

from . import pieces, procs
from .cache import Inputs, file_digest
from .errors import RenderError

#: pandoc's reader: Pandoc markdown as Quarto feeds it (tex math, citations, fenced divs,
#: attributes on table captions, raw blocks).  ``raw_tex`` off: a stray ``\ref{}`` stays
#: visible text instead of vanishing from HTML.
READER = "markdown-raw_tex"
#: pandoc's own UI strings ("Abstract", ...) have no zh translation; the book never uses them
HARMLESS_WARNINGS = ("Could not load translations", "translations/", "has no translation defined")


def read_files(args) -> list[str]:
    """The digests of the files pandoc ``args`` make it read (bibliographies, the citation style)."""
    return [file_digest(args[i + 1]) for i, a in enumerate(args[:-1]) if a in ("--bibliography", "--csl")]


class Pandoc:
    """One pandoc binary and the store its outputs are cached in (``store=None``: no caching)."""

    def __init__(self, path: str | None = None, store: Any = None):
        self._given = path
        self.store = store

    @cached_property
    def path(self) -> str:
        if self._given:
            return self._given
        try:
            import pypandoc
            return pypandoc.get_pandoc_path()
        except Exception:  # pragma: no cover - depends on the machine
            found = shutil.which("pandoc")
            if found:
                return found
            raise RenderError(None, None, "pandoc not found: pip install pypandoc-binary "
                                          "(or set PANDOC=/path/to/pandoc)") from None

    @cached_property
    def identity(self) -> str:
        """The binary, for cache keys: its path, size and modification time."""
        try:
            st = os.stat(self.path)
        except OSError as e:
            raise RenderError(None, None, f"cannot run pandoc ({self.path}): {e.strerror}; install it "
                                          "(pip install pypandoc-binary) or set PANDOC to a pandoc binary") from None
        return f"{self.path}:{st.st_size}:{st.st_mtime_ns}"

    def _key(self, args: list[str], text: str) -> Inputs:
        """A run depends on pandoc (its identity), its arguments, the text and the files the arguments name."""
        return Inputs("pandoc", ("\0".join(args), text, read_files(args)), self.identity)

    def _kept(self, args: list[str], text: str) -> tuple[Inputs | None, bytes | None]:
        """The inputs of pandoc ``args`` on ``text`` (None without a store) and the output kept under them."""
        if self.store is None or not self.store.enabled:
            return None, None
        key = self._key(args, text)
        return key, self.store.get_blob(key)

    def _fresh(self, args: list[str], text: str, where: str) -> str:
        """pandoc ``args`` on ``text``, run now; a warning is an error."""
        try:
            proc = procs.run([self.path, *args], text.encode("utf-8"))
        except OSError as e:
            raise RenderError(None, None, f"cannot run pandoc ({self.path}): {e.strerror}; install it "
                                          "(pip install pypandoc-binary) or set PANDOC to a pandoc binary") from None
        return _checked(proc, args, where)

    def run(self, args: list[str], text: str, where: str = "", keep: bool = True) -> str:
        """pandoc ``args`` on ``text``; a warning is an error. Outputs are cached by content (``keep``)."""
        key, hit = self._kept(args, text) if keep else (None, None)
        if hit is not None:
            return hit.decode("utf-8")
        out = self._fresh(args, text, where)
        if key is not None:
            self.store.put_blob(key, out.encode("utf-8"))
        return out

    def md_to_ast(self, text: str, where: str = "") -> dict:
        """``text``'s AST. With a store, from the pieces of the text kept from earlier reads
        (:mod:`.pieces`: an edit reads only the paragraphs it changed), else the whole text."""
        args = ["-f", READER, "-t", "json"]
        key, hit = self._kept(args, text)
        if hit is not None:
            return json.loads(hit)
        ast = None
        if key is not None:
            try:
                ast = pieces.read(text, lambda t: self._fresh(args, t, where), self.store, f"{self.identity}\0{READER}")
            except RenderError:
                ast = None   # the whole text is read below: its own message, at its own line
        out = json.dumps(ast, ensure_ascii=False) if ast is not None else self._fresh(args, text, where)
        if key is not None:
            self.store.put_blob(key, out.encode("utf-8"))
        return ast if ast is not None else json.loads(out)


def _checked(proc, args: list[str], where: str) -> str:
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode != 0:
        raise RenderError(where or None, None, f"pandoc {' '.join(args)} failed: {err}")
    if err:
        # pandoc warnings (e.g. citeproc "citation not found") are errors in this book
        lines = [ln for ln in err.splitlines() if ln.strip() and not any(h in ln for h in HARMLESS_WARNINGS)]
        if lines:
            raise RenderError(where or None, None, "pandoc warned: " + " | ".join(lines))
    return proc.stdout.decode("utf-8")
