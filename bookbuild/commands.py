"""The build commands' run (``check``, ``render``, ``facts``; their options: :mod:`bookbuild.cli`), and
:func:`guarded`: how any command's failure becomes one line per problem and an exit status. Used by
``python -m bookbuild`` (:mod:`bookbuild.__main__`) and by the preview's warm worker (:mod:`bookbuild.worker`),
which runs a build in a forked child exactly as the command line does."""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Callable

from . import procs
from .book.hooks import DATA_ENV
from .errors import BuildError, BuildFailed
from .project import profiles as list_profiles
from .settings import (Settings, debug_requested, project_root)


def settings_of(args) -> Settings:
    root = project_root(args.root)
    return Settings.make(root, data_env=DATA_ENV, cache=False if args.no_cache else None, cell_timeout=args.cell_timeout,
                         memory_limit=args.memory_limit, jobs=args.jobs, formats=args.formats,
                         output_dir=args.output_dir.resolve() if getattr(args, "output_dir", None) else None,
                         cache_dir=getattr(args, "cache_dir", None),
                         stale_translations=getattr(args, "stale_translations", None),
                         defer_layer=getattr(args, "defer_layer", None) or None)


def profile_names(root: Path, arg: str | None) -> list[str]:
    if arg == "all":
        return list_profiles(root) or ["default"]
    return [arg or "default"]


def shown(path: Path, settings: Settings) -> str:
    """``path`` as a message names it: inside ``_build`` (which may be a link to another disk) as
    ``_build/...``, inside the project relative to it, else as given."""
    path = Path(path)
    for base, name in ((settings.build_dir, "_build"), (settings.root, "")):
        try:
            return (Path(name) / path.relative_to(base)).as_posix()
        except ValueError:
            pass
    return str(path)


def summary(build, profile: str) -> str:
    book = next(b for b in build.books if b.profile == profile)
    exs = build.executed[profile]
    n_cells = sum(len(ec.cells) for ec in exs)
    n_inline = sum(len(ec.inline) for ec in exs)
    n_fig = sum(1 for t in build.index[profile].targets.values() if t.kind == "fig")   # numbered figures
    rel = shown(build.executed_dir(profile), build.settings)
    return (f"{profile} ({book.lang}): {len(exs)} chapters, {n_cells} cells, {n_inline} inline values, "
            f"{len(build.index[profile].targets)} labels, {n_fig} figures: OK -> {rel}")


def run_build(args, command: str) -> int:
    from . import passes
    s = settings_of(args)
    b = passes.run(s, profile_names(s.root, args.profile), passes.COMMANDS[command])
    for note in b.report.notes:
        print(f"bookbuild: note: {note}", file=sys.stderr)
    if debug_requested():
        print("bookbuild: passes: " + ", ".join(f"{k} {v:.2f} s" for k, v in b.report.timings.items()), file=sys.stderr)
    for book in b.books:   # the profiles asked for, "default" resolved to its name
        print(summary(b, book.profile))
    for what in b.report.deferred:
        print(f"deferred: {what}")
    if b.report.executed or b.report.cached:
        again = f" ({len(b.report.replayed)} with new prose over the same cells: none of theirs ran)" if b.report.replayed else ""
        print(f"executed {len(b.report.executed)} chapter(s), {len(b.report.cached)} from the cache{again}")
    if command == "render":
        from .passes.render import destination
        for book in b.books:
            state = "rendered" if book.profile in b.report.rendered else "up to date"
            where = book.output_dir.as_posix() if s.output_dir is None else shown(destination(b, book), s)
            print(f"{book.profile}: {state} -> {where}")
    return 0


def run_check(args) -> int:
    return run_build(args, "check")


def run_render(args) -> int:
    return run_build(args, "render")


def run_compare(args) -> int:
    """``compare-render``: the pages' text and what a reader gets in Chromium (the page check's reader)."""
    from .compare import run
    from .pagecheck.reader_facts import compare_reader
    return run(args, compare_reader)


def run_facts(args) -> int:
    """``facts``: every inline value and recorded guard as JSON (what ``diff`` compares)."""
    from . import passes
    from .book.diff import facts_of
    s = replace(settings_of(args), quiet=True)
    b = passes.run(s, profile_names(s.root, args.profile), passes.COMMANDS["facts"], facts=True)
    print(json.dumps(facts_of(b), ensure_ascii=False))
    return 0


def guarded(command: Callable[[list[str]], int], argv: list[str]) -> int:
    """``command(argv)``, with every failure as the user reads it: a book error one line per problem
    (status 1), an interrupt 130, a bug of ours one line (70; ``BOOKBUILD_DEBUG=1`` shows the traceback)."""
    procs.on_termination()
    try:
        return command(argv)
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
        if debug_requested():
            raise
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        where = f" ({tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})" if tb else ""
        print(f"bookbuild: internal error: {type(e).__name__}: {e}{where} "
              "(BOOKBUILD_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 70
    finally:
        procs.stop_all()
