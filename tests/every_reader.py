"""The pages every reader gets, read without a browser: each chapter that computes for the reader (the
choice bar's registry choices, live mode's free inputs) run for one choice through the code the build's
variants and the browser's live mode run (``bookbuild.book.live.runtime``), and its prose read back with
that choice's values in place of the reference's, sentence by sentence, in each language.

:func:`problems` lists what a reader of that page would be told that is false or unmarked:

- the choice cannot be computed for a reason the page cannot say in one sentence (an error that is not
  a known kind), or a value holds an internal message (an exception's name, "nan", "inf", "None");
- an author's pin fails (a pin is an identity of the code and holds for every choice; a seed's value at
  the reference is a ``pin_seed``);
- a claim fails and the page cannot mark it (it protects no value the chapter quotes);
- "reference" (参考) in a sentence, table or caption beside a value computed for another choice, or in a
  sentence about a figure that live mode redrew for the choice;
- a value whose words disagree with its number (:data:`PROBES`).

Chapters and choices come from the book's profiles and the library's declared choice space, never from a
list kept here.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bookbuild.book import live as L
from bookbuild.book.live import runtime as R
from bookbuild.book.variants import cell_records, chapter_process, choices, keep, not_offered, space_module
from bookbuild.project import load_book, profiles
from bookbuild.source import Document, parse
from bookbuild.text import INLINE_CODE, INLINE_PY

ROOT = Path(__file__).resolve().parents[1]
DATA, LIBRARY = ROOT / "mlsysim" / "data", ROOT / "mlsysim"


@dataclass(frozen=True)
class Chapter:
    path: str          # relative to the root
    lang: str
    profile: str
    kind: str          # "appendix" (the choice bar and live mode) or "lecture" (live mode)
    doc: Document = field(compare=False, hash=False, repr=False)
    variants: bool = False


@functools.lru_cache(maxsize=1)
def chapters() -> tuple[Chapter, ...]:
    """Every chapter of every book whose cells read the reader's scenario, from the profiles."""
    from bookbuild.book.variants import wanted
    out = []
    for profile in profiles(ROOT):
        book = load_book(ROOT, profile)
        for ch in book.chapters:
            doc = parse(ROOT / ch.path, ROOT)
            kind = L.chapter_kind(cell_records(doc, keep))
            if kind is not None:
                out.append(Chapter(ch.path.as_posix(), book.lang, profile, kind, doc, wanted(doc)))
    return tuple(out)


def registry_choices() -> list[dict[str, str]]:
    """The choice space the choice bar offers (accelerator × model × weight precision)."""
    return choices(DATA, LIBRARY)


def reference_precision() -> str:
    return space_module(LIBRARY).read(DATA).reference["precision"]


def run(ch: Chapter, choice: dict, *, figures: bool = False) -> dict:
    """The chapter's cells for ``choice`` in this process, as a variant (``figures``: then live mode's figure
    cells too, whose ``*_str`` values follow the choice only where live mode redraws)."""
    cells = cell_records(ch.doc, keep)
    with chapter_process(ch.doc, ROOT):
        res, module = R.run_choice(cells, choice, root=str(ROOT), precision=reference_precision(), profile=ch.profile)
        if figures and module is not None:
            figs = [dict(c, figure=c["label"]) for c in cell_records(ch.doc, L.figure_cell)]
            out = R.figures(module, figs, choice, ch.lang, root=str(ROOT), precision=reference_precision(),
                            profile=ch.profile)
            res["figure_keys"] = sorted(out["figures"])
            res["figure_failed"] = out["failed"]
            res["figure_pins"] = out.get("pins", [])
            res["values"] = dict(res["values"], **out.get("values", {}))
    return res


# ───────────────────────────── the prose, unit by unit ─────────────────────────────

@dataclass(frozen=True)
class Unit:
    """What a reader reads as one piece: a sentence, a table with its caption, a figure's caption or alt."""
    kind: str          # "sentence", "table", "caption"
    text: str          # with the inline expressions still in it
    file: str
    line: int

    @property
    def attrs(self) -> list[str]:
        return [pm.group("expr").strip() for m in INLINE_CODE.finditer(self.text)
                for pm in [INLINE_PY.match(m.group(2).strip())] if pm]


SENTENCE_END = {"en": re.compile(r"(?<=[.!?])\s+(?=[A-Z@*`(\"“])"), "zh": re.compile(r"(?<=[。！？])")}
CAPTION_OPTIONS = ("fig-cap", "tbl-cap", "fig-alt")


@functools.lru_cache(maxsize=None)
def units(ch: Chapter) -> tuple[Unit, ...]:
    """The chapter's prose as units: each paragraph's sentences, each table (rows and caption) whole, and the
    cells' captions and alt texts."""
    doc, out = ch.doc, []
    code = doc.code_lines
    block: list[tuple[str, int, str]] = []

    def flush() -> None:
        if not block:
            return
        file, line = block[0][0], block[0][1]
        lines = [t for _, _, t in block]
        if any(t.lstrip().startswith("|") for t in lines):
            out.append(Unit("table", "\n".join(lines), file, line))
        else:
            text = " ".join(t.strip() for t in lines)
            for s in SENTENCE_END[ch.lang].split(text):
                if s.strip():
                    out.append(Unit("sentence", s.strip(), file, line))
        block.clear()
    for i, (t, o) in enumerate(zip(doc.lines, doc.origins)):
        if i in code or not t.strip() or t.lstrip().startswith((":::", "{{<")):
            flush()
            continue
        if t.lstrip().startswith("#"):
            flush()
            continue
        block.append((o.file, o.line, t))
    flush()
    for c in doc.cells:
        for k in CAPTION_OPTIONS:
            v = c.options.get(k)
            if v:
                out.append(Unit("caption", str(v), c.head.file, c.head.line))
    return tuple(out)


def inline_values(text: str, values: dict[str, str], reference: dict[str, str]):
    """Each inline expression of ``text`` that reads an attribute: ``(match, attr, value)``, the value the
    choice's (the reference's where the choice has none: a reference-only value)."""
    for m in INLINE_CODE.finditer(text):
        pm = INLINE_PY.match(m.group(2).strip())
        if pm:
            attr = pm.group("expr").strip()
            yield m, attr, values.get(attr, reference.get(attr, ""))


def fill(text: str, values: dict[str, str], reference: dict[str, str]) -> tuple[str, bool]:
    """``text`` with each inline expression replaced by the choice's value; and whether any value differs
    from the reference's."""
    out, at, changed = [], 0, False
    for m, attr, v in inline_values(text, values, reference):
        out += [text[at:m.start()], v]
        at = m.end()
        changed = changed or v != reference.get(attr, v)
    return "".join(out) + text[at:], changed


HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z0-9]")
FULL_WIDTH = re.compile(r"[，。、；：！？（）《》“”]")


def unspaced(text: str, values: dict[str, str], reference: dict[str, str]) -> list[str]:
    """Where a value meets a Chinese character of the prose with no space between them and one of the two is a
    Latin letter or digit ("对于AMD", "有37%"): the book's Chinese sets one space there, as the prose does."""
    out = []
    for m, attr, v in inline_values(text, values, reference):
        before, after = text[m.start() - 1:m.start()], text[m.end():m.end() + 1]
        if v and ((HAN.match(before) and LATIN.match(v[0])) or (LATIN.match(before) and HAN.match(v[0]))
                  or (HAN.match(after) and LATIN.match(v[-1])) or (LATIN.match(after) and HAN.match(v[-1]))
                  or (v[-1] == "%" and HAN.match(after))):
            out.append(f"{before}“{v}”{after} ({attr})")
        elif v and ((v[0] == " " and FULL_WIDTH.match(before)) or (v[-1] == " " and FULL_WIDTH.match(after))):
            out.append(f"{before}“{v}”{after}: a space beside full-width punctuation ({attr})")
    return out


# ───────────────────────────── what a reader would be told ─────────────────────────────

REFERENCE_WORD = {"en": re.compile(r"\breference\b", re.I), "zh": re.compile(r"参考(?!文献)")}
INTERNAL = re.compile(r"Error\b|Traceback|not a simple|\bnan\b|\binf\b|\bNone\b|InvalidOperation")
#: the kinds of error a page can say in one sentence (bookbuild/book/assets/reader.js: plainError)
SAYABLE_ERRORS = (re.compile(r"the weights and reserve \(.*\) do not fit in"),
                  re.compile(r"^InputError: \w+: "))   # an input refused in one line naming it (live mode's check)
FIGURE_REF = re.compile(r"@fig-([\w-]+)", re.I)


def problems(ch: Chapter, res: dict, ref: dict, *, live: bool = False,
             probes: list[Callable] | None = None, choice: dict | None = None) -> list[str]:
    """What the reader of ``ch`` computed as ``res`` (the reference's run: ``ref``) would be told falsely."""
    where = f"{ch.path} [{ch.lang}] {choice or res.get('choice')}"
    if "error" in res:
        if not any(p.search(res["error"]) for p in SAYABLE_ERRORS):
            return [f"{where}: cannot be computed, and the page cannot say why in a sentence: {res['error']}"]
        return []
    out = [f"{where}: pin {p['file']}:{p['line']} fails: {p['message']}" for p in res.get("pins", [])]
    values, reference = res["values"], ref["values"]
    for attr, v in values.items():
        if INTERNAL.search(v):
            out.append(f"{where}: {attr} reads {v!r}")
    quoted = {a for u in units(ch) for a in u.attrs}
    guard_map = guard_targets(ch)
    for g in res.get("failed", []):
        protects = guard_map.get((g["file"], g["line"]), [])
        if not set(protects) & quoted:
            out.append(f"{where}: claim {g['file']}:{g['line']} fails and marks nothing: {g['message']}")
    redrawn = {k.rsplit("/", 1)[-1] for k in res.get("figure_keys", [])}
    for u in units(ch):
        text, changed = fill(u.text, values, reference)
        says_ref = REFERENCE_WORD[ch.lang].search(text)
        if says_ref and changed:
            out.append(f"{where}: {u.file}:{u.line} says “reference” beside another choice's value: {text[:300]}")
        elif says_ref and live and any(_figure_key(f) in redrawn for f in FIGURE_REF.findall(u.text)):
            out.append(f"{where}: {u.file}:{u.line} says “reference” of a figure drawn for the choice: {text[:300]}")
        if ch.lang == "zh":
            for hit in unspaced(u.text, values, reference):
                out.append(f"{where}: {u.file}:{u.line}: a Chinese character meets a Latin one with no space: {hit}")
        for probe in probes or ():
            said = probe(ch, text, res, choice or {})
            if said:
                out.append(f"{where}: {u.file}:{u.line}: {said}: {text[:300]}")
    return out


def _figure_key(label: str) -> str:
    return label.lower()


@functools.lru_cache(maxsize=None)
def _guard_targets(path: str, lang: str) -> dict:
    from bookbuild.book.provenance import explain_cell
    ch = next(c for c in chapters() if c.path == path and c.lang == lang)
    out = {}
    for cell in cell_records(ch.doc, keep):
        for g in explain_cell(cell["code"], {}, first_line=cell["line"], file=cell["file"])["guards"]:
            out[(g["file"], g["line"])] = g["protects"]
    return out


def guard_targets(ch: Chapter) -> dict:
    """(file, line) of each guard of the chapter's cells -> the ``*_str`` it protects (as the page maps it)."""
    return _guard_targets(ch.path, ch.lang)


__all__ = ["Chapter", "chapters", "registry_choices", "run", "units", "fill", "problems", "not_offered"]
