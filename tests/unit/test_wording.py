"""mlsysim.wording: the prose names what it computed for (issue: an honest reader's choice)."""
from mlsysim.scenario import from_choice
from mlsysim.wording import clause, cjk_spaced, names


def test_the_reference_is_named_as_the_reference_in_both_languages():
    ref = from_choice(None)
    assert names(ref, "en").accelerator == "the reference accelerator"
    assert names(ref, "en").configuration == "the reference configuration"
    assert names(ref, "zh").model == "参考模型"


def test_a_choice_is_named_by_its_display_name():
    sc = from_choice({"accelerator": "MI300X", "model": "Llama3_405B"})
    en, zh = names(sc, "en"), names(sc, "zh")
    assert en.accelerator == "the " + sc.accelerator.display_name and en.model == "Llama-3.1-405B"
    assert en.configuration == f"the {sc.accelerator.display_name} with Llama-3.1-405B"
    assert "MI300X" in zh.accelerator and "(" not in zh.accelerator and "," not in zh.accelerator
    # only the model chosen: the accelerator is the reference's entry, but every value beside it is computed for
    # another configuration, so "the reference" is said of nothing (tests/book/test_every_reader.py)
    only_model = from_choice({"model": "Llama3_405B"})
    assert names(only_model, "en").accelerator == "the NVIDIA H100 SXM5 80GB"
    assert "reference" not in names(only_model, "en").configuration


def test_a_live_input_names_the_reader_s_accelerator_as_theirs():
    sc = from_choice({"bandwidth": 6})
    assert names(sc, "en").accelerator == "your NVIDIA H100 SXM5 80GB"
    assert names(sc, "zh").accelerator == "你设定的 NVIDIA H100 SXM5 80GB"
    assert names(sc, "en").node == "the NVIDIA DGX H100 with your accelerator's values"
    context_only = from_choice({"context": 65_536})   # the hardware is the registry's: no "your"
    assert names(context_only, "en").accelerator == "the NVIDIA H100 SXM5 80GB"


def test_chinese_clauses_are_spaced_between_chinese_and_latin():
    assert cjk_spaced("对于采用8位精度的NVIDIA B200") == "对于采用 8 位精度的 NVIDIA B200"
    assert cjk_spaced("在参考配置下") == "在参考配置下"
    assert cjk_spaced("（HGX B200，1000 W）") == "（HGX B200，1000 W）"   # full-width marks take no space
    sc = from_choice({"accelerator": "B200"})
    assert clause("对{model}而言", names(sc, "zh"), "zh") == "对 Llama-3.1-70B 而言"
    assert clause("对{model}而言", names(from_choice(None), "zh"), "zh") == "对参考模型而言"
    assert clause("在{configuration}下", names(sc, "zh"), "zh").startswith("在 NVIDIA B200")
