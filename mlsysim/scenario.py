"""The appendix's reference hardware, or the reader's choice of it.

The appendix's cells LOAD the accelerator, model, node and weight precision from
:func:`reference_scenario` instead of naming registry entries themselves. By default that is the
book's reference (an H100 in a DGX H100 serving Llama-3.1-70B with 8-bit weights). A build that
computes the chapter for another choice sets ``MLSYSIM_SCENARIO`` to a JSON object such as
``{"accelerator": "B200", "model": "Llama3_3_70B"}``; the cells then compute every number for it.

Where the chosen accelerator publishes no 8-bit rate, the nearest precision it does publish is used
(same bytes per value first, then the nearest wider one), and :attr:`Scenario.precision_note` says so.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .errors import UnknownEntryError
from .reference import node_for
from .registry import Accelerator, Hardware, Model, Models, Node
from .units import PRECISION_BYTES

#: the book's reference choice
REFERENCE = {"accelerator": "H100", "model": "Llama3_1_70B", "precision": "fp8"}
#: the environment variable a build sets to compute a chapter for another choice
ENV = "MLSYSIM_SCENARIO"
#: when a precision is not published and none of the same width is: try these, nearest first
FALLBACK_ORDER = ("fp8", "int8", "bf16", "fp16", "fp4", "tf32", "fp32", "fp64")


@dataclass(frozen=True)
class Scenario:
    accelerator: Accelerator
    model: Model
    node: Node | None
    weight_precision: str
    wanted_precision: str

    @property
    def is_reference(self) -> bool:
        return (self.accelerator.name, self.model.name, self.weight_precision) == (
            REFERENCE["accelerator"], REFERENCE["model"], REFERENCE["precision"])

    @property
    def precision_note(self) -> str:
        if self.weight_precision == self.wanted_precision:
            return ""
        return (f"{self.accelerator.display_name} publishes no {self.wanted_precision} rate: "
                f"{self.weight_precision} is used")


def nearest_precision(accel: Accelerator, want: str) -> str:
    """``want`` if ``accel`` publishes it; else one of the same width; else the first of FALLBACK_ORDER."""
    have = accel.precisions
    if want in have:
        return want
    same = [p for p in have if PRECISION_BYTES[p] == PRECISION_BYTES.get(want)]
    if same:
        return same[0]
    return next((p for p in FALLBACK_ORDER if p in have), have[0])


def scenario(accelerator: str | None = None, model: str | None = None, precision: str | None = None) -> Scenario:
    """A scenario from registry names (the reference's where a name is not given)."""
    a = Hardware.Cloud.get(accelerator or REFERENCE["accelerator"])
    m = Models.Language.get(model or REFERENCE["model"])
    want = precision or REFERENCE["precision"]
    if want not in PRECISION_BYTES:
        raise UnknownEntryError(f"unknown precision {want!r}; available: {', '.join(PRECISION_BYTES)}")
    return Scenario(a, m, node_for(a), nearest_precision(a, want), want)


def reference_scenario() -> Scenario:
    """The scenario the appendix is computed for: ``MLSYSIM_SCENARIO`` if set, else the reference."""
    raw = os.environ.get(ENV)
    if not raw:
        return scenario()
    try:
        choice = json.loads(raw)
    except json.JSONDecodeError as e:
        raise UnknownEntryError(f"{ENV} is not a JSON object: {e}") from None
    if not isinstance(choice, dict):
        raise UnknownEntryError(f"{ENV} must be a JSON object such as {{\"accelerator\": \"B200\"}}")
    return scenario(choice.get("accelerator"), choice.get("model"), choice.get("precision"))
