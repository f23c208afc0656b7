"""Execute one ``.qmd`` chapter with the semantics of Quarto's Jupyter engine.

In-process and fast: one fresh namespace per chapter (like one kernel per
document), ``sys.path`` starts with the project root, the working directory is
the chapter's directory.  ``{{< include >}}`` is expanded first (recursively,
relative to the including file); python chunks then run in order with their
``#|`` options; inline ```{python} expr``` is replaced by its value.  Any book
error raises ONE :class:`~bookbuild.errors.BuildError` naming the file the
problem physically lives in, its line and the cell label.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import io
import json
import os
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import BuildError, CellError, GuardFailure, IncludeError, InlineError, read_text
from .lint import INLINE_CODE, INLINE_PY, Fence, find_fences, front_matter_end

INCLUDE_RE = re.compile(
    r"^[ \t]*\{\{<\s*include\s+(?P<p>\"[^\"]+\"|'[^']+'|[^\s>]+)\s*>\}\}[ \t]*$")
FIG_SALT = "bookbuild"
DEFAULT_FIG_SIZE = (7.0, 5.0)   # Quarto's default fig-width/fig-height for HTML


# ------------------------------------------------------------------ records

@dataclass(frozen=True)
class Origin:
    file: str   # relative to the project root (posix)
    line: int   # 1-based


@dataclass
class InlineUse:
    expr: str
    file: str
    line: int
    value: str = ""


@dataclass
class StrAttr:
    cls: str
    attr: str
    file: str
    line: int

    @property
    def name(self) -> str:
        return f"{self.cls}.{self.attr}"


@dataclass
class CellInfo:
    label: str | None
    file: str
    line: int                      # line of the opening fence in `file`
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class ExecutedChapter:
    source: Path                   # relative to root
    markdown: str                  # pandoc markdown, no python left, front matter kept
    front_matter: dict[str, Any]
    title: str
    line_map: list[Origin]         # origin of every line of `markdown`
    labels: list[str]              # sec-/tbl-/eq-/fig- labels defined (document order)
    inline: list[InlineUse]        # inline expressions, in order
    str_attrs: list[StrAttr]       # *_str attributes defined by cell classes
    code_refs: list[str]           # "Cls.attr" attribute reads inside cell code
    figures: list[Path]            # figure files written
    files: list[str]               # the chapter and every file it includes (relative)
    cells: list[CellInfo]
    guards: list[dict] = field(default_factory=list)   # guards evaluated (record mode only)
    provenance: dict[str, dict] = field(default_factory=dict)   # "Cls.x_str" -> how it was computed
    guard_map: list[dict] = field(default_factory=list)         # every check(): file, line, protected *_str

    def origin(self, md_line: int) -> Origin:
        """Source file and line of a 1-based line of ``markdown``."""
        if 1 <= md_line <= len(self.line_map):
            return self.line_map[md_line - 1]
        return Origin(self.source.as_posix(), md_line)


# ------------------------------------------------------------------ includes

def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def expand_includes(path: Path, root: Path, _stack: tuple[Path, ...] = ()
                    ) -> list[tuple[str, Origin]]:
    """The lines of ``path`` with every ``{{< include >}}`` expanded, each with its origin."""
    path = Path(path).resolve()
    root = Path(root).resolve()
    rel0 = _rel(path, root)
    text = read_text(path, rel0)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rel = _rel(path, root)
    in_fence = set()
    for f in find_fences(lines):
        in_fence.update(range(f.start, f.end + 1))
    out: list[tuple[str, Origin]] = []
    for i, line in enumerate(lines):
        m = INCLUDE_RE.match(line) if i not in in_fence else None
        if not m:
            out.append((line, Origin(rel, i + 1)))
            continue
        target = m.group("p").strip("\"'")
        inc = (root / target.lstrip("/")) if target.startswith("/") else (path.parent / target)
        inc = inc.resolve()
        if not inc.is_file():
            raise IncludeError(rel, i + 1, f"include file not found: {target} "
                                           f"(looked for {_rel(inc, root)})")
        if inc in _stack or inc == path:
            raise IncludeError(rel, i + 1, f"include cycle: {target} includes itself")
        out.extend(expand_includes(inc, root, _stack + (path,)))
    return out


# ------------------------------------------------------------------ chunk options

def parse_options(code_lines: list[str], info: str, where: Origin) -> tuple[dict, int]:
    """``#|`` options at the top of a chunk (YAML) merged with header attributes.
    Returns (options, number of option lines)."""
    opts: dict[str, Any] = {}
    m = re.match(r"^\{\s*[A-Za-z0-9_-]+[\s,]*(?P<rest>[^}]*)\}$", info)
    if m and m.group("rest").strip():
        for k, v in re.findall(r"([\w.-]+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s,]+)", m.group("rest")):
            v = v.strip("\"'")
            opts[k.replace(".", "-")] = {"true": True, "false": False,
                                         "TRUE": True, "FALSE": False}.get(v, v)
    n = 0
    yaml_lines = []
    for ln in code_lines:
        if ln.startswith("#|"):
            yaml_lines.append(ln[3:] if ln.startswith("#| ") else ln[2:])
            n += 1
        else:
            break
    if yaml_lines:
        try:
            data = yaml.safe_load("\n".join(yaml_lines)) or {}
        except yaml.YAMLError as e:
            raise CellError(where.file, where.line + 1, f"cannot read #| options: {e}") from None
        if not isinstance(data, dict):
            raise CellError(where.file, where.line + 1, "#| options must be 'key: value' lines")
        opts.update(data)
    return opts, n


# ------------------------------------------------------------------ static facts

def _ast_facts(tree: ast.AST, file: str) -> tuple[list[StrAttr], list[str]]:
    strs: list[StrAttr] = []
    refs: list[str] = []
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.ClassDef):
            for st in node.body:
                targets = []
                if isinstance(st, ast.Assign):
                    targets = st.targets
                elif isinstance(st, ast.AnnAssign):
                    targets = [st.target]
                for t in targets:
                    for nm in ast.walk(t):
                        if isinstance(nm, ast.Name) and nm.id.endswith("_str"):
                            strs.append(StrAttr(node.name, nm.id, file, nm.lineno))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            refs.append(f"{node.value.id}.{node.attr}")
    return strs, refs


@dataclass
class StaticFacts:
    inline: list[InlineUse]
    str_attrs: list[StrAttr]
    code_refs: list[str]
    files: list[str]


def static_facts(path: Path, root: Path) -> StaticFacts:
    """What a chapter quotes and defines, without executing it (used to check
    ``*_str`` use across every profile)."""
    lines = expand_includes(path, root)
    texts = [t for t, _ in lines]
    fences = find_fences(texts)
    fm = front_matter_end(texts)
    in_code = set(range(0, fm + 1))
    strs: list[StrAttr] = []
    refs: list[str] = []
    for f in fences:
        if f.start <= fm:
            continue
        in_code.update(range(f.start, f.end + 1))
        if f.exec_lang == "python":
            body = list(range(f.start + 1, f.end if f.closed else f.end + 1))
            if not body:
                continue
            o = lines[body[0]][1]
            src = "\n" * (o.line - 1) + "\n".join(texts[k] for k in body)
            try:
                tree = ast.parse(src)
            except SyntaxError:
                continue
            s, r = _ast_facts(tree, o.file)
            strs += s
            refs += r
    inline = []
    for i, (t, o) in enumerate(lines):
        if i in in_code:
            continue
        for m in INLINE_CODE.finditer(t):
            pm = INLINE_PY.match(m.group(2).strip())
            if pm:
                inline.append(InlineUse(pm.group("expr"), o.file, o.line))
    files = []
    for _, o in lines:
        if o.file not in files:
            files.append(o.file)
    return StaticFacts(inline, strs, refs, files)


# ------------------------------------------------------------------ execution

class OutputCapExceeded(Exception):
    """A cell printed more than the output cap."""


class _Outputs:
    """Ordered outputs of one chunk: ('stream', text) and ('display', obj)."""

    def __init__(self, cap: int = 0) -> None:
        self.items: list[list[Any]] = []
        self.cap = cap
        self.size = 0

    def write(self, s: str) -> int:
        self.size += len(s)
        if self.cap and self.size > self.cap:
            raise OutputCapExceeded(self.size)
        if self.items and self.items[-1][0] == "stream":
            self.items[-1][1] += s
        else:
            self.items.append(["stream", s])
        return len(s)

    def flush(self) -> None:
        pass

    def display(self, *objs: Any, **_kw: Any) -> None:
        for o in objs:
            self.items.append(["display", o])


def _is_guard_error(exc: BaseException) -> bool:
    return any(c.__name__ == "GuardError" for c in type(exc).__mro__)


def _is_artist(value: Any) -> bool:
    """matplotlib return values (Line2D lists, Text, ...): the figure shows them."""
    items = value if isinstance(value, (list, tuple)) and value else [value]
    return all(type(v).__module__.startswith("matplotlib") and not hasattr(v, "savefig")
               for v in items)


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
ATTR_EXPR = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")


def _fence(text: str) -> str:
    n = 3
    while "`" * n in text:
        n += 1
    return "`" * n


def _attr_quote(s: str) -> str:
    return '"' + " ".join(str(s).split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


class ChapterRunner:
    def __init__(self, path: Path, root: Path, fig_dir: Path, md_dir: Path | None,
                 execute_options: dict[str, Any] | None, profile: str | None = None,
                 cell_timeout: float = 0, output_cap: int = 0, on_cell=None):
        self.profile = profile
        #: wrap each inline value as [value]{.mlsysim-v data-attr="Cls.x_str"} (the HTML book's hover
        #: explanations and hardware choice find them; text, PDF and search see only the value)
        self.mark_inline = os.environ.get("BOOKBUILD_MARK_INLINE") == "1"
        self.provenance: dict[str, dict] = {}
        self.guard_map: list[dict] = []
        self.cell_timeout = cell_timeout
        self.output_cap = output_cap
        self.on_cell = on_cell
        self.root = Path(root).resolve()
        self.path = Path(path).resolve()
        self.rel = _rel(self.path, self.root)
        self.fig_dir = Path(fig_dir).resolve()
        self.md_dir = Path(md_dir).resolve() if md_dir else self.root
        self.exec_defaults = dict(execute_options or {})
        self.figures: list[Path] = []
        self.cells: list[CellInfo] = []
        self.inline: list[InlineUse] = []
        self.str_attrs: list[StrAttr] = []
        self.code_refs: list[str] = []
        self.module = types.ModuleType("__main__")
        self.ns = self.module.__dict__
        self.ns["__builtins__"] = builtins
        self._outputs: _Outputs | None = None
        self.ns["display"] = self._display

    # -- display() as the kernel offers it
    def _display(self, *objs: Any, **kw: Any) -> None:
        if self._outputs is not None:
            self._outputs.display(*objs, **kw)
        else:  # pragma: no cover - display outside a chunk
            print(*objs)

    # -- run
    def run(self) -> ExecutedChapter:
        lines = expand_includes(self.path, self.root)
        texts = [t for t, _ in lines]
        fm_end = front_matter_end(texts)
        front = {}
        if fm_end >= 0:
            try:
                front = yaml.safe_load("\n".join(texts[1:fm_end])) or {}
            except yaml.YAMLError as e:
                raise BuildError(self.rel, 1, f"invalid YAML front matter: {e}") from None
            if not isinstance(front, dict):
                front = {}
        ex = front.get("execute")
        if isinstance(ex, dict):
            self.exec_defaults.update(ex)
        for k in ("echo", "eval", "output", "warning", "include"):
            if k in front:
                self.exec_defaults[k] = front[k]
        fences = {f.start: f for f in find_fences(texts) if f.start > fm_end}

        out: list[tuple[str, Origin]] = []
        i = 0
        if fm_end >= 0:
            out.extend(lines[: fm_end + 1])
            i = fm_end + 1
        cell_no = 0
        saved = self._enter()
        try:
            while i < len(lines):
                f = fences.get(i)
                if f is None:
                    out.append((self._substitute(*lines[i]), lines[i][1]))
                    i += 1
                    continue
                if f.exec_lang is None:
                    out.extend(lines[f.start: f.end + 1])
                elif f.exec_lang == "python":
                    cell_no += 1
                    block = self._run_chunk(f, lines, cell_no)
                    origin = lines[f.start][1]
                    out.extend((b, origin) for b in block)
                else:
                    o = lines[f.start][1]
                    raise CellError(o.file, o.line, f"unsupported executable chunk {f.info}: "
                                                    "this book runs {python} chunks only")
                i = f.end + 1
        finally:
            self._exit(saved)

        md_lines: list[str] = []
        line_map: list[Origin] = []
        for text, origin in out:
            for part in text.split("\n"):
                md_lines.append(part)
                line_map.append(origin)
        markdown = "\n".join(md_lines) + "\n"
        from .xref import chapter_labels, chapter_title
        files = []
        for _, o in lines:
            if o.file not in files:
                files.append(o.file)
        return ExecutedChapter(
            source=Path(self.rel), markdown=markdown, front_matter=front,
            title=str(front.get("title") or chapter_title(markdown) or ""),
            line_map=line_map, labels=chapter_labels(markdown), inline=self.inline,
            str_attrs=self.str_attrs, code_refs=self.code_refs, figures=self.figures,
            files=files, cells=self.cells, provenance=self.provenance, guard_map=self.guard_map)

    def _enter(self) -> tuple:
        saved = (os.getcwd(), list(sys.path), sys.modules.get("__main__"), os.environ.get("QUARTO_PROFILE"))
        if self.profile:  # Quarto exposes the active profile to the code it runs
            os.environ["QUARTO_PROFILE"] = self.profile
        os.chdir(self.path.parent)
        if str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        if "matplotlib" not in sys.modules:
            os.environ["MPLBACKEND"] = "agg"
        sys.modules["__main__"] = self.module
        return saved

    def _exit(self, saved: tuple) -> None:
        cwd, path, main, profile = saved
        if profile is None:
            os.environ.pop("QUARTO_PROFILE", None)
        else:
            os.environ["QUARTO_PROFILE"] = profile
        os.chdir(cwd)
        sys.path[:] = path
        if main is not None:
            sys.modules["__main__"] = main
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")

    # -- inline expressions
    def _substitute(self, text: str, origin: Origin) -> str:
        if "{python}" not in text:
            return text

        def repl(m: re.Match) -> str:
            pm = INLINE_PY.match(m.group(2).strip())
            if not pm:
                return m.group(0)
            expr = pm.group("expr")
            try:
                value = eval(compile(expr, f"<inline {origin.file}:{origin.line}>", "eval"), self.ns)
            except SyntaxError as e:
                raise InlineError(origin.file, origin.line,
                                  f"inline `{{python}} {expr}` is not valid python: {e.msg}") from None
            except (NameError, AttributeError) as e:
                raise InlineError(origin.file, origin.line,
                                  f"inline `{{python}} {expr}` does not resolve: {e} "
                                  "(define it in a cell above this line)") from None
            except Exception as e:  # noqa: BLE001 - any failure is a book error
                raise InlineError(origin.file, origin.line,
                                  f"inline `{{python}} {expr}` raised {type(e).__name__}: {e}") from None
            s = self._inline_value(value)
            if s is None:
                raise InlineError(origin.file, origin.line,
                                  f"inline `{{python}} {expr}` is a {type(value).__name__}, not a formatted "
                                  "string: quote a *_str attribute, whose cell formats the value once "
                                  "(fmt, fmt_int, ...)")
            self.inline.append(InlineUse(expr, origin.file, origin.line, s))
            if self.mark_inline and ATTR_EXPR.match(expr.strip()) and s.strip():
                return f'[{s}]{{.mlsysim-v data-attr="{expr.strip()}"}}'
            return s

        return INLINE_CODE.sub(repl, text)

    @staticmethod
    def _inline_value(value: Any) -> str | None:
        """The text of an inline value: only strings (``Fmt`` is one) are quoted; a float, an int
        or a quantity would print with whatever precision Python picks."""
        if isinstance(value, str):
            return str.__str__(value)
        return None

    # -- chunks
    def _opt(self, opts: dict, key: str, default: Any) -> Any:
        if key in opts:
            return opts[key]
        return self.exec_defaults.get(key, default)

    def _run_chunk(self, f: Fence, lines: list[tuple[str, Origin]], cell_no: int) -> list[str]:
        head = lines[f.start][1]
        body_idx = list(range(f.start + 1, f.end if f.closed else f.end + 1))
        code_lines = [lines[k][0] for k in body_idx]
        origin = lines[body_idx[0]][1] if body_idx else Origin(head.file, head.line + 1)
        opts, _n = parse_options(code_lines, f.info, head)
        label = opts.get("label")
        label = str(label) if label else None
        tag = label or f"cell {cell_no}"
        self.cells.append(CellInfo(label, head.file, head.line, opts))
        echo = self._opt(opts, "echo", False)
        do_eval = self._opt(opts, "eval", True)
        output = self._opt(opts, "output", True)
        include = self._opt(opts, "include", True)

        src = "\n" * (origin.line - 1) + "\n".join(code_lines) + "\n"
        filename = str(self.root / origin.file)
        try:
            tree = ast.parse(src, filename=filename)
        except SyntaxError as e:
            raise CellError(origin.file, e.lineno, f"syntax error: {e.msg}", tag) from None
        tree._bookbuild_src = src
        s, r = _ast_facts(tree, origin.file)
        self.str_attrs += s
        self.code_refs += r

        outputs = _Outputs(self.output_cap)
        figs: list[Any] = []
        if self.on_cell is not None:
            self.on_cell(head.file, head.line, tag)
        if do_eval:
            figs = self._exec(tree, filename, origin.file, tag, opts, outputs)
            self._explain(src, origin.file)

        blocks: list[str] = []
        if include is False:
            if "matplotlib.pyplot" in sys.modules:
                sys.modules["matplotlib.pyplot"].close("all")
            return [""]
        if echo:
            shown = [ln for ln in code_lines if not ln.startswith("#|")]
            while shown and not shown[0].strip():
                shown.pop(0)
            code = "\n".join(shown)
            fence = _fence(code)
            hdr = f"{fence}{{python}}" if echo == "fenced" else f"{fence} {{.python .cell-code}}"
            blocks.append(f"{hdr}\n{code}\n{fence}")
        if output is not False:
            blocks += self._render_outputs(outputs, figs, opts, label, tag, head,
                                           asis=(output == "asis"))
            size = sum(len(b) for b in blocks)
            if self.output_cap and size > self.output_cap:
                raise CellError(head.file, head.line, f"the cell's output is {size:,} characters, over "
                                f"the output limit of one cell ({self.output_cap:,}): show less", tag)
        if "matplotlib.pyplot" in sys.modules:  # Jupyter's inline backend closes a cell's figures
            sys.modules["matplotlib.pyplot"].close("all")
        if not blocks:
            return [""]
        if output == "asis" and not echo:
            return blocks
        return ["::: {.cell}", "\n\n".join(blocks), ":::"]

    def _explain(self, src: str, file: str) -> None:
        """How each *_str of the cell was computed (bookbuild.provenance); never breaks the build."""
        if "class " not in src:
            return
        try:
            from .provenance import explain_cell
            res = explain_cell(src, self.ns, first_line=1, file=file)
        except Exception:  # noqa: BLE001 - an explanation is a courtesy, not a check
            return
        self.provenance.update(res.get("values", {}))
        self.guard_map += res.get("guards", [])

    def _exec(self, tree: ast.Module, filename: str, relfile: str, tag: str,
              opts: dict, outputs: _Outputs) -> list[Any]:
        last = None
        code_lines = [ln.split("#", 1)[0].rstrip() for ln in self._src_lines(tree)]
        code_lines = [ln for ln in code_lines if ln]
        suppress = bool(code_lines) and code_lines[-1].endswith(";")  # Jupyter: ';' hides the value
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        plt_loaded = self._prepare_matplotlib(opts, tree)
        self._outputs = outputs
        ipy_patch = self._patch_ipython() if "IPython" in sys.modules else None
        err = io.StringIO()
        from .kernel import arm, disarm
        try:
            with contextlib.redirect_stdout(outputs), contextlib.redirect_stderr(err):
                arm(self.cell_timeout)
                try:
                    exec(compile(tree, filename, "exec"), self.ns)
                    if last is not None:
                        value = eval(compile(last, filename, "eval"), self.ns)
                        if value is not None and not suppress and not _is_artist(value):
                            outputs.display(value)
                finally:
                    disarm()
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, (KeyboardInterrupt,)):
                raise
            raise self._cell_error(e, filename, relfile, tag) from None
        finally:
            self._outputs = None
            if ipy_patch:
                ipy_patch()
        figs = []
        if "matplotlib.pyplot" in sys.modules:
            plt = sys.modules["matplotlib.pyplot"]
            figs = [plt.figure(n) for n in plt.get_fignums()]
        del plt_loaded
        return figs

    @staticmethod
    def _src_lines(tree: ast.Module) -> list[str]:
        src = getattr(tree, "_bookbuild_src", "")
        return src.split("\n")

    def _cell_error(self, e: BaseException, filename: str, relfile: str, tag: str) -> BuildError:
        tb = e.__traceback__
        line = None
        inner = None
        while tb is not None:
            fn = tb.tb_frame.f_code.co_filename
            if fn == filename:
                line = tb.tb_lineno
            inner = (fn, tb.tb_lineno, tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        if isinstance(e, SyntaxError) and e.filename == filename:
            line = e.lineno
        if _is_guard_error(e):
            text = str(e.args[0]) if e.args else str(e)
            return GuardFailure(relfile, line, f"guard failed: {text}", tag)
        from .kernel import CellTimeout
        if isinstance(e, CellTimeout):
            return CellError(relfile, line, f"the cell ran longer than the cell time limit of "
                                            f"{self.cell_timeout:g} s (stopped here): make it finish, "
                                            "or raise --cell-timeout", tag)
        if isinstance(e, OutputCapExceeded):
            return CellError(relfile, line, f"the cell printed more than {self.output_cap:,} characters "
                                            "(the output limit of one cell): print less", tag)
        if isinstance(e, SystemExit):
            return CellError(relfile, line, f"the cell called sys.exit({e.code!r}): a chapter cannot "
                                            "end the build; remove the call", tag)
        msg = f"{type(e).__name__}: {e}"
        if inner and inner[0] != filename and not inner[0].startswith("<"):
            where = _rel(Path(inner[0]), self.root)
            msg += f" (raised in {where}:{inner[1]}, {inner[2]})"
        return CellError(relfile, line, msg, tag)

    def _patch_ipython(self):
        patched = []
        for modname in ("IPython.display", "IPython.core.display_functions", "IPython.core.display"):
            mod = sys.modules.get(modname)
            if mod is not None and hasattr(mod, "display"):
                patched.append((mod, mod.display))
                mod.display = self._display

        def undo() -> None:
            for mod, fn in patched:
                mod.display = fn
        return undo

    def _prepare_matplotlib(self, opts: dict, tree: ast.Module) -> bool:
        wants = ("fig-width" in opts or "fig-height" in opts
                 or str(opts.get("label", "")).startswith("fig-"))
        if not wants:
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
                    if any(n.startswith("matplotlib") for n in names):
                        wants = True
                        break
        if not wants and "matplotlib" not in sys.modules:
            return False
        import matplotlib
        if "matplotlib.pyplot" not in sys.modules:
            matplotlib.use("agg")
        matplotlib.rcParams["svg.hashsalt"] = FIG_SALT
        w = float(self._opt(opts, "fig-width", DEFAULT_FIG_SIZE[0]))
        h = float(self._opt(opts, "fig-height", DEFAULT_FIG_SIZE[1]))
        matplotlib.rcParams["figure.figsize"] = (w, h)
        return True

    # -- outputs
    def _save_fig(self, fig: Any, name: str) -> str:
        import matplotlib
        matplotlib.rcParams["svg.hashsalt"] = FIG_SALT
        self.fig_dir.mkdir(parents=True, exist_ok=True)
        path = self.fig_dir / f"{name}.svg"
        fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
        self.figures.append(path)
        return os.path.relpath(path, self.md_dir).replace(os.sep, "/")

    def _render_outputs(self, outputs: _Outputs, figs: list[Any], opts: dict,
                        label: str | None, tag: str, head: Origin, asis: bool) -> list[str]:
        blocks: list[str] = []
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(self.rel).with_suffix("").as_posix())
        for kind, obj in outputs.items:
            if kind == "stream":
                text = obj.rstrip("\n")
                if not text.strip():
                    continue
                if asis:
                    blocks.append(text)
                else:
                    fence = _fence(text)
                    blocks.append("::: {.cell-output .cell-output-stdout}\n"
                                  f"{fence}\n{text}\n{fence}\n:::")
                continue
            if type(obj).__module__.startswith("matplotlib") and hasattr(obj, "savefig"):
                if obj not in figs:
                    figs.append(obj)
                continue
            try:
                blocks.append(self._render_display(obj, asis))
            except ValueError as e:
                raise CellError(head.file, head.line, str(e), tag) from None
        caption = str(opts.get("fig-cap") or "")
        alt = opts.get("fig-alt")
        if label and label.startswith("fig-"):
            if len(figs) > 1:
                raise CellError(head.file, head.line,
                                f"cell labelled {label} left {len(figs)} figures open: "
                                "give each figure its own fig- cell (or close the extra ones)", tag)
            if figs:
                link = self._save_fig(figs[0], f"{slug}-{label}")
                attrs = f"#{label}" + (f" fig-alt={_attr_quote(alt)}" if alt else "")
                blocks.insert(0, f"![{caption}]({link}){{{attrs}}}")
            elif blocks:
                # a displayed figure (HTML + static fallback) keeps its alt text on the figure div [plotly]
                div = f"::: {{#{label}" + (f" fig-alt={_attr_quote(alt)}" if alt else "") + "}"
                blocks = [div, *blocks, caption, ":::"] if caption else [div, *blocks, ":::"]
                blocks = ["\n\n".join(blocks)]
            else:
                raise CellError(head.file, head.line,
                                f"cell labelled {label} produced no figure", tag)
        else:
            for k, fig in enumerate(figs, start=1):
                link = self._save_fig(fig, f"{slug}-{label or 'cell'}-{k}")
                blocks.append(f"![{caption if len(figs) == 1 else ''}]({link})")
            if label and label.startswith("tbl-") and blocks:
                cap = str(opts.get("tbl-cap") or "")
                widths = opts.get("tbl-colwidths")
                if asis and len(blocks) == 1 and blocks[0].lstrip().startswith("|"):
                    # a pipe table printed as markdown: caption it as pandoc (and Quarto) read it
                    attrs = f"#{label}" + (f' tbl-colwidths="{json.dumps(widths, separators=(",", ""))}"'
                                           if widths else "")
                    blocks = [blocks[0].rstrip() + f"\n\n: {cap} {{{attrs}}}"]
                else:
                    blocks = ["\n\n".join([f"::: {{#{label}}}", *blocks] + ([cap] if cap else []) + [":::"])]
        return blocks

    @staticmethod
    def _render_display(obj: Any, asis: bool) -> str:
        html = getattr(obj, "_repr_html_", None)
        md = getattr(obj, "_repr_markdown_", None)
        h = html() if callable(html) else None
        m = md() if callable(md) else None
        if isinstance(m, tuple):
            m = m[0]
        if isinstance(h, tuple):
            h = h[0]
        if h is not None:
            fence = _fence(h)
            block = f"{fence}{{=html}}\n{h.rstrip()}\n{fence}"
            if m is not None:  # static fallback for formats without HTML (Quarto's choice per format)
                block += ("\n\n::: {.content-hidden when-format=\"html\"}\n"
                          f"{m.rstrip()}\n:::")
            return block
        if m is not None:
            return str(m).rstrip()
        svg = getattr(obj, "_repr_svg_", None)
        if callable(svg) and svg() is not None:
            s = svg()
            fence = _fence(s)
            return f"{fence}{{=html}}\n{s.rstrip()}\n{fence}"
        text = repr(obj)
        if ADDRESS.search(text):
            raise ValueError(f"the cell displays {text[:60]!r}, whose text holds a memory address "
                             "and changes from run to run: assign the value or end the line with ';'")
        if asis:
            return text
        fence = _fence(text)
        return f"::: {{.cell-output .cell-output-display}}\n{fence}\n{text}\n{fence}\n:::"


def execute_chapter(path: Path, root: Path, fig_dir: Path, *, md_dir: Path | None = None,
                    execute_options: dict[str, Any] | None = None,
                    profile: str | None = None, cell_timeout: float = 0, output_cap: int = 0,
                    on_cell=None) -> ExecutedChapter:
    """Execute one chapter.

    ``fig_dir``: where figure files go.  ``md_dir``: the directory the executed
    markdown will be written to (figure links are relative to it; default: root).
    ``profile``: exported as ``QUARTO_PROFILE`` while the chapter runs, as Quarto does.
    ``execute_options``: the project's ``execute:`` metadata (default: read from
    ``root/_quarto.yml``); the chapter's front matter overrides it.  ``echo``
    defaults to false.
    """
    root = Path(root).resolve()
    if execute_options is None:
        execute_options = {}
        q = root / "_quarto.yml"
        if q.is_file():
            try:
                data = yaml.safe_load(read_text(q, "_quarto.yml")) or {}
                ex = data.get("execute") if isinstance(data, dict) else None
                if isinstance(ex, dict):
                    execute_options = ex
            except yaml.YAMLError:
                pass
    path = Path(path)
    if not path.is_absolute():
        path = root / path
    if not path.is_file():
        raise BuildError(_rel(path, root), None, "chapter file does not exist")
    return ChapterRunner(path, root, fig_dir, md_dir, execute_options, profile,
                         cell_timeout, output_cap, on_cell).run()
