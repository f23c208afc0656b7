"""The reader's choice space, declared once: which accelerators, models and weight precisions a reader may
choose (the HTML book's choice bar and address, live mode, ``python -m mlsysim reference``), and why a
registry model is not offered.

Read from the registry's data files alone (``accelerators.toml``, ``models.toml``, ``reference.toml``
``[choices]``) with the standard library, so that the book's build plans the reader's choices without
importing mlsysim (it loads this file by its path); :mod:`mlsysim.scenario` uses the same functions.

- **Accelerators**: every registry accelerator (each has a node: the registry refuses one without).
- **Models**: every registry model whose physics the appendix's equations cover. A model with a
  sliding-window attention (``sliding_window`` in models.toml: keys and values kept for the last W tokens
  only) is not offered: its attention state and attention arithmetic stop growing at W tokens, which the
  equations of the attention-state and long-context sections do not model.
- **Weight precisions**: ``[choices] weight_precisions`` (8 and 16 bits); an accelerator that publishes no
  rate of that name serves the nearest one it publishes (:func:`mlsysim.scenario.nearest_precision`).

A choice is ``{"accelerator", "model", "precision"}``; its key in the page's data is
``"accelerator|model|precision"`` (:func:`key`).
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

#: why a model is not offered, by the registry field that says so (the page words each in its language)
NOT_OFFERED = {"sliding_window": "a sliding-window attention keeps keys and values for the last {window} tokens "
                                 "only, which the appendix's equations do not model"}


@dataclass(frozen=True)
class Space:
    accelerators: tuple[str, ...]
    models: tuple[str, ...]
    precisions: tuple[str, ...]
    reference: Mapping[str, str]
    #: registry models not offered: name -> {"why": a NOT_OFFERED key, its values, "label": display name}
    not_offered: Mapping[str, Mapping] = field(default_factory=dict)

    def choices(self) -> list[dict[str, str]]:
        """Every choice, accelerators outermost, in the registry's order."""
        return [{"accelerator": a, "model": m, "precision": p}
                for a in self.accelerators for m in self.models for p in self.precisions]


def key(choice: Mapping[str, str]) -> str:
    """A choice's key in the page's data: ``"H100|Llama3_1_70B|fp8"``."""
    return f"{choice['accelerator']}|{choice['model']}|{choice['precision']}"


def why_not_offered(entry: Mapping) -> tuple[str, dict] | None:
    """``(reason key, values)`` when a models.toml entry is out of the equations' scope, else None."""
    if entry.get("sliding_window"):
        return "sliding_window", {"window": f"{int(entry['sliding_window']):,}"}
    return None


def _read(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def read(data_dir: Path) -> Space:
    """The choice space of the registry in ``data_dir``. Raises OSError or tomllib.TOMLDecodeError on an
    unreadable file (mlsysim's own import reports the registry's errors in one line)."""
    data_dir = Path(data_dir)
    accels = _read(data_dir / "accelerators.toml")
    models = _read(data_dir / "models.toml")
    ref = _read(data_dir / "reference.toml")
    offered, out = [], {}
    for name, entry in models.items():
        why = why_not_offered(entry) if isinstance(entry, dict) else None
        if why is None:
            offered.append(name)
        else:
            out[name] = {"why": why[0], **why[1], "label": str(entry.get("display_name", name))}
    precisions = tuple((ref.get("choices") or {}).get("weight_precisions") or (ref.get("weight_precision", "fp8"),))
    reference = {"accelerator": ref.get("accelerator"), "model": ref.get("model"),
                 "precision": ref.get("weight_precision")}
    return Space(tuple(accels), tuple(offered), precisions, reference, out)
