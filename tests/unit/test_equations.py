"""Every physics function declares its equation (mlsysim.physics.equations), and what shows an equation
reads the declaration: the hover explanations (bookbuild.book.provenance) and ``python -m mlsysim
calibrate``. Expected formulas and labels are the book's own (the appendix and Lecture 19 sources),
typed here or read from the .qmd files, never from the records under test."""
from __future__ import annotations

import dataclasses
import inspect
import pickle
import re
from pathlib import Path

import pytest

import mlsysim
import mlsysim.physics as physics
from bookbuild.book import typography as T
from bookbuild.book.provenance import _function_info
from bookbuild.book.translation import load_glossary
from conftest import mlsysim_main
from mlsysim.physics.equations import Equation, equation

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["appendix/inference-cost.qmd", "lectures/lecture19-agent-stalls.qmd"]
CJK = re.compile(r"[\u4e00-\u9fff]")
RELATION = re.compile(r"[=≥≤≈<>]")
#: a product or quotient of symbols: "N · b", "2 n K / T_task", "|Q| · |V| / 8", "⌊B_kv / k⌋"
PRODUCT = re.compile(r"[·/]|^\S+ \S+")
#: the one public function that decides rather than computes (it returns "keep", "swap" or "discard")
NOT_EQUATIONS = {"stall_fate"}


def _public_physics():
    """Every public physics function ``from mlsysim import *`` gives a cell."""
    return {n: getattr(mlsysim, n) for n in mlsysim.__all__
            if inspect.isfunction(getattr(mlsysim, n)) and getattr(mlsysim, n).__module__.startswith("mlsysim.physics")}


def _book_labels() -> set[str]:
    return {m for rel in SOURCES for m in re.findall(r"\{#(eq-[A-Za-z0-9_-]+)\}", (ROOT / rel).read_text(encoding="utf-8"))}


def test_every_public_physics_function_declares_its_equation():
    fns = _public_physics()
    # the modules' own listing and mlsysim's agree, and it is not a handful
    assert set(fns) == set(physics.__all__) and len(fns) > 60
    missing = [n for n, f in fns.items() if not isinstance(getattr(f, "equation", None), Equation)]
    assert not missing, missing
    none = {n for n, f in fns.items() if f.equation.formula is None}
    assert none == NOT_EQUATIONS


@pytest.mark.parametrize("name", sorted(_public_physics()))
def test_a_record_is_a_formula_with_both_names_and_a_real_label(name):
    eq = getattr(mlsysim, name).equation
    if eq.formula is not None:
        assert RELATION.search(eq.formula) or PRODUCT.search(eq.formula), eq.formula
        assert "``" not in eq.formula and not eq.formula.endswith(".")
    assert eq.name_en.strip() and not CJK.search(eq.name_en)
    assert CJK.search(eq.name_zh), eq.name_zh
    if eq.ref is not None:
        assert eq.ref in _book_labels(), eq.ref
    assert eq.unit is None or eq.unit in {"s", "B", "B/s", "B·s", "1/s", "flop", "flop/s", "flop/byte", "count"}


def test_chinese_names_use_the_glossary_terms():
    names = [T.Text(f.__module__, 1, f.equation.name_zh) for f in _public_physics().values()]
    errors = [e.format() for e in T.check(names, T.load(ROOT), load_glossary(ROOT))]
    assert not errors, errors
    zh = {n: f.equation.name_zh for n, f in _public_physics().items()}
    # the glossary's forms (notes/glossary.toml), where the quantity is one of its terms
    assert zh["ridge_point"] == "屋脊点" and zh["duty_cycle"] == "占空比"
    assert "预填充" in zh["prefill_time_per_token"] and "解码" in zh["decode_time_per_token"]
    assert "KV 缓存" in zh["kv_bytes_per_token"] and "词元" in zh["kv_bytes_per_token"]
    assert "下限" in zh["tp_decode_floor"] and "严格下界" in zh["strict_decode_floor"]
    assert zh["compute_bound_batch"] == "受计算限制的批大小"
    assert "盈亏平衡点" in zh["keep_swap_break_even"] and "超额分配" in zh["overcommit_throughput"]


def test_the_book_s_equations_are_the_declared_ones():
    """The formulas of the appendix's and the lecture's labelled equations, as the book writes them."""
    book = {  # function: (label in the .qmd, what its formula must say, from the LaTeX beside the label)
        "decode_time_per_token": ("eq-appdx-shuttle-floor", "t_decode ≥ N b / β"),
        "prefill_time_per_token": ("eq-appdx-prefill-time", "t_prefill ≈ 2N / π"),
        "prefill_time": ("eq-appdx-prefill-long", "(2NS + 2LdS²) / π"),
        "batched_step_time": ("eq-appdx-batched-step", "max(N b / β, 2 N B / π)"),
        "kv_pool": ("eq-appdx-mdynamic", "M_dynamic = M_HBM − N b − M_runtime"),
        "littles_law": ("eq-appdx-littles-law", "L = λ · W"),
        "tp_decode_floor": ("eq-appdx-tp-decode-floor", "(N b + m S̄) / (n β)"),
        "duty_cycle": ("eq-lec19-duty-cycle", "d = T_model / (T_model + T_tool)"),
        "keep_swap_break_even": ("eq-lec19-keep-swap", "T_swap = 2K / β_PCIe"),
        "keep_discard_break_even": ("eq-lec19-tstar-symbolic", "T* = t_prefill · B_kv / k"),
    }
    labels = _book_labels()
    for name, (label, says) in book.items():
        eq = getattr(mlsysim, name).equation
        assert label in labels and eq.ref == label, (name, eq.ref)
        assert says in eq.formula, (name, eq.formula)
    # the lecture has no equation for the sessions per card or the three prices: no label is claimed
    assert mlsysim.sessions_per_card.equation.ref is None and mlsysim.keep_price.equation.ref is None


def test_the_decorator_returns_the_function_itself_with_a_frozen_record():
    def f(x, *, y=2):
        """doc"""
        return x * y
    g = equation("z = x y", name_en="z", name_zh="乘积", unit="B")(f)
    assert g is f and g(3) == 6 and str(inspect.signature(g)) == "(x, *, y=2)" and g.__doc__ == "doc"
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.equation.formula = "z = 0"
    with pytest.raises(ValueError):
        equation("x", name_en="x", name_zh="")
    with pytest.raises(ValueError):
        equation("x", name_en="x", name_zh="某", ref="sec-x")
    fn = mlsysim.decode_time_per_token
    assert pickle.loads(pickle.dumps(fn)) is fn
    assert list(inspect.signature(fn).parameters) == ["params", "bytes_per_param", "bandwidth"]


def test_provenance_reads_the_declaration_not_the_docstring():
    info = _function_info(mlsysim.decode_time_per_token)
    assert info == {"name": "decode_time_per_token", "equation": "t_decode ≥ N b / β",
                    "title_en": "decode floor per token", "title_zh": "每词元解码时间下限", "unit": "s",
                    "ref": "eq-appdx-shuttle-floor", "doc": ""}
    # a docstring that reads like an equation is not one: only the record counts
    def looks_like_one(x):
        """y = x² (eq-appdx-prefill-time)."""
    looks_like_one.__module__ = "mlsysim.physics.fake"
    got = _function_info(looks_like_one)
    assert got["equation"] == "" and got["ref"] == "" and got["doc"] == "y = x² (eq-appdx-prefill-time)."
    # the sentence that used to pass for an equation (kv_bytes_per_token's first line) no longer does
    info = _function_info(mlsysim.kv_bytes_per_token)
    assert info["equation"] == "m_token = 2 · L · H_kv · d_head · b_kv" and info["ref"] == "eq-appdx-kv-cache-token-size"
    # the label is the ref, not prose; the rest of the first line is the doc
    info = _function_info(mlsysim.sandbox_concurrency)
    assert info["ref"] == "eq-lec19-sandbox" and info["doc"].startswith("L = λ · t (Little's law): sandboxes running")
    assert _function_info(mlsysim.duty_cycle)["doc"] == "d = T_model / (T_model + T_tool): the share of a session that generates."


def test_calibrate_prints_each_floor_s_declared_equation():
    r = mlsysim_main("calibrate", "-a", "H100")
    assert r.returncode == 0, r.stderr
    legend = r.stdout.split("\n\n", 1)[1]
    # eq-appdx-tp-decode-floor and eq-appdx-prefill-long at n π, as the appendix writes them
    assert "ITL floor: t_decode ≥ max((N b + m S̄) / (n β)" in legend and "(tp_decode_floor)" in legend
    assert "TTFT floor: T_prefill ≥ max((2N S_in + 2 L d S_in²) / (n π)" in legend
    assert "throughput ceiling: X ≤ B S_out / T(B)" in legend
    r = mlsysim_main("calibrate", "-a", "H100", "--lang", "zh")
    assert "词元间延迟下限：t_decode ≥ max(" in r.stdout and "输出吞吐量上限：X ≤ B S_out / T(B)" in r.stdout
