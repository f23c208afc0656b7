"""Where every computed number comes from: a pure analysis of an executed LEGO cell class.

For each ``*_str`` attribute of a cell class this module reads the class body's source (never
executing anything) and the executed class's attribute values, and explains the number:

- ``name``: a readable quantity name in English and Chinese (the ``names.toml`` beside the cell, else the
  declared title of the physics function whose result the value is, else the comment on the
  OUTPUT or EXECUTE line, else the identifier);
- ``expr``: the OUTPUT line's expression as written;
- ``steps``: the chain of the class's own assignments the value depends on (breadth first from the
  OUTPUT line, at most :data:`MAX_STEPS`), each with its value, unit and the physics function it
  calls (the equation the function declares: its name, formula, unit and the book's
  equation label);
- ``inputs``: what the chain bottoms out in: registry values with their published source, labelled
  scenario inputs (``# scenario: ...``), the cell's other typed constants, and references to other
  classes (``ServingRef.pool_gb``), at most :data:`MAX_INPUTS`;
- ``file`` and ``line`` of the OUTPUT line.

:func:`guard_targets` maps every guard (``check(...)``, ``check_*(...)``) of a class to the ``*_str``
values whose computation reads what the guard's condition reads, so a guard that fails when the
book is recomputed for other hardware can mark the sentences it protects. It needs only the source:
a class whose guard failed was never created.

Nothing here raises on an unusual class body: an attribute that cannot be analysed still gets
``{"attr", "value", "name", "expr", "steps": [], "inputs": [], "file", "line"}``. Everything returned
is plain JSON (str, int, list, dict). Values are read with ``getattr`` only: no function of the
cell is called again (a cell's functions may write files).
"""
from __future__ import annotations

import ast
import inspect
import io
import math
import re
import textwrap
import tokenize
import tomllib
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import BuildError

#: at most this many steps and inputs per explanation (the page carries every explanation)
MAX_STEPS = 8
MAX_INPUTS = 12
#: expressions, notes and text values longer than this are cut with an ellipsis
MAX_TEXT = 400

#: the names of a folder's cell values, in the cells' own folder (``appendix/_cells/names.toml``)
NAMES_BESIDE = "names.toml"

#: quantity methods and attributes that do not change what a value depends on
_QUANTITY_TAIL = frozenset({"to", "m_as", "magnitude", "m", "units", "u", "to_base_units", "to_compact",
                            "to_reduced_units", "to_root_units"})
#: registry dataclasses whose fields carry sources
_REGISTRY_TYPES = frozenset({"Accelerator", "Model", "Node", "Link"})
_MODEL_FIELDS = frozenset({"parameters", "active_parameters", "layers", "hidden_dim", "ffn_dim", "heads",
                           "kv_heads", "head_dim", "vocab_size", "context_length", "experts",
                           "experts_per_token"})
#: registry methods, read as the field they compute from
_METHOD_FIELDS = {"size_in_bytes": "parameters"}


class ProvenanceError(Exception):
    """The names table cannot be read (one line naming the file)."""


# ───────────────────────────── names ─────────────────────────────

def names_file(file: str) -> Path | None:
    """The names table of the cell file ``file`` (relative to the project, or absolute): the
    :data:`NAMES_BESIDE` file in the cell's own folder, where the author of the cell writes its names."""
    if not file:
        return None
    p = Path(file)
    if not p.is_absolute():
        from ..settings import project_root
        try:
            p = project_root(Path.cwd()) / p
        except BuildError:  # outside a project (a test's cell): no table
            return None
    return p.parent / NAMES_BESIDE


def _names_table(path: str) -> dict[str, dict[str, str]]:
    """``[names.Cls] stem = { en, zh }`` of the file ``path`` as ``{"Cls.stem": {...}}`` (and an unqualified
    ``[names] stem`` as ``stem``), read again when the file changes."""
    p = Path(path)
    try:
        st = p.stat() if path else None
    except OSError:
        st = None
    if st is None or not p.is_file():
        return {}
    return _read_names(str(p), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=16)
def _read_names(path: str, _mtime: int, _size: int) -> dict[str, dict[str, str]]:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProvenanceError(f"{p}: cannot be read ({exc})") from None
    table = data.get("names", {})
    out: dict[str, dict[str, str]] = {}
    for key, entry in table.items():
        if isinstance(entry, dict) and "en" not in entry and "zh" not in entry:
            for sub, e in entry.items():  # [names.ServingRef] ratio = {...}: qualified keys
                if isinstance(e, dict):
                    out[f"{key}.{sub}"] = {k: str(v) for k, v in e.items() if k in ("en", "zh")}
        elif isinstance(entry, dict):
            out[key] = {k: str(v) for k, v in entry.items() if k in ("en", "zh")}
        else:
            raise ProvenanceError(f"{p}: [names] {key} must be {{ en = \"...\", zh = \"...\" }}")
    return out


def readable_name(cls_name: str, attr: str, comment: str = "",
                  function: dict[str, str] | None = None, file: str = "") -> dict[str, str]:
    """The quantity's name in both languages.

    The names table beside the cell's ``file`` wins (``Cls.stem`` before ``stem``, the stem being the
    attribute without ``_str``), because its two names were written together; then the declared title
    (``title_en``, ``title_zh``) of ``function``, the physics function whose result the value is; then a
    comment on the OUTPUT or EXECUTE line; last, the identifier with underscores as spaces.
    """
    stem = attr[:-4] if attr.endswith("_str") else attr
    where = names_file(file)
    table = _names_table(str(where) if where is not None else "")
    entry = table.get(f"{cls_name}.{stem}") or table.get(stem) or {}
    if not entry.get("en") and function and function.get("title_en"):
        entry = {"en": function["title_en"], "zh": function.get("title_zh") or entry.get("zh", "")}
    fallback = _clean_comment(comment) or stem.replace("_", " ")
    en = entry.get("en") or fallback
    zh = entry.get("zh") or en
    return {"en": en, "zh": zh}


def _clean_comment(c: str) -> str:
    c = c.strip().lstrip("#").strip()
    if c.lower().startswith("scenario:"):
        c = c[len("scenario:"):].strip()
    c = c.strip('"“”')
    return _cut(c)


# ───────────────────────────── small helpers ─────────────────────────────

def _cut(s: str, n: int = MAX_TEXT) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 1].rstrip() + "…"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _num(x: float) -> str:
    """A compact number: four significant digits, thousands separators, no trailing zeros."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    if x != x or x in (math.inf, -math.inf):
        return str(x)
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e7 or ax < 1e-3:   # 3.35e12 as "3.35 × 10¹²": a reader counts no digits
        mant, _, exp = f"{x:.4g}".partition("e")
        if not exp:
            mant, _, exp = f"{x:.3e}".partition("e")
            mant = mant.rstrip("0").rstrip(".")
        return f"{mant} × 10{str(int(exp)).translate(_SUPERSCRIPT)}"
    if x == int(x):
        return f"{int(x):,}"
    r = float(f"{x:.4g}")
    if r == int(r) and ax >= 1:
        return f"{int(r):,}"
    dec = max(0, 3 - math.floor(math.log10(abs(r))))
    s = f"{r:,.{dec}f}"
    return s.rstrip("0").rstrip(".") if "." in s else s


def _unit_str(u: Any) -> str:
    try:
        s = f"{u:~}"
    except (TypeError, ValueError):  # not a pint unit
        s = str(u)
    s = s.replace(" / ", "/").replace(" * ", "·").replace(" ** 2", "²").replace(" ** 3", "³")
    s = s.replace("** 2", "²").replace("** 3", "³")
    if s in ("", "dimensionless", "count"):
        return ""
    if s == "B":
        return "byte"
    if s == "1/s":
        return "/s"
    return s


def _is_quantity(v: Any) -> bool:
    return hasattr(v, "magnitude") and hasattr(v, "units") and not isinstance(v, type)


def _is_unit(v: Any) -> bool:
    return type(v).__name__ == "Unit" and hasattr(v, "dimensionality")


def _value(v: Any) -> tuple[str, str]:
    """(value, unit) of a runtime value, compactly; ("", "") when it is no number or text."""
    try:
        if _is_quantity(v):
            mag = v.magnitude
            if isinstance(mag, (int, float)) and mag and (abs(mag) >= 1e7 or abs(mag) < 1e-3) \
                    and _unit_str(v.units) and not v.dimensionless:
                try:  # 9.89e14 FLOP/s reads better as 989 TFLOP/s
                    c = v.to_compact()
                    if "count" not in str(c.units):
                        v, mag = c, c.magnitude
                except (TypeError, ValueError, ArithmeticError):  # a unit pint cannot make compact
                    pass
            return (_num(mag) if isinstance(mag, (int, float)) else _cut(str(mag), 40)), _unit_str(v.units)
        if isinstance(v, bool):
            return ("true" if v else "false"), ""
        if isinstance(v, int):
            return f"{v:,}", ""
        if isinstance(v, float):
            return _num(v), ""
        if isinstance(v, str):
            return _cut(v), ""
        if type(v).__module__ == "numpy" and hasattr(v, "item"):
            return _value(v.item())
        if isinstance(v, (tuple, list)) and 0 < len(v) <= 4 and all(
                isinstance(e, (int, float)) and not isinstance(e, bool) for e in v):
            return ", ".join(_num(e) if isinstance(e, float) else f"{e:,}" for e in v), ""
        if isinstance(v, (tuple, list, dict, set, frozenset)):
            return f"{len(v):,} items", ""
        if _is_registry(v):
            return _cut(getattr(v, "display_name", "") or getattr(v, "name", "")), ""
    except (TypeError, ValueError, AttributeError):  # a value we cannot show is shown as nothing
        pass
    return "", ""


def _is_registry(v: Any) -> bool:
    t = type(v)
    return t.__name__ in _REGISTRY_TYPES and t.__module__.endswith("registry")


def _src(source: Any, note: str = "") -> dict[str, str]:
    d = {"title": str(getattr(source, "title", "")), "publisher": str(getattr(source, "publisher", "")),
         "url": str(getattr(source, "url", ""))}
    if note:
        d["note"] = _cut(note)
    return d


# ───────────────────────────── functions and equations ─────────────────────────────

@lru_cache(maxsize=512)
def _function_info_cached(fn: Any) -> dict[str, str] | None:
    """``{"name", "equation", "title_en", "title_zh", "unit", "ref", "doc"}`` of ``fn``.

    The equation fields come from the record the function declares (its ``equation`` attribute: an
    object with ``formula``, ``name_en``, ``name_zh``, ``unit`` and ``ref``, read duck-typed so the
    engine imports nothing of the package that defines it); a function without one has empty
    equation fields. ``doc`` is the docstring's first line without the declared label, empty when
    it says no more than the declared formula.
    """
    name = getattr(fn, "__name__", "")
    if not name:
        return None
    record = getattr(fn, "equation", None)
    if not isinstance(getattr(record, "name_en", None), str):  # not a declared record
        record = None

    def field(attr: str) -> str:
        v = getattr(record, attr, None)
        return v if isinstance(v, str) else ""

    equation, ref = field("formula"), field("ref")
    doc = inspect.getdoc(fn) or ""
    first = doc.splitlines()[0].strip() if doc else ""
    if ref:  # the declared label is the "ref" field, not prose: " (eq-x)" and "(eq-x, " go
        first = first.replace(f" ({ref})", "").replace(f"({ref}, ", "(")
    if equation and not re.sub(r"[\W_]", "", first.replace(equation, "")):
        first = ""
    return {"name": name, "equation": _cut(equation, 120), "title_en": field("name_en"),
            "title_zh": field("name_zh"), "unit": field("unit"), "ref": ref, "doc": _cut(first, 160)}


def _function_info(fn: Any) -> dict[str, str] | None:
    try:
        mod = getattr(fn, "__module__", "") or ""
        if not mod.startswith("mlsysim") or mod in ("mlsysim.fmt", "mlsysim.guards"):
            return None
        target = getattr(fn, "__func__", fn)
        info = _function_info_cached(target)
        return dict(info) if info else None
    except TypeError:  # an unhashable callable: no record
        return None


# ───────────────────────────── reading the class body ─────────────────────────────

@dataclass
class _Read:
    """One thing an expression reads: a name, or an attribute path from a name (``accel.memory.bandwidth``)."""

    root: str
    attrs: tuple[str, ...] = ()
    precision: ast.expr | None = None  # the argument of ``….compute.peak(arg)``

    @property
    def path(self) -> str:
        return ".".join((self.root, *self.attrs))


@dataclass
class _Assign:
    name: str
    node: ast.expr
    expr: str
    line: int  # 1-based in the parsed source
    comment: str
    reads: list[_Read]
    calls: list[ast.Call]
    tuple_target: bool = False


@dataclass
class _Guard:
    line: int
    reads: list[_Read]


@dataclass
class _Body:
    cls_name: str
    text: str
    assigns: dict[str, _Assign] = field(default_factory=dict)
    guards: list[_Guard] = field(default_factory=list)
    str_attrs: list[str] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    ok: bool = True


def _comments(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _segment(lines: list[bytes], node: ast.AST) -> str:
    """The source text of ``node`` (``lines``: the source's lines in UTF-8, as ast's offsets count)."""
    seg = None
    try:
        l0, l1 = node.lineno - 1, node.end_lineno - 1
        c0, c1 = node.col_offset, node.end_col_offset
        if l0 == l1:
            seg = lines[l0][c0:c1].decode("utf-8")
        else:
            seg = b"\n".join([lines[l0][c0:], *lines[l0 + 1:l1], lines[l1][:c1]]).decode("utf-8")
    except (IndexError, TypeError, UnicodeDecodeError):  # a node without its place
        seg = None
    if seg is None:
        try:
            seg = ast.unparse(node)
        except (TypeError, ValueError, AttributeError, RecursionError):  # a node ast cannot write back
            seg = ""
    return _cut(seg)


def _local_names(node: ast.AST) -> set[str]:
    """Names bound inside an expression (comprehension targets, lambda arguments, walrus)."""
    bound: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.comprehension):
            for t in ast.walk(n.target):
                if isinstance(t, ast.Name):
                    bound.add(t.id)
        elif isinstance(n, ast.Lambda):
            a = n.args
            for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
                if arg is not None:
                    bound.add(arg.arg)
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            bound.add(n.target.id)
    return bound


def _reads(node: ast.AST) -> tuple[list[_Read], list[ast.Call]]:
    """What ``node`` reads, in source order, and the calls it makes (outermost first)."""
    local = _local_names(node)
    reads: list[_Read] = []
    calls: list[ast.Call] = []
    seen: set[tuple] = set()

    def add(r: _Read) -> None:
        key = (r.root, r.attrs, ast.dump(r.precision) if r.precision is not None else None)
        if r.root not in local and key not in seen:
            seen.add(key)
            reads.append(r)

    def chain(n: ast.AST) -> tuple[str, list[str]] | None:
        attrs: list[str] = []
        while isinstance(n, ast.Attribute):
            attrs.append(n.attr)
            n = n.value
        if isinstance(n, ast.Name):
            return n.id, attrs[::-1]
        return None

    def visit(n: ast.AST) -> None:
        if isinstance(n, ast.Call):
            calls.append(n)
            f = n.func
            c = chain(f) if isinstance(f, ast.Attribute) else None
            if c is not None:
                root, attrs = c
                # a method call on a path: accel.compute.peak(p) → compute.<p>; model.size_in_bytes(b) → parameters
                tail = attrs[:]
                while tail and tail[-1] in _QUANTITY_TAIL:
                    tail.pop()
                if tail != attrs:  # x.to(unit): the path is x; the unit is an argument
                    add(_Read(root, tuple(tail)))
                elif len(attrs) >= 2 and attrs[-2:] == ["compute", "peak"] and n.args:
                    add(_Read(root, tuple(attrs[:-1]), precision=n.args[0]))
                elif attrs and attrs[-1] in _METHOD_FIELDS:
                    add(_Read(root, (*attrs[:-1], _METHOD_FIELDS[attrs[-1]])))
                else:
                    add(_Read(root, tuple(attrs[:-1])) if attrs[:-1] else _Read(root))
            elif isinstance(f, ast.Name):
                pass  # a function name: reported as a call, not as a read
            else:
                visit(f)
            for a in n.args:
                visit(a)
            for k in n.keywords:
                visit(k.value)
            return
        if isinstance(n, ast.Attribute):
            c = chain(n)
            if c is not None:
                root, attrs = c
                while attrs and attrs[-1] in _QUANTITY_TAIL:
                    attrs.pop()
                add(_Read(root, tuple(attrs)))
                return
            visit(n.value)
            return
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                add(_Read(n.id))
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    try:
        visit(node)
    except RecursionError:
        pass
    return reads, calls


def _find_class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for c in classes:
        if c.name == name:
            return c
    return classes[0] if classes and not name else None


_GUARD_CALL = re.compile(r"^check(_\w+)?$")


@lru_cache(maxsize=64)
def _parse_body(source: str, cls_name: str = "") -> _Body:
    """The class body's assignments, guards and comments (cached: explain_class and guard_targets
    parse the same source; the result is not changed after parsing)."""
    text = textwrap.dedent(source or "")
    body = _Body(cls_name, text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        body.ok = False
        return body
    cdef = _find_class(tree, cls_name)
    if cdef is None:
        body.ok = False
        return body
    body.cls_name = body.cls_name or cdef.name
    comments = _comments(text)
    blines = [ln.encode("utf-8") for ln in text.split("\n")]

    def comment_for(st: ast.stmt) -> str:
        for ln in range(st.lineno, (getattr(st, "end_lineno", None) or st.lineno) + 1):
            if ln in comments:
                return comments[ln]
        return ""

    def assign(target: ast.expr, value: ast.expr, st: ast.stmt, whole: ast.expr | None = None) -> None:
        if isinstance(target, ast.Name):
            node = value
            reads, calls = _reads(node)
            body.assigns[target.id] = _Assign(target.id, node, _segment(blines, node), st.lineno, comment_for(st),
                                              reads, calls, tuple_target=whole is not None)
            if target.id.endswith("_str") and target.id not in body.str_attrs:
                body.str_attrs.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(elts) and not any(
                    isinstance(e, ast.Starred) for e in (*elts, *value.elts)):
                for t, v in zip(elts, value.elts):
                    assign(t, v, st, whole=value)
            else:
                for t in elts:
                    assign(t.value if isinstance(t, ast.Starred) else t, value, st, whole=value)

    def walk(stmts: list[ast.stmt]) -> None:
        for st in stmts:
            if isinstance(st, ast.Assign):
                for t in st.targets:
                    assign(t, st.value, st)
            elif isinstance(st, ast.AnnAssign) and st.value is not None:
                assign(st.target, st.value, st)
            elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
                prev = body.assigns.get(st.target.id)
                node = ast.BinOp(left=ast.Name(st.target.id, ast.Load()), op=st.op, right=st.value)
                reads, calls = _reads(st.value)
                if prev is not None:
                    reads = prev.reads + reads
                    calls = prev.calls + calls
                body.assigns[st.target.id] = _Assign(st.target.id, node, _segment(blines, st), st.lineno,
                                                     comment_for(st), reads, calls)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                body.functions.add(st.name)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                f = st.value.func
                fname = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")
                if _GUARD_CALL.match(fname or ""):
                    args = st.value.args
                    cond = args[:1] if fname == "check" else list(args)
                    if not cond:
                        cond = [k.value for k in st.value.keywords if k.arg in ("cond", "condition")]
                    reads: list[_Read] = []
                    for a in cond:
                        reads += _reads(a)[0]
                    body.guards.append(_Guard(st.lineno, reads))
            elif isinstance(st, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    walk(getattr(st, part, []) or [])
                for h in getattr(st, "handlers", []) or []:
                    walk(h.body)

    walk(cdef.body)
    return body


# ───────────────────────────── explaining ─────────────────────────────

#: methods and attributes that change a quantity's unit or form, not what it is
_SAME_QUANTITY = {"to", "m_as", "magnitude", "m", "to_base_units", "to_compact"}


def _formatted(node: ast.expr) -> ast.expr:
    """What an OUTPUT line formats: the first argument of its formatter calls (``fmt(x, ...)``,
    ``cap(fmt_words(x))``), peeled while the call is a ``fmt``-style or wrapping call of one argument."""
    while isinstance(node, ast.Call) and node.args:
        f = node.func
        fname = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")
        if not (fname.lower().startswith("fmt") or fname.endswith("_cap") or fname == "Fmt"):
            break
        node = node.args[0]
    return node


def _power_of_ten(node: ast.expr) -> bool:
    """A literal 10^k (``1e3``, ``100``, ``1e-9``): a change of unit or a percent, not a new quantity
    (``2 * t`` is one)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool) and node.value > 0):
        return False
    k = math.log10(node.value)
    return abs(k - round(k)) < 1e-9


def _bare(node: ast.expr) -> ast.expr:
    """``node`` without unit conversions and scale factors of ten (``t.to(ms).magnitude * 1e3``)."""
    while True:
        if isinstance(node, ast.Attribute) and node.attr in _SAME_QUANTITY:
            node = node.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _SAME_QUANTITY):
            node = node.func.value
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)) and _power_of_ten(node.right):
            node = node.left
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and _power_of_ten(node.left):
            node = node.right
        else:
            return node

_analysed: "weakref.WeakKeyDictionary[type, tuple[_Body, int, str]]" = weakref.WeakKeyDictionary()


@dataclass
class _Walk:
    """The state of one walk through a class's assignments."""
    queue: list
    paths_only: bool
    steps: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    paths: set = field(default_factory=set)
    seen_paths: set = field(default_factory=set)
    done: set = field(default_factory=set)


class _Explainer:
    """How one cell class's ``*_str`` values were computed: walks the class body's assignments (read
    from its source, never executed again) from each OUTPUT line down to its inputs, reading values
    from the executed class and the chapter's namespace."""

    def __init__(self, cls: type, body: _Body, first_line: int, file: str, namespace: dict | None,
                 follow: bool = True, prefix: str = "") -> None:
        self.cls, self.body, self.first_line, self.file = cls, body, first_line, file
        self.ns = namespace
        self.follow = follow
        self.prefix = prefix
        self._lib: Any = None

    # -- resolving names outside the class
    def _global(self, name: str) -> Any:
        if self.ns is not None and name in self.ns:
            return self.ns[name]
        try:
            import mlsysim  # the cells' ``from mlsysim import *``
            if hasattr(mlsysim, name):
                return getattr(mlsysim, name)
            from mlsysim import units
            if hasattr(units, name):
                return getattr(units, name)
        except ImportError:  # the library is not there: no global of it
            pass
        return _MISSING

    def _is_other_class(self, root: str) -> bool:
        if root in self.body.assigns or root in self.body.functions or not root[:1].isupper():
            return False
        g = self._global(root)
        if g is _MISSING:
            return self.ns is None  # without the chapter's globals, a capitalised unknown is another cell's class
        return isinstance(g, type)

    def attr(self, name: str) -> Any:
        try:
            return getattr(self.cls, name)
        except AttributeError:  # not an attribute of the class
            return _MISSING

    # -- classifying one of the class's assignments
    def _literal(self, a: _Assign) -> bool:
        """An input typed in the cell: labelled ``# scenario:``, or only constants, units and library
        constants, no calls."""
        if a.comment.strip().lstrip("#").strip().lower().startswith("scenario:"):
            return True
        if a.calls:
            return False
        for r in a.reads:
            if r.root in self.body.assigns or r.root in self.body.functions or (
                    r.attrs and self._is_other_class(r.root)):
                return False
        return True

    def _unit_of(self, a: _Assign, v: Any) -> str:
        if _is_quantity(v):
            return _unit_str(v.units)
        n = a.node
        if isinstance(n, ast.Attribute) and n.attr in ("magnitude", "m"):
            n = n.value
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("to", "m_as") and n.args:
            return self._eval_unit(n.args[0])
        return ""

    def _eval_unit(self, node: ast.expr) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                from mlsysim.units import ureg
                return _unit_str(ureg.Unit(node.value))
            except (AttributeError, ValueError, TypeError, SyntaxError):  # not a unit pint knows: the text as written
                return node.value if node.value not in ("", "dimensionless") else ""
        try:
            v = self._eval_units_expr(node)
        except (LookupError, AttributeError, TypeError, ValueError, ArithmeticError):  # not a unit expression (UndefinedUnitError is an AttributeError)
            return ""
        if _is_unit(v):
            return _unit_str(v)
        if _is_quantity(v):
            return _unit_str(v.units)
        return ""

    def _eval_units_expr(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Name):
            g = self._global(node.id)
            if g is _MISSING:
                raise LookupError(node.id)
            return g
        if isinstance(node, ast.Attribute):
            return getattr(self._eval_units_expr(node.value), node.attr)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div, ast.Pow)):
            left, right = self._eval_units_expr(node.left), self._eval_units_expr(node.right)
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Div):
                return left / right
            return left ** right
        raise LookupError("not a unit expression")

    def _function_of(self, a: _Assign) -> dict | None:
        for c in a.calls:
            fn: Any = _MISSING
            f = c.func
            if isinstance(f, ast.Name):
                if f.id in self.body.functions:
                    fn = self.attr(f.id)
                else:
                    fn = self._global(f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in self.body.assigns:
                obj = self.attr(f.value.id)
                if _is_registry(obj):
                    fn = getattr(obj, f.attr, _MISSING)
            if fn is not _MISSING and callable(fn):
                info = _function_info(fn)
                if info:
                    return info
        return None

    def _producing_function(self, a: _Assign | None) -> dict | None:
        """The declared record of the physics function whose result ``a`` formats, or None.

        Only when the value IS that result: the formatter's argument is one name (or the call
        itself) changed at most in unit or scale (``.to(ms)``, ``.magnitude``, ``* 1e3``), and
        that name is assigned the whole call (not a tuple's part, not an expression around it).
        """
        if a is None:
            return None
        node = _bare(_formatted(a.node))
        for _ in range(4):  # an alias chain: x = t_dec; x_str = fmt(x)
            if isinstance(node, ast.Name):
                b = self.body.assigns.get(node.id)
                if b is None or b.tuple_target:
                    return None
                node = _bare(b.node)
                continue
            break
        if not isinstance(node, ast.Call):
            return None
        info = self._function_of(_Assign("", node, "", 0, "", [], [node]))
        return info if info and info.get("title_en") else None

    # -- registry paths
    def _registry_input(self, obj: Any, r: _Read, name: str) -> dict:
        owner, rest = None, []
        cur = obj
        attrs = list(r.attrs)
        if r.precision is not None:
            prec = self._precision(r.precision)
            attrs = [*attrs, prec] if prec else attrs
        for a in attrs:
            if _is_registry(cur):
                owner, rest = cur, []
            if hasattr(cur, "precision_flops") and not hasattr(cur, a) and a in cur.precision_flops:
                cur = cur.precision_flops[a]
            else:
                cur = getattr(cur, a)
            rest.append(a)
        if _is_registry(cur):
            owner, rest = cur, []
        value, unit = _value(cur)
        rec: dict[str, Any] = {"name": name, "value": value, "unit": unit}
        if owner is not None:
            rec["entry"] = str(getattr(owner, "display_name", "") or getattr(owner, "name", ""))
            key = ".".join(rest)
            src = None
            if type(owner).__name__ == "Model":
                if not rest or rest[0] in _MODEL_FIELDS:
                    src = _src(owner.source)
            else:
                prov = getattr(owner, "sources", {}).get(key) if key else None
                if prov is not None:
                    src = _src(prov.source, prov.note)
            if src:
                rec["source"] = src
        return rec

    def _precision(self, node: ast.expr) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            v = self.attr(node.id) if node.id in self.body.assigns else self._global(node.id)
            if isinstance(v, str):
                return v
        return ""

    # -- the walk
    def explain(self, attr: str) -> dict:
        body = self.body
        a = body.assigns.get(attr)
        value = self.attr(attr)
        out: dict[str, Any] = {"attr": f"{body.cls_name}.{attr}", "value": _cut(str(value)) if value is not _MISSING else ""}
        comment = a.comment if a else ""
        if a and not _clean_comment(comment):
            for r in a.reads:  # the EXECUTE line's comment names the quantity the OUTPUT formats
                b = body.assigns.get(r.root)
                if b and _clean_comment(b.comment):
                    comment = b.comment
                    break
        out["name"] = readable_name(body.cls_name, attr, comment, self._producing_function(a), self.file)
        out["expr"] = a.expr if a else ""
        out["steps"], out["inputs"] = [], []
        out["file"] = self.file
        out["line"] = self.first_line + a.line - 1 if a else 0
        if a is None:
            return out
        steps, inputs, _ = self.walk(a.reads)   # a failure here is the explainer's: it is said, not hidden
        out["steps"], out["inputs"] = steps[:MAX_STEPS], inputs[:MAX_INPUTS]
        return out

    def closure(self, attr: str) -> set[str]:
        a = self.body.assigns.get(attr)
        if a is None:
            return set()
        return self.walk(a.reads, paths_only=True)[2]

    def walk(self, start: list[_Read], paths_only: bool = False) -> tuple[list[dict], list[dict], set[str]]:
        """Breadth first from ``start`` through the class's assignments: (steps, inputs, paths read)."""
        w = _Walk(list(start), paths_only)
        i = 0
        while i < len(w.queue):
            r = w.queue[i]
            i += 1
            key = r.path + ("(" + ast.dump(r.precision) + ")" if r.precision is not None else "")
            if key in w.seen_paths:
                continue
            w.seen_paths.add(key)
            b = self.body.assigns.get(r.root)
            if b is not None:
                self._visit_assign(w, r, b)
            elif r.root in self.body.functions:
                continue
            elif r.attrs and self._is_other_class(r.root):
                if r.root + "." + r.attrs[0] not in w.done:
                    w.done.add(r.root + "." + r.attrs[0])
                    self._cross((r.root, r.attrs[0]), None, w.steps, w.inputs, w.paths, w.paths_only)
            elif not paths_only:
                self._visit_global(w, r)
        return w.steps, w.inputs, w.paths

    def _visit_assign(self, w: "_Walk", r: _Read, b: _Assign) -> None:
        """A name the class assigns: a registry input, another class, a typed constant, or a step."""
        root = r.root
        w.paths.add(self.prefix + r.path)
        v = self.attr(root)
        if _is_registry(v):
            if not w.paths_only:
                prec = self._precision(r.precision) if r.precision is not None else ""
                name = self.prefix + r.path + (f".{prec}" if prec else "")
                w.inputs.append(self._safe(lambda: self._registry_input(v, r, name), name))
            return
        if isinstance(v, type) and r.attrs:  # an alias of another class: be = StallBreakEven
            if f"{root}.{r.attrs[0]}" not in w.done:
                w.done.add(f"{root}.{r.attrs[0]}")
                self._cross((v.__name__, r.attrs[0]), None, w.steps, w.inputs, w.paths, w.paths_only, ocls=v)
            return
        if root in w.done:
            return
        w.done.add(root)
        other = self._other_ref(b)
        if other is not None:
            self._cross(other, b, w.steps, w.inputs, w.paths, w.paths_only)
            return
        if self._literal(b):
            if not w.paths_only:
                w.inputs.append(self._literal_input(root, b, v))
            return
        if not w.paths_only:
            w.steps.append(self._step(r, b, v))
        w.queue.extend(b.reads)

    def _literal_input(self, root: str, b: _Assign, v: Any) -> dict:
        val, unit = _value(v)
        rec = {"name": self.prefix + root, "value": val, "unit": unit}
        c = b.comment.strip().lstrip("#").strip()
        if c.lower().startswith("scenario:"):
            rec["scenario"] = _cut(c[len("scenario:"):].strip())
        elif c:
            rec["note"] = _cut(c)
        return rec

    def _step(self, r: _Read, b: _Assign, v: Any) -> dict:
        val, unit = _value(v)
        name = r.root
        if not val and r.attrs:  # an object read through its fields: show the field read
            fv = v
            for a_ in r.attrs:
                fv = getattr(fv, a_, _MISSING) if fv is not _MISSING else fv
            if fv is not _MISSING:
                (val, unit), name = _value(fv), r.path
        step = {"name": self.prefix + name, "expr": b.expr, "value": val, "unit": unit or self._unit_of(b, v)}
        fn = self._function_of(b)
        if fn:
            step["function"] = fn
        return step

    def _visit_global(self, w: "_Walk", r: _Read) -> None:
        """A module-level name of the cell or the library: a constant is an input, the rest is not shown."""
        g = self._global(r.root)
        for a_ in r.attrs:
            g = getattr(g, a_, _MISSING) if g is not _MISSING else g
        if g is _MISSING or _is_unit(g) or callable(g) or isinstance(g, type) or inspect.ismodule(g):
            return
        if _is_quantity(g) or isinstance(g, (int, float, str, list, tuple, dict)) and not isinstance(g, bool):
            val, unit = _value(g)
            w.inputs.append({"name": r.path, "value": val, "unit": unit})

    @staticmethod
    def _safe(make: Any, name: str) -> dict:
        try:
            return make()
        except (AttributeError, KeyError, TypeError, ValueError):  # a registry field not read as one: the input without its value
            return {"name": name, "value": "", "unit": ""}

    def _other_ref(self, b: _Assign) -> tuple[str, str] | None:
        n = b.node
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and self._is_other_class(n.value.id):
            return n.value.id, n.attr
        return None

    def _cross(self, other: tuple[str, str], b: _Assign | None, steps: list, inputs: list, paths: set,
               paths_only: bool, ocls: Any = None) -> None:
        """``OtherClass.attr``: followed one level when the other class and its source are known
        (explained before, through ``namespace``); otherwise an input with its value."""
        cname, oattr = other
        qual = f"{cname}.{oattr}"
        paths.add(qual)
        if ocls is None:
            ocls = self.ns.get(cname) if self.ns is not None else None
        known = _analysed.get(ocls) if isinstance(ocls, type) else None
        if self.follow and known is not None and oattr in known[0].assigns:
            obody, ofirst, ofile = known
            sub = _Explainer(ocls, obody, ofirst, ofile, self.ns, follow=False, prefix=f"{cname}.")
            if not paths_only and b is not None:
                val, unit = _value(self.attr(b.name))
                unit = unit or sub._unit_of(obody.assigns[oattr], sub.attr(oattr))
                steps.append({"name": self.prefix + b.name, "expr": b.expr, "value": val, "unit": unit})
            s2, i2, p2 = sub.walk([_Read(oattr)], paths_only=paths_only)
            steps.extend(s2)
            inputs.extend(i2)
            paths.update(p2)
            return
        if not paths_only:
            v = self.attr(b.name) if b is not None else _MISSING
            if v is _MISSING and isinstance(ocls, type):
                v = getattr(ocls, oattr, _MISSING)
            val, unit = _value(v) if v is not _MISSING else ("", "")
            rec = {"name": qual, "value": val, "unit": unit}
            if b is not None and _clean_comment(b.comment):
                rec["note"] = _clean_comment(b.comment)
            inputs.append(rec)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


# ───────────────────────────── the interface ─────────────────────────────

def _str_attrs(cls: type | None, body: _Body) -> list[str]:
    names = list(body.str_attrs)
    if cls is not None:
        try:
            for k in vars(cls):
                if k.endswith("_str") and not k.startswith("_") and k not in names:
                    names.append(k)
        except TypeError:
            pass
    return names


def explain_class(cls: type, source: str, *, first_line: int = 1, file: str = "",
                  namespace: dict | None = None) -> dict[str, dict]:
    """For every ``*_str`` attribute of the executed cell class ``cls`` whose class-body source is
    ``source`` (the text of the ``class X:`` block as written in the cell file, starting at line
    ``first_line`` of ``file``): a JSON-serializable explanation, keyed by attribute name::

        {"attr": "ServingRef.ratio_str", "value": "295",
         "name": {"en": "...", "zh": "..."},
         "expr": "fmt_int(ratio)",
         "steps": [{"name": "ratio", "expr": "t_dec / t_pre", "value": "295.4", "unit": ""},
                   {"name": "t_dec", "expr": "decode_time_per_token(...)...", "value": "0.02107", "unit": "s",
                    "function": {"name": "decode_time_per_token", "equation": "t_decode ≥ N b / β",
                                 "title_en": "decode floor per token", "title_zh": "每词元解码时间下限",
                                 "unit": "s", "ref": "eq-appdx-shuttle-floor", "doc": ""}}, ...],
         "inputs": [{"name": "accel.memory.bandwidth", "value": "3.35", "unit": "TB/s",
                     "entry": "NVIDIA H100 SXM5 80GB",
                     "source": {"title": "...", "publisher": "...", "url": "...", "note": "..."}},
                    {"name": "s_agent", "value": "32,768", "unit": "",
                     "scenario": "context length of a long agent trajectory"}, ...],
         "file": "appendix/_cells/serving-ref.qmd", "line": 123}

    ``source`` may also be a whole cell (the class named ``cls.__name__`` is found in it; then
    ``first_line`` is the line of the cell's first line). ``namespace`` (the chapter's globals)
    resolves module-level names and other classes: ``OtherClass.attr`` is followed one level
    when ``OtherClass`` was explained before; otherwise it is an input with its value.
    """
    cname = getattr(cls, "__name__", "") or ""
    body = _parse_body(source, cname)   # a body it cannot parse comes back not ok
    try:
        if isinstance(cls, type):
            _analysed[cls] = (body, first_line, file)
    except TypeError:
        pass
    ex = _Explainer(cls, body, first_line, file, namespace)
    out: dict[str, dict] = {}
    for attr in _str_attrs(cls, body):
        out[attr] = ex.explain(attr)
    return out


def _match(guard: str, dep: str) -> bool:
    g, d = guard.split("."), dep.split(".")
    n = min(len(g), len(d))
    return g[:n] == d[:n]


def guard_targets(cls: type | None, source: str, *, first_line: int = 1, file: str = "",
                  namespace: dict | None = None) -> list[dict]:
    """Every guard (``check(...)``, ``check_*(...)``) in the class body:
    ``{"line": absolute line, "file": file, "protects": ["ServingRef.ratio_str", ...]}``.

    ``protects`` are the ``*_str`` attributes whose computation reads what the guard's condition
    reads, directly or through the class's own assignments (attribute paths are compared, so a
    guard on ``model.context_length`` does not protect a value computed from ``model.layers``).
    If none does, the ``<name>_str`` of each name the condition reads; else an empty list.
    Only the source is needed (``cls`` may be ``None``): a class whose guard failed does not exist.
    """
    cname = getattr(cls, "__name__", "") or ""
    body = _parse_body(source, cname)
    if not body.ok:
        return []
    ex = _Explainer(cls if cls is not None else _NoClass, body, first_line, file, namespace)
    strs = _str_attrs(cls if isinstance(cls, type) else None, body)
    closures: dict[str, set[str]] = {}
    for s in strs:
        closures[s] = ex.closure(s)
    out = []
    for g in body.guards:
        reads = [r.path for r in g.reads
                 if r.root in body.assigns or (ex._is_other_class(r.root) and r.attrs)]
        protects = [s for s in strs if any(_match(p, d) for p in reads for d in closures[s])]
        if not protects:
            protects = [f"{r.root}_str" for r in g.reads if f"{r.root}_str" in strs]
            protects = list(dict.fromkeys(protects))
        out.append({"line": first_line + g.line - 1, "file": file,
                    "protects": [f"{body.cls_name}.{s}" for s in protects]})
    return out


class _NoClass:
    """Stands in for a class that was never created (its guard failed): no runtime values."""


def explain_cell(source: str, namespace: dict, *, first_line: int = 1, file: str = "", guards: bool = True) -> dict:
    """Every class a cell defines that ``namespace`` (the chapter's globals after the cell ran) holds:
    ``{"values": {"Cls.attr_str": explanation, ...}, "guards": [guard_targets records]}``.
    Classes the namespace lacks (a guard failed) still get their guards; ``guards=False`` (a reader's
    choice, which reads only the values) leaves the guards out."""
    values: dict[str, dict] = {}
    found: list[dict] = []
    for name, seg in _class_segments(source or ""):
        cls = namespace.get(name) if namespace is not None else None
        if isinstance(cls, type) and cls.__name__ == name:
            for attr, e in explain_class(cls, seg, first_line=first_line, file=file, namespace=namespace).items():
                values[e["attr"]] = e
            if guards:
                found += guard_targets(cls, seg, first_line=first_line, file=file, namespace=namespace)
        elif guards:
            stub = type(name, (), {})
            found += guard_targets(stub, seg, first_line=first_line, file=file, namespace=namespace)
    return {"values": values, "guards": found}


@lru_cache(maxsize=64)
def _class_segments(source: str) -> tuple[tuple[str, str], ...]:
    """Each top-level class of a cell: its name and its lines, at their line numbers in the cell (cached: the
    reader's choices explain the same cells once per choice)."""
    text = textwrap.dedent(source)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    lines = text.splitlines()
    return tuple((node.name, "\n" * (node.lineno - 1) + "\n".join(lines[node.lineno - 1: node.end_lineno]))
                 for node in tree.body if isinstance(node, ast.ClassDef))


def pack(explanations: dict[str, dict]) -> dict:
    """The explanations as the page should carry them, each repeated piece stored once.

    ``{"sources": [source, ...], "functions": {name: info}, "items": [step or input, ...],
    "values": {attr: explanation}}``: an explanation's ``steps`` and ``inputs`` are indices into
    ``items`` (a step has ``expr``, an input has not), an item's ``source`` is an index into
    ``sources`` and its ``function`` a key of ``functions``; empty strings are left out of items.
    :func:`unpack` gives back the explanations. Serialize with
    ``json.dumps(..., separators=(",", ":"), ensure_ascii=False)``.
    """
    sources: list[dict] = []
    functions: dict[str, dict] = {}
    items: list[dict] = []
    seen_src: dict[str, int] = {}
    seen_item: dict[str, int] = {}
    values: dict[str, dict] = {}

    def lean(d: dict) -> dict:
        return {k: v for k, v in d.items() if v != ""}

    def item(d: dict) -> int:
        d = lean(d)
        if isinstance(d.get("source"), dict):
            k = repr(sorted(d["source"].items()))
            if k not in seen_src:
                seen_src[k] = len(sources)
                sources.append(d["source"])
            d["source"] = seen_src[k]
        if isinstance(d.get("function"), dict):
            functions.setdefault(d["function"]["name"], lean(d["function"]))
            d["function"] = d["function"]["name"]
        k = repr(sorted(d.items()))
        if k not in seen_item:
            seen_item[k] = len(items)
            items.append(d)
        return seen_item[k]

    for key, e in explanations.items():
        e = dict(e)
        e["steps"] = [item(s) for s in e.get("steps", [])]
        e["inputs"] = [item(i) for i in e.get("inputs", [])]
        values[key] = e
    return {"sources": sources, "functions": functions, "items": items, "values": values}


def unpack(packed: dict) -> dict[str, dict]:
    """The explanations :func:`pack` packed (empty strings of items stay left out)."""
    def full(i: int) -> dict:
        d = dict(packed["items"][i])
        if isinstance(d.get("source"), int):
            d["source"] = packed["sources"][d["source"]]
        if isinstance(d.get("function"), str):
            d["function"] = packed["functions"][d["function"]]
        return d

    return {k: {**e, "steps": [full(i) for i in e["steps"]], "inputs": [full(i) for i in e["inputs"]]}
            for k, e in packed["values"].items()}


# ───────────────────────────── the reader's choices ─────────────────────────────

#: what a step or input may read differently for another choice (its expression and function are the cells'
#: code, the same for every choice; a registry input's name may end in another field: ``accel.compute.fp16``
#: where the accelerator publishes no ``fp8`` rate)
CHOICE_FIELDS = ("value", "unit", "entry", "source", "note", "scenario", "name")


def _place(d: dict) -> str:
    """What places a step or input in its chain, whatever the choice: its name; a registry input's without
    its last field."""
    name = str(d.get("name", ""))
    return name.rsplit(".", 1)[0] if d.get("entry") and "." in name else name


def _item_field(packed: dict, d: dict, f: str) -> Any:
    v = d.get(f, "")
    if f == "source" and isinstance(v, int):
        return packed["sources"][v]
    return v


def pack_choices(packed: dict, explained: list[dict | None],
                 fixed: Any = ()) -> tuple[dict, list[dict | None]]:
    """What each choice's explanations change in the page's packed reference explanations (:func:`pack`).

    ``explained``: per choice, ``{attr: {"steps": [...], "inputs": [...]}}`` as :func:`explain_cell` gave them
    for that choice (each step and input with the :data:`CHOICE_FIELDS` it has), or None (the choice was not
    computed); a value's explanation follows the choice where its chain has the reference's shape (the same
    steps and inputs, in order, placed as :func:`_place` says). ``fixed``: values that describe the reference
    whatever the choice.

    Returns ``(table, entries)``. ``table`` is shared by the choices: ``{"fields": CHOICE_FIELDS, "strings":
    [...], "sources": [...], "fixed": [attrs explained for no choice, or fixed]}``. Each entry (None where
    ``explained`` is) is ``{"x": [item, field, value, ...], "xu": [attr, ...]}``: ``x`` flat triples, each
    changing field ``fields[field]`` of reference item ``item`` to ``strings[value]`` (``sources[value]``
    for a source; -1: the field is absent); ``xu`` (string indices) the values whose explanation this choice
    could not give in the reference's shape (another chain of steps, or an item two values share that reads
    differently for each): they keep the reference's. Every other value of ``packed`` not in ``fixed`` reads
    its items through ``x``: :func:`apply_choice` gives them back."""
    values = packed["values"]
    anywhere = set().union(*(set(e) for e in explained if e))
    fixed_all = sorted(set(fixed) & set(values) | (set(values) - anywhere))
    strings: dict[str, int] = {}
    sources: dict[str, int] = {}
    source_list: list[dict] = []

    def string(s: str) -> int:
        return strings.setdefault(s, len(strings))

    def source(d: dict) -> int:
        k = repr(sorted(d.items()))
        if k not in sources:
            sources[k] = len(source_list)
            source_list.append(d)
        return sources[k]

    entries: list[dict | None] = []
    for got in explained:
        if got is None:
            entries.append(None)
            continue
        demands, unusable = _demands(packed, got, set(fixed_all))
        _drop_clashes(demands, unusable)
        x: list[int] = []
        for i, fields in sorted(_patches(packed, got, demands).items()):
            for f in CHOICE_FIELDS:
                if f in fields:
                    v = fields[f]
                    code = -1 if v in ("", None) else source(v) if f == "source" else string(str(v))
                    x += [i, CHOICE_FIELDS.index(f), code]
        entries.append({"x": x, "xu": [string(a) for a in sorted(unusable)]})
    table = {"fields": list(CHOICE_FIELDS), "strings": list(strings), "sources": source_list, "fixed": fixed_all}
    return table, entries


def _demands(packed: dict, got: dict, fixed: set[str]) -> tuple[dict[str, dict[int, tuple]], set[str]]:
    """For one choice: what each value's explanation wants changed in each reference item it reads
    (``{attr: {item: ((field, repr(new)), ...)}}``), and the values it cannot explain in the reference's shape."""
    items, values = packed["items"], packed["values"]
    unusable: set[str] = set()
    demands: dict[str, dict[int, tuple]] = {}
    for attr in sorted(values):
        if attr in fixed:
            continue
        ref, mine = values[attr], got.get(attr)
        if mine is None:
            unusable.add(attr)
            continue
        want: dict[int, tuple] = {}
        for part in ("steps", "inputs"):
            idx, new = ref.get(part, []), mine.get(part, [])
            if [_place(items[i]) for i in idx] != [_place(d) for d in new]:
                unusable.add(attr)
                break
            for i, d in zip(idx, new):
                ch = tuple((f, repr(d.get(f, ""))) for f in CHOICE_FIELDS
                           if _item_field(packed, items[i], f) != d.get(f, ""))
                if want.setdefault(i, ch) != ch:   # the same item twice in one chain, read two ways
                    unusable.add(attr)
        if attr not in unusable:
            demands[attr] = want
    return demands, unusable


def _drop_clashes(demands: dict[str, dict[int, tuple]], unusable: set[str]) -> None:
    """An item that two values share and that reads differently for each: both keep the reference's (moved
    from ``demands`` to ``unusable``)."""
    while True:
        by_item: dict[int, set] = {}
        for want in demands.values():
            for i, ch in want.items():
                by_item.setdefault(i, set()).add(ch)
        clash = {i for i, chs in by_item.items() if len(chs) > 1}
        gone = [a for a, want in demands.items() if clash & set(want)]
        if not gone:
            return
        for a in gone:
            unusable.add(a)
            del demands[a]


def _patches(packed: dict, got: dict, demands: dict[str, dict[int, tuple]]) -> dict[int, dict[str, Any]]:
    """The new field values of each reference item the remaining ``demands`` change."""
    patch: dict[int, dict[str, Any]] = {}
    for attr, want in demands.items():
        for part in ("steps", "inputs"):
            for i, d in zip(packed["values"][attr].get(part, []), got[attr].get(part, [])):
                for f, _ in want.get(i, ()):
                    patch.setdefault(i, {})[f] = d.get(f, "")
    return patch


def apply_choice(packed: dict, table: dict, entry: dict | None) -> dict[str, dict]:
    """The explanations (as :func:`unpack` gives them) that a choice's ``entry`` (:func:`pack_choices`) gives:
    every value its explanation follows, with its items changed; the others are left out. (An explanation's
    own ``value`` stays the reference's text: the page shows the choice's beside it.) reader.js ports it."""
    if not entry or "x" not in entry:
        return {}
    items = [dict(d) for d in packed["items"]]
    x = entry["x"]
    for j in range(0, len(x), 3):
        i, f, code = x[j], table["fields"][x[j + 1]], x[j + 2]
        if code < 0:
            items[i].pop(f, None)
        else:
            items[i][f] = table["sources"][code] if f == "source" else table["strings"][code]
    skip = set(table["fixed"]) | {table["strings"][k] for k in entry.get("xu", [])}
    mine = dict(packed, items=items, values={k: v for k, v in packed["values"].items() if k not in skip})
    return unpack(mine)
