"""The bibliography, read once by pandoc (as the renderer reads it): its keys, or one error per bad file."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError, CitationError, RenderError, read_text
from .pandoc import Pandoc


@dataclass
class Bibliography:
    keys: set[str] = field(default_factory=set)
    errors: list[BuildError] = field(default_factory=list)


def citeproc_args(files: list[Path], csl: Path | None) -> tuple[str, ...]:
    """pandoc's arguments that format a chapter's citations: citeproc with the book's bibliographies and
    its citation style (the profile's ``csl:``, as Quarto passes it), the same for every format."""
    args = ["--citeproc"]
    for b in files:
        args += ["--bibliography", str(b)]
    if csl is not None:
        args += ["--csl", str(csl)]
    return tuple(args)


def read(pandoc: Pandoc, root: Path, files: list[Path]) -> Bibliography:
    """Every entry of ``files`` (relative to ``root``), parsed by pandoc into CSL JSON (cached by content);
    a malformed file is one error naming it and the line pandoc reports."""
    out = Bibliography()
    for b in files:
        rel = Path(b).as_posix()
        text = read_text(Path(root) / b, rel)
        fmt = "bibtex" if Path(b).suffix == ".bibtex" else "biblatex"
        try:
            entries = json.loads(pandoc.run(["-f", fmt, "-t", "csljson"], text, rel) or "[]")
        except RenderError as e:
            m = re.search(r"line (\d+)", e.message)
            detail = re.sub(r"^pandoc .*? failed: ", "", e.message)
            out.errors.append(CitationError(rel, int(m.group(1)) if m else None,
                                            f"the bibliography does not parse: {detail}"))
            continue
        out.keys.update(str(e["id"]) for e in entries if isinstance(e, dict) and "id" in e)
    return out
