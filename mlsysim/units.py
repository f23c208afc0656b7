"""One pint unit registry for the whole book, and the names the chapters use.

Information has its own dimension ``[information]`` (pint's default treats it as dimensionless).
Decimal and binary prefixes stay distinct: ``GB`` is 10**9 bytes, ``GiB`` is 2**30 bytes.
Arithmetic work has its own dimension, ``[computation]``, so a rate in flop/s can never be
confused with a bandwidth in byte/s.
"""
from __future__ import annotations

from pathlib import Path

import pint

from .cachedirs import pint_cache_folder

_DEFINITIONS = Path(__file__).parent / "data" / "units.txt"


def _registry(cache_folder) -> pint.UnitRegistry:
    """pint's default definitions, then ours, then the dimension cache: one pass.

    pint's disk cache (in ``cache_folder``; None: none) is used only for parsing the definition files,
    keyed by their content; the registry's dimension cache is always built here, in-process, after
    every definition is in, so an empty, warm or disabled cache gives the same registry.
    """
    reg = pint.UnitRegistry(None, cache_folder=cache_folder, on_redefinition="ignore")
    reg.load_definitions(Path(pint.__file__).parent / "default_en.txt")
    reg.load_definitions(_DEFINITIONS)
    reg._build_cache()  # noqa: SLF001 - pint builds it once in __init__; ours must come after our file
    reg._on_redefinition = "raise"  # noqa: SLF001 - later code may not redefine a unit silently
    _remember_parsed_units(reg)
    return reg


def _remember_parsed_units(reg: pint.UnitRegistry) -> None:
    """Parse each unit text once: pint keeps the parse of a plain unit name ("byte") but re-parses a
    compound one ("flop / second", "TB/s") on every ``q.to("...")`` and ``Q_(x, "...")``, most of the time
    a computed chapter spends in pint. The result is pint's immutable UnitsContainer; it is kept in pint's
    own cache object (a rebuilt cache starts empty), never while a context is active, and a text that fails
    to parse is not kept (it raises each time, as before)."""
    parse = getattr(reg, "_parse_units_as_container", None)
    if parse is None or not hasattr(reg, "_active_ctx") or not hasattr(reg, "_cache"):
        return   # another pint: its own parsing, unchanged

    def parse_once(input_string, as_delta=True, case_sensitive=True):
        if reg._active_ctx.contexts:  # noqa: SLF001 - a context may change what a name means
            return parse(input_string, as_delta, case_sensitive)
        kept = reg._cache.__dict__.setdefault("mlsysim_parsed_units", {})  # noqa: SLF001
        key = (input_string, as_delta, case_sensitive)
        if key not in kept:
            kept[key] = parse(input_string, as_delta, case_sensitive)
        return kept[key]
    reg._parse_units_as_container = parse_once  # noqa: SLF001


def _build_registry() -> tuple[pint.UnitRegistry, Path | None]:
    """The registry and the folder of pint's disk cache it used: a writable one
    (:func:`mlsysim.cachedirs.pint_cache_folder`: the user cache folder, else a private temp folder) or
    None (``MLSYSIM_UNIT_CACHE=off``, nothing writable, or a cache that failed while in use: a full disk,
    a truncated file; it is dropped, never fatal)."""
    folder = pint_cache_folder()
    if folder is not None:
        try:
            return _registry(folder), folder
        except Exception:  # noqa: BLE001 - an unusable cache; a real definition error recurs uncached below
            pass
    return _registry(None), None


ureg, UNIT_CACHE_FOLDER = _build_registry()
Q_ = ureg.Quantity

byte = ureg.byte
KB, MB, GB, TB = ureg.kilobyte, ureg.megabyte, ureg.gigabyte, ureg.terabyte
KiB, MiB, GiB, TiB = ureg.kibibyte, ureg.mebibyte, ureg.gibibyte, ureg.tebibyte
flop = ureg.flop
second = ureg.second
ms = ureg.millisecond
us = ureg.microsecond
count = ureg.count
TFLOPs = 1e12 * flop / second

BYTES_FP64 = Q_(8, "byte")
BYTES_FP32 = Q_(4, "byte")
BYTES_TF32 = Q_(4, "byte")
BYTES_FP16 = Q_(2, "byte")
BYTES_BF16 = Q_(2, "byte")
BYTES_FP8 = Q_(1, "byte")
BYTES_INT8 = Q_(1, "byte")
BYTES_FP4 = Q_(0.5, "byte")
BYTES_INT4 = Q_(0.5, "byte")

#: bytes per element of every precision name the registry accepts
PRECISION_BYTES = {
    "fp64": BYTES_FP64, "fp32": BYTES_FP32, "tf32": BYTES_TF32, "fp16": BYTES_FP16, "bf16": BYTES_BF16,
    "fp8": BYTES_FP8, "int8": BYTES_INT8, "fp4": BYTES_FP4, "int4": BYTES_INT4,
}

__all__ = [
    "ureg", "Q_", "byte", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "flop", "second",
    "ms", "us", "count", "TFLOPs", "BYTES_FP64", "BYTES_FP32", "BYTES_TF32", "BYTES_FP16", "BYTES_BF16",
    "BYTES_FP8", "BYTES_INT8", "BYTES_FP4", "BYTES_INT4", "PRECISION_BYTES",
]
