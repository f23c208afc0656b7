"""Errors of the book build.

Every book error is a :class:`BuildError` and prints as ONE line::

    path:line: [cell label] message

``path`` is relative to the project root (the file the problem physically
lives in, e.g. an included cell file), ``line`` is 1-based.  The label part is
left out when there is no cell involved.
"""
from __future__ import annotations

from pathlib import Path


def raised_at(exc: BaseException) -> str | None:
    """``file:line`` of the innermost frame ``exc`` passed through (where a bug of ours was raised), or None."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else None


class BuildError(Exception):
    """A book error: one precise, one-line message, never a traceback."""

    kind = "error"

    def __init__(self, path: str | Path | None, line: int | None, message: str,
                 label: str | None = None):
        self.path = "" if path is None else Path(path).as_posix()
        self.line = line
        self.message = " ".join(str(message).split())  # always one line
        self.label = label
        super().__init__(self.format())

    def format(self) -> str:
        where = self.path or "<book>"
        if self.line:
            where += f":{self.line}"
        label = f" [{self.label}]" if self.label else ""
        return f"{where}:{label} {self.message}"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.format()

    def __reduce__(self):  # errors travel from a chapter's process to the build
        return (self.__class__, (self.path or None, self.line, self.message, self.label))


class ConfigError(BuildError):
    """_quarto*.yml is missing, malformed, or names a missing chapter."""
    kind = "config"


class IncludeError(BuildError):
    """``{{< include >}}`` names a file that does not exist (or includes itself)."""
    kind = "include"


class CellError(BuildError):
    """A python chunk raised (or does not compile)."""
    kind = "cell"


class GuardFailure(CellError):
    """A ``check()`` guard in a cell failed."""
    kind = "guard"


class InlineError(BuildError):
    """An inline ```{python} expr``` did not evaluate."""
    kind = "inline"


class XrefError(BuildError):
    """A cross-reference does not resolve, or a label is defined twice."""
    kind = "xref"


class RenderError(BuildError):
    """The renderer could not turn executed markdown into HTML or PDF."""
    kind = "render"


class CitationError(BuildError):
    """A citation key is missing from the bibliography."""
    kind = "citation"


class LintError(BuildError):
    """The source breaks a book rule (typed number, non-attribute inline, ...)."""
    kind = "lint"


class UnusedStrError(LintError):
    """A cell class defines a ``*_str`` that no chapter quotes."""
    kind = "unused-str"


class BuildFailed(Exception):
    """Several verification failures, each a BuildError (one line each)."""

    def __init__(self, errors: list[BuildError]):
        self.errors = list(errors)
        super().__init__("\n".join(e.format() for e in self.errors))

    def __reduce__(self):
        return (self.__class__, (self.errors,))


class SourceDecodeError(BuildError):
    """A text file of the book is not valid UTF-8 (or not valid YAML/TOML)."""
    kind = "decode"


def read_text(path: str | Path, rel: str | Path | None = None) -> str:
    """The UTF-8 text of a book file; a file that is not UTF-8 is ONE line naming it and where.

    ``rel``: how to name the file in the message (default: ``path``)."""
    path = Path(path)
    name = rel if rel is not None else path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BuildError(name, None, "file does not exist") from None
    except IsADirectoryError:
        raise BuildError(name, None, "is a folder, not a file") from None
    except PermissionError:
        raise BuildError(name, None, "cannot be read (permission denied)") from None
    return book_text(decode_utf8(data, name), name)


def decode_utf8(data: bytes, name: str | Path, fix: str = "re-save the file as UTF-8") -> str:
    """``data`` as UTF-8; bytes that are not are ONE line naming the file, the line and column (``fix``: what
    to do)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise SourceDecodeError(name, line, f"is not valid UTF-8: byte 0x{data[e.start]:02X} at column "
                                            f"{col}; {fix}") from None


def book_text(text: str, name: str | Path) -> str:
    """A book file's text as Quarto (pandoc) reads it: a byte-order mark dropped, CRLF line endings read
    as LF (a lone CR dropped); a NUL character (which pandoc turns into U+FFFD and typst refuses) is ONE line naming it."""
    if "\0" in text:
        at = text.index("\0")
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        raise SourceDecodeError(name, line, f"holds a NUL character at column {col}: remove it (a text editor "
                                            "shows it as ^@ or \\0)")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:   # pandoc's reader drops every CR
        text = text.replace("\r\n", "\n").replace("\r", "")
    return text
