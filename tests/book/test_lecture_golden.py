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

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "lectures" / "lecture19-agent-stalls.qmd"
CHAPTER_ZH = ROOT / "lectures" / "lecture19-agent-stalls.zh.qmd"


def _execute(root: Path, chapter: Path, tmp: Path, profile: str | None = None) -> str:
    """The chapter executed from the copy ``root`` of the book's sources (conftest.book_sources)."""
    from bookbuild.execute import execute_chapter
    return execute_chapter(root / chapter.relative_to(ROOT), root, tmp / "fig", md_dir=tmp, profile=profile).markdown


@pytest.fixture(scope="module")
def text(tmp_path_factory, book_sources) -> str:
    md = _execute(book_sources, CHAPTER, tmp_path_factory.mktemp("lec19"))
    assert "{python}" not in md, "an inline expression was left unresolved"
    # an interactive figure carries its plotted arrays as JSON (floats such as 0.7812..., not printed text)
    md = re.sub(r'<script type="application/json" class="mlsysim-plot-json">.*?</script>', "", md, flags=re.S)
    return re.sub(r"\s+", " ", md)


# (context phrase as the chapter prints it) — value typed from the seed
GOLDEN = [
    # §19.1–19.2
    "`read_file`",                                              # sanity: the text executed at all
    "Half. That is the number",                                 # 50 % live
    "= 16,384 × 128 KiB = 2.147 GB",                            # 2.147 GB
    "= 62.5 GB is 3.44 % of the card",                          # 3.44 %
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
    # seed: "exercise 3 varies it and finds where the row disappears" (wrong: Exercise 3 finds where
    # overcommit stops paying). The swap row closes when 2K/β = T*: 2 × 2.147 GB / 21.3 s = 0.20 GB/s.
    "which takes a link slower than 0.20 GB/s",
    "Exercise 3 finds that below 41.5 GB/s",
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
    # seed: "Take A = 45", which breaks the bound it follows (45 × 1.432 GB/s = 64.4 GB/s > 64 GB/s)
    "Take $A$ = 44, the largest whole number of sessions within the bound",
    # seed: "the cold-start throughput corollary in §19.6" (restored; a boot only lengthens the tool time)
    "the cold-start throughput corollary",
    "= 0.745 tasks/s",
    "= 22.4, independent of tool time",
    "= 10.9 GPU-seconds per wall-clock second",
    "infeasible by a factor of eleven",
    "which is 38.9 s here",
    "a gain of 1.54×",
    "29 ÷ 37.1 = 0.782 tasks/s",                                # seed: 0.781 (29/37.1 = 0.7817)
    # §19.7–19.8. Seed: "buys 1.43× end-to-end", with no source; the cited paper (PASTE, arXiv
    # 2603.18897v2) reports a 43.5 % cut in average task completion time: 1 / (1 − 0.435) = 1.77×.
    "a 43.5 % cut in average task completion time, a 1.77× speedup end to end",
    "buys 1.77× end-to-end",
    "= 1.07 GB per session of HBM plus 1.43 GB/s of PCIe",
    # Exercises
    "= 2.68 GB",
    "= 84 ms",
    "= 305,175",
    # seed: 42.7 s, from 140 µs per token, the weight term alone. The chapter's own
    # @eq-lec19-prefill-token adds attention: 2·69.0e9 / 989e12 = 139.5 µs,
    # 4·80·8,192·8,192 / 989e12 = 21.7 µs, 161.2 µs in all; 100e9/327,680 × 161.2 µs = 49.2 s.
    "139.5 µs of weight term plus 21.7 µs of attention, 161.2 µs",
    "= 49.2 s, about 2.3 times the standing session's 21.3 s",   # 49.2 / 21.3
    # ... and the instructor note says the course's original key gave 42.7 s, from the 140 µs weight term
    "which gave 42.7 s",
    "as 140 µs per token at 8,192 tokens",
    # restored from the seed: the "Self-check" heading, "eight sub-agents", "seven years apart"
    "## Self-check",
    "when eight sub-agents run at once",
    "seven years apart",
    "KV budget is 1.6× the single card's",                       # 100 / 62.5
    "= 5.19 s",
    "= 3.57 card-seconds",
    "19 round trips",                                           # seed: "all 20 swap" (slip) — 19 swap + 1 discard
    # seed: "19 × 0.067 = 1.28", which reads as a slip; 2 × 2^31 B / 64e9 B/s = 0.06711 s, × 19 = 1.275
    "19 × 0.06711 s = 1.28 s of PCIe",
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
SLIPS = ["361.5", "85.88", "1.431 GB/s", "1,334", "19.2 %", "0.781", "all 20 swap", "16 calls kept",
         "finds where the row disappears", "19 × 0.067 =", "$A$ = 45", "1.43×", "45 sessions",
         "resident-count corollary"]


def test_the_original_key_figure_appears_only_in_the_instructor_note(text):
    """42.7 s (the seed's key for Exercise 1) is quoted once, in the note that explains the difference."""
    assert text.count("42.7 s") == 1
    note = text[text.index("Instructor notes: Exercise 1 and the original key"):]
    assert "42.7 s" in note[:600] and "49.2 s" in note[:900]


@pytest.mark.parametrize("phrase", GOLDEN)
def test_golden_number_in_context(text, phrase):
    assert phrase in text, f"expected {phrase!r} in the executed Lecture 19"


CORRECTIONS_EN = "Instructor notes: where this lecture corrects the original notes"
CORRECTIONS_ZH = "教师备注：本讲对原讲义的更正"


def _outside_and_note(text: str, title: str) -> tuple[str, str]:
    """The executed text without the corrections note, and the note: the one place a seed's slip may be
    quoted, beside the corrected value."""
    assert text.count(title) == 1, f"the corrections note {title!r} must appear once"
    start = text.index(title)
    end = text.index(" ::: ", start)
    return text[:start] + text[end:], text[start:end]


@pytest.mark.parametrize("slip", SLIPS)
def test_seed_slip_not_copied(text, slip):
    outside, _ = _outside_and_note(text, CORRECTIONS_EN)
    assert slip not in outside, f"the seed's slip {slip!r} must not be printed outside the corrections note"


# Every correction of the seed is said to the instructor: the seed's figure (typed from the seed) beside the
# corrected one (hand derivations in the comments above and here).
CORRECTED_EN = [
    ("The notes: 361.5 TFLOP", "are 361.6 TFLOP"),                       # 16,384 × (2·6.74e9 + 4·32·4,096·16,384)
    ("a 4,000-token session and a 64,000-token session", "3.1-fold"),   # T* 15.1 s at 4,096, 47 s at 65,536
    ('"microsecond setup"', "about 5 ms of startup overhead"),          # Sandlock's abstract: "roughly 5 ms"
    ("over 100 microVM launches per second per host", "up to 150 per second per host"),  # NSDI 20, sec. 4
    ("85.88 GB per task and 1.431 GB/s", "gives 85.90 GB and 1.432 GB/s"),   # 40 × 2^31 B; / 60 s
    ('"Take A = 45"', "64.4 GB/s"),                                     # 45 × 1.432 GB/s > 64 GB/s
    ("The bound is 44.7", "admits 44"),
    ("1.43× end to end", "a 1.77× speedup"),                            # 1 / (1 − 0.435)
    ("the sub-agent row \"moves entirely onto the swap side\"", "$T^{*}$ of 49.2 s"),
    ("16 calls kept, then all 20 swapped for 20 × 0.067 = 1.34 s", "0 kept, 19 swapped for 1.28 s, 1 discarded"),
    ("1,334 boots", "gives 1,333"),                                     # 666.7 calls/s × 2 s
    ("19.2 %, 0.781 tasks/s", "is 19.1 %"),                             # 7.1 / 37.1 = 0.1914
    ("is 0.782 tasks/s", '"6× faster"'),                                # 29 / 37.1 = 0.7817
    ("is 4.2×", "finds where the row disappears"),                      # 30 / 7.1 = 4.23
    ("slower than 0.20 GB/s", "Exercise 3 finds where overcommit stops paying"),   # 2 × 2.147 GB / 21.3 s
]


@pytest.mark.parametrize("pair", CORRECTED_EN, ids=[p[0][:30] for p in CORRECTED_EN])
def test_every_seed_correction_is_told_in_the_corrections_note(text, pair):
    _, note = _outside_and_note(text, CORRECTIONS_EN)
    for phrase in pair:
        assert phrase in note, f"the corrections note lacks {phrase!r}"


# ---- the Chinese chapter: the same seed values, in the places its prose puts them. Typed from the English
# seed's values (with the corrections noted above); where the English spells a value in words the Chinese
# prints digits ("twenty-two times" -> "22 倍"), and billions of parameters are written in 亿 (6.74e9 = 67.4 亿).

@pytest.fixture(scope="module")
def text_zh(tmp_path_factory, book_sources) -> str:
    md = _execute(book_sources, CHAPTER_ZH, tmp_path_factory.mktemp("lec19zh"), "zh")
    assert "{python}" not in md, "an inline expression was left unresolved"
    # as in English: the interactive figures' plotted arrays are data, not printed text
    md = re.sub(r'<script type="application/json" class="mlsysim-plot-json">.*?</script>', "", md, flags=re.S)
    return re.sub(r"\s+", " ", md)


GOLDEN_ZH = [
    "`read_file`",
    "智能体会话有一半的墙钟时间什么也不生成",                     # 50 %
    "只有一半的时间在生成词元。本讲其余部分都围绕这个数字展开",   # the seed's "Half." (d = 0.5)
    "67.4 亿参数的模型",                                          # 6.74e9 parameters
    "= 16,384 × 128 KiB = 2.147 GB",
    "= 62.5 GB，占整张卡的 3.44%",                                 # the book's Chinese percent style
    "29 个这样的会话恰好装满整张卡",
    "130 亿参数级别",                                             # 13e9
    "会话占 13.4 GB",
    "换来了 6 倍的改善",                                          # a factor of six
    "容纳 29 个会话与容纳 4 个会话",
    "利用率跌到 15.2%",
    "槽位的六分之一",                                             # a sixth
    "最多只能节省 25%",
    "权重项为 27.26 µs，注意力项为 17.37 µs，每个词元合计 44.63 µs",
    "重新预填充为 361.6 TFLOP",                                   # seed: 361.5
    "= 0.731 s GPU 时间",
    "0.067 s PCIe 时间",
    "即 67 ms",                                                   # "Sixty-seven milliseconds"
    "需要 295 条并发序列",
    "只容得下 29 条",
    "约 21 s，准确地说是 21.3 s",                                  # "Twenty-one seconds: 21.3 s"
    "= 476,837 个词元",
    "在 4,096 个词元时为 31.60 µs，$T^{*}$ = 15.1 s",
    "在 16,384 个词元时为 44.63 µs，$T^{*}$ = 21.3 s",
    "预算为 119,209 个词元，在相同的上下文长度下 $T^{*}$ 降至 5.3 s",
    "重新计算是传输的 10.9 倍",
    "是保留与换出阈值的 22 倍，而保留与丢弃阈值又是它的 14 倍",    # twenty-two / fourteen
    "低于 67 ms",
    "67 ms 至 21.3 s",
    "而这要求链路慢于 0.20 GB/s",                                 # 2 × 2.147 GB / 21.3 s
    "低于 41.5 GB/s 时",
    "合计每秒发起 333 次调用",
    "有 500 个沙箱在运行",
    "有 42 个正在启动",
    "或 667 个（容器",
    "因此 $A$ ≤ 58",
    "= 85.90 GB，这是每 60 s 会话的总传输量，即持续 1.432 GB/s",               # seed: 85.88, 1.431
    "因此 $A$ ≤ 44.7",
    "取 $A$ = 44，即不超过这一界限的最大整数",                     # seed: 45, above the bound
    "冷启动吞吐量推论",
    "= 0.745 个任务/秒",
    "= 22.4，同样与工具耗时无关",
    "= 每秒墙钟时间需要 10.9 GPU·秒：约为一张卡所能提供的 11 倍",                   # "a factor of eleven"
    "此处为 38.9 s",
    "是前者的 1.54 倍",
    "29 ÷ 37.1 = 0.782 个任务/秒",                                # seed: 0.781
    "平均任务完成时间缩短了 43.5%，即端到端加速 1.77 倍",          # seed: 1.43×, no source
    "= 1.07 GB 的 HBM，外加 1.43 GB/s 的 PCIe",
    # exercises
    "690 亿参数",                                                 # Llama-2-70B, 69.0e9
    "= 2.68 GB",
    "= 84 ms",
    "权重项 139.5 µs 加注意力项 21.7 µs，共 161.2 µs",             # seed: 140 µs (weight term only)
    "= 305,175；乘以 161.2 µs 得 49.2 s",                          # seed: 42.7 s
    "约为示例会话的 2.3 倍",                                      # the standing session: 示例会话
    "原答案是 42.7 s",                                            # the instructor note on the original key
    "## 自测",
    "当 8 个子智能体同时运行时",
    "两者相隔 7 年",
    "上午 11:15 至中午 12:30",                                    # Chinese time formats (12:30 is 中午)
    "12 月 2 日晚上 11:59",
    "= 5.19 s",
    "= 3.57 卡·秒",
    "共 19 次往返，花费 19 × 0.06711 s = 1.28 s 的 PCIe",           # seed: all 20 swap; 19 × 0.067
    "那 1 次 90 s 的调用",                                        # "The one call"
    "= 87%",
    "= 41.5 GB/s",
    "持续 10 分钟",                                               # "ten minutes"
    "= 667 次调用/秒",
    "= 1,333 个并发启动",                                         # seed: 1,334
    "= 83。",
    "= 1.2 s 的全速率需求",
    "= 19.1%",                                                    # seed: 19.2 %
    # numbers worth memorizing
    "| 每张卡的会话数 | 29 |",
    "361.6 TFLOP ÷ 494.5 TFLOP/s",
    "| 保留与换出的盈亏平衡点 | 67 ms |",
    "21.3 s（MHA 时为 5.3 s）",
    "500 个运行，42 个启动（微虚拟机）或 667 个（容器）",
    "1.54 倍，仅当会话时长超过 38.9 s",
]


@pytest.mark.parametrize("phrase", GOLDEN_ZH)
def test_chinese_golden_number_in_context(text_zh, phrase):
    assert phrase in text_zh, f"expected {phrase!r} in the executed Chinese Lecture 19"


@pytest.mark.parametrize("slip", SLIPS + ["1.431", "19.2%", "1.43 倍", "标准会话", "11:15am", "pm，"])
def test_chinese_seed_slip_not_copied(text_zh, slip):
    outside, _ = _outside_and_note(text_zh, CORRECTIONS_ZH)
    assert slip not in outside


CORRECTED_ZH = [
    ("原讲义：361.5 TFLOP", "合计 361.6 TFLOP"),
    ("4,000 个词元的会话与 64,000 个词元的会话", "相差 3.1 倍"), ("$T^{*}$ 为 15.1 s（4,096 个词元时）", "占用 64.4 GB/s，而链路只有 64 GB/s"),
    ("“微秒级建立”", "约为 5 ms"),
    ("每台主机每秒启动超过 100 个微虚拟机", "每台主机每秒最多 150 个"),
    ("每个任务 85.88 GB、1.431 GB/s", "得 85.90 GB 和 1.432 GB/s"),
    ("“取 A = 45”", "上限是 44.7"),
    ("上限是 44.7", "准入 44 个"),
    ("端到端 1.43 倍", "加速 1.77 倍"),
    ("保留 16 次调用", "全部 20 次换出，花费 20 × 0.067 = 1.34 s"),
    ("保留 0 次，换出 19 次，花费 1.28 s，丢弃 1 次", "1,334 个启动"),
    ("给出 1,333 个", "原讲义：19.2%、0.781 个任务/秒"),
    ("“快了 6 倍”", "为 19.1%"),
    ("为 0.782 个任务/秒", "是 4.2 倍"),
    ("链路慢于 0.20 GB/s", "$T^{*}$，即 49.2 s"),
]


@pytest.mark.parametrize("pair", CORRECTED_ZH, ids=[p[0][:12] for p in CORRECTED_ZH])
def test_every_seed_correction_is_told_in_the_chinese_corrections_note(text_zh, pair):
    _, note = _outside_and_note(text_zh, CORRECTIONS_ZH)
    for phrase in pair:
        assert phrase in note, f"the Chinese corrections note lacks {phrase!r}"


def test_the_chinese_key_figure_appears_only_in_the_instructor_note(text_zh):
    assert text_zh.count("42.7 s") == 1 and "原答案是 42.7 s" in text_zh


def test_no_typed_numbers_in_source():
    """The lint: every digit in the chapter's prose comes from a cell."""
    from bookbuild.book.lint import lint_text, load_allowlist
    allow = load_allowlist()
    files = [CHAPTER, CHAPTER_ZH] + sorted((ROOT / "lectures" / "_cells").glob("lec19-*.qmd"))
    errs = [e for f in files for e in lint_text(Path(f).read_text(encoding="utf-8"),
                                                 Path(f).resolve().relative_to(ROOT).as_posix(), allow)]
    assert not errs, "\n".join(str(e) for e in errs)


# ---- the host link: one copy path, the same cells in the static page and in live mode. Derived by hand:
# a session swaps 2 × 20 × 2^31 B = 85.90 GB per 60 s, 1.432 GB/s; HBM admits 29 / 0.5 = 58 sessions.
#   β =  64 GB/s: A_PCIe =  64 / 1.432 = 44.7 < 58  -> PCIe binds, admit 44
#   β = 128 GB/s: A_PCIe = 128 / 1.432 = 89.4 > 58  -> HBM binds, admit 58, X = 29 / 30 s = 0.967 tasks/s,
#                 a gain of 0.967 / (29 / 60) = 2.00× (live mode used to print "overcommitting to 89")
#   β =  32 GB/s: A_PCIe =  32 / 1.432 = 22.3       -> admit 22
# and the full-duplex alternative of the instructor note at 64 GB/s each way: 0.716 GB/s per direction,
# A = 89.4, HBM binds at 58, X = 0.967 tasks/s; Config C: min(29 / 7.1, 128 / 85.90) = 1.49 > 29 / 37.1.
@pytest.mark.parametrize("link, admitted, x, gain", [(None, "44", "0.745", "1.54"), (128, "58", "0.967", "2.00"),
                                                     (32, "22", "0.373", "0.77")])
def test_admitted_sessions_stay_within_both_bounds_for_any_link(link, admitted, x, gain):
    from test_reference_only import _run
    v = _run("lectures/lecture19-agent-stalls.qmd", None if link is None else {"link_bandwidth": link})
    assert (v["Overcommit.admitted_str"], v["Overcommit.x_general_str"], v["Overcommit.gain_str"]) == (admitted, x, gain)


def test_the_full_duplex_alternative_is_computed_in_the_overcommit_notes(text):
    assert ("0.716 GB/s per session each way, so the PCIe bound doubles to 89.4 and HBM binds first at 58" in text
            and "= 0.967 tasks/s, still free of the tool time" in text and "(1.49 tasks/s against 0.782)" in text)
    assert "one copy path of bandwidth" in text and "bandwidth per direction is" not in text
