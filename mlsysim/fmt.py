"""Formatting for the prose: every ``*_str`` a chapter quotes is made here, once.

``fmt``/``fmt_int`` return :class:`Fmt`, a ``str`` that renders as itself in Quarto (``_repr_markdown_``)
and in our own build. A display that hides the magnitude raises :class:`FormatPrecisionError`:
a nonzero value shown as zero, or a value whose shown digits are off by more than 5 %.

Memory capacities follow the JEDEC convention vendors use: an 80 GiB part is labelled "80 GB".
The registry stores every accelerator's memory in binary units (the vendor's "GB" read as GiB), and
:func:`fmt_binary_capacity` prints it with the unit the book computes with ("80 GiB");
:func:`fmt_memory_capacity` prints the vendor's label ("80 GB") only for a whole number of a binary
unit, so a computed size (which is never a whole number of GiB) cannot be mislabelled; print those
with ``fmt`` in GB.

**Reference-only values.** A cell computes for :func:`mlsysim.reference_scenario`, which is the reader's
choice while the HTML book's per-choice variants run. A value that *describes the reference* (how the
chapters word it, "a 70-billion-parameter model") or *quotes a figure from elsewhere* (another lecture,
a paper, the course's answer key) must not follow that choice. Such a value is computed from
:func:`mlsysim.scenario.reference` (never from the active scenario) and declared in the cell's OUTPUT
block with :func:`reference_only`: a :class:`ReferenceFmt`, which renders as plain text everywhere
and tells the variants engine never to swap it (and to refuse one that differs across choices).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_UP, Decimal, localcontext

from .errors import MlsysimError
from .units import GiB, KiB, MiB, TiB

#: the largest relative error a display may introduce
MAX_DISPLAY_ERROR = 0.05


class FormatPrecisionError(MlsysimError, ValueError):
    """The requested precision would hide the value's magnitude."""


class Fmt(str):
    """A formatted value: a ``str`` that Quarto and the book build insert verbatim."""

    #: True only for :class:`ReferenceFmt`: the value describes the reference and never follows a choice
    reference_only = False

    def _repr_markdown_(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)


class ReferenceFmt(Fmt):
    """A formatted value that describes the book's reference (or quotes a figure from elsewhere): it
    renders as plain text like any :class:`Fmt`, keeps its class through ``pickle``/``copy``, and the
    variants engine never swaps it for a reader's choice."""

    reference_only = True

    def __reduce__(self):
        return (ReferenceFmt, (str.__str__(self),))


def reference_only(value) -> ReferenceFmt:
    """Declare ``value`` (a formatted string, usually ``fmt(...)``/``fmt_int(...)`` of a quantity computed
    from :func:`mlsysim.scenario.reference`) as describing the reference: ``x_str = reference_only(fmt_int(n))``.
    Refuses anything that is not already a string, so a raw number cannot skip formatting."""
    if not isinstance(value, str):
        raise TypeError(f"reference_only takes a formatted string (fmt/fmt_int/...), got {type(value).__name__}")
    return ReferenceFmt(str.__str__(value))


def is_reference_only(value) -> bool:
    """True for a value declared with :func:`reference_only`."""
    return bool(getattr(value, "reference_only", False))


def same_kind(template, text: str) -> Fmt:
    """``text`` as the same kind of formatted value as ``template`` (a capitalised or reworded
    reference-only value stays reference-only)."""
    return ReferenceFmt(text) if is_reference_only(template) else Fmt(text)


def _magnitude(x) -> float:
    if hasattr(x, "units"):
        if not x.dimensionless:
            raise TypeError(f"fmt got a quantity in {x.units}; convert it first, e.g. q.to(GB).magnitude")
        x = x.to("").magnitude
    return float(x)


#: significant digits a float is read to before rounding: the noise of binary arithmetic (82.49999999999999
#: for π b / 2β = 82.5 computed as t_decode / t_prefill) is not a digit, so every path rounds a value alike
SIGNIFICANT = 13


def _round(x: float, precision: int) -> Decimal:
    """``x`` rounded half up to ``precision`` decimals, read to :data:`SIGNIFICANT` digits first; any finite
    magnitude (the decimal context is as wide as the number needs)."""
    d = Decimal(f"{x:.{SIGNIFICANT}g}")
    with localcontext() as ctx:
        ctx.prec = max(28, d.adjusted() + precision + 3)
        return d.quantize(Decimal(1).scaleb(-precision), rounding=ROUND_HALF_UP)


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
        while precision < 24 and (_round(v, precision) == 0
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


def fmt_binary_capacity(q, unit=GiB) -> Fmt:
    """A memory part's capacity in the binary unit the book computes with: 80 GiB prints as "80 GiB".
    Only a whole number of ``unit`` is accepted (the registry stores every accelerator memory that way)."""
    label = {GiB: "GiB", MiB: "MiB", KiB: "KiB", TiB: "TiB"}.get(unit)
    if label is None:
        raise ValueError(f"fmt_binary_capacity needs a binary unit (KiB, MiB, GiB, TiB), got {unit}")
    value = q.to(unit).magnitude
    whole = round(value)
    if whole <= 0 or abs(value - whole) > 1e-9 * max(1, whole):
        raise FormatPrecisionError(f"{q:~} is {value:.4f} {unit:~}, not a whole number of {unit:~}")
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


__all__ = ["Fmt", "ReferenceFmt", "FormatPrecisionError", "fmt", "fmt_int", "fmt_memory_capacity",
           "fmt_binary_capacity", "fmt_words", "reference_only", "is_reference_only", "same_kind", "MAX_DISPLAY_ERROR"]
