"""Values that describe the reference, or quote a figure from elsewhere, never follow the reader's choice.

The rule (mlsysim/fmt.py, "Reference-only values"): such a value is computed from
``mlsysim.scenario.reference()`` and declared with ``reference_only(...)``; the variants engine never
swaps it. These tests execute the chapters' own cells, as the per-choice variants do (inside
``mlsysim.scenario.use(choice)`` with guards recorded), and check that

- the declared reference-only values are exactly the ones listed here (a new one, or a lost marker,
  is a deliberate change of this list);
- each keeps its text and its marker for every choice, while values computed from the active scenario
  do change (so the comparison is not vacuous);
- a Chinese twin (notes/glossary.toml [values]) of a reference-only value is reference-only too.

The expected lists are typed here from the chapters' prose, not read from the code under test.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from parity import ROOT

#: what the prose quotes that describes the reference or quotes another source's figure
REFERENCE_ONLY = {
    "appendix/inference-cost.qmd": {
        "ServingRef.params_class_b_str",    # "The chapters describe them only as a 70-billion-parameter model"
        "ServingRef.params_class_yi_str",   # ... "700 亿参数模型"
        "ServingRef.kv_chapter_conc_str",   # "From Context Tokens to KV State ... derives 48 there"
        "ServingRef.ref_pool_bits_str", "ServingRef.ref_weight_bits_str",   # "except at the reference node, ..."
    },
    "lectures/lecture19-agent-stalls.qmd": {
        "StandingSession.lec5_properties_words_str", "StandingSession.lec5_properties_str",   # Lecture 5's five
        "StandingSession.lec10_util_str", "StandingSession.lec10_fill_words_str",             # Lecture 10's figures
        "StandingSession.lec10_fill_zh_str", "StandingSession.conservative_util_str",        # Sep 2's 40 %
        "StallTaxonomy.fanout_words_str", "StallTaxonomy.fanout_str",                         # Lecture 21's eight
        "SandboxPool.t_boot_vm_ms_str", "SandboxPool.fc_rate_str", "SandboxPool.seed_fc_rate_str", "SandboxPool.sandlock_ms_str",                   # Firecracker's figures
        "SandboxPool.years_apart_words_str", "SandboxPool.years_apart_str",                   # seven years apart
        "SandboxPool.fc_release_year_str",
        "Overcommit.t_model_c_str",                                                           # Lecture 18's Config C
        "StallShorten.lec18_start_share_str",                                                 # Lecture 18's 56 %
        "StallShorten.paste_cut_pct_str", "StallShorten.paste_speedup_str",                   # PASTE's 43.5 %
        "Lec19Ex1.key_t_pre_str", "Lec19Ex1.key_t_star_str",                                  # the original key
        # the corrections note: the original notes' figures and the values computed at the reference
        "Lec19Corrections.seed_flops_str", "Lec19Corrections.flops_str", "Lec19Corrections.seed_short_str", "Lec19Corrections.seed_long_str", "Lec19Corrections.short_context_str", "Lec19Corrections.long_context_str", "Lec19Corrections.t_star_short_str", "Lec19Corrections.t_star_long_str", "Lec19Corrections.drift_str", "Lec19Corrections.seed_per_task_str", "Lec19Corrections.seed_per_session_str", "Lec19Corrections.seed_kv_str", "Lec19Corrections.per_task_str", "Lec19Corrections.per_session_str", "Lec19Corrections.seed_admitted_str", "Lec19Corrections.seed_link_load_str", "Lec19Corrections.link_str", "Lec19Corrections.a_pcie_str", "Lec19Corrections.admitted_str", "Lec19Corrections.seed_gain_str", "Lec19Corrections.seed_kept_str", "Lec19Corrections.seed_swapped_str", "Lec19Corrections.seed_round_trip_str", "Lec19Corrections.seed_pcie_str", "Lec19Corrections.n_keep_str", "Lec19Corrections.n_swap_str", "Lec19Corrections.n_discard_str", "Lec19Corrections.pcie_str", "Lec19Corrections.seed_boot_str", "Lec19Corrections.boot_str", "Lec19Corrections.seed_duty_str", "Lec19Corrections.duty_str", "Lec19Corrections.seed_x_res_str", "Lec19Corrections.x_res_str", "Lec19Corrections.seed_speedup_str", "Lec19Corrections.speedup_str", "Lec19Corrections.context_str", "Lec19Corrections.t_swap_ms_str", "Lec19Corrections.swap_window_str", "Lec19Corrections.ex1_t_star_str", "Lec19Corrections.rate_str", "Lec19Corrections.resident_str", "Lec19Corrections.t_task_c_str", "Lec19Corrections.t_model_str",
    },
}

CHOICES = [{"accelerator": "B200", "model": "Llama3_8B"}, {"accelerator": "MI300X", "model": "Mixtral_8x7B"},
           {"accelerator": "A100_80GB", "model": "Llama2_13B"}]


INCLUDE = re.compile(r"^\{\{<\s*include\s+(\S+)\s*>\}\}\s*$", re.M)
CHUNK = re.compile(r"^```\{python\}\n(.*?)^```", re.M | re.S)


def _expand(path: Path) -> str:
    return INCLUDE.sub(lambda m: _expand(path.parent / m.group(1)), path.read_text(encoding="utf-8"))


def _cells(path: Path) -> list[str]:
    """The chapter's Python chunks as a per-choice variant runs them: figure chunks (fig- labels) and
    ``#| variant: false`` / ``#| eval: false`` chunks left out (independent of the build's own parser)."""
    out = []
    for m in CHUNK.finditer(_expand(path)):
        src = m.group(1)
        opts = dict(re.findall(r"^#\|\s*([\w-]+):\s*(.*?)\s*$", src, re.M))
        if opts.get("label", "").startswith("fig-") or opts.get("variant") == "false" or opts.get("eval") == "false":
            continue
        out.append(src)
    return out


def _run(chapter: str, choice) -> dict:
    """Every ``Cls.x_str`` of ``chapter``'s cells, computed for ``choice`` (None: the reference), as the
    per-choice variants compute them: inside ``scenario.use(choice)``, guards recorded."""
    import contextlib
    import io
    import os

    import importlib

    import mlsysim.guards as G
    import mlsysim.scenario as S
    path = ROOT / chapter
    code = [compile(src, str(path), "exec") for src in _cells(path)]
    ns: dict = {"__name__": "__main__"}
    here = os.getcwd()
    os.chdir(path.parent)
    # where fmt has an explicit adaptive mode (a precision that would hide a value gains decimals), the
    # variants use it; otherwise recording guards switches it on
    fmt_module = importlib.import_module("mlsysim.fmt")   # (the package's ``fmt`` attribute is the function)
    adaptive = getattr(fmt_module, "adaptive", contextlib.nullcontext)
    try:
        with contextlib.redirect_stdout(io.StringIO()), S.use(choice), G.recording(), adaptive():
            for c in code:
                exec(c, ns)
    finally:
        os.chdir(here)
    return {f"{name}.{attr}": v for name, obj in ns.items()
            if isinstance(obj, type) and obj.__module__ == "__main__"
            for attr, v in vars(obj).items() if attr.endswith("_str") and isinstance(v, str)}


@pytest.fixture(scope="module")
def runs():
    out = {}
    for chapter in REFERENCE_ONLY:
        out[chapter] = {"reference": _run(chapter, None)}
        if chapter.startswith("appendix/"):
            for ch in CHOICES:
                out[chapter][f"{ch['accelerator']}/{ch['model']}"] = _run(chapter, ch)
    return out


def _marked(values: dict) -> set[str]:
    return {k for k, v in values.items() if getattr(v, "reference_only", False)}


@pytest.mark.parametrize("chapter", sorted(REFERENCE_ONLY))
def test_the_declared_reference_only_values_are_the_listed_ones(runs, chapter):
    assert _marked(runs[chapter]["reference"]) == REFERENCE_ONLY[chapter]


def test_reference_only_values_keep_text_and_marker_for_every_choice(runs):
    chapter = "appendix/inference-cost.qmd"
    ref = runs[chapter]["reference"]
    for name, values in runs[chapter].items():
        for attr in REFERENCE_ONLY[chapter]:
            assert values[attr] == ref[attr] and values[attr].reference_only, (name, attr, values[attr])
        if name != "reference":
            # not vacuous: what the active scenario computes does follow the choice
            assert values["ServingRef.params_words_str"] != ref["ServingRef.params_words_str"], name
            assert not values["ServingRef.params_words_str"].reference_only


def test_the_params_class_is_the_reference_s_wording(runs):
    ref = runs["appendix/inference-cost.qmd"]["reference"]
    assert (ref["ServingRef.params_class_b_str"], ref["ServingRef.params_class_yi_str"]) == ("70", "700")
    # the seed's figures the issue found the old cell deriving from the choice: 8B, 405B and Mixtral
    # all printed other classes ("10", "410", "50"); the reference-only value prints 70 for each
    for name, values in runs["appendix/inference-cost.qmd"].items():
        assert values["ServingRef.params_class_b_str"] == "70", name


def test_a_chinese_twin_of_a_reference_only_value_is_reference_only(runs):
    glossary = tomllib.loads((ROOT / "notes" / "glossary.toml").read_text(encoding="utf-8"))
    pairs = {en: e["zh"] for en, e in glossary.get("values", {}).items()}
    every = {}
    for chapter in runs:
        every.update(runs[chapter]["reference"])
    marked = {k for k, v in every.items() if getattr(v, "reference_only", False)}
    for en, zh in pairs.items():
        if en in every and zh in every:
            assert (en in marked) == (zh in marked), (en, zh)
