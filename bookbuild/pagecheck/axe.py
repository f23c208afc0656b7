"""axe-core, vendored from npm (``vendor/``, see vendor/README.md): the accessibility rules the check runs."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
AXE_VERSION = "4.14.1"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"


@lru_cache(maxsize=1)
def axe_source() -> str:
    """The vendored axe.min.js, verified against the pinned version and digest."""
    data = AXE.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != AXE_SHA256 or f"axe v{AXE_VERSION}".encode() not in data[:200]:
        raise RuntimeError(f"{AXE} is not axe-core {AXE_VERSION} (sha256 {digest}); see vendor/README.md")
    return data.decode("utf-8")
