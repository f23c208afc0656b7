"""The project's modules and what each imports, read as text (``ast``): one reader for the rules that read
the project's source (tests/unit: the structure rules, the library's error codes, the cell core's imports)
and the house's figures (bench/house.py, which reads other checkouts too)."""
from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

PACKAGES = ("bookbuild", "mlsysim")


@lru_cache(maxsize=None)
def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every syntax node of one source file, parsed and walked once a process for every rule that reads
    them (none changes them)."""
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def modules(root: Path) -> dict[str, Path]:
    """Each module of :data:`PACKAGES` under ``root`` by its dotted name (a package by its own name)."""
    out = {}
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*.py")):
            parts = list(p.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = p
    return out


def imported(name: str, path: Path, nodes: Iterable[ast.AST]) -> set[str]:
    """Every module name the module ``name`` (at ``path``, whose syntax nodes are ``nodes``) imports, wherever
    the import stands (relative imports resolved; ``from x import y`` also names x.y, which is a module when
    y is one)."""
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def function_local_imports(tree: ast.Module) -> int:
    """How many import statements of ``tree`` stand inside a function."""
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return len({id(m) for f in funcs for m in ast.walk(f) if isinstance(m, (ast.Import, ast.ImportFrom))})
