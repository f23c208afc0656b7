"""A check's work kept by its inputs (CheckContext.memo, unless_passed; passes/verify.memo): a pass is
kept, an error never is."""
from __future__ import annotations

from pathlib import Path

from bookbuild.cache import Store
from bookbuild.checks import CheckContext
from bookbuild.errors import BuildError
from bookbuild.passes import verify
from bookbuild.passes.state import Build
from bookbuild.settings import Settings


def context(memo) -> CheckContext:
    return CheckContext(Path("."), [], [], {}, {}, lambda p, s: {}, {}, memo=memo)


def dict_memo():
    kept = {}

    def memo(kind, parts, compute):
        k = (kind, tuple(parts))
        if k in kept:
            return kept[k]
        out = compute()
        if out is not None:
            kept[k] = out
        return out
    return memo, kept


def test_a_pass_is_kept_and_an_error_is_checked_again():
    memo, kept = dict_memo()
    ctx, runs = context(memo), []

    def failing():
        runs.append("fail")
        return [BuildError("a.qmd", 3, "typed number")]
    assert [e.format() for e in ctx.unless_passed("lint", [b"a", b"1"], failing)] == ["a.qmd:3: typed number"]
    assert [e.format() for e in ctx.unless_passed("lint", [b"a", b"1"], failing)] == ["a.qmd:3: typed number"]
    assert runs == ["fail", "fail"] and kept == {}            # said again, every time

    def passing():
        runs.append("pass")
        return []
    assert ctx.unless_passed("lint", [b"a", b"2"], passing) == []
    assert ctx.unless_passed("lint", [b"a", b"2"], passing) == []
    assert runs == ["fail", "fail", "pass"]                    # the second time it did not run
    assert ctx.unless_passed("lint", [b"a", b"3"], passing) == [] and runs[-1] == "pass" and len(runs) == 4


def test_the_build_s_memo_keys_on_the_environment_and_keeps_no_none(tmp_path):
    def build(env: str) -> Build:
        b = Build(settings=Settings.make(tmp_path), names=["en"])
        b.store, b.environment = Store(tmp_path / "cache"), env
        return b
    calls = []

    def compute(value):
        def f():
            calls.append(value)
            return value
        return f
    b = build("env-1")
    assert verify.memo(b, "facts", [b"doc"], compute(None)) is None
    assert verify.memo(b, "facts", [b"doc"], compute({"strs": []})) == {"strs": []}   # None was not kept
    assert verify.memo(b, "facts", [b"doc"], compute({"strs": ["x"]})) == {"strs": []}  # kept
    assert verify.memo(build("env-2"), "facts", [b"doc"], compute({"strs": ["y"]})) == {"strs": ["y"]}
    assert calls == [None, {"strs": []}, {"strs": ["y"]}]
