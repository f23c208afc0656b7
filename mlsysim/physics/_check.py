"""Dimension checks shared by the physics functions."""
from __future__ import annotations

from ..errors import UnitMismatchError
from ..units import Q_, ureg


def need(q, unit: str, name: str):
    """``q`` as a quantity convertible to ``unit``; a bare number or a wrong dimension raises."""
    if not hasattr(q, "units"):
        if unit in ("count", "") :
            return Q_(q, unit or "")
        raise UnitMismatchError(f"{name} must be a quantity in {unit} (got the bare number {q!r}); "
                                f"multiply it by its unit, e.g. 3.35 * TB / second")
    if q.dimensionality != ureg.Unit(unit).dimensionality:
        raise UnitMismatchError(f"{name} must convert to {unit}, got {q.units}")
    return q


def number(x, name: str) -> float:
    """A dimensionless magnitude (ints and counts pass through)."""
    if hasattr(x, "units"):
        if x.dimensionality != ureg.count.dimensionality:
            raise UnitMismatchError(f"{name} must be a pure number, got {x.units}")
        return float(x.to("count").magnitude)
    return float(x)
