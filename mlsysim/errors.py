"""The errors mlsysim raises. Each message names the entry and field, and what to change."""


class MlsysimError(Exception):
    """Base class of every error this package raises on purpose."""


class RegistryError(MlsysimError, ValueError):
    """A registry data file is malformed: wrong unit, missing field, unknown precision, duplicate name."""


class UnknownEntryError(MlsysimError, KeyError):
    """A name that is not in the registry; the message lists the names that are."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


class UnknownPrecisionError(MlsysimError, KeyError):
    """A precision the accelerator does not publish (e.g. fp8 on A100, int4 on H100)."""

    def __str__(self) -> str:
        return self.args[0]


class UnitMismatchError(MlsysimError, TypeError):
    """A physics function received a quantity of the wrong dimension (or a bare number)."""


class ContextWindowError(MlsysimError, ValueError):
    """A context longer than the model's published context window."""
