"""The build engine under hostile input, round 3 (issue "Hostile input, round 3"): where the build writes,
the cache, files outside the project, options, configuration files, environments, a profile that drops
a chapter. (Processes and the preview: ``test_hostile_processes.py``; data strings in the pages:
``test_hostile_pages.py``.)

Every probe runs the command a user runs, in a subprocess whose HOME, temp folder and caches lie in the
test's temporary folder, on a private copy of the fixture book (the real book only where the class needs
it). Each asserts the exit status; for a refusal, exactly one stderr line, without a traceback, naming what
to change; that nothing outside the test's temporary folder changed (the repository's code, data and git
status hashed before and after; sentinel files beside the project, a ``.git`` and a ``CNAME`` among them);
and, where it applies, that ``_book`` is the old book or the new one, never a mix.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT, SOURCES_IGNORE, watched_state, unchanged_since, with_cache
from worlds import CELL, CHAPTER, SECRET, World, no_staging, one_line, tree


# ───────────────────────────── 1. writes: inside the project or a folder the user names ─────────────────────────────

def test_output_dir_holding_a_git_and_a_cname_keeps_them(world):
    site = world.outside   # the user names it: the books go to site/en and site/zh, nothing else there changes
    before = tree(site)
    r = world.run("render", "--profile", "all", "--output-dir", str(site))
    assert r.returncode == 0, r.stderr
    assert (site / "en" / "appendix" / "ref.html").is_file() and (site / "zh" / "index.html").is_file()
    assert {k: v for k, v in tree(site).items() if not k.startswith(("en", "zh"))} == before
    r = world.run("render", "--profile", "all", "--output-dir", str(site))   # and again: up to date
    assert r.returncode == 0 and "en: up to date" in r.stdout, r.stderr
    shutil.rmtree(site / "en")
    shutil.rmtree(site / "zh")


def test_output_dir_whose_language_folder_is_not_ours_is_refused(world):
    site = world.tmp / "site"
    (site / "en").mkdir(parents=True)
    (site / "en" / "CNAME").write_text("book.example.org\n", encoding="utf-8")
    r = world.run("render", "--profile", "en", "--output-dir", str(site))
    assert r.returncode == 1
    assert one_line(r) == (f"{site / 'en'}: holds files the build did not write (CNAME): move them out, or "
                           "render into an empty folder or one a previous render wrote (--output-dir)")
    assert tree(site) == {"en": b"/", "en/CNAME": b"book.example.org\n"}


def test_a_file_added_beside_the_rendered_pages_is_never_deleted(world):
    world.render_ok()
    (world.root / "_book/en/CNAME").write_text("book.example.org\n", encoding="utf-8")
    before = tree(world.root / "_book")
    world.append(CHAPTER, "\nOne more sentence.\n")
    r = world.run("render", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r).startswith("_book/en: holds files the build did not write (CNAME): move them out")
    assert tree(world.root / "_book") == before


def test_a_page_edited_by_hand_is_rendered_again(world):
    good = world.render_ok()
    page = world.root / "_book/en/index.html"
    page.write_text(page.read_text(encoding="utf-8") + "<script>alert(1)</script>", encoding="utf-8")
    r = world.run("render", "--profile", "all")
    assert r.returncode == 0 and "en: rendered" in r.stdout and "zh: up to date" in r.stdout, r.stderr
    assert tree(world.root / "_book") == good


def test_a_destination_that_is_a_file_is_refused(world):
    site = world.tmp / "site"
    site.mkdir()
    (site / "en").write_text("not a folder\n", encoding="utf-8")
    r = world.run("render", "--profile", "en", "--output-dir", str(site))
    assert r.returncode == 1
    assert one_line(r).startswith(f"{site / 'en'}: is a file, not a folder: render into a folder")
    assert (site / "en").read_text(encoding="utf-8") == "not a folder\n" and sorted(os.listdir(site)) == ["en"]


@pytest.mark.parametrize("where, words", [("../outside/en", "is outside the project"),
                                          (".", "is the project folder itself")])
def test_a_profiles_output_dir_outside_the_project_is_refused(world, where, words):
    world.edit("_quarto-en.yml", "output-dir: _book/en", f"output-dir: {where}")
    r = world.run("render", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r) == (f"_quarto-en.yml: project: output-dir {where} {words}: name a folder inside it "
                           "(such as _book/<lang>), or render elsewhere with --output-dir")


def test_translated_never_writes_outside_the_project(world):
    outside = world.outside / "ref.zh.qmd"
    shutil.copyfile(world.root / "appendix/ref.zh.qmd", outside)
    before = outside.read_bytes()
    r = world.run("translated", str(outside), "--source", CHAPTER)
    assert r.returncode == 1
    assert one_line(r) == f"{outside}: is outside the project: name a chapter of this book (or pass --root)"
    r = world.run("translated", "appendix/ref.zh.qmd", "--source", "../outside/secret.qmd", cwd=world.root)
    assert r.returncode == 1
    assert one_line(r).startswith("appendix/ref.zh.qmd: translation-of names ../outside/secret.qmd, which is "
                                  "outside the project")
    assert outside.read_bytes() == before and not (world.root / "_translations").exists()
    outside.unlink()


def test_diff_writes_only_inside_the_project(world):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(world.root)], check=True)
    subprocess.run([*git, "-C", str(world.root), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(world.root), "commit", "-q", "-m", "book"], check=True)
    world.edit(CELL, "stay = 30.0", "stay = 40.0")
    sources = {k: v for k, v in tree(world.root).items() if not k.startswith(("_build", ".git"))}
    r = world.run("diff")
    assert r.returncode == 0, r.stderr
    assert "Ref.stay_str: 30 → 40" in r.stdout and "Traceback" not in r.stderr
    assert {k: v for k, v in tree(world.root).items() if not k.startswith(("_build", ".git"))} == sources


# ───────────────────────────── 2. the cache: verified before use, never fatal ─────────────────────────────

def _corrupt(entry: Path, how: int) -> None:
    data = entry.read_bytes()
    if how == 0:     # a byte altered in place
        entry.write_bytes(data[:-2] + bytes([data[-2] ^ 1]) + data[-1:])
    elif how == 1:   # truncated
        entry.write_bytes(data[: len(data) // 2])
    else:            # written by another version of the cache
        entry.write_bytes(data.replace(b"bookbuild-cache 3 ", b"bookbuild-cache 2 ", 1) if data.startswith(b"bookbuild")
                          else b"")


def test_every_corrupt_truncated_or_foreign_entry_is_discarded_and_rebuilt(world):
    good = world.render_ok()
    cache = world.root / "_build" / "cache"
    entries = sorted(p for p in cache.rglob("*") if p.is_file() and "mlsysim" not in p.parts)
    kinds = {p.relative_to(cache).parts[0] for p in entries}
    assert {"exec", "exec-index", "index", "outline", "pandoc", "pdf", "verify"} <= kinds
    for i, p in enumerate(entries):
        _corrupt(p, i % 3)
    shutil.rmtree(world.root / "_book")   # so every result is asked of the cache again
    r = world.run("render", "--profile", "all")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    notes = r.stderr.splitlines()
    assert notes and all(re.fullmatch(r"bookbuild: note: the cache entry \S+ \([\w-]+\) was .+: discarded and rebuilt", n)
                         for n in notes), r.stderr
    assert tree(world.root / "_book") == good
    r = world.run("render", "--profile", "all")   # rebuilt: nothing more to discard, nothing to render
    assert r.returncode == 0 and r.stderr == "" and "en: up to date" in r.stdout, r.stderr


def test_a_chapter_entry_altered_in_place_is_never_served(world):
    world.render_ok()
    index = world.root / "_build" / "cache" / "exec-index"
    hits = [p for p in index.rglob("*") if p.is_file() and b"items inside" in p.read_bytes()]
    assert len(hits) == 1
    data = hits[0].read_bytes()
    assert data.count(b"[60]{") == 2   # the prose and the table
    hits[0].write_bytes(data.replace(b"[60]{", b"[61]{"))   # still sealed-looking, still valid JSON
    shutil.rmtree(world.root / "_book")
    r = world.run("render", "--profile", "en")
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"bookbuild: note: the cache entry \S+ \(exec-index\) was corrupt, truncated or from another "
                        r"version of bookbuild: discarded and rebuilt", one_line(r))
    page = (world.root / "_book/en/appendix/ref.html").read_text(encoding="utf-8")
    assert ">61</span>" not in page and ">60</span> items inside" in page


def test_build_and_book_on_another_file_system(world):
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(world.tmp).st_dev:
        pytest.skip("no second file system (/dev/shm) on this machine")
    scratch = Path(tempfile.mkdtemp(prefix="bookbuild-test-", dir=shm))
    try:
        (scratch / "build").mkdir()
        (scratch / "book").mkdir()
        (world.root / "_build").symlink_to(scratch / "build")
        (world.root / "_book").symlink_to(scratch / "book")
        r = world.run("render", "--profile", "all")
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert "OK -> _build/executed/en" in r.stdout and "en: rendered -> _book/en" in r.stdout
        world.append(CHAPTER, "\nA sentence written on the scratch disk.\n")
        r = world.run("render", "--profile", "all")
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert "written on the scratch disk" in (scratch / "book/en/appendix/ref.html").read_text(encoding="utf-8")
        no_staging(scratch / "book")
        assert (world.root / "_build").is_symlink() and (world.root / "_book").is_symlink()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# ───────────────────────────── 4. includes and file reads stay inside the project ─────────────────────────────

def _nothing_of_the_secret(root: Path) -> None:
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            assert SECRET.encode() not in p.read_bytes(), f"{p} holds the outside file's text"


@pytest.mark.parametrize("how", ["relative", "link to a file", "link to a folder"])
def test_an_include_outside_the_project_is_one_line(world, how):
    if how == "relative":
        target = "../../outside/secret.qmd"
    elif how == "link to a file":
        (world.root / "appendix/_cells/secret.qmd").symlink_to(world.outside / "secret.qmd")
        target = "_cells/secret.qmd"
    else:
        (world.root / "appendix/shared").symlink_to(world.outside)
        target = "shared/secret.qmd"
    line = world.append(CHAPTER, f"\n{{{{< include {target} >}}}}\n")
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r) == (f"{CHAPTER}:{line}: include {target} is outside the project "
                           f"({(world.outside / 'secret.qmd').resolve()}): a chapter may include only files of the "
                           "book's own folder")
    _nothing_of_the_secret(world.root)


def test_an_image_outside_the_project_is_one_line_and_not_copied(world):
    elsewhere = world.tmp / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.svg").write_text(f"<svg xmlns='http://www.w3.org/2000/svg'><!-- {SECRET} --></svg>",
                                          encoding="utf-8")
    line = world.append(CHAPTER, "\n![A picture](../../elsewhere/secret.svg)\n")
    r = world.run("render", "--profile", "en", "--formats", "html")
    assert r.returncode == 1   # the render's checks say it at its line, before anything is written
    assert one_line(r) == (f"{CHAPTER}:{line}: image ../../elsewhere/secret.svg is outside the project "
                           f"({(elsewhere / 'secret.svg').resolve()}): a chapter may show only files of the "
                           "book's own folder")
    _nothing_of_the_secret(world.root)
    assert not (world.root / "_book").exists()


def test_files_raw_html_names_outside_the_project_are_refused_by_check_render_and_quartos_pre_render(world):
    """Pandoc's EPUB writer embeds what raw HTML names (an <img>, a <video>'s src or poster, an <object>'s
    data): a file outside the project, named by the prose or printed by a cell, would travel inside the EPUB.
    ``check`` names each at its line, all at once; ``render`` refuses before writing; Quarto's pre-render step
    refuses the prose's before Quarto renders. A code block is text, not read."""
    elsewhere = world.tmp / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.svg").write_text(f"<svg xmlns='http://www.w3.org/2000/svg'><!-- {SECRET} --></svg>",
                                          encoding="utf-8")
    (world.root / "appendix" / "link.svg").symlink_to(elsewhere / "secret.svg")
    first = world.append(CHAPTER, '\n<img src="../../elsewhere/secret.svg" alt="x">\n\n'
                                  f'A <video poster="{elsewhere / "secret.svg"}"></video> and <img src="link.svg" alt="">.\n\n'
                                  '<img srcset="a.svg 1x, b.svg 2x" alt="">\n\n'
                                  '```\n<img src="/etc/hostname"> in a code block\n```\n')
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    real = (elsewhere / "secret.svg").resolve()
    assert r.stderr.splitlines() == [
        f"{CHAPTER}:{first}: raw HTML <img> file ../../elsewhere/secret.svg is outside the project ({real}): a "
        "chapter may show only files of the book's own folder",
        f"{CHAPTER}:{first + 2}: raw HTML <video> file {elsewhere / 'secret.svg'} is outside the project ({real}): a "
        "chapter may show only files of the book's own folder",
        f"{CHAPTER}:{first + 2}: raw HTML <img> file link.svg is outside the project ({real}): a "
        "chapter may show only files of the book's own folder",
        f"{CHAPTER}:{first + 4}: raw HTML <img srcset> names a.svg 1x, b.svg 2x: a chapter's raw HTML names a file "
        "with src (one file), so that every format shows the same one",
        "bookbuild: 4 problems"], r.stderr
    r = world.run("render", "--profile", "en", "--formats", "html,epub")
    assert r.returncode == 1 and not (world.root / "_book").exists(), r.stderr
    from bookbuild.quarto.pre_render import named_outside
    said = [e.format() for e in named_outside(world.root, "en")]
    assert said == r.stderr.splitlines()[:4] or said == [ln for ln in r.stderr.splitlines() if ln.startswith(CHAPTER)]
    _nothing_of_the_secret(world.root)


def test_files_raw_typst_reads_outside_the_project_are_refused_for_quartos_typst_too(world):
    """Quarto's typst runs with the project as its root (quarto-cli src/command/render/output-typst.ts) and
    follows a link inside it: tried with Quarto 1.11.0, ``#read("link.txt")`` put a file outside the project into
    the PDF (``/etc/hostname`` and ``../x`` it refused). Our typst's root is the staging folder. ``check`` and
    Quarto's pre-render step refuse, at their lines: a link out, an absolute path out, a computed path, a
    package; a file of the project is read."""
    (world.root / "appendix" / "link.txt").symlink_to(world.outside / "secret.qmd")
    (world.root / "appendix" / "ok.txt").write_text("fine\n", encoding="utf-8")
    first = world.append(CHAPTER, '\n```{=typst}\n#read("link.txt")\n#read("/appendix/ok.txt")\n'
                                  '#read("li" + "nk.txt")\n#import "@preview/cetz:0.2.2"\n```\n\n'
                                  'Inline `#read("/appendix/link.txt")`{=typst} too.\n')
    real = (world.outside / "secret.qmd").resolve()
    want = [f"{CHAPTER}:{first + 1}: raw typst read link.txt is outside the project ({real}): a chapter may read "
            "only files of the book's own folder",
            f"{CHAPTER}:{first + 3}: raw typst read of a computed path: raw typst may read only a file it names "
            "(a string), of the book's own folder",
            f"{CHAPTER}:{first + 4}: raw typst import @preview/cetz:0.2.2: a typst package is not part of the book "
            "(it would be fetched from the network)",
            f"{CHAPTER}:{first + 7}: raw typst read /appendix/link.txt is outside the project ({real}): a chapter "
            "may read only files of the book's own folder"]
    from bookbuild.quarto.pre_render import named_outside
    assert [e.format() for e in named_outside(world.root, "en")] == want
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert sorted(r.stderr.splitlines()[:-1]) == sorted(want) and r.stderr.splitlines()[-1] == "bookbuild: 4 problems"
    _nothing_of_the_secret(world.root)


def test_a_raw_html_block_is_read_as_raw_html_by_check_and_quartos_pre_render(world):
    first = world.append(CHAPTER, '\n```{=html}\n<div>\n<img src="/etc/hostname">\n</div>\n```\n\n'
                                  '```\n<img src="/etc/hostname"> in a code block is text\n```\n')
    want = [f"{CHAPTER}:{first + 2}: raw HTML <img> file /etc/hostname is outside the project "
            f"({Path('/etc/hostname').resolve()}): a chapter may show only files of the book's own folder"]
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1 and r.stderr.splitlines() == want, r.stderr
    from bookbuild.quarto.pre_render import named_outside
    assert [e.format() for e in named_outside(world.root, "en")] == want


def test_a_file_raw_html_names_inside_the_project_reaches_every_format(world):
    """The same rule's other side: a raw <img> of the book's own folder is copied beside the page (HTML) and
    embedded in the EPUB, as a markdown image is."""
    import zipfile
    (world.root / "appendix" / "mark.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'><!-- a mark 5e1 --></svg>",
                                                      encoding="utf-8")
    world.append(CHAPTER, '\n<img src="mark.svg" alt="A mark">\n')
    r = world.run("render", "--profile", "en", "--formats", "html,epub")
    assert r.returncode == 0, r.stderr
    assert b"a mark 5e1" in (world.root / "_book/en/appendix/mark.svg").read_bytes()
    (epub,) = (world.root / "_book/en").glob("*.epub")
    z = zipfile.ZipFile(epub)
    assert any(b"a mark 5e1" in z.read(n) for n in z.namelist() if n.endswith(".svg"))


@pytest.mark.parametrize("key, value, words", [
    ("bibliography", "../outside/secret.qmd", "_quarto-en.yml: bibliography ../outside/secret.qmd is outside the project"),
    ("chapter", "../outside/secret.qmd", "../outside/secret.qmd: the chapter is outside the project folder"),
])
def test_a_configured_file_outside_the_project_is_one_line(world, key, value, words):
    if key == "bibliography":
        world.edit("_quarto.yml", "bibliography: refs.bib", f"bibliography: {value}")
    else:
        world.edit("_quarto-en.yml", "    - index.qmd\n", f"    - index.qmd\n    - {value}\n")
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r).startswith(words)
    _nothing_of_the_secret(world.root)


# ───────────────────────────── 8. configuration files: bounded, strict, one line ─────────────────────────────

@pytest.mark.parametrize("text, words", [
    ("a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n", "_quarto.yml: YAML aliases (*name) are not accepted"),
    ("deep: " + "[" * 5000 + "]" * 5000 + "\n", "_quarto.yml:8: invalid YAML: exceeded maximum nesting depth"),
    ("big: '" + "x" * 300_000 + "'\n", "_quarto.yml: the YAML block is 300,"),
    ("evil: !!python/object/apply:os.system ['true']\n", "_quarto.yml:8: invalid YAML: could not determine a constructor"),
])
def test_a_hostile_project_file_is_one_line(world, text, words):
    world.append("_quarto.yml", text)
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r).startswith(words)


@pytest.mark.parametrize("old, new, words", [
    ("bibliography: refs.bib", "bibliography: 5", "_quarto-en.yml: bibliography must name a .bib file or a list of them, not 5"),
    ("bibliography: refs.bib", "bibliography: [[refs.bib]]", "_quarto-en.yml: bibliography must name a .bib file"),
])
def test_a_project_value_of_the_wrong_type_is_one_line(world, old, new, words):
    world.edit("_quarto.yml", old, new)
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r).startswith(words)


def test_a_front_matter_alias_bomb_is_one_line(world):
    world.edit(CHAPTER, "# Reference Values", "---\nx: &x [1, 1]\ny: [*x, *x]\n---\n\n# Reference Values")
    r = world.run("check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r) == f"{CHAPTER}:2: invalid YAML front matter: YAML aliases (*name) are not accepted in a book file"


# ───────────────────────────── 8. any environment: HOME, paths, start folders, locale ─────────────────────────────

@pytest.mark.parametrize("home", ["unset", "missing", "a file", "read-only"])
def test_a_render_under_any_home(world, home):
    if home == "unset":
        env = world.env(HOME=None)
    elif home == "missing":
        env = world.env(HOME=str(world.tmp / "no" / "home"))
    elif home == "a file":
        (world.tmp / "homefile").write_text("", encoding="utf-8")
        env = world.env(HOME=str(world.tmp / "homefile"))
    else:   # root ignores file modes: /proc is a folder nobody can create anything in
        env = world.env(HOME="/proc")
    r = world.run("render", "--profile", "all", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""    # no warning of matplotlib's or pint's: their caches fall back to the project's
    assert (world.root / "_book/en/appendix/ref.html").is_file() and (world.root / "_book/zh/index.html").is_file()


def test_a_project_path_with_spaces_and_non_ascii_letters(tmp_path):
    w = World(tmp_path, name="my bóok 书 (draft)")
    r = w.run("render", "--profile", "all", env=w.env(LANG="C", LC_ALL="C"))
    assert r.returncode == 0, r.stderr
    assert r.stderr == "" and (w.root / "_book/zh/appendix/ref.zh.html").is_file()
    w.append(CHAPTER, "\n{{< include _cells/缺少.qmd >}}\n")
    r = w.run("check", "--profile", "en", env=w.env(LANG="C", LC_ALL="C"))
    assert r.returncode == 1
    assert one_line(r).startswith(f"{CHAPTER}:") and "include file not found: _cells/缺少.qmd" in r.stderr
    w.untouched()


@pytest.mark.parametrize("start", ["appendix", "appendix/_cells"])
def test_any_start_folder_inside_the_project(world, start):
    r = world.run("check", "--profile", "all", root=False, cwd=world.root / start)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "executed 4 chapter(s), 0 from the cache" in r.stdout
    r = world.run("check", "--profile", "all", root=False, cwd=world.root)   # the same keys from the top
    assert r.returncode == 0 and "executed 0 chapter(s), 4 from the cache" in r.stdout, r.stdout + r.stderr
    assert not (world.root / start / "_build").exists()


# ───────────────────────────── 9. every option checked by the parser ─────────────────────────────

OPTIONS = [
    (["render", "--cell-timeout", "nan"], "python -m bookbuild render: error: argument --cell-timeout: expected a number of seconds, got 'nan' (not a finite number)"),
    (["render", "--cell-timeout", "1e999"], "python -m bookbuild render: error: argument --cell-timeout: expected a number of seconds, got '1e999' (not a finite number)"),
    (["check", "--cell-timeout", "0"], "python -m bookbuild check: error: argument --cell-timeout: expected a number of seconds above 0 and at most 86400, got '0'"),
    (["check", "--jobs", "1e3"], "python -m bookbuild check: error: argument --jobs: expected a whole number of processes, got '1e3'"),
    (["check", "--jobs", "999"], "python -m bookbuild check: error: argument --jobs: expected 0 (one per core) to 256 processes, got '999'"),
    (["render", "--formats", "pdf,docx"], "python -m bookbuild render: error: argument --formats: takes html, pdf, epub separated by commas, not 'pdf,docx'"),
    (["render", "--output-dir", ""], "python -m bookbuild render: error: argument --output-dir: expected a folder, got an empty name"),
    (["check", "--profile", "fr"], "python -m bookbuild check: error: argument --profile: unknown profile 'fr'; choose from all, en, zh"),
    (["preview", "--port", "99999"], "python -m bookbuild preview: error: argument --port: expected a port from 1 to 65535 (0: any free port), got '99999'"),
    (["preview", "--port", "-1"], "python -m bookbuild preview: error: argument --port: expected a port from 1 to 65535 (0: any free port), got '-1'"),
    (["preview", "--port", "http"], "python -m bookbuild preview: error: argument --port: expected a port number, got 'http'"),
    (["preview", "--interval", "nan"], "python -m bookbuild preview: error: argument --interval: expected a number of seconds, got 'nan' (not a finite number)"),
    (["preview", "--interval", "0"], "python -m bookbuild preview: error: argument --interval: expected 0.05 to 60 seconds, got '0'"),
    (["preview", "--cell-timeout", "-5"], "python -m bookbuild preview: error: argument --cell-timeout: expected a number of seconds above 0 and at most 86400, got '-5'"),
    (["preview", "--profile", "all"], "python -m bookbuild preview: error: argument --profile: unknown profile 'all'; choose from en, zh"),
    (["diff", "--output=/tmp/x"], "python -m bookbuild diff: error: unrecognized arguments: --output=/tmp/x"),
    (["diff", "--", "--output=/tmp/x"], "python -m bookbuild diff: error: argument ref: expected a git revision (a commit, branch or tag), got '--output=/tmp/x'"),
    (["diff", "--profile", "de"], "python -m bookbuild diff: error: argument --profile: unknown profile 'de'; choose from all, en, zh"),
    (["compare-render", "/nonexistent/quarto/_book"], "python -m bookbuild compare-render: error: argument other: /nonexistent/quarto/_book is not a folder"),
    (["compare-render", ".", "--profile", "x"], "python -m bookbuild compare-render: error: argument --profile: unknown profile 'x'; choose from all, en, zh"),
    (["translated", ""], "python -m bookbuild translated: error: argument file: expected a file, got an empty name"),
]


@pytest.mark.parametrize("args, line", OPTIONS, ids=[" ".join(a) for a, _ in OPTIONS])
def test_an_option_out_of_range_is_one_line_naming_it(world, args, line):
    r = world.run(*args, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert one_line(r) == line


def test_a_root_outside_any_project_is_one_line_naming_it(world):
    r = world.run("check", root=False, cwd=world.outside)
    assert r.returncode == 2
    assert one_line(r) == (f"python -m bookbuild check: error: argument --root: {world.outside.resolve()} is not inside a "
                           "book project (no _quarto.yml here or above): run from the project folder or pass --root "
                           "PROJECT")


# ───────────────────────────── 10. a profile can drop a chapter ─────────────────────────────

def test_a_profile_that_drops_a_chapter_builds_both_books(world):
    world.edit("_quarto-en.yml", "  appendices:\n    - appendix/ref.qmd\n", "")
    world.edit("index.qmd", "@sec-appx-ref", "the appendix")   # the English book no longer has that section
    r = world.run("render", "--profile", "all", "--formats", "html")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert not (world.root / "_book/en/appendix").exists() and (world.root / "_book/zh/appendix/ref.zh.html").is_file()


def test_the_real_book_builds_with_the_appendix_dropped_from_the_english_profile(tmp_path, warm_cache):
    """The English profile lists the lecture and the preface only; the Chinese keeps its appendix, whose
    cells are the English appendix's: the checks that span files (values never quoted, the translations'
    drift) read the chapters of the profiles as they are, and the one problem said is the chapter in one
    profile only (bookbuild/book/authoring.py: the parity test would refuse the pair)."""
    src = tmp_path / "book"
    shutil.copytree(ROOT, src, ignore=SOURCES_IGNORE)
    with_cache(src, warm_cache)   # an author who drops a chapter has built the book before
    before = watched_state()
    y = src / "_quarto-en.yml"
    y.write_text(y.read_text(encoding="utf-8").replace("    - appendix/inference-cost.qmd\n", ""), encoding="utf-8")
    from bookbuild.project import load_book
    n, edited = 0, []
    for ch in load_book(src, "en").chapters:   # every other chapter's links into the appendix become words
        lec = src / ch.path
        text, k = re.subn(r"@(?:sec-vol3-appendix|eq-appdx|tbl-appdx|fig-appdx|sec-appdx)[\w-]*", "the appendix",
                          lec.read_text(encoding="utf-8"))
        lec.write_text(text, encoding="utf-8")
        n += k
        edited += [ch.path.as_posix()] if k else []
    assert n > 0
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLSYSIM_", "PANDOC", "BOOKBUILD_"))}
    env["PYTHONPATH"] = str(ROOT)
    run = lambda *a: subprocess.run([sys.executable, "-m", "bookbuild", *a, "--root", str(src)], cwd=tmp_path,  # noqa: E731
                                    capture_output=True, text=True, timeout=900, env=env)
    for rel in edited:   # the author stamps each edited chapter's translation
        r = run("translated", str(src / rel.replace(".qmd", ".zh.qmd")))
        assert r.returncode == 0, r.stderr
    r = run("check", "--profile", "all")
    assert r.returncode == 1 and "never quoted" not in r.stderr and "does not exist" not in r.stderr, r.stderr
    assert r.stderr.splitlines() == ["appendix/inference-cost.zh.qmd:5: translation-of names appendix/inference-cost.qmd, "
                                     "which the English book (_quarto-en.yml) does not list"], r.stderr
    unchanged_since(before, "the build changed the checkout")


# ───────────────────────────── round 4 (issue "Hostile input, round 4"): nothing stale ─────────────────────────────

def test_two_chapters_cache_entries_exchanged_are_misses_not_a_crash(world):
    """The seal covers the entry's kind and key: an entry moved under another key is discarded like an
    altered one (before: StopIteration, exit 70, on every render until _build/cache was deleted)."""
    good = world.render_ok()
    index = world.root / "_build" / "cache" / "exec-index"
    a, b = [p for p in index.rglob("*") if p.is_file()][:2]
    da, db = a.read_bytes(), b.read_bytes()
    a.write_bytes(db)
    b.write_bytes(da)
    shutil.rmtree(world.root / "_book")
    r = world.run("render", "--profile", "all")
    assert r.returncode == 0, r.stderr
    notes = r.stderr.splitlines()
    assert len(notes) == 2 and all(re.fullmatch(r"bookbuild: note: the cache entry \S+ \(exec-index\) was corrupt, "
                                                r"truncated or from another version of bookbuild: discarded and "
                                                r"rebuilt", n) for n in notes), r.stderr
    assert tree(world.root / "_book") == good


def test_an_unchanged_pdf_is_taken_from_the_cache_wherever_the_book_is_staged(world):
    """The PDF's key holds no staging folder (named by the process id): a second build of the same
    sources compiles nothing, and the cache does not grow."""
    world.render_ok()
    pdfs = lambda: sorted(p.name for p in (world.root / "_build/cache/pdf").rglob("*") if p.is_file())  # noqa: E731
    first = pdfs()
    assert len(first) == 2   # one book per language
    shutil.rmtree(world.root / "_book")
    world.render_ok()
    assert pdfs() == first


# ───────────────────────────── round 4: nothing read from outside the project ─────────────────────────────

def test_a_raw_typst_read_outside_the_book_is_one_line_naming_the_chapter(world):
    (world.tmp / "hostname").write_text(SECRET + "\n", encoding="utf-8")
    world.append(CHAPTER, f'\n```{{=typst}}\n#read("{world.tmp / "hostname"}")\n```\n')
    r = world.run("render", "--profile", "en", "--formats", "pdf")
    assert r.returncode == 1
    line = one_line(r)
    assert line.startswith(f"{CHAPTER}: typst failed: file not found"), line
    assert line.endswith("; nothing was replaced: _book/en left as before"), line
    _nothing_of_the_secret(world.root)


@pytest.mark.parametrize("what", ["a file in HOME", "a file outside the project", "a folder listed",
                                  "a folder of the project listed", "a variable", "a file a program read",
                                  "a variable a program read", "a file outside the project looked for",
                                  "a project file looked for", "a folder looked for"])
def test_every_input_a_cell_reads_is_in_its_cache_key(world, what):
    """A cell's inputs beyond the project's files: files anywhere, folders listed, variables read; each
    changed, the chapter runs again (before: the old value was served without a word)."""
    home, elsewhere = world.tmp / "home", world.tmp / "elsewhere"
    elsewhere.mkdir()
    notes = world.root / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("a\n", encoding="utf-8")
    read = {"a file in HOME": f"open({str(home / 'value.txt')!r}).read().strip()",
            "a file outside the project": f"open({str(elsewhere / 'value.txt')!r}).read().strip()",
            "a folder listed": f"str(len(os.listdir({str(elsewhere / 'many')!r})))",
            "a folder of the project listed": "str(len(glob.glob('../notes/*.md')))",
            "a variable": "os.environ.get('BOOK_TEST_VALUE', '1')",
            # only looked up, never opened (before: created later, the old answer was served)
            "a file outside the project looked for": f"str(1 + os.path.exists({str(elsewhere / 'flag')!r}))",
            "a project file looked for": "str(1 + pathlib.Path('../notes/flag.md').is_file())",
            "a folder looked for": f"str(1 + os.path.isdir({str(elsewhere / 'made')!r}))",
            # what a program reads is out of sight: a chapter that starts one runs again in every build
            "a file a program read": f"subprocess.run(['cat', {str(elsewhere / 'value.txt')!r}], "
                                     "capture_output=True, text=True).stdout.strip()",
            "a variable a program read": "subprocess.run(['sh', '-c', 'echo $BOOK_TEST_VALUE'], "
                                         "capture_output=True, text=True).stdout.strip()"}[what]
    (home / "value.txt").write_text("1\n", encoding="utf-8")
    (elsewhere / "value.txt").write_text("1\n", encoding="utf-8")
    (elsewhere / "many").mkdir()
    (elsewhere / "many" / "one").write_text("", encoding="utf-8")
    world.append(CHAPTER, "\n```{python}\n#| label: calc-input\nimport glob, os, pathlib, subprocess\n"
                          f"class Input:\n    value = {read}\n```\n\nThe input reads `{{python}} Input.value`.\n")
    page = lambda: (world.root / "_book/en/appendix/ref.html").read_text(encoding="utf-8")  # noqa: E731
    r = world.run("render", "--profile", "en", "--formats", "html", env=world.env(BOOK_TEST_VALUE="1"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"The input reads (<[^>]+>)*1<", page())
    if what == "a file in HOME":
        (home / "value.txt").write_text("2\n", encoding="utf-8")
    elif what in ("a file outside the project", "a file a program read"):
        (elsewhere / "value.txt").write_text("2\n", encoding="utf-8")
    elif what == "a folder listed":
        (elsewhere / "many" / "two").write_text("", encoding="utf-8")
    elif what == "a folder of the project listed":
        (notes / "b.md").write_text("b\n", encoding="utf-8")
    elif what == "a file outside the project looked for":
        (elsewhere / "flag").write_text("", encoding="utf-8")
    elif what == "a project file looked for":
        (notes / "flag.md").write_text("", encoding="utf-8")
    elif what == "a folder looked for":
        (elsewhere / "made").mkdir()
    r = world.run("render", "--profile", "en", "--formats", "html", env=world.env(BOOK_TEST_VALUE="2"))
    assert r.returncode == 0, r.stderr
    assert "executed 1 chapter(s), 1 from the cache" in r.stdout, r.stdout
    assert re.search(r"The input reads (<[^>]+>)*2<", page()), "the old value was served"
    r = world.run("render", "--profile", "en", "--formats", "html", env=world.env(BOOK_TEST_VALUE="2"))
    if "program" in what:   # never kept: the chapter runs again (and the book is rewritten as the same)
        assert r.returncode == 0 and "executed 1 chapter(s), 1 from the cache" in r.stdout, r.stdout + r.stderr
    else:
        assert r.returncode == 0 and "en: up to date" in r.stdout, r.stdout + r.stderr   # and kept again
