"""``python -m bookbuild check|render [--profile en|zh|all] [--root .]``

``check`` executes every chapter of the profile(s), writes
``_build/executed/<profile>/<chapter>.md`` and ``_build/executed/<profile>/book.json``,
verifies references, citations, the typed-number lint and ``*_str`` use, and
prints one summary line per profile.  Any book error prints one line per
problem (``path:line: [cell label] message``) to stderr and exits 1.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError, BuildFailed
from .execute import ExecutedChapter, execute_chapter
from .project import Book, load_book, profiles as list_profiles
from .translation import check_translations, main_translated  # lecture-zh hook
from .verify import check_unused_strs, lint_files, verify_profile
from .xref import Target, build_index, index_to_json

MANIFEST_VERSION = 1


@dataclass
class CheckedProfile:
    book: Book
    executed: list[ExecutedChapter]
    index: dict[str, Target]
    executed_dir: Path


def executed_dir(root: Path, profile: str) -> Path:
    return Path(root) / "_build" / "executed" / profile


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def execute_profile(root: Path, profile: str) -> CheckedProfile:
    """Execute every chapter of ``profile`` and write the executed markdown.
    Raises the first BuildError (execution stops at the first broken cell)."""
    root = Path(root).resolve()
    book = load_book(root, profile)
    out = executed_dir(root, book.profile)
    if out.exists():
        shutil.rmtree(out)
    fig_dir = out / "figures"
    executed = []
    for ch in book.chapters:
        md_path = out / ch.path.with_suffix(".md")
        ec = execute_chapter(root / ch.path, root, fig_dir, md_dir=md_path.parent,
                             execute_options=book.execute_options, profile=book.profile)
        _write(md_path, ec.markdown)
        executed.append(ec)
    index = build_index(book, executed)
    return CheckedProfile(book, executed, index, out)


def manifest(cp: CheckedProfile) -> dict:
    book = cp.book
    chapters = []
    chapter_targets = {t.chapter: t for t in cp.index.values() if t.kind == "chapter"}
    for ref, ec in zip(book.chapters, cp.executed):
        t = chapter_targets.get(ref.path.as_posix())
        chapters.append({
            "source": ref.path.as_posix(),
            "executed": ref.path.with_suffix(".md").as_posix(),
            "appendix": ref.appendix,
            "part": ref.part,
            "title": ec.title,
            "label": t.label if t else None,
            "number": t.number if t else None,
            "files": ec.files,
            "figures": [f.relative_to(cp.executed_dir).as_posix() for f in ec.figures],
        })
    return {
        "manifest_version": MANIFEST_VERSION,
        "profile": book.profile,
        "lang": book.lang,
        "title": book.title,
        "output_dir": book.output_dir.as_posix(),
        "bibliography": [b.as_posix() for b in book.bibliography],
        "crossref": dict(sorted(book.crossref.items())),
        "crossref_prefixes": dict(sorted(book.crossref.items())),  # the renderer's name for it
        "chapters": chapters,
        "xref": index_to_json(cp.index),
        "metadata": book.metadata,
    }


def check_book(root: Path, profile_names: list[str]) -> list[CheckedProfile]:
    """Execute and verify ``profile_names``; raise BuildError / BuildFailed on failure."""
    root = Path(root).resolve()
    done: list[CheckedProfile] = []
    errors: list[BuildError] = []
    for p in profile_names:
        cp = execute_profile(root, p)
        errors += verify_profile(cp.book, cp.executed, cp.index)
        _write(cp.executed_dir / "book.json",
               json.dumps(manifest(cp), ensure_ascii=False, indent=2, sort_keys=True, default=str) + "\n")
        done.append(cp)
    # source rules: once per file, over every checked profile
    files: list[str] = []
    for cp in done:
        for ec in cp.executed:
            files += [f for f in ec.files if f not in files]
    errors += lint_files(root, files)
    # *_str use: across ALL profiles of the project, whichever were asked for
    all_books = [load_book(root, p) for p in (list_profiles(root) or profile_names)]
    errors += check_unused_strs(root, all_books)
    errors += check_translations(root, all_books)  # lecture-zh hook: drift guard + glossary (bookbuild/translation.py)
    if errors:
        raise BuildFailed(errors)
    return done


def _profiles_arg(root: Path, arg: str | None) -> list[str]:
    if arg == "all":
        return list_profiles(root) or ["default"]
    return [arg or "default"]


def _summary(cp: CheckedProfile) -> str:
    n_cells = sum(len(ec.cells) for ec in cp.executed)
    n_inline = sum(len(ec.inline) for ec in cp.executed)
    n_fig = sum(len(ec.figures) for ec in cp.executed)
    rel = cp.executed_dir.relative_to(cp.book.root).as_posix()
    return (f"{cp.book.profile} ({cp.book.lang}): {len(cp.executed)} chapters, {n_cells} cells, "
            f"{n_inline} inline values, {len(cp.index)} labels, {n_fig} figures: OK -> {rel}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["translated"]:  # lecture-zh hook: python -m bookbuild translated FILE
        return main_translated(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m bookbuild")
    ap.add_argument("command", choices=["check", "render"])
    ap.add_argument("--profile", default=None, help="en | zh | all (default: the project's default)")
    ap.add_argument("--root", default=".", type=Path)
    args = ap.parse_args(argv)
    root = args.root.resolve()
    try:
        names = _profiles_arg(root, args.profile)
        checked = check_book(root, names)
    except BuildFailed as e:
        for err in e.errors:
            print(err.format(), file=sys.stderr)
        print(f"bookbuild: {len(e.errors)} problem(s)", file=sys.stderr)
        return 1
    except BuildError as e:
        print(e.format(), file=sys.stderr)
        return 1
    for cp in checked:
        print(_summary(cp))
    if args.command == "render":
        try:
            from . import render as render_mod  # written separately; check works without it
        except ImportError as e:
            print(f"bookbuild: render is not available ({e})", file=sys.stderr)
            return 1
        for cp in checked:
            try:
                # render_profile writes to out_dir/<profile>: hand it the parent of
                # the profile's output-dir when that ends in the profile name (_book/en)
                out = root / cp.book.output_dir
                if out.name == cp.book.profile:
                    out = out.parent
                render_mod.render_profile(root, cp.book.profile, cp.executed_dir, out)
            except BuildError as e:
                print(e.format(), file=sys.stderr)
                return 1
            print(f"{cp.book.profile}: rendered -> {cp.book.output_dir.as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
