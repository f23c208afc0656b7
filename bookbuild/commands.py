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
from .book.layer import BOOK
from .errors import BuildError, BuildFailed, raised_at
from .project import profiles as list_profiles
from .settings import (Settings, debug_requested, project_root)


def settings_of(args) -> Settings:
    root = project_root(args.root)
    return Settings.make(root, layer=BOOK, cache=False if args.no_cache else None, cell_timeout=args.cell_timeout,
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
    """``check`` or ``render``: the passes, unless the last build that changed nothing had these very inputs
    and left these very books (:mod:`bookbuild.unchanged`: then what it printed, without importing them)."""
    from . import unchanged
    s = settings_of(args)
    names = profile_names(s.root, args.profile)
    kept = unchanged.printed(s, command, names)
    if kept is not None:
        if debug_requested():
            print("bookbuild: passes: none (the inputs and the books are those of the last build, which "
                  "changed nothing)", file=sys.stderr)
        for line in kept:
            print(line)
        return 0
    from . import passes
    from .passes.parse import code_trees
    trees = [str(t) for t in code_trees(s)]
    before = unchanged.inputs_digest(s, trees) if s.cache_folder is not None else None
    b = passes.run(s, names, passes.COMMANDS[command])
    for note in b.report.notes:
        print(f"bookbuild: note: {note}", file=sys.stderr)
    if debug_requested():
        print("bookbuild: passes: " + ", ".join(f"{k} {v:.2f} s" for k, v in b.report.timings.items()), file=sys.stderr)
    lines = [summary(b, book.profile) for book in b.books]   # the profiles asked for, "default" resolved to its name
    lines += [f"deferred: {what}" for what in b.report.deferred]
    if b.report.executed or b.report.cached:
        again = f" ({len(b.report.replayed)} with new prose over the same cells: none of theirs ran)" if b.report.replayed else ""
        lines.append(f"executed {len(b.report.executed)} chapter(s), {len(b.report.cached)} from the cache{again}")
    destinations = []
    if command == "render":
        from .passes.render import destination
        for book in b.books:
            state = "rendered" if book.profile in b.report.rendered else "up to date"
            where = book.output_dir.as_posix() if s.output_dir is None else shown(destination(b, book), s)
            lines.append(f"{book.profile}: {state} -> {where}")
            destinations.append(destination(b, book))
    for line in lines:
        print(line)
    r = b.report
    if before is not None and not (r.executed or r.rendered or r.notes or r.deferred or r.replayed):
        unchanged.record(s, command, names, before, trees, lines, destinations,
                         [b.executed_dir(book.profile) for book in b.books])
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
        where = f" ({at})" if (at := raised_at(e)) else ""
        print(f"bookbuild: internal error: {type(e).__name__}: {e}{where} "
              "(BOOKBUILD_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 70
    finally:
        procs.stop_all()
