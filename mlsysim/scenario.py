"""The appendix's reference hardware, or the reader's choice of it.

The appendix's cells LOAD the accelerator, model, node and weight precision from
:func:`reference_scenario` instead of naming registry entries themselves. By default that is the
book's reference, :data:`REFERENCE` (``data/reference.toml``: an H100 in a DGX H100 serving
Llama-3.1-70B with 8-bit weights). Code that computes a chapter for another choice says so
explicitly::

    with mlsysim.scenario.use({"accelerator": "B200", "model": "Llama3_3_70B"}):
        ...   # the cells' reference_scenario() is that choice here

Where the chosen accelerator publishes no 8-bit rate, the nearest precision it does publish is used
(same bytes per value first, then the nearest wider one), and :attr:`Scenario.precision_note` says so.
:func:`reference` is always the book's reference, whatever is in use: values that describe the
reference itself (how the chapters word it) are computed from it.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from .errors import RegistryError, UnknownEntryError
from .registry import DATA_DIR, SCHEMAS, Accelerator, Hardware, Model, Models, Node, Systems, read_checked
from .units import PRECISION_BYTES

def _load_reference() -> Mapping[str, str]:
    """``reference.toml`` of the registry's data folder, checked like every registry file; its names must
    be registry entries and its precision one the registry knows (a RegistryError naming the field)."""
    data = read_checked("reference.toml", SCHEMAS["reference"])
    where = f"{DATA_DIR / 'reference.toml'}"
    for field, table in (("accelerator", Hardware.Cloud), ("model", Models.Language)):
        if data[field] not in table.names():
            raise RegistryError(f"{where}: {field}: {data[field]!r} is not in the registry "
                                f"(known: {', '.join(table.names())})")
    if data["weight_precision"] not in PRECISION_BYTES:
        raise RegistryError(f"{where}: weight_precision: unknown precision {data['weight_precision']!r}; "
                            f"use one of {', '.join(PRECISION_BYTES)}")
    return MappingProxyType({"accelerator": data["accelerator"], "model": data["model"],
                             "precision": data["weight_precision"]})


#: the book's reference choice (``data/reference.toml``): accelerator, model and weight precision
REFERENCE = _load_reference()
#: when a precision is not published and none of the same width is: try these, nearest first
FALLBACK_ORDER = ("fp8", "int8", "bf16", "fp16", "fp4", "tf32", "fp32", "fp64")
#: the keys a choice may name
CHOICE_KEYS = ("accelerator", "model", "precision")


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


def node_for(accel: Accelerator) -> Node | None:
    """The first registry node built from ``accel`` (DGX H100 for H100), or None."""
    return next((n for n in Systems.Nodes if n.accelerator.name == accel.name), None)


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


@lru_cache(maxsize=1)
def reference() -> Scenario:
    """The book's reference scenario, whatever choice is in use."""
    return scenario()


_ACTIVE: ContextVar[Scenario | None] = ContextVar("mlsysim_scenario", default=None)


def from_choice(choice: Mapping[str, str] | Scenario | None) -> Scenario:
    """A scenario from a choice ``{"accelerator": ..., "model": ..., "precision": ...}`` (any key may be left out)."""
    if choice is None:
        return reference()
    if isinstance(choice, Scenario):
        return choice
    unknown = sorted(set(choice) - set(CHOICE_KEYS))
    if unknown:
        raise UnknownEntryError(f"a choice names {', '.join(unknown)}; it may name {', '.join(CHOICE_KEYS)}")
    return scenario(choice.get("accelerator"), choice.get("model"), choice.get("precision"))


@contextmanager
def use(choice: Mapping[str, str] | Scenario | None):
    """Compute for ``choice`` inside the ``with`` block: :func:`reference_scenario` returns it there."""
    token = _ACTIVE.set(from_choice(choice))
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)


def reference_scenario() -> Scenario:
    """The scenario the appendix is computed for: the choice in :func:`use`, else the reference."""
    return _ACTIVE.get() or reference()
