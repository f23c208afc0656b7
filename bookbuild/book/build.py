"""The book's layer's pass (``layer``, :meth:`.layer.BookLayer.run`) over the executed books: every registry choice of the chapters that ask
for it (:mod:`bookbuild.book.variants`, in the pool, cached by the cells' content and shared by the
languages), then each page's data and scripts (:mod:`bookbuild.book.reader`), written beside the
executed book (``book-layer.json``) for the renderer.

``--defer-layer`` (the preview's first build after an edit): choices the cache does not hold are not
computed; the pages are written without them, the build says so (``Report.deferred``), and the preview
builds again at once without the option. The layer's output is part of the render's key, so a book
written without the choices is never taken for the whole one."""
from __future__ import annotations

from pathlib import Path

from .. import pool
from . import live as L, reader, variants as V
from .hooks import library_dirs, preload
from ..cache import Inputs
from ..errors import BuildFailed
from ..execute import RunOptions
from ..passes.execute import GRACE, failure
from ..passes.state import Build


def library_dir(build: Build) -> Path:
    """The folder the chapters' ``import mlsysim`` loads from."""
    libs = library_dirs(build.root)
    return libs[0] if libs else build.root / "mlsysim"


def data_dir(build: Build) -> Path:
    """The registry's data folder, as the chapters' library reads it (the user's DATA_ENV folder first)."""
    if build.settings.data_dirs:
        return Path(build.settings.data_dirs[0])
    libs = library_dirs(build.root)
    return (libs[0] if libs else build.root) / "data"


def _jobs(build: Build, doc, choices: list[dict], key: str, profile: str) -> list[pool.Job]:
    s = build.settings
    opts = RunOptions(root=s.root, fig_dir=s.build_dir / "variants", md_dir=s.root, cell_timeout=s.cell_timeout,
                      output_cap=s.output_cap, memory_limit=s.memory_limit, raw_errors=True,
                      profile=profile)   # the book's language, as Quarto runs it
    n = max(1, -(-len(choices) // s.width))
    return [pool.Job(f"{key}:{i}", V.variant_job, (doc, opts, choices[i:i + n]), silence=s.cell_timeout + GRACE)
            for i in range(0, len(choices), n)]


def variant_key(build: Build, choices: list, book, ch, doc) -> Inputs:
    """A chapter's choices depend on the profile (a cell may word its values in the book's language,
    mlsysim.wording), the cells' content, the choices offered and what the chapter's code read."""
    return Inputs("variants", (choices, book.profile, *V.cells_digest(doc),
                               build.inputs.get(f"{book.profile}:{ch.path.as_posix()}", "")), build.environment)


def compute(build: Build, wanted: list, choices: list) -> dict[tuple[str, str], tuple[str, list]]:
    """Every choice for each chapter of ``wanted`` ((book, chapter, document) triples): its variant key
    and results, by (profile, chapter)."""
    keyed, pending, profiles, inputs = {}, {}, {}, {}
    for book, ch, doc in wanted:
        declared = variant_key(build, choices, book, ch, doc)
        key = keyed[(book.profile, ch.path.as_posix())] = declared.key
        if key not in pending:
            hit = build.store.get_json(declared)
            pending[key] = hit if hit is not None else doc
            profiles[key], inputs[key] = book.profile, declared
    todo = {k: d for k, d in pending.items() if not isinstance(d, list)}
    if todo and build.settings.defer_layer:   # the preview shows the text first; the choices come next build
        build.report.deferred.append(f"the reader's choices ({len(todo) * len(choices)}): not computed in this build")
        return {where: (k, pending[k]) for where, k in keyed.items() if k not in todo}
    jobs = [j for k, d in todo.items() for j in _jobs(build, d, choices, k, profiles[k])]
    if not choices:   # an unreadable registry: no choice to offer (the chapters' cells report its error)
        return {where: (k, []) for where, k in keyed.items()}
    if jobs:
        preload(build.root, None)
        ran = pool.run(jobs, build.settings.width)
        bad = [failure(r, j, build.root, build.settings.cell_timeout) for j in jobs for r in [ran[j.key]]
               if not isinstance(r, list)]
        if bad:
            raise BuildFailed(bad)
        for k in todo:
            parts = sorted((int(j.key.rsplit(":", 1)[1]), ran[j.key]) for j in jobs if j.key.rsplit(":", 1)[0] == k)
            pending[k] = [r for _, batch in parts for r in batch]
            build.store.put_json(inputs[k], pending[k])
        build.report.executed.append(f"variants ({len(todo) * len(choices)} choices)")
    return {where: (k, pending[k]) for where, k in keyed.items()}


def compact_key(build: Build, variants: Inputs, ec) -> Inputs:
    """A chapter's page data depends on the choices' results (by their key), the chapter's reference values,
    guard map and explanations (a prose edit changes none of them, so the choices' explanations are not
    packed again, and a build that changed nothing does not read the choices' results at all)."""
    reference = {u.expr.strip(): u.value for u in ec.inline}
    return Inputs("compact", (variants.key, [reference, ec.extras.get("guard_map"), ec.extras.get("provenance") or {},
                                             V.not_offered(data_dir(build), library_dir(build))]), build.environment)


def compacted(build: Build, results: list, ec) -> dict:
    """The page's data for one chapter (:func:`bookbuild.book.variants.compact`) from its choices' results."""
    reference = {u.expr.strip(): u.value for u in ec.inline}
    return V.compact(results, reference, ec.extras.get("guard_map"), ec.extras.get("provenance") or {},
                     V.not_offered(data_dir(build), library_dir(build)))


def page_data(build: Build, wanted: list) -> dict[tuple[str, str], dict]:
    """Each wanted chapter's page data, by (profile, chapter): kept under :func:`compact_key`, so the
    choices (their results are tens of MB of JSON) are read or computed only for a chapter whose page
    data the cache does not hold."""
    choices = V.choices(data_dir(build), library_dir(build))
    executed = {(book.profile, ch.path.as_posix()): ec for book in build.books
                for ch, ec in zip(book.chapters, build.executed[book.profile])}
    out, keys, missing = {}, {}, []
    for book, ch, doc in wanted:
        where = (book.profile, ch.path.as_posix())
        keys[where] = compact_key(build, variant_key(build, choices, book, ch, doc), executed[where])
        hit = build.store.get_json(keys[where])
        if isinstance(hit, dict):
            out[where] = hit
        else:
            missing.append((book, ch, doc))
    for where, (_, results) in (compute(build, missing, choices) if missing else {}).items():
        out[where] = compacted(build, results, executed[where])
        build.store.put_json(keys[where], out[where])
    return out


def live_runtime(build: Build) -> dict:
    """Live mode's runtime folder (:func:`bookbuild.book.live.write_runtime`), packed once per build."""
    libs = library_dirs(build.root)
    return L.write_runtime(build.root, libs[0] if libs else build.root / "mlsysim", build.settings.build_dir / "live")


def live_data(build: Build, book, runtime: dict) -> dict:
    """Live mode's additions for one book (:mod:`bookbuild.book.live`): the runtime folder and each page's cells."""
    import tomllib
    try:
        precision = tomllib.loads((data_dir(build) / "reference.toml").read_text(encoding="utf-8"))["weight_precision"]
    except (OSError, KeyError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        precision = "fp8"   # the chapters report the registry's own error
    pages = {}
    for ch, ec in zip(book.chapters, build.executed[book.profile]):
        d = L.page_data(build.documents[ch.path.as_posix()], V.cell_records, V.keep, precision,
                        ec.extras.get("guard_map"))
        if d is not None:
            pages[ch.path.as_posix()] = d
    return {"runtime": runtime, "pages": pages}


def run(build: Build) -> None:
    wanted = [(book, ch, build.documents[ch.path.as_posix()]) for book in build.books for ch in book.chapters
              if V.wanted(build.documents[ch.path.as_posix()])]
    data = page_data(build, wanted) if wanted else {}
    runtime = live_runtime(build)
    for book in build.books:
        chapters = []
        for ch, ec in zip(book.chapters, build.executed[book.profile]):
            compact = data.get((book.profile, ch.path.as_posix()))
            chapters.append((ch.path.as_posix(), ec.markdown, ec.extras.get("provenance") or {}, compact))
        build.additions[book.profile] = out = reader.additions(book.lang, chapters, live_data(build, book, runtime))
        out.write(build.executed_dir(book.profile))
