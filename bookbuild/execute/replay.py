"""A prose edit, executed without running a cell: :class:`Replay`.

When a chapter's cells are exactly those of a run already recorded (the same code and ``#|`` options,
at the same lines of the same files, under the same front matter) and only the prose between them
changed, the cells would print the same outputs and every inline read (``ServingRef.ratio_str``) would
give the value it gave between the same cells. :class:`Replay` walks the edited document exactly as
:meth:`Runner.chapter` does, but takes each cell's output lines and each inline value from the
recording (:attr:`ExecutedChapter.replay`): the executed chapter is the one a run would give, in
milliseconds. An inline expression the recording does not hold (a new one, one placed between other
cells, one that is not a plain read) raises :class:`NotReplayable`, and the chapter runs.

:func:`cells_signature` is what the recording must match: the caller puts it in the key the recording
is found by.
"""
from __future__ import annotations

import contextlib
import json

from ..source import Cell, Document, Origin
from .runner import CellInfo, ExecutedChapter, Hooks, RunOptions, Runner


class NotReplayable(Exception):
    """The recording does not hold what the edited document needs: run the chapter."""


def cells_signature(doc: Document) -> bytes:
    """What a recording must share with ``doc`` to be replayed: its path, front matter (execute
    options, title) and every cell with its place, code and options."""
    cells = [[c.head.file, c.head.line, c.body.file, c.body.line, c.code, c.options] for c in doc.cells]
    return json.dumps([doc.path, doc.front_matter, cells], sort_keys=True, default=str).encode("utf-8")


def _is_value(v) -> bool:
    return (isinstance(v, list) and len(v) == 3 and isinstance(v[0], str) and type(v[1]) is int
            and isinstance(v[2], str))


class Replay(Runner):
    """:meth:`chapter` of an edited ``doc`` from ``recorded``, a run of a document with the same
    :func:`cells_signature`; nothing runs, nothing is imported, no file is written."""

    def __init__(self, doc: Document, opts: RunOptions, hooks: Hooks | None, recorded: ExecutedChapter):
        super().__init__(doc, opts, hooks)
        rec = recorded.replay if isinstance(recorded.replay, dict) else {}
        blocks, values = rec.get("blocks"), rec.get("values")
        if not (isinstance(blocks, list) and len(blocks) == len(doc.cells)
                and all(isinstance(b, list) and all(isinstance(t, str) for t in b) for b in blocks)
                and isinstance(values, list) and all(_is_value(v) for v in values)):
            raise NotReplayable("the recording holds no cell outputs of this shape")
        self.recorded = recorded
        self.known = {(e, n): v for e, n, v in values}

    def _sandbox(self):
        return contextlib.nullcontext()

    def _cell_lines(self, cell: Cell) -> list[str]:
        self.cells.append(CellInfo(cell.label, cell.head.file, cell.head.line, cell.options))
        lines = list(self.recorded.replay["blocks"][len(self.cells) - 1])
        self.blocks.append(lines)
        return lines

    def _inline_value(self, expr: str, origin: Origin) -> str:
        try:
            return self.known[(expr, len(self.cells))]
        except KeyError:
            raise NotReplayable(f"{expr} at {origin.file}:{origin.line}") from None

    def _executed(self, out) -> ExecutedChapter:
        self.sink.written = list(self.recorded.figures)
        ec = super()._executed(out)
        ec.extras = self.recorded.extras
        return ec
