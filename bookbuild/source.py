"""A chapter, parsed once: the :class:`Document` every later step reads.

:func:`parse` reads a ``.qmd`` and everything it includes (``{{< include >}}``, recursively, relative to
the including file, as Quarto does) and gives, with the origin (file and line) of every line:

- the front matter (YAML) and where it ends;
- the fenced blocks, and among them the executable ``{python}`` cells with their ``#|`` options;
- the inline expressions ```{python} expr``` of the prose;
- the headings and the labels the source defines.

Nothing else in bookbuild reads a chapter's text: the executor, the cache key, the lint, the
translation drift guard and the preview's file watcher all take it from here (``Document.files``
holds each file's text and digest). An include that names a file outside the project (after
resolving symlinks), a missing file or a cycle is one :class:`~bookbuild.errors.IncludeError`.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from .errors import BuildError, CellError, IncludeError, read_text
from .text import INLINE_CODE, INLINE_PY, Fence, code_free, find_fences, front_matter_end

INCLUDE_RE = re.compile(
    r"^[ \t]*\{\{<\s*include\s+(?P<p>\"[^\"]+\"|'[^']+'|[^\s>]+)\s*>\}\}[ \t]*$")
HEADING = re.compile(r"^(?P<h>#{1,6})[ \t]+(?P<t>.*?)[ \t]*$")
ATTR_TAIL = re.compile(r"[ \t]*\{(?P<a>[^{}]*)\}[ \t]*$")
ID_IN_ATTR = re.compile(r"(?:^|\s)#(?P<id>[A-Za-z][\w:.-]*\w|[A-Za-z])")
CLASS_IN_ATTR = re.compile(r"(?:^|\s)(?:\.(?P<c>[\w-]+)|(?P<dash>-)(?=\s|$))")
#: the YAML a front matter or a cell's options may hold: no aliases (a "billion laughs" file is refused)
MAX_YAML = 200_000
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Origin:
    file: str   # relative to the project root (posix)
    line: int   # 1-based


@dataclass(frozen=True)
class SourceFile:
    """One file a chapter is made of: its text and the digest of its bytes."""
    rel: str
    text: str
    digest: str


@dataclass(frozen=True)
class InlineUse:
    """An inline expression of the prose (``value`` is filled in by execution)."""
    expr: str
    file: str
    line: int
    value: str = ""


@dataclass
class Cell:
    """An executable ``{python}`` chunk: its fence, its code lines (options included) and options."""
    number: int                    # 1-based among the chapter's python cells
    fence: Fence                   # indices into Document.lines
    head: Origin                   # the opening fence line
    body: Origin                   # the first code line (the fence's next line when the cell is empty)
    code: list[str]
    options: dict[str, Any]

    @property
    def label(self) -> str | None:
        lab = self.options.get("label")
        return str(lab) if lab else None

    @property
    def tag(self) -> str:
        """How messages name the cell: its label, else its number."""
        return self.label or f"cell {self.number}"

    @property
    def source(self) -> str:
        """The code, padded with blank lines so that line numbers are those of the file it lives in."""
        return "\n" * (self.body.line - 1) + "\n".join(self.code) + "\n"


@dataclass(frozen=True)
class Heading:
    index: int         # 0-based line index in Document.lines
    level: int
    text: str
    id: str | None
    classes: tuple[str, ...]

    @property
    def unnumbered(self) -> bool:
        return "unnumbered" in self.classes or "-" in self.classes


@dataclass
class Document:
    """A chapter with its includes expanded, every line with its origin."""
    path: str                                   # the chapter, relative to the root
    lines: list[str]
    origins: list[Origin]
    files: dict[str, SourceFile]                # the chapter first, then each included file, in order
    front_matter: dict[str, Any] = field(default_factory=dict)
    front_end: int = -1                         # index of the front matter's closing line, or -1
    fences: list[Fence] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)

    def origin(self, index: int) -> Origin:
        return self.origins[index]

    @property
    def text(self) -> str:
        """The chapter's own text as written (includes not expanded)."""
        return self.files[self.path].text

    @cached_property
    def code_lines(self) -> frozenset[int]:
        """Indices of lines that are front matter or inside a fenced block."""
        out = set(range(0, self.front_end + 1))
        for f in self.fences:
            out.update(range(f.start, f.end + 1))
        return frozenset(out)

    @cached_property
    def inline(self) -> list[InlineUse]:
        """The inline ``{python}`` expressions of the prose, in order."""
        out = []
        for i, (t, o) in enumerate(zip(self.lines, self.origins)):
            if i in self.code_lines or "{python}" not in t:
                continue
            for m in INLINE_CODE.finditer(t):
                pm = INLINE_PY.match(m.group(2).strip())
                if pm:
                    out.append(InlineUse(pm.group("expr"), o.file, o.line))
        return out

    @cached_property
    def headings(self) -> list[Heading]:
        return headings(self.lines)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def _read(path: Path, root: Path) -> SourceFile:
    rel = _rel(path, root)
    text = read_text(path, rel)
    return SourceFile(rel, text, hashlib.sha256(text.encode("utf-8")).hexdigest())


def _include_target(m: re.Match, here: Path, root: Path, rel: str, line: int, stack: tuple[Path, ...]) -> Path:
    target = m.group("p").strip("\"'")
    inc = (root / target.lstrip("/")) if target.startswith("/") else (here.parent / target)
    inc = inc.resolve()
    if not _inside(inc, root):
        raise IncludeError(rel, line, f"include {target} is outside the project ({inc}): a chapter may include "
                                      "only files of the book's own folder")
    if not inc.is_file():
        raise IncludeError(rel, line, f"include file not found: {target} (looked for {_rel(inc, root)})")
    if inc in stack or inc == here.resolve():
        raise IncludeError(rel, line, f"include cycle: {target} includes itself")
    return inc


def _expand(path: Path, root: Path, files: dict[str, SourceFile], stack: tuple[Path, ...] = ()
            ) -> list[tuple[str, Origin]]:
    src = _read(path, root)
    files.setdefault(src.rel, src)
    lines = src.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    in_fence: set[int] = set()
    for f in find_fences(lines):
        in_fence.update(range(f.start, f.end + 1))
    out: list[tuple[str, Origin]] = []
    for i, line in enumerate(lines):
        m = INCLUDE_RE.match(line) if i not in in_fence and "include" in line else None
        if not m:
            out.append((line, Origin(src.rel, i + 1)))
            continue
        inc = _include_target(m, path, root, src.rel, i + 1, stack)
        out.extend(_expand(inc, root, files, stack + (path.resolve(),)))
    return out


def safe_yaml(text: str, where: str, line: int | None = None) -> Any:
    """YAML as a book file may hold it: bounded in size, no aliases; an error is one BuildError."""
    if len(text) > MAX_YAML:
        raise BuildError(where, line, f"the YAML block is {len(text):,} characters, more than {MAX_YAML:,}")
    try:
        if "*" in text or "&" in text:   # only then can it hold an anchor or an alias
            for ev in yaml.parse(text, Loader=_LOADER):
                if isinstance(ev, yaml.AliasEvent):
                    raise BuildError(where, line, "YAML aliases (*name) are not accepted in a book file")
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = (line or 1) + mark.line if mark is not None else line
        raise BuildError(where, at, f"invalid YAML: {getattr(e, 'problem', None) or e}") from None


def parse_options(code: list[str], info: str, head: Origin) -> dict[str, Any]:
    """``#|`` options at the top of a chunk (YAML) merged over the header attributes (``{python echo=false}``)."""
    opts: dict[str, Any] = {}
    m = re.match(r"^\{\s*[A-Za-z0-9_-]+[\s,]*(?P<rest>[^}]*)\}$", info)
    if m and m.group("rest").strip():
        for k, v in re.findall(r"([\w.-]+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s,]+)", m.group("rest")):
            v = v.strip("\"'")
            opts[k.replace(".", "-")] = {"true": True, "false": False, "TRUE": True, "FALSE": False}.get(v, v)
    yaml_lines = []
    for ln in code:
        if not ln.startswith("#|"):
            break
        yaml_lines.append(ln[3:] if ln.startswith("#| ") else ln[2:])
    if yaml_lines:
        try:
            data = safe_yaml("\n".join(yaml_lines), head.file, head.line + 1) or {}
        except BuildError as e:
            raise CellError(head.file, head.line + 1, f"cannot read #| options: {e.message}") from None
        if not isinstance(data, dict):
            raise CellError(head.file, head.line + 1, "#| options must be 'key: value' lines")
        opts.update(data)
    return opts


def _cells(lines: list[str], origins: list[Origin], fences: list[Fence]) -> list[Cell]:
    cells = []
    for f in fences:
        if f.exec_lang != "python":
            continue
        body = list(range(f.start + 1, f.end if f.closed else f.end + 1))
        code = [lines[k] for k in body]
        head = origins[f.start]
        first = origins[body[0]] if body else Origin(head.file, head.line + 1)
        cells.append(Cell(len(cells) + 1, f, head, first, code, parse_options(code, f.info, head)))
    return cells


def _front_matter(lines: list[str], end: int, rel: str) -> dict[str, Any]:
    if end < 0:
        return {}
    try:
        data = safe_yaml("\n".join(lines[1:end]), rel, 2) or {}
    except BuildError as e:
        raise BuildError(rel, e.line, f"invalid YAML front matter: {e.message.removeprefix('invalid YAML: ')}") from None
    return data if isinstance(data, dict) else {}


def front_matter_of(text: str, where: str) -> dict[str, Any]:
    """The front matter of a chapter's text, read as :func:`parse` reads it (:func:`safe_yaml`: bounded, no
    aliases); invalid YAML is one BuildError naming ``where``."""
    lines = text.splitlines()
    return _front_matter(lines, front_matter_end(lines), where)


def parse(path: str | Path, root: str | Path) -> Document:
    """Parse the chapter ``path`` (absolute, or relative to ``root``) and everything it includes."""
    root = Path(root).resolve()
    p = Path(path)
    real = (p if p.is_absolute() else root / p).resolve()
    if not _inside(real, root):
        raise BuildError(str(path), None, "the chapter is outside the project folder")
    if not real.is_file():
        raise BuildError(_rel(real, root), None, "chapter file does not exist")
    # a chapter that is a link (to a file of the project) keeps the name the book lists it by, as Quarto does
    named = Path(os.path.normpath(p if p.is_absolute() else root / p))
    p = named if _inside(named, root) else real
    files: dict[str, SourceFile] = {}
    expanded = _expand(p, root, files)
    lines = [t for t, _ in expanded]
    origins = [o for _, o in expanded]
    return _document(_rel(p, root), lines, origins, files)


def parse_text(text: str, rel: str) -> Document:
    """A document from text alone (no includes expanded): the executed markdown of a chapter, a fixture."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    sf = SourceFile(rel, text, hashlib.sha256(text.encode("utf-8")).hexdigest())
    return _document(rel, lines, [Origin(rel, i + 1) for i in range(len(lines))], {rel: sf})


def _document(rel: str, lines: list[str], origins: list[Origin], files: dict[str, SourceFile]) -> Document:
    end = front_matter_end(lines)
    fences = [f for f in find_fences(lines) if f.start > end]
    return Document(rel, lines, origins, files, _front_matter(lines, end, rel), end, fences,
                    _cells(lines, origins, fences))


def _parse_attr(a: str) -> tuple[str | None, tuple[str, ...]]:
    m = ID_IN_ATTR.search(a)
    classes = tuple(c.group("c") or "-" for c in CLASS_IN_ATTR.finditer(a))
    return (m.group("id") if m else None), classes


def headings(lines: list[str]) -> list[Heading]:
    """The ATX headings of markdown lines (code, front matter and comments left out)."""
    out = []
    masked = code_free("\n".join(lines)).split("\n")
    for i, ln in enumerate(masked):
        m = HEADING.match(ln)
        if not m:
            continue
        text = lines[i][len(m.group("h")):].strip()
        text = re.sub(r"[ \t]+#+[ \t]*$", "", text) if not ATTR_TAIL.search(text) else text
        hid, classes = None, ()
        am = ATTR_TAIL.search(text)
        if am:
            hid, classes = _parse_attr(am.group("a"))
            text = text[: am.start()].rstrip()
        out.append(Heading(i, len(m.group("h")), text, hid, classes))
    return out


def chapter_title(doc: Document) -> str:
    """The chapter's title: its front matter ``title``, else its first level-1 heading."""
    t = doc.front_matter.get("title")
    if t:
        return str(t)
    return next((h.text for h in doc.headings if h.level == 1), "")


def locate(markdown: str, needle: str) -> int | None:
    """The 1-based line of the first occurrence of ``needle`` in the prose of ``markdown`` (code left out)."""
    for i, ln in enumerate(code_free(markdown).split("\n"), start=1):
        if needle in ln:
            return i
    return None
