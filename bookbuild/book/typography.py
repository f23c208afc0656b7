"""The Chinese book's terms and typography, in every Chinese string a reader sees, not only prose.

The data is ``notes/glossary.toml``: ``[terms]`` (one Chinese form per term and the variants to refuse),
``[typography]`` (one percent style, full-width brackets, no untranslated words, Chinese clock times,
unit symbols after numbers, 亿 for large counts, no colliding citation years) and ``[titles]`` (other chapters' Chinese titles,
only ever inside 《…》). The strings: the Chinese chapters' prose, captions, alt text and tables; every
Chinese figure label (``mlsysim/figures``); the measurements table; the explorer; the hover names
(the ``names.toml`` beside the cells); the guards' Chinese messages (``zh=`` in the cells). Each finding is one
line naming the file and line.
"""
from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import BuildError
from ..text import line_of, line_starts, scan
from .translation import GLOSSARY, Term, TranslationError, term_hits

CJK = re.compile(r"[\u4e00-\u9fff]")
RULES = ("percent_forbidden", "brackets_forbidden", "untranslated_forbidden", "time_forbidden",
         "time_unit_forbidden", "number_units_forbidden", "citation_forbidden")


@dataclass(frozen=True)
class Text:
    """A string a reader sees, and where it is written."""
    file: str
    line: int
    text: str


def load(root: Path) -> dict:
    p = Path(root) / GLOSSARY
    return tomllib.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}


def chapter_texts(rel: str, text: str) -> list[Text]:
    """A chapter's prose, captions and tables as a reader reads them, line by line; an inline value keeps
    a backtick (the percent rule reads "`x` %")."""
    sc = scan(text)
    buf = list(sc.masked)
    starts = line_starts(text)
    for ip in sc.inline:   # the value's place: one backtick where the expression was
        a = starts[ip.line - 1] + ip.col
        b = text.index("`", text.index("{python}", a)) + 1
        buf[a] = "`"
        buf[a + 1:b] = ["\x01"] * (b - a - 1)
    masked = "".join(buf).replace("\x01", "")
    return [Text(rel, i, ln) for i, ln in enumerate(masked.split("\n"), start=1) if CJK.search(ln) or "`" in ln]


def _literal(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


def code_texts(rel: str, source: str, calls: tuple[str, ...] = ("T",)) -> list[Text]:
    """Chinese literals of Python code: second arguments of ``T(en, zh)``, ``zh=`` keywords, values of
    ``*_ZH`` dicts (the constant parts of f-strings)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in calls and len(node.args) >= 2 and _literal(node.args[1]) is not None:
                out.append(Text(rel, node.lineno, _literal(node.args[1])))
            out += [Text(rel, node.lineno, _literal(kw.value)) for kw in node.keywords
                    if kw.arg == "zh" and _literal(kw.value) is not None]
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "").endswith("_ZH") for t in node.targets):
            out += [Text(rel, v.lineno, _literal(v)) for v in getattr(node.value, "values", []) if _literal(v) is not None]
    return [t for t in out if CJK.search(t.text)]


def _strings(obj) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)


def library_texts(lib: Path) -> list[Text]:
    """The library's Chinese strings: figure labels, the measurements table, the explorer."""
    out = []
    for f in sorted((lib / "figures").glob("*.py")):
        out += code_texts(f"{lib.name}/figures/{f.name}", f.read_text(encoding="utf-8"))
    from mlsysim.explorer import TEXT
    from mlsysim.measurements import TABLE_TEXT, table_markdown
    out += [Text(f"{lib.name}/measurements.py", 1, s) for s in _strings(TABLE_TEXT["zh"])]
    out += [Text(f"{lib.name}/measurements.py", 1, re.sub(r"\[@[^\]]+\]", " ", table_markdown(lang="zh")))]
    out += [Text(f"{lib.name}/explorer.py", 1, s) for s in _strings(TEXT["zh"])]
    out += generated_table_texts(lib)
    return [t for t in out if CJK.search(t.text)]


def generated_table_texts(lib: Path) -> list[Text]:
    """The Chinese cells the library composes for its tables, as a reader sees them: the explorer's static
    table (the PDF's and EPUB's stand-in) and every displayed value of one reference choice in each of its
    states (the values, no node for the accelerator, a pool the weights leave empty), so a composed cell such
    as "0（放不下）" meets the same rules as the prose."""
    import dataclasses

    from mlsysim.explorer import static_table_markdown
    from mlsysim.reference import display_values
    from mlsysim.registry import Hardware
    from mlsysim.reference import scenario_values
    from mlsysim.scenario import scenario

    rel = f"{lib.name}/reference.py"
    out = [Text(f"{lib.name}/explorer.py", 1, static_table_markdown(lang="zh"))]
    accel = next(iter(Hardware.Cloud))
    rv = scenario_values(scenario(accel.name))
    for state in (rv, dataclasses.replace(rv, node=None),
                  dataclasses.replace(rv, node_kv_pool_bytes=0.0, resident_trajectories=0)):
        out.append(Text(rel, 1, " | ".join(display_values(state, accel, "zh").values())))
    return out


def name_texts(root: Path, cell_files: list[str]) -> list[Text]:
    """The Chinese names of the values, from the names table beside each of ``cell_files`` (relative to
    ``root``), each at its line."""
    from .provenance import NAMES_BESIDE
    out: list[Text] = []
    for folder in sorted({Path(f).parent.as_posix() for f in cell_files}):
        rel = f"{folder}/{NAMES_BESIDE}" if folder != "." else NAMES_BESIDE
        p = Path(root) / rel
        if not p.is_file():
            continue
        text = p.read_text(encoding="utf-8")
        for i, line in enumerate(text.splitlines(), 1):
            m = re.search(r'\bzh\s*=\s*"((?:[^"\\]|\\.)*)"', line)
            if m:
                out.append(Text(rel, i, m.group(1)))
    return out


def typography_hits(text: str, typo: dict) -> list[str]:
    hits = []
    for key in RULES:
        for pat in typo.get(key, []):
            for m in re.finditer(pat, text):
                hits.append(f"typography ({key[:-len('_forbidden')]}): {text[max(0, m.start() - 12):m.end() + 12].strip()!r}")
    return hits


def title_hits(text: str, titles: dict) -> list[str]:
    """Another chapter's Chinese title outside 《…》."""
    hits = []
    for zh in titles.values():
        if zh not in text:
            continue
        for m in re.finditer(re.escape(zh), text):
            if not (text[:m.start()].endswith("《") and text[m.end():].startswith("》")):
                hits.append(f"typography (title): '{zh}' is another chapter's title: write 《{zh}》")
    return hits


def check(texts: list[Text], data: dict, terms: list[Term]) -> list[BuildError]:
    errors: list[BuildError] = []
    for t in texts:
        for h in ([w for _, w in term_hits(t.text, terms)] + typography_hits(t.text, data.get("typography", {}))
                  + title_hits(t.text, data.get("titles", {}))):
            errors.append(TranslationError(t.file, t.line, h + f" ({GLOSSARY.as_posix()})"))
    return errors


__all__ = ["Text", "chapter_texts", "check", "code_texts", "library_texts", "load", "name_texts", "line_of"]
