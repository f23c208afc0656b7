"""The house in figures, for this checkout or another (an older commit checked out elsewhere), so a
change of structure can be shown before and after with one command:

    python bench/house.py graph [--root DIR]      # rooms, lines, import arrows, cycles, local imports
    python bench/house.py trace [--root DIR]      # one chapter followed through the execute pass

A *room* is a subpackage (``bookbuild/render``) or a top-level module (``bookbuild/cache.py``) of
``bookbuild`` and ``mlsysim``; an *arrow* is one room importing another (any import statement, a
function-local one included). ``trace`` copies DIR's committed sources to a temporary folder, runs
``check --profile en --no-cache`` there in this process under a profiler hook, and records, while the
execute pass (``bookbuild/passes/execute.py`` ``run``) is on the stack, which module of DIR each call and
return lands in: a *stay* is a run of events in one module, a *return* a stay in a module already left
once. (The chapter's cells run in worker processes, which are not followed; this is the engine's side.)
Nothing here is asserted: it prints figures for bench/results.md.
"""
from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from sourcegraph import PACKAGES, function_local_imports, imported, modules  # noqa: E402 - this checkout's reader


def _room(module: str, root: Path) -> str:
    parts = module.split(".")
    if len(parts) > 1 and (root / parts[0] / parts[1]).is_dir():
        return "/".join(parts[:2])
    return "/".join(parts) + (".py" if len(parts) > 1 else "/__init__.py")


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one room (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def graph(root: Path) -> None:
    mods = modules(root)
    lines, arrows, local = Counter(), {}, 0
    for name, path in mods.items():
        text = path.read_text(encoding="utf-8")
        room = _room(name, root)
        lines[room] += text.count("\n")
        tree = ast.parse(text)
        got = imported(name, path, ast.walk(tree))
        local += function_local_imports(tree)
        # importing a submodule runs its package first: that is no arrow of the code's ideas
        targets = {_room(m, root) for m in got if m in mods and not name.startswith(m + ".")} - {room}
        arrows.setdefault(room, set()).update(targets)
    for pkg in PACKAGES:
        rooms = sorted(r for r in lines if r.startswith(pkg + "/"))
        print(f"{pkg}: {len(rooms)} rooms, {sum(1 for m in mods if m.split('.')[0] == pkg)} modules, "
              f"{sum(lines[r] for r in rooms):,} lines")
        for r in rooms:
            print(f"  {r:34} {lines[r]:6,} lines  -> {', '.join(sorted(arrows.get(r, ()))) or '-'}")
    print(f"arrows between rooms: {sum(len(v) for v in arrows.values())}; function-local imports: {local}; "
          f"import cycles between rooms: {_cycles(arrows) or 'none'}")


def _copy_sources(src: Path, dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files"], cwd=src, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if (src / f).is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / f, dest / f)
    return dest


def trace(root: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="house-") as tmp:
        book = _copy_sources(root, Path(tmp) / "book")
        sys.path.insert(0, str(book))
        os.environ.setdefault("MPLBACKEND", "Agg")
        from bookbuild.__main__ import main
        engine = str(book / "bookbuild") + os.sep
        execute_pass = str(book / "bookbuild" / "passes" / "execute.py")
        stays, depth = [], [0]
        lock = threading.Lock()

        def hook(frame, event, arg):
            if event not in ("call", "return"):
                return
            f = frame.f_code.co_filename
            if f == execute_pass and frame.f_code.co_name == "run":
                depth[0] += 1 if event == "call" else -1
            elif event == "call" and depth[0] and f.startswith(engine):
                room = os.path.relpath(f, book)
                with lock:
                    if not stays or stays[-1] != room:
                        stays.append(room)
        threading.setprofile(hook)
        sys.setprofile(hook)
        try:
            code = main(["check", "--profile", "en", "--no-cache", "--root", str(book)])
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    seen, returns = set(), 0
    for i, room in enumerate(stays):
        returns += room in seen and stays[i - 1] != room
        seen.add(room)
    print(f"check exit {code}; the execute pass, engine side: {len(stays)} stays in {len(seen)} modules, "
          f"{returns} returns to a module already left")
    for room, n in Counter(stays).most_common():
        print(f"  {n:5} stays  {room}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/house.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("graph", "trace"))
    ap.add_argument("--root", type=Path, default=ROOT, help="a checkout of the project (default: this one)")
    a = ap.parse_args(argv)
    root = a.root.resolve()
    if not (root / "bookbuild").is_dir():
        ap.error(f"--root {a.root}: no bookbuild/ there")
    (graph if a.what == "graph" else trace)(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
