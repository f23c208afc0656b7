"""A problem the reader's-eye check found: one line naming the page (or file), the choice, the width and
theme, and what is wrong."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    where: str                    # the page or file, relative to the book folder
    what: str
    width: int | None = None      # viewport width in CSS px
    theme: str | None = None      # light | dark | no-js
    choice: str | None = None     # the reader's choice "ACCELERATOR|MODEL"

    def format(self) -> str:
        ctx = []
        if self.width:
            ctx.append(f"{self.width}px")
        if self.theme:
            ctx.append(self.theme)
        if self.choice:
            ctx.append(f"choice {self.choice}")
        head = self.where + (f" [{' '.join(ctx)}]" if ctx else "")
        return f"{head}: {' '.join(self.what.split())}"

    def __str__(self) -> str:
        return self.format()
