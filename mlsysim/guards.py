"""``check``: the GUARD step of a LEGO cell. A failing guard stops the build with the guard's own text.

With ``MLSYSIM_GUARDS=record`` in the environment (what ``bookbuild diff`` and the per-hardware
variants of a chapter set), ``check`` records every guard it evaluates in :data:`RECORD` instead of
raising, so a chapter computed for other inputs still yields all its values and says which of its
claims no longer hold. The book's own build never sets it.
"""
import os
import sys

from .errors import MlsysimError


class GuardError(MlsysimError, AssertionError):
    """A claim the prose makes about the numbers no longer holds. The message is what the book shows."""


#: guards evaluated in record mode: {"file", "line", "passed", "message"}
RECORD: list[dict] = []


def check(condition, message: str, *, zh: str | None = None) -> None:
    """Raise :class:`GuardError` with ``message`` unless ``condition`` holds.

    ``zh``: the same claim in Chinese, for a reader of the Chinese book whose chosen hardware breaks it
    (the book's own build fails in English, as before)."""
    if os.environ.get("MLSYSIM_GUARDS") == "record":
        frame = sys._getframe(1)
        RECORD.append({"file": frame.f_code.co_filename, "line": frame.f_lineno,
                       "passed": bool(condition), "message": str(message), "zh": zh or ""})
        return
    if not condition:
        raise GuardError(message)
