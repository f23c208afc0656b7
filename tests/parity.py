"""Parity of a chapter and its translation: the chapter pairs of the book (read from the two profiles),
and what must match between an executed English chapter and its translation (structure, inline values;
the glossary's ``[values]`` declare the attributes one language quotes in a form of its own).
"""
import difflib
import re
from pathlib import Path

import yaml

from bookbuild.book.translation import Localized, load_localized  # noqa: F401 - the tests use both

ROOT = Path(__file__).resolve().parents[1]


def _chapters(profile_file: str) -> list[str]:
    book = yaml.safe_load((ROOT / profile_file).read_text(encoding="utf-8"))["book"]
    return list(book.get("chapters") or []) + list(book.get("appendices") or [])


def chapter_pairs() -> list[tuple[str, str]]:
    """(English chapter, Chinese chapter), position by position in _quarto-en.yml and _quarto-zh.yml."""
    en, zh = _chapters("_quarto-en.yml"), _chapters("_quarto-zh.yml")
    assert len(en) == len(zh), f"the English book has {len(en)} chapters, the Chinese {len(zh)}"
    return list(zip(en, zh))


_REF = re.compile(r"(?<![\w@])@((?:[Ss]ec|[Tt]bl|[Ee]q|[Ff]ig)-[\w-]*\w)")
_CITE = re.compile(r"(?<![\w@])@(?!(?:[Ss]ec|[Tt]bl|[Ee]q|[Ff]ig)-)([A-Za-z][\w]*\d{4}\w*)")
_LABEL = re.compile(r"\{#((?:sec|tbl|eq|fig)-[\w-]+)")


def structure(markdown: str) -> dict[str, list]:
    """What must match between a chapter and its translation: heading levels, labels (sections,
    tables, equations, figures) in order, cross-references in order, citations in order, the count
    of display equations, pipe tables and callouts."""
    body = re.sub(r"\A---\n.*?\n---\n", "\n", markdown, flags=re.S)   # front matter is not the chapter
    body = re.sub(r"```.*?```", " ", body, flags=re.S)
    body = re.sub(r"<!--.*?-->", " ", body, flags=re.S)
    lines = body.splitlines()
    return {
        "headings": [len(m.group(1)) for m in (re.match(r"^(#{1,6})\s", ln) for ln in lines) if m],
        "labels": _LABEL.findall(body),
        "references": [r.lower() for r in _REF.findall(body)],
        "citations": _CITE.findall(body),
        "display_math": [len(re.findall(r"\$\$", body)) // 2],
        "table_rows": [sum(1 for ln in lines if ln.lstrip().startswith("|"))],
        "callouts": re.findall(r"^:::\s*\{\.(callout-\w+)", body, flags=re.M),
        # a figure's static file is drawn in each language: figures/x.en.svg is figures/x.zh.svg
        "images": [re.sub(r"\.(en|zh)(\.\w+)$", r"\2", p) for p in re.findall(r"!\[[^\n]*?\]\(([^)\s]+)", body)],
    }


def compare_structure(en_md: str, tr_md: str) -> list[str]:
    a, b = structure(en_md), structure(tr_md)
    out = []
    for key in a:
        if a[key] != b[key]:
            out.append(f"{key} differ: {a[key]} vs {b[key]}")
    return out


_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
_FRACTIONS_EN = {"half": 1 / 2, "third": 1 / 3, "quarter": 1 / 4, "fifth": 1 / 5, "sixth": 1 / 6,
                 "eighth": 1 / 8, "tenth": 1 / 10}
_FRACTIONS_ZH = {"一半": 1 / 2, "三分之一": 1 / 3, "四分之一": 1 / 4, "五分之一": 1 / 5, "六分之一": 1 / 6,
                 "八分之一": 1 / 8, "十分之一": 1 / 10}


def quoted_number(s: str) -> float | None:
    """The number a quoted value shows: digits ("1,333", "21.3"), English words ("Twenty-two",
    "a sixth") or a Chinese fraction ("一半"); None if it is none of these."""
    t = s.strip().lower()
    if re.fullmatch(r"-?[\d,]+(?:\.\d+)?", t):
        return float(t.replace(",", ""))
    if s.strip() in _FRACTIONS_ZH:
        return _FRACTIONS_ZH[s.strip()]
    t = re.sub(r"^(a|an)\s+", "", t)
    if t in _FRACTIONS_EN:
        return _FRACTIONS_EN[t]
    if t in _WORDS:
        return float(_WORDS[t])
    m = re.fullmatch(r"([a-z]+)(?:-([a-z]+))?", t)
    if m and m.group(1) in _TENS and (m.group(2) is None or m.group(2) in _WORDS):
        return float(_TENS[m.group(1)] + (_WORDS[m.group(2)] if m.group(2) else 0))
    return None


def compare_inline(en: list[tuple[str, str]], tr: list[tuple[str, str]],
                   localized: dict[str, Localized]) -> list[str]:
    """Same inline values in the same order: ``en`` and ``tr`` are (expression, value) sequences.
    A localized English attribute must meet its declared counterpart, and the two must show the same
    number (English words against digits, billions against 亿)."""
    want = [localized[e].tr if e in localized else e for e, _ in en]
    got = [e for e, _ in tr]
    problems = []
    if want != got:
        sm = difflib.SequenceMatcher(a=want, b=got, autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op != "equal":
                problems.append(f"{op} at English #{i1}/translation #{j1}: {want[i1:i2][:4]} vs {got[j1:j2][:4]}")
        return problems
    for (e, v_en), (t, v_tr) in zip(en, tr):
        if e in localized and localized[e].compare == "text":
            continue
        if e in localized:
            a, b = quoted_number(v_en), quoted_number(v_tr)
            if a is None or b is None or abs(a - b * localized[e].scale) > 1e-9 * max(abs(a), 1):
                problems.append(f"{e} = {v_en!r} does not show the number of {t} = {v_tr!r}")
        elif v_en != v_tr:
            problems.append(f"{e}: {v_en!r} vs {v_tr!r}")
    return problems
