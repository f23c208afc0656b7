"""Every knob of a build, in one documented object.

A value comes from the command line, else from one of the few environment variables kept for users
(:data:`ENVIRONMENT`, also listed in the README), else from the defaults below. Nothing else in
``bookbuild`` reads ``os.environ``; state travels between the build's rooms and processes as arguments
(a :class:`Settings`, a job's function and its arguments), never through the environment.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

#: the environment variables a user may set, and what each does
ENVIRONMENT = {
    "BOOKBUILD_CACHE": "off: build without the content cache, as --no-cache does",
    "BOOKBUILD_DEBUG": "1: an internal error prints its traceback",
    "PANDOC": "the pandoc binary to use (default: the one the pypandoc-binary package ships)",
    "BOOK_CJK_FONT_DIR": "the folder holding NotoSerifCJK-Regular.ttc and NotoSansCJK-Regular.ttc "
                         "(default: Debian's fonts-noto-cjk folders)",
}
#: variables that name a data folder a layer above reads (given by it: ``bookbuild.book.hooks.DATA_ENV``);
#: the cache keys cover the folder each names

#: generous: the book's slowest cell takes about a second
DEFAULT_CELL_TIMEOUT = 120.0
#: what one cell may print or display
DEFAULT_OUTPUT_CAP = 1_000_000
FORMATS = ("html", "pdf", "epub")
DEFAULT_FORMATS = ("html", "pdf")


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
    jobs: int = 0                       # processes at once; 0: one per core
    formats: tuple[str, ...] = DEFAULT_FORMATS
    output_dir: Path | None = None      # render: where the books go (default: each profile's output-dir)
    quiet: bool = False
    debug: bool = False                 # BOOKBUILD_DEBUG
    pandoc: str | None = None           # PANDOC
    cjk_font_dir: str | None = None     # BOOK_CJK_FONT_DIR
    data_dirs: tuple[str, ...] = ()     # the folders the data variables name (see make's data_env)

    @classmethod
    def make(cls, root: Path | str, env: Mapping[str, str] | None = None, data_env: tuple[str, ...] = (),
             **given) -> "Settings":
        """Settings for a build of ``root``: the arguments given, the user's environment, the defaults.
        ``data_env``: the variables that name data folders the chapters read (the cache keys cover them)."""
        env = os.environ if env is None else env
        s = cls(root=Path(root).resolve(), debug=debug_requested(env),
                pandoc=env.get("PANDOC") or None, cjk_font_dir=env.get("BOOK_CJK_FONT_DIR") or None,
                data_dirs=tuple(env[k] for k in data_env if env.get(k)),
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
        return self.root / "_build"

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
