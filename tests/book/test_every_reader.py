"""Every sentence holds for every reader: each chapter that computes for the reader, run for every choice
of the declared choice space (accelerator × model × weight precision, both languages) and for property-based
draws of live mode's free inputs within their declared ranges, through the runtime the build's variants and
the browser's live mode share; its prose read back with that choice's values (tests/every_reader.py).

The whole space and 60 draws a chapter run in the ``book`` tier (a minute at most); the fast tier runs the
reference's neighbours and a dozen draws. A failure names the chapter, the choice, the file and line, and
the sentence a reader would have been told.
"""
from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import every_reader as E
from conftest import examples, mlsysim_main

ROOT = Path(__file__).resolve().parents[2]


# ───────────────────────────── words that must follow their numbers ─────────────────────────────

def _bits(res: dict, *attrs: str) -> set[str]:
    return {res["values"].get(a, "") for a in attrs}


def probe_bit_widths(ch, text, res, choice):
    """A typed width ("8-bit precision", "16-bit storage", "（16 位）") names one of the scenario's widths."""
    shown = {v for k, v in res["values"].items() if k.endswith(("_bits_str",))}
    pat = r"(\d+)-bit (?:precision|storage|weights)|\((\d+)-bit\)" if ch.lang == "en" else r"(\d+) 位(?:精度|存储|权重)"
    for m in re.finditer(pat, text):
        n = next(g for g in m.groups() if g)
        if shown and n not in shown:
            return f"names {n}-bit where the scenario's widths are {sorted(shown)}"
    return None


def probe_same_count(ch, text, res, choice):
    """"The same count" as another chapter's only when it is the same."""
    if ("the same count" in text or "数量相同" in text):
        conc = res["values"].get("ServingRef.conc_agent_str")
        quoted = res["values"].get("ServingRef.kv_chapter_conc_str") or "48"
        if conc is not None and conc != quoted:
            return f"says “the same count” for {conc} trajectories where the other chapter derives {quoted}"
    return None


def probe_halves(ch, text, res, choice):
    """Storing keys and values at 8 bits "halves" them only from 16 bits."""
    bits = res["values"].get("ServingRef.kv_bits_str")
    if bits is not None and ("halves every entry" in text or "每项数值减半" in text or "会缩小为原来的一半" in text) \
            and bits != "16":
        return f"says 8-bit storage halves {bits}-bit entries"
    return None


EN_FRACTIONS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
                "ninth": 9, "tenth": 10}
EN_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十")}


def share_of(words: str) -> float | None:
    """The share a fraction in words says, read back by hand: "four fifths" 0.8, "半" 0.5, "37 percent" 0.37."""
    w = words.strip().lower()
    if w in ("all", "全部"):
        return 1.0
    if w in ("none", "没有"):
        return 0.0
    if w in ("half", "一半"):
        return 0.5
    m = re.fullmatch(r"([\d.,]+)(?: percent|%)", w)
    if m:
        return float(m.group(1).replace(",", "")) / 100
    m = re.fullmatch(r"(\w+) (\w+?)s?", w)
    if m and m.group(1) in EN_COUNTS and m.group(2) in EN_FRACTIONS:
        return EN_COUNTS[m.group(1)] / EN_FRACTIONS[m.group(2)]
    m = re.fullmatch(r"(.)分之(.)", w)
    if m:
        return ZH_DIGITS[m.group(2)] / ZH_DIGITS[m.group(1)]
    return None


def probe_fractions(ch, text, res, choice):
    """A share in words ("a fifth", "四分之三") says the share the page's own percent says, within its rounding
    (the lecture's duty cycle: the generating share d and the idle share 1 − d)."""
    v = res["values"]
    pct = v.get("StandingSession.duty_pct_str")
    if pct is None:
        return None
    d = float(pct.replace(",", "")) / 100
    for attr, share in (("StandingSession.duty_words_str", d), ("StandingSession.duty_words_cap_str", d),
                        ("StandingSession.idle_words_str", 1 - d), ("StandingSession.idle_words_cap_str", 1 - d)):
        said = v.get(attr)
        if said and said in text:
            got = share_of(said)
            if got is None or abs(got - share) > 0.015:
                return f"words the share {share:.3f} ({pct} %) as “{said}”"
    return None


PROBES = [probe_bit_widths, probe_same_count, probe_halves, probe_fractions]


# ───────────────────────────── the choice space ─────────────────────────────

def _reference_runs():
    return {(ch.path, ch.lang): E.run(ch, {}) for ch in E.chapters()}


_REF: dict = {}


def reference_run(ch):
    if not _REF:
        _REF.update(_reference_runs())
    return _REF[(ch.path, ch.lang)]


def registry_problems(choices) -> list[str]:
    out = []
    for ch in E.chapters():
        if not ch.variants:
            continue
        ref = reference_run(ch)
        for c in choices:
            out += E.problems(ch, E.run(ch, c), ref, probes=PROBES, choice=c)
    return out


def test_the_choice_space_is_declared_and_complete():
    """Every registry accelerator and model is offered or said not to be, each at every declared precision."""
    import mlsysim.scenario as S
    from mlsysim.registry import Hardware, Models
    space = S.SPACE
    assert set(space.accelerators) == set(Hardware.Cloud.names())
    assert set(space.models) | set(space.not_offered) == set(Models.Language.names())
    assert not set(space.models) & set(space.not_offered)
    assert {"fp8", "bf16"} <= set(space.precisions), "8 and 16 bits at least"
    assert len(E.registry_choices()) == len(space.accelerators) * len(space.models) * len(space.precisions)
    for name, why in space.not_offered.items():    # each with a reason the page words
        assert why["why"] in ("sliding_window",) and why["label"]


def test_a_reference_neighbourhood_holds_for_every_reader():
    """The fast tier's sample: the reference, each accelerator and each model beside it, at both precisions."""
    import mlsysim.scenario as S
    ref = S.REFERENCE
    sample = [c for c in E.registry_choices()
              if (c["accelerator"] == ref["accelerator"]) + (c["model"] == ref["model"]) >= 1][:40]
    problems = registry_problems(sample)
    assert not problems, "\n".join(problems[:30])


def test_every_registry_choice_holds_for_every_reader():
    problems = registry_problems(E.registry_choices())
    assert not problems, f"{len(problems)} problems, first:\n" + "\n".join(problems[:40])


# ───────────────────────────── live inputs ─────────────────────────────

def _free_strategy(f):
    import math
    if f.allowed:
        return st.sampled_from(list(f.allowed))
    lo, hi = f.low, f.high
    if f.kind in ("tokens", "count") or f.key == "capacity":
        lo_i, hi_i = max(1, math.ceil(lo)), int(hi)
        return st.one_of(st.integers(lo_i, min(hi_i, 4 * lo_i + 64)),
                         st.floats(math.log10(lo_i), math.log10(hi_i)).map(lambda e: max(lo_i, min(hi_i, int(10 ** e)))))
    return st.floats(math.log10(lo), math.log10(hi)).map(lambda e: float(f"{10 ** e:.4g}")).filter(
        lambda x: lo <= x <= hi)


def live_choice(kind: str):
    """A live page's inputs: a registry choice and any subset of its chapter's free inputs, in range."""
    import mlsysim.scenario as S
    free = {k: f for k, f in S.FREE.items() if f.chapter == kind}
    registry = st.fixed_dictionaries({"accelerator": st.sampled_from(S.SPACE.accelerators),
                                      "model": st.sampled_from(S.SPACE.models),
                                      "precision": st.sampled_from(S.SPACE.precisions)})
    if kind == "lecture":   # the lecture reads the accelerator only
        registry = st.fixed_dictionaries({"accelerator": st.sampled_from(S.SPACE.accelerators)})
    inputs = st.fixed_dictionaries({}, optional={k: _free_strategy(f) for k, f in free.items()})
    return st.tuples(registry, inputs).map(lambda t: {**t[0], **{k: str(v) for k, v in t[1].items()}})


def live_problems(ch, choice) -> list[str]:
    res = E.run(ch, choice, figures=True)
    out = E.problems(ch, res, reference_run(ch), live=True, probes=PROBES, choice=choice)
    out += [f"{ch.path} [{ch.lang}] {choice}: figure pin {p['file']}:{p['line']} fails: {p['message']}"
            for p in res.get("figure_pins", [])]
    if "error" in res and not any(p.search(res["error"]) for p in E.SAYABLE_ERRORS):
        out.append(f"{ch.path} [{ch.lang}] {choice}: live mode shows an internal error: {res['error']}")
    return out


def _live_test(kind: str, n: int):
    @settings(max_examples=examples(n), deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(live_choice(kind))
    def run(choice):
        problems = [p for ch in E.chapters() if ch.kind == kind for p in live_problems(ch, choice)]
        assert not problems, "\n".join(problems[:20])
    return run


test_live_inputs_of_the_appendix_sample = _live_test("appendix", 8)
test_live_inputs_of_the_lecture_sample = _live_test("lecture", 8)
test_live_inputs_of_the_appendix = _live_test("appendix", 150)
test_live_inputs_of_the_lecture = _live_test("lecture", 150)


# ───────────────────────────── the CLI prints the page's digits ─────────────────────────────

#: the CLI's rows (python -m mlsysim reference) and the page values (ServingRef) they print
CLI_ROWS = {"Ridge point": ["ServingRef.ridge_str"], "Decode floor per output token": ["ServingRef.t_dec_val_str"],
            "Prefill time per prompt token": ["ServingRef.t_pre_val_str"],
            "Decode/prefill ratio": ["ServingRef.ratio_str"],
            "Attention crossover length": ["ServingRef.s_cross_str"],
            "Memory bandwidth / peak rate": ["ServingRef.bw_str", "ServingRef.peak_str"],
            "Attention-state pool per node": ["ServingRef.pool_str"],
            "Resident trajectories per node": ["ServingRef.conc_agent_str"]}


def cli_rows(choice: dict) -> dict[str, str]:
    args = ["reference"]
    for k, v in choice.items():
        flag = {"accelerator": "-a", "model": "-m", "precision": "-p"}.get(k, "--" + k.replace("_", "-"))
        args += [flag, str(v)]
    r = mlsysim_main(*args)
    assert r.returncode == 0, (choice, r.stderr)
    return dict(re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in r.stdout.splitlines() if "  " in line.strip())


def cli_disagreements(choice: dict) -> list[str]:
    ch = next(c for c in E.chapters() if c.variants and c.lang == "en")
    res = E.run(ch, choice)
    if "error" in res:
        return []
    rows, out = cli_rows(choice), []
    for label, attrs in CLI_ROWS.items():
        line = next((v for k, v in rows.items() if k.startswith(label)), None)
        for a in attrs:
            page = res["values"][a]
            if line is None or not re.search(rf"(?<![\d,.]){re.escape(page)}(?![\d,])", line):
                out.append(f"{choice}: the page says {a} = {page!r}, the CLI's {label!r} says {line!r}")
    return out


def test_the_cli_prints_the_page_digits_near_the_reference():
    problems = [p for c in E.registry_choices()[:12] for p in cli_disagreements(c)]
    problems += cli_disagreements({"bandwidth": "6", "peak": "990"})   # 82.5, rounded one way in both
    assert not problems, "\n".join(problems)


def test_the_cli_prints_the_page_digits_for_every_choice():
    problems = [p for c in E.registry_choices() for p in cli_disagreements(c)]
    assert not problems, "\n".join(problems[:30])


@settings(max_examples=examples(40), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(live_choice("appendix"))
def test_the_cli_prints_the_page_digits_for_live_inputs(choice):
    problems = cli_disagreements(choice)
    assert not problems, "\n".join(problems)
