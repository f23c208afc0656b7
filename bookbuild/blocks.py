"""A chapter's markdown as blocks: the one reading of where each line belongs, which every splitter uses.

:func:`scan` reads the lines once: the front matter, the fences (:func:`bookbuild.text.find_fences`, after the
front matter, as the parse reads them), the lines inside an HTML comment that spans lines, the depth of the
``:::`` divs, and the blocks, runs of lines between blank lines with a fence kept whole (the front matter is
the first block). What each consumer makes of them is its own rule, stated beside it:

- :func:`bookbuild.pieces.pieces` cuts a chapter where a top-level block must end (a block at depth 0, not in
  a comment, whose first line cannot continue the block above: :func:`continues`);
- :func:`bookbuild.book.translation.prose_blocks` hashes the prose a translation follows (front matter and
  executable chunks left out);
- :func:`bookbuild.prose_patch.changed_paragraphs` widens an edit to whole plain paragraphs
  (:func:`structural` lines refused).

Everything here is a pure function of the lines.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .text import Fence, find_fences, front_matter_end

#: the first characters of a line that may continue the block before the blank line above it
CONTINUES = re.compile(r"[ \t\-+*:|<>\[=]|\(?[A-Za-z0-9#]{1,9}[.)](?:[ \t]|$)")
#: a line that may open or belong to anything but a plain paragraph (pandoc markdown)
STRUCTURE = re.compile(r"^(?: {4}|\t|#|:::|```|~~~|\||\+[-=]|[-*+](?:\s|$)|\d+[.)](?:\s|$)|>|<|\$\$|:|\[\^|"
                       r"\[[^\]]*\]:|Table:|!\[|[-=]{3,}\s*$|\\\[)")
#: a div's fence: ``::: {.callout-note}`` opens (something follows the colons), ``:::`` closes
DIV_FENCE = re.compile(r"^(:{3,})[ \t]*(\S.*)?$")


def continues(line: str) -> bool:
    """Whether ``line``, after a blank line, may still belong to the block above it (an indented line, a list
    item, a table row, a definition, a caption, raw HTML)."""
    return bool(CONTINUES.match(line))


def structural(line: str) -> bool:
    """Whether ``line`` may open or belong to anything but a plain paragraph."""
    return bool(STRUCTURE.match(line))


def div_opens(line: str) -> bool:
    """Whether ``line`` opens a div (``::: {.x}``, ``::: name``), not only closes one."""
    m = DIV_FENCE.match(line)
    return bool(m and m.group(2))


@dataclass(frozen=True)
class Block:
    """Lines ``start`` to ``end`` (0-based, both included), at div depth ``depth`` where they start."""
    start: int
    end: int
    depth: int


@dataclass(frozen=True)
class Scanned:
    """What :func:`scan` read of a chapter's lines."""
    lines: tuple[str, ...]
    front_end: int                  # the front matter's closing line, or -1
    fences: tuple[Fence, ...]       # after the front matter
    fenced: frozenset[int]          # lines after a fence's opening line, to its closing line
    commented: frozenset[int]       # lines after the one that opens an HTML comment, to the one that closes it
    balanced: bool                  # no div closed that was not open
    blocks: tuple[Block, ...]


def _commented(lines: list[str], skip: set[int]) -> frozenset[int]:
    """Lines inside an HTML comment that spans lines (one opened outside ``skip``, the fenced lines and the
    front matter)."""
    inside, out = False, set()
    for i, ln in enumerate(lines):
        if inside:
            out.add(i)
            inside = "-->" not in ln
        elif i not in skip and "<!--" in ln and "-->" not in ln.split("<!--", 1)[1]:
            inside = True
    return frozenset(out)


def scan(lines: list[str]) -> Scanned:
    """The blocks of markdown ``lines`` and what each line belongs to (see the module)."""
    fm = front_matter_end(lines)
    fences = tuple(f for f in find_fences(lines) if f.start > fm)
    fenced = frozenset(i for f in fences for i in range(f.start + 1, f.end + 1))
    ends = {f.start: f.end for f in fences}
    commented = _commented(lines, set(fenced) | set(range(fm + 1)))
    blocks: list[Block] = [Block(0, fm, 0)] if fm >= 0 else []
    depth, at, balanced, start, i, n = 0, 0, True, None, fm + 1, len(lines)
    while i < n:
        ln = lines[i]
        if not ln.strip() and i not in fenced:
            if start is not None:
                blocks.append(Block(start, i - 1, at))
                start = None
            i += 1
            continue
        if start is None:
            start, at = i, depth
        if i in ends:                       # a fence is one piece of its block, blank lines and all
            i = ends[i] + 1
            continue
        m = DIV_FENCE.match(ln)
        if m and i not in commented:
            depth += 1 if m.group(2) else -1
            balanced = balanced and depth >= 0
        i += 1
    if start is not None:
        blocks.append(Block(start, n - 1, at))
    return Scanned(tuple(lines), fm, fences, fenced, commented, balanced, tuple(blocks))
