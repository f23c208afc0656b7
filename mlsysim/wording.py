"""How the prose names what it computed for: "the reference accelerator" for the book's reference, the
registry entry's display name for a reader's choice, so a swapped number never sits beside "the reference".

A cell builds the clause the prose inserts (``for_accel_str = Fmt(...)``) from :func:`names`; each book's
language has its own phrases (:data:`PHRASES`), and :func:`cjk_spaced` puts the book's one space between
Chinese and Latin letters or digits inside a Chinese clause ("的 NVIDIA B200", not "的NVIDIA B200").
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .figures.spec import book_lang
from .scenario import Scenario

#: the words for the reference, and the patterns for a reader's choice, per language
PHRASES = {
    "en": {"accelerator": "the reference accelerator", "model": "the reference model",
           "configuration": "the reference configuration", "node": "the reference node",
           "chosen_node": "the {node}", "changed_node": "the {node} with your accelerator's values",
           "chosen_accelerator": "the {accelerator}", "chosen_model": "{model}",
           "changed_accelerator": "your {accelerator}",
           "chosen_configuration": "{accelerator_np} with {model}"},
    "zh": {"accelerator": "参考加速器", "model": "参考模型", "configuration": "参考配置", "node": "参考节点",
           "chosen_node": "{node}", "changed_node": "采用你所设加速器数值的{node}",
           "chosen_accelerator": "{accelerator}", "chosen_model": "{model}",
           "changed_accelerator": "你设定的{accelerator}",
           "chosen_configuration": "{accelerator_np}与{model}的配置"},
}


@dataclass(frozen=True)
class Names:
    """The noun phrases for a scenario's accelerator, model and the two together, in one language."""
    accelerator: str
    model: str
    configuration: str
    reference: bool = True    # the whole scenario is the reference
    node: str = ""


def names(sc: Scenario, lang: str | None = None) -> Names:
    """The reference's words for the reference scenario, else the entries' display names ("your …" for an
    accelerator whose bandwidth, peak rate or capacity the reader set)."""
    lang = lang or book_lang()
    p = PHRASES[lang]
    # the reference's words only for the reference itself: any other choice or live input computes other values,
    # and "the reference" must never stand beside them (tests/test_every_reader.py)
    same_accel = same_model = sc.is_reference
    a, m = sc.accelerator.display_name, sc.model.display_name
    if lang == "zh":   # the book's full-width brackets and commas around a name's aside
        a, m = (x.replace(" (", "（").replace("(", "（").replace(")", "）").replace(", ", "，") for x in (a, m))
    changed = sc.hardware_changed   # the reader's bandwidth, peak rate or capacity: "your NVIDIA H100 …"
    np = p["changed_accelerator" if changed else "chosen_accelerator"].format(accelerator=a)
    accel = p["accelerator"] if same_accel else np
    config = (p["configuration"] if same_accel and same_model
              else p["chosen_configuration"].format(accelerator_np=np, model=m))
    node = sc.node.display_name if sc.node is not None else ""
    node = (p["node"] if same_accel else p["changed_node" if changed else "chosen_node"].format(node=node))
    if lang == "zh":
        accel, node = cjk_spaced(accel), cjk_spaced(node)
    return Names(
        node=node,
        accelerator=accel,
        model=p["model"] if same_model else p["chosen_model"].format(model=m),
        configuration=cjk_spaced(config) if lang == "zh" else config, reference=same_accel and same_model)


_CJK = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_LATIN = r"[A-Za-z0-9]"


def cjk_spaced(text: str) -> str:
    """``text`` with one space wherever a Chinese character meets a Latin letter or digit."""
    text = re.sub(f"({_CJK})({_LATIN})", r"\1 \2", text)
    return re.sub(f"({_LATIN})({_CJK})", r"\1 \2", text)


def cjk_inline(text: str, lang: str | None = None) -> str:
    """A value the Chinese prose sets between Chinese characters ("有`x`的时间"): one space on each side where
    the value begins or ends with a Latin letter or digit ("有 37% 的时间"), none where it is Chinese
    ("有五分之四的时间"); English unchanged. The prose around such a value is Chinese on both sides."""
    if (lang or book_lang()) != "zh" or not text:
        return text
    lead = " " if re.match(_LATIN, text[0]) else ""
    trail = " " if re.match(_LATIN, text[-1]) or text[-1] == "%" else ""
    return f"{lead}{text}{trail}"


def clause(template: str, said: Names, lang: str | None = None, **more: str) -> str:
    """``template`` ("For {accelerator} at {bits}-bit precision") filled with ``said`` and ``more``;
    a Chinese clause spaced by :func:`cjk_spaced`."""
    text = template.format(accelerator=said.accelerator, model=said.model, configuration=said.configuration,
                           node=said.node, **more)
    return cjk_spaced(text) if (lang or book_lang()) == "zh" else text


def byte_words(n: float, lang: str | None = None) -> str:
    """A count of bytes with its unit word: "1 byte", "2 bytes", "0.5 bytes"; Chinese "2 字节"."""
    from .fmt import fmt
    lang = lang or book_lang()
    text = str(fmt(n, 0 if float(n).is_integer() else 1))
    if lang == "zh":
        return f"{text} 字节"
    return f"{text} byte" if n == 1 else f"{text} bytes"


#: the attention designs by their geometry (:attr:`mlsysim.registry.Model.attention_design`), as prose names them
DESIGNS = {"en": {"MHA": "multi-head attention", "GQA": "grouped-query attention", "MQA": "multi-query attention"},
           "zh": {"MHA": "多头注意力", "GQA": "分组查询注意力", "MQA": "多查询注意力"}}


def design_words(design: str, lang: str | None = None) -> str:
    """``"GQA"`` as prose: "grouped-query attention" / "分组查询注意力"."""
    return DESIGNS[lang or book_lang()][design]


_EN_DENOMS = {2: ("half", "halves"), 3: ("third", "thirds"), 4: ("quarter", "quarters"), 5: ("fifth", "fifths"),
              6: ("sixth", "sixths"), 7: ("seventh", "sevenths"), 8: ("eighth", "eighths"), 9: ("ninth", "ninths"),
              10: ("tenth", "tenths")}
_EN_NUMS = "zero one two three four five six seven eight nine ten".split()
_ZH_NUMS = "零一二三四五六七八九十"
#: how close a fraction must be to a simple one (n/d, d ≤ 10) to be said in words, relative
FRACTION_TOLERANCE = 0.01


def simple_fraction(x: float) -> tuple[int, int] | None:
    """``(n, d)`` with d from 2 to 10 when ``x`` (0 < x < 1) is within 1 % of n/d, the smallest d first; else None."""
    from fractions import Fraction
    x = float(x)
    if not 0 < x < 1:
        return None
    for d in range(2, 11):
        n = round(x * d)
        if 0 < n < d and abs(n / d - x) <= FRACTION_TOLERANCE * x:
            f = Fraction(n, d)
            return f.numerator, f.denominator
    return None


def fraction_words(x: float, lang: str | None = None, *, capital: bool = False) -> str:
    """A share ``x`` (from 0 to 1) as prose says it before "of ...": "half", "a fifth", "four fifths",
    "two thirds" (within 1 % of n/d, d ≤ 10), else "37 percent"; "all" and "none" at the ends. Chinese:
    "一半", "五分之一", "五分之四", "37%", "全部", "没有". ``capital``: the English word starts a sentence."""
    lang = lang or book_lang()
    x = float(x)
    nd = simple_fraction(x)
    if lang == "zh":
        if x >= 1:
            return "全部"
        if x <= 0:
            return "没有"
        if nd is None:
            return f"{_percent(x)}%"
        n, d = nd
        return "一半" if (n, d) == (1, 2) else f"{_ZH_NUMS[d]}分之{_ZH_NUMS[n]}"
    if x >= 1:
        words = "all"
    elif x <= 0:
        words = "none"
    elif nd is None:
        words = f"{_percent(x)} percent"
    else:
        n, d = nd
        one, many = _EN_DENOMS[d]
        words = "half" if (n, d) == (1, 2) else f"a {one}" if n == 1 else f"{_EN_NUMS[n]} {many}"
    return words[:1].upper() + words[1:] if capital else words


def _percent(x: float) -> str:
    """``x`` as a percentage, whole where that shows it within 5 %, else with the decimals it needs."""
    from .fmt import FormatPrecisionError, fmt
    for p in range(0, 8):
        try:
            return str(fmt(x * 100, p))
        except FormatPrecisionError:
            continue
    return f"{x * 100:.2g}"
