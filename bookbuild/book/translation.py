"""Translations: the drift guard, the glossary check and the parity comparison.

A translated chapter names its source in its front matter::

    ---
    translation-of:
      path: lectures/lecture19-agent-stalls.qmd
      sha256: 3f2a...            # of the source's PROSE when the translation was last brought up to date
    ---

The hash covers what an English reader reads of the chapter as written (:func:`reader_blocks`): its prose
(:func:`prose_blocks`: the text with ``{{< include >}}`` lines, tables and inline ```{python} ...```
expressions as they are written, without front matter and executable code chunks), the captions and alt
text of its chunks, and, of the cells it includes, the messages of the reader's guards and the English
names of their values (``names.toml``). Code and data may change freely otherwise: the numbers are shared
by both languages, so they cannot drift. When the source's prose changes,
:func:`check_drift` fails, naming the translated chapter and listing the English paragraphs that
changed (a word-level diff against the snapshot recorded at the last stamp, in
``_translations/<translated chapter>.source``). ``python -m bookbuild translated FILE`` records the new
hash and snapshot once the translator has brought the chapter up to date.

:func:`check_glossary` flags a Chinese chapter that writes a listed variant of a glossary term
(``notes/glossary.toml``); :func:`localized_values` reads the glossary's ``[values]``, the attributes
one language quotes in a form of its own.

Every check is a pure function of the files and returns :class:`~bookbuild.errors.BuildError` s.
"""
from __future__ import annotations

import ast
import difflib
import hashlib
import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..blocks import Scanned
from ..blocks import scan as scan_blocks
from ..errors import BuildError, read_text
from ..source import front_matter_of
from ..text import find_fences, front_matter_end, line_of, line_starts, scan

FRONT_KEY = "translation-of"
GLOSSARY = Path("notes/glossary.toml")
SNAPSHOTS = Path("_translations")
MAX_LISTED = 8          # changed paragraphs listed per stale chapter
SNIPPET = 90            # characters of context shown around a change


class TranslationError(BuildError):
    """A translation is stale, unstamped or breaks the glossary."""
    kind = "translation"


class StaleTranslation(TranslationError):
    """A translation behind its English source (or never stamped): an error of the build, a warning of the
    preview (``--stale-translations warn``), where the author is editing the English."""
    kind = "stale"


# ---------------------------------------------------------------- prose and its hash

@dataclass
class Block:
    line: int           # 1-based line of the paragraph's first line in its file
    text: str           # whitespace-normalized
    file: str = ""      # the file it is in, when not the chapter (an included cell file, a names table)


def prose_blocks(text: str) -> list[Block]:
    """The chapter's prose as written, paragraph by paragraph: the blocks of :func:`bookbuild.blocks.scan`
    with the front matter and executable code chunks (``{python}``) removed (a chunk inside a block ends the
    paragraph before it), every other line kept verbatim (includes, inline expressions, tables, math, callout
    fences, a fence other than a chunk whole), whitespace inside a paragraph normalized."""
    return _prose(scan_blocks(text.splitlines()))


def _prose(sc: Scanned) -> list[Block]:
    dropped = {i for f in sc.fences if f.exec_lang for i in range(f.start, f.end + 1)}
    out: list[Block] = []
    for b in sc.blocks:
        if b.start <= sc.front_end:
            continue
        run: list[int] = []
        for i in [*range(b.start, b.end + 1), None]:
            if i is not None and i not in dropped:
                run.append(i)
            elif run:
                out.append(Block(run[0] + 1, " ".join(" ".join(sc.lines[j].strip() for j in run).split())))
                run = []
    return out


def prose_hash(text: str) -> str:
    return hashlib.sha256("\n\n".join(b.text for b in prose_blocks(text)).encode("utf-8")).hexdigest()


#: the options of an executable chunk that a reader reads (the caption and the alt text of its figure or table)
READER_OPTIONS = ("fig-cap", "fig-alt", "tbl-cap", "fig-subcap", "tbl-subcap", "lst-cap")
_OPTION = re.compile(rf"^\s*#\|\s*({'|'.join(READER_OPTIONS)})\s*:\s*(.*)$")
_INCLUDE = re.compile(r"^\s*\{\{<\s*include\s+(\S+?)\s*>\}\}\s*$")
#: the guards whose message a reader of a chosen configuration reads (pin and pin_seed are never shown)
READER_GUARDS = frozenset({"check"})


def reader_blocks(text: str, rel: str = "", read: Callable[[str], str | None] | None = None) -> list[Block]:
    """Everything an English reader reads of the chapter ``text`` (at ``rel``), what its translation
    follows: the prose (:func:`prose_blocks`) and, in the order they come, the captions and alt text of its
    chunks; then, of each cell file it includes (read by ``read``, relative to the project), the messages of
    its reader's guards (``check(cond, "...", zh=...)``, shown to a reader whose choice breaks them) and the
    English names of its classes' values in the ``names.toml`` beside it (the hover's titles)."""
    sc = scan_blocks(text.splitlines())
    blocks, lines = _prose(sc), sc.lines
    for f in sc.fences:
        if f.exec_lang:
            for i in range(f.start + 1, f.end):
                m = _OPTION.match(lines[i])
                if m:
                    blocks.append(Block(i + 1, f"{m.group(1)}: {' '.join(m.group(2).split())}"))
    blocks.sort(key=lambda b: b.line)
    if read is None:
        return blocks
    folder = Path(rel).parent
    for ln in lines:
        m = _INCLUDE.match(ln)
        if not m:
            continue
        cell_rel = os.path.normpath((folder / m.group(1)).as_posix()).replace(os.sep, "/")
        cell = read(cell_rel)
        if cell:
            blocks += _guard_blocks(cell, cell_rel) + _name_blocks(cell, cell_rel, read)
    return blocks


def _chunks(text: str) -> list[tuple[int, str]]:
    """(0-based line of the first code line, code) of each executable chunk of ``text``."""
    lines = text.splitlines()
    return [(f.start + 1, "\n".join(lines[f.start + 1:f.end])) for f in find_fences(lines) if f.exec_lang]


def _guard_blocks(text: str, rel: str) -> list[Block]:
    out = []
    for first, code in _chunks(text):
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in READER_GUARDS \
                    and len(node.args) >= 2:
                msg = ast.get_source_segment(code, node.args[1]) or ""
                out.append(Block(first + node.lineno, f"{node.func.id}: {' '.join(msg.split())}", rel))
    return sorted(out, key=lambda b: b.line)


def _name_blocks(text: str, rel: str, read: Callable[[str], str | None]) -> list[Block]:
    classes = {m.group(1) for m in re.finditer(r"^class (\w+)", text, flags=re.M)}
    names_rel = (Path(rel).parent / "names.toml").as_posix()
    table = read(names_rel)
    if not classes or not table:
        return []
    out = []
    cls = None
    for i, ln in enumerate(table.splitlines(), 1):
        m = re.match(r"^\[names\.(\w+)\]", ln)
        if m:
            cls = m.group(1)
            continue
        m = re.match(r'^(\w+)\s*=\s*\{\s*en\s*=\s*"((?:[^"\\]|\\.)*)"', ln)
        if m and cls in classes:
            out.append(Block(i, f"name {cls}.{m.group(1)}: {m.group(2)}", names_rel))
    return out


# ---------------------------------------------------------------- front matter

def front_matter(text: str) -> dict[str, Any]:
    """The chapter's front matter as the parse reads it (:func:`bookbuild.source.front_matter_of`); {} when it
    is not valid YAML (the parse reports that, naming the line)."""
    try:
        return front_matter_of(text, "front matter")
    except BuildError:
        return {}


def translation_of(text: str) -> dict[str, Any] | None:
    meta = front_matter(text).get(FRONT_KEY)
    return meta if isinstance(meta, dict) else None


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def snapshot_path(root: Path, translated_rel: str) -> Path:
    return root / SNAPSHOTS / (translated_rel + ".source")


# ---------------------------------------------------------------- drift guard

def _word_diff(old: str, new: str) -> str:
    """A one-line diff of two paragraphs: the changed span, with a little context either side."""
    tok = re.compile(r"[\u3000-\u9fff\uff00-\uffef]|\S+|\s+")
    a, b = tok.findall(old), tok.findall(new)
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    ops = [op for op in sm.get_opcodes() if op[0] != "equal"]
    if not ops:
        return new[:SNIPPET]
    i1, j1 = ops[0][1], ops[0][3]
    i2, j2 = ops[-1][2], ops[-1][4]
    before = "".join(a[:i1])[-SNIPPET // 2:]
    after = "".join(a[i2:])[:SNIPPET // 2]
    return (f"…{before}[-{''.join(a[i1:i2])[:SNIPPET]}-]{{+{''.join(b[j1:j2])[:SNIPPET]}+}}{after}…"
            .replace("\n", " "))


def paragraph_changes(old: list[str], new: list[Block]) -> list[tuple[Block | None, str]]:
    """(the new block or None if removed, a one-line description) for every changed paragraph."""
    sm = difflib.SequenceMatcher(a=old, b=[b.text for b in new], autojunk=False)
    out: list[tuple[Block | None, str]] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        olds, news = old[i1:i2], new[j1:j2]
        for k in range(max(len(olds), len(news))):
            o = olds[k] if k < len(olds) else None
            n = news[k] if k < len(news) else None
            similar = (o is not None and n is not None
                       and difflib.SequenceMatcher(a=o, b=n.text, autojunk=False).ratio() >= 0.5)
            if similar:
                out.append((n, "changed: " + _word_diff(o, n.text)))
                continue
            if o is not None:
                out.append((n, "removed: " + o[:2 * SNIPPET] + ("…" if len(o) > 2 * SNIPPET else "")))
            if n is not None:
                out.append((n, "added: " + n.text[:2 * SNIPPET] + ("…" if len(n.text) > 2 * SNIPPET else "")))
    return out


def _file_text(root: Path) -> Callable[[str], str | None]:
    def text_of(rel: str) -> str | None:
        p = Path(root) / rel
        return read_text(p, rel) if p.is_file() else None
    return text_of


def check_drift(root: Path, translated: Path, text_of: Callable[[str], str | None] | None = None) -> list[BuildError]:
    """Errors if ``translated`` names a source whose prose changed since it was stamped. ``text_of``:
    the text of a chapter by its relative path (the build's parsed documents; default: the files)."""
    root = Path(root)
    text_of = text_of or _file_text(root)
    path = translated if translated.is_absolute() else root / translated
    rel = _rel(path, root)
    text = text_of(rel) or ""
    meta = translation_of(text)
    if meta is None:
        return []
    fm_line = 2
    src_rel = meta.get("path")
    if not isinstance(src_rel, str) or not src_rel:
        return [TranslationError(rel, fm_line, f"{FRONT_KEY} needs a 'path' naming the chapter it translates")]
    src_text = text_of(src_rel)
    if src_text is None:
        return [TranslationError(rel, fm_line, f"{FRONT_KEY} names {src_rel}, which does not exist")]
    blocks = reader_blocks(src_text, src_rel, lambda r: src_text if r == src_rel else _file_text(root)(r))
    now = hashlib.sha256("\n\n".join(b.text for b in blocks).encode("utf-8")).hexdigest()
    stamped = str(meta.get("sha256") or "")
    if stamped == now:
        return []
    fix = f"bring it up to date, then run: python -m bookbuild translated {rel}"
    snap = snapshot_path(root, rel)
    old: list[str] | None = None
    if snap.is_file():
        old_text = snap.read_text(encoding="utf-8")
        if hashlib.sha256(old_text.encode("utf-8")).hexdigest() == stamped:
            old = old_text.split("\n\n") if old_text else []
    if old is None:
        why = "was never stamped" if not re.fullmatch(r"[0-9a-f]{64}", stamped) else \
            f"is stale: {src_rel} changed since it was translated (no snapshot of the stamped text to diff)"
        return [StaleTranslation(rel, fm_line, f"translation of {src_rel} {why}; {fix}")]
    changes = paragraph_changes(old, blocks)
    errors: list[BuildError] = [StaleTranslation(
        rel, fm_line, f"translation is stale: {src_rel} changed since it was translated "
                      f"({len(changes)} paragraph(s) below); {fix}")]
    last = blocks[-1].line if blocks else 1
    for blk, desc in changes[:MAX_LISTED]:
        errors.append(StaleTranslation((blk.file or src_rel) if blk else src_rel, blk.line if blk else last,
                                       f"[for {rel}] {desc}"))
    if len(changes) > MAX_LISTED:
        errors.append(StaleTranslation(src_rel, None, f"[for {rel}] … and {len(changes) - MAX_LISTED} more"))
    return errors


def stamp(root: Path, translated: Path, source: str | None = None) -> tuple[str, str]:
    """Record the source's current prose hash in ``translated``'s front matter and its snapshot.
    Returns (old hash, new hash). Raises TranslationError on bad input."""
    root = Path(root)
    path = translated if translated.is_absolute() else root / translated
    rel = _rel(path, root)
    if not path.resolve().is_relative_to(root.resolve()):
        raise TranslationError(rel, None, "is outside the project: name a chapter of this book (or pass --root)")
    if not path.is_file():
        raise TranslationError(rel, None, "no such file")
    text = read_text(path, rel)
    meta = translation_of(text)
    src_rel = source or (meta or {}).get("path")
    if not src_rel:
        raise TranslationError(rel, None, f"has no {FRONT_KEY} front matter; pass --source <English chapter>")
    src = root / src_rel
    if not src.resolve().is_relative_to(root.resolve()):
        raise TranslationError(rel, None, f"{FRONT_KEY} names {src_rel}, which is outside the project: "
                                          "name the English chapter of this book it translates")
    if not src.is_file():
        raise TranslationError(rel, None, f"{FRONT_KEY} names {src_rel}, which does not exist")
    blocks = reader_blocks(read_text(src, src_rel), Path(src_rel).as_posix(), _file_text(root))
    joined = "\n\n".join(b.text for b in blocks)
    new = hashlib.sha256(joined.encode("utf-8")).hexdigest()
    old = str((meta or {}).get("sha256") or "")
    block = f"{FRONT_KEY}:\n  path: {src_rel}\n  sha256: {new}\n"
    lines = text.splitlines(keepends=True)
    end = front_matter_end([ln.rstrip("\n") for ln in lines])
    if end < 0:
        text = "---\n" + block + "---\n\n" + text
    else:
        fm = "".join(lines[1:end])
        key = re.compile(rf"^{re.escape(FRONT_KEY)}:.*?(?=^\S|\Z)", re.M | re.S)
        fm = key.sub(lambda _m: block, fm, count=1) if key.search(fm) else fm + block
        text = "---\n" + fm + "".join(lines[end:])
    path.write_text(text, encoding="utf-8", newline="\n")
    snap = snapshot_path(root, rel)
    snap.parent.mkdir(parents=True, exist_ok=True)
    snap.write_text(joined, encoding="utf-8", newline="\n")
    return old, new


# ---------------------------------------------------------------- glossary

@dataclass
class Term:
    en: str
    zh: str
    variants: list[str] = field(default_factory=list)


def load_glossary(root: Path) -> list[Term]:
    path = Path(root) / GLOSSARY
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise TranslationError(GLOSSARY, None, f"invalid TOML: {e}") from None
    terms = []
    for en, entry in (data.get("terms") or {}).items():
        if not isinstance(entry, dict) or not isinstance(entry.get("zh"), str):
            raise TranslationError(GLOSSARY, None, f"terms.{en!r} needs a zh = \"...\" string")
        variants = entry.get("variants", [])
        if not isinstance(variants, list) or not all(isinstance(v, str) and v for v in variants):
            raise TranslationError(GLOSSARY, None, f"terms.{en!r}: variants must be a list of strings")
        terms.append(Term(en, entry["zh"], variants))
    return terms


def term_hits(text: str, terms: list[Term]) -> list[tuple[int, str]]:
    """Where ``text`` writes a variant of a glossary term: (position, the message's words). The glossary's
    own form is never a variant, even when a variant is a substring of it."""
    hits = []
    for t in terms:
        if not any(v in text for v in t.variants):   # most terms: none of its variants is there at all
            continue
        hidden = text.replace(t.zh, "\0" * len(t.zh))
        for v in t.variants:
            hits += [(m.start(), f"glossary: '{v}' is a variant of '{t.en}'; write '{t.zh}'")
                     for m in re.finditer(re.escape(v), hidden)]
    return hits


def glossary_errors(text: str, relpath: str, terms: list[Term]) -> list[BuildError]:
    """A variant of a glossary term in the prose of a Chinese chapter (code, math, inline
    expressions, attributes and front matter are not prose)."""
    masked = scan(text).masked
    starts = line_starts(masked)
    errors = [TranslationError(relpath, line_of(starts, pos), f"{words} ({GLOSSARY.as_posix()})")
              for pos, words in term_hits(masked, terms)]
    return sorted(errors, key=lambda e: (e.line or 0, e.message))


def check_glossary(root: Path, chapter: Path, terms: list[Term] | None = None,
                   text_of: Callable[[str], str | None] | None = None) -> list[BuildError]:
    root = Path(root)
    path = chapter if chapter.is_absolute() else root / chapter
    terms = load_glossary(root) if terms is None else terms
    rel = _rel(path, root)
    return glossary_errors((text_of or _file_text(root))(rel) or "", rel, terms)


# ---------------------------------------------------------------- the book hook

def check_translations(root: Path, books: Iterable[Any], text_of: Callable[[str], str | None] | None = None
                       ) -> list[BuildError]:
    """The drift guard on every chapter that declares ``translation-of``, once per file across ``books``
    (the glossary and typography of every Chinese string: :mod:`.typography`)."""
    errors: list[BuildError] = []
    seen: set[str] = set()
    for book in books:
        for ch in book.chapters:
            rel = Path(ch.path).as_posix()
            if rel not in seen:
                seen.add(rel)
                errors += check_drift(root, Path(rel), text_of)
    return errors


def run_translated(args) -> int:
    """``python -m bookbuild translated FILE [--source EN] [--root .]`` (its options: :mod:`bookbuild.cli`):
    stamp a translation. A translation needs no book around it: a folder named with ``--root`` that holds no
    ``_quarto.yml`` is the project."""
    root = args.root
    target = args.file if args.file.is_absolute() else (Path.cwd() / args.file)
    try:
        old, new = stamp(root, target.resolve(), args.source)
    except BuildError as e:
        print(e.format(), file=sys.stderr)
        return 1
    rel = _rel(target, root)
    print(f"{rel}: {FRONT_KEY} sha256 {old[:12] or '(none)'} -> {new[:12]}"
          + (" (unchanged)" if old == new else ""))
    return 0


# ---------------------------------------------------------------- values quoted in a form of their own

@dataclass
class Localized:
    en: str             # the English attribute, e.g. StallBreakEven.stall_over_swap_words_str
    tr: str             # the translation's attribute, e.g. StallBreakEven.stall_over_swap_str
    scale: float = 1.0  # tr value × scale = en value (亿 -> billion: 0.1)
    compare: str = "number"   # "number": both show the same number; "text": a phrase each language words itself


def load_localized(root: Path) -> dict[str, Localized]:
    """``[values]`` of the glossary: English attribute -> the attribute the Chinese quotes instead."""
    path = Path(root) / GLOSSARY
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    out = {}
    for en, entry in (data.get("values") or {}).items():
        out[en] = Localized(en, entry["zh"], float(entry.get("scale", 1.0)), str(entry.get("compare", "number")))
    return out


def localized_values(root: Path) -> dict[str, str]:
    """English attribute -> the attribute the translation quotes in its place."""
    return {en: v.tr for en, v in load_localized(root).items()}
