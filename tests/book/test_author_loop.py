"""The author's loop: a cache that cannot serve a stale number, ``diff`` of a registry edit, and the
live preview in a real browser.

The projects here are the tiny fixture book plus a private copy of the ``mlsysim`` package (the
chapters import the project's own copy, which comes first on their ``sys.path``), so an edit to the
copy's registry is exactly what an author's edit to ``mlsysim/data/accelerators.toml`` is. Expected
numbers are the H100's published 3.35 TB/s and the edit typed here.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, book_copy

CHAPTER = "appendix/ref.qmd"
HW_CELL = '''
```{python}
#| label: calc-hw
from mlsysim import Hardware, fmt
class HW:
    bw = Hardware.Cloud.H100.memory.bandwidth.to("TB/s").magnitude
    bw_str = fmt(bw, 2)
```

The reference accelerator reads its memory at `{python} HW.bw_str` TB/s.
'''


def project(tmp_path: Path, name: str = "book") -> Path:
    root = book_copy(tmp_path, name=name)
    shutil.copytree(ROOT / "mlsysim", root / "mlsysim", ignore=shutil.ignore_patterns("__pycache__"))
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8") + HW_CELL, encoding="utf-8")
    return root


def build(root: Path, *args: str, cmd: str = "render", env: dict | None = None):
    e = {k: v for k, v in os.environ.items() if k != "MLSYSIM_DATA_DIR"}
    e.update(env or {})
    r = subprocess.run([sys.executable, "-m", "bookbuild", cmd, "--root", str(root), *args], cwd=root,
                       capture_output=True, text=True, timeout=600, env=e)
    assert r.returncode == 0, r.stderr
    return r


def executed_counts(r) -> tuple[int, int]:
    m = re.search(r"executed (\d+) chapter\(s\), (\d+) from the cache", r.stdout)
    assert m, r.stdout
    return int(m.group(1)), int(m.group(2))


def page(root: Path, lang: str = "en") -> str:
    """The appendix page's text (tags removed: each computed number sits in its own span)."""
    return re.sub(r"<[^>]+>", "", (root / "_book" / lang / "appendix" / "ref.html").read_text(encoding="utf-8"))


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def edit_bandwidth(root: Path, new: str) -> None:
    f = root / "mlsysim" / "data" / "accelerators.toml"
    text = f.read_text(encoding="utf-8")
    assert '"3.35 TB/s"' in text
    f.write_text(text.replace('"3.35 TB/s"', f'"{new}"', 1), encoding="utf-8")


def test_registry_edit_reaches_the_page_and_nothing_else_reruns(tmp_path):
    root = project(tmp_path)
    r = build(root, "--profile", "all")
    assert executed_counts(r) == (4, 0)
    assert "at 3.35 TB/s" in page(root)
    # nothing changed: nothing executes, nothing renders
    r = build(root, "--profile", "all")
    assert executed_counts(r) == (0, 4)
    assert "en: up to date" in r.stdout and "zh: up to date" in r.stdout
    # a registry value the chapter uses: the chapters that import mlsysim run again; the page follows
    edit_bandwidth(root, "3.90 TB/s")
    r = build(root, "--profile", "all")
    assert executed_counts(r)[0] >= 1
    assert "at 3.90 TB/s" in page(root) and "3.35 TB/s" not in page(root)


def test_prose_edit_reruns_only_that_chapter(tmp_path):
    root = project(tmp_path)
    build(root, "--profile", "all")
    p = root / "index.qmd"
    p.write_text(p.read_text(encoding="utf-8").replace("This book is tiny.", "This book is small."), encoding="utf-8")
    r = build(root, "--profile", "all")
    assert executed_counts(r) == (0, 4) and "(1 with new prose over the same cells" in r.stdout
    assert "en: rendered" in r.stdout and "zh: up to date" in r.stdout
    assert "This book is small." in re.sub(r"<[^>]+>", "", (root / "_book/en/index.html").read_text(encoding="utf-8"))


def test_prose_edit_between_cells_runs_none_and_writes_the_book_a_run_writes(tmp_path):
    """A sentence reworded and one added, among inline values: no cell runs (the chapter is replayed
    over its cells' last run), the page shows the new text with its values, and the book is the one
    a --no-cache build writes; a new inline value runs the chapter."""
    root = project(tmp_path)
    build(root, "--profile", "all")
    p = root / CHAPTER
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace("Items arrive at", "Items come in at").replace(
        "Read @sec-appx-queue first", "Stays: `{python} Ref.stay_str` s. Read @sec-appx-queue first"), encoding="utf-8")
    r = build(root, "--profile", "all")
    assert executed_counts(r) == (0, 4) and "(1 with new prose over the same cells" in r.stdout
    assert "Items come in at 2 per second and stay 30 s." in page(root) and "Stays: 30 s." in page(root)
    replayed = tree(root / "_book")
    build(root, "--profile", "all", "--no-cache")
    assert tree(root / "_book") == replayed
    p.write_text(p.read_text(encoding="utf-8").replace("at `{python} HW.bw_str` TB/s.",
                                                       "at `{python} HW.bw_str` TB/s; items stay `{python} Ref.stay_str` s."),
                 encoding="utf-8")
    r = build(root, "--profile", "en")
    assert executed_counts(r) == (1, 1)          # a value the run never read below the last cell: the chapter runs
    assert "TB/s; items stay 30 s." in page(root)


def test_a_cached_page_body_follows_its_bibliography(tmp_path):
    """Each page's body is cached by everything it reads (render/html.fragment_key): an edited entry of
    the bibliography, every chapter unchanged, reaches the pages that cite it."""
    root = project(tmp_path)
    build(root, "--profile", "en", "--formats", "html")
    home = root / "_book" / "en" / "index.html"
    assert "Operations Research" in home.read_text(encoding="utf-8")
    bib = root / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("Operations Research", "Operations Review"), encoding="utf-8")
    r = build(root, "--profile", "en", "--formats", "html")
    assert executed_counts(r) == (0, 2)
    text = home.read_text(encoding="utf-8")
    assert "Operations Review" in text and "Operations Research" not in text


def test_the_chinese_typography_is_not_checked_again_for_an_english_edit_and_is_for_a_chinese_one(tmp_path):
    """A check that names the chapters it reads (the typography of the Chinese books) is kept on its own:
    an English edit is checked without it, a Chinese edit runs it and its error is found."""
    root = project(tmp_path)
    (root / "notes").mkdir()
    shutil.copyfile(ROOT / "notes" / "glossary.toml", root / "notes" / "glossary.toml")
    zh = root / "index.zh.qmd"
    zh.write_text(zh.read_text(encoding="utf-8").replace("Little 定律", "利特尔定律"), encoding="utf-8")
    kept = root / "_build" / "cache" / "check"
    build(root, "--profile", "all", cmd="check")
    entries = sorted(p for p in kept.rglob("*") if p.is_file())
    assert len(entries) == 2                  # the chapters' typography and the library's, one entry each
    stamps = [p.stat().st_mtime_ns for p in entries]
    en = root / CHAPTER
    en.write_text(en.read_text(encoding="utf-8").replace("Items arrive at", "Items come in at"), encoding="utf-8")
    build(root, "--profile", "all", cmd="check")
    assert sorted(p for p in kept.rglob("*") if p.is_file()) == entries   # the same entries served it
    assert [p.stat().st_mtime_ns for p in entries] == stamps              # neither written again
    ch = root / "appendix" / "ref.zh.qmd"
    ch.write_text(ch.read_text(encoding="utf-8").replace("每秒到达", "每秒（约 10:15am）到达"), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "bookbuild", "check", "--root", str(root), "--profile", "all"],
                       cwd=root, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "appendix/ref.zh.qmd:5: typography (time)" in r.stderr, r.stderr


def test_a_file_s_kept_typography_pass_is_checked_again_under_a_new_rule(tmp_path):
    """The Chinese typography is kept file by file while it passes; a rule added to the glossary afterwards
    reaches every file again (the rules are part of what each pass is kept by)."""
    root = project(tmp_path)
    (root / "notes").mkdir()
    glossary = root / "notes" / "glossary.toml"
    shutil.copyfile(ROOT / "notes" / "glossary.toml", glossary)
    zh = root / "index.zh.qmd"
    zh.write_text(zh.read_text(encoding="utf-8").replace("Little 定律", "利特尔定律"), encoding="utf-8")
    build(root, "--profile", "all", cmd="check")
    text = glossary.read_text(encoding="utf-8")
    glossary.write_text(text.replace("percent_forbidden = [", "percent_forbidden = ['每秒到达', ", 1), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "bookbuild", "check", "--root", str(root), "--profile", "all"],
                       cwd=root, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "appendix/ref.zh.qmd:5: typography (percent)" in r.stderr, r.stderr


def test_a_typed_number_added_by_a_prose_edit_is_caught_by_the_kept_checks(tmp_path):
    """A prose edit is replayed and the lint of its file was kept while it passed: the edited file is
    linted again, and its typed number fails the build."""
    root = project(tmp_path)
    build(root, "--profile", "en", cmd="check")
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8").replace("Items arrive at", "Items (42 GB/s) arrive at"), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "bookbuild", "check", "--root", str(root), "--profile", "en"],
                       cwd=root, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "appendix/ref.qmd:5: typed number '42' in prose" in r.stderr, r.stderr


def test_a_data_file_a_cell_reads_is_part_of_the_key(tmp_path):
    """A file no include names, opened by a cell: recorded while the chapter ran, checked on reuse."""
    root = project(tmp_path)
    (root / "appendix" / "rate.txt").write_text("7", encoding="utf-8")
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8") + (
        "\n```{python}\nclass Rate:\n    v_str = open('rate.txt').read().strip()\n```\n\n"
        "The file says `{python} Rate.v_str`.\n"), encoding="utf-8")
    build(root, "--profile", "en")
    assert "The file says 7." in page(root)
    (root / "appendix" / "rate.txt").write_text("8", encoding="utf-8")
    r = build(root, "--profile", "en")
    assert executed_counts(r) == (1, 1)
    assert "The file says 8." in page(root)


def test_no_cache_build_is_byte_identical(tmp_path):
    root = project(tmp_path)
    build(root, "--profile", "all")
    build(root, "--profile", "all")          # served from the cache
    cached = tree(root / "_book")
    build(root, "--profile", "all", "--no-cache")
    assert tree(root / "_book") == cached


# ------------------------------------------------------------------ diff

def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"})


def committed_project(tmp_path: Path) -> Path:
    """The test project as the first commit of a new git repository."""
    root = project(tmp_path)
    (root / ".gitignore").write_text("_build/\n_book/\n__pycache__/\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "book")
    return root


def test_diff_lists_every_number_a_registry_edit_moved(tmp_path):
    root = committed_project(tmp_path)
    edit_bandwidth(root, "3.90 TB/s")
    r = build(root, cmd="diff", env={})
    lines = r.stdout.strip().splitlines()
    line = next(i + 1 for i, t in enumerate((root / CHAPTER).read_text(encoding="utf-8").splitlines())
                if "HW.bw_str" in t)
    # the English chapter quotes it; the Chinese fixture chapter does not include this cell
    assert f"en: {CHAPTER}:{line}: HW.bw_str: 3.35 → 3.90" in lines
    assert lines[-1].startswith("bookbuild diff: 1 change(s) against HEAD")


def test_diff_runs_a_chapter_for_its_numbers_alone_and_the_build_still_draws_its_figures(tmp_path):
    # a cell that draws a static figure (mlsysim.figures.book_figure writes appendix/figures/<key>.en.svg)
    root = project(tmp_path)
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8") + "\n```{python}\n#| label: draw-queue\n"
                 "from mlsysim.figures import book_figure, queueing_spec\n_queue = book_figure(queueing_spec())\n```\n",
                 encoding="utf-8")
    (root / ".gitignore").write_text("_build/\n_book/\n__pycache__/\n*.svg\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "book")
    svg = root / "appendix" / "figures" / "queueing-knee.en.svg"
    edit_bandwidth(root, "3.90 TB/s")
    r = build(root, cmd="diff", env={})
    assert "HW.bw_str: 3.35 → 3.90" in r.stdout
    assert not svg.exists()                      # both sides ran for their numbers: nothing drawn
    r = build(root, "--profile", "en")
    assert executed_counts(r)[0] >= 1             # diff's runs are not the build's: the chapter runs
    assert svg.is_file() and svg.read_bytes().startswith(b"<?xml")   # and draws its figure


def test_diff_reports_a_guard_the_edit_breaks(tmp_path):
    root = committed_project(tmp_path)
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8").replace(
        "    bw_str = fmt(bw, 2)", "    check(bw < 3.5, f'the H100 reads below 3.5 TB/s, got {bw}')\n    bw_str = fmt(bw, 2)")
        .replace("from mlsysim import Hardware, fmt", "from mlsysim import Hardware, check, fmt"), encoding="utf-8")
    git(root, "commit", "-qam", "guard")
    edit_bandwidth(root, "3.90 TB/s")
    e = {k: v for k, v in os.environ.items() if k != "MLSYSIM_DATA_DIR"}
    r = subprocess.run([sys.executable, "-m", "bookbuild", "diff", "--root", str(root)], cwd=root,
                       capture_output=True, text=True, timeout=600, env=e)
    assert r.returncode == 1, (r.stdout, r.stderr)          # a guard now fails: what check would refuse
    assert "guard now FAILS: the H100 reads below 3.5 TB/s, got 3.9" in r.stdout
    assert "HW.bw_str: 3.35 → 3.90" in r.stdout
    assert r.stdout.strip().splitlines()[-1].endswith("; 1 guard(s) or chapter(s) now fail")
    r = build(root, "--exit-zero", cmd="diff", env={})       # the listing alone, exit 0
    assert "guard now FAILS: the H100 reads below 3.5 TB/s, got 3.9" in r.stdout


# ------------------------------------------------------------------ preview in Chromium

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_preview(root: Path):
    """``preview`` of ``root``'s English book, after its first build: (port, process)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bookbuild", "preview", "--no-browser", "--port", str(port),
                             "--root", str(root), "--profile", "en", "--interval", "0.2"],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    import urllib.request
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/__bookbuild__/status", timeout=2) as r:
                if b'"version": 1' in r.read():
                    break
        except OSError:
            pass
        time.sleep(0.3)
    else:
        proc.kill()
        raise AssertionError("the preview did not finish its first build: " + proc.stderr.read())
    return port, proc


@pytest.fixture
def preview(tmp_path):
    root = project(tmp_path)
    port, proc = start_preview(root)
    yield root, port, proc
    if proc.poll() is None:
        proc.kill()


def test_preview_keeps_the_pdf_and_epub_its_download_buttons_name(preview):
    """The preview's builds are HTML first (the page is reloaded at once), then the downloads, so the PDF
    and EPUB the page's buttons link are there, built from the same sources."""
    root = preview[0]
    book = root / "_book" / "en"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not (list(book.glob("*.pdf")) and list(book.glob("*.epub"))):
        time.sleep(0.3)
    page = (book / CHAPTER).with_suffix(".html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]+\.(?:pdf|epub))"', page)
    assert {Path(h).suffix for h in links} == {".pdf", ".epub"}, links
    for h in links:
        assert ((book / CHAPTER).parent / h).resolve().is_file(), h


def test_preview_warns_of_a_stale_translation_and_clears_it_once_stamped(tmp_path, browser):
    root = project(tmp_path)
    build(root, "appendix/ref.zh.qmd", "--source", CHAPTER, cmd="translated")   # stamped against the English
    port, proc = start_preview(root)
    try:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/appendix/ref.html")
        ch = root / CHAPTER
        ch.write_text(ch.read_text(encoding="utf-8").replace("Items arrive at", "Items now arrive at"), encoding="utf-8")
        # the English edit is built and shown; the stale translation is a warning above it, not a refusal
        page.wait_for_selector("text=Items now arrive at", timeout=60_000)
        page.wait_for_selector("#bookbuild-errors.bookbuild-warning", timeout=60_000)
        assert "translation is stale" in page.inner_text("#bookbuild-errors")
        # stamping the translation (as the warning says) rebuilds, and the warning goes
        build(root, "appendix/ref.zh.qmd", cmd="translated")
        page.wait_for_selector("#bookbuild-errors", state="detached", timeout=60_000)
        page.close()
    finally:
        proc.kill()


#: a script put into every document the test's page opens: a paragraph holding the edit that arrives after
#: the document loaded was swapped in by the preview's client, not parsed from a page the server sent
IN_PLACE = """document.addEventListener('DOMContentLoaded', function(){
  new MutationObserver(function(records){
    records.forEach(function(r){ r.addedNodes.forEach(function(n){
      if ((n.textContent || '').indexOf('Items now arrive at') >= 0) console.log('shown in place: Items now arrive at');
    }); });
  }).observe(document.body, {childList: true, subtree: true});
});"""


def reloaded_not_yet(page) -> bool:
    """The page still holds the mark the test set on it (the pages' policy forbids wait_for_function's eval)."""
    try:
        return page.evaluate("window.__sameDocument") == 1
    except Exception:  # noqa: BLE001 - the context was destroyed: a reload under way
        return True


def test_preview_shows_a_prose_edit_in_place_and_the_build_then_renders_the_same_paragraph(preview, browser):
    root, port, proc = preview
    page = browser.new_page()
    import json
    import urllib.request

    def status() -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/__bookbuild__/status", timeout=5) as r:
            return json.load(r)
    def busy() -> bool:
        st = status()
        return st["building"] or any("being computed again" in w for w in st["warnings"])
    # no build under way (one leaving the choices for the next, or that one itself): a save during a build
    # stops it, and the patcher that build would have left is not there to show the edit in place
    deadline = time.monotonic() + 120
    while busy() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not busy(), "the preview was still building after 120 s"
    # the edit shown in place is a paragraph put into the page after it loaded (the parser's own insertions
    # come before DOMContentLoaded), said on the console: the reload the build brings next cannot erase it
    page.add_init_script(IN_PLACE)
    said: list[str] = []
    page.on("console", lambda m: said.append(m.text))
    page.goto(f"http://127.0.0.1:{port}/appendix/ref.html")
    page.wait_for_selector("text=Items arrive at")
    page.evaluate("window.__sameDocument = 1")      # gone when the page reloads
    ch = root / CHAPTER
    ch.write_text(ch.read_text(encoding="utf-8").replace("Items arrive at", "Items now arrive at"), encoding="utf-8")
    page.wait_for_selector("text=Items now arrive at", timeout=60_000)
    patch = status()["patch"]                         # what the preview swapped in
    # the build follows: the page reloads, and the page the build wrote holds the paragraph as it was shown
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and reloaded_not_yet(page):
        time.sleep(0.1)
    page.wait_for_selector("text=Items now arrive at")
    assert "shown in place: Items now arrive at" in said, said
    assert patch["page"] == "appendix/ref.html" and "Items now arrive at" in patch["new"]
    built = (root / "_book" / "en" / "appendix" / "ref.html").read_text(encoding="utf-8")
    assert patch["new"] in built and patch["old"] not in built
    page.close()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert "preview: shown in place in" in out and "Traceback" not in err


def test_a_patch_is_made_against_the_build_it_follows_not_a_later_render(tmp_path):
    """The preview's PDF and EPUB are a render started after its build, which writes the same pages and
    executed chapters from the sources as saved then: an edit saved at once is still shown in place (the
    patcher read what it patches when it was loaded; read later, the edit is already there: no change)."""
    from bookbuild.commands import BOOK
    from bookbuild.prose_patch import Patcher
    from bookbuild.settings import Settings
    root = project(tmp_path)
    build(root, "--profile", "en", "--formats", "html")
    patcher = Patcher(Settings.make(root, layer=BOOK), "en")
    ch = root / CHAPTER
    ch.write_text(ch.read_text(encoding="utf-8").replace("Items arrive at", "Items now arrive at"), encoding="utf-8")
    build(root, "--profile", "en", "--formats", "html")   # the later render, from the edited source
    assert "Items now arrive at" in (root / "_book" / "en" / "appendix" / "ref.html").read_text(encoding="utf-8")
    p = patcher.patch(CHAPTER)
    assert p is not None and p.page == "appendix/ref.html"
    assert "Items now arrive at" in p.new and "Items arrive at" in p.old and "Items now" not in p.old


def test_preview_reloads_on_edit_and_shows_a_broken_guard(preview, browser):
    root, port, proc = preview
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{port}/appendix/ref.html")
    page.wait_for_selector("text=Items arrive at")
    # an edited sentence appears without touching the browser
    ch = root / CHAPTER
    ch.write_text(ch.read_text(encoding="utf-8").replace("Items arrive at", "Items now arrive at"),
                  encoding="utf-8")
    page.wait_for_selector("text=Items now arrive at", timeout=60_000)
    # a broken guard: the page keeps the last good text and shows the check's one line
    cell = root / "appendix/_cells/ref.qmd"
    good = cell.read_text(encoding="utf-8")
    cell.write_text(good.replace("check(live > 10,", "check(live > 1000,"), encoding="utf-8")
    page.wait_for_selector("#bookbuild-errors", timeout=60_000)
    text = page.inner_text("#bookbuild-errors")
    assert ("appendix/_cells/ref.qmd:13: [calc-ref] guard failed: the queue must hold more than ten items, "
            "got 60.0") in text
    # fixed: the banner goes, the page reloads
    cell.write_text(good, encoding="utf-8")
    page.wait_for_selector("#bookbuild-errors", state="detached", timeout=60_000)
    page.wait_for_selector("text=Items now arrive at")
    page.close()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "preview: stopped" in out and "Traceback" not in err
    assert "guard failed: the queue must hold more than ten items" in err   # the terminal saw it too
