"""``python -m bookbuild COMMAND``: the command line (:mod:`bookbuild.cli`, a subcommand per command) inside
:func:`bookbuild.commands.guarded`; the build itself is :mod:`bookbuild.passes`.

Any book error prints one line per problem (``path:line: [cell label] message``) and exits 1; a usage
error (a bad option) exits 2 naming the option; nothing prints a traceback (``BOOKBUILD_DEBUG=1``
shows one for a bug of ours).
"""
from __future__ import annotations

import os
import sys

from . import procs
from .cli import dispatch
from .commands import guarded


def main(argv: list[str] | None = None) -> int:
    return guarded(dispatch, list(sys.argv[1:] if argv is None else argv))


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
