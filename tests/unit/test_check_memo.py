"""A check's work kept by its inputs (CheckContext.memo and unless_passed, over Store.memo): a pass is
kept, an error never is; None is never kept; an entry of another shape is computed again."""
from __future__ import annotations

from pathlib import Path

from bookbuild.cache import Store
from bookbuild.checks import CheckContext
from bookbuild.errors import BuildError


def context(store: Store, environment: str = "env-1") -> CheckContext:
    return CheckContext(Path("."), [], [], {}, {}, lambda p, s: {}, {}, store=store, environment=environment)


def test_a_pass_is_kept_and_an_error_is_checked_again(tmp_path):
    ctx, runs = context(Store(tmp_path / "cache")), []

    def failing():
        runs.append("fail")
        return [BuildError("a.qmd", 3, "typed number")]
    assert [e.format() for e in ctx.unless_passed("lint", [b"a", b"1"], failing)] == ["a.qmd:3: typed number"]
    assert [e.format() for e in ctx.unless_passed("lint", [b"a", b"1"], failing)] == ["a.qmd:3: typed number"]
    assert runs == ["fail", "fail"]                            # said again, every time

    def passing():
        runs.append("pass")
        return []
    assert ctx.unless_passed("lint", [b"a", b"2"], passing) == []
    assert ctx.unless_passed("lint", [b"a", b"2"], passing) == []
    assert runs == ["fail", "fail", "pass"]                    # the second time it did not run
    assert ctx.unless_passed("lint", [b"a", b"3"], passing) == [] and len(runs) == 4     # other inputs: it runs
    assert context(Store(tmp_path / "cache"), "env-2").unless_passed("lint", [b"a", b"2"], passing) == []
    assert len(runs) == 5                                      # another environment: it runs
    assert context(Store(None)).unless_passed("lint", [b"a", b"2"], passing) == [] and len(runs) == 6   # cache off


def test_the_memo_keys_on_the_environment_keeps_no_none_and_refuses_another_shape(tmp_path):
    calls = []

    def compute(value):
        def f():
            calls.append(value)
            return value
        return f
    ctx = context(Store(tmp_path / "cache"))
    assert ctx.memo("facts", [b"doc"], compute(None)) is None
    assert ctx.memo("facts", [b"doc"], compute({"strs": []})) == {"strs": []}        # None was not kept
    assert ctx.memo("facts", [b"doc"], compute({"strs": ["x"]})) == {"strs": []}     # kept
    assert context(Store(tmp_path / "cache"), "env-2").memo("facts", [b"doc"], compute({"strs": ["y"]})) == {"strs": ["y"]}
    assert ctx.memo("facts", [b"doc"], compute({"strs": ["z"]}), lambda hit: "refs" in hit) == {"strs": ["z"]}
    assert calls == [None, {"strs": []}, {"strs": ["y"]}, {"strs": ["z"]}]
    assert context(Store(None)).memo("facts", [b"doc"], compute(1)) == 1 and calls[-1] == 1
