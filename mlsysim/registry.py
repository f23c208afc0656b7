"""The typed registry: accelerators, models, links and nodes, loaded from ``mlsysim/data/*.toml``.

Every value carries a unit and a source. Loading validates the data and fails with a
:class:`RegistryError` naming file, entry and field: a wrong dimension, a missing unit, an unknown
precision, a sparse figure that is not twice the dense one, a model whose published parameter count
disagrees with its geometry, or a reference to an unknown link, accelerator or source.
"""
from __future__ import annotations

import math

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import RegistryError, UnknownEntryError, UnknownPrecisionError
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


# ───────────────────────────── loading and validation ─────────────────────────────

class _Loader:
    def __init__(self, data_dir: Path):
        self.dir = Path(data_dir)
        self.sources: dict[str, Source] = {}

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
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:  # duplicate keys land here too
            raise RegistryError(f"{path}: {exc} (a name may be defined twice; each entry needs a unique [name])") from None

    def where(self, file: str, entry: str, fld: str) -> str:
        return f"{self.dir / file}: [{entry}] {fld}"

    def source(self, file, entry, fld, key) -> Source:
        if key not in self.sources:
            raise RegistryError(f"{self.where(file, entry, fld)}: unknown source {key!r}; define it in sources.toml "
                                f"(known: {', '.join(sorted(self.sources))})")
        return self.sources[key]

    def quantity(self, file, entry, fld, text, kind):
        if not isinstance(text, str):
            raise RegistryError(f"{self.where(file, entry, fld)}: {text!r} has no unit; write it as a string with "
                                f"its unit, e.g. \"3.35 TB/s\" or \"80 GiB\"")
        try:
            num, _, unit = text.strip().partition(" ")
            try:  # "3.35 TB/s": a number and a unit (pint caches parsed units, so this is fast)
                q = Q_(float(num), unit.strip() or "dimensionless")
            except ValueError:  # anything else goes through pint's expression parser
                q = Q_(text)
        except Exception as exc:  # pint raises several kinds
            raise RegistryError(f"{self.where(file, entry, fld)}: cannot parse {text!r} as a quantity ({exc})") from None
        want = _DIMS[kind]
        if not hasattr(q, "units") or q.dimensionality != ureg.Unit(want).dimensionality:
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
        if not isinstance(item, dict) or "value" not in item or "source" not in item:
            raise RegistryError(f"{self.where(file, entry, fld)}: write {{ value = \"...\", source = \"...\" }}")
        value = item["value"]
        q = value if kind == "int" else self.quantity(file, entry, fld, value, kind)
        if kind == "int" and (not isinstance(value, int) or value <= 0):
            raise RegistryError(f"{self.where(file, entry, fld)}: expected a positive integer, got {value!r}")
        return q, Provenance(self.source(file, entry, fld, item["source"]), item.get("note", ""))


def _require(loader, file, entry, table, fields):
    for f in fields:
        if f not in table:
            raise RegistryError(f"{loader.where(file, entry, f)}: missing field")


def load_registry(data_dir: Path = DATA_DIR) -> "Registry":
    """Load and validate every data file in ``data_dir``."""
    ld = _Loader(data_dir)
    for key, s in ld.read("sources.toml").items():
        _require(ld, "sources.toml", key, s, ("title", "publisher", "url", "accessed"))
        ld.sources[key] = Source(key=key, **s)

    systems = ld.read("systems.toml")
    links: dict[str, Link] = {}
    for name, e in systems.get("links", {}).items():
        _require(ld, "systems.toml", name, e, ("display_name", "bandwidth"))
        bw, prov = ld.sourced("systems.toml", name, "bandwidth", e["bandwidth"], "bandwidth")
        links[name] = Link(name, e["display_name"], bw, MappingProxyType({"bandwidth": prov}))

    def link(file, entry, fld, key, optional=False):
        if key is None and optional:
            return None
        if key not in links:
            raise RegistryError(f"{ld.where(file, entry, fld)}: unknown link {key!r} (known: {', '.join(links)})")
        return links[key]

    accels: dict[str, Accelerator] = {}
    F = "accelerators.toml"
    for name, e in ld.read(F).items():
        _require(ld, F, name, e, ("display_name", "vendor", "variant", "memory", "compute"))
        sources: dict[str, Provenance] = {}
        mem = {}
        for fld, kind in (("capacity", "capacity"), ("bandwidth", "bandwidth")):
            if fld not in e["memory"]:
                raise RegistryError(f"{ld.where(F, name, 'memory.' + fld)}: missing field")
            mem[fld], sources[f"memory.{fld}"] = ld.sourced(F, name, f"memory.{fld}", e["memory"][fld], kind)
        dense, sparse = {}, {}
        for prec, item in e["compute"].items():
            fld = f"compute.{prec}"
            if prec not in PRECISION_BYTES:
                raise RegistryError(f"{ld.where(F, name, fld)}: unknown precision {prec!r}; "
                                    f"use one of {', '.join(PRECISION_BYTES)}")
            if not isinstance(item, dict) or "dense" not in item:
                raise RegistryError(f"{ld.where(F, name, fld)}: give the dense figure as dense = \"... Tflop/s\" "
                                    f"(a sparse-only figure must not pose as dense)")
            dense[prec] = ld.quantity(F, name, fld + ".dense", item["dense"], "throughput")
            if "sparse" in item:
                sparse[prec] = ld.quantity(F, name, fld + ".sparse", item["sparse"], "throughput")
                ratio = (sparse[prec] / dense[prec]).to("").magnitude
                if abs(ratio - 2) > 0.01:
                    raise RegistryError(f"{ld.where(F, name, fld)}: sparse {item['sparse']!r} is {ratio:.2f}x dense "
                                        f"{item['dense']!r}; 2:4 sparsity doubles the dense rate, so one of them "
                                        f"is mislabelled")
            sources[fld] = Provenance(ld.source(F, name, fld, item.get("source")), item.get("note", ""))
        conflicts = tuple(
            Conflict(c["field"], Q_(c["value"]), ld.source(F, name, "conflicts", c["source"]), c.get("note", ""))
            for c in e.get("conflicts", ()))
        accels[name] = Accelerator(
            name=name, display_name=e["display_name"], vendor=e["vendor"], variant=e["variant"],
            memory=Memory(**mem),
            compute=Compute(MappingProxyType(dense), MappingProxyType(sparse), owner=name),
            host_link=link(F, name, "host_link", e.get("host_link"), optional=True),
            sources=MappingProxyType(sources), conflicts=conflicts)

    models: dict[str, Model] = {}
    F = "models.toml"
    ints = ("layers", "hidden_dim", "ffn_dim", "heads", "kv_heads", "head_dim", "vocab_size", "context_length")
    for name, e in ld.read(F).items():
        _require(ld, F, name, e, ("display_name", "source", "parameters") + ints)
        for f in ints + ("experts", "experts_per_token"):
            if f in e and (not isinstance(e[f], int) or e[f] <= 0):
                raise RegistryError(f"{ld.where(F, name, f)}: expected a positive integer, got {e[f]!r}")
        if e["heads"] % e["kv_heads"]:
            raise RegistryError(f"{ld.where(F, name, 'kv_heads')}: {e['kv_heads']} does not divide heads={e['heads']}")
        kw = {f: e[f] for f in ints}
        m = Model(name=name, display_name=e["display_name"],
                  parameters=ld.quantity(F, name, "parameters", e["parameters"], "count"),
                  active_parameters=(ld.quantity(F, name, "active_parameters", e["active_parameters"], "count")
                                     if "active_parameters" in e else None),
                  experts=e.get("experts", 1), experts_per_token=e.get("experts_per_token", 1),
                  source=ld.source(F, name, "source", e["source"]), **kw)
        for fld, published, computed in (
                ("parameters", m.parameters, parameters_from_geometry(m)),
                ("active_parameters", m.active_parameters, active_parameters_from_geometry(m))):
            if published is None:
                continue
            pub = published.to("count").magnitude
            if abs(pub - computed) / computed > PARAMETER_TOLERANCE:
                raise RegistryError(f"{ld.where(F, name, fld)}: published {pub:,.0f} differs from the geometry's "
                                    f"{computed:,} by more than {PARAMETER_TOLERANCE:.0%}; check the geometry")
        models[name] = m

    nodes: dict[str, Node] = {}
    F = "systems.toml"
    for name, e in systems.get("nodes", {}).items():
        # host memory and host link are optional: Google publishes neither for every TPU host
        _require(ld, F, name, e, ("display_name", "accelerator", "accelerators_per_node"))
        if e["accelerator"] not in accels:
            raise RegistryError(f"{ld.where(F, name, 'accelerator')}: unknown accelerator {e['accelerator']!r} "
                                f"(known: {', '.join(accels)})")
        n, p_n = ld.sourced(F, name, "accelerators_per_node", e["accelerators_per_node"], "int")
        srcs = {"accelerators_per_node": p_n}
        hm = None
        if "host_memory" in e:
            hm, srcs["host_memory"] = ld.sourced(F, name, "host_memory", e["host_memory"], "capacity")
        nodes[name] = Node(name, e["display_name"], accels[e["accelerator"]], n, hm,
                           link(F, name, "host_link", e.get("host_link"), optional=True),
                           link(F, name, "interconnect", e.get("interconnect"), optional=True),
                           MappingProxyType(srcs))

    names = {}
    for kind, table in (("accelerator", accels), ("model", models), ("node", nodes), ("link", links)):
        for key in table:
            if key.lower() in names:
                raise RegistryError(f"{ld.dir}: the name {key!r} ({kind}) is also used by a {names[key.lower()]}; "
                                    f"names must be unique across the registry")
            names[key.lower()] = kind
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
