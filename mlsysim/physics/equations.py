"""The equation a physics function computes, declared once next to the function.

``@equation(formula, name_en=..., name_zh=..., unit=..., ref=...)`` sets ``fn.equation`` to a frozen
:class:`Equation` and returns ``fn`` itself: no wrapper, so the signature, ``inspect``, pickling and
the function's behaviour are unchanged. Whatever shows a function's equation (the book's hover
explanations, ``python -m mlsysim calibrate``) reads this record; nothing parses docstrings.

The rule: every public function of :mod:`mlsysim.physics` carries a record. ``formula`` is the
relation it computes, in the Unicode math the docstrings write ("t_decode ≥ N b / β"), or a product
or quotient when the result has no symbol of its own ("N · b"); it is ``None`` only for a function
that decides rather than computes (a policy that returns a choice), whose record still names it.
``name_en`` and ``name_zh`` name the result; the Chinese uses the terms of ``notes/glossary.toml``.
``unit`` is the result's unit as text ("s", "flop/byte", "B"; ``None`` for a pure number). ``ref`` is
the label of the book's equation (``eq-appdx-shuttle-floor``) when the book prints that equation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)


@dataclass(frozen=True)
class Equation:
    """What a physics function computes: its formula, the result's names and unit, the book's label."""

    formula: str | None
    name_en: str
    name_zh: str
    unit: str | None = None
    ref: str | None = None

    def __post_init__(self) -> None:
        if self.formula is not None and not self.formula.strip():
            raise ValueError("formula must be None or non-empty text")
        if not self.name_en.strip() or not self.name_zh.strip():
            raise ValueError("an equation needs a name in English and in Chinese")
        if self.ref is not None and not self.ref.startswith("eq-"):
            raise ValueError(f"ref must be an equation label eq-..., got {self.ref!r}")


def equation(formula: str | None, *, name_en: str, name_zh: str, unit: str | None = None,
             ref: str | None = None) -> Callable[[F], F]:
    """Attach ``Equation(formula, name_en, name_zh, unit, ref)`` to a function as ``fn.equation``."""
    record = Equation(formula, name_en, name_zh, unit, ref)

    def attach(fn: F) -> F:
        fn.equation = record  # type: ignore[attr-defined]
        return fn

    return attach


__all__ = ["Equation", "equation"]
