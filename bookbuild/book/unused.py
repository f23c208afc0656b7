"""Every ``*_str`` a cell class defines is quoted (the LEGO rule "OUTPUT holds only what the prose quotes").

Static: nothing runs. Shared cells serve every language, so the check spans the chapters every profile
lists: a ``*_str`` their cells define must be quoted by one of them (inline ```{python} Cls.x_str```),
read by a cell, or stand for a value another language quotes in its own form (``notes/glossary.toml``'s
``[values]``: the English ``params_class_b_str`` and the Chinese ``params_class_yi_str`` are one value),
so a chapter dropped from one profile's list does not orphan the values its translation still quotes.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..errors import UnusedStrError
from ..execute import cells_signature
from ..source import Document


@dataclass(frozen=True)
class StrAttr:
    cls: str
    attr: str
    file: str
    line: int

    @property
    def name(self) -> str:
        return f"{self.cls}.{self.attr}"


def cell_facts(doc: Document) -> tuple[list[StrAttr], set[str]]:
    """The ``*_str`` attributes the document's cells define, and the ``Name.attr`` reads in its code."""
    strs: list[StrAttr] = []
    refs: set[str] = set()
    for cell in doc.cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                strs += _class_strs(node, cell.body.file)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                refs.add(f"{node.value.id}.{node.attr}")
    return strs, refs


def _class_strs(node: ast.ClassDef, file: str) -> list[StrAttr]:
    out = []
    for st in node.body:
        targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
        for t in targets:
            for nm in ast.walk(t):
                if isinstance(nm, ast.Name) and nm.id.endswith("_str"):
                    out.append(StrAttr(node.name, nm.id, file, nm.lineno))
    return out


def _facts_shape(got: Any) -> bool:
    return (isinstance(got, dict) and isinstance(got.get("refs"), list) and all(isinstance(r, str) for r in got["refs"])
            and isinstance(got.get("strs"), list)
            and all(isinstance(s, list) and len(s) == 4 and all(isinstance(x, str) for x in s[:3]) and type(s[3]) is int
                    for s in got["strs"]))


def kept_cell_facts(doc: Document, memo: Callable | None) -> tuple[list[StrAttr], set[str]]:
    """:func:`cell_facts`, kept by ``memo`` (:meth:`bookbuild.checks.CheckContext.memo`) under the cells'
    signature: a prose edit does not parse every cell again (an entry of another shape is parsed again)."""
    if memo is None:
        return cell_facts(doc)

    def facts() -> dict[str, Any]:
        strs, refs = cell_facts(doc)
        return {"strs": [[s.cls, s.attr, s.file, s.line] for s in strs], "refs": sorted(refs)}
    got = memo("cell-facts", [cells_signature(doc)], facts, _facts_shape)
    return [StrAttr(*s) for s in got["strs"]], set(got["refs"])


def unused_strs(profiles: list[str], docs: Iterable[Document], localized: dict[str, str],
                memo: Callable | None = None) -> list[UnusedStrError]:
    """``localized``: English attribute -> the attribute the other language quotes in its place."""
    defined: dict[str, StrAttr] = {}
    used: set[str] = set()
    for doc in docs:
        strs, refs = kept_cell_facts(doc, memo)
        for s in strs:
            defined.setdefault(s.name, s)
        used.update(u.expr.strip() for u in doc.inline)
        used.update(refs)
    twins = {a: b for a, b in localized.items()} | {b: a for a, b in localized.items()}
    errors = []
    for name in sorted(defined, key=lambda n: (defined[n].file, defined[n].line)):
        if name in used or twins.get(name) in used:
            continue
        s = defined[name]
        errors.append(UnusedStrError(
            s.file, s.line, f"{name} is never quoted by any chapter ({', '.join(profiles)}): quote it with "
                            f"`{{python}} {name}` where the prose needs it, or delete it"))
    return errors
