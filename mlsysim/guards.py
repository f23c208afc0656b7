"""``check``: the GUARD step of a LEGO cell. A failing guard stops the build with the guard's own text."""
from .errors import MlsysimError


class GuardError(MlsysimError, AssertionError):
    """A claim the prose makes about the numbers no longer holds. The message is what the book shows."""


def check(condition, message: str) -> None:
    """Raise :class:`GuardError` with ``message`` unless ``condition`` holds."""
    if not condition:
        raise GuardError(message)
