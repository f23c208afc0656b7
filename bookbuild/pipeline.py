"""The one build pipeline that ``check``, ``render``, ``preview`` and ``diff`` drive.

load the profiles → execute every chapter (each in its own process, in parallel, from the cache when
nothing it depends on changed) → number and verify → render each book into a staging folder →
replace ``_book/<lang>`` only when everything for that book succeeded.

A lock (``_build/.lock``) keeps a second build in the same folder from racing the first: it waits.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pickle
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import cache as C
from .errors import BuildError, BuildFailed
from .execute import ExecutedChapter, expand_includes
from .kernel import Job, Limits, run_jobs
from .project import Book, load_book, profiles as list_profiles
from .translation import check_translations
from .verify import check_bibliography, check_unused_strs, lint_files, verify_profile
from .xref import Target, build_index, index_to_json

MANIFEST_VERSION = 1


@dataclass
class Options:
    cache: bool = True
    cache_dir: Path | None = None        # default: <root>/_build/cache
    limits: Limits = field(default_factory=Limits)
    formats: tuple[str, ...] = ("html", "pdf")
    quiet: bool = False


@dataclass
class CheckedProfile:
    book: Book
    executed: list[ExecutedChapter]
    index: dict[str, Target]
    executed_dir: Path


@dataclass
class Report:
    checked: list[CheckedProfile]
    executed: list[str] = field(default_factory=list)     # "profile:path" that really ran
    cached: list[str] = field(default_factory=list)       # "profile:path" served from the cache
    rendered: list[str] = field(default_factory=list)     # profiles whose _book was replaced
    up_to_date: list[str] = field(default_factory=list)   # profiles whose _book was already current
    seconds: float = 0.0


def executed_dir(root: Path, profile: str, kind: str = "executed") -> Path:
    return Path(root) / "_build" / kind / profile


def cache_dir(root: Path) -> Path:
    return Path(root) / "_build" / "cache"


def profile_names(root: Path, arg: str | None) -> list[str]:
    if arg == "all":
        return list_profiles(root) or ["default"]
    return [arg or "default"]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


# ------------------------------------------------------------------ lock

@contextlib.contextmanager
def build_lock(root: Path, quiet: bool = False):
    """One build at a time in a project folder; a second one waits for the first."""
    d = Path(root) / "_build"
    try:
        d.mkdir(parents=True, exist_ok=True)
        fh = open(d / ".lock", "a+")
    except OSError as e:
        raise BuildError(str(d), None, f"cannot create the build folder: {e.strerror}") from None
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            other = fh.read().strip() or "?"
            if not quiet:
                print(f"bookbuild: another build is running in this folder (pid {other}); waiting for it",
                      file=sys.stderr)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        yield
    finally:
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()


# ------------------------------------------------------------------ execute

def _chapter_files(root: Path, path: Path) -> list[Path]:
    seen: list[str] = []
    for _, o in expand_includes(path, root):
        if o.file not in seen:
            seen.append(o.file)
    return [(Path(root) / f).resolve() for f in seen]


def execute_books(root: Path, books: list[Book], store: C.Store, limits: Limits,
                  env: dict[str, str] | None = None, report: Report | None = None,
                  kind: str = "executed", failures: dict[str, BuildError] | None = None,
                  environment: str | None = None) -> dict[str, list[ExecutedChapter]]:
    """Execute every chapter of ``books`` (cached, parallel); write ``_build/<kind>/<profile>/``.

    Raises :class:`BuildFailed` with one error per failing chapter; with ``failures`` given, puts
    them there (by "profile:path") instead and leaves those chapters out."""
    root = Path(root).resolve()
    env = dict(env or {})
    # resolves mlsysim as the chapters will, without importing it
    environment = environment or C.environment_digest(root)
    job_env = {**env, "BOOKBUILD_MARK_INLINE": "1"} if kind == "executed" else dict(env)
    if store.enabled:   # figures and the explorer's data computed once for given inputs (mlsysim.diskcache)
        job_env["MLSYSIM_CACHE"] = str(store.folder / "mlsysim")
    jobs: list[tuple[Job, str, Book]] = []
    results: dict[str, ExecutedChapter] = {}
    errors: list[BuildError] = []
    for book in books:
        out = executed_dir(root, book.profile, kind)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for ch in book.chapters:
            path = (root / ch.path).resolve()
            try:
                files = _chapter_files(root, path)
            except BuildError as e:
                errors.append(e)
                if failures is not None:
                    failures[f"{book.profile}:{ch.path.as_posix()}"] = e
                continue
            key = C.chapter_key(files, root, profile=book.profile, lang=book.lang,
                                execute_options=book.execute_options, env=job_env, environment=environment)
            name = f"{book.profile}:{ch.path.as_posix()}"
            md_path = out / ch.path.with_suffix(".md")
            fig_dir = out / "figures"
            hit = store.get_chapter(key, root)
            if hit is not None:
                ec, entry, names = hit
                figs = entry / "figures"
                if figs.is_dir():
                    shutil.copytree(figs, fig_dir, dirs_exist_ok=True)
                ec.figures = [fig_dir / n for n in names]   # this checkout's executed folder
                results[name] = ec
                if report is not None:
                    report.cached.append(name)
                continue
            job = Job(key=name, path=path, root=root, fig_dir=fig_dir, md_dir=md_path.parent,
                      execute_options=book.execute_options, profile=book.profile, env=job_env)
            jobs.append((job, key, book))
    # figures come from the figure cache once it holds drawings: then pyplot need not be preloaded
    warm = store.enabled and any((store.folder / "mlsysim" / "figures").glob("*.svg"))
    ran = run_jobs([j for j, _, _ in jobs], limits, drawing=not warm)
    for job, key, book in jobs:
        r = ran[job.key]
        if isinstance(r, BuildError):
            errors.append(r)
            if failures is not None:
                failures[job.key] = r
            continue
        ec, reads = r
        results[job.key] = ec
        store.put_chapter(key, ec, C.reads_digest(reads, root), ec.figures, job.fig_dir)
        if report is not None:
            report.executed.append(job.key)
    if errors and failures is None:
        raise BuildFailed(errors)
    by_book: dict[str, list[ExecutedChapter]] = {}
    for book in books:
        out = executed_dir(root, book.profile, kind)
        lst = []
        for ch in book.chapters:
            ec = results.get(f"{book.profile}:{ch.path.as_posix()}")
            if ec is None:
                continue
            _write(out / ch.path.with_suffix(".md"), ec.markdown)
            if ec.provenance and kind == "executed":
                from .provenance import pack
                _write(out / ch.path.with_suffix(".provenance.json"),
                       json.dumps(pack(ec.provenance), ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n")
            lst.append(ec)
        by_book[book.profile] = lst
    return by_book


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


def check(root: Path, names: list[str], opts: Options | None = None,
          report: Report | None = None) -> list[CheckedProfile]:
    """Execute and verify the profiles ``names``; raise BuildError / BuildFailed on failure.
    The caller holds the build lock."""
    opts = opts or Options()
    root = Path(root).resolve()
    store = C.Store((opts.cache_dir or cache_dir(root)) if opts.cache else None)
    C.use(store)
    books = [load_book(root, p) for p in names]
    environment = C.environment_digest(root)
    executed = execute_books(root, books, store, opts.limits, report=report, environment=environment)
    run_variants(root, books, executed, store, opts.limits, report, environment)
    all_books = [load_book(root, p) for p in (list_profiles(root) or names)]
    # a verification that passed is not repeated while nothing it reads has changed
    vkey = verify_key(root, books, all_books, executed) if store.enabled else ""
    hit = store.get_blob("verify", vkey) if vkey else None
    indexes = pickle.loads(hit) if hit is not None else {}
    errors: list[BuildError] = []
    done: list[CheckedProfile] = []
    for book in books:
        exs = executed[book.profile]
        index = indexes.get(book.profile) or build_index(book, exs)
        cp = CheckedProfile(book, exs, index, executed_dir(root, book.profile))
        if hit is None:
            errors += verify_profile(book, exs, index)
        _write(cp.executed_dir / "book.json",
               json.dumps(manifest(cp), ensure_ascii=False, indent=2, sort_keys=True, default=str) + "\n")
        done.append(cp)
    if hit is not None:
        if report is not None:
            report.checked = done
        return done
    bibs: list[Path] = []
    for book in books:
        bibs += [b for b in book.bibliography if b not in bibs]
    errors += check_bibliography(root, bibs)
    files: list[str] = []
    for cp in done:
        for ec in cp.executed:
            files += [f for f in ec.files if f not in files]
    errors += lint_files(root, files)
    errors += check_unused_strs(root, all_books)
    errors += check_translations(root, all_books)   # the drift guard and the glossary
    if errors:
        raise BuildFailed(errors)
    if vkey:
        store.put_blob("verify", vkey, pickle.dumps({cp.book.profile: cp.index for cp in done}))
    if report is not None:
        report.checked = done
    return done


#: bookbuild's modules whose rules the verification applies
VERIFY_MODULES = ("verify.py", "lint.py", "xref.py", "project.py", "execute.py", "lint_allowlist.toml",
                  "quarto_language.toml", "translation.py")


def verify_key(root: Path, books: list[Book], all_books: list[Book],
               executed: dict[str, list[ExecutedChapter]]) -> str:
    """Everything the checks after execution read: the executed markdown of the books checked, every
    source file of every profile (a ``*_str`` must be quoted somewhere), the bibliographies, the
    allowlist and the checking code."""
    here = Path(__file__).parent
    parts = [b"verify", ",".join(b.profile for b in books).encode()]
    parts += [C.file_digest(here / n).encode() for n in VERIFY_MODULES]
    for book in books:
        for ec in executed[book.profile]:
            parts.append(C.sha256_bytes(ec.markdown.encode("utf-8")).encode())
        parts += [C.file_digest(root / b).encode() for b in book.bibliography]
    files: set[str] = set()
    for book in all_books:
        for ch in book.chapters:
            try:
                files.update(f.relative_to(root).as_posix() for f in _chapter_files(root, (root / ch.path).resolve()))
            except (BuildError, ValueError):
                files.add(ch.path.as_posix())
    for f in sorted(files):
        parts += [f.encode(), C.file_digest(root / f).encode()]
    for y in sorted(root.glob("_quarto*.yml")):
        parts.append(C.file_digest(y).encode())
    return C.sha256_bytes(*parts)


# ------------------------------------------------------------------ render

def render_key(root: Path, cp: CheckedProfile, formats: tuple[str, ...]) -> str:
    """Everything a rendered book depends on once its chapters are executed."""
    d = cp.executed_dir
    parts = [b"render", ",".join(formats).encode(), json.dumps(C.package_versions(), sort_keys=True).encode(),
             C.tree_digest(Path(__file__).parent / "render").encode(),
             C.tree_digest(d).encode()]
    for b in cp.book.bibliography:
        parts.append(C.file_digest(root / b).encode())
    for other in sorted(d.parent.iterdir()):
        if other.name != d.name and (other / "book.json").is_file():
            parts.append(C.file_digest(other / "book.json").encode())
    for k in ("BOOK_CJK_FONT_DIR", "PANDOC"):
        parts.append(os.environ.get(k, "").encode())
    return C.sha256_bytes(*parts)


STAMP = ".bookbuild-stamp"


def _output_dir(root: Path, book: Book) -> Path:
    return (Path(root) / book.output_dir).resolve()


def render_books(root: Path, checked: list[CheckedProfile], opts: Options,
                 report: Report | None = None) -> None:
    """Render each book into a staging folder; replace ``_book/<lang>`` only when all of it succeeded."""
    root = Path(root).resolve()
    staging_root = root / "_build" / "staging"
    todo = []
    for cp in checked:
        key = render_key(root, cp, opts.formats)
        dest = _output_dir(root, cp.book)
        stamp = dest / STAMP
        if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == key:
            if report is not None:
                report.up_to_date.append(cp.book.profile)
            continue
        todo.append((cp, key, dest))
    if not todo:
        return
    from . import render as R   # pandoc, typst and BeautifulSoup: only when something is rendered
    if staging_root.exists():
        shutil.rmtree(staging_root)
    staging_root.mkdir(parents=True)

    def one(item):
        cp, key, dest = item
        stage = staging_root / cp.book.profile
        R.render_profile(root, cp.book.profile, cp.executed_dir, staging_root, formats=opts.formats)
        _write(stage / STAMP, key + "\n")
        return cp, stage, dest

    errors: list[BuildError] = []
    staged = []
    with ThreadPoolExecutor(max_workers=max(1, len(todo))) as pool:
        for fut in [pool.submit(one, item) for item in todo]:
            try:
                staged.append(fut.result())
            except BuildError as e:
                errors.append(e)
    if errors:
        shutil.rmtree(staging_root, ignore_errors=True)
        kept = ", ".join(_rel(_output_dir(root, cp.book), root) for cp, _, _ in todo)
        errors.append(BuildError(None, None, f"nothing was replaced: {kept} left as before"))
        raise BuildFailed(errors)
    for cp, stage, dest in staged:
        _swap(stage, dest, root)
        if report is not None:
            report.rendered.append(cp.book.profile)
    shutil.rmtree(staging_root, ignore_errors=True)


def _rel(p: Path, root: Path) -> str:
    try:
        return Path(p).relative_to(root).as_posix()
    except ValueError:
        return str(p)


def _swap(stage: Path, dest: Path, root: Path) -> None:
    """Put ``stage`` where ``dest`` is: rename the old one aside, rename the new one in, delete the old."""
    trash = root / "_build" / "trash" / f"{dest.name}-{os.getpid()}-{time.monotonic_ns()}"
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        trash.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            os.rename(dest, trash)
        try:
            os.rename(stage, dest)
        except OSError:
            if trash.exists():
                os.rename(trash, dest)   # put the old book back
            raise
    except OSError as e:
        raise BuildError(_rel(dest, root), None, f"cannot replace the rendered book: {e.strerror}; "
                                                 "it was left as before") from None
    shutil.rmtree(trash, ignore_errors=True)


def build(root: Path, names: list[str], opts: Options, render: bool) -> Report:
    """``check`` (and ``render``) under the build lock; the one entry point of every command."""
    t0 = time.perf_counter()
    report = Report(checked=[])
    with build_lock(root, opts.quiet):
        check(root, names, opts, report)
        if render:
            render_books(root, report.checked, opts, report)
    report.seconds = time.perf_counter() - t0
    return report


def check_book(root: Path, names: list[str], opts: Options | None = None) -> list[CheckedProfile]:
    """Execute and verify ``names`` under the build lock (the library form of ``check``)."""
    return build(root, names, opts or Options(quiet=True), render=False).checked


def facts(root: Path, names: list[str], opts: Options) -> dict:
    """Every chapter's inline values and recorded guards (``MLSYSIM_GUARDS=record``), for ``diff``.
    A chapter that does not execute is reported with its error, not raised."""
    root = Path(root).resolve()
    store = C.Store((opts.cache_dir or cache_dir(root)) if opts.cache else None)
    C.use(store)
    out: dict = {}
    with build_lock(root, True):
        books = [load_book(root, p) for p in names]
        failures: dict[str, BuildError] = {}
        executed = execute_books(root, books, store, opts.limits, env={"MLSYSIM_GUARDS": "record"},
                                 kind="facts", failures=failures)
        for book in books:
            chapters: dict = {}
            by_path = {ec.source.as_posix(): ec for ec in executed.get(book.profile, [])}
            for ch in book.chapters:
                src = ch.path.as_posix()
                ec = by_path.get(src)
                if ec is None:
                    err = failures.get(f"{book.profile}:{src}")
                    chapters[src] = {"inline": [], "guards": [], "error": err.format() if err else "did not run"}
                    continue
                chapters[src] = {
                    "inline": [{"expr": u.expr.strip(), "file": u.file, "line": u.line, "value": u.value}
                               for u in ec.inline],
                    "guards": [{"file": g["file"], "line": g["line"], "passed": g["passed"], "message": g["message"]}
                               for g in ec.guards]}
            out[book.profile] = {"profile": book.profile, "lang": book.lang, "chapters": chapters}
    return out


# ------------------------------------------------------------------ variants

def run_variants(root: Path, books: list[Book], executed: dict[str, list[ExecutedChapter]], store: C.Store,
                 limits: Limits, report: Report | None = None, environment: str | None = None) -> None:
    """For every chapter whose front matter asks for it (``mlsysim-variants: true``), compute every
    registry choice with the chapter's own cells (cached by the cells' content, shared by the
    languages) and write ``_build/executed/<profile>/<chapter>.variants.json`` for the renderer."""
    from . import variants as V
    root = Path(root).resolve()
    wanted = []
    for book in books:
        for ch, ec in zip(book.chapters, executed[book.profile]):
            if ec.front_matter.get(V.FRONT_MATTER_KEY):
                wanted.append((book, ch, ec))
    if not wanted:
        return
    environment = environment or C.environment_digest(root)
    pending: dict[str, tuple[Path, list[dict]]] = {}
    keyed = []
    for book, ch, ec in wanted:
        path = (root / ch.path).resolve()
        src = V.chunks(path, root)
        choices = V.choices(root)
        key = C.sha256_bytes(b"variants", environment.encode(), json.dumps(choices).encode(),
                             *(f"{f}:{n}".encode() + s.encode() for s, f, n in src))
        keyed.append((book, ch, ec, key))
        if key not in pending and store.get_blob("variants", key) is None:
            pending[key] = (path, choices)
    results: dict[str, list] = {}
    if pending:
        width = limits.parallel or os.cpu_count() or 1
        jobs = []
        for key, (path, choices) in pending.items():
            n = max(1, -(-len(choices) // width))
            for i in range(0, len(choices), n):
                jobs.append(Job(key=f"{key}:{i}", path=path, root=root, fig_dir=root / "_build" / "variants",
                                md_dir=root, task="variants", payload={"batch": choices[i:i + n]}))
        ran = run_jobs(jobs, limits, drawing=False)   # variants draw nothing
        errors = [r for r in ran.values() if isinstance(r, BuildError)]
        if errors:
            raise BuildFailed(errors)
        for key in pending:
            parts = sorted((int(k.rsplit(":", 1)[1]), v) for k, v in ran.items() if k.rsplit(":", 1)[0] == key)
            results[key] = [r for _, batch in parts for r in batch]
            store.put_blob("variants", key, json.dumps(results[key], sort_keys=True).encode("utf-8"))
        if report is not None:
            report.executed.append(f"variants ({sum(len(c) for _, c in pending.values())} choices)")
    for book, ch, ec, key in keyed:
        data = results.get(key)
        if data is None:
            data = json.loads(store.get_blob("variants", key).decode("utf-8"))
        reference = {u.expr.strip(): u.value for u in ec.inline}
        _write(executed_dir(root, book.profile) / ch.path.with_suffix(".variants.json"),
               json.dumps(V.compact(data, reference, ec.guard_map), ensure_ascii=False, sort_keys=True) + "\n")
