"""mlsysim: a small typed model of LLM serving that computes every number the book quotes.

``from mlsysim import *`` gives the registry (``Hardware``, ``Models``, ``Systems``), the units,
the physics functions, and ``fmt``/``fmt_int``/``fmt_memory_capacity``/``check``.
"""
from .errors import ContextWindowError, MlsysimError, RegistryError, UnitMismatchError, UnknownEntryError, UnknownPrecisionError
from .fmt import (Fmt, FormatPrecisionError, ReferenceFmt, fmt, fmt_binary_capacity, fmt_int, fmt_memory_capacity,
                  fmt_words, reference_only)
from .guards import GuardError, check, pin, pin_seed
from .physics import *  # noqa: F401,F403
from .physics import __all__ as _physics_all
try:
    from .registry import Hardware, Models, Systems, load_registry
    from .scenario import Scenario, lecture_scenario, reference_scenario   # reads and checks reference.toml
except RegistryError as _exc:
    # The registry loads (and validates its data) at import. Run as a command (``python -m mlsysim``,
    # whose package import happens while sys.argv[0] is still "-m", or the ``mlsysim`` script), a bad
    # data file is one line and exit status 2, never a traceback; imported as a library, it raises.
    import os as _os
    import sys as _sys
    if _sys.argv[:1] == ["-m"] or _os.path.basename(_sys.argv[0] if _sys.argv else "") == "mlsysim":
        _sys.stderr.write(f"mlsysim: error: {_exc}\n")
        raise SystemExit(2) from None
    # a script or ``python -c "import mlsysim"`` that does not catch it: the one line, not a traceback
    # (a notebook prints the same line through RegistryError._render_traceback_)
    if not getattr(_sys.excepthook, "mlsysim_one_line", False):
        from .errors import one_line_excepthook as _hook
        _sys.excepthook = _hook(_sys.excepthook)
    raise _exc.with_traceback(None) from None
from .units import *  # noqa: F401,F403
from .units import __all__ as _units_all

__version__ = "0.1.0"

__all__ = [
    "Hardware", "Models", "Systems", "load_registry", "check", "pin", "pin_seed", "GuardError", "Scenario", "reference_scenario",
    "lecture_scenario", "fmt", "fmt_int", "fmt_memory_capacity", "fmt_words", "Fmt", "FormatPrecisionError",
    "ReferenceFmt", "reference_only", "fmt_binary_capacity",
    "ContextWindowError", "MlsysimError", "RegistryError", "UnitMismatchError", "UnknownEntryError", "UnknownPrecisionError",
    *_units_all, *_physics_all,
]
