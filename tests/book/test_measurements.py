"""The measurements registry, the floors under its values, and the guard that no measurement beats its floor.

Expected values are hand derivations written here from the published numbers (datasheets, model
configurations, the benchmark tables), never read back from the code under test.
"""
import os
import shutil
import re
import subprocess
import sys

import pytest

from conftest import ROOT, SOURCES_IGNORE, copy_with_edits

from mlsysim import Q_, RegistryError
from mlsysim.guards import GuardError
from mlsysim.physics import (batch_time_floor, mean_decode_context, throughput_ceiling, tp_decode_floor,
                             tp_prefill_floor)
from mlsysim.registry import REGISTRY

DATA = ROOT / "mlsysim" / "data"
NIM_C1 = "nim-llama33-70b-h100x2-5000-500-c1"

# Published inputs, typed from their sources
H100_BW, H100_FP8 = 3.35e12, 1978.9e12  # byte/s, flop/s dense (H100 SXM datasheet/whitepaper)
MI300X_BW, MI300X_FP8 = 5.3e12, 2614.9e12
N70, L70, D70 = 70.6e9, 80, 8192  # Llama-3.x-70B: published parameter count, layers, width
KV70_FP8 = 2 * 80 * 8 * 128 * 1  # keys and values: 2 x layers x KV heads x head dim x 1 byte = 163,840
N405, L405, D405 = 406e9, 126, 16384
KV405_FP8 = 2 * 126 * 8 * 128 * 1


def _q(x, unit):
    return Q_(x, unit)


# ───────────────────────────── physics, against hand derivations ─────────────────────────────

def test_mean_decode_context_is_the_mean_of_the_decode_steps_contexts():
    # decode steps k = 1..S_out-1 read S_in + k tokens: for S_in = 10, S_out = 5 the mean of 11..14 is 12.5
    assert mean_decode_context(10, 5) == 12.5
    assert sum(10 + k for k in range(1, 5)) / 4 == 12.5


def test_tp_decode_floor_adds_bandwidth_and_reads_the_attention_state():
    t = tp_decode_floor(N70, _q(1, "byte"), _q(KV70_FP8, "byte"), _q(H100_BW, "byte/s"), _q(H100_FP8, "flop/s"),
                        2, 5000, 500)
    hand = (70.6e9 * 1 + 163_840 * (5000 + 250)) / (2 * 3.35e12)  # = 71,460,160,000 B / 6.7 TB/s
    assert t.to("second").magnitude == pytest.approx(hand, rel=1e-12)
    assert hand == pytest.approx(0.0106657, rel=1e-5)
    # one accelerator: twice the time
    t1 = tp_decode_floor(N70, _q(1, "byte"), _q(KV70_FP8, "byte"), _q(H100_BW, "byte/s"), _q(H100_FP8, "flop/s"),
                         1, 5000, 500)
    assert t1.to("second").magnitude == pytest.approx(2 * hand, rel=1e-12)


def test_tp_prefill_floor_is_the_long_prompt_arithmetic_at_the_combined_peak():
    t = tp_prefill_floor(N70, _q(1, "byte"), L70, D70, _q(H100_BW, "byte/s"), _q(H100_FP8, "flop/s"), 2, 5000)
    hand = (2 * 70.6e9 * 5000 + 2 * 80 * 8192 * 5000 ** 2) / (2 * 1978.9e12)
    assert t.to("second").magnitude == pytest.approx(hand, rel=1e-12)
    # a one-token prompt is bounded by one read of the weights instead
    t1 = tp_prefill_floor(N70, _q(1, "byte"), L70, D70, _q(H100_BW, "byte/s"), _q(H100_FP8, "flop/s"), 2, 1)
    assert t1.to("second").magnitude == pytest.approx(70.6e9 / (2 * 3.35e12), rel=1e-12)


def test_batch_time_floor_is_the_roofline_of_the_whole_batch():
    # 405B on 8 x MI300X, 256 requests of 128 in / 128 out
    b, s_in, s_out, n = 256, 128, 128, 8
    flops = b * (2 * N405 * (s_in + s_out) + 2 * L405 * D405 * (s_in + s_out) ** 2)
    bytes_ = s_out * N405 * 1 + b * KV405_FP8 * (s_out - 1) * (s_in + s_out / 2)
    hand = max(flops / (n * MI300X_FP8), bytes_ / (n * MI300X_BW))
    t = batch_time_floor(N405, _q(1, "byte"), _q(KV405_FP8, "byte"), L405, D405, _q(MI300X_BW, "byte/s"),
                         _q(MI300X_FP8, "flop/s"), n, s_in, s_out, b)
    assert t.to("second").magnitude == pytest.approx(hand, rel=1e-12)
    assert flops / (n * MI300X_FP8) > bytes_ / (n * MI300X_BW)  # a batch this large is arithmetic-bound


def test_throughput_ceiling_grows_with_the_batch_to_its_unbounded_limit():
    args = (N70, _q(1, "byte"), _q(KV70_FP8, "byte"), L70, D70, _q(H100_BW, "byte/s"), _q(H100_FP8, "flop/s"), 1,
            128, 2048)
    xs = [throughput_ceiling(*args, batch=b).to("1/s").magnitude for b in (1, 8, 64, 512, 4096)]
    assert xs == sorted(xs)
    # batch 1: memory-bound, S_out n beta / (S_out N b + m (S_out - 1) S_bar)
    hand1 = 2048 * 3.35e12 / (2048 * 70.6e9 + 163_840 * 2047 * (128 + 1024))
    assert xs[0] == pytest.approx(hand1, rel=1e-12)
    # unbounded: min(n pi S_out / F_1, n beta S_out / (m (S_out - 1) S_bar))
    f1 = 2 * 70.6e9 * 2176 + 2 * 80 * 8192 * 2176 ** 2
    hand_inf = min(1978.9e12 * 2048 / f1, 3.35e12 * 2048 / (163_840 * 2047 * 1152))
    assert throughput_ceiling(*args, batch=None).to("1/s").magnitude == pytest.approx(hand_inf, rel=1e-12)
    assert max(xs) <= hand_inf * (1 + 1e-12)


def test_floors_refuse_bare_numbers_and_impossible_lengths():
    from mlsysim import UnitMismatchError
    with pytest.raises(UnitMismatchError):
        tp_decode_floor(N70, 1, _q(KV70_FP8, "byte"), _q(H100_BW, "byte/s"), _q(H100_FP8, "flop/s"), 2, 10, 10)
    with pytest.raises(ValueError):
        throughput_ceiling(N70, _q(1, "byte"), _q(KV70_FP8, "byte"), L70, D70, _q(H100_BW, "byte/s"),
                           _q(H100_FP8, "flop/s"), 0, 10, 10, batch=1)


# ───────────────────────────── the registry entries and their floors ─────────────────────────────

def test_the_registry_meets_the_issue_s_coverage():
    from mlsysim.measurements import MEASUREMENTS
    ms = list(MEASUREMENTS.values())
    assert len(ms) >= 12
    assert len({m.source.publisher for m in ms}) >= 3
    assert len({m.accelerator.name for m in ms}) >= 3
    assert any(m.streams == 1 for m in ms)  # latency-bound
    assert any((m.streams or 0) >= 64 or m.load == "unbounded" for m in ms)  # throughput-bound
    for m in ms:
        assert m.source.url.startswith("https://") and m.source.accessed and m.table
        assert m.software and m.software_version


def test_nim_concurrency_one_matches_the_published_row_and_its_hand_floor():
    from mlsysim.measurements import MEASUREMENTS, compare
    m = MEASUREMENTS[NIM_C1]
    # typed from the NIM page: 2 x H100 80G, fp8 TP2, 5000/500, concurrency 1: TTFT 406.77 ms, ITL 18.58 ms
    assert (m.count, m.tensor_parallel, m.weight_precision) == (2, 2, "fp8")
    assert m.values["itl"].to("ms").magnitude == pytest.approx(18.58)
    assert m.values["ttft"].to("ms").magnitude == pytest.approx(406.77)
    rows = {c.metric: c for c in compare(m)}
    itl_floor = (70.6e9 + 163_840 * 5250) / (2 * 3.35e12)
    assert rows["itl"].floor == pytest.approx(itl_floor, rel=1e-9)
    assert rows["itl"].achieved == pytest.approx(itl_floor / 0.01858, rel=1e-9)
    # the issue's "about 10.5 ms" weights-only floor: 70.6 GB / 6.7 TB/s
    assert 70.6e9 / 6.7e12 == pytest.approx(0.0105, abs=1e-4)
    ttft_floor = (2 * 70.6e9 * 5000 + 2 * 80 * 8192 * 5000 ** 2) / (2 * 1978.9e12)
    assert rows["ttft"].floor == pytest.approx(ttft_floor, rel=1e-9)


def test_every_measurement_is_above_its_floor_and_every_fraction_below_one():
    from mlsysim.measurements import calibrate
    comps = calibrate()
    assert len(comps) >= 20
    for c in comps:
        assert 0 < c.achieved < 1, c
        assert (c.measured > c.floor) if c.kind == "time" else (c.measured < c.floor), c


def test_summary_follows_the_accelerator_and_falls_back_to_the_registry():
    from mlsysim.measurements import MEASUREMENTS, summary
    h = summary("H100")
    assert h.on_accelerator and h.n_basis == sum(m.accelerator.name == "H100" for m in MEASUREMENTS.values())
    assert h.streams_max == 250  # NIM's largest concurrency
    tpu = summary("TPUv5e")  # no measurement on it
    assert not tpu.on_accelerator and tpu.n_basis == len(MEASUREMENTS)
    assert tpu.overall == h.overall


# ───────────────────────────── loader rules ─────────────────────────────

def _load(tmp_path, edit):
    from mlsysim.measurements import load_measurements
    data = copy_with_edits(DATA, tmp_path / "data", {"measurements.toml": edit})
    return load_measurements(data, REGISTRY)


@pytest.mark.parametrize("edit, field, words", [
    (('itl = "18.58 ms"', 'itl = "18.58 GB"'), "itl", "must convert to second"),
    (('itl = "18.58 ms"', 'itl = 18.58'), "itl", "has no unit"),
    (('itl = "18.58 ms"', 'itl = "inf ms"'), "itl", "not a finite number"),
    (('output_throughput = "51.67 token/s"', 'output_throughput = "51.67 ms"'), "output_throughput", "must convert"),
    (('accelerator = "H100"\ncount = 2', 'accelerator = "H1000"\ncount = 2'), "accelerator", "unknown accelerator"),
    (('model = "Llama3_3_70B"', 'model = "Llama9_70B"'), "model", "unknown model"),
    (('source = "nvidia-nim-llm-benchmarks"', 'source = "nowhere"'), "source", "unknown source"),
    (('tensor_parallel = 2', 'tensor_parallel = 4'), "tensor_parallel", "count = 2"),
    (('weight_precision = "fp8"', 'weight_precision = "fp7"'), "weight_precision", "unknown precision"),
    (('streams = 1\ninput_tokens = 5000', 'input_tokens = 5000'), "streams", "give streams"),
    (('load = "concurrency"', 'load = "sometimes"'), "load", "is not one of"),
])
def test_a_malformed_entry_fails_naming_file_entry_and_field(tmp_path, edit, field, words):
    with pytest.raises(RegistryError) as e:
        _load(tmp_path, edit)
    msg = str(e.value)
    assert "measurements.toml" in msg and f"[{NIM_C1}] {field}" in msg and words in msg, msg


def test_a_precision_the_accelerator_does_not_publish_fails(tmp_path):
    with pytest.raises(RegistryError, match=r"\[nim-llama33-70b-h100x2-5000-500-c1\] weight_precision.*fp4"):
        _load(tmp_path, ('weight_precision = "fp8"', 'weight_precision = "fp4"'))


def test_an_entry_without_measured_values_fails(tmp_path):
    with pytest.raises(RegistryError, match="no measured value"):
        _load(tmp_path, ('ttft = "406.77 ms"\nitl = "18.58 ms"\noutput_throughput = "51.67 token/s"\n', ''))


# ───────────────────────────── the guard against the real world ─────────────────────────────

def _run(args, data, timeout=300):
    env = {**os.environ, "MLSYSIM_DATA_DIR": str(data)}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=ROOT)


def test_check_floors_names_a_throughput_above_its_ceiling():
    from mlsysim.measurements import Comparison, check_floors
    check_floors([Comparison("ok", "output_throughput", 10.0, 20.0, 0.5)])
    with pytest.raises(GuardError, match=r"\[fast\] output_throughput: measured 30.0 token/s beats even the strict "
                                         r"upper bound 20.0 token/s over its ceiling 20.0"):
        check_floors([Comparison("fast", "output_throughput", 30.0, 20.0, 1.5)])


def test_a_measurement_inside_the_margin_is_possible_but_not_above_the_floor():
    """Between the strict bound and the printed floor: not impossible (check_floors passes), but the
    appendix's "every server stays above its floor" (check_fractions) fails, naming the margin."""
    from mlsysim.measurements import Comparison, check_floors, check_fractions
    c = Comparison("close", "itl", 0.0106, 0.01067, 0.01067 / 0.0106, strict=0.01050)
    check_floors([c])
    with pytest.raises(GuardError, match=r"\[close\] itl: measured 10.60 ms is within the 1.6% margin of its printed "
                                         r"floor 10.67 ms"):
        check_fractions([c])


def test_the_strict_bounds_leave_out_the_embedding_the_head_per_prompt_token_and_the_rounding():
    """Hand derivation for NIM's 2 x H100, 5000/500, concurrency 1 (Llama-3.3-70B: geometry 70,553,706,496
    parameters, embedding table 128,256 x 8,192 = 1,050,673,152, published count 70.6e9)."""
    from mlsysim.measurements import MEASUREMENTS, compare
    rows = {c.metric: c for c in compare(MEASUREMENTS[NIM_C1])}
    n, e = 70_553_706_496, 128_256 * 8_192
    itl_strict = ((n - e) * 1 + 163_840 * (5250 - 1)) / (2 * 3.35e12)
    assert rows["itl"].strict == pytest.approx(itl_strict, rel=1e-12)
    assert itl_strict == pytest.approx(0.010502, rel=1e-4)
    ttft_strict = (2 * (n - 2 * e) * 5000 + 2 * e + 2 * 80 * 8192 * 5000 ** 2) / (2 * 1978.9e12)
    assert rows["ttft"].strict == pytest.approx(ttft_strict, rel=1e-12)
    # the printed floors sit 1.56 % (decode) and 2.99 % (prefill) above the strict bounds
    assert rows["itl"].margin == pytest.approx(0.0156, abs=5e-4)
    assert rows["ttft"].margin == pytest.approx(0.0299, abs=5e-4)


def test_every_margin_is_a_few_percent_and_every_measurement_beats_no_strict_bound():
    from mlsysim.measurements import calibrate
    comps = calibrate()
    assert all(0 < c.margin < 0.035 for c in comps)
    assert all(c.measured > c.strict if c.kind == "time" else c.measured < c.strict for c in comps)


# The published values as the sources print them (typed from the NIM, AMD, TensorRT-LLM and Oracle tables):
# the table must show the source's own digits, never our rounding of them.
PUBLISHED = [
    ("nim-llama33-70b-h100x2-5000-500-c1", "itl", "18.58 ms"),
    ("nim-llama33-70b-h100x2-5000-500-c1", "ttft", "406.77 ms"),
    ("nim-llama33-70b-h100x2-5000-500-c1", "output_throughput", "51.67 tok/s"),
    ("nim-llama33-70b-h100x2-5000-500-c5", "ttft", "546.7 ms"),
    ("nim-llama33-70b-h100x2-5000-500-c250", "ttft", "88,605.32 ms"),
    ("nim-llama33-70b-h100x2-5000-500-c250", "itl", "93.2 ms"),
    ("amd-llama31-70b-mi300x8-128-2048-maxload", "output_throughput", "13,818.7 tok/s"),
    ("amd-llama31-405b-mi300x8-128-2048-maxload", "output_throughput", "4,134.0 tok/s"),
    ("amd-llama31-70b-mi300x8-128-2048-b1", "request_latency", "15.254 s"),
    ("trtllm-llama33-70b-h100x2-5000-500", "output_throughput", "898 tok/s"),
    ("oci-llama31-405b-mi300x8-128-128-b1", "request_latency", "3.530 s"),
    ("oci-llama31-405b-mi300x8-128-128-b1", "output_throughput", "36 tok/s"),
]


@pytest.mark.parametrize("entry, metric, shown", PUBLISHED)
def test_a_measurement_is_printed_as_published(entry, metric, shown):
    from mlsysim.measurements import MEASUREMENTS, TABLE_TEXT, compare, table_rows
    rows = table_rows(lang="en", cite=False)
    keys = [(m.key, c.metric) for m in MEASUREMENTS.values() for c in compare(m)]
    i = keys.index((entry, metric))
    assert rows[i][6] == shown
    zh = table_rows(lang="zh", cite=False)[i][6]
    assert zh == shown.replace("tok/s", TABLE_TEXT["zh"]["units"]["tok/s"])


def test_published_digits_are_kept_not_recomputed():
    from mlsysim.measurements import fmt_published, published_digits
    assert published_digits("18.58 ms") == ("18.58", "ms")
    assert fmt_published("4134.0 token/s") == "4,134.0 tok/s"      # the trailing zero is the source's
    assert fmt_published("88605.32 ms", "zh") == "88,605.32 ms"
    with pytest.raises(ValueError):
        fmt_published("12 furlongs")


def test_the_chinese_table_uses_the_book_s_chinese_forms():
    from mlsysim.measurements import table_markdown
    zh = table_markdown(lang="zh")
    assert "满负载" in zh and "（上限）" in zh and "57%" in zh
    assert " max " not in zh and "(上限)" not in zh and "57 %" not in zh and "tok/s" not in zh


def test_an_itl_below_its_floor_fails_import_cli_and_build_naming_it(tmp_path):
    # 9 ms is below the 10.67 ms floor derived above for 2 x H100: physically impossible
    data = copy_with_edits(DATA, tmp_path / "data", {"measurements.toml": ('itl = "18.58 ms"', 'itl = "9.0 ms"')})
    r = _run(["-m", "mlsysim", "calibrate"], data)
    assert r.returncode == 2, r.stdout + r.stderr
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert f"[{NIM_C1}] itl: measured 9.00 ms beats even the strict lower bound 10.50 ms under its floor 10.67 ms" \
        in line, line
    book = shutil.copytree(ROOT, tmp_path / "book", ignore=SOURCES_IGNORE)   # its _build/ is not the checkout's
    r = _run(["-m", "bookbuild", "check", "--profile", "zh", "--root", str(book)], data)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"[{NIM_C1}] itl: measured 9.00 ms beats even the strict lower bound 10.50 ms under its floor 10.67 ms" \
        in r.stderr
    assert "appendix/_cells/calibration.qmd" in r.stderr and "Traceback" not in r.stderr
    # the unedited data passes
    r = _run(["-m", "mlsysim", "calibrate", "-a", "H100"], DATA)
    assert r.returncode == 0 and NIM_C1.split("-")[0] in r.stdout


# ───────────────────────────── CLI and the book's table ─────────────────────────────

def test_cli_prints_the_same_rows_as_the_book_table():
    from mlsysim.measurements import table_rows
    r = subprocess.run([sys.executable, "-m", "mlsysim", "calibrate"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    table, legend = r.stdout.strip().split("\n\n")
    lines = table.splitlines()
    book = table_rows(lang="en")
    # then one line per metric shown: the equation the floor's function declares
    assert len(legend.splitlines()) == 4 and legend.startswith("ITL floor: ")
    assert len(lines) == 1 + len(book)
    for line, row in zip(lines[1:], book):
        for cell in row[5:]:  # metric, measured, floor, achieved: the numbers the appendix prints
            assert cell in line, (cell, line)
    r = subprocess.run([sys.executable, "-m", "mlsysim", "calibrate", "--json", "-a", "MI300X"], capture_output=True,
                       text=True, cwd=ROOT)
    import json
    rows = json.loads(r.stdout)
    assert rows and all(x["accelerator"] == "MI300X" and 0 < x["achieved"] < 1 for x in rows)


def test_cli_json_gives_each_value_as_published_with_its_strict_bound_and_margin():
    import json
    import tomllib
    r = subprocess.run([sys.executable, "-m", "mlsysim", "calibrate", "--json"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    table = tomllib.loads((ROOT / "mlsysim/data/measurements.toml").read_text(encoding="utf-8"))
    assert len(rows) == sum(1 for e in table.values() for m in ("itl", "ttft", "request_latency", "output_throughput")
                            if m in e)
    for x in rows:
        # as the source printed it: the string of measurements.toml, its own digits
        assert x["published"] == table[x["entry"]][x["metric"]], x
        # the appendix's floor sits above the strict bound (it counts the embedding and output projection at
        # every position and the rounded-up parameter count), so it is not the strict bound, by its margin
        assert x["floor_is_strict"] is False and x["strict_bound"] is not None
        if x["unit"] == "second":
            assert x["strict_bound"] < x["floor"] <= x["measured"]
            assert abs(x["margin"] - (x["floor"] / x["strict_bound"] - 1)) < 1e-12
        else:
            assert x["measured"] <= x["floor"] < x["strict_bound"]
            assert abs(x["margin"] - (x["strict_bound"] / x["floor"] - 1)) < 1e-12
        assert 0 < x["margin"] < 0.05, x   # "a few percent" (the module's docstring)
    by = {(x["entry"], x["metric"]): x for x in rows}
    # two values whose published digits a rounding to three significant figures would change
    assert by[("nim-llama33-70b-h100x2-5000-500-c1", "itl")]["published"] == "18.58 ms"
    assert by[("nim-llama33-70b-h100x2-5000-500-c250", "ttft")]["published"] == "88605.32 ms"
    assert by[("nim-llama33-70b-h100x2-5000-500-c1", "itl")]["measured"] == 0.01858


def test_cli_bad_input_is_one_line():
    r = subprocess.run([sys.executable, "-m", "mlsysim", "calibrate", "-a", "Z80"], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 2 and "unknown accelerator 'Z80'" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "mlsysim", "calibrate", "-a", "TPUv5e"], capture_output=True,
                       text=True, cwd=ROOT)
    assert r.returncode == 0 and "no published measurement" in r.stdout


# ───────────────────────────── the section in both books ─────────────────────────────

def _section(md: str) -> str:
    i = md.index("{#sec-vol3-appendix-inference-calibration}")
    return md[i:]


def test_section_parity_table_and_figure_in_both_languages(executed_appendix):
    en, zh = (_section(executed_appendix[k].markdown) for k in ("en", "zh"))
    for s in (en, zh):
        assert "{#tbl-appdx-calibration " in s and "{#fig-appdx-calibration " in s
        assert "{#eq-appdx-tp-decode-floor}" in s and "{#eq-appdx-batch-roofline}" in s
    row = re.compile(r"^\|.*\|$", re.M)
    en_rows, zh_rows = row.findall(en), row.findall(zh)
    assert len(en_rows) == len(zh_rows) >= 22
    # the same numbers in every row (headers and metric names differ by language)
    num = re.compile(r"\d[\d,.]*")
    for a, b in zip(en_rows[2:], zh_rows[2:]):
        assert num.findall(a) == num.findall(b), (a, b)
    # the prose of both quotes the same Calibration values in the same order
    use = [(u.expr, u.value) for u in executed_appendix["en"].inline if u.expr.startswith("Calibration.")]
    use_zh = [(u.expr, u.value) for u in executed_appendix["zh"].inline if u.expr.startswith("Calibration.")]
    assert [e.replace("_en_", "_") for e, _ in use] == [e.replace("_zh_", "_") for e, _ in use_zh]
    words = ("scope", "beyond")   # clauses in words, one per language; every other value is a number
    assert [v for e, v in use if not any(w in e for w in words)] == \
        [v for e, v in use_zh if not any(w in e for w in words)]
    assert "56 to 57 percent" in en and "56% 至 57%" in zh  # NIM's two concurrency-one ITLs: 10.6/18.91, 10.67/18.58


def test_the_figure_data_is_separate_from_its_drawing_and_highlights_the_reference():
    from mlsysim.figures import calibration_data
    d = calibration_data("H100")
    assert {p["accelerator"] for p in d["points"] if p["highlight"]} == {"H100"}
    assert all(p["achieved"] < 1 for p in d["points"])
    assert d["unbounded_x"] > max(p["streams"] for p in d["points"] if p["streams"] is not None)
    assert not any(p["highlight"] for p in calibration_data("TPUv5e")["points"])
