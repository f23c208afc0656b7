"""verify: the engine's checks (:data:`bookbuild.checks.CHECKS`) and the layer's rules
(:meth:`bookbuild.layer.Layer.checks`; the book's: :data:`bookbuild.book.checks.BOOK_CHECKS`), one list; a verification that passed is not repeated while
nothing it read has changed (its key: the executed chapters, every chapter of every profile, the
project files; the files the checks opened are recorded and checked on reuse). A check that declares the
chapters it reads (:attr:`~bookbuild.checks.Check.chapters`) is also kept on its own, under those
chapters' documents: an English edit does not check the Chinese books' typography again."""
from __future__ import annotations

import contextlib

from .. import bibliography
from ..cache import Inputs, Watch, file_digest
from ..checks import CHECKS, CheckContext
from ..errors import BuildError, BuildFailed
from ..execute.audit import reading
from .state import Build


def all_checks(build: Build) -> list:
    """The checks the build runs, in order: the engine's, then its layer's."""
    return CHECKS + build.settings.layer.checks()


def verify_key(build: Build) -> Inputs:
    """A verification reads the executed chapters of the books built, every chapter's files, the profiles."""
    values = [",".join(b.profile for b in build.books)]
    values += [ec.markdown for book in build.books for ec in build.executed[book.profile]]
    files = [(r, sf.digest) for rel in sorted(build.documents) for r, sf in build.documents[rel].files.items()]
    return Inputs("verify", tuple(values), build.environment, tuple(files) + _config_files(build))


def _config_files(build: Build) -> tuple[tuple[str, str], ...]:
    return tuple((p.name, file_digest(p)) for p in sorted(build.root.glob("_quarto*.yml")))


def check_key(build: Build, check, ctx: CheckContext) -> Inputs:
    """A check that declares its chapters reads those chapters' files and the profiles."""
    files = []
    for rel in check.chapters(ctx):
        doc = build.documents.get(rel)
        files += [(f"{rel}>{r}", sf.digest) for r, sf in doc.files.items()] if doc else [(rel, "-")]
    return Inputs("check", (check.name,), build.environment, tuple(files) + _config_files(build))


def _passed(errors: list) -> bool:
    return not errors


def _watch(build: Build, also: set[str] | None = None) -> Watch:
    """The project files the checks read (the build's own folders aside); ``also``: files the steps inside
    recalled from their kept result, counted as read."""
    @contextlib.contextmanager
    def record():
        with reading(build.root, _skip(build)) as mine:
            yield mine
        mine |= also or set()
    return Watch(build.root, record)


def _checked(build: Build, ctx: CheckContext, check, recalled: set[str]) -> list[BuildError]:
    """``check`` over ``ctx``; a check that declares its chapters is kept when it passed, under those chapters
    and the files it read (``recalled``: every file the kept and the run checks read)."""
    key = check_key(build, check, ctx) if check.chapters is not None and build.store.enabled else None
    watch = _watch(build)
    errors = build.store.memo(key, lambda: check.run(ctx), keep=_passed, watch=watch)
    recalled |= watch.read
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
    key = verify_key(build) if build.store.enabled else None
    recalled: set[str] = set()
    warned: list[BuildError] = []

    def verify() -> list[BuildError]:
        ctx = context(build)
        errors = [e for check in all_checks(build) for e in _checked(build, ctx, check, recalled)]
        if build.settings.stale_translations == "warn":   # the preview: the author is editing the English
            warned.extend(e for e in errors if e.kind == "stale")
            errors = [e for e in errors if e.kind != "stale"]
        return errors

    # a verification that passed (no guard failing either) is kept; one that only warned is checked again
    errors = build.store.memo(key, verify, watch=_watch(build, recalled),
                              keep=lambda e: not e and not warned and not build.guard_failures)
    build.report.notes += [f"warning: {e.format()}" for e in warned]
    if errors or build.guard_failures:   # the chapters' failing guards first, then what the checks found
        raise BuildFailed(build.guard_failures + errors)
