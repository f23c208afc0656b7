"""``python -m bookbuild diff [GIT_REF]``: what a change does to the book's numbers, before committing.

Builds the sources at ``GIT_REF`` (default ``HEAD``, extracted once into ``_build/diff/<commit>/``)
and the work tree, both through the content cache (the two share it: a chapter whose inputs did not
change is not executed again), and lists, for every book:

- every inline value whose text changed: the chapter file and line where the work tree quotes it,
  the attribute, ``old → new``; values quoted only on one side are listed as added or removed;
- every guard whose result changed (held → fails, or fails → holds), with its message.

It exits 1 when a guard now fails or a chapter of the work tree does not execute (what ``check`` would
refuse), 0 otherwise; ``--exit-zero`` keeps 0 (a listing only).

Guards are recorded rather than raised for this (the build's ``facts`` run), so a change that breaks a
claim still shows every number it moved, and the claim it broke. A chapter the build's cache does not hold
runs for its numbers alone: its figures are described, their static SVGs not drawn (matplotlib is most of a
chapter's time), and the run is cached under a key of its own, which a build never takes.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tarfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from .. import procs
from ..cache import tree_digest
from ..errors import BuildError


def git(root: Path, *args: str, binary: bool = False):
    try:
        r = procs.run(["git", "-C", str(root), *args])
    except OSError as e:
        raise BuildError(None, None, f"cannot run git: {e.strerror}") from None
    if r.returncode != 0:
        err = r.stderr.decode("utf-8", "replace")
        raise BuildError(None, None, f"git {' '.join(args)}: {' '.join(err.split()) or 'failed'}")
    return r.stdout if binary else r.stdout.decode("utf-8", "replace")


def checkout(root: Path, ref: str) -> tuple[str, Path]:
    """The sources at ``ref``, extracted (once) into ``_build/diff/<commit>/``."""
    sha = git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    dest = Path(root) / "_build" / "diff" / sha
    if not (dest / ".complete").is_file():
        data = git(root, "archive", "--format=tar", sha, binary=True)
        tmp = dest.with_name(sha + ".tmp")
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(tmp, filter="data")
        (tmp / ".complete").write_text(sha + "\n", encoding="utf-8")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    return sha, dest


def this_bookbuild(root: Path) -> Path:
    """A folder holding a copy of THIS bookbuild and nothing else: both sides are built by today's
    build code, each with its own tree's chapters and ``mlsysim``."""
    here = Path(__file__).resolve().parents[1]
    dest = Path(root) / "_build" / "diff" / ".tool" / tree_digest(here)[:16]
    if not (dest / "bookbuild" / "__init__.py").is_file():
        tmp = dest.with_name(dest.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(here, tmp / "bookbuild", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(tmp, dest)
    return dest


def facts(tree: Path, profile: str, cache_dir: Path, tool: Path) -> dict:
    """Inline values and guards of every chapter, built in ``tree`` by a fresh process (so the
    tree's own ``mlsysim`` is the one imported) running the bookbuild copied to ``tool``."""
    boot = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
            "from bookbuild.__main__ import as_command; as_command(sys.argv[1:])")
    r = procs.run([sys.executable, "-c", boot, str(tool), "facts", "--root", str(tree), "--profile", profile,
                   "--cache-dir", str(cache_dir), "--with-parent", str(os.getpid())], cwd=str(tree), polite=True)
    if r.returncode != 0:
        lines = [ln for ln in r.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        raise BuildError(None, None, f"building {tree} failed: " + (" | ".join(lines[-3:]) or f"exit {r.returncode}"))
    return json.loads(r.stdout.decode("utf-8"))


def facts_of(build) -> dict:
    """Every chapter's inline values and recorded guards (a :class:`bookbuild.passes.Build` run with
    ``facts=True``); a chapter that does not execute is reported with its error."""
    out: dict = {}
    for book in build.books:
        chapters: dict = {}
        by_path = {ec.source.as_posix(): ec for ec in build.executed.get(book.profile, [])}
        for ch in book.chapters:
            src = ch.path.as_posix()
            ec = by_path.get(src)
            if ec is None:
                err = build.failures.get(f"{book.profile}:{src}")
                chapters[src] = {"inline": [], "guards": [], "error": err.format() if err else "did not run"}
                continue
            chapters[src] = {
                "inline": [{"expr": u.expr.strip(), "file": u.file, "line": u.line, "value": u.value} for u in ec.inline],
                "guards": [{"file": g["file"], "line": g["line"], "passed": g["passed"], "message": g["message"]}
                           for g in ec.extras.get("guards", [])]}
        out[book.profile] = {"profile": book.profile, "lang": book.lang, "chapters": chapters}
    return out


@dataclass
class Change:
    profile: str
    file: str
    line: int
    attr: str
    old: str | None
    new: str | None

    def format(self) -> str:
        if self.old is None:
            return f"{self.profile}: {self.file}:{self.line}: {self.attr}: added, {self.new}"
        if self.new is None:
            return f"{self.profile}: {self.file}:{self.line}: {self.attr}: removed (was {self.old})"
        return f"{self.profile}: {self.file}:{self.line}: {self.attr}: {self.old} → {self.new}"


@dataclass
class GuardChange:
    profile: str
    file: str
    line: int
    now_passes: bool
    message: str

    def format(self) -> str:
        state = "now holds" if self.now_passes else "now FAILS"
        return f"{self.profile}: {self.file}:{self.line}: guard {state}: {self.message}"


def compare(old: dict, new: dict) -> tuple[list[Change], list[GuardChange], list[str]]:
    """``old``/``new``: the ``facts`` JSON of one profile ({chapter: {"inline": [...], "guards": [...]}})."""
    changes: list[Change] = []
    guards: list[GuardChange] = []
    notes: list[str] = []
    profile = new.get("profile") or old.get("profile") or ""
    for chapter in list(new["chapters"]) + [c for c in old["chapters"] if c not in new["chapters"]]:
        o = old["chapters"].get(chapter)
        n = new["chapters"].get(chapter)
        if o is None:
            notes.append(f"{profile}: {chapter}: a new chapter")
            o = {"inline": [], "guards": []}
        if n is None:
            notes.append(f"{profile}: {chapter}: no longer in the book")
            continue
        for side, data in (("the old", o), ("the new", n)):
            if data.get("error"):
                notes.append(f"{profile}: {chapter}: {side} sources do not execute: {data['error']}")
        by_old: dict[str, list[dict]] = defaultdict(list)
        for u in o["inline"]:
            by_old[u["expr"]].append(u)
        seen: dict[str, int] = defaultdict(int)
        for u in n["inline"]:
            k = seen[u["expr"]]
            seen[u["expr"]] += 1
            olds = by_old.get(u["expr"], [])
            if k >= len(olds):
                changes.append(Change(profile, u["file"], u["line"], u["expr"], None, u["value"]))
            elif olds[k]["value"] != u["value"]:
                changes.append(Change(profile, u["file"], u["line"], u["expr"], olds[k]["value"], u["value"]))
        for expr, olds in by_old.items():
            for u in olds[seen.get(expr, 0):]:
                changes.append(Change(profile, chapter, 0, expr, u["value"], None))
        og: dict[tuple[str, int], dict] = {}
        count: dict[str, int] = defaultdict(int)
        for g in o["guards"]:
            og[(g["file"], count[g["file"]])] = g
            count[g["file"]] += 1
        count.clear()
        for g in n["guards"]:
            key = (g["file"], count[g["file"]])
            count[g["file"]] += 1
            before = og.get(key)
            if before is not None and before["passed"] != g["passed"]:
                guards.append(GuardChange(profile, g["file"], g["line"], g["passed"], g["message"]))
            elif before is None and not g["passed"]:
                guards.append(GuardChange(profile, g["file"], g["line"], False, g["message"]))
    return changes, guards, notes


def run(args: argparse.Namespace) -> int:
    """``diff``, its options parsed (:mod:`bookbuild.cli`). Writes only inside the project: the old sources
    and a copy of bookbuild under ``_build/diff``, the shared cache under ``_build/cache``."""
    root = args.root
    sha, old_tree = checkout(root, args.ref)
    cache_dir = root / "_build" / "cache"
    tool = this_bookbuild(root)
    old = facts(old_tree, args.profile, cache_dir, tool)
    new = facts(root, args.profile, cache_dir, tool)
    total, failing = 0, 0
    for profile in new:
        changes, guards, notes = compare(old.get(profile, {"chapters": {}}), new[profile])
        for line in notes:
            print(line)
        for c in changes:
            print(c.format())
        for g in guards:
            print(g.format())
        total += len(changes) + len(guards)
        failing += sum(not g.now_passes for g in guards)
        failing += sum(bool(c.get("error")) for c in new[profile]["chapters"].values())
    print(f"bookbuild diff: {total} change(s) against {args.ref} ({sha[:10]})"
          + (f"; {failing} guard(s) or chapter(s) now fail" if failing else ""))
    return 1 if failing and not args.exit_zero else 0
