"""What a layer above the engine adds to an HTML book (the engine's include-after-body): per page, files
to write beside it and scripts to load at the end of its body; shared assets; messages. The renderer
applies it to our pages (:mod:`bookbuild.render.html`); the book's own layer fills it
(:mod:`bookbuild.book.reader`), and the Quarto post-render step applies the same to Quarto's pages.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class PageAddition:
    """What a page gains: files beside it (book-relative path -> text), style sheets for its head and
    scripts to load (book-relative path, with ``charset="utf-8"``), in order, at the end of the body,
    what the rendered page must hold for them to work (marks: text the book's layer looks for in the page),
    and what its scripts need of the page's Content-Security-Policy beyond the book's own folder (policy:
    directive -> source expressions, each in :data:`POLICY_SOURCES`)."""
    files: dict[str, str] = field(default_factory=dict)
    scripts: list[tuple[str, bool]] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    marks: list[str] = field(default_factory=list)
    policy: dict[str, list[str]] = field(default_factory=dict)


#: what a layer may add to a page's policy: compiling WebAssembly (never 'unsafe-eval', 'unsafe-inline',
#: another host or a scheme): the policy stays the book's own folder only
POLICY_SOURCES = {"script-src": ("'wasm-unsafe-eval'",)}


def check_policy(policy: dict[str, list[str]]) -> None:
    """Refuse a policy addition that would widen the page's Content-Security-Policy beyond :data:`POLICY_SOURCES`."""
    for directive, sources in policy.items():
        bad = [s for s in sources if s not in POLICY_SOURCES.get(directive, ())]
        if bad:
            raise ValueError(f"a page's Content-Security-Policy may gain only {POLICY_SOURCES}, not {directive} {bad}")


@dataclass
class Additions:
    pages: dict[str, PageAddition] = field(default_factory=dict)
    assets: dict[str, Path] = field(default_factory=dict)      # book-relative path -> file to copy
    messages: list[Any] = field(default_factory=list)
    #: the inline scripts the layer vouches for ('sha256-…' sources): its library's, which a cell's output
    #: carries (the explorer). A page's policy hashes these and the engine's own, no other: a script that
    #: reached a page from the prose or a cell's printed output is inert
    own_scripts: list[str] = field(default_factory=list)

    FILE = "book-layer.json"

    def write(self, folder: Path) -> None:
        """Into an executed profile's folder: ``book-layer.json`` and the page files under ``layer/``."""
        pages = {}
        for page, add in sorted(self.pages.items()):
            for rel, text in add.files.items():
                p = folder / "layer" / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text, encoding="utf-8", newline="\n")
            check_policy(add.policy)
            pages[page] = {"files": sorted(add.files), "scripts": [list(s) for s in add.scripts], "styles": add.styles,
                           "marks": add.marks, "policy": {k: list(v) for k, v in sorted(add.policy.items())}}
        data = {"pages": pages, "assets": {k: str(v) for k, v in sorted(self.assets.items())},
                "own_scripts": sorted(set(self.own_scripts))}
        (folder / self.FILE).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> "Additions":
        """What :meth:`write` wrote (an empty output when the folder has none)."""
        f = folder / cls.FILE
        if not f.is_file():
            return cls()
        data = json.loads(f.read_text(encoding="utf-8"))
        out = cls(assets={k: Path(v) for k, v in data.get("assets", {}).items()},
                  own_scripts=[str(h) for h in data.get("own_scripts", [])])
        for page, add in data.get("pages", {}).items():
            out.pages[page] = PageAddition(
                files={rel: (folder / "layer" / rel).read_text(encoding="utf-8") for rel in add["files"]},
                scripts=[(s, bool(c)) for s, c in add["scripts"]], styles=list(add.get("styles", [])),
                marks=list(add.get("marks", [])), policy={k: list(v) for k, v in add.get("policy", {}).items()})
            check_policy(out.pages[page].policy)
        return out
