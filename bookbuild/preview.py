"""``python -m bookbuild preview [--profile en|zh] [--port N] [--no-browser]``: the author's loop.

Serves ``_book/<lang>`` on localhost, watches the sources (chapters and what they include, the
``_quarto*.yml`` files, the bibliography, the code trees every result depends on: bookbuild's and the
libraries' the chapters import) and, on a change, rebuilds through the same passes as ``render``, in a
child forked by a warm worker that imported the stack once (:mod:`bookbuild.worker`; a new worker
whenever code or data changed, so changed library code is imported anew); the content cache
re-executes only what the change touched. Every page the
server sends carries a small script that listens for the next build on an event stream and reloads;
a failed build (a broken guard, a typo in a cell) shows its one-line messages in a banner on the page
and in the terminal, and the next good build clears it. Ctrl-C stops the server cleanly.

A prose edit is shown before the build: when the one file saved is a chapter whose cells did not change,
its changed paragraphs are converted on their own and swapped into the open page in place
(:mod:`bookbuild.prose_patch`, which patches only what it can check against the page served; the page
reloads when it cannot), and the build that follows reloads the page as it renders it.

Watching polls the files' modification times and sizes (a few hundred files, every 0.1 s): no
dependency, and it works the same on every file system.

Pages are sent fresh every time (``no-store``: each carries the build's version). Every other file (the
scripts, plotly.js, styles, figures) carries an ETag, the digest of its bytes, and ``no-cache``: the
browser asks again on each reload and is answered "not modified" when the bytes are the same, so a
reload neither downloads nor compiles again what the build did not change, and never shows an old file.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import webbrowser
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from . import procs
from .project import load_book, named_files
from .cache import tree_digest
from .passes.parse import ENGINE, code_trees
from .source import parse
from .worker import Warm

EVENTS = "/__bookbuild__/events"
STATUS = "/__bookbuild__/status"

CLIENT_JS = "/__bookbuild__/client.js"
#: the script every page the preview serves loads (preview_client.js beside this module: a file of the server's,
#: not inline, since the pages' Content-Security-Policy runs scripts of the book's own origin only); its tag
#: carries the version
CLIENT = (Path(__file__).parent / "preview_client.js").read_text(encoding="utf-8").replace("__EVENTS__", EVENTS)


def client_tag(version: int, patch: int = 0) -> str:
    """The preview's script tag: the build the page is of, and the last patch it already shows."""
    return (f'<script id="bookbuild-preview" src="{CLIENT_JS}" data-version="{int(version)}" '
            f'data-patch="{int(patch)}"></script>')


class State:
    """What the server tells the pages: the build's version, whether it passed, its error lines."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.version = 0
        self.ok = True
        self.errors: list[str] = []
        self.building = False                # a build runs: the status is not "ok" until it ends
        self.stopping = False
        self.patch: dict | None = None       # the last prose patch (:mod:`bookbuild.prose_patch`), numbered
        self.pages: dict[str, str] = {}      # the pages it patched, served until the next build

    def set_building(self, building: bool) -> None:
        with self.cond:
            self.building = building
            self.cond.notify_all()

    def publish(self, ok: bool, errors: list[str]) -> None:
        with self.cond:
            if ok:
                self.version += 1
                self.pages = {}
            self.ok, self.errors = ok, errors
            self.cond.notify_all()

    def publish_patch(self, page: str, old: str, new: str, html: str) -> None:
        """A prose edit shown in place: the open page swaps ``old`` for ``new``; ``html`` is served for
        ``page`` until the build that follows is published."""
        with self.cond:
            n = (self.patch or {}).get("n", 0) + 1
            self.patch = {"n": n, "page": page, "old": old, "new": new}
            self.pages[page] = html
            self.cond.notify_all()

    def snapshot(self) -> dict:
        """``errors`` of a failed build; ``warnings`` of one that passed (``self.errors`` holds either);
        ``ok`` only when the last build passed and none runs (``building``)."""
        return {"version": self.version, "ok": self.ok and not self.building, "building": self.building,
                "errors": [] if self.ok else self.errors, "warnings": self.errors if self.ok else [],
                "patch": self.patch}


def watched_files(root: Path, names: list[str]) -> list[Path]:
    """Every file whose change can change the book (the same inputs the cache keys cover)."""
    from .commands import BOOK
    from .settings import Settings
    root = Path(root)
    out: set[Path] = set(root.glob("_quarto*.yml"))
    for tree in code_trees(Settings(root=root, layer=BOOK)):
        out.update(p for p in tree.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for name in names:
        try:
            book = load_book(root, name)
        except Exception:  # noqa: BLE001 - a broken config is reported by the build itself
            out.update(named_files(root, name))   # still watched: a chapter renamed away and back
            continue
        out.update(root / b for b in book.bibliography)
        for ch in book.chapters:
            out.add(root / ch.path)
            try:
                out.update(root / rel for rel in parse(ch.path, root).files)
            except Exception:  # noqa: BLE001 - a broken chapter is reported by the build itself
                pass
    return sorted(out)


def snapshot(files: list[Path]) -> dict[Path, tuple[int, int]]:
    snap = {}
    for f in files:
        try:
            st = f.stat()
            snap[f] = (st.st_mtime_ns, st.st_size)
        except OSError:
            snap[f] = (0, -1)
    return snap


class Builds:
    """The rebuilds the preview drives, one at a time, each forked by the warm worker
    (:mod:`bookbuild.worker`: the stack imported once, a fresh child per build, a new worker whenever the
    code or data changed) in a session of its own that stops when the preview ends however it ends;
    :meth:`stop` sends the build SIGTERM first, so its own handler stops its jobs and removes its
    staging, then kills what is left, and the worker with it."""

    def __init__(self) -> None:
        self.warm: Warm | None = None
        self.pid: int | None = None
        self.cancelled = False     # the last build was stopped by a newer save (:meth:`cancel`)
        self.downloads: subprocess.Popen | None = None   # the PDF and EPUB's render (:func:`build_downloads`)

    def run(self, argv: list[str], root: Path) -> subprocess.CompletedProcess:
        self.cancelled = False
        if self.warm is None:
            self.warm = Warm(root)

        def started(pid: int) -> None:
            self.pid = pid
            procs.register(pid, "polite")
        try:
            return self.warm.run(argv, started)
        finally:
            if self.pid is not None:
                procs.unregister(self.pid)
                self.pid = None

    def cancel(self) -> bool:
        """Stop the build that runs (a new save makes it stale), not the worker: SIGTERM to its group (its
        handler stops its jobs and removes its staging), then SIGKILL; False when none runs."""
        pid = self.pid
        if pid is None or procs.ended(pid):
            return False
        self.cancelled = True
        procs.stop_politely([pid])
        if not procs.ended(pid):
            procs.kill_tree(pid)
        return True

    def stop_downloads(self) -> None:
        """Stop the PDF and EPUB's render of an older save: it holds the build lock, and it may be running a
        cell the newer save fixed (an endless one would hold the next build until its time limit)."""
        proc, self.downloads = self.downloads, None
        if proc is not None and proc.poll() is None:
            procs.stop_politely([proc.pid])
            if proc.poll() is None:
                procs.kill_tree(proc.pid, group=True)

    def stop(self) -> None:
        self.stop_downloads()
        pid, self.pid = self.pid, None
        if pid is not None and not procs.ended(pid):
            procs.register(pid, "polite")
            procs.stop_all()
        warm, self.warm = self.warm, None
        if warm is not None:
            warm.stop()


BUILDS = Builds()

#: what the preview builds after the page, so that the page's download buttons have their files
DOWNLOADS = "html,pdf,epub"


#: what the page says between the text's build and the choices' build
DEFERRED = ("the reader's choices (accelerator, model) are being computed again: until the page reloads "
            "by itself it shows the reference only")


#: what a build stopped by a newer save reports (no result: the next build follows at once)
CANCELLED = "preview: stopped by a newer save"


def build_once(root: Path, profile: str, cell_timeout: float | None = None,
               defer: bool = False, memory_limit: int | None = None,
               formats: str = "html") -> tuple[bool, list[str], float, bool]:
    """One ``render`` (HTML only, unless ``formats``) by the warm worker; returns (ok, error lines, seconds,
    whether the layer's choices were left for the next build: ``defer``, the text first)."""
    argv = ["render", "--profile", profile, "--root", str(root), "--formats", formats, "--stale-translations", "warn"]
    if cell_timeout:
        argv += ["--cell-timeout", str(cell_timeout)]
    if memory_limit:
        argv += ["--memory-limit", str(memory_limit)]
    if defer:
        argv.append("--defer-layer")
    t0 = time.perf_counter()
    r = BUILDS.run(argv, root)
    if BUILDS.cancelled:
        return False, [CANCELLED], time.perf_counter() - t0, False
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and "waiting for it" not in ln]
    if r.returncode == 0:   # a build that passed says only its warnings (a stale translation)
        lines = [ln.split("warning: ", 1)[1] for ln in lines if ln.startswith("bookbuild: note: warning: ")]
    deferred = r.returncode == 0 and any(ln.startswith("deferred: ") for ln in r.stdout.splitlines())
    return r.returncode == 0, lines, time.perf_counter() - t0, deferred


def build_downloads(root: Path, profile: str) -> None:
    """The PDF and EPUB of the sources just built, by a render of its own (the HTML it writes is the page's,
    byte for byte; the build lock orders it with the next edit's build)."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "bookbuild", "render", "--profile", profile, "--root",
                                 str(root), "--formats", DOWNLOADS, "--stale-translations", "warn"],
                                cwd=str(root), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError:
        return
    BUILDS.downloads = proc
    procs.register(proc.pid, "polite")
    try:
        out, err_bytes = proc.communicate()
    finally:
        procs.unregister(proc.pid)
    if proc.returncode < 0 or BUILDS.downloads is not proc:   # stopped by a newer save: its files would be stale
        return
    r = subprocess.CompletedProcess(proc.args, proc.returncode, out, err_bytes)
    ok = r.returncode == 0
    print(f"preview: the PDF and EPUB {'rebuilt' if ok else 'could not be rebuilt'} "
          f"({time.perf_counter() - t0:.1f} s)", file=sys.stdout if ok else sys.stderr, flush=True)
    err = "" if ok else r.stderr.decode("utf-8", "replace")
    if "Traceback (most recent call last)" in err:   # the engine itself did not start: where, in one line
        from .worker import where_it_failed
        print("bookbuild: the PDF and EPUB's build did not start" + where_it_failed(err, root), file=sys.stderr,
              flush=True)
        return
    for ln in err.splitlines():
        if ln.strip() and "waiting for it" not in ln:
            print(ln, file=sys.stderr, flush=True)


def changed_since(before: dict[Path, tuple[int, int]], files: list[Path], started_ns: int
                  ) -> dict[Path, tuple[int, int]]:
    """The snapshot to compare the next poll with, after a build that started at ``started_ns`` from the
    sources ``before`` describes: a file the build did not know of yet counts as built only if it was
    last written before the build started (else the next poll sees it as changed)."""
    now = snapshot(files)
    return {f: before[f] if f in before else (now[f] if 0 <= now[f][0] < started_ns else (0, -2)) for f in files}


def send_revalidated(handler: SimpleHTTPRequestHandler, target: Path) -> bool:
    """Send a file of the book with the digest of its bytes as its ETag, or "not modified" when the browser
    holds those bytes (see the module's docstring); False when it cannot be read (the server says why)."""
    try:
        data = target.read_bytes()
    except OSError:
        return False
    tag = '"' + hashlib.blake2b(data, digest_size=16).hexdigest() + '"'
    handler.caching = "no-cache"
    if tag in [t.strip() for t in handler.headers.get("If-None-Match", "").split(",")]:
        handler.send_response(HTTPStatus.NOT_MODIFIED)
        handler.send_header("ETag", tag)
        handler.end_headers()
        return True
    handler.send_response(HTTPStatus.OK)
    handler.send_header("Content-Type", handler.guess_type(str(target)))
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header("ETag", tag)
    handler.end_headers()
    handler.wfile.write(data)
    return True


def page_text(book_dir: Path, state: State, target: Path | None) -> str:
    """A page as the preview sends it: the book's file (or the page a prose patch made of it, until the
    next build), with the preview's script, which knows the build and the patch the page shows."""
    with state.cond:
        rel = os.path.relpath(target, book_dir) if target is not None else ""
        patched, version, patch = state.pages.get(rel), state.version, (state.patch or {}).get("n", 0)
    if target is None:
        text = ("<!doctype html><meta charset=utf-8><title>bookbuild preview</title>"
                "<body><p>No book yet: the first build has not succeeded.</p></body>")
    else:
        text = patched if patched is not None else target.read_text(encoding="utf-8")
    script = client_tag(version, patch)
    return text.replace("</body>", script + "</body>", 1) if "</body>" in text else text + script


class Server(ThreadingHTTPServer):
    """The preview's HTTP server. A browser that goes away in the middle of an answer (a reload, a closed tab) is
    no error; any other failure of one request is one line on the terminal, never a traceback."""
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        print(f"preview: a request from the browser failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


def book_file(book_dir: Path, path: str) -> tuple[Path | None, HTTPStatus | None]:
    """The file of the book a request path names, resolved (links followed; a folder: its index.html), or
    the refusal: a malformed path (a NUL) is 400, one that leads outside the book (a link placed in it) 404."""
    from urllib.parse import unquote
    if "\0" in path or "\0" in unquote(path):
        return None, HTTPStatus.BAD_REQUEST
    try:
        rel = unquote(path.split("#", 1)[0]).lstrip("/")
        target = (book_dir / rel).resolve()
        base = book_dir.resolve()
    except (OSError, ValueError, RuntimeError):
        return None, HTTPStatus.BAD_REQUEST
    if target.is_dir():   # a folder is its index.html, never a listing
        target = (target / "index.html").resolve()
    if base not in target.parents:
        return None, HTTPStatus.NOT_FOUND
    return target, None


def messages(last: dict | None, snap: dict) -> list[dict]:
    """What the event stream sends for the status ``snap`` after ``last``: a prose patch and the build that
    followed it, seen at once, are two messages, the patch first (else the page would reload to the build
    before it showed the edit in place, which is the patch's one purpose)."""
    if last is not None and snap["patch"] != last["patch"] and snap["version"] != last["version"]:
        return [{**last, "patch": snap["patch"]}, snap]
    return [snap]


def make_handler(book_dir: Path, state: State):
    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(book_dir), **kw)

        def log_message(self, fmt, *args):  # quiet: the terminal shows builds, not requests
            pass

        def end_headers(self):
            self.send_header("Cache-Control", getattr(self, "caching", "no-store"))
            super().end_headers()

        def do_GET(self):  # noqa: N802 - http.server's name
            path = self.path.split("?", 1)[0]
            if path == EVENTS:
                return self._events()
            if path == STATUS:
                return self._json(state.snapshot())
            if path == CLIENT_JS:
                return self._script()
            if not book_dir.is_dir():
                return self._page(None)
            target = self._inside(path)
            if target is None:
                return None
            if target.suffix == ".html" and target.is_file():
                return self._page(target)
            if target.is_file() and send_revalidated(self, target):
                return None
            return self.send_error(HTTPStatus.NOT_FOUND)

        def do_HEAD(self):  # noqa: N802 - http.server's: the browser asks with GET; http.server's own would list folders
            self.send_error(HTTPStatus.METHOD_NOT_ALLOWED)

        def _inside(self, path: str) -> Path | None:
            target, refusal = book_file(book_dir, path)
            if refusal:
                self.send_error(refusal)
            return target

        def _send(self, data: bytes, kind: str):
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _json(self, obj):
            self._send(json.dumps(obj).encode(), "application/json")

        def _script(self):
            self._send(CLIENT.encode("utf-8"), "text/javascript; charset=utf-8")

        def _page(self, target: Path | None):
            self._send(page_text(book_dir, state, target).encode("utf-8"), "text/html; charset=utf-8")

        def _events(self):
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            last = None
            try:
                while not state.stopping:
                    with state.cond:   # compared under the lock: a change made meanwhile is never slept through
                        while not state.stopping and state.snapshot() == last:
                            state.cond.wait(timeout=1.0)
                        snap = state.snapshot()
                    for message in messages(last, snap):
                        self.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
                    self.wfile.flush()
                    last = snap
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


class Patching:
    """The preview's prose patches (:mod:`bookbuild.prose_patch`): a :class:`~bookbuild.prose_patch.Patcher`
    loaded after each build that passed (in a thread: the page the build made is published meanwhile), used
    only while bookbuild's code on disk is the code this process imported (a patch converts with this
    process's filters; the build, with the code on disk)."""

    def __init__(self, root: Path, profile: str):
        self.root, self.profile = root, profile
        self.patcher = None
        self.engine = tree_digest(ENGINE)
        self.loading: threading.Thread | None = None

    def reload(self, ok: bool) -> None:
        if self.loading is not None:
            self.loading.join()   # an older load never outlives a newer one
        self.patcher = None
        if ok:
            self.loading = threading.Thread(target=self._load, daemon=True)
            self.loading.start()

    def _load(self) -> None:
        if tree_digest(ENGINE) != self.engine:
            return
        try:
            from .commands import BOOK
            from .prose_patch import Patcher
            from .settings import Settings
            self.patcher = Patcher(Settings.make(self.root, layer=BOOK), self.profile)
        except Exception:  # noqa: BLE001 - no patches then: every edit is built, as before
            self.patcher = None

    def loaded(self) -> None:
        """Once the last build's patcher has read the pages it patches (a render started before then
        could write them from a newer save)."""
        if self.loading is not None:
            self.loading.join()

    def patch(self, changed: list[Path]):
        """The patch of the one chapter saved, or None (then only the build shows the edit)."""
        if len(changed) != 1 or changed[0].suffix != ".qmd":
            return None
        self.loaded()   # the patcher of the last build
        if self.patcher is None:
            return None
        try:
            return self.patcher.patch(changed[0].relative_to(self.root).as_posix())
        except Exception:  # noqa: BLE001 - a patch is a head start, never a failure: the build follows
            return None


def all_profiles(root: Path, profile: str) -> list[str]:
    """The profile previewed and every other of the project: their chapters are watched too."""
    try:
        from .project import profiles
        return [profile] + [p for p in profiles(root) if p != profile]
    except Exception:  # noqa: BLE001 - a broken config is reported by the build itself
        return [profile]


def watch(root: Path, profile: str, interval: float, rebuild, show=None) -> None:
    """Build, then poll the sources and ``rebuild()`` on a change (``show(changed)`` first: what can be
    shown before the build). The snapshot a build is compared with is taken before it starts, so an edit
    saved while it runs triggers the next one."""
    names = all_profiles(root, profile)   # a translation's stamp (``translated``) rebuilds the English preview
    files = watched_files(root, names)
    snap, first = snapshot(files), True
    while True:
        if not first:
            time.sleep(interval)
            new = snapshot(files)
            if new == snap:
                continue
            changed = [f for f in new if new[f] != snap.get(f)]
            time.sleep(0.05)   # let an editor finish writing
            print("preview: changed " + ", ".join(os.path.relpath(f, root) for f in changed[:4])
                  + (" …" if len(changed) > 4 else ""), flush=True)
            if show is not None:
                show(changed)
        first = False
        snap, started = snapshot(files), time.time_ns()
        with _cancel_on_save(files, snap, interval):
            rebuild()
        files = watched_files(root, names)   # an include may have been added
        snap = changed_since(snap, files, started)


@contextlib.contextmanager
def _cancel_on_save(files: list[Path], snap: dict, interval: float):
    """While the build runs, a save (any watched file changed from ``snap``) stops it: the next build,
    with the new save, starts at once (an endless cell fixed is shown without waiting for its limit)."""
    done = threading.Event()

    def poll() -> None:
        while not done.wait(interval):
            if snapshot(files) != snap:
                BUILDS.cancel()
                return
    t = threading.Thread(target=poll, daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()


def report_build(state: State, profile: str, ok: bool, errors: list[str], secs: float) -> None:
    """A build's outcome on the terminal (its warnings, or its errors and that the last good pages stay) and
    to the page's status."""
    if ok:
        for ln in errors:   # warnings of a build that passed
            if ln != DEFERRED:
                print(f"warning: {ln}", file=sys.stderr, flush=True)
        what = "the text of " if DEFERRED in errors else ""
        print(f"preview: built {what}{profile} in {secs:.1f} s", flush=True)
    else:
        for ln in errors:
            print(ln, file=sys.stderr, flush=True)
        print(f"preview: the build failed ({secs:.1f} s); serving the last good pages", file=sys.stderr, flush=True)
    state.publish(ok, errors)


def run(args: argparse.Namespace) -> int:
    """``preview``, its options parsed (:mod:`bookbuild.cli`)."""
    # Ctrl-C (and a polite kill) stop the preview cleanly, even where the shell that started it
    # ignores SIGINT (a background job inherits SIG_IGN, and Python then installs no handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    root = args.root
    profile = args.profile or load_book(root, None).profile
    book = load_book(root, profile)
    book_dir = (root / book.output_dir).resolve()
    state = State()

    def report(ok, errors, secs):
        report_build(state, profile, ok, errors, secs)

    try:
        server = Server(("127.0.0.1", args.port), make_handler(book_dir, state))
    except OSError as e:
        print(f"bookbuild: cannot serve on 127.0.0.1:{args.port}: {e.strerror}; choose another --port",
              file=sys.stderr)
        return 1
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"preview: serving {book.output_dir.as_posix()} at {url} (Ctrl-C stops)", flush=True)
    opened = args.no_browser

    patcher = Patching(root, profile)

    def rebuild():
        """The text first (the layer's slow choices left out), then, if they were, the whole page."""
        nonlocal opened
        state.set_building(True)
        try:
            BUILDS.stop_downloads()   # a newer save: the older PDF and EPUB's render would hold the lock
            ok, lines, secs, deferred = build_once(root, profile, args.cell_timeout, True, args.memory_limit)
            if deferred:
                report(ok, lines + [DEFERRED], secs)
                ok, lines, secs, _ = build_once(root, profile, args.cell_timeout, False, args.memory_limit)
        finally:
            state.set_building(False)
        if lines == [CANCELLED]:
            print(CANCELLED, flush=True)
            return
        patcher.reload(ok)   # before the status says the build is done: an edit saved then is patched in place
        report(ok, lines, secs)
        if not opened:
            opened = True
            webbrowser.open(url)
        if ok:   # the page's PDF and EPUB buttons: built in the background, an edit meanwhile is not held up
            threading.Thread(target=downloads, daemon=True).start()

    def downloads() -> None:
        patcher.loaded()   # its render writes the pages and executed chapters the patcher reads
        build_downloads(root, profile)

    def show(changed: list[Path]) -> None:
        t0 = time.perf_counter()
        p = patcher.patch(changed)
        if p is not None:
            state.publish_patch(p.page, p.old, p.new, p.html)
            print(f"preview: shown in place in {time.perf_counter() - t0:.2f} s; building", flush=True)

    try:
        watch(root, profile, args.interval, rebuild, show)
    except KeyboardInterrupt:
        print("\npreview: stopped", flush=True)
    finally:
        BUILDS.stop()
        state.stopping = True
        with state.cond:
            state.cond.notify_all()
        server.shutdown()
        server.server_close()
    return 0
