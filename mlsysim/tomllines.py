"""Where an entry or a field of a registry file is written: its line, for the one-line messages.

``tomllib`` keeps no positions, so the line is found in the text the way an author reads it: the entry's
``[header]`` (``[H100]``, ``[nodes.DGX_H100]``, a quoted ``["name"]``), then, up to the next header, the
key that is the longest written prefix of the field (``memory.capacity = {...}`` for
``memory.capacity.value``; a ``[H100.memory]`` sub-table with ``capacity = ...`` counts as well). The
``n``-th item of an array (``conflicts[2]``) is the ``n``-th inline table written below the array's key. A
field not written (a missing one) is placed at its entry's header; an entry not written as a header (a
field above the first header, an inline table) has no line, and the message goes without one.
"""
from __future__ import annotations

import re
import tomllib

__all__ = ["toml_line"]

_HEADER = re.compile(r"^\s*\[(?!\[)\s*(.+?)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r"^\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*=")
_PART = re.compile(r"[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'")
_ITEM = re.compile(r"^([^\[\]]+)\[(\d+)\]$")


def _unquoted(part: str) -> str:
    """A bare key as written; a quoted one as TOML reads it (``"TPU\\nv5p"`` has a line break)."""
    if part[:1] not in "\"'":
        return part
    try:
        return tomllib.loads(f"k = {part}")["k"]
    except tomllib.TOMLDecodeError:
        return part[1:-1]


def _parts(key: str) -> tuple[str, ...]:
    """``memory . "capacity"`` -> ("memory", "capacity")."""
    return tuple(_unquoted(p) for p in _PART.findall(key))


def _field_parts(fld: str) -> list[tuple[str, int | None]]:
    """``conflicts[2].field`` -> [("conflicts", 2), ("field", None)] (an index counted from one)."""
    out = []
    for part in fld.split(".") if fld else []:
        m = _ITEM.match(part)
        out.append((m.group(1), int(m.group(2))) if m else (part, None))
    return out


def toml_line(text: str | None, entry: str | None, fld: str = "") -> int | None:
    """The 1-based line where ``fld`` of ``[entry]`` is written in ``text``; its header's line when the
    field is not written; None when the entry has no header (or there is no text)."""
    if not text or not entry:
        return None
    lines = text.splitlines()
    want = tuple(entry.split("."))
    headers = [(i, _parts(m.group(1))) for i, line in enumerate(lines) if (m := _HEADER.match(line))]
    start = next((i for i, name in headers if name == want),   # [B] itself, or its first sub-table [B.memory]
                 next((i for i, name in headers if name[:len(want)] == want), None))
    if start is None:
        return None
    path = _field_parts(fld)
    names = tuple(p for p, _ in path)
    best, best_len, best_index = start, 0, None
    # the entry's own section, and its sub-tables ([H100.memory]) with the prefix their header gives
    sections = [(i, name[len(want):]) for i, name in headers if name[:len(want)] == want]
    bounds = [i for i, _ in headers] + [len(lines)]
    for head, prefix in sections:
        if prefix and prefix == names[:len(prefix)] and len(prefix) > best_len:
            best, best_len, best_index = head, len(prefix), path[len(prefix) - 1][1]
        end = next(b for b in bounds if b > head)
        for i in range(head + 1, end):
            m = _KEY.match(lines[i])
            if not m:
                continue
            key = prefix + _parts(m.group(1))
            if key == names[:len(key)] and len(key) > best_len:
                best, best_len, best_index = i, len(key), path[len(key) - 1][1]
    if best_index:   # the n-th inline table below the array's key
        items = [i for i in range(best, next(b for b in bounds if b > best))
                 if lines[i].lstrip().startswith("{") or (i == best and "{" in lines[i].partition("=")[2])]
        if len(items) >= best_index:
            best = items[best_index - 1]
    return best + 1
