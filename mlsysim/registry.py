"""The typed registry: accelerators, models, links and nodes, loaded from ``mlsysim/data/*.toml``.

Every value carries a unit and a source. Loading validates the data and fails with one line, a
:class:`RegistryError` naming file, line, entry and field (:mod:`mlsysim.tomllines` finds the line): a field the file's schema (:data:`SCHEMAS`) does not
know (with the closest known name), a missing field, a table where a value belongs or a value where a
table belongs, a wrong dimension, a missing unit, an unknown precision, a sparse figure that is not twice
the dense one, a model whose published parameter count disagrees with its geometry, a reference to an
unknown link, accelerator or source, a name a cell could not write (not a Python identifier) or one used
twice (ignoring case), or an accelerator no node of systems.toml carries.
"""
from __future__ import annotations

import copy
import dataclasses
import datetime
import difflib
import keyword
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import RegistryError, UnknownEntryError, UnknownPrecisionError
from .tomllines import toml_line
from .units import PRECISION_BYTES, Q_, ureg

#: the data files; ``MLSYSIM_DATA_DIR`` points the package at another copy (mutation tests use it)
DATA_DIR = Path(os.environ.get("MLSYSIM_DATA_DIR") or Path(__file__).with_name("data"))

#: relative tolerance between a model's published parameter count and the count from its geometry
PARAMETER_TOLERANCE = 0.01

#: the reference unit whose dimension each kind of value must have
_DIMS = {
    "capacity": "byte",
    "bandwidth": "byte / second",
    "throughput": "flop / second",
    "count": "count",
    "time": "second",  # measured latencies (measurements.toml)
    "rate": "count / second",  # measured throughput in token/s (a token is a count)
}


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    publisher: str
    url: str
    accessed: str
    #: the edition read: a pinned commit, a release or container tag, or the date a page that changes without
    #: a version number was served (references.bib prints the same for a source the book cites)
    edition: str = ""
    note: str = ""
    cite: str = ""  # the references.bib key when the book cites this source (measurements.toml's sources)


@dataclass(frozen=True)
class Provenance:
    """Where one value was published (``source``), with a note on variant, sparsity or rounding."""

    source: Source
    note: str = ""


@dataclass(frozen=True)
class Conflict:
    """A published value that disagrees with the stored one, kept so the choice is visible."""

    field: str
    value: Any
    source: Source
    note: str


@dataclass(frozen=True)
class Link:
    name: str
    display_name: str
    bandwidth: Any  # byte/second, one direction, after encoding
    sources: Mapping[str, Provenance]


@dataclass(frozen=True)
class Memory:
    capacity: Any
    bandwidth: Any


@dataclass(frozen=True)
class Compute:
    """Dense throughput by precision (``precision_flops``); sparse figures kept apart."""

    precision_flops: Mapping[str, Any]
    sparse_flops: Mapping[str, Any]
    owner: str = ""

    def peak(self, precision: str):
        """Dense peak rate at ``precision``; raises :class:`UnknownPrecisionError` if unpublished."""
        try:
            return self.precision_flops[precision]
        except KeyError:
            have = ", ".join(self.precision_flops) or "none"
            raise UnknownPrecisionError(
                f"{self.owner or 'this accelerator'} publishes no dense {precision} throughput; "
                f"available precisions: {have}") from None


@dataclass(frozen=True)
class Accelerator:
    name: str
    display_name: str
    vendor: str
    variant: str
    memory: Memory
    compute: Compute
    host_link: Link | None
    sources: Mapping[str, Provenance]
    conflicts: tuple[Conflict, ...] = ()

    @property
    def precisions(self) -> tuple[str, ...]:
        return tuple(self.compute.precision_flops)


@dataclass(frozen=True)
class Model:
    name: str
    display_name: str
    parameters: Any  # count
    layers: int
    hidden_dim: int
    ffn_dim: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    context_length: int
    source: Source
    active_parameters: Any = None
    experts: int = 1
    experts_per_token: int = 1
    variant_of: str = ""
    #: tokens of keys and values a sliding-window attention keeps (config.json ``sliding_window``); None: all
    sliding_window: int | None = None

    @property
    def is_moe(self) -> bool:
        """A mixture of experts: each token reaches ``experts_per_token`` of ``experts`` expert MLPs."""
        return self.experts > 1

    @property
    def active_count(self) -> float:
        """Parameters a token reaches (N_active): the published active count of a mixture of experts, else N."""
        q = self.active_parameters if self.is_moe and self.active_parameters is not None else self.parameters
        return q.to("count").magnitude

    @property
    def attention_design(self) -> str:
        """``"MHA"`` (a key-value head per query head), ``"MQA"`` (one shared head) or ``"GQA"`` (groups),
        from the geometry."""
        if self.kv_heads == self.heads:
            return "MHA"
        return "MQA" if self.kv_heads == 1 else "GQA"

    def size_in_bytes(self, bytes_per_param):
        """Weight bytes, N · b (bytes_per_param is a quantity in bytes, e.g. ``BYTES_FP16``)."""
        b = bytes_per_param if hasattr(bytes_per_param, "units") else Q_(bytes_per_param, "byte")
        return (self.parameters.to("count").magnitude * b).to("byte")

    @property
    def parameters_from_geometry(self) -> int:
        return parameters_from_geometry(self)

    def replace(self, **changes) -> "Model":
        """A variant of this model with some geometry changed, e.g. ``replace(kv_heads=8)``.

        The published parameter count is kept only if the change does not alter the weights
        (attention-head sharing changes the K/V projections; the count is then recomputed).
        """
        new = dataclasses.replace(self, variant_of=self.variant_of or self.name, **changes)
        if new.parameters_from_geometry != self.parameters_from_geometry and "parameters" not in changes:
            new = dataclasses.replace(new, parameters=Q_(new.parameters_from_geometry, "count"))
        return new


@dataclass(frozen=True)
class Node:
    name: str
    display_name: str
    accelerator: Accelerator
    accelerators_per_node: int
    host_memory: Any                # None where unpublished
    host_link: Link | None          # None where unpublished
    interconnect: Link | None
    sources: Mapping[str, Provenance]


def parameters_from_geometry(m: Model) -> int:
    """Parameters of a Llama-style decoder: 2Vd + L(2d² + 2d·H_kv·d_head + E·3·d·d_ff + E·d + 2d) + d.

    (Q and O are d×d, K and V are d×(H_kv·d_head); a router of d×E only when E > 1.)
    """
    d, kvd = m.hidden_dim, m.kv_heads * m.head_dim
    attn = 2 * d * d + 2 * d * kvd
    mlp = m.experts * 3 * d * m.ffn_dim + (d * m.experts if m.experts > 1 else 0)
    return 2 * m.vocab_size * d + m.layers * (attn + mlp + 2 * d) + d


def active_parameters_from_geometry(m: Model) -> int:
    """Parameters touched per token of an MoE model: the same with E replaced by the top-k experts."""
    return parameters_from_geometry(dataclasses.replace(m, experts=m.experts_per_token)) + (
        m.layers * m.hidden_dim * m.experts if m.experts > 1 else 0)


# ───────────────────────────── the shape of each file ─────────────────────────────
#
# Every kind of table the data files hold: field -> (shape, required[, what to write when missing]).
# A field not listed is refused, naming the closest listed one; a listed field of the wrong shape too.
#   text      a non-empty string                int     a positive integer (not a boolean)
#   table     a table, checked by its loader    list    a list of tables, checked by its loader
#   sourced   { value = ..., source = "...", note = "..." }, its value checked where it is read
#   quantity  a string with its unit ("3.35 TB/s"); its dimension is checked where it is read

_DENSE = 'give the dense figure as dense = "... Tflop/s" (a sparse-only figure must not pose as dense)'
_MODEL_INTS = ("layers", "hidden_dim", "ffn_dim", "heads", "kv_heads", "head_dim", "vocab_size", "context_length")

SCHEMAS: dict[str, dict[str, tuple]] = {
    "source": {"title": ("text", True), "publisher": ("text", True), "url": ("text", True),
               "accessed": ("text", True),
               "edition": ("text", True, "missing field; name the edition read: a commit, a release, or the date "
                                         "the page was served"),
               "note": ("text", False),
               "cite": ("text", False)},
    "sourced": {"value": ("quantity", True), "source": ("text", True), "note": ("text", False)},
    "accelerator": {"display_name": ("text", True), "vendor": ("text", True), "variant": ("text", True),
                    "host_link": ("text", False), "memory": ("table", True), "compute": ("table", True),
                    "conflicts": ("list", False)},
    "memory": {"capacity": ("sourced", True), "bandwidth": ("sourced", True)},
    "compute": {"dense": ("quantity", True, _DENSE), "sparse": ("quantity", False), "source": ("text", True),
                "note": ("text", False)},
    "conflict": {"field": ("text", True), "value": ("quantity", True), "source": ("text", True),
                 "note": ("text", False)},
    "model": {"display_name": ("text", True), "source": ("text", True), "parameters": ("quantity", True),
              **{f: ("int", True) for f in _MODEL_INTS}, "active_parameters": ("quantity", False),
              "experts": ("int", False), "experts_per_token": ("int", False), "sliding_window": ("int", False)},
    "systems": {"links": ("table", False), "nodes": ("table", False)},
    "link": {"display_name": ("text", True), "bandwidth": ("sourced", True)},
    "node": {"display_name": ("text", True), "accelerator": ("text", True), "accelerators_per_node": ("sourced", True),
             "host_memory": ("sourced", False), "host_link": ("text", False), "interconnect": ("text", False)},
    "reference": {"accelerator": ("text", True), "model": ("text", True), "weight_precision": ("text", True),
                  "pool_weight_precision": ("text", True), "choices": ("table", True),
                  "inputs": ("table", True), "lecture": ("table", True)},   # scenario inputs: mlsysim.scenario checks them
}

#: the form of a registry name: what ``Hardware.Cloud.<name>`` in a cell and the CLI accept
NAME_FORM = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
#: attributes the registry's namespaces already have (``Hardware.Cloud``, ``Systems.Nodes.get``, ...)
RESERVED_NAMES = frozenset({"Cloud", "Language", "Nodes", "Links", "get", "names"})


def _describe(value) -> str:
    """A TOML value as a message shows it: its kind for tables and lists, else its repr (shortened)."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.date, datetime.time)):
        return f"{value.isoformat()}, a TOML date or time (put text in quotes)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _printable(text: str) -> str:
    """``text``, with control characters escaped as in a repr ("a\\nb")."""
    return text if text.isprintable() else repr(text)[1:-1]


@lru_cache(maxsize=None)
def _units_of(text: str):
    """The units ``text`` names ("TB/s"), parsed once: pint re-parses a compound unit on every use. The
    result is pint's immutable UnitsContainer, shared safely by every quantity built on it; an unknown unit
    raises (and is not cached)."""
    return ureg.parse_units(text)._units  # noqa: SLF001 - what Q_(x, text) stores for a unit given as text


@lru_cache(maxsize=None)
def _parsed_expression(text: str):
    return Q_(text)


def _expression(text: str):
    """``Q_(text)`` (pint's expression parser: "80 GB" keeps its integer 80), parsed once per text; a
    quantity can be changed in place (``ito``), so each caller gets its own copy."""
    return copy.copy(_parsed_expression(text))


@lru_cache(maxsize=None)
def _dimensionality_of(unit: str):
    """The dimension of ``unit`` (one of _DIMS's reference units), immutable."""
    return ureg.Unit(unit).dimensionality


def _closest(word: str, choices, prefix: str = "") -> str:
    """'; did you mean 'x'?' for the closest of ``choices`` (difflib), or nothing."""
    near = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {prefix + near[0]!r}?" if near else ""


# ───────────────────────────── loading and validation ─────────────────────────────

class _Loader:
    """Reads the data files of one folder; every message it raises names file, entry and field."""

    def __init__(self, data_dir: Path):
        self.dir = Path(data_dir)
        self.sources: dict[str, Source] = {}
        self.texts: dict[str, str] = {}   # each file as read, for the line a message names

    def read(self, name: str) -> dict:
        path = self.dir / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RegistryError(f"{path}: cannot be read ({exc.strerror})") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise RegistryError(f"{path}:{line}: not valid UTF-8 (byte 0x{data[exc.start]:02X}); "
                                "re-save the file as UTF-8") from None
        self.texts[name] = text
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:  # duplicate keys land here too
            msg, _, at = str(exc).partition(" (at line ")
            line = at.split(",")[0] if at[:1].isdigit() else ""
            twice = "twice" in msg or "overwrite" in msg
            raise RegistryError(f"{path}" + (f":{line}" if line else "") + f": not valid TOML: {msg}"
                                + ("; each entry needs a unique [name] and each field is written once" if twice
                                   else "")) from None

    def where(self, file: str, entry: str | None, fld: str = "") -> str:
        """``<folder>/<file>:<line>: [entry] field``: the line where the field is written (its entry's
        header when it is not; none when the entry has no header, :func:`~mlsysim.tomllines.toml_line`);
        entry or field left out where there is none; a quoted TOML key with a line break or other control
        character is shown escaped, so the message stays one line."""
        line = toml_line(self.texts.get(file), entry, fld)
        entry, fld = _printable(entry or ""), _printable(fld)
        return (f"{self.dir / file}:" + (f"{line}:" if line else "") + (f" [{entry}]" if entry else "")
                + (f" {fld}" if fld else ""))

    def source(self, file, entry, fld, key) -> Source:
        if key not in self.sources:
            raise RegistryError(f"{self.where(file, entry, fld)}: unknown source {_printable(str(key))!r}"
                                f"{_closest(str(key), self.sources)} (a source is the [name] of an entry "
                                f"of sources.toml; add one there for a new source)")
        return self.sources[key]

    def quantity(self, file, entry, fld, text, kind):
        """``text`` ("3.35 TB/s") as a finite, positive quantity of the dimension ``kind`` names."""
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            raise RegistryError(f"{self.where(file, entry, fld)}: {text!r} has no unit; write it as a string with "
                                f"its unit, e.g. \"3.35 TB/s\" or \"80 GiB\"")
        if not isinstance(text, str):
            raise RegistryError(f"{self.where(file, entry, fld)}: expected a quantity with its unit in quotes, "
                                f"e.g. \"3.35 TB/s\", got {_describe(text)}")
        try:
            num, _, unit = text.strip().partition(" ")
            try:  # "3.35 TB/s": a number and a unit (each unit text parsed once: _units_of)
                q = Q_(float(num), _units_of(unit.strip() or "dimensionless"))
            except ValueError:  # anything else goes through pint's expression parser
                q = Q_(text)
        except Exception as exc:  # pint raises several kinds
            raise RegistryError(f"{self.where(file, entry, fld)}: cannot parse {text!r} as a quantity ({exc})") from None
        want = _DIMS[kind]
        if not hasattr(q, "units") or q.dimensionality != _dimensionality_of(want):
            got = getattr(q, "units", "no unit")
            raise RegistryError(f"{self.where(file, entry, fld)}: {text!r} is in {got}, but a {kind} must convert "
                                f"to {want}; fix the unit")
        if not math.isfinite(q.magnitude):
            raise RegistryError(f"{self.where(file, entry, fld)}: {text!r} is not a finite number; "
                                "give the published value")
        if q.magnitude <= 0:
            raise RegistryError(f"{self.where(file, entry, fld)}: {text!r} must be positive")
        return q

    def sourced(self, file, entry, fld, item, kind):
        """``{ value, source, note }``: the value (a quantity of ``kind``, or a positive integer) and its provenance."""
        check_fields(self, file, entry, item, SCHEMAS["sourced"], fld + ".")
        value = item["value"]  # a message about it names the field itself (``memory.bandwidth``)
        if kind != "int":
            q = self.quantity(file, entry, fld, value, kind)
        elif isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise RegistryError(f"{self.where(file, entry, fld)}: expected a positive integer, got {_describe(value)}")
        else:
            q = value
        return q, Provenance(self.source(file, entry, fld + ".source", item["source"]), item.get("note", ""))

    def link(self, links, file, entry, fld, key):
        """The link ``key`` names (None where the field is absent)."""
        if key is None:
            return None
        if key not in links:
            raise RegistryError(f"{self.where(file, entry, fld)}: unknown link {key!r}{_closest(key, links)} "
                                f"(known: {', '.join(links)})")
        return links[key]


def check_fields(ld: _Loader, file: str, entry: str | None, table, schema: Mapping[str, tuple], prefix: str = ""):
    """Refuse a ``table`` that is not a table, has a field ``schema`` does not list (naming the closest
    one), lacks a required field, or has one of the wrong shape; ``prefix`` names a nested table."""
    if not isinstance(table, dict):
        above = "" if prefix else " (a field above a file's first [header] belongs to no entry)"
        raise RegistryError(f"{ld.where(file, entry, prefix.rstrip('.'))}: expected a table of fields, "
                            f"got {_describe(table)}{above}")
    for f in table:
        if f not in schema:
            what = "table" if entry is None and isinstance(table[f], dict) else "field"  # systems.toml: [nodes.X]
            raise RegistryError(f"{ld.where(file, entry, prefix + f)}: unknown {what}{_closest(f, schema, prefix)} "
                                f"(known: {', '.join(prefix + k for k in schema)})")
    for f, (shape, required, *missing) in schema.items():
        if f in table:
            problem = _shape_problem(table[f], shape)
            if problem:  # the place is written out only for a message (most fields are fine)
                raise RegistryError(f"{ld.where(file, entry, prefix + f)}: {problem}")
        elif required:
            raise RegistryError(f"{ld.where(file, entry, prefix + f)}: {missing[0] if missing else 'missing field'}")


def read_checked(file: str, schema: Mapping[str, tuple], data_dir: Path = DATA_DIR) -> dict:
    """A data file of plain fields (``reference.toml``) read from ``data_dir`` and checked against ``schema``."""
    ld = _Loader(data_dir)
    data = ld.read(file)
    check_fields(ld, file, None, data, schema)
    return data


def _shape_problem(value, shape: str) -> str | None:
    """What is wrong with one field's shape (see SCHEMAS), or None; quantities are checked where they are read."""
    if shape == "text" and not (isinstance(value, str) and value.strip()):
        return f"expected text in quotes, got {_describe(value)}"
    if shape == "int" and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
        return f"expected a positive integer, got {_describe(value)}"
    if shape == "table" and not isinstance(value, dict):
        return f"expected a table of fields, got {_describe(value)}"
    if shape == "list" and not isinstance(value, list):
        return f"expected a list of tables [{{ ... }}, ...], got {_describe(value)}"
    if shape == "sourced" and not isinstance(value, dict):
        return f"write {{ value = \"...\", source = \"...\" }}, got {_describe(value)}"
    return None


def _check_name(ld: _Loader, file: str, entry: str, name: str, namespace: str) -> None:
    """A registry name must be one a cell can write after ``namespace.`` (``Hardware.Cloud``) and the CLI accepts."""
    if NAME_FORM.fullmatch(name) and not keyword.iskeyword(name) and name not in RESERVED_NAMES:
        return
    fixed = re.sub(r"[^A-Za-z0-9_]", "_", name)
    fixed = fixed if fixed[:1].isalpha() else "X" + fixed
    why = (f"{name!r} is already an attribute of the registry's namespaces" if name in RESERVED_NAMES else
           f"{name!r} is a Python keyword" if keyword.iskeyword(name) else f"{name!r} is not a Python identifier")
    raise RegistryError(f"{ld.where(file, entry)}: {why}; a registry name is ASCII letters, digits and _, "
                        f"starting with a letter (e.g. {fixed if fixed != name else fixed + '_1'}), as cells write "
                        f"{namespace}.<name>")


def load_sources(ld: _Loader) -> dict[str, Source]:
    """sources.toml: key -> :class:`Source`."""
    out = {}
    for key, s in ld.read("sources.toml").items():
        check_fields(ld, "sources.toml", key, s, SCHEMAS["source"])
        out[key] = Source(key=key, **s)
    return out


def _load_link(ld: _Loader, name: str, e) -> Link:
    """One ``[links.<name>]`` of systems.toml."""
    entry = f"links.{name}"
    _check_name(ld, "systems.toml", entry, name, "Systems.Links")
    check_fields(ld, "systems.toml", entry, e, SCHEMAS["link"])
    bw, prov = ld.sourced("systems.toml", entry, "bandwidth", e["bandwidth"], "bandwidth")
    return Link(name, e["display_name"], bw, MappingProxyType({"bandwidth": prov}))


def _load_compute(ld: _Loader, name: str, table: dict) -> tuple[dict, dict, dict]:
    """An accelerator's ``compute.<precision>`` figures: dense, sparse, and their provenance."""
    F = "accelerators.toml"
    if not table:
        raise RegistryError(f"{ld.where(F, name, 'compute')}: no precision; give at least one dense figure, "
                            "e.g. compute.bf16 = { dense = \"... Tflop/s\", source = \"...\" }")
    dense, sparse, sources = {}, {}, {}
    for prec, item in table.items():
        fld = f"compute.{prec}"
        if prec not in PRECISION_BYTES:
            raise RegistryError(f"{ld.where(F, name, fld)}: unknown precision {prec!r}; "
                                f"use one of {', '.join(PRECISION_BYTES)}")
        check_fields(ld, F, name, item, SCHEMAS["compute"], fld + ".")
        dense[prec] = ld.quantity(F, name, fld + ".dense", item["dense"], "throughput")
        if "sparse" in item:
            sparse[prec] = ld.quantity(F, name, fld + ".sparse", item["sparse"], "throughput")
            ratio = (sparse[prec] / dense[prec]).to("").magnitude
            if abs(ratio - 2) > 0.01:
                raise RegistryError(f"{ld.where(F, name, fld)}: sparse {item['sparse']!r} is {ratio:.2f}x dense "
                                    f"{item['dense']!r}; 2:4 sparsity doubles the dense rate, so one of them "
                                    f"is mislabelled")
        sources[fld] = Provenance(ld.source(F, name, fld + ".source", item["source"]), item.get("note", ""))
    return dense, sparse, sources


def _load_conflicts(ld: _Loader, name: str, items: list, dense: Mapping) -> tuple[Conflict, ...]:
    """An accelerator's ``conflicts``: each names one of its stored values and a published one of that kind."""
    F = "accelerators.toml"
    kinds = {"memory.capacity": "capacity", "memory.bandwidth": "bandwidth",
             **{f"compute.{p}": "throughput" for p in dense}}
    out = []
    for i, c in enumerate(items, 1):  # numbered from 1, as a reader counts them
        fld = f"conflicts[{i}]"
        check_fields(ld, F, name, c, SCHEMAS["conflict"], fld + ".")
        if c["field"] not in kinds:
            raise RegistryError(f"{ld.where(F, name, fld + '.field')}: {c['field']!r} is not a value of this "
                                f"entry{_closest(c['field'], kinds)} (values: {', '.join(kinds)})")
        ld.quantity(F, name, fld + ".value", c["value"], kinds[c["field"]])
        out.append(Conflict(c["field"], _expression(c["value"]), ld.source(F, name, fld + ".source", c["source"]),
                            c.get("note", "")))
    return tuple(out)


def _load_accelerator(ld: _Loader, name: str, e, links: Mapping[str, Link]) -> Accelerator:
    """One ``[<name>]`` of accelerators.toml."""
    F = "accelerators.toml"
    _check_name(ld, F, name, name, "Hardware.Cloud")
    check_fields(ld, F, name, e, SCHEMAS["accelerator"])
    check_fields(ld, F, name, e["memory"], SCHEMAS["memory"], "memory.")
    sources: dict[str, Provenance] = {}
    mem = {}
    for fld in ("capacity", "bandwidth"):  # the kind of each is its name
        mem[fld], sources[f"memory.{fld}"] = ld.sourced(F, name, f"memory.{fld}", e["memory"][fld], fld)
    gib = mem["capacity"].to("GiB").magnitude
    if str(mem["capacity"].units) != "gibibyte" or gib != round(gib):
        # one convention for every part: the vendor's "GB" read the JEDEC way, a whole number of GiB
        # (fmt_memory_capacity prints it back as the vendor's label); a decimal figure goes in conflicts
        raise RegistryError(f"{ld.where(F, name, 'memory.capacity')}: {e['memory']['capacity'].get('value')!r} is not a "
                            f"whole number written in GiB; store the vendor's 'GB' figure as GiB (an '80GB' part is "
                            f"\"80 GiB\") and put a decimal figure under conflicts")
    dense, sparse, compute_sources = _load_compute(ld, name, e["compute"])
    sources.update(compute_sources)
    return Accelerator(
        name=name, display_name=e["display_name"], vendor=e["vendor"], variant=e["variant"],
        memory=Memory(**mem),
        compute=Compute(MappingProxyType(dense), MappingProxyType(sparse), owner=name),
        host_link=ld.link(links, F, name, "host_link", e.get("host_link")),
        sources=MappingProxyType(sources), conflicts=_load_conflicts(ld, name, e.get("conflicts", []), dense))


def _check_parameter_counts(ld: _Loader, m: Model) -> None:
    """The published counts must agree with the geometry's within PARAMETER_TOLERANCE."""
    for fld, published, computed in (
            ("parameters", m.parameters, parameters_from_geometry(m)),
            ("active_parameters", m.active_parameters, active_parameters_from_geometry(m))):
        if published is None:
            continue
        pub = published.to("count").magnitude
        if abs(pub - computed) / computed > PARAMETER_TOLERANCE:
            raise RegistryError(f"{ld.where('models.toml', m.name, fld)}: published {pub:,.0f} differs from the "
                                f"geometry's {computed:,} by more than {PARAMETER_TOLERANCE:.0%}; check the geometry")


def _load_model(ld: _Loader, name: str, e) -> Model:
    """One ``[<name>]`` of models.toml."""
    F = "models.toml"
    _check_name(ld, F, name, name, "Models.Language")
    check_fields(ld, F, name, e, SCHEMAS["model"])
    if e["heads"] % e["kv_heads"]:
        raise RegistryError(f"{ld.where(F, name, 'kv_heads')}: {e['kv_heads']} does not divide heads={e['heads']}")
    if e.get("experts_per_token", 1) > e.get("experts", 1):
        raise RegistryError(f"{ld.where(F, name, 'experts_per_token')}: {e['experts_per_token']} is more than "
                            f"experts = {e.get('experts', 1)}")
    m = Model(name=name, display_name=e["display_name"],
              parameters=ld.quantity(F, name, "parameters", e["parameters"], "count"),
              active_parameters=(ld.quantity(F, name, "active_parameters", e["active_parameters"], "count")
                                 if "active_parameters" in e else None),
              experts=e.get("experts", 1), experts_per_token=e.get("experts_per_token", 1),
              sliding_window=e.get("sliding_window"),
              source=ld.source(F, name, "source", e["source"]), **{f: e[f] for f in _MODEL_INTS})
    _check_parameter_counts(ld, m)
    return m


def _load_node(ld: _Loader, name: str, e, accels: Mapping[str, Accelerator], links: Mapping[str, Link]) -> Node:
    """One ``[nodes.<name>]`` of systems.toml (host memory and host link are optional: Google publishes
    neither for every TPU host)."""
    F, entry = "systems.toml", f"nodes.{name}"
    _check_name(ld, F, entry, name, "Systems.Nodes")
    check_fields(ld, F, entry, e, SCHEMAS["node"])
    if e["accelerator"] not in accels:
        raise RegistryError(f"{ld.where(F, entry, 'accelerator')}: unknown accelerator {e['accelerator']!r}"
                            f"{_closest(e['accelerator'], accels)} (known: {', '.join(accels)})")
    n, p_n = ld.sourced(F, entry, "accelerators_per_node", e["accelerators_per_node"], "int")
    srcs = {"accelerators_per_node": p_n}
    hm = None
    if "host_memory" in e:
        hm, srcs["host_memory"] = ld.sourced(F, entry, "host_memory", e["host_memory"], "capacity")
    return Node(name, e["display_name"], accels[e["accelerator"]], n, hm,
                ld.link(links, F, entry, "host_link", e.get("host_link")),
                ld.link(links, F, entry, "interconnect", e.get("interconnect")),
                MappingProxyType(srcs))


def _check_every_accelerator_has_a_node(ld: _Loader, accels: Mapping, nodes: Mapping[str, Node]) -> None:
    """The book computes per-node values (the attention-state pool, resident trajectories) for every
    accelerator, so each must be carried by a node of systems.toml."""
    carried = {n.accelerator.name for n in nodes.values()}
    for name in accels:
        if name not in carried:
            raise RegistryError(
                f"{ld.where('systems.toml', None)} no node carries accelerator {name!r} (accelerators.toml [{name}]); "
                f"add a [nodes.<Name>] table with display_name, accelerator = \"{name}\" and "
                f"accelerators_per_node = {{ value = N, source = \"...\" }}")


def _check_unique_names(ld: _Loader, tables) -> None:
    """Registry names are unique across every table, ignoring case (lookups ignore case)."""
    seen: dict[str, tuple[str, str, str]] = {}
    for kind, file, table in tables:
        for key in table:
            if key.lower() in seen:
                kind0, file0, key0 = seen[key.lower()]
                entry = key if file != "systems.toml" else f"{kind}s.{key}"
                raise RegistryError(f"{ld.where(file, entry)}: the name {key!r} is also used by the {kind0} "
                                    f"{key0!r} in {file0}; registry names must be unique, ignoring case")
            seen[key.lower()] = (kind, file, key)


def load_registry(data_dir: Path = DATA_DIR) -> "Registry":
    """Load and validate every data file in ``data_dir``."""
    ld = _Loader(data_dir)
    ld.sources = load_sources(ld)
    systems = ld.read("systems.toml")
    check_fields(ld, "systems.toml", None, systems, SCHEMAS["systems"])
    links = {name: _load_link(ld, name, e) for name, e in systems.get("links", {}).items()}
    accels = {name: _load_accelerator(ld, name, e, links) for name, e in ld.read("accelerators.toml").items()}
    models = {name: _load_model(ld, name, e) for name, e in ld.read("models.toml").items()}
    nodes = {name: _load_node(ld, name, e, accels, links) for name, e in systems.get("nodes", {}).items()}
    _check_unique_names(ld, (("accelerator", "accelerators.toml", accels), ("model", "models.toml", models),
                             ("node", "systems.toml", nodes), ("link", "systems.toml", links)))
    _check_every_accelerator_has_a_node(ld, accels, nodes)
    return Registry(accels, models, nodes, links, ld.sources)


class _Namespace:
    """Attribute access to one table of the registry (``Hardware.Cloud.H100``)."""

    def __init__(self, kind: str, table: Mapping[str, Any]):
        self._kind, self._table = kind, dict(table)
        for k, v in table.items():
            setattr(self, k, v)

    def __iter__(self):
        return iter(self._table.values())

    def __len__(self):
        return len(self._table)

    def names(self) -> list[str]:
        return list(self._table)

    def get(self, name: str):
        """Look up by registry name, case-insensitively; ``-``, ``.`` and spaces match ``_``."""
        want = name.strip().lower().replace("-", "_").replace(".", "_").replace(" ", "_")
        for k, v in self._table.items():
            if k.lower() == want or getattr(v, "display_name", "").lower() == name.strip().lower():
                return v
        prefixed = [v for k, v in self._table.items() if k.lower().startswith(want)]
        if want and len(prefixed) == 1:  # "A100" names A100_80GB when nothing else starts so
            return prefixed[0]
        raise UnknownEntryError(f"unknown {self._kind} {name!r}; available: {', '.join(self._table)}")


@dataclass
class Registry:
    accelerators: dict
    models: dict
    nodes: dict
    links: dict
    sources: dict = field(default_factory=dict)

    def namespaces(self):
        cloud = _Namespace("accelerator", self.accelerators)
        hardware = _Namespace("accelerator", self.accelerators)
        hardware.Cloud = cloud
        models = _Namespace("model", self.models)
        models.Language = _Namespace("model", self.models)
        systems = _Namespace("system", {})
        systems.Nodes = _Namespace("node", self.nodes)
        systems.Links = _Namespace("link", self.links)
        return hardware, models, systems


REGISTRY = load_registry()
Hardware, Models, Systems = REGISTRY.namespaces()
