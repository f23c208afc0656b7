"""The serving physics. Plain functions of pint quantities; each docstring gives the book's equation."""
from . import agent, decode_loop, kvcache, queueing, roofline, serving_floors
from .agent import *  # noqa: F401,F403
from .decode_loop import *  # noqa: F401,F403
from .kvcache import *  # noqa: F401,F403
from .queueing import *  # noqa: F401,F403
from .roofline import *  # noqa: F401,F403
from .serving_floors import *  # noqa: F401,F403

__all__ = [*roofline.__all__, *kvcache.__all__, *decode_loop.__all__, *queueing.__all__, *agent.__all__,
           *serving_floors.__all__]
