"""Formatting for the prose: every ``*_str`` a chapter quotes is made here, once.

``fmt``/``fmt_int`` return :class:`Fmt`, a ``str`` that renders as itself in Quarto (``_repr_markdown_``)
and in our own build. A display that hides the magnitude raises :class:`FormatPrecisionError`:
a nonzero value shown as zero, or a value whose shown digits are off by more than 5 %.

Memory capacities follow the JEDEC convention vendors use: an 80 GiB part is labelled "80 GB".
:func:`fmt_memory_capacity` prints that label only for a whole number of a binary unit, so a computed
size (which is never a whole number of GiB) cannot be mislabelled; print those with ``fmt`` in GB.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_UP, Decimal

from .errors import MlsysimError
from .units import GiB, KiB, MiB, TiB

#: the largest relative error a display may introduce
MAX_DISPLAY_ERROR = 0.05


class FormatPrecisionError(MlsysimError, ValueError):
    """The requested precision would hide the value's magnitude."""


class Fmt(str):
    """A formatted value: a ``str`` that Quarto and the book build insert verbatim."""

    def _repr_markdown_(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return str(self)


def _magnitude(x) -> float:
    if hasattr(x, "units"):
        if not x.dimensionless:
            raise TypeError(f"fmt got a quantity in {x.units}; convert it first, e.g. q.to(GB).magnitude")
        x = x.to("").magnitude
    return float(x)


def _round(x: float, precision: int) -> Decimal:
    q = Decimal(1).scaleb(-precision)
    return Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP)


_ADAPTIVE: ContextVar[bool] = ContextVar("mlsysim_fmt_adaptive", default=False)


@contextmanager
def adaptive():
    """Inside the ``with`` block (a chapter computed for another choice), a precision that would hide the
    magnitude gains decimals instead of stopping the computation."""
    token = _ADAPTIVE.set(True)
    try:
        yield
    finally:
        _ADAPTIVE.reset(token)


def _adapting() -> bool:
    return _ADAPTIVE.get()


def fmt(x, precision: int = 1, *, commas: bool = True) -> Fmt:
    """``x`` with ``precision`` decimals and thousands separators: ``fmt(1978.9, 0) == "1,979"``."""
    v = _magnitude(x)
    if v != v or v in (float("inf"), float("-inf")):
        raise FormatPrecisionError(f"cannot format {v}")
    shown = _round(v, precision)
    if v != 0 and _adapting():
        # recomputed for other inputs (guards recorded, not raised): the author chose the precision
        # for the reference values; show as many more decimals as this value needs instead of failing
        while precision < 6 and (_round(v, precision) == 0
                                 or abs(float(_round(v, precision)) - v) / abs(v) > MAX_DISPLAY_ERROR):
            precision += 1
        shown = _round(v, precision)
    if v != 0:
        if shown == 0:
            raise FormatPrecisionError(f"{v!r} would print as {shown}; raise the precision above {precision}")
        err = abs(float(shown) - v) / abs(v)
        if err > MAX_DISPLAY_ERROR:
            raise FormatPrecisionError(f"{v!r} would print as {shown} ({err:.0%} off); raise the precision "
                                       f"above {precision}")
    if shown == 0:
        shown = abs(shown)  # no "-0.0"
    return Fmt(f"{shown:,.{precision}f}" if commas else f"{shown:.{precision}f}")


def fmt_int(x) -> Fmt:
    """``x`` rounded half up to an integer, with thousands separators: ``fmt_int(107_727.0) == "107,727"``."""
    return fmt(x, precision=0)


_BINARY = {GiB: "GB", MiB: "MB", KiB: "KB", TiB: "TB"}


def fmt_memory_capacity(q, unit=GiB) -> Fmt:
    """A memory part's capacity as vendors label it: 80 GiB prints as "80 GB" (JEDEC convention).

    Only a whole number of the binary ``unit`` is accepted; anything else raises, because a
    computed size labelled this way would be off by 7 %. Format computed sizes with ``fmt`` in GB.
    """
    label = _BINARY.get(unit)
    if label is None:
        raise ValueError(f"fmt_memory_capacity needs a binary unit (KiB, MiB, GiB, TiB), got {unit}")
    value = q.to(unit).magnitude
    whole = round(value)
    if whole <= 0 or abs(value - whole) > 1e-9 * max(1, whole):
        raise FormatPrecisionError(
            f"{q:~} is {value:.4f} {unit:~}, not a whole number of {unit:~}; it is not a memory part's capacity, "
            f"so it cannot take the vendor's '{label}' label. Use fmt(q.to(GB).magnitude) and write GB.")
    return Fmt(f"{whole:,} {label}")


_DECIMAL = {"kilobyte": "KB", "megabyte": "MB", "gigabyte": "GB", "terabyte": "TB"}


def fmt_capacity(q) -> Fmt:
    """A memory part's capacity as its vendor publishes it: a binary quantity (80 GiB) takes the
    vendor's label through :func:`fmt_memory_capacity` ("80 GB"); a decimal one (141 GB) prints as it
    is ("141 GB"). Anything else raises, as ``fmt_memory_capacity`` does."""
    unit = str(q.units)
    for u, label in _DECIMAL.items():
        if unit == u:
            return Fmt(f"{fmt(q.magnitude, precision=0 if float(q.magnitude).is_integer() else 1)} {label}")
    binary = {str(k): k for k in _BINARY}
    if unit in binary:
        return fmt_memory_capacity(q, unit=binary[unit])
    return fmt_memory_capacity(q)


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def fmt_words(n) -> Fmt:
    """A whole number from 0 to 99 in English words: ``fmt_words(29) == "twenty-nine"``. Inside
    :func:`adaptive` (a chapter recomputed for other inputs) a number outside 0..99, or one that words would
    round by more than 5 %, prints as digits."""
    v = _magnitude(n)
    i = int(_round(v, 0))
    off = v != i and abs(v - i) / max(abs(v), 1e-12) > MAX_DISPLAY_ERROR
    if (off or not 0 <= i <= 99) and _adapting():
        return fmt(v, 0)   # recomputed for other inputs: digits (with the decimals fmt needs) where words cannot say it
    if not 0 <= i <= 99:
        raise ValueError(f"fmt_words spells 0..99, got {v}")
    if off:
        raise FormatPrecisionError(f"{v!r} spelled as {i} would be {abs(v - i) / abs(v):.0%} off")
    if i < 20:
        return Fmt(_ONES[i])
    tens, ones = divmod(i, 10)
    return Fmt(_TENS[tens] + ("-" + _ONES[ones] if ones else ""))


__all__ = ["Fmt", "FormatPrecisionError", "fmt", "fmt_int", "fmt_memory_capacity", "fmt_words", "MAX_DISPLAY_ERROR"]
