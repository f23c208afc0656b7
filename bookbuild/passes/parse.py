"""parse: load the profiles and parse every chapter of every profile once (:func:`bookbuild.source.parse`)."""
from __future__ import annotations

from pathlib import Path

from ..cache import Store, environment_digest, sha256_bytes
from ..errors import BuildError
from ..project import load_book, profiles
from ..pandoc import Pandoc
from ..settings import Settings
from ..source import parse
from .state import Build

ENGINE = Path(__file__).resolve().parents[1]


def code_trees(settings: Settings) -> list[Path]:
    """The code every result depends on, whole: bookbuild itself and the libraries the chapters import
    (the layer's, :meth:`bookbuild.layer.Layer.library_dirs`)."""
    return [ENGINE, *settings.layer.library_dirs(settings.root)]


def environment(settings: Settings) -> str:
    """The digest every cache key starts from: the layer, the code trees, the data folders, the installed
    distributions."""
    digest = environment_digest(code_trees(settings), [Path(d) for d in settings.data_dirs])
    return sha256_bytes(b"layer", settings.layer.name.encode(), digest.encode())


def run(build: Build) -> None:
    s = build.settings
    build.store = Store(s.cache_folder)
    build.pandoc = Pandoc(s.pandoc, build.store)
    build.books = [load_book(s.root, p) for p in build.names]
    build.all_books = [load_book(s.root, p) for p in (profiles(s.root) or build.names)]
    build.environment = environment(s)
    for book in build.books + build.all_books:
        for ch in book.chapters:
            rel = ch.path.as_posix()
            if rel in build.documents or rel in build.parse_errors:
                continue
            try:
                build.documents[rel] = parse(rel, s.root)
            except BuildError as e:   # reported by the execute pass, with the other chapters' errors
                build.parse_errors[rel] = e
