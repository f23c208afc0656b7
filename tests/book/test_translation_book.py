"""The builds' half of tests/unit/test_translation.py (check, render and the preview over copies of the real book): The drift guard, the stamp command and the glossary check (bookbuild/translation.py).

Each copy starts from the content cache of the session's rendered book (conftest ``warm_cache``), as an author
who edits has built before: what is looked at is the translation check, not a cold build."""
import subprocess
import sys
from pathlib import Path


from bookbuild.book.translation import (check_drift, translation_of)
from conftest import copy_with_edits, with_cache

ROOT = Path(__file__).resolve().parents[2]
LECTURE, LECTURE_ZH = "lectures/lecture19-agent-stalls.qmd", "lectures/lecture19-agent-stalls.zh.qmd"
# an English paragraph of the lecture, and an edit a reviewer might make to it
OLD = "The rest of the lecture is about that parking lot: what it costs, what the alternatives cost,"
NEW = "The rest of the lecture is about that waiting room: what it costs, what the alternatives cost,"


def _edited_copy(tmp_path: Path) -> Path:
    """A copy of the project with the lecture's English paragraph edited (the Chinese left as translated)."""
    return copy_with_edits(ROOT, tmp_path / "book", {LECTURE: (OLD, NEW)},
                           ignore=("_build", "_book", "__pycache__", ".venv", ".git", ".pytest_cache", "*.egg-info"))


def test_the_book_is_fresh_and_every_chinese_chapter_is_stamped():
    for zh in ("index.zh.qmd", LECTURE_ZH, "appendix/inference-cost.zh.qmd"):
        assert translation_of((ROOT / zh).read_text(encoding="utf-8")) is not None, zh
        assert check_drift(ROOT, Path(zh)) == [], zh


def test_check_fails_on_an_edited_english_paragraph_and_passes_after_the_stamp(tmp_path, warm_cache):
    copy = with_cache(_edited_copy(tmp_path), warm_cache)
    run = lambda *a: subprocess.run([sys.executable, "-m", "bookbuild", *a, "--root", str(copy)],  # noqa: E731
                                    capture_output=True, text=True, cwd=copy, timeout=600)
    r = run("check", "--profile", "all")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{LECTURE_ZH}:2: translation is stale: {LECTURE} changed" in r.stderr
    assert f"python -m bookbuild translated {LECTURE_ZH}" in r.stderr
    listed = [ln for ln in r.stderr.splitlines() if ln.startswith(LECTURE + ":")]
    assert len(listed) == 1 and f"[for {LECTURE_ZH}] changed:" in listed[0]
    assert "[-parking lot:-]{+waiting room:+}" in listed[0]
    assert "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "bookbuild", "translated", LECTURE_ZH, "--root", str(copy)],
                       capture_output=True, text=True, cwd=copy, timeout=120)
    assert r.returncode == 0 and LECTURE_ZH in r.stdout, r.stderr
    r = run("check", "--profile", "all")
    assert r.returncode == 0, r.stderr


def test_the_preview_warns_of_a_stale_translation_and_watches_the_stamp(tmp_path, warm_cache):
    # the author editing the English previews it: the stale translation is a warning there, not a refusal,
    # and the translation's file (which `translated` stamps) is among the files the preview watches
    from bookbuild.preview import all_profiles, watched_files
    copy = with_cache(_edited_copy(tmp_path), warm_cache)
    r = subprocess.run([sys.executable, "-m", "bookbuild", "check", "--profile", "en", "--stale-translations", "warn",
                        "--root", str(copy)], capture_output=True, text=True, cwd=copy, timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"bookbuild: note: warning: {LECTURE_ZH}:2: translation is stale: {LECTURE} changed" in r.stderr
    assert (copy / LECTURE_ZH).resolve() in {p.resolve() for p in watched_files(copy, all_profiles(copy, "en"))}


def test_english_only_work_renders_past_a_stale_translation_and_says_what_is_stale(tmp_path, warm_cache):
    """An English typo fix while the Chinese is behind: ``render --stale-translations warn`` (what
    ``bash scripts/build.sh --stale-translations warn`` runs) builds the English book and names the stale
    paragraph; without the option the render refuses, as check does."""
    copy = with_cache(_edited_copy(tmp_path), warm_cache)
    run = lambda *a: subprocess.run([sys.executable, "-m", "bookbuild", "render", "--profile", "en", "--formats", "html",  # noqa: E731
                                     *a, "--root", str(copy)], capture_output=True, text=True, cwd=copy, timeout=900)
    r = run()
    assert r.returncode == 1 and f"{LECTURE_ZH}:2: translation is stale" in r.stderr and not (copy / "_book").exists()
    r = run("--stale-translations", "warn")
    assert r.returncode == 0, r.stderr
    assert f"bookbuild: note: warning: {LECTURE_ZH}:2: translation is stale: {LECTURE} changed" in r.stderr
    assert any(ln.startswith(f"bookbuild: note: warning: {LECTURE}:") and "[-parking lot:-]{+waiting room:+}" in ln
               for ln in r.stderr.splitlines())
    assert NEW in (copy / "_book" / "en" / "lectures" / "lecture19-agent-stalls.html").read_text(encoding="utf-8")
    script = (ROOT / "scripts" / "build.sh").read_text(encoding="utf-8")
    assert 'bookbuild render --profile all "$@"' in script   # build.sh hands its options to render
