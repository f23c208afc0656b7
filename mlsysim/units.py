"""One pint unit registry for the whole book, and the names the chapters use.

Information has its own dimension ``[information]`` (pint's default treats it as dimensionless).
Decimal and binary prefixes stay distinct: ``GB`` is 10**9 bytes, ``GiB`` is 2**30 bytes.
Arithmetic work has its own dimension, ``[computation]``, so a rate in flop/s can never be
confused with a bandwidth in byte/s.
"""
from __future__ import annotations

import warnings

import pint

# pint's default registry makes ``bit`` dimensionless, so a byte count would pass where a parameter
# count is meant. Information gets its own dimension here (pint warns about the redefinition).
ureg = pint.UnitRegistry(cache_folder=":auto:", on_redefinition="warn")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    ureg.define("bit = [information]")
ureg.define("flop = [computation] = FLOP")
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
