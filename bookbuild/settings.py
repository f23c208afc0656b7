"""Every knob of a build, in one documented object.

A value comes from the command line, else from one of the few environment variables kept for users
(:data:`ENVIRONMENT`, also listed in the README), else from the defaults below. Nothing else in
``bookbuild`` reads ``os.environ``; state travels between the build's rooms and processes as arguments
(a :class:`Settings`, a job's function and its arguments), never through the environment.
"""
from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

from .layer import PLAIN, Layer

#: the environment variables a user may set, and what each does
ENVIRONMENT = {
    "BOOKBUILD_CACHE": "off: build without the content cache, as --no-cache does",
    "BOOKBUILD_DEBUG": "1: an internal error prints its traceback",
    "PANDOC": "the pandoc binary to use (default: the one the pypandoc-binary package ships)",
    "BOOK_CJK_FONT_DIR": "the folder holding NotoSerifCJK-Regular.ttc and NotoSansCJK-Regular.ttc "
                         "(default: Debian's fonts-noto-cjk folders)",
}
#: the variables that name a data folder a layer above reads are the layer's (``Layer.data_env``); the cache
#: keys cover the folder each names

#: generous: the book's slowest cell takes about a second
DEFAULT_CELL_TIMEOUT = 120.0
#: what one cell may print or display (and what a chapter's process may write to its descriptors 1 and 2)
DEFAULT_OUTPUT_CAP = 1_000_000
#: the address space of one chapter's process, in MB (``--memory-limit``): the book's chapters use about 0.4 GB
DEFAULT_MEMORY_LIMIT = 8192
MEMORY_RANGE = (256, 1 << 20)
FORMATS = ("html", "pdf", "epub")
DEFAULT_FORMATS = ("html", "pdf", "epub")


# ------------------------------------------------------------------ the command line

class Parser(argparse.ArgumentParser):
    """Every command's parser: a bad option is one line naming it, exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(str(message).split())}\n")


def project_root(given: Path | str) -> Path:
    """The project folder: ``given`` if it holds ``_quarto.yml``, else the nearest folder above it that does
    (so every command works from any folder inside the project)."""
    from .errors import BuildError
    p = Path(given).resolve()
    for d in [p, *p.parents]:
        if (d / "_quarto.yml").is_file():
            return d
    raise BuildError(str(given), None, "is not inside a book project (no _quarto.yml here or above): "
                                       "run from the project folder or pass --root PROJECT")


def root_option(ap: argparse.ArgumentParser, given: Path | str) -> Path:
    """``--root`` as the project folder (:func:`project_root`), or a usage error naming the option."""
    from .errors import BuildError
    try:
        return project_root(given)
    except BuildError as e:
        ap.error(f"argument --root: {Path(given).resolve()} {e.message}")


def check_profile(ap: argparse.ArgumentParser, root: Path, value: str | None, allow_all: bool = True) -> None:
    """``--profile`` names one of the project's profiles (or ``all``); else a usage error naming them."""
    from .project import profiles
    names = profiles(root)
    known = (["all"] if allow_all else []) + names
    if value is not None and value != "default" and names and value not in known:
        ap.error(f"argument --profile: unknown profile {value!r}; choose from {', '.join(known)}")


# ------------------------------------------------------------------ the command line's option types
# Each takes the option's text and returns its value, or raises ArgumentTypeError saying what range is
# accepted; argparse puts the option's name in front ("argument --port: expected ...").

#: the longest a cell may run (a day) and the preview's polling interval range, in seconds
MAX_SECONDS = 86_400.0
INTERVAL_RANGE = (0.05, 60.0)


def _number(text: str, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r} (not a finite number)")
    return v


def positive_seconds(text: str) -> float:
    v = _number(text, "a number of seconds")
    if not 0 < v <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0 and at most {MAX_SECONDS:.0f}, "
                                         f"got {text!r}")
    return v


def megabytes(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of megabytes, got {text!r}") from None
    lo, hi = MEMORY_RANGE
    if not lo <= v <= hi:
        raise argparse.ArgumentTypeError(f"expected {lo} to {hi} megabytes, got {text!r}")
    return v


def interval_seconds(text: str) -> float:
    lo, hi = INTERVAL_RANGE
    v = _number(text, "a number of seconds")
    if not lo <= v <= hi:
        raise argparse.ArgumentTypeError(f"expected {lo:g} to {hi:g} seconds, got {text!r}")
    return v


def _whole(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def jobs_count(text: str) -> int:
    v = _whole(text, "a whole number of processes")
    if not 0 <= v <= 256:
        raise argparse.ArgumentTypeError(f"expected 0 (one per core) to 256 processes, got {text!r}")
    return v


def port_number(text: str) -> int:
    v = _whole(text, "a port number")
    if not 0 <= v <= 65_535:
        raise argparse.ArgumentTypeError(f"expected a port from 1 to 65535 (0: any free port), got {text!r}")
    return v


def process_id(text: str) -> int:
    v = _whole(text, "a process id")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a process id above 0, got {text!r}")
    return v


def formats_list(text: str) -> tuple[str, ...]:
    got = tuple(f.strip() for f in text.split(",") if f.strip())
    bad = [f for f in got if f not in FORMATS]
    if not got or bad:
        raise argparse.ArgumentTypeError(f"takes {', '.join(FORMATS)} separated by commas, not {text!r}")
    return got


def _path(text: str, what: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a {what}, got an empty name")
    if any(ord(c) < 32 for c in text):
        raise argparse.ArgumentTypeError(f"expected a {what} name without control characters, got {text!r}")
    return Path(text)


def folder_path(text: str) -> Path:
    """A folder named on the command line (it need not exist yet): not empty, no control characters."""
    return _path(text, "folder")


def file_path(text: str) -> Path:
    """A file named on the command line: not empty, no control characters."""
    return _path(text, "file")


def existing_folder(text: str) -> Path:
    """A folder that must exist already (a book to read)."""
    p = folder_path(text)
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a folder" + (" (it is a file)" if p.exists() else ""))
    return p


def git_revision(text: str) -> str:
    """A git revision as ``diff`` takes it: not an option (``--output=...``), no control characters."""
    if not text or text.startswith("-") or any(ord(c) < 32 or c == "\x7f" for c in text):
        raise argparse.ArgumentTypeError(f"expected a git revision (a commit, branch or tag), got {text!r}")
    return text


def debug_requested(env: Mapping[str, str] | None = None) -> bool:
    """``BOOKBUILD_DEBUG``: an internal error prints its traceback."""
    return (os.environ if env is None else env).get("BOOKBUILD_DEBUG", "") not in ("", "0")


def quarto_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """What Quarto tells a ``project: post-render`` script: the active profile(s), the output folder and the
    files this render wrote (one per line, relative to the project; in the file that
    ``QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES`` names where the user asked for that)."""
    env = os.environ if env is None else env
    files = env.get("QUARTO_PROJECT_OUTPUT_FILES", "")
    listing = env.get("QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES", "")
    if listing and os.path.isfile(listing):
        with open(listing, encoding="utf-8") as fh:
            files = fh.read()
    return {"profile": env.get("QUARTO_PROFILE", ""), "output_dir": env.get("QUARTO_PROJECT_OUTPUT_DIR", ""),
            "output_files": files}


@dataclass(frozen=True)
class Settings:
    root: Path
    cache: bool = True                  # --no-cache / BOOKBUILD_CACHE=off
    cache_dir: Path | None = None       # default: <root>/_build/cache
    cell_timeout: float = DEFAULT_CELL_TIMEOUT
    output_cap: int = DEFAULT_OUTPUT_CAP
    memory_limit: int = DEFAULT_MEMORY_LIMIT   # MB of address space per chapter process (--memory-limit)
    jobs: int = 0                       # processes at once; 0: one per core
    formats: tuple[str, ...] = DEFAULT_FORMATS
    output_dir: Path | None = None      # render: where the books go (default: each profile's output-dir)
    quiet: bool = False
    debug: bool = False                 # BOOKBUILD_DEBUG
    pandoc: str | None = None           # PANDOC
    cjk_font_dir: str | None = None     # BOOK_CJK_FONT_DIR
    data_dirs: tuple[str, ...] = ()     # the folders the data variables name (the layer's data_env)
    stale_translations: str = "error"   # "warn": a stale translation is a note, not a failure (the preview)
    defer_layer: bool = False           # the preview's first build: the layer's slow part left for the next build
    layer: Layer = PLAIN                # what a layer above the engine adds (bookbuild.layer; PLAIN: a plain Quarto book)

    @classmethod
    def make(cls, root: Path | str, env: Mapping[str, str] | None = None, layer: Layer = PLAIN,
             **given) -> "Settings":
        """Settings for a build of ``root`` with ``layer``: the arguments given, the user's environment, the
        defaults. The data folders are those the layer's variables (``layer.data_env``) name."""
        env = os.environ if env is None else env
        s = cls(root=Path(root).resolve(), debug=debug_requested(env),
                pandoc=env.get("PANDOC") or None, cjk_font_dir=env.get("BOOK_CJK_FONT_DIR") or None,
                data_dirs=tuple(env[k] for k in layer.data_env if env.get(k)), layer=layer,
                cache=env.get("BOOKBUILD_CACHE", "").lower() not in ("off", "0", "no"))
        s = replace(s, **{k: v for k, v in given.items() if v is not None})
        s.validate()
        return s

    def validate(self) -> None:
        """Every value in range; a wrong one raises ValueError naming the option."""
        if not (math.isfinite(self.cell_timeout) and self.cell_timeout > 0):
            raise ValueError(f"--cell-timeout must be a positive number of seconds, got {self.cell_timeout}")
        if self.output_cap <= 0:
            raise ValueError(f"the output cap must be positive, got {self.output_cap}")
        if self.jobs < 0:
            raise ValueError(f"--jobs must be 0 (one per core) or more, got {self.jobs}")
        bad = [f for f in self.formats if f not in FORMATS]
        if not self.formats or bad:
            raise ValueError(f"--formats takes {', '.join(FORMATS)} (comma-separated), not {','.join(self.formats)}")

    @property
    def build_dir(self) -> Path:
        """``<root>/_build``, resolved: it may be a link to another disk (a scratch disk, a tmpfs)."""
        return (self.root / "_build").resolve()

    @property
    def cache_folder(self) -> Path | None:
        """Where the content cache lives, or None when the build runs without it."""
        if not self.cache:
            return None
        return self.cache_dir or self.build_dir / "cache"

    def executed_dir(self, profile: str, kind: str = "executed") -> Path:
        return self.build_dir / kind / profile

    @property
    def width(self) -> int:
        """How many processes run at once."""
        return self.jobs or os.cpu_count() or 1
