"""Hostile registry files, CLI options and environments (issue "Hostile input, round 3"), in this process.

Every broken registry file is a private copy of ``mlsysim/data`` (``MLSYSIM_DATA_DIR``). The registry's
loader reads it in the test's process (``refusal``: the one line it raises), and for a case of each file and
every other hostile input the command runs in the test's own process with the package imported afresh
(tests/fresh.py: ``mlsysim_in_process``, which tests/book/test_hostile_environment.py checks against the
real command in a fresh interpreter). Each asserts the exit status, exactly one line on stderr and no
traceback, that the line names what to change (file, entry and field), and that nothing in the checkout
changed (conftest: ``untouched``). The expected messages are the rules the issue states: the
closest valid field name, the entry and field, what to add. The folders mlsysim picks for pint's and
matplotlib's caches are checked here as functions of the environment; what a fresh interpreter makes of
them, in tests/book/test_hostile_environment.py.
"""
from __future__ import annotations

import os
import pickle
import re
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT, a_share, examples
from fresh import DATA, a_file, data_copy, mlsysim_in_process, one_line, private_temp

H100_BLOCK = DATA.joinpath("accelerators.toml").read_text(encoding="utf-8").split("[H100]\n", 1)[1].split("\n[", 1)[0]


# ───────────────────────────── strict registry files, through the CLI ─────────────────────────────

NIM_C1 = "nim-llama33-70b-h100x2-5000-500-c1"

# (file, old text, new text, the entry and field the line must name, words it must carry)
BROKEN = [
    # misspelled or unknown fields: refused, with the closest valid name
    ("accelerators.toml", 'memory.bandwidth = { value = "3.35 TB/s"', 'memory.bandwith = { value = "3.35 TB/s"',
     "[H100] memory.bandwith", "unknown field; did you mean 'memory.bandwidth'?"),
    ("accelerators.toml", 'vendor = "NVIDIA"', 'vendr = "NVIDIA"', "[H100] vendr", "did you mean 'vendor'?"),
    ("accelerators.toml", 'compute.fp8 = { dense = "1978.9', 'compute.fp8 = { dens = "1978.9',
     "[H100] compute.fp8.dens", "did you mean 'compute.fp8.dense'?"),
    ("models.toml", "kv_heads = 8", "kv_head = 8", "[Llama3_70B] kv_head", "did you mean 'kv_heads'?"),
    ("sources.toml", 'publisher = "NVIDIA"', 'publsher = "NVIDIA"', "[nvidia-h100-datasheet] publsher",
     "did you mean 'publisher'?"),
    ("systems.toml", 'interconnect = "NVLink4"', 'interconect = "NVLink4"', "[nodes.DGX_H100] interconect",
     "did you mean 'interconnect'?"),
    ("systems.toml", '[links.PCIe_Gen4_x16]\ndisplay_name', '[links.PCIe_Gen4_x16]\ndisplayname',
     "[links.PCIe_Gen4_x16] displayname", "did you mean 'display_name'?"),
    ("systems.toml", "[nodes.DGX_H100]", "[node.DGX_H100]", "node", "unknown table; did you mean 'nodes'?"),
    # conflicts must say which value they disagree with
    ("accelerators.toml", '{ field = "memory.capacity", value = "80 GB"', '{ value = "80 GB"',
     "[H100] conflicts[1].field", "missing field"),
    ("accelerators.toml", '{ field = "memory.capacity", value = "80 GB"', '{ field = "memory.capcity", value = "80 GB"',
     "[H100] conflicts[1].field", "did you mean 'memory.capacity'?"),
    ("accelerators.toml", '{ field = "memory.capacity", value = "80 GB"', '{ field = "memory.capacity", value = "80 GB/s"',
     "[H100] conflicts[1].value", "a capacity must convert to byte"),
    # a table where a value belongs
    ("accelerators.toml", 'display_name = "NVIDIA H100 SXM5 80GB"', 'display_name = { text = "H100" }',
     "[H100] display_name", "expected text in quotes, got a table"),
    ("accelerators.toml", 'host_link = "PCIe_Gen5_x16"', 'host_link = { name = "PCIe_Gen5_x16" }',
     "[H100] host_link", "expected text in quotes, got a table"),
    ("models.toml", 'parameters = "70.6e9 count"', 'parameters = { value = "70.6e9 count" }',
     "[Llama3_70B] parameters", "expected a quantity with its unit in quotes"),
    # a value where a table belongs
    ("systems.toml", 'accelerators_per_node = { value = 8, source = "nvidia-dgx-h100-guide" }',
     "accelerators_per_node = 8", "[nodes.DGX_H100] accelerators_per_node", 'write { value = "...", source = "..." }'),
    ("accelerators.toml", 'compute.fp64 = { dense = "33.5 Tflop/s", source = "nvidia-hopper-whitepaper", note = "FP64 vector '
     '(non-tensor); datasheet rounds to 34. The FP64 Tensor Core rate is 66.9 (datasheet 67)" }',
     'compute.fp64 = "33.5 Tflop/s"', "[H100] compute.fp64", "expected a table of fields, got '33.5 Tflop/s'"),
    # values of the wrong kind
    ("models.toml", "layers = 80", "layers = true", "[Llama3_70B] layers", "expected a positive integer, got true"),
    ("sources.toml", 'accessed = "2026-11-29"', "accessed = 2026-11-29", "[nvidia-h100-datasheet] accessed",
     "expected text in quotes, got 2026-11-29, a TOML date"),
    # a source that names no edition (the page changes: which one was read?)
    ("sources.toml", 'edition = "The page as served on 2026-11-29', '# edition = "The page as served on 2026-11-29',
     "[nvidia-h100-datasheet] edition", "missing field; name the edition read: a commit, a release, or the date"),
    ("sources.toml", 'edition = "The page as served on 2026-11-29 (it is revised without a version number; the values '
     'read are recorded with each registry entry, and disagreements between stored versions under `conflicts`)."',
     'edition = "  "', "[nvidia-h100-datasheet] edition", "expected text in quotes, got '  '"),
    # names a cell or the CLI could not use
    ("accelerators.toml", "[TPUv5p]", "[TPU-v5p]", "[TPU-v5p]", "'TPU-v5p' is not a Python identifier"),
    ("models.toml", "[Llama3_8B]", "[lambda]", "[lambda]", "'lambda' is a Python keyword"),
    ("accelerators.toml", "[TPUv5p]", "[get]", "[get]", "already an attribute of the registry's namespaces"),
    ("systems.toml", "[links.NVLink3]", '[links."NVLink 3"]', "[links.NVLink 3]", "e.g. NVLink_3"),
    ("models.toml", "[Llama2_7B]", "[h100]", "[h100]", "the name 'h100' is also used by the accelerator 'H100'"),
    # a quoted key with a line break stays one line (escaped)
    ("accelerators.toml", "[TPUv5p]", '["TPU\\nv5p"]', "[TPU\\nv5p]", "is not a Python identifier"),
]


def refusal(data: Path, file: str) -> str:
    """What the registry's loader says of the data folder ``data`` (what ``import mlsysim`` loads from it:
    the registry, and the measurements when ``file`` is theirs), as one line; the test fails if it loads."""
    from mlsysim import registry
    from mlsysim.errors import RegistryError
    from mlsysim.measurements import load_measurements
    try:
        reg = registry.load_registry(data)
        if file == "measurements.toml":
            load_measurements(data, reg)
    except RegistryError as exc:
        assert "\n" not in str(exc), str(exc)
        return str(exc)
    raise AssertionError(f"{file}: the edit was accepted")


#: one case of each file goes through the command as well, in a package imported afresh on the broken folder
#: (the line it prints is the loader's, after "mlsysim: error: ")
THROUGH_THE_COMMAND = {"[H100] memory.bandwith", "[Llama3_70B] kv_head", "[nvidia-h100-datasheet] publsher",
                       "[nodes.DGX_H100] interconect"}


@pytest.mark.parametrize("file, old, new, where, words", BROKEN, ids=[f"{b[0]}:{b[3]}" for b in BROKEN])
def test_a_malformed_registry_file_is_one_line_naming_file_entry_and_field(tmp_path, untouched, monkeypatch, capsys,
                                                                           file, old, new, where, words):
    data = data_copy(tmp_path, file, old, new)
    line = refusal(data, file)
    assert line.startswith(f"{written(data / file, new, where)} {where}:"), line
    assert words in line, line
    if where in THROUGH_THE_COMMAND:
        r = mlsysim_in_process(monkeypatch, capsys, data, "list")
        assert r.returncode == 2 and r.stdout == ""
        assert one_line(r) == f"mlsysim: error: {line}"


def test_each_registry_file_has_a_case_through_the_command():
    assert {b[0] for b in BROKEN if b[3] in THROUGH_THE_COMMAND} == {"accelerators.toml", "models.toml", "sources.toml",
                                                                     "systems.toml"}


def written(path: Path, new: str, where: str) -> str:
    """``<file>:N:``, the line an author finds the field on: where the edit put it (the first line of the edited
    text); the entry's header when the edit removed the field (commented out); nothing for a table above
    every entry (a misspelled ``[node.X]`` header names no entry)."""
    text = path.read_text(encoding="utf-8")
    if " " not in where and "[" not in where:
        return f"{path}:"
    at = text.index(new)
    leaf = where.split()[-1].split(".")[-1]
    if leaf in new:                       # the edit's line that holds the field
        at += new.index(leaf)
    if new.lstrip().startswith("#"):      # the field is gone: its entry's header
        header = "[" + where[1:].split("]")[0] + "]"
        at = text.rindex(header, 0, at)
    return f"{path}:{text.count(chr(10), 0, at) + 1}:"


@pytest.mark.parametrize("old, new, field, words", [
    ("itl = \"18.58 ms\"", "itll = \"18.58 ms\"", "itll", "did you mean 'itl'?"),
    ('accelerator = "H100"\ncount = 2', 'accelerator = { name = "H100" }\ncount = 2', "accelerator",
     "expected text in quotes, got a table"),
    ('load = "concurrency"', "load = 1", "load", "expected text in quotes, got 1"),
    ("count = 2", "count = true", "count", "expected a positive integer, got true"),
])
def test_a_malformed_measurement_is_one_line(tmp_path, untouched, monkeypatch, capsys, old, new, field, words):
    data = data_copy(tmp_path, "measurements.toml", old, new)
    line = refusal(data, "measurements.toml")
    assert line.startswith(f"{written(data / 'measurements.toml', new, f'[{NIM_C1}] {field}')} [{NIM_C1}] {field}:"), line
    assert words in line, line
    if field == "itll":   # one case through the command that reads the measurements
        r = mlsysim_in_process(monkeypatch, capsys, data, "calibrate")
        assert r.returncode == 2 and r.stdout == ""
        assert one_line(r) == f"mlsysim: error: {line}"


# ───────────────────────────── an accelerator needs a node ─────────────────────────────

def _add_h100_copy(data: Path, name: str) -> None:
    """A new accelerator with the H100's published values under another name (no node yet)."""
    with open(data / "accelerators.toml", "a", encoding="utf-8") as fh:
        fh.write(f"\n[{name}]\n{H100_BLOCK}\n")


def test_an_accelerator_no_node_carries_is_refused_naming_systems_toml(tmp_path, untouched, monkeypatch, capsys):
    data = data_copy(tmp_path)
    _add_h100_copy(data, "H100_Copy")
    r = mlsysim_in_process(monkeypatch, capsys, data, "reference", "-a", "H100_Copy")
    assert r.returncode == 2 and r.stdout == ""
    line = one_line(r)
    assert "NoneType" not in line
    assert line.startswith(f"mlsysim: error: {data / 'systems.toml'}: no node carries accelerator 'H100_Copy'"), line
    assert 'add a [nodes.<Name>] table' in line and 'accelerator = "H100_Copy"' in line and "accelerators_per_node" in line


def test_with_its_node_the_new_accelerator_gets_per_node_values(tmp_path, untouched, monkeypatch, capsys):
    data = data_copy(tmp_path)
    _add_h100_copy(data, "H100_Copy")
    with open(data / "systems.toml", "a", encoding="utf-8") as fh:
        fh.write('\n[nodes.H100_Copy_Node]\ndisplay_name = "Eight H100 copies"\naccelerator = "H100_Copy"\n'
                 'accelerators_per_node = { value = 8, source = "nvidia-dgx-h100-guide" }\n')
    r = mlsysim_in_process(monkeypatch, capsys, data, "reference", "-a", "H100_Copy", "--json")
    assert r.returncode == 0, r.stderr
    import json
    v = json.loads(r.stdout)
    # the H100's values, but not the reference choice: its node holds the 8-bit weights it serves, so
    # floor((8 x 80 GiB - 70.6e9 x 1 byte - 20 GB) / (32,768 x 327,680 bytes)) = floor(596.6 / 10.74) = 55
    assert v["node"] == "H100_Copy_Node" and v["resident_trajectories"] == 55 and v["pool_precision"] == "fp8"


# ───────────────────────────── every malformed shape is a RegistryError (in process) ─────────────────────────────

def _paths(value, path=()):
    """Every key path into a parsed TOML document (tables and list items included)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path + (k,)
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield path + (i,)
            yield from _paths(v, path + (i,))


def _set(doc, path, value):
    node = doc
    for k in path[:-1]:
        node = node[k]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value


_DELETE = object()
#: the entries whose fields are swept (each file's fullest entry)
SWEPT = {"sources.toml": ("nvidia-h100-datasheet", "nvidia-nim-llm-benchmarks"), "accelerators.toml": ("H100",),
         "models.toml": ("Mixtral_8x7B",), "systems.toml": ("links", "nodes"), "measurements.toml": (NIM_C1,)}
WRONG = [{"x": 1}, [1], True, "", 0, -3, "3.35 parsecs", _DELETE]


def _sweep_cases():
    import tomllib
    for file, entries in SWEPT.items():
        doc = tomllib.loads((DATA / file).read_text(encoding="utf-8"))
        for path in _paths(doc):
            if path[0] in entries and not (file == "systems.toml" and len(path) > 2 and path[1] not in
                                           ("DGX_H100", "PCIe_Gen5_x16")):
                yield file, path


def _entry_and_leaf(file, path):
    entry = f"{path[0]}.{path[1]}" if file == "systems.toml" and len(path) > 1 else path[0]
    named = [p for p in path if isinstance(p, str) and p != "value"]
    return entry, named[-1]


def _assert_names_the_field(msg, data, file, where, entry, leaf, wrong):
    """One line, starting with a data file; for a field of ``file`` of the wrong shape: that file, entry and
    field. (A removed entry is named where it is referred to, which may be another file; a removed optional
    field may make another field of the entry disagree, which is then the one named.)"""
    assert "\n" not in msg, msg
    m = re.match(rf"{re.escape(str(data))}/(\w+\.toml):", msg)
    assert m, msg
    whole_entry = len(where) <= (2 if file == "systems.toml" else 1)
    if wrong is _DELETE and whole_entry:
        return
    assert m.group(1) == file, (where, wrong, msg)
    if len(where) > 1 and not msg.split(": ", 1)[1].startswith("no node carries"):
        assert f"[{entry}" in msg, (where, wrong, msg)
    named = "bogus_field" if where[-1] == "bogus_field" else leaf
    assert named in msg or (wrong is _DELETE and "missing field" not in msg), (where, wrong, msg)


@pytest.mark.parametrize("file", list(SWEPT))
def test_every_wrong_shape_of_every_field_is_a_registry_error_naming_it(tmp_path, monkeypatch, file):
    """Each field of each file's fullest entry replaced by a table, a list, a boolean, an empty string,
    zero, a negative number, a nonsense quantity, or removed; and an unknown field added to every table.
    The load either succeeds (the change was valid) or raises RegistryError, in one line naming the file,
    the entry and the field; never another exception."""
    import tomllib

    from mlsysim import registry
    from mlsysim.errors import RegistryError
    from mlsysim.measurements import load_measurements

    data = data_copy(tmp_path)
    real_read = registry._Loader.read
    docs = {f: tomllib.loads((DATA / f).read_text(encoding="utf-8")) for f in SWEPT}
    pristine = pickle.dumps(docs[file])   # each mutation edits a fresh copy of the file's document
    current = {}
    untouched_files = {}  # each untouched file of the copy is read (and checked to parse) once, then copied

    def read(self, name):        # a fresh copy each time (pickled: a deep copy at a tenth of deepcopy's cost)
        if name in current:
            return pickle.loads(current[name])
        if name not in untouched_files:
            untouched_files[name] = pickle.dumps(real_read(self, name))
        return pickle.loads(untouched_files[name])
    monkeypatch.setattr(registry._Loader, "read", read)
    # the measurements' sweep changes no registry file: the registry they are checked against is loaded once
    fixed_registry = registry.load_registry(data) if file == "measurements.toml" else None

    def load():
        reg = fixed_registry or registry.load_registry(data)
        if file in ("measurements.toml", "sources.toml"):
            load_measurements(data, reg)

    mutations = []   # (the entry and the field a refusal must name, where the wrong value goes, the value)
    for f, path in _sweep_cases():
        if f != file:
            continue
        entry, leaf = _entry_and_leaf(file, path)
        node = docs[file]
        for k in path:
            node = node[k]
        mutations += [(entry, leaf, path, w) for w in WRONG]
        if isinstance(node, dict):
            mutations.append((entry, leaf, path + ("bogus_field",), "x"))
    assert len(mutations) > 100, len(mutations)
    cases = refused = 0
    for entry, leaf, where, wrong in a_share(mutations):   # all of them in CI (conftest.py: a_share)
        doc = pickle.loads(pristine)
        _set(doc, where, wrong)
        current.clear()
        current[file] = pickle.dumps(doc)
        cases += 1
        try:
            load()
        except RegistryError as exc:
            refused += 1
            _assert_names_the_field(str(exc), data, file, where, entry, leaf, wrong)
        except Exception as exc:  # noqa: BLE001 - the point: nothing else may escape
            raise AssertionError(f"{file} {where} = {wrong!r}: {type(exc).__name__}: {exc}") from None
    assert cases == examples(len(mutations)) and refused > cases // 2, (cases, refused)


# ───────────────────────────── names ─────────────────────────────

@pytest.mark.parametrize("name", ["H100-PCIe", "1H100", "class", "None", "names", "Cloud", "H100 PCIe", "Ä100",
                                  "_H100"])
def test_names_a_cell_or_the_cli_could_not_use_are_refused(tmp_path, name):
    from mlsysim.errors import RegistryError
    from mlsysim.registry import load_registry
    data = data_copy(tmp_path)
    (data / "accelerators.toml").write_text((data / "accelerators.toml").read_text(encoding="utf-8").replace(
        "[TPUv5p]", f'["{name}"]'), encoding="utf-8")
    with pytest.raises(RegistryError) as e:
        load_registry(data)
    header = (data / "accelerators.toml").read_text(encoding="utf-8").split(f'["{name}"]')[0].count("\n") + 1
    assert str(e.value).startswith(f"{data / 'accelerators.toml'}:{header}: [{name}]: "), str(e.value)
    assert "ASCII letters, digits and _" in str(e.value)


def test_a_valid_new_name_loads_and_is_usable_by_attribute_and_lookup(tmp_path):
    from mlsysim.registry import load_registry
    data = data_copy(tmp_path)
    _add_h100_copy(data, "H100_Copy")
    with open(data / "systems.toml", "a", encoding="utf-8") as fh:
        fh.write('\n[nodes.Copy_Node]\ndisplay_name = "copies"\naccelerator = "H100_Copy"\n'
                 'accelerators_per_node = { value = 4, source = "nvidia-dgx-h100-guide" }\n')
    hardware, _, systems = load_registry(data).namespaces()
    assert hardware.Cloud.H100_Copy is hardware.Cloud.get("h100-copy")
    assert hardware.Cloud.H100_Copy.memory.bandwidth.to("TB/s").magnitude == pytest.approx(3.35)
    assert systems.Nodes.Copy_Node.accelerators_per_node == 4


def test_the_same_name_twice_in_one_file_ignoring_case_is_refused(tmp_path):
    from mlsysim.errors import RegistryError
    from mlsysim.registry import load_registry
    data = data_copy(tmp_path)
    _add_h100_copy(data, "h100")
    header = (data / "accelerators.toml").read_text(encoding="utf-8").split("[h100]")[0].count("\n") + 1
    with pytest.raises(RegistryError, match=re.escape(f"{data / 'accelerators.toml'}:{header}: [h100]: the name 'h100' "
                                                      "is also used by the accelerator 'H100'")):
        load_registry(data)


def test_a_file_of_plain_fields_is_checked_the_same_way(tmp_path):
    """reference.toml (the book's reference choice) through registry.read_checked."""
    from mlsysim.errors import RegistryError
    from mlsysim.registry import SCHEMAS, read_checked
    ref = read_checked("reference.toml", SCHEMAS["reference"], DATA)
    assert {k: ref[k] for k in ("accelerator", "model", "weight_precision")} == {
        "accelerator": "H100", "model": "Llama3_1_70B", "weight_precision": "fp8"}  # the book's reference
    assert set(ref) - {"accelerator", "model", "weight_precision"} <= {"inputs", "lecture", "choices",
                                                                        "pool_weight_precision"}  # the scenario's
    data = data_copy(tmp_path, "reference.toml", 'accelerator = "H100"', 'acelerator = "H100"')
    with pytest.raises(RegistryError, match=re.escape(f"{data / 'reference.toml'}: acelerator: unknown field; "
                                                      "did you mean 'accelerator'?")):
        read_checked("reference.toml", SCHEMAS["reference"], data)


@pytest.mark.parametrize("old, new, where, words", [
    ("batch = 64 ", 'batch = "x"', "inputs.batch", "expected a whole number, got 'x'"),
    ("context = 32768 ", "context = 0", "inputs.context", "from 1 to 10,000,000 tokens, got 0"),
    ("batch = 64 ", "batch = 1000000", "inputs.batch", "from 1 to 100,000 streams, got 1000000"),
    ("kv_heads = 8 ", "kv_heads = 3", "lecture.kv_heads", "one of 1, 2, 4, 8, 16, 32, got 3"),
    ('kv_precision = "bf16"', 'kv_precision = "bf17"', "inputs.kv_precision", "unknown precision 'bf17'"),
    ("batch = 64 ", "batsh = 64", "inputs.batsh", "unknown field (known: inputs.kv_precision, inputs.context, inputs.batch)"),
    ('t_tool = "30 s"', 't_tool = "30 m"', "lecture.t_tool", "expected the task's tool time (all steps) in s"),
    ('link_bandwidth = "64 GB/s"', "link_bandwidth = 64", "lecture.link_bandwidth", "a quantity in quotes"),
    ("kv_heads = 8 ", "kv_heads = 8.5", "lecture.kv_heads", "expected a whole number, got 8.5"),
    ('t_model = "30 s"', "", "lecture.t_model", "missing field (the task's model time (all steps))"),
    ("[lecture]", "[lectur]", "lectur", "unknown table; did you mean 'lecture'?"),
])
def test_the_scenario_inputs_of_reference_toml_are_checked_in_one_line(tmp_path, untouched, monkeypatch, capsys,
                                                                       old, new, where, words):
    data = data_copy(tmp_path, "reference.toml", old, new)
    r = mlsysim_in_process(monkeypatch, capsys, data, "reference")
    assert r.returncode == 2 and r.stdout == ""
    line = one_line(r)
    assert line.startswith(f"mlsysim: error: {data / 'reference.toml'}: {where}"), line
    assert words in line, line


def test_load_registry_is_split_into_small_functions():
    import ast

    from sourcegraph import nodes_of
    sizes = {n.name: n.end_lineno - n.lineno + 1 for n in nodes_of(ROOT / "mlsysim" / "registry.py")
             if isinstance(n, ast.FunctionDef)}
    assert sizes["load_registry"] < 30 and max(sizes.values()) <= 80, sizes


# ───────────────────────────── CLI options ─────────────────────────────

CONTEXT_RANGE = "expected a positive whole number of tokens (from 1 to the model's context window)"
KV_RANGE = "from 0.5 (4-bit) to 8 (fp64)"  # the narrowest key/value precision offered, 4 bits; fp64, 8 bytes


@pytest.mark.parametrize("option, value, words", [
    *[("--context", v, CONTEXT_RANGE) for v in ("nan", "inf", "-inf", "-1", "0", "1.5", "1e5", "", "many")],
    *[("--kv-bytes", v, KV_RANGE) for v in ("nan", "inf", "-inf", "-1", "0", "8.5", "1e400", "", "two")],
    ("--weight-precision", "fp9", "unknown precision 'fp9'; use one of fp64"),
])
def test_a_cli_option_out_of_range_is_one_line_naming_it_and_its_range(tmp_path, untouched, monkeypatch, capsys,
                                                                       option, value, words):
    r = mlsysim_in_process(monkeypatch, capsys, None, "reference", f"{option}={value}")
    assert r.returncode == 2 and r.stdout == ""
    line = one_line(r)
    assert "internal error" not in line
    assert line.startswith(f"mlsysim: error: argument {option}"), line
    assert words in line and repr(value) in line, line


# ───────────────────────────── the cache folders, as functions of the environment ─────────────────────────────
#
# Root ignores file modes, so an unwritable folder is one under a FILE: mkdir fails there for everyone. What a
# fresh interpreter makes of these folders (pint really writes and reads its cache there, a full disk, a
# truncated file, matplotlib's own folders): tests/book/test_hostile_environment.py.

@pytest.fixture
def no_cache_settings(tmp_path, monkeypatch):
    """No XDG folder, no MPLCONFIGDIR, the unit cache on, and Python's temp folder ``tmp_path/tmp``."""
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "MPLCONFIGDIR", "MLSYSIM_UNIT_CACHE"):
        monkeypatch.setenv(name, "")   # recorded, so that what the function under test sets is undone
        monkeypatch.delenv(name)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return monkeypatch


@pytest.mark.parametrize("home", ["a file", "a folder under a file"])
def test_without_a_writable_home_pints_cache_is_a_private_temp_folder(tmp_path, no_cache_settings, home):
    from mlsysim.cachedirs import pint_cache_folder
    f = a_file(tmp_path)
    no_cache_settings.setenv("HOME", str(f if home == "a file" else f / "home"))
    assert pint_cache_folder() == private_temp(tmp_path, "pint")
    assert oct(private_temp(tmp_path, "").stat().st_mode & 0o777) == "0o700"   # this user's alone


def test_pints_cache_is_under_xdg_cache_home_when_it_is_writable(tmp_path, no_cache_settings):
    from mlsysim.cachedirs import pint_cache_folder
    no_cache_settings.setenv("HOME", str(a_file(tmp_path)))
    no_cache_settings.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert pint_cache_folder() == tmp_path / "xdg" / "pint"


def test_pints_cache_is_under_home_without_xdg(tmp_path, no_cache_settings):
    from mlsysim.cachedirs import pint_cache_folder
    no_cache_settings.setenv("HOME", str(tmp_path / "home"))
    assert pint_cache_folder() == tmp_path / "home" / ".cache" / "pint"


def test_an_unwritable_xdg_cache_home_falls_back_to_a_private_temp_folder(tmp_path, no_cache_settings):
    from mlsysim.cachedirs import pint_cache_folder
    f = a_file(tmp_path)
    no_cache_settings.setenv("HOME", str(f))
    no_cache_settings.setenv("XDG_CACHE_HOME", str(f / "cache"))
    assert pint_cache_folder() == private_temp(tmp_path, "pint")


def test_with_nothing_writable_or_the_cache_off_there_is_no_unit_cache(tmp_path, no_cache_settings):
    from mlsysim.cachedirs import pint_cache_folder
    f = a_file(tmp_path)
    no_cache_settings.setenv("HOME", str(f))
    no_cache_settings.setenv("XDG_CACHE_HOME", str(f / "cache"))
    no_cache_settings.setattr(tempfile, "tempdir", str(f))   # the temp folder Python would use is a file
    assert pint_cache_folder() is None
    no_cache_settings.setenv("HOME", str(tmp_path / "home"))    # a writable home again: used
    no_cache_settings.delenv("XDG_CACHE_HOME")
    assert pint_cache_folder() == tmp_path / "home" / ".cache" / "pint"
    no_cache_settings.setenv("MLSYSIM_UNIT_CACHE", "off")
    assert pint_cache_folder() is None


def test_without_a_writable_home_matplotlibs_folder_is_a_private_temp_folder(tmp_path, no_cache_settings):
    from mlsysim.cachedirs import use_writable_mplconfigdir
    no_cache_settings.setenv("HOME", str(a_file(tmp_path)))
    want = private_temp(tmp_path, "matplotlib")
    assert use_writable_mplconfigdir() == want and os.environ["MPLCONFIGDIR"] == str(want)


def test_without_a_writable_home_matplotlibs_folder_is_the_callers_fallback(tmp_path, no_cache_settings):
    from mlsysim.cachedirs import use_writable_mplconfigdir
    f = a_file(tmp_path)
    no_cache_settings.setenv("HOME", str(f))
    proj = tmp_path / "project" / "_build" / "cache" / "matplotlib"
    assert use_writable_mplconfigdir([f / "x", proj]) == proj and os.environ["MPLCONFIGDIR"] == str(proj)


def test_use_writable_mplconfigdir_keeps_a_writable_setting(tmp_path, monkeypatch):
    from mlsysim.cachedirs import use_writable_mplconfigdir
    mine = tmp_path / "mine"
    monkeypatch.setenv("MPLCONFIGDIR", str(mine))
    assert use_writable_mplconfigdir() == mine and os.environ["MPLCONFIGDIR"] == str(mine)


def test_use_writable_mplconfigdir_replaces_an_unwritable_setting(tmp_path, monkeypatch):
    import tempfile

    from mlsysim.cachedirs import use_writable_mplconfigdir
    monkeypatch.setenv("MPLCONFIGDIR", str(a_file(tmp_path) / "mpl"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    want = private_temp(tmp_path, "matplotlib")
    assert use_writable_mplconfigdir() == want and os.environ["MPLCONFIGDIR"] == str(want)


def test_use_writable_mplconfigdir_leaves_matplotlibs_own_folders_alone(tmp_path, monkeypatch):
    from mlsysim.cachedirs import use_writable_mplconfigdir
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert use_writable_mplconfigdir() == tmp_path / "home" / ".config" / "matplotlib"
    assert "MPLCONFIGDIR" not in os.environ


@pytest.mark.parametrize("bad", ["group-writable", "a symlink"])
def test_a_temp_folder_another_user_could_fill_is_refused(tmp_path, monkeypatch, bad):
    import tempfile

    from mlsysim.cachedirs import private_temp_folder
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    base = tmp_path / f"mlsysim-{os.getuid()}"
    if bad == "group-writable":
        base.mkdir()
        base.chmod(0o775)
    else:
        (tmp_path / "elsewhere").mkdir()
        base.symlink_to(tmp_path / "elsewhere")
    assert private_temp_folder("pint") is None
    assert not (base / "pint").exists()


def test_the_results_cache_survives_an_unusable_folder_and_an_unreadable_file(tmp_path, monkeypatch):
    from bookbuild.cache import LibraryStore, Store
    from mlsysim import diskcache
    monkeypatch.setattr(diskcache, "_STORE", None)
    diskcache.configure(LibraryStore(Store(a_file(tmp_path))))   # the build's store in a folder that is a file
    assert diskcache.json_memo("kind", ("x",), lambda: {"v": 1}) == {"v": 1}
    real = Path.read_bytes

    def refuse(self):
        if self.name == "units.txt":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)
    monkeypatch.setattr(Path, "read_bytes", refuse)
    diskcache.package_digest.cache_clear()
    try:
        assert len(diskcache.package_digest()) == 64
    finally:
        diskcache.package_digest.cache_clear()


def test_a_cold_and_a_warm_cache_give_the_same_value_in_the_same_order(tmp_path, monkeypatch):
    # a cold build and a warm one must write the same bytes: the computed value comes back as a read would
    import json
    from bookbuild.cache import LibraryStore, Store
    from mlsysim import diskcache
    monkeypatch.setattr(diskcache, "_STORE", None)
    diskcache.configure(LibraryStore(Store(tmp_path / "cache")))   # the build's store, as BookHooks hands it in
    cold = diskcache.json_memo("order", ("x",), lambda: {"b": 1, "a": [2, {"d": 3, "c": 4}]})
    warm = diskcache.json_memo("order", ("x",), lambda: {"never": "computed"})
    assert json.dumps(cold) == json.dumps(warm) == '{"a": [2, {"c": 4, "d": 3}], "b": 1}'
    assert list((tmp_path / "cache").iterdir()) == [tmp_path / "cache" / "library"]   # the one store's kind
    # and with no cache at all (``--no-cache``, BOOKBUILD_CACHE=off): the same order, so the same bytes
    diskcache.configure(None)
    off = diskcache.json_memo("order", ("x",), lambda: {"b": 1, "a": [2, {"d": 3, "c": 4}]})
    assert json.dumps(off) == json.dumps(cold)
