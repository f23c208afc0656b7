"""execute: every chapter of the books being built, each in its own process, from the cache when nothing
it depends on changed; writes ``_build/executed/<profile>/<chapter>.md`` and the figures.

A chapter's key covers its document's files (the chapter and its includes, by content), the profile,
language and execute options, and the build's environment (whole code trees, data folders, installed
distributions). The files its code opened while it ran are checked again on reuse.

A chapter whose prose alone changed (its cells the same code and options at the same lines: a sentence
reworded, a paragraph added below the last cell) runs no cell: the last run of the same cells, found
by :func:`cells_key`, is replayed over the edited text (:class:`~bookbuild.execute.Replay`), and cached
under the chapter's own key as a run would be.

``diff``'s build (``facts``) takes the build's own entries where they are; a chapter it must run is run
for its numbers alone (guards kept, not raised; figures described, their static SVG not drawn) and cached
under a key of its own, which a build never takes.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from .. import pool
from ..cache import FONT_FOLDERS, Entry, Inputs, digests, sha256_bytes, unchanged
from ..errors import BuildError, BuildFailed, CellError, GuardFailure
from ..execute import (ExecutedChapter, NotReplayable, Replay, RunOptions, cells_signature, chapter_job,
                       from_json, input_digests, inputs_changed, to_json)
from ..project import Book
from ..source import Document
from .parse import code_trees
from .state import Build

#: how long the parent waits past the cell time limit before it kills a chapter that does not answer
GRACE = 5.0


def _run_values(book: Book) -> tuple:
    """What every run of a chapter of ``book`` depends on besides the environment: the profile, its language
    and execute options."""
    return (book.profile, book.lang, book.execute_options)


def chapter_key(build: Build, book: Book, doc: Document, kind: str = "book") -> Inputs:
    """An executed chapter's inputs: the run's, and the document's files (the chapter and its includes) by
    digest. ``kind``: ``book`` (the build's run) or ``facts`` (``diff``'s run: guards kept, no static figures)."""
    return Inputs("exec", (*_run_values(book), kind), build.environment,
                  tuple((rel, sf.digest) for rel, sf in doc.files.items()))


def cells_key(build: Build, book: Book, doc: Document) -> Inputs:
    """What a chapter's last run is found by when only its prose changed (:func:`cells_signature`)."""
    return Inputs("cells", (*_run_values(book), cells_signature(doc)), build.environment)


def _note_inputs(build: Build, name: str, data: dict) -> None:
    """What the chapter's code read, as one digest (the reader's choices are keyed by it too)."""
    build.inputs[name] = sha256_bytes(json.dumps([data.get("reads") or {}, data.get("inputs") or {}],
                                                 sort_keys=True).encode())


def _lookup(build: Build, key: Inputs | Entry):
    """The cache entry ``key`` names (its data and folder), if every file its code read, every folder it
    listed and every variable it read is as it was."""
    got = build.store.get_tree(key)
    if got is None:
        return None
    if not unchanged(build.root, got[0]["reads"]) or inputs_changed(build.root, got[0].get("inputs") or {}):
        build.store.misses += 1
        return None
    return got


def _copy_figures(data: dict, folder: Path, out: Path) -> None:
    figs = out / "figures"
    for rel in data["figures"]:
        (figs / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / "figures" / rel, figs / rel)


def _from_cache(build: Build, key: Inputs, out: Path, name: str = ""):
    """The executed chapter kept under ``key``, its figures copied into ``out``."""
    got = _lookup(build, key)
    if got is None:
        return None
    _note_inputs(build, name, got[0])
    _copy_figures(*got, out)
    return from_json(got[0]["chapter"], out / "figures")


def _to_cache(build: Build, book: Book, doc: Document, key: Inputs, ec, reads: list[str], figs: Path,
              replayable: bool = True, inputs: dict | None = None) -> None:
    """Cache ``ec`` under ``key`` with what its code read (``reads``: project files; ``inputs``: the
    others, :func:`~bookbuild.execute.input_digests`); ``replayable``: the last run of its cells
    (:func:`cells_key`)."""
    data = {"chapter": to_json(ec, figs), "reads": digests(build.root, reads),
            "inputs": inputs or {}, "figures": [Path(f).relative_to(figs).as_posix() for f in ec.figures]}
    _note_inputs(build, f"{book.profile}:{doc.path}", data)
    build.store.put_tree(key, data, {f"figures/{r}": figs / r for r in data["figures"]})
    if replayable:
        build.store.put_json(cells_key(build, book, doc), {"chapter": key.key})


def recorded_run(build: Build, book: Book, doc: Document):
    """The last run of ``doc``'s cells in the cache (the entry's data and folder), or None."""
    last = build.store.get_json(cells_key(build, book, doc))
    try:
        return _lookup(build, Entry("exec", last["chapter"]))
    except (TypeError, KeyError, ValueError):      # no record, or one of another shape
        return None


def replay(build: Build, book: Book, doc: Document, got) -> ExecutedChapter:
    """``doc`` assembled from ``got``, a :func:`recorded_run` of the same cells: nothing runs, nothing is
    written. Raises NotReplayable (a value the recording does not hold) or BuildError."""
    out = build.executed_dir(book.profile)
    recorded = from_json(got[0]["chapter"], out / "figures")
    return Replay(doc, _options(build, book, doc, out), _hooks(build)(), recorded).chapter()


def _replayed(build: Build, book: Book, doc: Document, key: Inputs, out: Path):
    """The chapter assembled from the last run of the same cells (its prose alone changed), or None."""
    got = recorded_run(build, book, doc)
    if got is None:
        return None
    try:
        ec = replay(build, book, doc, got)
    except (NotReplayable, BuildError):   # a new inline value, or one that fails: the run says so
        return None
    _copy_figures(*got, out)
    _to_cache(build, book, doc, key, ec, list(got[0]["reads"]), out / "figures", inputs=got[0].get("inputs"))
    return ec


def _options(build: Build, book: Book, doc: Document, out: Path) -> RunOptions:
    s = build.settings
    return RunOptions(root=s.root, fig_dir=out / "figures", md_dir=(out / doc.path).parent,
                      execute=book.execute_options, profile=book.profile, cell_timeout=s.cell_timeout,
                      output_cap=s.output_cap, memory_limit=s.memory_limit)


def _hooks(build: Build, facts: bool = False):
    """The layer's hooks for one chapter run (a factory, called in the process that runs it); ``facts``
    (``diff``'s run): guards kept instead of raised, figures described without drawing their static SVG."""
    return build.settings.layer.hooks(build.root, build.settings.cache_folder, facts=facts)


def _job(build: Build, book: Book, doc: Document, out: Path, facts: bool = False) -> pool.Job:
    s = build.settings
    skip = [s.root / "_build", s.root / "_book", s.root / ".venv", *[Path(p) for p in _library_skips(build)]]
    covered = [*code_trees(s), *s.data_dirs, *FONT_FOLDERS]   # the environment digest's
    return pool.Job(f"{book.profile}:{doc.path}", chapter_job,
                    (doc, _options(build, book, doc, out), _hooks(build, facts), skip, covered),
                    silence=s.cell_timeout + GRACE, weight=expected_work(doc))


#: a figure cell's work against a cell that computes (matplotlib draws the static figure: about ten times)
FIGURE_WEIGHT = 10


def expected_work(doc: Document) -> int:
    """What a chapter's run is expected to cost, for the pool's order: a cell each, a figure cell ten."""
    return sum(FIGURE_WEIGHT if str(c.label or "").startswith("fig-") else 1 for c in doc.cells)


def _library_skips(build: Build) -> list[Path]:
    return code_trees(build.settings)[1:]   # covered whole by the environment digest


def failure(result, job: pool.Job, root: Path, timeout: float) -> BuildError:
    """A pool result that is not an executed chapter, as the one-line error an author reads."""
    where = getattr(result, "where", None)
    file, line, label = where if isinstance(where, tuple) else (job.args[0].path, None, None)
    if isinstance(result, pool.Raised):
        if isinstance(result.error, BuildError):
            return result.error
        return BuildError(job.args[0].path, None, f"the build failed executing this chapter: {result.error}"
                                                  + (f" ({result.where})" if result.where else ""))
    if isinstance(result, pool.Silent):
        return CellError(file, line, f"the cell ran longer than the cell time limit of {timeout:g} s and "
                                     "did not stop when interrupted: make it finish, or raise --cell-timeout", label)
    code = result.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
    return CellError(file, line, f"the chapter's process {how} before the chapter finished: a cell ended "
                                 "the process (os._exit, sys.exit from a thread, a crash in native code); "
                                 "remove that call", label)


def _plan(build: Build, results: dict, keys: dict, errors: list) -> list[pool.Job]:
    """Every chapter of the books being built: from the cache, or a job (executed folders emptied)."""
    jobs = []
    for book in build.books:
        out = build.executed_dir(book.profile)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for ch in book.chapters:
            name, rel = f"{book.profile}:{ch.path.as_posix()}", ch.path.as_posix()
            if rel in build.parse_errors:
                errors.append((book.profile, build.parse_errors[rel]))
                build.failures[name] = build.parse_errors[rel]
                continue
            doc = build.documents[rel]
            keys[name] = chapter_key(build, book, doc)
            hit = _from_cache(build, keys[name], out, name)
            facts_key = chapter_key(build, book, doc, "facts") if build.facts else None
            if hit is None and facts_key:
                hit = _from_cache(build, facts_key, out, name)
            if hit is None:
                hit = _replayed(build, book, doc, keys[name], out)
                if hit is not None:
                    build.report.replayed.append(name)
            if hit is not None:
                results[name] = hit
                build.report.cached.append(name)
            elif facts_key:   # diff's run of its own: never taken for the build's (no static figures)
                keys[name] = facts_key
                jobs.append(_job(build, book, doc, out, facts=True))
            else:
                jobs.append(_job(build, book, doc, out))
    return jobs


def _run_jobs(build: Build, jobs: list[pool.Job], keys: dict, results: dict, errors: list) -> None:
    """Run ``jobs`` and cache what they executed; a chapter that failed is an error (a facts build's
    guards are kept, not raised: its chapter fails only when a cell does)."""
    ran = pool.run(jobs, build.settings.width)
    for job in jobs:
        r = ran[job.key]
        book = next(b for b in build.books if b.profile == job.key.split(":", 1)[0])
        if isinstance(r, tuple):
            ec, reads, inputs = r
            results[job.key] = ec
            _to_cache(build, book, job.args[0], keys[job.key], ec, reads, build.executed_dir(book.profile) / "figures",
                      replayable=not build.facts,   # a facts run (no static figures): never the build's
                      inputs=input_digests(build.root, inputs))
            build.report.executed.append(job.key)
            continue
        if isinstance(r, pool.Raised) and isinstance(r.error, BuildFailed):   # every failing guard of the chapter
            errors += [(job.key.split(":", 1)[0], e) for e in r.error.errors]
            build.failures[job.key] = r.error.errors[0]
            continue
        err = failure(r, job, build.root, build.settings.cell_timeout)
        errors.append((job.key.split(":", 1)[0], err))
        build.failures[job.key] = err


def once_per_problem(build: Build, errors: list[tuple[str, BuildError]]) -> list[BuildError]:
    """Each problem once, with the books it broke: a guard of a cell both languages include fails in
    both, and prints as one line ending in ``(en, zh)``."""
    lang = {b.profile: b.lang for b in build.books}
    grouped: dict[str, tuple[BuildError, list[str]]] = {}
    for profile, err in errors:
        langs = grouped.setdefault(err.format(), (err, []))[1]
        if lang.get(profile, profile) not in langs:
            langs.append(lang.get(profile, profile))
    out = []
    for err, langs in grouped.values():
        if len(lang) > 1:   # only a build of several books says which
            err.message = f"{err.message} ({', '.join(langs)})"
        out.append(err)
    return out


def run(build: Build) -> None:
    results, keys, errors = {}, {}, []
    jobs = _plan(build, results, keys, errors)
    if jobs:
        build.settings.layer.preload(build.root, build.settings.cache_folder)
        _run_jobs(build, jobs, keys, results, errors)
    # a chapter that ran to its end with failing guards: said with the checks' problems (passes/verify.py), so
    # that one run names every guard, reference and citation; with another chapter's failure, said now
    failed = [(key.split(":", 1)[0], GuardFailure(*f)) for key, ec in results.items() if not isinstance(ec, BuildError)
              for f in (getattr(ec, "extras", None) or {}).get("failed", [])]
    if errors and not build.facts:
        raise BuildFailed(once_per_problem(build, errors + failed))
    build.guard_failures = once_per_problem(build, failed) if failed else []
    for book in build.books:
        out = build.executed_dir(book.profile)
        build.executed[book.profile] = []
        for ch in book.chapters:
            ec = results.get(f"{book.profile}:{ch.path.as_posix()}")
            if ec is not None:
                (out / ch.path.with_suffix(".md")).parent.mkdir(parents=True, exist_ok=True)
                (out / ch.path.with_suffix(".md")).write_text(ec.markdown, encoding="utf-8", newline="\n")
                build.executed[book.profile].append(ec)
