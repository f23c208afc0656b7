"""The serving physics. Plain functions of pint quantities; each docstring gives the book's equation,
and each function's ``equation`` attribute declares it (:mod:`mlsysim.physics.equations`).
"""
from . import agent, decode_loop, equations, kvcache, queueing, roofline, serving_floors  # noqa: F401 - the submodules, as attributes
from .agent import *  # noqa: F401,F403
from .decode_loop import *  # noqa: F401,F403
from .equations import Equation, equation  # noqa: F401  (not star-exported: a cell's own names stay its own)
from .kvcache import *  # noqa: F401,F403
from .queueing import *  # noqa: F401,F403
from .roofline import *  # noqa: F401,F403
from .serving_floors import *  # noqa: F401,F403

__all__ = [*roofline.__all__, *kvcache.__all__, *decode_loop.__all__, *queueing.__all__, *agent.__all__,
           *serving_floors.__all__]
