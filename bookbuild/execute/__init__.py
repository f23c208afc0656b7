"""Execute chapters with the semantics of Quarto's Jupyter engine (:mod:`.runner`).

- :func:`execute_chapter`: parse and run one chapter in this process (tests, notebooks);
- :func:`chapter_job`: the function a pool job runs in a chapter's own process: the executed chapter
  and the project files its code read (for the cache);
- :func:`to_json` / :func:`from_json`: an executed chapter as plain JSON data (the cache stores it so);
- :class:`Replay`: a chapter whose prose alone changed, assembled from a recorded run (:mod:`.replay`).
"""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from ..project import merged_metadata
from ..source import Document, InlineUse, Origin, parse
from .audit import input_digests, inputs_changed, record_inputs, record_reads
from .limits import CellTimeout, arm, bounded_process, disarm
from .replay import NotReplayable, Replay, cells_signature
from .runner import CellInfo, ExecutedChapter, Hooks, RunOptions, Runner

__all__ = ["input_digests", "inputs_changed", "CellInfo", "CellTimeout", "ExecutedChapter", "Hooks", "NotReplayable", "Replay", "RunOptions",
           "Runner", "arm", "bounded_process", "cells_signature", "disarm", "chapter_job", "execute_chapter", "from_json", "to_json"]


def execute_chapter(path: str | Path, root: str | Path, fig_dir: str | Path, *, md_dir: str | Path | None = None,
                    execute_options: dict[str, Any] | None = None, profile: str | None = None,
                    cell_timeout: float = 0, output_cap: int = 0, hooks: Hooks | None = None) -> ExecutedChapter:
    """Parse and execute one chapter in this process. ``fig_dir``: where figure files go; ``md_dir``:
    where the executed markdown will be written (figure links are relative to it; default: root);
    ``execute_options``: the project's ``execute:`` options (the front matter overrides them)."""
    root = Path(root).resolve()
    doc = parse(path, root)
    if execute_options is None:   # the project's own, as Quarto reads them from _quarto.yml
        ex = merged_metadata(root, None).get("execute") if (root / "_quarto.yml").is_file() else None
        execute_options = ex if isinstance(ex, dict) else {}
    opts = RunOptions(root=root, fig_dir=Path(fig_dir), md_dir=Path(md_dir) if md_dir else root,
                      execute=dict(execute_options), profile=profile, cell_timeout=cell_timeout,
                      output_cap=output_cap)
    return Runner(doc, opts, hooks).chapter()


def chapter_job(doc: Document, opts: RunOptions, make_hooks: Callable[[], Hooks], skip: list[Path],
                covered: list[Path] = (), *, progress: Callable[[Any], None]
                ) -> tuple[ExecutedChapter, list[str], dict[str, list[str]]]:
    """Run in a chapter's own process: execute ``doc`` and report which project files its code read
    (``skip``: folders not to record, such as the build's own) and its other inputs (files outside the
    project, folders listed, variables read; ``covered``: what the environment digest covers).
    Progress is each cell's (file, line, tag)."""
    reads = record_reads(opts.root, skip)
    inputs = record_inputs(opts.root, skip, list(covered))
    opts.on_cell = lambda file, line, tag: progress((file, line, tag))
    runner = Runner(doc, opts, make_hooks())
    with bounded_process(opts.output_cap, opts.memory_limit) as raw:
        ec = runner.chapter()
    if raw is not None and raw.over:   # after the last cell, by a process a cell left running
        raise runner.left_running_error()
    return ec, sorted(reads), inputs.as_lists()


def to_json(ec: ExecutedChapter, relative_to: Path) -> dict[str, Any]:
    d = asdict(ec)
    d["source"] = ec.source.as_posix()
    d["figures"] = [Path(f).relative_to(relative_to).as_posix() for f in ec.figures]
    d["line_map"] = [[o.file, o.line] for o in ec.line_map]
    d["inline"] = [[u.expr, u.file, u.line, u.value] for u in ec.inline]
    return d


def from_json(d: dict[str, Any], relative_to: Path) -> ExecutedChapter:
    return ExecutedChapter(
        source=Path(d["source"]), markdown=d["markdown"], front_matter=d["front_matter"], title=d["title"],
        line_map=[Origin(f, n) for f, n in d["line_map"]], inline=[InlineUse(*u) for u in d["inline"]],
        figures=[Path(relative_to) / f for f in d["figures"]], files=list(d["files"]),
        cells=[CellInfo(**c) for c in d["cells"]], extras=d.get("extras") or {}, replay=d.get("replay") or {})
