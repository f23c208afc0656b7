"""Lecture 19 executed: the numbers the seed notes print must appear, in context, in the executed text.

The expected strings are typed here from the seed (shared/seeds/003_fbc8dd2976c1c0d2.txt), never
computed by the code under test. Where the seed itself slipped (a rounded intermediate carried
forward, or an arithmetic error) the corrected value is expected and the seed's value must NOT
appear; each such case says so.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "lectures" / "lecture19-agent-stalls.qmd"


def _execute_with_bookbuild(tmp: Path) -> str:
    from bookbuild.execute import execute_chapter
    return execute_chapter(CHAPTER, ROOT, tmp / "fig", md_dir=tmp).markdown


def _execute_by_hand() -> str:
    """Fallback: expand includes, exec the python chunks in order, substitute inline attribute reads."""
    inc = re.compile(r"^\{\{<\s*include\s+(\S+)\s*>\}\}\s*$", re.M)

    def expand(path: Path) -> str:
        return inc.sub(lambda m: expand(path.parent / m.group(1)), path.read_text(encoding="utf-8"))

    text = expand(CHAPTER)
    ns: dict = {}
    import matplotlib
    matplotlib.use("Agg")
    out, pos = [], 0
    for m in re.finditer(r"```\{python\}\n(.*?)```", text, re.S):
        out.append(text[pos:m.start()])
        exec(compile(m.group(1), str(CHAPTER), "exec"), ns)
        pos = m.end()
    out.append(text[pos:])
    body = "".join(out)

    def value(m):
        cls, attr = m.group(1).split(".")
        return str(getattr(ns[cls], attr))
    return re.sub(r"`\{python\} (\w+\.\w+)`", value, body)


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("lec19")
    try:
        import bookbuild.execute  # noqa: F401
    except ImportError:
        md = _execute_by_hand()
    else:
        md = _execute_with_bookbuild(tmp)
    assert "{python}" not in md, "an inline expression was left unresolved"
    # an interactive figure carries its plotted arrays as JSON (floats such as 0.7812..., not printed text)
    md = re.sub(r'<script type="application/json" class="mlsysim-plot-json">.*?</script>', "", md, flags=re.S)
    return re.sub(r"\s+", " ", md)


# (context phrase as the chapter prints it) — value typed from the seed
GOLDEN = [
    # §19.1–19.2
    "`read_file`",                                              # sanity: the text executed at all
    "Half. That is the number",                                 # 50 % live
    "holds 16,384 × 128 KiB = 2.147 GB",                        # 2.147 GB
    "which against the 62.5 GB KV budget is 3.44 % of the card",  # 3.44 %
    "Twenty-nine such sessions fill the card exactly",          # 29
    "13.4 GB",                                                  # 13B-class MHA
    "a factor of six",
    "a card holding 29 sessions and a card holding 4",
    "fall to 15.2 %",
    "average a sixth of their slot",
    "at most 25 % of end-to-end",
    # §19.3
    "the weight term is 27.26 µs and the attention term 17.37 µs, 44.63 µs per token",
    "= 0.731 s of GPU",
    "0.067 s of PCIe",
    "Sixty-seven milliseconds",
    "wants 295 concurrent sequences",
    "the KV cache allows 29",
    "21.3 s",
    "= 476,837 tokens",
    "at 4,096 tokens it is 31.60 µs and $T^{*}$ = 15.1 s",
    "at 16,384 it is 44.63 µs and $T^{*}$ = 21.3 s",
    "the budget is 119,209 tokens and $T^{*}$ falls to 5.3 s",
    "recompute is 10.9× the transfer",
    "twenty-two times the keep-versus-swap threshold",
    "fourteen times below the keep-versus-discard threshold",
    "under 67 ms",
    "67 ms to 21.3 s",
    # §19.5
    "issue 333 calls/s",
    "500 sandboxes are running",
    "42 are booting",
    "667 at a container",
    # §19.6
    "so $A$ ≤ 58",
    "= 85.90 GB per 60 s of session",                           # seed: 85.88 (from the rounded 2.147)
    "or 1.432 GB/s sustained",                                  # seed: 1.431 (from 85.88)
    "so $A$ ≤ 44.7",
    "Take $A$ = 45",
    "= 0.745 tasks/s",
    "= 22.4, independent of tool time",
    "= 10.9 GPU-seconds per wall-clock second",
    "infeasible by a factor of eleven",
    "which is 38.9 s here",
    "a gain of 1.54×",
    "29 ÷ 37.1 = 0.782 tasks/s",                                # seed: 0.781 (29/37.1 = 0.7817)
    # §19.7–19.8
    "1.43× end-to-end",
    "= 1.07 GB per session of HBM plus 1.43 GB/s of PCIe",
    # Exercises
    "= 2.68 GB",
    "= 84 ms",
    "= 305,175",
    "= 42.7 s",
    "= 5.19 s",
    "= 3.57 card-seconds",
    "19 round trips",                                           # seed: "all 20 swap" (slip) — 19 swap + 1 discard
    "= 87 % of the mean stall",
    "= 41.5 GB/s",
    "= 667 calls/s",
    "= 1,333 concurrent boots",                                 # seed: 1,334 (from the rounded 667)
    "= 83",
    "= 1.2 s of full-rate demand",
    "= 19.1 %",                                                 # seed: 19.2 % (7.1/37.1 = 19.14 %)
    # Numbers worth memorizing
    "| Sessions per card | 29 |",
    "361.6 TFLOP ÷ 494.5 TFLOP/s",                              # seed: 361.5 (16,384 × 22.07e9 = 361.6e12)
    "| Keep-versus-swap break-even | 67 ms |",
    "21.3 s (5.3 s at MHA)",
    "500 running, 42 booting (microVM) or 667 (container)",
    "1.54×, only if the session lasts over 38.9 s",
]

# the seed's slips: these must not be printed
SLIPS = ["361.5", "85.88", "1.431 GB/s", "1,334", "19.2 %", "0.781", "all 20 swap", "16 calls kept"]


@pytest.mark.parametrize("phrase", GOLDEN)
def test_golden_number_in_context(text, phrase):
    assert phrase in text, f"expected {phrase!r} in the executed Lecture 19"


@pytest.mark.parametrize("slip", SLIPS)
def test_seed_slip_not_copied(text, slip):
    assert slip not in text, f"the seed's slip {slip!r} must not be printed"


def test_no_typed_numbers_in_source():
    """The lint: every digit in the chapter's prose comes from a cell."""
    lint = pytest.importorskip("bookbuild.lint")
    errs = lint.lint_file(CHAPTER, ROOT)
    for cell in sorted((ROOT / "lectures" / "_cells").glob("lec19-*.qmd")):
        errs += lint.lint_file(cell, ROOT)
    assert not errs, "\n".join(str(e) for e in errs)
