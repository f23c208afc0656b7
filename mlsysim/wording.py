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
from .scenario import Scenario, reference

#: the words for the reference, and the patterns for a reader's choice, per language
PHRASES = {
    "en": {"accelerator": "the reference accelerator", "model": "the reference model",
           "configuration": "the reference configuration",
           "chosen_accelerator": "the {accelerator}", "chosen_model": "{model}",
           "chosen_configuration": "the {accelerator} with {model}"},
    "zh": {"accelerator": "参考加速器", "model": "参考模型", "configuration": "参考配置",
           "chosen_accelerator": "{accelerator}", "chosen_model": "{model}",
           "chosen_configuration": "{accelerator}与{model}的配置"},
}


@dataclass(frozen=True)
class Names:
    """The noun phrases for a scenario's accelerator, model and the two together, in one language."""
    accelerator: str
    model: str
    configuration: str
    reference: bool = True    # both the accelerator and the model are the reference's


def names(sc: Scenario, lang: str | None = None) -> Names:
    """The reference's words where ``sc`` uses the reference's entry, else the entry's display name."""
    lang = lang or book_lang()
    p = PHRASES[lang]
    ref = reference()
    same_accel = sc.accelerator.name == ref.accelerator.name and sc.weight_precision == ref.weight_precision
    same_model = sc.model.name == ref.model.name
    a, m = sc.accelerator.display_name, sc.model.display_name
    if lang == "zh":   # the book's full-width brackets and commas around a name's aside
        a, m = (x.replace(" (", "（").replace("(", "（").replace(")", "）").replace(", ", "，") for x in (a, m))
    config = (p["configuration"] if same_accel and same_model
              else p["chosen_configuration"].format(accelerator=a, model=m))
    return Names(
        accelerator=p["accelerator"] if same_accel else p["chosen_accelerator"].format(accelerator=a),
        model=p["model"] if same_model else p["chosen_model"].format(model=m),
        configuration=cjk_spaced(config) if lang == "zh" else config, reference=same_accel and same_model)


_CJK = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_LATIN = r"[A-Za-z0-9]"


def cjk_spaced(text: str) -> str:
    """``text`` with one space wherever a Chinese character meets a Latin letter or digit."""
    text = re.sub(f"({_CJK})({_LATIN})", r"\1 \2", text)
    return re.sub(f"({_LATIN})({_CJK})", r"\1 \2", text)


def clause(template: str, said: Names, lang: str | None = None, **more: str) -> str:
    """``template`` ("For {accelerator} at {bits}-bit precision") filled with ``said`` and ``more``;
    a Chinese clause spaced by :func:`cjk_spaced`."""
    text = template.format(accelerator=said.accelerator, model=said.model, configuration=said.configuration, **more)
    return cjk_spaced(text) if (lang or book_lang()) == "zh" else text
