"""Writable folders for the caches mlsysim and its libraries keep, whatever the environment.

A sandboxed CI may give a read-only or missing HOME (or one that is a file), no XDG_CACHE_HOME or an
unwritable one. Nothing here raises: each function tries its candidate folders in order, keeps the first
one a file can really be written into (probed, not judged from file modes, which root ignores), and
otherwise returns None, which means "no disk cache".

- :func:`pint_cache_folder` — where :mod:`mlsysim.units` lets pint keep its parsed definitions.
- :func:`use_writable_mplconfigdir` — call it before importing matplotlib; it sets ``MPLCONFIGDIR`` only
  where matplotlib's own folders cannot be written.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterable

#: ``MLSYSIM_UNIT_CACHE=off`` turns pint's disk cache off
UNIT_CACHE_ENV = "MLSYSIM_UNIT_CACHE"


def is_writable(folder: Path) -> bool:
    """``folder`` is absolute, exists or can be made, and a file can be created in it."""
    try:
        folder = Path(folder)
        if not folder.is_absolute():  # a relative HOME or XDG folder would land in the working directory
            return False
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
        return True
    except (OSError, ValueError):  # ValueError: a NUL byte in the path
        return False


def first_writable(candidates: Iterable[Path | None]) -> Path | None:
    """The first of ``candidates`` (None entries skipped) that :func:`is_writable`."""
    return next((Path(c) for c in candidates if c is not None and is_writable(Path(c))), None)


def private_temp_folder(name: str) -> Path | None:
    """``<temp>/mlsysim-<user id>/<name>``, in a folder only this user can write (pint's cache is a
    pickle, so a folder another user could fill is refused); None if there is none."""
    try:
        base = Path(tempfile.gettempdir()) / f"mlsysim-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
        base.mkdir(mode=0o700, exist_ok=True)
        st = base.lstat()
    except (OSError, ValueError):  # gettempdir raises FileNotFoundError when no temp folder is usable
        return None
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    if not stat.S_ISDIR(st.st_mode) or not mine or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return first_writable([base / name])


def _home_folder(default: str, xdg: str = "") -> Path | None:
    """``$<xdg>`` if set (and absolute), else ``~/<default>``; None when neither is known."""
    value = os.environ.get(xdg, "").strip() if xdg else ""
    if value and os.path.isabs(value):
        return Path(value)
    home = os.path.expanduser("~")
    return Path(home) / default if os.path.isabs(home) else None


def pint_cache_folder() -> Path | None:
    """Where pint may keep its parsed unit definitions: pint's own default (the user cache folder,
    ``$XDG_CACHE_HOME/pint`` or ``~/.cache/pint`` on Linux), else a private temp folder; None when
    ``MLSYSIM_UNIT_CACHE=off`` or nothing is writable."""
    if os.environ.get(UNIT_CACHE_ENV) == "off":
        return None
    try:
        import platformdirs  # pint's own dependency; pint's ":auto:" folder is this one
        default = platformdirs.user_cache_path(appname="pint", appauthor=False)
    except Exception:  # noqa: BLE001 - no HOME, no password entry, no platformdirs: no default folder
        default = None
    return first_writable([default]) or private_temp_folder("pint")


def matplotlib_folders() -> tuple[Path | None, Path | None]:
    """The config and cache folders matplotlib uses when ``MPLCONFIGDIR`` is not set, found as matplotlib
    finds them: ``$XDG_CONFIG_HOME/matplotlib`` and ``$XDG_CACHE_HOME/matplotlib`` (``~/.config``,
    ``~/.cache`` by default) on Linux and FreeBSD, ``~/.matplotlib`` for both elsewhere."""
    if not sys.platform.startswith(("linux", "freebsd")):
        home = _home_folder(".matplotlib")
        return home, home
    config, cache = _home_folder(".config", "XDG_CONFIG_HOME"), _home_folder(".cache", "XDG_CACHE_HOME")
    return (config / "matplotlib" if config else None), (cache / "matplotlib" if cache else None)


def use_writable_mplconfigdir(fallbacks: Iterable[Path] = ()) -> Path | None:
    """Make matplotlib's config and font-cache folder writable; call before importing matplotlib.

    Keeps ``MPLCONFIGDIR`` when it is set and writable, and matplotlib's own folders when it is unset and
    they are writable; otherwise sets ``MPLCONFIGDIR`` to the first writable of ``fallbacks`` (e.g. a
    project-local ``_build/cache/matplotlib``) or a private temp folder. Returns the folder matplotlib
    will use; None when nothing is writable (matplotlib then makes a temporary folder itself, warning).
    It only helps before this process first imports matplotlib (which reads the folder once, at import);
    processes started or forked later inherit the setting.
    """
    current = os.environ.get("MPLCONFIGDIR")
    if current and is_writable(Path(current)):
        return Path(current)
    if not current:
        config, cache = matplotlib_folders()
        if config and cache and is_writable(config) and is_writable(cache):
            return config
    chosen = first_writable(fallbacks) or private_temp_folder("matplotlib")
    if chosen is not None:
        os.environ["MPLCONFIGDIR"] = str(chosen)
    return chosen
