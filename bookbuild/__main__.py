"""``python -m bookbuild COMMAND``: argument parsing only; the work is in :mod:`bookbuild.pipeline`.

Commands:

- ``check``: execute every chapter of the profile(s) (each in its own process, cached), write
  ``_build/executed/<profile>/``, verify references, citations, the bibliography, the typed-number
  lint and ``*_str`` use;
- ``render``: the same, then HTML and PDF into ``_book/<lang>``, replaced only when the whole book
  succeeded;
- ``preview``: serve the book on localhost, rebuild on every change, reload the page;
- ``diff [GIT_REF]``: every inline value and guard that changed between GIT_REF and the work tree;
- ``compare-render OTHER_BOOK_DIR``: our pages against another rendering (Quarto's);
- ``translated FILE``: record that a translated chapter is up to date with its English source.

Any book error prints one line per problem (``path:line: [cell label] message``) and exits 1; a
usage error exits 2; nothing prints a traceback (``BOOKBUILD_DEBUG=1`` shows one for a bug).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .errors import BuildError, BuildFailed
from .kernel import DEFAULT_CELL_TIMEOUT, DEFAULT_OUTPUT_CAP, Limits
from .pipeline import CheckedProfile, Options, build, profile_names


def _summary(cp: CheckedProfile) -> str:
    n_cells = sum(len(ec.cells) for ec in cp.executed)
    n_inline = sum(len(ec.inline) for ec in cp.executed)
    n_fig = sum(len(ec.figures) for ec in cp.executed)
    rel = cp.executed_dir.relative_to(cp.book.root).as_posix()
    return (f"{cp.book.profile} ({cp.book.lang}): {len(cp.executed)} chapters, {n_cells} cells, "
            f"{n_inline} inline values, {len(cp.index)} labels, {n_fig} figures: OK -> {rel}")


def _build_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--profile", default=None, help="en | zh | all (default: the project's default)")
    ap.add_argument("--root", default=".", type=Path)
    ap.add_argument("--no-cache", action="store_true",
                    help="execute and render everything again (the output is byte-identical)")
    ap.add_argument("--cell-timeout", type=float, default=DEFAULT_CELL_TIMEOUT, metavar="SECONDS",
                    help=f"stop a cell that runs longer (default {DEFAULT_CELL_TIMEOUT:g})")
    ap.add_argument("--jobs", type=int, default=0, help="chapters executed at once (default: one per core)")
    ap.add_argument("--formats", default="html,pdf", help="render: html, pdf or html,pdf (default both)")


def _options(args) -> Options:
    if args.cell_timeout <= 0:
        raise SystemExit("bookbuild: --cell-timeout must be a positive number of seconds")
    formats = tuple(f for f in args.formats.split(",") if f)
    if not formats or set(formats) - {"html", "pdf"}:
        raise SystemExit(f"bookbuild: --formats takes html, pdf or html,pdf, not {args.formats!r}")
    return Options(cache=not args.no_cache, formats=formats,
                   limits=Limits(cell_timeout=args.cell_timeout, output_cap=DEFAULT_OUTPUT_CAP,
                                 parallel=max(0, args.jobs)))


def run_build(args, render: bool) -> int:
    root = args.root.resolve()
    names = profile_names(root, args.profile)
    report = build(root, names, _options(args), render=render)
    for cp in report.checked:
        print(_summary(cp))
    if report.executed or report.cached:
        print(f"executed {len(report.executed)} chapter(s), {len(report.cached)} from the cache")
    if render:
        for cp in report.checked:
            state = "rendered" if cp.book.profile in report.rendered else "up to date"
            print(f"{cp.book.profile}: {state} -> {cp.book.output_dir.as_posix()}")
    return 0


def compare_main(argv: list[str]) -> int:
    """``compare-render OTHER_BOOK_DIR``: our rendered pages against another rendering (Quarto's)."""
    from .compare import INFORMATIONAL, compare_books
    from .project import load_book
    ap = argparse.ArgumentParser(prog="python -m bookbuild compare-render",
                                 description="Compare our _book with another rendering of the same "
                                             "sources (e.g. Quarto's _book), page by page.")
    ap.add_argument("other", type=Path, help="the other book folder (holding en/ and zh/, or one language)")
    ap.add_argument("--profile", default="all", help="en | zh | all (default: all)")
    ap.add_argument("--ours", type=Path, default=None, help="our book folder (default: <root>/_book)")
    ap.add_argument("--root", default=".", type=Path)
    args = ap.parse_args(argv)
    root = args.root.resolve()
    ours = (args.ours or root / "_book").resolve()
    other = args.other.resolve()
    if not other.is_dir():
        raise BuildError(str(args.other), None, "is not a folder: give the other rendering's _book")
    same = True
    for name in profile_names(root, args.profile):
        book = load_book(root, name)
        sub = book.output_dir.name
        mine, theirs = ours / sub, (other / sub if (other / sub).is_dir() else other)
        if not mine.is_dir():
            raise BuildError(str(mine), None, "does not exist: run python -m bookbuild render first")
        chapters = [{"source": ch.path.as_posix()} for ch in book.chapters]
        cmp = compare_books(mine, theirs, chapters, list(book.crossref.values()))
        counts = ", ".join(f"{v} {k}" for k, v in cmp.counts.items())
        print(f"{name}: {len(cmp.pages)} pages compared ({counts}) against {theirs}")
        for m in cmp.missing:
            print(f"  {m}")
        for d in cmp.diffs:
            note = " (expected: the tools differ here)" if d.category in INFORMATIONAL else ""
            print(f"  {d.format()}{note}")
        if cmp.same:
            print(f"{name}: same headings, cross-references, captions, equation numbers and numbers")
        same = same and cmp.same
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except BuildFailed as e:
        for err in e.errors:
            print(err.format(), file=sys.stderr)
        if len(e.errors) > 1:
            print(f"bookbuild: {len(e.errors)} problems", file=sys.stderr)
        return 1
    except BuildError as e:
        print(e.format(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bookbuild: interrupted", file=sys.stderr)
        return 130
    except OSError as e:
        name = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"bookbuild: {name}{e.strerror or e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug of ours: still one line, unless asked for more
        if os.environ.get("BOOKBUILD_DEBUG"):
            raise
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        where = f" ({tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})" if tb else ""
        print(f"bookbuild: internal error: {type(e).__name__}: {e}{where} "
              "(BOOKBUILD_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 70


def _dispatch(argv: list[str]) -> int:
    if argv and argv[0] == "translated":   # record that a translation is up to date with its source
        from .translation import main_translated
        return main_translated(argv[1:])
    if argv and argv[0] == "compare-render":
        return compare_main(argv[1:])
    if argv and argv[0] == "preview":
        from .preview import main as preview_main
        return preview_main(argv[1:])
    if argv and argv[0] == "facts":   # for diff: inline values and guards as JSON
        import json
        from .pipeline import facts
        ap = argparse.ArgumentParser(prog="python -m bookbuild facts")
        _build_args(ap)
        ap.add_argument("--cache-dir", type=Path, default=None)
        args = ap.parse_args(argv[1:])
        opts = _options(args)
        opts.cache_dir = args.cache_dir
        root = args.root.resolve()
        print(json.dumps(facts(root, profile_names(root, args.profile), opts), ensure_ascii=False))
        return 0
    if argv and argv[0] == "check-pages": return __import__("bookbuild.pagecheck").pagecheck.main(argv[1:])
    if argv and argv[0] == "diff":
        from .diff import main as diff_main
        return diff_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m bookbuild")
    ap.add_argument("command", choices=["check", "render", "preview", "diff", "compare-render", "translated"])
    _build_args(ap)
    args = ap.parse_args(argv)
    return run_build(args, render=args.command == "render")


if __name__ == "__main__":
    sys.exit(main())
