"""The book's own rules, declared as one list (:data:`BOOK_CHECKS`), run after the engine's checks.

- ``lint``: no typed number in the prose, inline expressions are attribute reads outside math and
  captions (:mod:`.lint`), over every source file of the books being built, each once;
- ``unused``: every ``*_str`` a cell defines is quoted somewhere (:mod:`.unused`);
- ``translations``: the drift guard (:mod:`.translation`);
- ``typography``: the glossary's terms and the typography rules in every Chinese string a reader sees
  (:mod:`.typography`): the chapters' and their cells' (``typography``), the library's and the hover
  names' (``typography-library``);
- ``pairs``, ``kernel``, ``parity``, ``numbering``, ``reference-words``, ``names``, ``registry``: what the tests, Quarto or the registry's
  conventions would refuse later (:mod:`.authoring`).
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..checks import Check, CheckContext
from ..cache import file_digest
from ..errors import BuildError, read_text
from . import authoring
from . import typography as T
from ..render.html import INLINE_SCRIPT
from .hooks import library_dirs, library_script_hashes
from .lint import lint_text, load_allowlist
from .translation import GLOSSARY, check_translations, load_glossary, localized_values
from .unused import unused_strs


def lint(ctx: CheckContext) -> list[BuildError]:
    allow = load_allowlist()
    seen: set[str] = set()
    errors: list[BuildError] = []
    for book in ctx.books:
        for ch in book.chapters:
            doc = ctx.documents[ch.path.as_posix()]
            for rel, sf in doc.files.items():
                if rel not in seen:   # each file kept while it passes (the allowlist is the engine's code)
                    seen.add(rel)
                    errors += ctx.unless_passed("lint", [rel.encode(), sf.digest.encode()],
                                                lambda sf=sf, rel=rel: lint_text(sf.text, rel, allow))
    return errors


def unused(ctx: CheckContext) -> list[BuildError]:
    docs = {ch.path.as_posix(): ctx.documents[ch.path.as_posix()]
            for book in ctx.all_books for ch in book.chapters if ch.path.as_posix() in ctx.documents}
    return list(unused_strs([b.profile for b in ctx.all_books], docs.values(), localized_values(ctx.root), ctx.memo))


def translations(ctx: CheckContext) -> list[BuildError]:
    """A translation's English chapter is read as parsed when a profile lists it, else from its file (a
    profile may drop a chapter its translation still translates)."""
    def text_of(rel: str) -> str | None:
        got = ctx.text_of(rel)
        path = (ctx.root / rel).resolve()
        if got is None and path.is_relative_to(ctx.root.resolve()) and path.is_file():
            return read_text(path, rel)
        return got
    return check_translations(ctx.root, ctx.all_books, text_of)


def _chinese_books(ctx: CheckContext) -> list:
    return [b for b in ctx.all_books if str(b.lang).lower().startswith("zh")]


def typography_chapters(ctx: CheckContext) -> list[str]:
    """What :func:`typography` reads of the book: the Chinese books' chapters."""
    return [ch.path.as_posix() for b in _chinese_books(ctx) for ch in b.chapters]


def _typography_rules(ctx: CheckContext):
    """The glossary's terms and the typography data, or the error that stops reading them."""
    try:
        return load_glossary(ctx.root), T.load(ctx.root), None
    except BuildError as e:
        return None, None, e


def typography(ctx: CheckContext) -> list[BuildError]:
    """Over the Chinese books' chapters (and the cells they include)."""
    zh = _chinese_books(ctx)
    if not zh:
        return []
    terms, data, error = _typography_rules(ctx)
    if error is not None:
        return [error]
    rules = file_digest(ctx.root / GLOSSARY) if (ctx.root / GLOSSARY).is_file() else "-"
    errors: list[BuildError] = []
    seen: set[str] = set()
    for book in zh:
        for ch in book.chapters:
            doc = ctx.documents.get(ch.path.as_posix())
            for rel, sf in (doc.files.items() if doc else []):
                if rel in seen:
                    continue
                seen.add(rel)

                def one(rel=rel, sf=sf, doc=doc) -> list[BuildError]:
                    texts = T.chapter_texts(rel, sf.text) if rel == doc.path else \
                        [t for c in doc.cells if c.body.file == rel for t in T.code_texts(rel, c.source, calls=())]
                    return T.check(texts, data, terms)
                # each file kept while it passes under the same rules (a cell edit checks that cell's file)
                errors += ctx.unless_passed("typography", [rel.encode(), sf.digest.encode(), rules.encode(),
                                                           b"prose" if rel == doc.path else b"cells"], one)
    return errors


def typography_library(ctx: CheckContext) -> list[BuildError]:
    """Over the library's strings a Chinese reader sees (figure labels, the measurements table, the explorer)
    and the hover names: apart from the chapters, so that an edit of a chapter or a cell does not read them
    again (its pass is kept while the files it read are unchanged)."""
    if not _chinese_books(ctx):
        return []
    terms, data, error = _typography_rules(ctx)
    if error is not None:
        return [error]
    texts = [t for lib in library_dirs(ctx.root) for t in T.library_texts(lib)]
    cells = sorted({rel for doc in ctx.documents.values() for rel in doc.files if rel != doc.path})
    return T.check(texts + T.name_texts(ctx.root, cells), data, terms)


def no_chapters(ctx: CheckContext) -> list[str]:
    """For a check that reads no chapter: its pass is kept while the files it opened are unchanged."""
    return []


#: raw HTML that would put another document in a page: a framed file of the book runs its own scripts,
#: under no policy, with the book's origin
EMBED = re.compile(r"<\s*(iframe|frame|frameset|object|embed|portal)\b", re.I)
SCRIPT_WORDS = ("a <script> would reach the page (raw HTML in the prose, or printed by a cell): a page runs only "
                "the book's own scripts; remove it, or show the code as text (a fenced code block)")
EMBED_WORDS = ("an <{}> would reach the page (raw HTML in the prose, or printed by a cell): a document framed "
               "in a page runs its own scripts; link to it, or show the code as text")


def _foreign_scripts(markdown: str, own: set[str]):
    """The offsets of the scripts in ``markdown`` a page must not run: an inline one that is not the library's,
    or a ``<script src>`` of the book's own origin (the policy's 'self' would load any file the book holds;
    another origin's the policy stops)."""
    from ..render.html import inline_script_hashes
    for m in INLINE_SCRIPT.finditer(markdown):
        src = re.search(r"""\ssrc\s*=\s*["']?([^"'\s>]*)""", m.group("attrs") or "", re.I)
        loads = src is not None and not src.group(1).startswith("//") \
            and urlsplit(src.group(1)).scheme.lower() in ("", "file")
        hashes = inline_script_hashes(m.group(0))
        if loads or (hashes and hashes[0] not in own):
            yield m.start(), SCRIPT_WORDS


def scripts(ctx: CheckContext) -> list[BuildError]:
    """No script reaches a page but the book's own (:func:`_foreign_scripts`; the library's inline ones:
    :data:`.hooks.LIBRARY_SCRIPTS`), and no framed document (:data:`EMBED`), from raw HTML in the prose or a
    cell's printed output: each is refused where it stands."""
    own, errors, seen = None, [], set()
    for book in ctx.books:
        for ec in ctx.executed.get(book.profile, []):
            found = [(m.start(), EMBED_WORDS.format(m.group(1).lower())) for m in EMBED.finditer(ec.markdown)]
            if "<script" in ec.markdown.lower():
                own = set(library_script_hashes()) if own is None else own
                found += list(_foreign_scripts(ec.markdown, own))
            for at, words in sorted(found):
                o = ec.origin(ec.markdown.count("\n", 0, at) + 1)
                if (o.file, o.line) not in seen:
                    seen.add((o.file, o.line))
                    errors.append(BuildError(o.file, o.line, words))
    return errors


BOOK_CHECKS = [Check("lint", lint), Check("unused", unused), Check("translations", translations),
               Check("scripts", scripts),
               Check("typography", typography, typography_chapters),
               Check("typography-library", typography_library, no_chapters),
               Check("pairs", authoring.pairs), Check("kernel", authoring.kernel), Check("parity", authoring.parity),
               Check("numbering", authoring.numbering), Check("reference-words", authoring.reference_words),
               Check("names", authoring.names), Check("registry", authoring.registry)]
