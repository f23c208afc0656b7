"""``python -m bookbuild COMMAND [OPTIONS]``: one argparse parser, a subcommand per command (as the library's own CLI).

Each subcommand's options are declared here, once, with the checks the parser makes (a bad option is one
line naming it, status 2); what the command does is its module's ``run(args)``, imported only when that
command is the one asked for, so ``check`` does not import the preview's server or the page check's browser.

- ``check``: run the passes up to the book's layer (parse, execute, number, verify, book);
- ``render``: every pass; HTML, PDF and EPUB into ``_book/<lang>`` (or ``--output-dir``), replaced only when
  the whole book succeeded;
- ``preview``: serve the book on localhost, rebuild on every change, reload the page;
- ``diff [GIT_REF]``: every inline value and guard that changed between GIT_REF and the work tree;
- ``facts``: every inline value and recorded guard as JSON (what ``diff`` compares);
- ``compare-render OTHER_BOOK_DIR``: our pages against another rendering (Quarto's);
- ``translated FILE``: record that a translated chapter is up to date with its English source;
- ``check-pages [BOOK_DIR]``: the reader's-eye check of a rendered book (:mod:`bookbuild.pagecheck`).
"""
from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Callable

from . import procs
from .settings import (DEFAULT_CELL_TIMEOUT, DEFAULT_FORMATS, DEFAULT_MEMORY_LIMIT, Parser, check_profile,
                       existing_folder, file_path, folder_path, formats_list, git_revision, interval_seconds,
                       jobs_count, megabytes, port_number, positive_seconds, process_id, root_option)

PROG = "python -m bookbuild"
ROOT_HELP = "the project folder, or any folder inside it"


def _root(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", default=".", type=folder_path, help=ROOT_HELP)


def build_options(p: argparse.ArgumentParser) -> None:
    """``check``'s and ``render``'s options (and ``facts``'s, which the diff runs)."""
    p.add_argument("--profile", default=None, help="en | zh | all (default: the project's default)")
    _root(p)
    p.add_argument("--no-cache", action="store_true",
                   help="execute and render everything again (the output is byte-identical)")
    p.add_argument("--cell-timeout", type=positive_seconds, default=DEFAULT_CELL_TIMEOUT, metavar="SECONDS",
                   help=f"stop a cell that runs longer (default {DEFAULT_CELL_TIMEOUT:g})")
    p.add_argument("--memory-limit", type=megabytes, default=DEFAULT_MEMORY_LIMIT, metavar="MB",
                   help=f"the address space of one chapter's process (default {DEFAULT_MEMORY_LIMIT})")
    p.add_argument("--jobs", type=jobs_count, default=0, help="processes at once (default: one per core)")
    p.add_argument("--formats", type=formats_list, default=DEFAULT_FORMATS,
                   help="render: html, pdf, epub, comma-separated (default html,pdf,epub)")
    p.add_argument("--output-dir", type=folder_path, default=None, metavar="DIR",
                   help="render: put each book in DIR/<lang> instead of the profile's output-dir")
    p.add_argument("--stale-translations", choices=("error", "warn"), default=None,
                   help="a translation behind its English source: fail (default) or warn (the preview)")
    p.add_argument("--with-parent", type=process_id, default=None, help=argparse.SUPPRESS)  # preview, diff
    p.add_argument("--defer-layer", action="store_true", help=argparse.SUPPRESS)   # the preview's first build


def _facts_options(p: argparse.ArgumentParser) -> None:
    build_options(p)
    p.add_argument("--cache-dir", type=folder_path, default=None, help=argparse.SUPPRESS)   # the diff's


def _preview_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default=None, help="en | zh (default: the project's default)")
    p.add_argument("--port", type=port_number, default=4848, help="1-65535 (0: any free port; default 4848)")
    p.add_argument("--no-browser", action="store_true")
    _root(p)
    p.add_argument("--cell-timeout", type=positive_seconds, default=None, metavar="SECONDS")
    p.add_argument("--memory-limit", type=megabytes, default=None, metavar="MB",
                   help="the address space of one chapter's process (default: render's)")
    p.add_argument("--interval", type=interval_seconds, default=0.1, help=argparse.SUPPRESS)


def _diff_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("ref", nargs="?", default="HEAD", type=git_revision,
                   help="the git revision to compare with (default HEAD)")
    p.add_argument("--profile", default="all", help="en | zh | all (default: all)")
    _root(p)
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when a guard now fails (default: exit 1, as check would)")


def _compare_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("other", type=existing_folder, help="the other book folder (holding en/ and zh/, or one language)")
    p.add_argument("--profile", default="all", help="en | zh | all (default: all)")
    p.add_argument("--ours", type=existing_folder, default=None, help="our book folder (default: <root>/_book)")
    _root(p)
    p.add_argument("--no-browser", action="store_true",
                   help="compare the pages' text only (not what a reader gets in Chromium: figures drawn, the "
                        "choice, explanations, language switch, downloads, requests)")


def _translated_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=file_path)
    p.add_argument("--source", default=None, help="the English chapter (only when FILE has no translation-of yet)")
    p.add_argument("--root", default=".", type=folder_path, help=ROOT_HELP)


def _check_pages_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("book", nargs="?", default="_book", type=Path,
                   help="the rendered book folder, holding en/ and zh/ (default: _book)")
    p.add_argument("--file", action="store_true",
                   help="open the pages as file: addresses instead of serving them on 127.0.0.1")
    p.add_argument("--no-axe", action="store_true", help="leave out axe-core (faster)")
    p.add_argument("--no-choices", action="store_true", help="leave out the sweep over the reader's choices")
    p.add_argument("--files-only", action="store_true", help="only the figure files and PDFs (no browser)")
    p.add_argument("-v", "--verbose", action="store_true", help="time each page")


def _project(allow_all: bool = True) -> Callable[[argparse.ArgumentParser, argparse.Namespace], None]:
    """The check after parsing: ``--root`` is inside a project, ``--profile`` one of its profiles; a build
    driven by another process of ours (``--with-parent PID``) stops when that process ends."""
    def check(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
        args.root = root_option(p, args.root)
        check_profile(p, args.root, args.profile, allow_all=allow_all)
        if getattr(args, "with_parent", None):
            procs.die_with_parent(args.with_parent)
    return check


def _nothing(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    return None


def _translation_root(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``translated``'s ``--root``: the project around it, else a folder named with ``--root`` (a translation
    needs no book around it), else the usage error."""
    from .errors import BuildError
    from .settings import project_root
    try:
        args.root = project_root(args.root)
    except BuildError:
        args.root = args.root.resolve() if args.root.is_dir() and args.root != Path(".") else root_option(p, args.root)


#: name -> (what it does, its options, the check after parsing, ``module:function`` that runs it)
COMMANDS: dict[str, tuple[str, Callable, Callable, str]] = {
    "check": ("run every check of the book in both languages, all at once, one line per problem",
              build_options, _project(), "bookbuild.commands:run_check"),
    "render": ("build the books: HTML, PDF and EPUB into each profile's output-dir",
               build_options, _project(), "bookbuild.commands:run_render"),
    "preview": ("serve the book on localhost and rebuild it as you edit",
                _preview_options, _project(allow_all=False), "bookbuild.preview:run"),
    "diff": ("every inline value and guard a change moved, in both languages",
             _diff_options, _project(), "bookbuild.book.diff:run"),
    "facts": ("every inline value and recorded guard as JSON (what diff compares)",
              _facts_options, _project(), "bookbuild.commands:run_facts"),
    "compare-render": ("compare our _book with another rendering of the same sources (Quarto's), page by page",
                       _compare_options, _project(), "bookbuild.commands:run_compare"),
    "translated": ("record that FILE is up to date with the English chapter it translates",
                   _translated_options, _translation_root, "bookbuild.book.translation:run_translated"),
    "check-pages": ("check a rendered book as readers get it: every page in headless Chromium (widths, themes, "
                    "every reader's choice, without JavaScript, axe-core), every figure file and both PDFs",
                    _check_pages_options, _nothing, "bookbuild.pagecheck.cli:run"),
}


def parser() -> Parser:
    """The command line: a subcommand per entry of :data:`COMMANDS`."""
    ap = Parser(prog=PROG, description="Build, check and preview the book (a Quarto-compatible engine).")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (summary, declare, _, _) in COMMANDS.items():
        declare(sub.add_parser(name, help=summary, description=summary[:1].upper() + summary[1:] + "."))
    return ap


def parse(argv: list[str]) -> tuple[argparse.Namespace, Callable[[argparse.Namespace], int]]:
    """The options of the command ``argv`` names, checked, and the function that runs it. The command's own
    parser reads its options, so a refusal names the command (``python -m bookbuild diff: error: ...``)."""
    ap = parser()
    subcommands = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    if not argv or argv[0] not in COMMANDS:
        ap.parse_args(argv[:1] if argv and not argv[0].startswith("-") else argv)   # help, or the one-line refusal
        ap.error("the following arguments are required: COMMAND")
    name = argv[0]
    p = subcommands.choices[name]
    args = p.parse_args(argv[1:])
    args.command = name
    COMMANDS[name][2](p, args)
    module, function = COMMANDS[name][3].split(":")
    return args, getattr(importlib.import_module(module), function)


def dispatch(argv: list[str]) -> int:
    """Parse ``argv`` and run its command (inside :func:`bookbuild.commands.guarded`)."""
    args, run = parse(argv)
    return run(args)
