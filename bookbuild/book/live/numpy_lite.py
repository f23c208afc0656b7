"""The few numpy functions the figure descriptions (``mlsysim.figures``) use, in pure Python, for the
reader's browser only: Pyodide's npm package ships no numpy, and PyPI has no WebAssembly wheel of it.

Live mode installs this module as ``numpy`` after ``mlsysim`` (and so pint, which must keep seeing no
numpy) has been imported; the build itself always runs the real numpy. What is here follows numpy's own
definitions (``linspace``'s step and exact end point, ``logspace`` as ``base ** linspace``, ``unique``
sorted) so that a figure drawn live plots the points the build's figure plots; anything the figure
code asks for that is not here raises ``AttributeError``, and the page then keeps that figure at the
reference and says so (``tests/test_live_runtime.py`` compares the live figures with the build's).
"""
from __future__ import annotations

import math
import operator

__version__ = "0+mlsysim.live"


class ndarray(list):
    """A one-dimensional float array: element-wise arithmetic with numbers and arrays of its length."""

    def _op(self, other, op):
        if isinstance(other, (list, tuple)):
            if len(other) != len(self):
                raise ValueError(f"operands could not be broadcast together with shapes ({len(self)},) ({len(other)},)")
            return ndarray(op(a, b) for a, b in zip(self, other))
        return ndarray(op(a, other) for a in self)

    def _rop(self, other, op):
        return ndarray(op(other, a) for a in self)

    def __add__(self, o): return self._op(o, operator.add)
    def __radd__(self, o): return self._rop(o, operator.add)
    def __sub__(self, o): return self._op(o, operator.sub)
    def __rsub__(self, o): return self._rop(o, operator.sub)
    def __mul__(self, o): return self._op(o, operator.mul)
    def __rmul__(self, o): return self._rop(o, operator.mul)
    def __truediv__(self, o): return self._op(o, operator.truediv)
    def __rtruediv__(self, o): return self._rop(o, operator.truediv)
    def __pow__(self, o): return self._op(o, operator.pow)
    def __rpow__(self, o): return self._rop(o, operator.pow)
    def __neg__(self): return ndarray(-a for a in self)

    def min(self):
        return min(self)

    def max(self):
        return max(self)

    def tolist(self):
        return list(self)

    @property
    def size(self) -> int:
        return len(self)

    @property
    def shape(self) -> tuple:
        return (len(self),)


def _each(f, x):
    return ndarray(f(v) for v in x) if isinstance(x, (list, tuple)) else f(x)


def array(x, dtype=None) -> ndarray:
    return ndarray(float(v) for v in x) if dtype is float else ndarray(x)


def asarray(x, dtype=None) -> ndarray:
    return array(x, dtype)


def log10(x):
    return _each(math.log10, x)


def floor(x):
    return _each(lambda v: float(math.floor(v)), x)


def ceil(x):
    return _each(lambda v: float(math.ceil(v)), x)


def linspace(start, stop, num=50) -> ndarray:
    """numpy.linspace: ``start + i * step`` with step ``(stop - start) / (num - 1)``, the last point exactly ``stop``."""
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if num == 1:
        return ndarray([float(start)])
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    out = ndarray(i * step + start for i in range(num)) if step != 0 else ndarray(i / (num - 1) * (stop - start) + start
                                                                                     for i in range(num))
    if num > 1:
        out[-1] = float(stop)
    return out


def logspace(start, stop, num=50, base=10.0) -> ndarray:
    return ndarray(base ** v for v in linspace(start, stop, num))


def unique(x) -> ndarray:
    return ndarray(sorted(set(x)))


def concatenate(parts) -> ndarray:
    return ndarray(v for p in parts for v in p)


def full_like(a, fill_value) -> ndarray:
    return ndarray([float(fill_value)] * len(a))
