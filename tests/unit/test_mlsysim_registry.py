"""Registry: published values, sources, and validation of bad data (expected values from datasheets/seeds)."""
import shutil
from pathlib import Path

import pytest

from mlsysim import (GB, GiB, Hardware, Models, RegistryError, Systems, TB, UnknownEntryError,
                     UnknownPrecisionError, load_registry, ureg)
from mlsysim.registry import DATA_DIR, parameters_from_geometry

H100 = Hardware.Cloud.H100


def test_reference_accelerator_matches_the_seed():
    # seed reference geometry: 1,979 TFLOP/s at 8 bits (dense), 3.35 TB/s, 80 GiB
    assert H100.memory.capacity == 80 * GiB
    assert H100.memory.bandwidth.to(TB / ureg.second).magnitude == pytest.approx(3.35)
    assert round(H100.compute.peak("fp8").to("Tflop/s").magnitude) == 1979


def test_sparse_figures_never_pose_as_dense():
    # H100 datasheet: "1,979 teraFLOPS" BF16 is WITH sparsity; dense is 989.4
    assert H100.compute.peak("bf16").to("Tflop/s").magnitude == pytest.approx(989.4)
    # B200: "9 PFLOPS FP8" is sparse; dense 4,500
    assert Hardware.Cloud.B200.compute.peak("fp8").to("Tflop/s").magnitude == pytest.approx(4500)
    for a in Hardware.Cloud:
        for p, sparse in a.compute.sparse_flops.items():
            assert (sparse / a.compute.peak(p)).to("").magnitude == pytest.approx(2.0), (a.name, p)


def test_precisions_a_part_lacks_raise():
    with pytest.raises(UnknownPrecisionError, match="available precisions: .*bf16"):
        Hardware.Cloud.A100_80GB.compute.peak("fp8")  # Ampere has no FP8 tensor path
    with pytest.raises(UnknownPrecisionError):
        H100.compute.peak("int4")  # Hopper has no INT4
    with pytest.raises(UnknownPrecisionError):
        H100.compute.peak("fp4")


def test_every_value_has_a_source():
    for a in Hardware.Cloud:
        assert {"memory.capacity", "memory.bandwidth"} <= set(a.sources)
        for p in a.precisions:
            assert a.sources[f"compute.{p}"].source.url.startswith("https://")
    for m in Models.Language:
        assert m.source.url.startswith("https://")


def test_conflicts_are_recorded():
    b200 = Hardware.Cloud.B200
    assert b200.memory.capacity == 180 * GiB  # the HGX label "180GB", read as GiB like every part
    assert any(c.field == "memory.capacity" and c.value == 192 * GB for c in b200.conflicts)


@pytest.mark.parametrize("name, layers, d, heads, kv, vocab, expected", [
    # parameter counts from the published geometry, summed by hand:
    # 2Vd + L(2d^2 + 2d*kv*128 + 3 d ffn + 2d) + d
    ("Llama3_70B", 80, 8192, 64, 8, 128256, 70_553_706_496),
    ("Llama2_7B", 32, 4096, 32, 32, 32000, 6_738_415_616),
])
def test_parameter_count_from_geometry(name, layers, d, heads, kv, vocab, expected):
    m = Models.Language.get(name)
    assert (m.layers, m.hidden_dim, m.heads, m.kv_heads, m.vocab_size) == (layers, d, heads, kv, vocab)
    assert parameters_from_geometry(m) == expected


def test_published_counts_used_by_the_seeds():
    assert Models.Language.Llama3_70B.parameters.to("count").magnitude == 70.6e9
    assert Models.Language.Llama2_7B.parameters.to("count").magnitude == 6.74e9
    mix = Models.Language.Mixtral_8x7B
    assert mix.active_parameters < mix.parameters


def test_replace_makes_a_variant_and_recounts():
    gqa = Models.Language.Llama2_7B.replace(kv_heads=8)
    assert gqa.kv_heads == 8 and gqa.variant_of == "Llama2_7B"
    # K and V shrink from 4096x4096 to 4096x1024 in each of 32 layers
    assert gqa.parameters.to("count").magnitude == 6_738_415_616 - 32 * 2 * 4096 * (4096 - 1024)


def test_nodes_and_links():
    dgx = Systems.Nodes.DGX_H100
    assert dgx.accelerators_per_node == 8 and dgx.accelerator is H100
    # PCIe 5.0 x16 per direction after 128b/130b: 32e9 * 16 * 128/130 / 8 = 63.0 GB/s
    assert Systems.Links.PCIe_Gen5_x16.bandwidth.to("GB/s").magnitude == pytest.approx(32e9 * 16 * 128 / 130 / 8 / 1e9, rel=1e-3)


def test_lookup_errors_name_the_alternatives():
    with pytest.raises(UnknownEntryError, match="available: H100, H200"):
        Hardware.Cloud.get("H900")
    assert Hardware.Cloud.get("a100") is Hardware.Cloud.A100_80GB


# ── bad data fails at load, naming file, entry and field ──

@pytest.fixture
def data(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


def _edit(path: Path, old: str, new: str):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_wrong_dimension(data):
    _edit(data / "accelerators.toml", 'value = "3.35 TB/s"', 'value = "3.35 TB"')
    line = (data / "accelerators.toml").read_text().split('value = "3.35 TB"')[0].count("\n") + 1   # where the edit is
    with pytest.raises(RegistryError, match=rf"accelerators.toml:{line}: \[H100\] memory.bandwidth: .*byte / second"):
        load_registry(data)


def test_missing_unit(data):
    _edit(data / "accelerators.toml", 'value = "3.35 TB/s"', "value = 3.35")
    with pytest.raises(RegistryError, match=r"\[H100\] memory.bandwidth: 3.35 has no unit"):
        load_registry(data)


def test_unknown_precision(data):
    _edit(data / "accelerators.toml", "compute.fp8 = {", "compute.fp9 = {")
    with pytest.raises(RegistryError, match=r"\[H100\] compute.fp9: unknown precision 'fp9'"):
        load_registry(data)


def test_sparse_stored_as_dense(data):
    _edit(data / "accelerators.toml", 'compute.bf16 = { dense = "989.4 Tflop/s"', 'compute.bf16 = { dense = "1978.8 Tflop/s"')
    with pytest.raises(RegistryError, match=r"\[H100\] compute.bf16: sparse .* is 1.00x dense"):
        load_registry(data)


def test_duplicate_name(data):
    with open(data / "accelerators.toml", "a") as fh:
        fh.write('\n[H100]\ndisplay_name = "again"\n')
    with pytest.raises(RegistryError, match="accelerators.toml"):
        load_registry(data)


def test_duplicate_name_across_tables(data):
    text = (data / "models.toml").read_text().replace("[Llama2_7B]", "[H100]")
    (data / "models.toml").write_text(text)
    with pytest.raises(RegistryError, match="'H100'.*also used"):
        load_registry(data)


def test_geometry_disagreeing_with_published_count(data):
    _edit(data / "models.toml", "layers = 80", "layers = 90")
    with pytest.raises(RegistryError, match=r"\[Llama3_70B\] parameters: published 70,600,000,000 differs"):
        load_registry(data)


def test_unknown_source(data):
    _edit(data / "accelerators.toml", 'source = "nvidia-a100-datasheet"', 'source = "nowhere"')
    with pytest.raises(RegistryError, match="unknown source 'nowhere'"):
        load_registry(data)


def test_every_accelerator_memory_is_stored_in_one_convention_binary():
    """One capacity convention (accelerators.toml): the vendor's "GB" read as GiB, a whole number of GiB
    for every part, and the decimal reading of the same label kept only as a recorded conflict.
    Labels typed from the datasheets: 80, 141, 180, 80, 192, 16, 95."""
    from mlsysim import GiB, GB
    labels = {"H100": 80, "H200": 141, "B200": 180, "A100_80GB": 80, "MI300X": 192, "TPUv5e": 16, "TPUv5p": 95}
    for a in Hardware.Cloud:   # every part, the ones an author adds too: a whole number of GiB
        gib = a.memory.capacity.to(GiB).magnitude
        assert gib == round(gib) > 0, (a.name, a.memory.capacity)
    for name, label in labels.items():   # the parts whose labels are typed here
        assert getattr(Hardware.Cloud, name).memory.capacity.to(GiB).magnitude == label, name
    # H200's pool is no longer 7 % low against H100's reading: 141 GiB is 151.4 GB, not 141 GB
    assert Hardware.Cloud.H200.memory.capacity.to(GB).magnitude == pytest.approx(151.397, rel=1e-4)
    assert any(c.field == "memory.capacity" and c.value == 141 * GB for c in Hardware.Cloud.H200.conflicts)


def test_no_registry_value_is_one_its_source_does_not_print():
    """A value whose own note says the cited page does not print it (TPU v5p's int8 918 TOPS once) is not a
    sourced value: the registry drops it, so no chapter or choice can print it."""
    import tomllib
    from pathlib import Path
    data = tomllib.loads((Path(__file__).resolve().parents[2] / "mlsysim" / "data" / "accelerators.toml")
                         .read_text(encoding="utf-8"))
    bad = []
    for name, entry in data.items():
        for group in ("compute", "memory"):
            for field, v in (entry.get(group) or {}).items():
                note = (v.get("note", "") if isinstance(v, dict) else "").lower()
                if "not printed" in note or "unconfirmed" in note:
                    bad.append(f"{name}.{group}.{field}")
    assert not bad, bad
    assert "int8" not in data["TPUv5p"]["compute"]


def test_the_line_a_registry_message_names_is_where_the_author_wrote_the_field():
    """mlsysim.tomllines.toml_line over a file written by hand here; the lines are counted by eye."""
    from mlsysim.tomllines import toml_line
    text = "\n".join([
        "# a comment",                                       # 1
        "[A]",                                               # 2
        'memory.capacity = { value = "80 GiB" }',            # 3
        "compute . fp8 = { dense = \"1 Tflop/s\" }",         # 4
        "conflicts = [",                                     # 5
        '  { field = "memory.capacity", value = "80 GB" },', # 6
        '  { field = "compute.fp8", value = "2 Tflop/s" },', # 7
        "]",                                                 # 8
        "[B.memory]",                                        # 9
        'bandwidth = "1 TB/s"',                              # 10
        '["C\\nD"]',                                         # 11
        "[nodes.E]",                                         # 12
        'accelerator = "A"',                                 # 13
    ])
    assert toml_line(text, "A", "memory.capacity.value") == 3
    assert toml_line(text, "A", "compute.fp8.dense") == 4      # spaces around the dot
    assert toml_line(text, "A", "conflicts[2].value") == 7     # the second inline table
    assert toml_line(text, "A", "conflicts") == 5
    assert toml_line(text, "A", "display_name") == 2           # not written: its entry's header
    assert toml_line(text, "A") == 2
    assert toml_line(text, "B", "memory.bandwidth") == 10      # a sub-table's key
    assert toml_line(text, "B", "memory.capacity") == 9
    assert toml_line(text, "C\nD") == 11                       # a quoted key, read as TOML reads it
    assert toml_line(text, "nodes.E", "accelerator") == 13
    assert toml_line(text, "F", "x") is None and toml_line(text, None, "x") is None and toml_line(None, "A") is None
