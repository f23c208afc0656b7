"""The suite's own rules (tests/conftest.py): a test's tier is its folder, a unit test builds no book, and a
run that writes into the checkout fails naming what it wrote."""
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import TESTS, changed_files, checkout_state, misplaced, watched_state, tier_of, unchanged_since


def item(path: Path, *fixtures: str):
    return SimpleNamespace(nodeid=f"{path.name}::t", path=path, fixturenames=list(fixtures))


def test_the_tier_is_the_folder():
    assert tier_of(TESTS / "unit" / "test_x.py") == "unit"
    assert tier_of(TESTS / "book" / "test_x.py") == "book"
    assert tier_of(TESTS / "release" / "test_x.py") == "release"
    assert tier_of(TESTS / "test_x.py") is None
    assert tier_of(Path("/elsewhere/test_x.py")) is None


def test_a_unit_test_asking_for_a_book_and_a_test_outside_the_tiers_are_refused():
    assert misplaced([item(TESTS / "unit" / "test_a.py", "tmp_path"),
                      item(TESTS / "book" / "test_b.py", "rendered_book", "browser")]) == []
    wrong = misplaced([item(TESTS / "unit" / "test_a.py", "tmp_path", "rendered_book"),
                       item(TESTS / "test_c.py")])
    assert wrong == ["test_a.py::t: a unit test uses ['rendered_book']: it belongs in tests/book",
                     "test_c.py::t: a test outside tests/unit, tests/book and tests/release has no tier"]


def test_every_test_file_of_the_suite_is_in_a_tier():
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert loose == [], loose
    assert {tier_of(p) for p in TESTS.glob("*/test_*.py")} == {"unit", "book", "release"}


def test_a_file_written_changed_or_removed_in_the_checkout_is_named(tmp_path):
    (tmp_path / "_build").mkdir()
    (tmp_path / "kept.txt").write_text("a")
    (tmp_path / "gone.txt").write_text("b")
    (tmp_path / ".venv").mkdir()
    before = checkout_state(tmp_path)
    (tmp_path / "_build" / "cache.json").write_text("{}")       # ignored by git, still the checkout's
    (tmp_path / "gone.txt").unlink()
    (tmp_path / ".venv" / "pip.log").write_text("x")            # the environment's own folder is not watched
    assert changed_files(before, checkout_state(tmp_path)) == ["_build/cache.json", "gone.txt"]


def test_a_test_that_wrote_into_the_checkout_fails_naming_the_files(tmp_path):
    (tmp_path / "mlsysim").mkdir()
    (tmp_path / "mlsysim" / "units.txt").write_text("byte = [information]\n")
    (tmp_path / "_build").mkdir()
    before = watched_state(tmp_path)
    unchanged_since(before, "nothing yet", tmp_path)        # an untouched checkout passes
    (tmp_path / "mlsysim" / "units.txt").write_text("byte = 8 * bit\n")
    (tmp_path / "new.txt").write_text("x")
    (tmp_path / "_build" / "cache.json").write_text("{}")   # the build's folders: left to the run's check
    with pytest.raises(AssertionError) as e:
        unchanged_since(before, "a command wrote outside the test's temporary folder", tmp_path)
    assert str(e.value) == "a command wrote outside the test's temporary folder: mlsysim/units.txt, new.txt"


def test_a_session_folder_is_shared_only_by_the_workers_of_one_session(tmp_path, monkeypatch):
    """A pytest that a test starts inherits the worker's ``PYTEST_XDIST_WORKER``; its session folder must stay
    under its own base, never the user's folder every earlier run shares (a stale copy there was once read)."""
    from conftest import session_folder
    made = []
    def make(folder):
        made.append(folder)
    def factory(base):
        return SimpleNamespace(getbasetemp=lambda: base)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    alone = tmp_path / "pytest-7"
    alone.mkdir()
    assert session_folder(factory(alone), "sources", make) == alone / "sources"
    worker = tmp_path / "pytest-8" / "popen-gw3"
    worker.mkdir(parents=True)
    assert session_folder(factory(worker), "sources", make) == tmp_path / "pytest-8" / "sources"
    # made once per session: a second worker of the same session finds it done
    other = tmp_path / "pytest-8" / "popen-gw1"
    other.mkdir()
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert session_folder(factory(other), "sources", make) == tmp_path / "pytest-8" / "sources"
    assert made == [alone / "sources", tmp_path / "pytest-8" / "sources"]


def test_ci_runs_every_property_test_in_full_and_other_runs_a_fifth():
    """The fast profile is the default (a fifth of each property test's examples or an exhaustive sweep's
    cases, at least 20, at most all of them); the CI script
    asks for the full one, and a property test that names its count without ``examples`` would run it in
    both profiles: refused here."""
    import re

    import hypothesis

    from conftest import ROOT, a_share, examples
    ci = [ln for ln in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if "scripts/test.sh" in ln
          and not ln.lstrip().startswith("#")]
    assert ci == ["bash scripts/test.sh --hypothesis-profile=full"], ci
    was = hypothesis.settings.get_current_profile_name()
    try:
        hypothesis.settings.load_profile("full")
        assert (examples(200), examples(60)) == (200, 60)
        assert a_share(list(range(429))) == list(range(429))
        hypothesis.settings.load_profile("fast")
        assert (examples(200), examples(60), examples(30), examples(8)) == (40, 20, 20, 8)
        # an exhaustive sweep's fast share: 85 of 429 cases, one in about five from the first, none twice
        share = a_share(list(range(429)))
        assert len(share) == len(set(share)) == 85 and share[:4] == [0, 5, 10, 15] and share[-1] == 423  # 84 * 429 // 85
        assert a_share(list(range(12))) == list(range(12))
    finally:
        hypothesis.settings.load_profile(was)
    fixed = [f"{p.name}: {m.group(0)}" for p in sorted(TESTS.glob("*/test_*.py"))
             for m in re.finditer(r"max_examples=\d+", p.read_text(encoding="utf-8"))]
    assert not fixed, fixed
