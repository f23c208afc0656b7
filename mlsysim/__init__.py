"""mlsysim: a small typed model of LLM serving that computes every number the book quotes.

``from mlsysim import *`` gives the registry (``Hardware``, ``Models``, ``Systems``), the units,
the physics functions, and ``fmt``/``fmt_int``/``fmt_memory_capacity``/``check``.
"""
from .errors import MlsysimError, RegistryError, UnitMismatchError, UnknownEntryError, UnknownPrecisionError
from .fmt import Fmt, FormatPrecisionError, fmt, fmt_int, fmt_memory_capacity, fmt_words
from .guards import GuardError, check
from .physics import *  # noqa: F401,F403
from .physics import __all__ as _physics_all
from .registry import Hardware, Models, Systems, load_registry
from .units import *  # noqa: F401,F403
from .units import __all__ as _units_all

__version__ = "0.1.0"

__all__ = [
    "Hardware", "Models", "Systems", "load_registry", "check", "GuardError",
    "fmt", "fmt_int", "fmt_memory_capacity", "fmt_words", "Fmt", "FormatPrecisionError",
    "MlsysimError", "RegistryError", "UnitMismatchError", "UnknownEntryError", "UnknownPrecisionError",
    *_units_all, *_physics_all,
]
