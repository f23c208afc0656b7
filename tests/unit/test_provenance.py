"""Every computed number explains itself: bookbuild.book.provenance on the appendix's real cells.

The cells are executed here in a fresh namespace (fences and ``#|`` lines blanked, so line numbers
stay the file's). Expected values are the published figures, typed here with where they come from,
or derived by hand in the test; none is read from the code under test.
"""
import ast
import json
import os
import re
import textwrap
from pathlib import Path

import pytest

from bookbuild.book.provenance import (MAX_INPUTS, MAX_STEPS, NAMES_BESIDE, _names_table, explain_cell, explain_class,
                                  guard_targets, pack, unpack)

ROOT = Path(__file__).resolve().parents[2]
CELLS = ["serving-ref", "trajectory-queue", "decode-loop", "calibration"]

# Published figures (typed from the sources the registry cites, not from the registry):
H100_BANDWIDTH_TBS = 3.35            # NVIDIA H100 SXM5 datasheet: "GPU memory bandwidth 3.35TB/s"
H100_FP8_SPARSE_TFLOPS = 3958        # same datasheet: "FP8 Tensor Core 3,958 teraFLOPS" (with sparsity)
H100_FP8_DENSE_TFLOPS = H100_FP8_SPARSE_TFLOPS / 2   # "specifications are one-half lower without sparsity"
LLAMA31_70B_PARAMS = 70.6e9          # Hugging Face model page of meta-llama/Llama-3.1-70B: "70.6B params"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _cell_code(name: str) -> tuple[str, str]:
    path = ROOT / "appendix" / "_cells" / f"{name}.qmd"
    lines = path.read_text(encoding="utf-8").splitlines()
    code = "\n".join("" if ln.startswith("```") or ln.startswith("#|") else ln for ln in lines)
    return f"appendix/_cells/{name}.qmd", code


def _class_block(code: str, name: str) -> tuple[str, int]:
    """The ``class name:`` block as written, and the line it starts on."""
    for node in ast.parse(code).body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            lines = code.splitlines()[node.lineno - 1: node.end_lineno]
            return "\n".join(lines), node.lineno
    raise AssertionError(f"no class {name}")


def _line_of(code: str, text: str) -> int:
    hits = [i for i, ln in enumerate(code.splitlines(), 1) if text in ln]
    assert len(hits) == 1, (text, hits)
    return hits[0]


@pytest.fixture(scope="module")
def appendix(tmp_path_factory):
    """The four cells executed in one fresh namespace, in the chapter's order."""
    ns: dict = {"__name__": "appendix"}
    codes = {}
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cells"))  # the calibration cell writes figures/ next to the chapter
    try:
        for name in CELLS:
            file, code = _cell_code(name)
            exec(compile(code, str(ROOT / file), "exec"), ns)
            codes[name] = (file, code)
    finally:
        os.chdir(cwd)
    return ns, codes


@pytest.fixture(scope="module")
def serving(appendix):
    ns, codes = appendix
    file, code = codes["serving-ref"]
    src, first = _class_block(code, "ServingRef")
    return {"cls": ns["ServingRef"], "src": src, "first": first, "file": file, "code": code,
            "ex": explain_class(ns["ServingRef"], src, first_line=first, file=file, namespace=ns)}


@pytest.fixture(scope="module")
def everything(appendix):
    ns, codes = appendix
    values, guards = {}, []
    for name in CELLS:
        file, code = codes[name]
        res = explain_cell(code, ns, file=file)
        values.update(res["values"])
        guards += res["guards"]
    return values, guards


def _inputs(e: dict) -> dict:
    return {i["name"]: i for i in e["inputs"]}


def _number(s: str) -> float:
    """A number as the explanations print it: "21,100", "0.0211", or "7.06 × 10¹⁰"."""
    mant, _, exp = s.replace(",", "").partition(" × 10")
    return float(mant) * 10 ** int(exp.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))) if exp else float(mant)


# ───────────────────────── the ratio: functions, registry values and their sources

def test_ratio_names_both_floor_functions_and_its_chain(serving):
    e = serving["ex"]["ratio_str"]
    assert e["attr"] == "ServingRef.ratio_str"
    assert e["value"] == str(serving["cls"].ratio_str)
    assert e["expr"] == "fmt_int(ratio)"
    steps = {s["name"]: s for s in e["steps"]}
    assert steps["ratio"]["expr"] == "t_dec / t_pre"
    assert steps["t_dec"]["function"]["name"] == "decode_time_per_token"
    assert steps["t_pre"]["function"]["name"] == "prefill_time_per_token"
    # the book's equations: t_decode = N b / beta (shuttle floor), t_prefill = 2N / pi
    assert "N b / β" in steps["t_dec"]["function"]["equation"]
    assert steps["t_dec"]["function"].get("ref") == "eq-appdx-shuttle-floor"
    assert "2N / π" in steps["t_pre"]["function"]["equation"]
    # hand derivation: N b / beta with N = 70.6e9, b = 1 byte, beta = 3.35e12 byte/s
    t_dec = LLAMA31_70B_PARAMS * 1 / (H100_BANDWIDTH_TBS * 1e12)
    assert steps["t_dec"]["unit"] == "s"
    assert _number(steps["t_dec"]["value"]) == pytest.approx(t_dec, rel=1e-3)
    # ratio = (pi b / 2 beta) = 1978.9e12 / (2 * 3.35e12) ~ 295
    ratio = H100_FP8_DENSE_TFLOPS * 1e12 * 1 / (2 * H100_BANDWIDTH_TBS * 1e12)
    assert _number(steps["ratio"]["value"]) == pytest.approx(ratio, rel=1e-3)
    assert e["value"] == f"{round(ratio):,}"


def test_ratio_inputs_carry_the_h100_and_llama_sources(serving):
    inputs = _inputs(serving["ex"]["ratio_str"])
    bw = inputs["accel.memory.bandwidth"]
    assert _number(bw["value"]) == pytest.approx(H100_BANDWIDTH_TBS) and bw["unit"] == "TB/s"
    assert "H100" in bw["source"]["title"] and bw["source"]["publisher"] == "NVIDIA"
    assert bw["source"]["url"].startswith("https://")
    peak = inputs["accel.compute.fp8"]
    assert _number(peak["value"]) == pytest.approx(H100_FP8_DENSE_TFLOPS, abs=0.5)
    assert peak["unit"].lower() == "tflop/s"
    assert "H100" in peak["source"]["title"]
    params = inputs["model.parameters"]
    assert _number(params["value"]) == pytest.approx(LLAMA31_70B_PARAMS, rel=0.01)
    assert "Llama-3.1-70B" in params["source"]["title"] and params["source"]["publisher"] == "Meta"
    assert "config" in params["source"]["title"]


def test_output_line_is_where_the_str_is_assigned(serving):
    e = serving["ex"]["ratio_str"]
    assert e["file"] == "appendix/_cells/serving-ref.qmd"
    assert e["line"] == _line_of(serving["code"], "ratio_str = fmt_int(ratio)")
    lines = (ROOT / e["file"]).read_text(encoding="utf-8").splitlines()
    assert lines[e["line"] - 1].strip().startswith("ratio_str =")


def test_scenario_input_is_labelled_as_a_context_length(serving):
    e = serving["ex"]["s_agent_tokens_str"]
    s = _inputs(e)["s_agent"]
    assert s["value"] == "32,768"  # 2**15, the seed's long agent context
    assert "context length" in s["scenario"]
    assert "source" not in s
    assert "context length" in e["name"]["en"] and CJK.search(e["name"]["zh"])


def test_node_memory_comes_from_the_h100_datasheet_through_the_node(serving):
    e = serving["ex"]["pool_str"]
    cap = _inputs(e)["node.accelerator.memory.capacity"]
    assert cap["unit"] == "GiB" and _number(cap["value"]) == 80  # 5 HBM3 stacks x 16 GiB
    assert "H100" in cap["source"]["title"]
    n = _inputs(e)["node.accelerators_per_node"]
    assert n["value"] == "8" and "DGX H100" in n["source"]["title"]
    assert "activations" in _inputs(e)["runtime_reserve"]["scenario"]


# ───────────────────────── guards

def test_guards_map_to_the_values_they_protect(serving):
    g = {t["line"]: t for t in guard_targets(serving["cls"], serving["src"], first_line=serving["first"],
                                             file=serving["file"])}
    code = serving["code"]
    ratio = g[_line_of(code, "check(ratio > 100")]
    assert "ServingRef.ratio_str" in ratio["protects"]
    assert ratio["file"] == "appendix/_cells/serving-ref.qmd"
    # an author's pin protects nothing a reader sees: it is no guard target
    assert _line_of(code, "pin_seed(conc_agent == kv_chapter_conc") not in g
    util = g[_line_of(code, "check(util_decode < 0.01")]
    assert "ServingRef.util_decode_str" in util["protects"] and "ServingRef.ratio_str" not in util["protects"]
    # a guard on the crossover and the agent context protects those values, not the layer count
    window = g[_line_of(code, "check(s_cross > s_agent")]
    assert {"ServingRef.s_agent_tokens_str", "ServingRef.s_cross_str"} <= set(window["protects"])
    assert "ServingRef.n_layers_str" not in window["protects"]
    assert len(g) == code.count("    check(")


def test_guards_are_found_from_the_source_alone_when_the_class_was_never_created(serving, appendix):
    """Recomputed for other hardware, a failing guard leaves no class: the source still maps it."""
    ns, _ = appendix
    broken = serving["src"].replace("check(util_decode < 0.01", "check(util_decode < 0.0001")
    with pytest.raises(Exception, match="one percent of the ridge"):
        exec(compile(broken, "<broken>", "exec"), dict(ns))
    g = guard_targets(None, broken, first_line=serving["first"], file=serving["file"])
    line = _line_of(serving["code"], "check(util_decode < 0.01")
    assert [t["protects"] for t in g if t["line"] == line] == [["ServingRef.util_decode_str"]]


def test_guards_protect_transitively_and_fall_back_to_the_names_read():
    src = textwrap.dedent("""\
        class T:
            x = 3  # scenario: an input
            y = x * 2
            z = y + 1
            q = 5
            check(x > 0, "x positive")
            check(q > 1, "q above one")
            check(w > 0, "nothing computes w")
            y_str = str(y)
            z_str = str(z)
            q_str = str(q)
            other_str = "7"
        """)
    ns = {"check": lambda c, m: None, "w": 1}
    exec(src, ns)
    g = guard_targets(ns["T"], src, first_line=10, file="f.qmd")
    assert [t["line"] for t in g] == [15, 16, 17]
    assert g[0]["protects"] == ["T.y_str", "T.z_str"]   # through y = x * 2 and z = y + 1
    assert g[1]["protects"] == ["T.q_str"]
    assert g[2]["protects"] == []


# ───────────────────────── every value of the appendix

def test_every_str_of_the_appendix_is_explained_with_both_names(appendix, everything):
    ns, codes = appendix
    values, _ = everything
    expected = set()
    for name in CELLS:
        for node in ast.parse(codes[name][1]).body:
            if isinstance(node, ast.ClassDef):
                expected |= {f"{node.name}.{k}" for k in vars(ns[node.name]) if k.endswith("_str")}
    assert len(expected) >= 60
    assert set(values) == expected
    for key, e in values.items():
        json.loads(json.dumps(e, ensure_ascii=False))
        cls, attr = key.split(".")
        assert e["value"] == str(getattr(ns[cls], attr)), key
        assert e["name"]["en"].strip() and e["name"]["en"] != attr[:-4].replace("_", " "), key
        assert CJK.search(e["name"]["zh"]), (key, e["name"]["zh"])
        assert e["expr"] and e["line"] > 0 and e["file"].startswith("appendix/_cells/"), key
        assert len(e["steps"]) <= MAX_STEPS and len(e["inputs"]) <= MAX_INPUTS, key
        assert e["steps"] or e["inputs"], f"{key} explains nothing"


def _lecture_str_attrs(folder: Path = ROOT / "lectures" / "_cells") -> set[str]:
    """``Cls.attr_str`` of every class the cells of ``folder`` (the lecture's) define, read from their source."""
    out = set()
    for path in sorted(folder.glob("*.qmd")):
        code = "\n".join("" if ln.startswith(("```", "#|", ":::")) else ln
                         for ln in path.read_text(encoding="utf-8").splitlines())
        for node in ast.parse(code).body:
            if isinstance(node, ast.ClassDef):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id.endswith("_str"):
                        out.add(f"{node.name}.{sub.id}")
    return out


@pytest.mark.parametrize("folder", ["appendix/_cells", "lectures/_cells"])
def test_each_names_table_covers_only_what_its_folder_s_cells_define(folder):
    """The names beside the cells (``<folder>/names.toml``) name the values those cells define, no other."""
    table = _names_table(str(ROOT / folder / NAMES_BESIDE))
    assert table and all(e.get("en") and e.get("zh") for e in table.values())
    defined = {v[:-4] for v in _lecture_str_attrs(ROOT / folder)}
    stale = [k for k in table if k not in defined]
    assert not stale, f"names for attributes no cell of {folder} defines: {stale}"


def test_other_class_is_followed_one_level_with_the_namespace(appendix, everything):
    values, _ = everything
    e = values["TrajectoryQueue.nodes_resident_str"]
    steps = {s["name"]: s for s in e["steps"]}
    assert steps["ServingRef.pool_gb"]["function"]["name"] == "kv_pool"
    cap = [i for i in e["inputs"] if i["name"].endswith("memory.capacity")]
    assert cap and "H100" in cap[0]["source"]["title"]
    # without the chapter's globals, the reference is an input with its value
    ns, codes = appendix
    src, first = _class_block(codes["trajectory-queue"][1], "TrajectoryQueue")
    bare = explain_class(ns["TrajectoryQueue"], src, first_line=first)["nodes_resident_str"]
    ref = _inputs(bare)["ServingRef.pool_gb"]
    assert _number(ref["value"]) == pytest.approx(ns["ServingRef"].pool_gb, rel=1e-3)


def test_calibration_follows_the_reference_accelerator(everything):
    values, _ = everything
    e = values["Calibration.n_entries_str"]
    assert _inputs(e)["accel.name"]["value"] == "H100"
    assert e["steps"][0]["function"]["name"] == "summary"


def test_page_budget(everything):
    """The page carries every explanation: keep each compact (measured: see the report)."""
    values, _ = everything
    sizes = {k: len(json.dumps(e, ensure_ascii=False).encode()) for k, e in values.items()}
    total = len(json.dumps(values, ensure_ascii=False).encode())
    packed = len(json.dumps(pack(values), ensure_ascii=False, separators=(",", ":")).encode())
    assert max(sizes.values()) < 6000, max(sizes.items(), key=lambda kv: kv[1])
    # 160 kB: the appendix's explanations plus the clauses that name what it computed for (source_str,
    # model_str, ...; 124 kB when they were added) and those that word its values for every reader (for_node_str,
    # kv8_sentence_str, design_words_str, ...: 146 kB)
    assert total < 160_000 and packed < total * 0.6
    print(f"appendix: {len(values)} explanations, {total:,} bytes of JSON, {packed:,} packed")


def test_pack_keeps_every_fact(everything):
    values, _ = everything
    p = pack(values)
    e = p["values"]["ServingRef.ratio_str"]
    bw = [p["items"][i] for i in e["inputs"] if p["items"][i]["name"] == "accel.memory.bandwidth"][0]
    assert "H100" in p["sources"][bw["source"]]["title"]
    t_dec = [p["items"][i] for i in e["steps"] if p["items"][i]["name"] == "t_dec"][0]
    assert p["functions"][t_dec["function"]]["name"] == "decode_time_per_token"

    def lean(d):
        return {k: (lean(v) if isinstance(v, dict) else v) for k, v in d.items() if v != ""}

    back = unpack(json.loads(json.dumps(p)))
    assert back.keys() == values.keys()
    for k, e in values.items():
        assert [lean(s) for s in e["steps"]] == [lean(s) for s in back[k]["steps"]], k
        assert [lean(i) for i in e["inputs"]] == [lean(i) for i in back[k]["inputs"]], k
        assert {a: v for a, v in e.items() if a not in ("steps", "inputs")} == \
            {a: v for a, v in back[k].items() if a not in ("steps", "inputs")}
    sourced = [i for i in values["ServingRef.ratio_str"]["inputs"] if "source" in i]
    assert sourced and all(isinstance(i["source"], dict) for i in sourced)  # pack copies


# ───────────────────────── unusual classes never raise

UNUSUAL = '''\
class Odd:
    base = 4  # scenario: a base
    def helper(n):
        return [i * i for i in range(n)]
    squares = helper(base)
    total = sum(squares)
    a, b = 1, 2
    c, *rest = (3, 4, 5)
    pick = a if total > 10 else b
    lam = (lambda k: k + 1)(base)
    nested = {k: v for k, v in zip("xy", (a, b))}
    total += 1
    try:
        maybe = 1 / 0
    except ZeroDivisionError:
        maybe = 0
    check(total > 1, f"total {total}")
    check_all(a, b)
    total_str = str(total)
    pick_str = str(pick)
    rest_str = str(rest)
    lam_str = str(lam)
    nested_str = str(nested)
    maybe_str = str(maybe)
    missing_str = "from setattr"
'''


def test_unusual_class_does_not_raise():
    ns = {"check": lambda c, m: None, "check_all": lambda *a: None}
    exec(UNUSUAL, ns)
    cls = ns["Odd"]
    out = explain_class(cls, UNUSUAL, first_line=5, file="x.qmd", namespace=ns)
    assert set(out) == {"total_str", "pick_str", "rest_str", "lam_str", "nested_str", "maybe_str", "missing_str"}
    json.dumps(out)
    assert out["total_str"]["value"] == "15"  # 0 + 1 + 4 + 9, plus one
    assert out["total_str"]["line"] == 5 + _line_of(UNUSUAL, "total_str =") - 1
    assert "base" in _inputs(out["total_str"]) and _inputs(out["total_str"])["base"]["scenario"] == "a base"
    assert out["pick_str"]["steps"][0]["expr"] == "a if total > 10 else b"
    assert [t["line"] for t in guard_targets(cls, UNUSUAL, first_line=5)] == [
        5 + _line_of(UNUSUAL, "check(total") - 1, 5 + _line_of(UNUSUAL, "check_all") - 1]
    for e in out.values():
        assert set(e) >= {"attr", "value", "expr", "steps", "inputs"}


@pytest.mark.parametrize("source", ["", "not python (", "x = 1", "class Other:\n    y_str = '1'\n",
                                    "class Odd:\n    t_str = undefined_thing.attr(1)[2]\n"])
def test_bad_sources_explain_less_but_never_raise(source):
    cls = type("Odd", (), {"t_str": "1"})
    out = explain_class(cls, source)
    assert out["t_str"]["value"] == "1" and out["t_str"]["steps"] == []
    assert isinstance(guard_targets(cls, source), list)
    assert explain_cell(source, {})["values"] == {}


def test_a_class_alias_and_a_scenario_call_are_followed():
    src = textwrap.dedent("""\
        class A:
            x = 2  # scenario: an input of A
            x_str = str(x)

        class B:
            a = A  # the other class, by another name
            q = float(7)  # scenario: typed through a call
            y = a.x * 3 + q
            y_str = str(y)
        """)
    ns = {}
    exec(src, ns)
    res = explain_cell(src, ns, file="c.qmd")
    e = res["values"]["B.y_str"]
    assert e["value"] == "13.0"  # 2 * 3 + 7
    ins = _inputs(e)
    assert ins["A.x"]["scenario"] == "an input of A" and ins["A.x"]["value"] == "2"
    assert ins["q"]["scenario"] == "typed through a call"
    assert [s["name"] for s in e["steps"]] == ["y"]


def test_a_choice_reads_the_values_without_the_guards():
    """``guards=False`` (what each reader's choice asks for) gives the same values and no guard records;
    a class whose guard failed (absent from the namespace) yields a guard record only when guards are asked."""
    src = textwrap.dedent("""\
        class A:
            x = 2
            check(x > 1, "x above one")
            x_str = str(x)

        class Gone:
            y = 0
            check(y > 1, "y above one")
            y_str = str(y)
        """)
    ns = {"check": lambda *a: None}
    exec(src.split("class Gone")[0], ns)
    whole = explain_cell(src, ns, file="c.qmd")
    lean = explain_cell(src, ns, file="c.qmd", guards=False)
    assert lean["values"] == whole["values"] and list(lean["values"]) == ["A.x_str"]
    assert lean["guards"] == []
    assert [(g["line"], g["protects"]) for g in whole["guards"]] == [(3, ["A.x_str"]), (8, ["Gone.y_str"])]
