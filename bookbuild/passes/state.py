"""What the passes of a build read and write: one :class:`Build`."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..bibliography import Bibliography
from ..cache import Store
from ..errors import BuildError, XrefError
from ..execute import ExecutedChapter
from ..numbering import Index
from ..project import Book
from ..render.additions import Additions
from ..errors import RenderError
from ..pandoc import Pandoc
from ..settings import Settings
from ..source import Document


DUPLICATE = re.compile(r"Duplicate identifier '([^']+)' at line (\d+)")


@dataclass
class Report:
    executed: list[str] = field(default_factory=list)     # "profile:path" that really ran
    cached: list[str] = field(default_factory=list)       # "profile:path" served from the cache
    replayed: list[str] = field(default_factory=list)     # of those, a prose edit over its cells' last run
    rendered: list[str] = field(default_factory=list)     # profiles whose book was replaced
    up_to_date: list[str] = field(default_factory=list)   # profiles whose book was already current
    notes: list[str] = field(default_factory=list)        # one line each (a discarded cache entry, ...)
    seconds: float = 0.0
    deferred: list[str] = field(default_factory=list)   # what a --defer-layer build left for the next one
    timings: dict[str, float] = field(default_factory=dict)   # seconds each pass took (BOOKBUILD_DEBUG=1 prints them)


@dataclass
class Build:
    settings: Settings
    names: list[str]                            # the profiles asked for
    facts: bool = False                         # diff's run: guards recorded, a failing chapter kept as its error
    books: list[Book] = field(default_factory=list)
    all_books: list[Book] = field(default_factory=list)
    documents: dict[str, Document] = field(default_factory=dict)    # every chapter of every profile
    parse_errors: dict[str, BuildError] = field(default_factory=dict)  # chapter path -> why it does not parse
    store: Store = field(default_factory=lambda: Store(None))
    pandoc: Pandoc = field(default_factory=Pandoc)
    environment: str = ""                       # the digest of code and tools every key covers
    executed: dict[str, list[ExecutedChapter]] = field(default_factory=dict)   # by profile
    failures: dict[str, BuildError] = field(default_factory=dict)              # "profile:path" -> error
    #: "profile:path" -> the digest of what its code read (project files, other inputs) as its run recorded
    #: them: the reader's choices run the same cells, so their key covers it too
    inputs: dict[str, str] = field(default_factory=dict)
    guard_failures: list[BuildError] = field(default_factory=list)  # guards failed in chapters that ran to their end
    asts: dict[tuple[str, str], dict] = field(default_factory=dict)
    index: dict[str, Index] = field(default_factory=dict)
    bibliographies: dict[str, Bibliography] = field(default_factory=dict)
    additions: dict[str, Additions] = field(default_factory=dict)
    report: Report = field(default_factory=Report)

    @property
    def root(self) -> Path:
        return self.settings.root

    def ast(self, profile: str, source: str) -> dict:
        """A chapter's pandoc AST (parsed on first use; pandoc's output is cached by content)."""
        key = (profile, source)
        if key not in self.asts:
            ec = next(c for c in self.executed[profile] if c.source.as_posix() == source)
            try:
                self.asts[key] = self.pandoc.md_to_ast(ec.markdown, source)
            except RenderError as e:
                m = DUPLICATE.search(e.message)
                if not m:
                    raise
                o = ec.origin(int(m.group(2)))
                raise XrefError(o.file, o.line, f"label {m.group(1)} is defined twice in {source}; "
                                                "labels must be unique in a book") from None
        return self.asts[key]

    def read_asts(self, chapters: list[tuple[str, str]]) -> None:
        """Read the ASTs of ``chapters`` ((profile, source) pairs) as :meth:`ast` does, pandoc running on up to
        ``settings.width`` of them at once; the first error, in the order given, is raised."""
        todo = [c for c in dict.fromkeys(chapters) if c not in self.asts]
        if len(todo) < 2:
            return
        with ThreadPoolExecutor(max_workers=min(len(todo), self.settings.width)) as ex:
            futures = [ex.submit(self.ast, *c) for c in todo]
        for f in futures:
            f.result()

    def executed_dir(self, profile: str) -> Path:
        return self.settings.executed_dir(profile, "facts" if self.facts else "executed")
