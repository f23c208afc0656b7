"""fmt / check / CLI behaviour."""
import json
import re

import pytest

from conftest import examples, mlsysim_main
from mlsysim import *
from mlsysim.fmt import Fmt


def test_fmt_thousands_and_rounding():
    assert fmt(1978.9, precision=0) == "1,979"
    assert fmt_int(107_727.4) == "107,727"
    assert fmt_int(2500.5) == "2,501" and fmt(0.125, 2) == "0.13"  # half up, not banker's rounding
    assert fmt(0.3383, precision=2) == "0.34"
    assert isinstance(fmt(1.0), Fmt) and isinstance(fmt(1.0), str)
    assert fmt(1.0)._repr_markdown_() == "1.0" and repr(fmt_int(5)) == "5"


def test_fmt_refuses_to_hide_the_magnitude():
    with pytest.raises(FormatPrecisionError, match="would print as 0"):
        fmt(0.0004, precision=1)
    with pytest.raises(FormatPrecisionError, match="off"):
        fmt_int(1.4)  # 29 % error
    with pytest.raises(TypeError, match="convert it first"):
        fmt(3 * GB)


def test_fmt_memory_capacity_convention():
    assert fmt_memory_capacity(80 * GiB, unit=GiB) == "80 GB"
    with pytest.raises(FormatPrecisionError, match="not a whole number"):
        fmt_memory_capacity(80 * GB, unit=GiB)  # 74.5 GiB: a decimal size must not take the label
    with pytest.raises(ValueError, match="binary unit"):
        fmt_memory_capacity(80 * GiB, unit=GB)


def test_fmt_words():
    assert fmt_words(29) == "twenty-nine" and fmt_words(11) == "eleven" and fmt_words(60) == "sixty"
    assert fmt_words(10.9) == "eleven"


def test_check():
    check(True, "never shown")
    with pytest.raises(GuardError, match="the claim"):
        check(False, "the claim")


_cli = mlsysim_main


def test_cli_reference_json_for_the_reference_pair():
    # the appendix's reference model: Llama-3-70B's geometry with a window that admits 32,768 tokens
    r = _cli("reference", "--accelerator", "H100", "--model", "Llama3_1_70B", "--json")
    assert r.returncode == 0, r.stderr
    v = json.loads(r.stdout)
    for key in ("ridge_flop_per_byte", "decode_floor_s", "prefill_per_token_s", "decode_to_prefill_ratio",
                "attention_crossover_tokens", "kv_bytes_per_token", "kv_bytes_per_token_mha",
                "kv_bytes_per_token_mqa", "kv_bytes_at_context", "node_kv_pool_bytes", "resident_trajectories"):
        assert key in v
    # the appendix's values (seed): 591, 21.1 ms, 71 us, 295, 327,680, 526.0 GB, 48
    assert round(v["ridge_flop_per_byte"]) == 591
    assert round(v["decode_floor_s"] * 1e3, 1) == 21.1
    assert round(v["prefill_per_token_s"] * 1e6) == 71
    assert round(v["decode_to_prefill_ratio"]) == 295
    assert v["kv_bytes_per_token"] == 327_680 and v["kv_bytes_per_token_mha"] == 2_621_440
    assert round(v["node_kv_pool_bytes"] / 1e9, 1) == 526.0
    assert v["resident_trajectories"] == 48


def test_cli_other_pair_uses_that_accelerator():
    # Llama-3-8B's published window is 8,192 tokens (config.json max_position_embeddings)
    v = json.loads(_cli("reference", "-a", "H200", "-m", "Llama3_8B", "--context", "8192", "--json").stdout)
    # H200: 1978.9 TFLOP/s / 4.8 TB/s = 412.3 ; Llama-3-8B at 8 bits: 8.03e9 B / 4.8e12 B/s = 1.673 ms
    assert v["ridge_flop_per_byte"] == pytest.approx(1978.9 / 4.8)
    assert v["decode_floor_s"] == pytest.approx(8.03e9 / 4.8e12)
    assert v["node"] == "DGX_H200"


@pytest.mark.parametrize("args, needle", [
    (("reference", "-a", "H900"), "available: H100, H200"),
    (("reference", "-a", ""), "expected a registry name"),
    (("reference", "-m", "Mistral_7B"), "is not offered"),
    (("reference", "--context", "-1"), "positive"),
    (("reference", "-m", "GPT5"), "available: Llama3_70B"),
    (("show", "nothing"), "available:"),
])
def test_cli_bad_input_is_one_line_and_status_2(args, needle):
    r = _cli(*args)
    assert r.returncode == 2
    assert needle in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_list_and_show():
    r = _cli("list")
    assert r.returncode == 0 and "H100" in r.stdout and "Llama3_70B" in r.stdout and "source:" in r.stdout
    r = _cli("show", "B200")
    assert "192 GB" in r.stdout and "conflict" in r.stdout


# ── the ends of each numeric option's range (out-of-range values: tests/unit/test_hostile_registry.py) ──

def test_cli_accepts_the_ends_of_each_range():
    # Llama-3-8B keeps every layer's keys and values: 2 x 32 layers x 8 kv heads x 128 x b bytes per token
    v = json.loads(_cli("reference", "-m", "Llama3_8B", "--context", "1", "--kv-bytes", "8", "--json").stdout)
    assert v["context"] == 1 and v["kv_bytes_per_token"] == 2 * 32 * 8 * 128 * 8
    v = json.loads(_cli("reference", "-m", "Llama3_8B", "--context", "8192", "--kv-bytes", "0.5", "--json").stdout)
    assert v["kv_bytes_at_context"] == 2 * 32 * 8 * 128 * 0.5 * 8192


def test_cli_prints_values_too_small_for_the_books_precision():
    # Llama-2-13B, one token, keys and values at 0.5 byte (4-bit): 2 x 40 layers x 40 heads x 128 x 0.5 = 204,800
    # bytes = 0.0002048 GB, which one decimal would show as 0.0: the CLI shows as many decimals as it needs
    r = _cli("reference", "-m", "Llama2_13B", "-p", "fp64", "--context", "1", "--kv-bytes", "0.5")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^KV bytes at 1 token +0\.0002 GB$", r.stdout, re.M), r.stdout


def test_cli_falls_back_to_the_nearest_precision_as_the_page_does_and_says_so():
    # the A100 publishes no fp8 rate (accelerators.toml): its int8 is used, and the pool holds 8-bit weights
    r = _cli("reference", "-a", "A100_80GB", "-p", "fp8")
    assert r.returncode == 0, r.stderr
    assert "int8 (NVIDIA A100 80GB SXM publishes no fp8 rate: int8 is used)" in r.stdout
    # 8 x 80 GiB - 70.6e9 x 1 byte - 20 GB = 596.6 GB, 8-bit weights held
    assert re.search(r"^Attention-state pool per node +596\.6 GB \(8-bit weights held, 20 GB reserve\)$", r.stdout, re.M)


def test_cli_reserve_is_shown_and_settable():
    # the reference's pool without the 20 GB reserve: 8 x 80 GiB - 70.6e9 x 2 bytes = 546.0 GB
    r = _cli("reference", "--reserve", "0")
    assert re.search(r"^Attention-state pool per node +546\.0 GB \(16-bit weights held, 0 GB reserve\)$", r.stdout, re.M), r.stdout
    bad = _cli("reference", "--reserve", "-1")
    assert bad.returncode == 2 and "--reserve" in bad.stderr and len(bad.stderr.splitlines()) == 1


def test_the_pool_holds_the_weights_at_the_precision_served():
    # Llama-3.1-70B on a DGX H100 (8 x 80 GiB): at bf16 the pool is 8 x 80 GiB - 70.6e9 x 2 bytes - 20 GB = 526.0 GB;
    # on an H200 node (8 x 141 GiB = 1,211.2 GB) at fp8 it is 1,211.2 GB - 70.6e9 x 1 byte - 20 GB = 1,120.6 GB
    r = _cli("reference", "-p", "bf16")
    assert re.search(r"^Attention-state pool per node +526\.0 GB \(16-bit weights held, 20 GB reserve\)$", r.stdout, re.M)
    assert "sized for" not in r.stdout
    r = _cli("reference", "-a", "H200", "-p", "fp8", "--reserve", "20")
    assert re.search(r"^Attention-state pool per node +1,120\.6 GB \(8-bit weights held, 20 GB reserve\)$", r.stdout, re.M), r.stdout
    # the reference itself keeps the seed's pool sized for 16-bit weights, and the output says so
    r = _cli("reference")
    assert re.search(r"\(16-bit weights held, 20 GB reserve\)$", r.stdout, re.M)
    assert "note: the reference configuration, as the appendix computes it: fp8 weights served from a pool sized for " \
           "bf16 weights" in r.stdout
    # a node that cannot hold the weights: TPU v5e host, 8 x 16 GiB = 137.4 GB, against Llama-3.1-405B's 406e9 x 2
    # bytes + 20 GB = 832 GB; the line says "0 GB" with its unit first, then why
    r = _cli("reference", "-a", "TPUv5e", "-m", "Llama3_405B", "-p", "bf16")
    assert re.search(r"^Attention-state pool per node +0 GB \(does not fit: 16-bit weights held, 20 GB reserve\)$",
                     r.stdout, re.M), r.stdout


def test_every_subcommand_speaks_json_and_never_infinity():
    import json
    for args in (("list",), ("show", "H100"), ("show", "Mixtral_8x7B"), ("reference",), ("lecture",),
                 ("calibrate", "-a", "MI300X")):
        r = _cli(*args, "--json")
        assert r.returncode == 0, (args, r.stderr)
        json.loads(r.stdout, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


def test_lecture_values_carry_their_units():
    r = _cli("lecture")
    assert re.search(r"^Session KV +2\.147 GB$", r.stdout, re.M), r.stdout   # 16,384 x 131,072 bytes
    assert re.search(r"^Sessions per card +29 sessions$", r.stdout, re.M)      # floor(62.5 GB / 2.147 GB)


# ---- reference-only values (mlsysim.fmt.reference_only)

def test_reference_only_renders_as_plain_text_and_keeps_its_marker():
    import copy
    import pickle
    from mlsysim.fmt import ReferenceFmt, is_reference_only, reference_only, same_kind
    r = reference_only(fmt_int(70))
    assert isinstance(r, ReferenceFmt) and isinstance(r, Fmt) and isinstance(r, str)
    assert r.reference_only and not fmt_int(70).reference_only and is_reference_only(r)
    assert str(r) == "70" and type(str(r)) is str and r._repr_markdown_() == "70" and repr(r) == "70"
    assert f"a {r}-billion-parameter model" == "a 70-billion-parameter model" and r == "70"
    for back in (pickle.loads(pickle.dumps(r)), copy.copy(r), copy.deepcopy(r)):
        assert type(back) is ReferenceFmt and back == "70" and back.reference_only
    assert is_reference_only(same_kind(r, "Seventy")) and not is_reference_only(same_kind(fmt_int(1), "One"))
    with pytest.raises(TypeError, match="formatted string"):
        reference_only(70)


def test_a_reference_only_value_does_not_follow_the_choice_but_an_active_one_does():
    from mlsysim import scenario
    from mlsysim.fmt import reference_only

    def values():
        active = scenario.reference_scenario().model.parameters.to("count").magnitude
        ref = scenario.reference().model.parameters.to("count").magnitude
        return fmt(active / 1e9, 1), reference_only(fmt_int(round(ref / 1e9, -1)))

    a_ref, r_ref = values()
    with scenario.use({"accelerator": "B200", "model": "Llama3_8B"}):
        a_8b, r_8b = values()
    assert a_ref == "70.6" and a_8b == "8.0"          # the active scenario follows the choice
    assert r_ref == r_8b == "70" and r_8b.reference_only  # the reference-only value does not


def test_fmt_binary_capacity_prints_the_unit_the_book_computes_with():
    from mlsysim.fmt import fmt_binary_capacity
    assert fmt_binary_capacity(80 * GiB) == "80 GiB" and fmt_memory_capacity(80 * GiB) == "80 GB"
    with pytest.raises(FormatPrecisionError, match="not a whole number"):
        fmt_binary_capacity(141 * GB)


# ── every value in a declared range computes, every other value is one line (hypothesis) ──
# The ranges are mlsysim.scenario.FREE: the page's validator (live mode's check_inputs), live mode's Python side
# and the CLI read that one declaration, so drawing from it here draws what a reader may type anywhere.

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mlsysim.scenario as S

_PROPERTY = settings(max_examples=examples(60), deadline=None, derandomize=True, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _strict_json(text: str):
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"not JSON: {c}")))


def _flag(f) -> str:
    return "--" + f.key.removeprefix("lecture_").replace("_", "-")


def _in_range(f):
    """A value of ``f``'s declared range as a reader types it: its ends, and values spread over it (log scale)."""
    if f.allowed:
        return st.sampled_from([str(a) for a in f.allowed])
    whole = f.kind in ("tokens", "count") or f.key == "capacity"
    lo, hi = f.low, f.high
    ends = st.sampled_from([lo, hi])
    inside = st.floats(math.log10(lo), math.log10(hi)).map(lambda e: min(hi, max(lo, 10 ** e)))
    return st.one_of(ends, inside).map(lambda x: str(max(math.ceil(lo), min(int(hi), round(x)))) if whole else repr(x))


def _out_of_range(f):
    """A value outside ``f``'s range, or not a number at all: as far out as a float goes, and just outside."""
    if f.allowed:
        return st.sampled_from(["0", "3", "-1", "1e308", "nan", "", "bf17"] if f.kind != "precision" else ["fp9", "int3", "", "1"])
    bad = ["nan", "inf", "-inf", "1e309", "1e308", "-1", "0", "5e-324", "1e-308", "", "abc", "1e30"]
    near = st.one_of(st.floats(f.high * 1.0001, 1e308).map(repr),
                     st.floats(-1e308, f.low * 0.9999).map(repr))
    return st.one_of(st.sampled_from([b for b in bad if not _accepted(f, b)]), near)


def _accepted(f, text: str) -> bool:
    try:
        x = float(text)
    except ValueError:
        return False
    return math.isfinite(x) and f.low <= x <= f.high


def _free(chapter):
    return {k: f for k, f in S.FREE.items() if f.chapter == chapter}


@_PROPERTY
@given(st.fixed_dictionaries({}, optional={k: _in_range(f) for k, f in _free("appendix").items() if k != "context"}),
       st.sampled_from(S.SPACE.accelerators), st.sampled_from(S.SPACE.models))
def test_every_appendix_input_in_its_declared_range_computes_in_the_cli(values, accel, model):
    args = ["reference", "-a", accel, "-m", model]
    for k, v in values.items():
        args += [_flag(S.FREE[k]), v]
    r = _cli(*args, "--json")
    if r.returncode == 2:   # refused for the whole choice (weights that do not fit the node), never for a value
        assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
        assert not any(_flag(S.FREE[k]) + ":" in r.stderr for k in values), r.stderr
        return
    assert r.returncode == 0, (args, r.stderr)
    _strict_json(r.stdout)
    text = _cli(*args)
    assert text.returncode == 0 and not re.search(r"\b(inf|nan)\b", text.stdout, re.I), text.stdout


@_PROPERTY
@given(st.fixed_dictionaries({}, optional={k: _in_range(f) for k, f in _free("lecture").items()}),
       st.sampled_from(S.SPACE.accelerators))
def test_every_lecture_input_in_its_declared_range_computes_or_is_one_line(values, accel):
    # t_tool 15 s, t_model 90 s and a 2 GB budget among them (the issue's inputs: a division by zero before)
    args = ["lecture", "-a", accel]
    for k, v in values.items():
        args += [_flag(S.FREE[k]), v]
    r = _cli(*args, "--json")
    if r.returncode == 2:   # a budget that holds no session of that context: said in one line, naming it
        assert len(r.stderr.splitlines()) == 1 and "--kv-budget" in r.stderr and "Traceback" not in r.stderr, r.stderr
        return
    assert r.returncode == 0, (args, r.stderr)
    _strict_json(r.stdout)
    text = _cli(*args)
    assert text.returncode == 0 and not re.search(r"\b(inf|nan)\b", text.stdout, re.I), text.stdout


def test_the_lecture_inputs_the_issue_named_compute():
    # 15 s of tools and 90 s of model: duty cycle 90 / (90 + 15) = 86 %; the 2 GB budget holds no 2.147 GB session
    r = _cli("lecture", "--t-tool", "15", "--t-model", "90")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^Duty cycle +86 %$", r.stdout, re.M), r.stdout
    r = _cli("lecture", "--t-tool", "15", "--t-model", "90", "--kv-budget", "2")
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "--kv-budget: 2 GB holds no" in r.stderr


@_PROPERTY
@given(st.data())
def test_every_value_outside_a_declared_range_is_refused_in_one_line_naming_the_option(data):
    key = data.draw(st.sampled_from([k for k in S.FREE]))
    f = S.FREE[key]
    value = data.draw(_out_of_range(f))
    cmd = "reference" if f.chapter == "appendix" else "lecture"
    r = _cli(cmd, _flag(f) + "=" + value)
    assert r.returncode == 2, (key, value, r.stdout)
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert _flag(f) in r.stderr, r.stderr


@_PROPERTY
@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 6))
def test_fmt_formats_every_finite_float_or_refuses_it_in_words(x, precision):
    try:
        s = fmt(x, precision)
    except FormatPrecisionError as exc:   # only a value its precision would hide, and the message says so
        assert x != 0 and ("would print as" in str(exc)), str(exc)
        return
    shown = float(s.replace(",", ""))
    assert shown == 0 == x or abs(shown - x) <= 0.05 * abs(x), (x, precision, s)


def test_fmt_prints_huge_values_whole():
    # 1e28 and beyond (pint's and decimal's ranges): every digit, never InvalidOperation
    assert fmt_int(1e28) == "10,000,000,000,000,000,000,000,000,000"
    assert fmt(1e308, 0).replace(",", "") == "1" + "0" * 308   # read to 13 significant digits, as every value is


#: the tokens an engineer types, right or wrong, for the CLI's options
_TOKENS = ["list", "show", "reference", "lecture", "calibrate", "--json", "-a", "-m", "-p", "-n", "--node", "H100",
           "A100_80GB", "TPUv5e", "Llama3_8B", "Llama3_405B", "Mistral_7B", "fp8", "bf16", "int4", "fp99", "",
           "--bandwidth", "--peak", "--capacity", "--context", "--batch", "--kv-bytes", "--kv-precision", "--reserve",
           "--link-bandwidth", "--kv-budget", "--t-tool", "--t-model", "--kv-heads", "--prefill-rate", "--lang",
           "zh", "fr", "6", "0", "-1", "1e30", "1e308", "5e-324", "nan", "inf", "8192", "DGX_H100", "B200", "--bogus"]


@settings(max_examples=examples(150), deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(_TOKENS), min_size=0, max_size=7))
def test_any_command_line_computes_or_is_one_line_with_status_2(argv):
    r = _cli(*argv)   # an exception other than argparse's exit would fail the test here
    assert r.returncode in (0, 2), (argv, r.returncode, r.stderr)
    if r.returncode == 2:
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, (argv, r.stderr)
    elif "--json" in argv:
        _strict_json(r.stdout)
