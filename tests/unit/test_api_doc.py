"""notes/API.md is the contract chapters and cells are written against: every name it lists is imported here.

The rule for reading it: a section's heading names its modules (``## Units (`mlsysim.units`)``); a code span that
begins with a dotted name is looked up in ``mlsysim`` (``from mlsysim import *``), then in the section's modules,
then as a module path (``mlsysim.figures.spec``); a span that begins with a dot (``.H200``, ``.memory.capacity``)
is an attribute of an object the section named before it or of that object's owner (``.H200`` after
``Hardware.Cloud.H100`` is ``Hardware.Cloud.H200``); a bare word that is a parameter of a call written earlier on
its line (``zh`` after ``check(cond, msg, *, zh=None)``) is that parameter, and a name bound earlier on the
line (``as rec``) is a local. Spans that are not Python names
(files, commands, labels, quoted strings, ``$VARIABLES``, expressions with spaces) are not names."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "notes" / "API.md"
NAME = re.compile(r"(\.?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\(|$|\s*->|\s*=|\[)")
MISSING = object()


def _module(path: str):
    try:
        return importlib.import_module(path)
    except ImportError:
        return None


def _attr(obj, dotted: str):
    for part in dotted.split("."):
        if isinstance(obj, type) and part in getattr(obj, "__dataclass_fields__", {}):
            return getattr(obj, part, obj)   # a field without a default: the class stands for its value
        obj = getattr(obj, part, MISSING)
        if obj is MISSING:
            return MISSING
    return obj


def names() -> list[tuple[int, str, list[object], int]]:
    """(line, name, where to look, section) for every name API.md lists."""
    import mlsysim
    out, modules, section = [], [mlsysim], 0
    for n, line in enumerate(API.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#"):
            modules = [mlsysim] + [m for m in map(_module, re.findall(r"`(mlsysim[\w.]*)`", line)) if m]
            section += 1
            continue
        for span in re.findall(r"`([^`]+)`", line):
            if "/" in span or span.startswith(("python ", "with ", "eq-", '"', "'", "$")) or ".toml" in span:
                continue
            if re.fullmatch(r"mlsysim(\.\w+)+", span) and _module(span):   # a module named in the text
                modules = modules + [_module(span)]
            m = NAME.match(span)
            if not m or (span[m.end(1):].strip() and m.group(2) == ""):
                continue
            before = line[:line.index(f"`{span}`")]
            params = re.findall(r"[(,]\s*\*?\s*(\w+)\s*(?:=[^,)]*)?(?=[,)])", before)
            if "." not in m.group(1) and m.group(1) in params:
                continue
            if m.group(1).split(".")[0] in re.findall(r"\bas (\w+)", before):   # ``with recording() as rec:``
                continue
            out.append((n, m.group(1), modules, section))
    return out


def test_every_name_api_md_lists_exists():
    import builtins

    import mlsysim
    namespace = dict(vars(builtins))
    exec("from mlsysim import *", namespace)   # noqa: S102 - what a chapter's first cell does
    namespace["mlsysim"] = mlsysim
    named, missing = [], []   # the objects named so far in the section, the last first, with their owners
    section = None
    for n, name, modules, part in names():
        if part != section:
            section, named = part, []
        if name.startswith("."):
            found = next((x for x in (_attr(o, name[1:]) for o in named) if x is not MISSING), MISSING)
        else:
            head = name.split(".")[0]
            found = MISSING
            for where in [namespace] + [vars(m) for m in modules]:
                if head in where:
                    found = _attr(where[head], name.partition(".")[2]) if "." in name else where[head]
                    if found is not MISSING:
                        break
            if found is MISSING and name.startswith("mlsysim."):   # the longest module, then its attributes
                parts = name.split(".")
                for cut in range(len(parts), 1, -1):
                    if (mod := _module(".".join(parts[:cut]))) is not None:
                        found = _attr(mod, ".".join(parts[cut:])) if parts[cut:] else mod
                        break
        if found is MISSING:
            missing.append(f"notes/API.md:{n}: {name}")
            continue
        owners = [found]
        if "." in name.strip("."):   # its owners too: .H200 after Hardware.Cloud.H100
            first = named[0] if name.startswith(".") and named else None
            base = name.strip(".").split(".")[:-1]
            root = first if first is not None else namespace.get(base[0]) if base else None
            path = base if first is not None else base[1:]
            if root is not None:
                owner = _attr(root, ".".join(path)) if path else root
                if owner is not MISSING:
                    owners.append(owner)
        named = owners + named
    assert not missing, "\n".join(missing)


def test_the_reading_finds_the_names_of_each_section():
    listed = {name for _, name, _, _ in names()}
    for name in ("ureg", "Hardware.Cloud.H100", ".H200", "ridge_point", "tp_decode_floor", "MEASUREMENTS",
                 "fmt", "fmt_memory_capacity", "roofline_spec", "to_plotly", "REFERENCE", "reference_scenario"):
        assert name in listed, name
    assert "data/measurements.toml" not in listed and "python -m mlsysim calibrate" not in listed
