"""One build at a time in a project folder: a second one waits for the first (``_build/.lock``).

The lock is an ``flock`` on an open file, so it never outlives its holder: the kernel releases it when
the process ends, however it ends.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path

from .errors import BuildError


@contextlib.contextmanager
def build_lock(root: Path, quiet: bool = False):
    d = Path(root) / "_build"
    try:
        d.mkdir(parents=True, exist_ok=True)
        fh = open(d / ".lock", "a+")
    except OSError as e:
        raise BuildError(str(d), None, f"cannot create the build folder: {e.strerror}") from None
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            other = fh.read().strip() or "?"
            if not quiet:
                print(f"bookbuild: another build is running in this folder (pid {other}); waiting for it",
                      file=sys.stderr)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        yield
    finally:
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()
