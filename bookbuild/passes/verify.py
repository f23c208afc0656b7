"""verify: the engine's checks (:data:`bookbuild.checks.CHECKS`) and the book's rules
(:data:`bookbuild.book.checks.BOOK_CHECKS`), one list; a verification that passed is not repeated while
nothing it read has changed (its key: the executed chapters, every chapter of every profile, the
project files; the files the checks opened are recorded and checked on reuse)."""
from __future__ import annotations

from .. import bibliography
from ..book.checks import BOOK_CHECKS
from ..cache import file_digest, sha256_bytes
from ..checks import CHECKS, CheckContext
from ..errors import BuildError, BuildFailed
from ..execute.audit import reading
from .state import Build

#: the checks the build runs, in order
ALL_CHECKS = CHECKS + BOOK_CHECKS


def verify_key(build: Build) -> str:
    parts = [b"verify", build.environment.encode(), ",".join(b.profile for b in build.books).encode()]
    for book in build.books:
        parts += [ec.markdown.encode("utf-8") for ec in build.executed[book.profile]]
    for rel in sorted(build.documents):
        parts += [f"{r}:{sf.digest}".encode() for r, sf in build.documents[rel].files.items()]
    parts += [f"{p.name}:{file_digest(p)}".encode() for p in sorted(build.root.glob("_quarto*.yml"))]
    return sha256_bytes(*parts)


def context(build: Build) -> CheckContext:
    for book in build.books:
        build.bibliographies[book.profile] = bibliography.read(build.pandoc, build.root, book.bibliography)
    return CheckContext(build.root, build.books, build.all_books, build.documents, build.executed, build.ast,
                        build.index, build.bibliographies)


def run(build: Build) -> None:
    key = verify_key(build) if build.store.enabled else ""
    hit = build.store.get_json("verify", key) if key else None
    if hit is not None and all(file_digest(build.root / r) == d for r, d in hit["reads"].items()):
        return
    skip = [build.root / "_build", build.root / "_book", build.root / ".venv"]
    errors: list[BuildError] = []
    with reading(build.root, skip) as reads:
        ctx = context(build)
        for check in ALL_CHECKS:
            errors += check.run(ctx)
    if build.settings.stale_translations == "warn":   # the preview: the author is editing the English
        build.report.notes += [f"warning: {e.format()}" for e in errors if e.kind == "stale"]
        errors = [e for e in errors if e.kind != "stale"]
        key = ""   # a verification that only warned is checked again next time
    if errors:
        raise BuildFailed(errors)
    if key:
        build.store.put_json("verify", key, {"reads": {r: file_digest(build.root / r) for r in sorted(reads)}})
