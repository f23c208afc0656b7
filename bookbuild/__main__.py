"""``python -m bookbuild COMMAND``: argument parsing only; the build is :mod:`bookbuild.passes`.

Commands:

- ``check``: run the passes up to the book's layer (parse, execute, number, verify, book);
- ``render``: every pass; HTML and PDF into ``_book/<lang>`` (or ``--output-dir``), replaced only when
  the whole book succeeded;
- ``preview``: serve the book on localhost, rebuild on every change, reload the page;
- ``diff [GIT_REF]``: every inline value and guard that changed between GIT_REF and the work tree;
- ``compare-render OTHER_BOOK_DIR``: our pages against another rendering (Quarto's);
- ``translated FILE``: record that a translated chapter is up to date with its English source;
- ``check-pages [BOOK_DIR]``: the reader's-eye check of a rendered book (:mod:`bookbuild.pagecheck`).

Any book error prints one line per problem (``path:line: [cell label] message``) and exits 1; a usage
error (a bad option) exits 2 naming the option; nothing prints a traceback (``BOOKBUILD_DEBUG=1``
shows one for a bug of ours).
"""
from __future__ import annotations

import os
import sys

from . import procs
from .commands import build_args, facts_main, guarded, parsed, run_build
from .settings import Parser


def _dispatch(argv: list[str]) -> int:
    cmd = argv[0] if argv else ""
    if cmd == "translated":   # record that a translation is up to date with its source
        from .book.translation import main_translated
        return main_translated(argv[1:])
    if cmd == "compare-render":
        from .compare import main as compare_main
        from .pagecheck.reader_facts import compare_reader   # what a reader gets, in Chromium
        return compare_main(argv[1:], compare_reader)
    if cmd == "preview":
        from .preview import main as preview_main
        return preview_main(argv[1:])
    if cmd == "facts":
        return facts_main(argv[1:])
    if cmd == "diff":
        from .book.diff import main as diff_main
        return diff_main(argv[1:])
    if cmd == "check-pages":
        from .pagecheck import main as check_pages_main
        return check_pages_main(argv[1:])
    ap = Parser(prog="python -m bookbuild")
    ap.add_argument("command", choices=["check", "render", "preview", "diff", "compare-render", "translated",
                                           "check-pages"])
    build_args(ap)
    args = parsed(ap, argv)
    return run_build(args, args.command)


def main(argv: list[str] | None = None) -> int:
    return guarded(_dispatch, list(sys.argv[1:] if argv is None else argv))


def as_command(argv: list[str]) -> None:
    """``python -m bookbuild``: :func:`main`, then every process left below this one is killed (what a
    dead job left behind; not for ``preview``, whose browser may be a child), and an interrupted build
    exits at once (a thread still in typst is not waited for)."""
    code = main(argv)
    procs.stop_all(everything=argv[:1] != ["preview"])
    sys.stdout.flush()
    sys.stderr.flush()
    if code == 130:
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    as_command(sys.argv[1:])
