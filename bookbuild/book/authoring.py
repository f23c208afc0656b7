"""What a later step refuses, refused by ``check`` first, each problem one line with file and line, all
at once (notes/CHAPTERS.md lists the rules for an author):

- ``pairs``: every chapter of a translated book declares ``translation-of`` (without it the drift guard is
  off), names an English chapter of the English book at the same position, and every English chapter has
  its translation in each other book (a chapter in one profile only is named with the profile file);
- ``kernel``: every chapter names the book's kernel, ``jupyter: mlsysim-book`` (Quarto's post-render step
  refuses a page whose chapter ran in another kernel);
- ``parity``: a translation quotes the inline values its English chapter quotes, in the same order (the
  glossary's ``[values]`` name the ones it quotes in a form of its own);
- ``numbering``: chapter numbers never go backwards (a chapter after Lecture 19 declares
  ``number-offset: [19]``, else it would be numbered by its position);
- ``reference-words``: no word of a cross-reference written beside it (``Section @sec-x``, ``第 @sec-x 节``):
  the reference prints its own word, so the reader would read it twice ("第第 19.3 节节", "第章节 20 节");
- ``names``: every value a page quotes has a name in the page's language for its hover (the ``names.toml``
  beside the cell that computes it, or the declared title of the physics function whose result it is);
- ``registry``: the registry's conventions the README states: a memory capacity is a whole number of GiB,
  a sparse rate is exactly twice the dense one (relative difference below :data:`SPARSE_TOLERANCE`).

The rules are the mlsysim book's: they apply to a project that carries its Quarto extension
(``_extensions/mlsysim-book``).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from types import SimpleNamespace

from .. import pandoc_ast as A
from ..checks import CheckContext, _where
from ..errors import BuildError, LintError
from ..numbering import XREF_RE
from ..render.filters.citations import ref_text
from .translation import FRONT_KEY, load_localized

KERNEL = "mlsysim-book"
EXTENSION = Path("_extensions") / "mlsysim-book"
#: a sparse rate equals twice the dense one to this relative difference (the README: "exactly twice")
SPARSE_TOLERANCE = 1e-9
#: bytes per unit of a capacity as the registry writes it
CAPACITY_UNITS = {"B": 1, "byte": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
                  "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


class AuthoringError(LintError):
    """A chapter or registry entry that a later step (the tests, Quarto, the loader's conventions) refuses."""
    kind = "authoring"


def applies(ctx: CheckContext) -> bool:
    return (ctx.root / EXTENSION).is_dir()


def _line_of(text: str, pattern: str, default: int = 1) -> int:
    m = re.search(pattern, text, flags=re.M)
    return text.count("\n", 0, m.start()) + 1 if m else default


def _english(books) -> list:
    return [b for b in books if str(b.lang).lower().startswith("en")]


def _translated(books) -> list:
    return [b for b in books if not str(b.lang).lower().startswith("en")]


def _profile_file(book) -> str:
    return f"_quarto-{book.profile}.yml"


def translation_pairs(ctx: CheckContext) -> tuple[list[tuple[str, str, str]], list[BuildError]]:
    """(English chapter, translation, translated book's profile) for every translation that names its
    English chapter, and the errors of the chapters that pair with nothing."""
    pairs, errors = [], []
    en_books = _english(ctx.all_books)
    if not en_books:
        return pairs, errors
    en = [ch.path.as_posix() for ch in en_books[0].chapters]
    for book in _translated(ctx.all_books):
        named = []
        for pos, ch in enumerate(book.chapters):
            rel = ch.path.as_posix()
            doc = ctx.documents.get(rel)
            meta = (doc.front_matter if doc else {}).get(FRONT_KEY)
            source = meta.get("path") if isinstance(meta, dict) else None
            if not source:
                guess = rel.replace(f".{book.lang}.qmd", ".qmd")
                errors.append(AuthoringError(rel, 1, f"a translation without {FRONT_KEY} (the drift guard is off for "
                                                     f"it): stamp it with python -m bookbuild translated {rel} "
                                                     f"--source {guess}"))
                if guess in en and en.index(guess) == pos:   # still compared with the chapter its name gives
                    named.append(guess)
                    pairs.append((guess, rel, book.profile))
                continue
            named.append(source)
            if source not in en:
                errors.append(AuthoringError(rel, _line_of(doc.text, r"^\s*path:"), f"{FRONT_KEY} names {source}, "
                                             f"which the English book ({_profile_file(en_books[0])}) does not list"))
            elif en.index(source) != pos:
                errors.append(AuthoringError(rel, 1, f"the translation of {source} is chapter {pos + 1} of the "
                                             f"'{book.profile}' book and its English chapter {en.index(source) + 1}: "
                                             f"list them at the same position in {_profile_file(book)} and "
                                             f"{_profile_file(en_books[0])}"))
            else:
                pairs.append((source, rel, book.profile))
        for source in en:
            if source not in named:
                errors.append(AuthoringError(source, 1, f"in the English book only: {_profile_file(book)} lists no "
                                                        f"translation of it (add FILE.{book.lang}.qmd with "
                                                        f"{FRONT_KEY}: path: {source}, at the same position)"))
    return pairs, errors


def pairs(ctx: CheckContext) -> list[BuildError]:
    return translation_pairs(ctx)[1] if applies(ctx) else []


def kernel(ctx: CheckContext) -> list[BuildError]:
    """Each chapter of every profile names the book's kernel in its own front matter."""
    if not applies(ctx):
        return []
    errors = []
    for rel in sorted({ch.path.as_posix() for b in ctx.all_books for ch in b.chapters}):
        doc = ctx.documents.get(rel)
        if doc is None:
            continue
        got = doc.front_matter.get("jupyter")
        if got != KERNEL:
            where = _line_of(doc.text, r"^jupyter:")
            errors.append(AuthoringError(rel, where, f"the chapter names no kernel {KERNEL!r} (jupyter: {got!r}): add "
                                                     f"'jupyter: {KERNEL}' to its front matter, or Quarto runs it in "
                                                     f"another kernel and the post-render step refuses the page"))
    return errors


def parity(ctx: CheckContext) -> list[BuildError]:
    """A translation quotes its English chapter's inline values, in order: each value quoted in one
    language only is named where it is quoted; with the same values, the first one out of order."""
    if not applies(ctx):
        return []
    found, _ = translation_pairs(ctx)
    by = {p: {ec.source.as_posix(): ec for ec in ctx.executed.get(p, [])} for p in ctx.executed}
    en_profile = next((b.profile for b in _english(ctx.books)), None)
    if en_profile is None:
        return []
    localized = {en: v.tr for en, v in load_localized(ctx.root).items()}
    errors: list[BuildError] = []
    for en_rel, tr_rel, profile in found:
        a, b = by.get(en_profile, {}).get(en_rel), by.get(profile, {}).get(tr_rel)
        if a is None or b is None:
            continue
        want = [(localized.get(u.expr, u.expr), u) for u in a.inline]
        got = [(u.expr, u) for u in b.inline]
        missing, extra = _unmatched(want, got), _unmatched(got, want)
        for expr, u in missing:
            errors.append(AuthoringError(u.file, u.line, f"{expr} is quoted in English only: {tr_rel} does not quote it "
                                                        f"(parity: the translation quotes the same values in order)"))
        for expr, u in extra:
            errors.append(AuthoringError(u.file, u.line, f"{expr} is quoted in the translation only: {en_rel} does not "
                                                        f"quote it"))
        if not missing and not extra:
            for (we, wu), (ge, gu) in zip(want, got):
                if we != ge:
                    errors.append(AuthoringError(gu.file, gu.line, f"{ge} is quoted here where {en_rel}:{wu.line} quotes "
                                                                   f"{we}: the translation quotes the same values in order"))
                    break
    return errors


def _unmatched(a: list[tuple[str, object]], b: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """The entries of ``a`` beyond the count of their expression in ``b``."""
    left: dict[str, int] = {}
    for e, _ in b:
        left[e] = left.get(e, 0) + 1
    out = []
    for e, u in a:
        if left.get(e, 0):
            left[e] -= 1
        else:
            out.append((e, u))
    return out


def numbering(ctx: CheckContext) -> list[BuildError]:
    """The numbered chapters of each book (not its appendices) in increasing order."""
    errors = []
    for book in ctx.books:
        index = ctx.index.get(book.profile)
        prev = None
        for ch in (index.chapters if index else []):
            if ch.appendix or not ch.number or not ch.number.isdigit():
                continue
            if prev is not None and int(ch.number) <= int(prev.number):
                doc = ctx.documents.get(ch.source)
                errors.append(AuthoringError(ch.source, _line_of(doc.text, r"^number-offset:") if doc else 1,
                                             f"chapter {ch.number} comes after chapter {prev.number} ({prev.source}) in "
                                             f"the '{book.profile}' book: numbers go backwards; declare "
                                             f"number-offset: [{prev.number}] in its front matter"))
            prev = ch
    return errors


# ---------------------------------------------------------------- a reference's own word

_QUIET = ("Space", "SoftBreak", "LineBreak")


def _beside(node) -> "list[tuple[str, str, str, str]]":
    """Every cross-reference of an AST with the text just before and just after it in its run of inlines
    (spaces skipped): (label as written, citation mode, before, after)."""
    out = []
    if isinstance(node, dict):
        node = node.get("c", node.get("blocks"))
    if not isinstance(node, list):
        return out
    if any(isinstance(x, dict) and x.get("t") == "Cite" for x in node):
        for i, el in enumerate(node):
            if not (isinstance(el, dict) and el.get("t") == "Cite"):
                continue
            prev = next((A.stringify(x) for x in reversed(node[:i]) if x.get("t") not in _QUIET), "")
            nxt = next((A.stringify(x) for x in node[i + 1:] if x.get("t") not in _QUIET), "")
            refs = [c for c in el["c"][0] if XREF_RE.match(c["citationId"])]
            if len(refs) == 1:
                out.append((refs[0]["citationId"], refs[0]["citationMode"]["t"], prev, nxt))
    for x in node:
        out += _beside(x)
    return out


def _words(crossref: dict[str, str]) -> tuple[set[str], set[str]]:
    """The words a book's references print (each kind's word, and the parts of its word order around the
    number): those a reader would read twice before a reference, and after it."""
    before, after = set(), set()
    for key, word in crossref.items():
        if key.startswith("form:"):
            head, _, tail = word.partition("{}")
            before |= {w for w in head.split() if w}
            after |= {w for w in tail.split() if w}
        elif key in ("sec", "chapter", "appendix", "fig", "tbl", "eq") and word:
            before.add(word)
    return before, after


def reference_words(ctx: CheckContext) -> list[BuildError]:
    """No cross-reference with its own word written beside it: ``Section @sec-x`` reads "Section Section 3.1",
    ``第 @sec-x 节`` reads "第第 19.3 节节" or, for a chapter, "第章节 20 节". ``-@sec-x`` prints the number alone."""
    errors, seen = [], set()
    for book in ctx.books:
        index = ctx.index.get(book.profile)
        if index is None:
            continue
        before, after = _words(book.crossref)
        words = SimpleNamespace(prefixes=book.crossref)
        for ec in ctx.executed.get(book.profile, []):
            for written, mode, prev, nxt in _beside(ctx.ast(book.profile, ec.source.as_posix())):
                t = index.targets.get(written[0].lower() + written[1:])
                if t is None or t.number is None or mode == "SuppressAuthor":
                    continue
                word = next((w for w in sorted(before, key=len, reverse=True)
                             if prev.lower().endswith(w.lower())
                             and not (w.isascii() and prev[:-len(w)][-1:].isalpha())), None) \
                    or next((w for w in sorted(after, key=len, reverse=True)
                             if nxt.startswith(w) and not _CJK.match(nxt[len(w):len(w) + 1])), None)
                if word is None:
                    continue
                file, line = _where(ec, "@" + written)
                if (file, line, written) in seen:
                    continue
                seen.add((file, line, written))
                printed = ref_text(words, written, t, mode).replace("\u00a0", " ")
                errors.append(AuthoringError(file, line, f"'{word}' beside @{written}: the reference prints its own "
                                                         f"words ('{printed}'), so the reader would read '{word}' twice; "
                                                         f"write @{written} alone (-@{written} gives the number only)"))
    return errors


# ---------------------------------------------------------------- the values' names

_CJK = re.compile(r"[\u4e00-\u9fff]")


def lacks_name(name: dict, attr: str, lang: str) -> bool:
    """``name`` (a hover's title) is no name in ``lang``: empty, the identifier, or, in Chinese, no
    Chinese (the English one); a symbol (no word of two letters, "T*") is the same in both."""
    stem = attr.split(".", 1)[-1].removesuffix("_str")
    en = str(name.get("en") or "")
    if lang == "en":
        return not en or "_" in en or en in (stem, stem.replace("_", " "))
    zh = str(name.get("zh") or "")
    if not zh or "_" in zh or zh in (stem, stem.replace("_", " ")):
        return True
    return not (_CJK.search(zh) and zh != en) and bool(re.search(r"[A-Za-z]{2}", zh))


def names(ctx: CheckContext) -> list[BuildError]:
    """Each ``*_str`` a chapter quotes is named, in the chapter's language, where the author writes it."""
    if not applies(ctx):
        return []
    from .provenance import NAMES_BESIDE
    errors: list[BuildError] = []
    for book in ctx.books:
        lang = "en" if str(book.lang).lower().startswith("en") else "zh"
        word = {"en": "English", "zh": "Chinese"}[lang]
        for ec in ctx.executed.get(book.profile, []):
            prov = (ec.extras or {}).get("provenance") or {}
            seen: set[str] = set()
            for u in ec.inline:
                e = prov.get(u.expr)
                if u.expr in seen or not isinstance(e, dict):
                    continue
                seen.add(u.expr)
                if lacks_name(e.get("name") or {}, u.expr, lang):
                    cls, _, attr = u.expr.partition(".")
                    table = (Path(e.get("file") or u.file).parent / NAMES_BESIDE).as_posix()
                    errors.append(AuthoringError(u.file, u.line, f"{u.expr} has no {word} name for its hover (it shows "
                                                                 f"{(e.get('name') or {}).get(lang)!r}): add [names.{cls}] "
                                                                 f"{attr.removesuffix('_str')} = {{ en = \"...\", zh = "
                                                                 f"\"...\" }} to {table}"))
    return errors


# ---------------------------------------------------------------- the registry's conventions

def _number_unit(value) -> tuple[float, str] | None:
    m = re.fullmatch(r"\s*([-+]?[\d.]+(?:[eE][-+]?\d+)?)\s*(\S.*?)\s*", str(value))
    return (float(m.group(1)), m.group(2)) if m else None


def _data_file(root: Path, folder: Path, name: str) -> tuple[str, str, dict] | None:
    """(the file as a message names it, its text, its tables); None for a file that is missing or does not
    parse (the loader's to name)."""
    path = folder / name
    try:
        rel = path.resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        rel = str(path)
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    try:
        return rel, text, tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def registry_conventions(root: Path, data_dir: Path | None = None) -> list[BuildError]:
    """The registry the chapters read, ``mlsysim/data`` (``data_dir`` when the build reads another one,
    ``MLSYSIM_DATA_DIR``): each accelerator's memory a whole number of GiB and its sparse rate exactly
    twice the dense one; each measurement's source cited (its ``cite``, a references.bib key: the
    appendix's calibration table cites every row's source). (A file that does not parse is the loader's to
    name.)"""
    folder = Path(data_dir) if data_dir else Path(root) / "mlsysim" / "data"
    from mlsysim.tomllines import toml_line   # the loader's own locator (the library has loaded: hooks.library_loads)
    errors = _measurement_sources(root, folder, toml_line)
    read = _data_file(root, folder, "accelerators.toml")
    if read is None:
        return errors
    rel, text, data = read
    for name, entry in data.items():
        if not isinstance(entry, dict) or toml_line(text, name) is None:
            continue
        cap = ((entry.get("memory") or {}).get("capacity") or {})
        nu = _number_unit(cap.get("value") if isinstance(cap, dict) else cap)
        if nu and nu[1] in CAPACITY_UNITS:
            gib = nu[0] * CAPACITY_UNITS[nu[1]] / 2**30
            if abs(gib - round(gib)) > 1e-9 * max(gib, 1):
                errors.append(AuthoringError(rel, toml_line(text, name, "memory.capacity"),
                                             f"[{name}] memory.capacity {cap.get('value')!r} is {gib:.4g} GiB, not a whole "
                                             f"number: the registry stores a part's capacity in GiB, the vendor's "
                                             f"'GB' read the JEDEC way (write '{round(nu[0])} GiB')"))
        for prec, rate in (entry.get("compute") or {}).items():
            if not isinstance(rate, dict) or "sparse" not in rate or "dense" not in rate:
                continue
            d, s = _number_unit(rate["dense"]), _number_unit(rate["sparse"])
            if not d or not s or d[1] != s[1] or d[0] == 0:
                continue
            if abs(s[0] / d[0] - 2) > SPARSE_TOLERANCE * 2:
                errors.append(AuthoringError(rel, toml_line(text, name, f"compute.{prec}"),
                                             f"[{name}] compute.{prec}: sparse {rate['sparse']!r} is {s[0] / d[0]:.6g} times "
                                             f"dense {rate['dense']!r}, not exactly twice: store the sparse figure as "
                                             f"2 x dense ({2 * d[0]:g} {d[1]}) and note the vendor's rounding"))
    return errors


def _measurement_sources(root: Path, folder: Path, toml_line) -> list[BuildError]:
    """A measurement whose source has no ``cite``: the appendix would print the bare source key where a
    citation belongs."""
    measured, sources = _data_file(root, folder, "measurements.toml"), _data_file(root, folder, "sources.toml")
    if measured is None or sources is None:
        return []
    (rel, text, data), (src_rel, src_text, src) = measured, sources
    errors = []
    for key, m in data.items():
        name = m.get("source") if isinstance(m, dict) else None
        entry = src.get(name) if isinstance(name, str) else None
        if isinstance(entry, dict) and not str(entry.get("cite", "")).strip():
            errors.append(AuthoringError(rel, toml_line(text, key, "source"),
                                         f"[{key}] source {name!r} has no cite: the appendix's calibration table cites "
                                         f"each measurement's source; add cite = \"<its references.bib key>\" to "
                                         f"{src_rel}:{toml_line(src_text, name)} [{name}] and the entry to references.bib"))
    return errors


def registry(ctx: CheckContext) -> list[BuildError]:
    """Over the registry the chapters read: the project's, or the data folder the build was given."""
    data = getattr(ctx, "data_dirs", ()) or ()
    return registry_conventions(ctx.root, data[0] if data else None) if applies(ctx) else []
