"""verify: the engine's checks (:data:`bookbuild.checks.CHECKS`) and the layer's rules
(:meth:`bookbuild.layer.Layer.checks`; the book's: :data:`bookbuild.book.checks.BOOK_CHECKS`), one list; a verification that passed is not repeated while
nothing it read has changed (its key: the executed chapters, every chapter of every profile, the
project files; the files the checks opened are recorded and checked on reuse). A check that declares the
chapters it reads (:attr:`~bookbuild.checks.Check.chapters`) is also kept on its own, under those
chapters' documents: an English edit does not check the Chinese books' typography again."""
from __future__ import annotations

from .. import bibliography
from ..cache import file_digest, sha256_bytes
from ..checks import CHECKS, CheckContext
from ..errors import BuildError, BuildFailed
from ..execute.audit import reading
from .state import Build


def all_checks(build: Build) -> list:
    """The checks the build runs, in order: the engine's, then its layer's."""
    return CHECKS + build.settings.layer.checks()


def verify_key(build: Build) -> str:
    parts = [b"verify", build.environment.encode(), ",".join(b.profile for b in build.books).encode()]
    for book in build.books:
        parts += [ec.markdown.encode("utf-8") for ec in build.executed[book.profile]]
    for rel in sorted(build.documents):
        parts += [f"{r}:{sf.digest}".encode() for r, sf in build.documents[rel].files.items()]
    return sha256_bytes(*parts, *_config_parts(build))


def _config_parts(build: Build) -> list[bytes]:
    return [f"{p.name}:{file_digest(p)}".encode() for p in sorted(build.root.glob("_quarto*.yml"))]


def check_key(build: Build, check, ctx: CheckContext) -> str:
    parts = [b"check", build.environment.encode(), check.name.encode(), *_config_parts(build)]
    for rel in check.chapters(ctx):
        doc = build.documents.get(rel)
        parts += [rel.encode()] + ([f"{r}:{sf.digest}".encode() for r, sf in doc.files.items()] if doc else [b"-"])
    return sha256_bytes(*parts)


def _checked(build: Build, ctx: CheckContext, check, seen: set[str]) -> list[BuildError]:
    """``check`` over ``ctx``, or nothing when it passed over the same chapters and files (``seen``:
    every file the verification read, a kept check's included)."""
    key = check_key(build, check, ctx) if check.chapters is not None and build.store.enabled else ""
    hit = build.store.get_json("check", key) if key else None
    if isinstance(hit, dict) and all(file_digest(build.root / r) == d for r, d in hit["reads"].items()):
        seen.update(hit["reads"])
        return []
    with reading(build.root, _skip(build)) as mine:
        errors = check.run(ctx)
    if key and not errors:
        build.store.put_json("check", key, {"reads": {r: file_digest(build.root / r) for r in sorted(mine)}})
    return errors


def _skip(build: Build) -> list:
    return [build.root / "_build", build.root / "_book", build.root / ".venv"]


def context(build: Build) -> CheckContext:
    for book in build.books:
        build.bibliographies[book.profile] = bibliography.read(build.pandoc, build.root, book.bibliography)
    return CheckContext(build.root, build.books, build.all_books, build.documents, build.executed, build.ast,
                        build.index, build.bibliographies, store=build.store, environment=build.environment,
                        data_dirs=build.settings.data_dirs)


def run(build: Build) -> None:
    key = verify_key(build) if build.store.enabled else ""
    hit = build.store.get_json("verify", key) if key else None
    if hit is not None and all(file_digest(build.root / r) == d for r, d in hit["reads"].items()):
        if build.guard_failures:
            raise BuildFailed(build.guard_failures)
        return
    errors: list[BuildError] = []
    with reading(build.root, _skip(build)) as reads:
        ctx = context(build)
        for check in all_checks(build):
            errors += _checked(build, ctx, check, reads)
    if build.settings.stale_translations == "warn":   # the preview: the author is editing the English
        build.report.notes += [f"warning: {e.format()}" for e in errors if e.kind == "stale"]
        errors = [e for e in errors if e.kind != "stale"]
        key = ""   # a verification that only warned is checked again next time
    if errors or build.guard_failures:   # the chapters' failing guards first, then what the checks found
        raise BuildFailed(build.guard_failures + errors)
    if key:
        build.store.put_json("verify", key, {"reads": {r: file_digest(build.root / r) for r in sorted(reads)}})
