"""``python -m mlsysim``: list the registry, show an entry, or print the appendix's reference values.

``reference`` takes the same free values as the HTML book's live mode (``--bandwidth`` in TB/s,
``--peak`` in Tflop/s at the weight precision, ``--capacity`` in the vendor's GB, ``--kv-precision``,
``--context``, ``--batch``), validated by :mod:`mlsysim.scenario` as the page validates them, so any
live page can be reproduced here. Bad input (unknown name, a precision the accelerator lacks, a number
outside an option's range) prints one line on stderr naming the option or what is available, and exits
with status 2.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from functools import lru_cache

from .errors import MlsysimError
from .reference import display_values, scenario_values, shown
from .registry import Accelerator, Hardware, Model, Models, Node, Systems
from .scenario import FREE, KV_PRECISIONS, REFERENCE, InputError, scenario
from .units import PRECISION_BYTES, Q_


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2, like every other bad input
        self.exit(2, f"mlsysim: error: {message}\n")


#: bytes per stored key/value element: from the narrowest precision a reader may choose for keys and values
#: (4 bits) to the widest the registry knows (fp64, 8 bytes)
KV_BYTES_MIN = min(PRECISION_BYTES[p].to("byte").magnitude for p in KV_PRECISIONS)
KV_BYTES_MAX = max(b.to("byte").magnitude for b in PRECISION_BYTES.values())


def _context(text: str) -> int:
    """``--context``: a whole number of tokens, at least 1 (the model's window is checked with the model)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number of tokens (from 1 to the model's "
                                         f"context window), got {text!r}")
    return n


def _kv_bytes(text: str) -> float:
    """``--kv-bytes``: bytes per stored key/value element, finite, above 0 and at most KV_BYTES_MAX."""
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not KV_BYTES_MIN <= x <= KV_BYTES_MAX:  # nan fails every comparison; inf fails the upper bound
        raise argparse.ArgumentTypeError(f"expected the bytes per stored key/value element, from {KV_BYTES_MIN:g} "
                                         f"(4-bit) to {KV_BYTES_MAX:g} (fp64), e.g. 2 for 16-bit, got {text!r}")
    return x


def _reserve(text: str) -> float:
    """``--reserve``: GB of runtime buffers per node, a finite number from 0 up."""
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not 0 <= x <= 100_000:
        raise argparse.ArgumentTypeError(f"expected the node's runtime reserve in GB, from 0 to 100,000, got {text!r}")
    return x


def _name(text: str) -> str:
    """``--accelerator`` / ``--model``: a registry name (an empty one is refused, never read as the default)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a registry name (python -m mlsysim list shows them), got ''")
    return text.strip()


def _given(text: str) -> str:
    """A free value (``--bandwidth``, ``--t-tool``, ...): checked with the scenario's range later; an empty one is
    refused here (the page reads an empty field as the reference; on a command line it is a mistake)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a value, got ''; leave the option out for the reference's")
    return text


def _precision(text: str) -> str:
    """``--weight-precision``: a precision name the registry knows (the accelerator's are checked later)."""
    if text not in PRECISION_BYTES:
        raise argparse.ArgumentTypeError(f"unknown precision {text!r}; use one of {', '.join(PRECISION_BYTES)}")
    return text


@lru_cache(maxsize=1)
def _parser() -> argparse.ArgumentParser:
    """The command line (built once a process: parsing reads it and changes nothing of it)."""
    p = _Parser(prog="python -m mlsysim", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    lst = sub.add_parser("list", help="accelerators, models, nodes and links with their sources")
    lst.add_argument("--json", action="store_true", help="one JSON object: each kind's entries with their sources")
    s = sub.add_parser("show", help="every field of one entry, with sources")
    s.add_argument("name")
    s.add_argument("--json", action="store_true", help="one JSON object: the entry's fields in SI base units")
    r = sub.add_parser("reference", help="the appendix's reference values for an accelerator and a model")
    r.add_argument("--accelerator", "-a", type=_name, default=None, help="default: the book's reference")
    r.add_argument("--model", "-m", type=_name, default=None, help="default: the book's reference")
    r.add_argument("--node", "-n", default=None, help="default: the registry node built from the accelerator")
    r.add_argument("--weight-precision", "-p", type=_precision, default=None,
                   help="default: the reference's (fp8); an accelerator that publishes no rate of it serves the "
                        "nearest it publishes, as the book's page does, and the output says so")
    r.add_argument("--kv-bytes", type=_kv_bytes, default=None,
                   help=f"bytes per stored key/value element, from {KV_BYTES_MIN:g} to {KV_BYTES_MAX:g} "
                        "(default: --kv-precision's)")
    r.add_argument("--kv-precision", type=_given, default=None, help="precision of stored keys and values (default: bf16)")
    r.add_argument("--bandwidth", type=_given, default=None, help="the accelerator's memory bandwidth, TB/s (or '6 TB/s')")
    r.add_argument("--peak", type=_given, default=None, help="the accelerator's dense peak at the weight precision, Tflop/s")
    r.add_argument("--capacity", type=_given, default=None,
                   help="memory per accelerator in the vendor's GB (80 on an H100 is its 80 GiB)")
    r.add_argument("--batch", type=_given, default=None, help="streams in one batched decode step (default: 64)")
    r.add_argument("--reserve", type=_reserve, default=None,
                   help="GB of runtime buffers the node pool leaves out (default: the appendix's 20 GB)")
    r.add_argument("--context", type=_context, default=None,
                   help="tokens of context per trajectory, from 1 to the model's context window")
    r.add_argument("--json", action="store_true", help="one JSON object in SI base units")
    lec = sub.add_parser("lecture", help="Lecture 19's scenario values (the standing session's three fates) for free inputs")
    lec.add_argument("--accelerator", "-a", type=_name, default=REFERENCE["accelerator"])
    for key, f in FREE.items():
        if f.chapter == "lecture":
            flag = "--" + key.removeprefix("lecture_").replace("_", "-")
            lec.add_argument(flag, dest=key, type=_given, default=None, help=f"{f.what} ({f.unit}); default: data/reference.toml [lecture]")
    lec.add_argument("--json", action="store_true", help="one JSON object in SI base units")
    c = sub.add_parser("calibrate", help="published measurements against the floors under them (the appendix's table)")
    c.add_argument("--accelerator", "-a", type=_name, default=None, help="only measurements on this accelerator")
    c.add_argument("--model", "-m", type=_name, default=None, help="only measurements of this model")
    c.add_argument("--lang", choices=("en", "zh"), default="en", help="column headers and metric names")
    c.add_argument("--json", action="store_true",
                   help="a JSON list, one object per measured value: as published (the source's digits) and in SI "
                        "units, its floor, the strict bound under it, whether the floor is that bound, the margin")
    return p


def _source_of(prov) -> dict:
    src = prov.source
    return {"key": src.key, "title": src.title, "url": src.url, "note": prov.note or ""}


def _list_json(out) -> None:
    _finite_json({
        "accelerators": [{"name": a.name, "display_name": a.display_name, "precisions": list(a.precisions),
                          "source": a.sources["memory.bandwidth"].source.key} for a in Hardware.Cloud],
        "models": [{"name": m.name, "display_name": m.display_name, "parameters": m.parameters.to("count").magnitude,
                    "source": m.source.key} for m in Models.Language],
        "nodes": [{"name": n.name, "display_name": n.display_name, "accelerator": n.accelerator.name,
                   "accelerators_per_node": n.accelerators_per_node,
                   "source": n.sources["accelerators_per_node"].source.key} for n in Systems.Nodes],
        "links": [{"name": k.name, "display_name": k.display_name,
                   "bandwidth_bytes_per_s": k.bandwidth.to("byte/second").magnitude,
                   "source": k.sources["bandwidth"].source.key} for k in Systems.Links]}, out)


def _si(q):
    """A quantity in SI base units as a number (bytes, flop/s, count), or the value as it is."""
    return q.to_base_units().magnitude if hasattr(q, "units") else q


def _show_json(name: str, out) -> None:
    e = _lookup(name)
    d: dict = {"name": e.name, "display_name": e.display_name}
    if isinstance(e, Accelerator):
        d.update(vendor=e.vendor, variant=e.variant, memory_capacity_bytes=_si(e.memory.capacity),
                 memory_bandwidth_bytes_per_s=_si(e.memory.bandwidth),
                 dense_flop_per_s={p: _si(q) for p, q in e.compute.precision_flops.items()},
                 sparse_flop_per_s={p: _si(q) for p, q in e.compute.sparse_flops.items()},
                 host_link=e.host_link.name if e.host_link else None,
                 sources={f: _source_of(p) for f, p in e.sources.items()})
    elif isinstance(e, Model):
        d.update({f: _si(getattr(e, f)) for f in ("parameters", "active_parameters", "layers", "hidden_dim", "ffn_dim",
                                                   "heads", "kv_heads", "head_dim", "vocab_size", "context_length",
                                                   "experts", "experts_per_token", "sliding_window")},
                 attention_design=e.attention_design, parameters_from_geometry=e.parameters_from_geometry,
                 source={"key": e.source.key, "title": e.source.title, "url": e.source.url})
    elif isinstance(e, Node):
        d.update(accelerator=e.accelerator.name, accelerators_per_node=e.accelerators_per_node,
                 host_memory_bytes=_si(e.host_memory) if e.host_memory is not None else None,
                 host_link=e.host_link.name if e.host_link else None,
                 sources={f: _source_of(p) for f, p in e.sources.items()})
    else:
        d.update(bandwidth_bytes_per_s=_si(e.bandwidth), sources={f: _source_of(p) for f, p in e.sources.items()})
    _finite_json(d, out)


def _cmd_list(out) -> None:
    out.write("Accelerators\n")
    for a in Hardware.Cloud:
        precs = ", ".join(a.precisions)
        out.write(f"  {a.name:<12} {a.display_name}  [{precs}]  source: {a.sources['memory.bandwidth'].source.key}\n")
    out.write("Models\n")
    for m in Models.Language:
        out.write(f"  {m.name:<12} {m.display_name}  {m.parameters.to('count').magnitude / 1e9:.2f}B params  "
                  f"source: {m.source.key}\n")
    out.write("Nodes\n")
    for n in Systems.Nodes:
        out.write(f"  {n.name:<16} {n.display_name}  {n.accelerators_per_node}x {n.accelerator.name}  "
                  f"source: {n.sources['accelerators_per_node'].source.key}\n")
    out.write("Links\n")
    for link in Systems.Links:
        out.write(f"  {link.name:<16} {link.display_name}  {link.bandwidth:~}  source: "
                  f"{link.sources['bandwidth'].source.key}\n")


def _lookup(name: str):
    for ns in (Hardware.Cloud, Models.Language, Systems.Nodes, Systems.Links):
        try:
            return ns.get(name)
        except MlsysimError:
            continue
    every = Hardware.Cloud.names() + Models.Language.names() + Systems.Nodes.names() + Systems.Links.names()
    raise _BadInput(f"unknown name {name!r}; available: {', '.join(every)}")


class _BadInput(Exception):
    pass


def _cmd_show(name: str, out) -> None:
    e = _lookup(name)
    out.write(f"{e.name}: {e.display_name}\n")
    if isinstance(e, Accelerator):
        out.write(f"  vendor: {e.vendor}; variant: {e.variant}\n")
        out.write(f"  memory.capacity: {e.memory.capacity:~}   memory.bandwidth: {e.memory.bandwidth:~}\n")
        for p, q in e.compute.precision_flops.items():
            sp = e.compute.sparse_flops.get(p)
            out.write(f"  compute.{p}: {q:~} dense" + (f" ({sp:~} with sparsity)" if sp is not None else "") + "\n")
        out.write(f"  host link: {e.host_link.display_name if e.host_link else 'n/a'}\n")
        for fld, prov in e.sources.items():
            out.write(f"  source {fld}: {prov.source.title} <{prov.source.url}>" + (f" — {prov.note}" if prov.note else "") + "\n")
        for c in e.conflicts:
            out.write(f"  conflict {c.field}: {c.value:~} per {c.source.title} — {c.note}\n")
    elif isinstance(e, Model):
        for f in ("parameters", "active_parameters", "layers", "hidden_dim", "ffn_dim", "heads", "kv_heads",
                  "head_dim", "vocab_size", "context_length", "experts", "experts_per_token"):
            v = getattr(e, f)
            if v is not None:
                n = v.to("count").magnitude if hasattr(v, "units") else v
                out.write(f"  {f}: {n:,.0f}\n")
        out.write(f"  parameters from geometry: {e.parameters_from_geometry:,}\n")
        out.write(f"  source: {e.source.title} <{e.source.url}>\n")
    elif isinstance(e, Node):
        mem = f"{e.host_memory:~}" if e.host_memory is not None else "not published"
        out.write(f"  {e.accelerators_per_node}x {e.accelerator.display_name}; host memory {mem}; "
                  f"host link {e.host_link.display_name if e.host_link else 'not published'}\n")
        for fld, prov in e.sources.items():
            out.write(f"  source {fld}: {prov.source.title}" + (f" — {prov.note}" if prov.note else "") + "\n")
    else:
        out.write(f"  bandwidth (one direction): {e.bandwidth:~}\n")
        for fld, prov in e.sources.items():
            out.write(f"  source {fld}: {prov.source.title} — {prov.note}\n")


def _finite_json(obj, out) -> None:
    """``obj`` as JSON; a value that is not a finite number is an error (never ``Infinity`` in the output)."""
    try:
        text = json.dumps(obj, indent=2, sort_keys=True, allow_nan=False)
    except ValueError:
        raise _BadInput("a value is not a finite number for these inputs; choose inputs in the ranges the "
                        "options state") from None
    out.write(text + "\n")


def _scenario(a):
    """The scenario of the options, validated as the live page validates its inputs (messages name the option)."""
    free = {k: getattr(a, k) for k in ("bandwidth", "peak", "capacity", "kv_precision", "context", "batch")
            if getattr(a, k) is not None}
    try:
        return scenario(a.accelerator, a.model, a.weight_precision, **free)
    except InputError as exc:
        key, _, rest = str(exc).partition(": ")
        raise _BadInput(f"--{key.replace('_', '-')}: {rest}" if key in FREE else str(exc)) from None


def _cmd_reference(a, out) -> None:
    try:
        sc = _scenario(a)
        node = Systems.Nodes.get(a.node) if a.node else None
    except MlsysimError as exc:
        raise _BadInput(str(exc)) from None
    kw = {} if a.reserve is None else {"reserve": Q_(a.reserve, "GB")}
    v = scenario_values(sc, node=node, kv_bytes=a.kv_bytes, **kw)
    if a.json:
        _finite_json(dict(dataclasses.asdict(v), precision_note=sc.precision_note), out)
        return
    d = display_values(v, sc.accelerator, "en")
    accel, model = sc.accelerator, sc.model
    held = f"{_bits(v.pool_precision)}-bit weights held, {shown(v.reserve_bytes / 1e9, 0)} GB reserve"
    pool_line = ("n/a" if v.node_kv_pool_bytes is None else
                 f"0 GB (does not fit: {held})" if v.node_kv_pool_bytes <= 0 else f"{d['node_kv_pool_bytes']} GB ({held})")
    ctx = f"{v.context:,} token{'s' if v.context != 1 else ''}" + (" (the model's window)" if v.context_wanted > v.context else "")
    rows = [
        ("Accelerator / model / node", f"{accel.display_name} / {model.display_name} / {d['node'] if v.node else 'n/a'}"),
        ("Weight precision", v.weight_precision + (f" ({sc.precision_note})" if sc.precision_note else "")),
        ("Parameters per token / held", f"{shown(v.active_parameters / 1e9, 1)} / "
                                        f"{shown(model.parameters.to('count').magnitude / 1e9, 1)} billion"),
        ("Memory bandwidth / peak rate", f"{d['bandwidth']} TB/s / {d['peak']} Tflop/s"),
        ("Ridge point", f"{d['ridge_flop_per_byte']} FLOP/byte"),
        ("Decode floor per output token", f"{d['decode_floor_s']} ms"),
        ("Prefill time per prompt token", f"{d['prefill_per_token_s']} µs"),
        ("Decode/prefill ratio", d["decode_to_prefill_ratio"]),
        ("Attention crossover length", f"{d['attention_crossover_tokens']} tokens"),
        (f"KV bytes per token (its {v.attention_design} / MHA / MQA)",
         f"{d['kv_bytes_per_token']} / {d['kv_bytes_per_token_mha']} / {d['kv_bytes_per_token_mqa']} bytes"),
        (f"KV bytes at {ctx}", f"{d['kv_bytes_at_context']} GB"),
        ("Attention-state pool per node", pool_line),
        ("Resident trajectories per node", "n/a" if v.resident_trajectories is None else d["resident_trajectories"]),
        (f"Batched decode step at {v.batch:,} streams", f"{d['batched_step_s']} ms"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, val in rows:
        out.write(f"{k:<{width}}  {val}\n")
    if v.note:
        out.write(f"note: {v.note}\n")
    if v.node_kv_pool_bytes is not None and v.pool_precision != v.weight_precision:
        out.write(f"note: the reference configuration, as the appendix computes it: {v.weight_precision} weights "
                  f"served from a pool sized for {v.pool_precision} weights\n")


def _bits(precision: str) -> str:
    return f"{PRECISION_BYTES[precision].to('bit').magnitude:g}"


#: the lecture's values, each with its unit: JSON key (SI base units) -> (text label, scale to the unit shown, unit, digits)
LECTURE_ROWS = {
    "kv_heads": ("Key-value heads", 1, "heads", 0),
    "context": ("Session context", 1, "tokens", 0),
    "kv_bytes_per_token": ("KV bytes per token", 1, "bytes", 0),
    "session_bytes": ("Session KV", 1e-9, "GB", 3),
    "sessions_per_card": ("Sessions per card", 1, "sessions", 0),
    "duty_cycle": ("Duty cycle", 100, "%", 0),
    "prefill_per_token_s": ("Re-prefill per context token", 1e6, "µs", 2),
    "keep_swap_break_even_s": ("Keep/swap break-even", 1e3, "ms", 1),
    "keep_discard_break_even_s": ("Keep/discard break-even", 1, "s", 1),
    "link_bandwidth_bytes_per_s": ("Host link, one copy path for both directions", 1e-9, "GB/s", 1),
}


def _cmd_lecture(a, out) -> None:
    """The standing session of Lecture 19 (its cells' physics, mlsysim.physics.agent) for the options."""
    from . import physics as P
    free = {k: getattr(a, k) for k, f in FREE.items() if f.chapter == "lecture" and getattr(a, k) is not None}
    try:
        sc = scenario(a.accelerator, None, None, **free)
    except InputError as exc:
        key, _, rest = str(exc).partition(": ")
        raise _BadInput(f"--{key.removeprefix('lecture_').replace('_', '-')}: {rest}" if key in FREE else str(exc)) from None
    L = sc.lecture
    model = L.model   # the lecture's 7B with its key-value heads (data/reference.toml [lecture])
    k = P.kv_bytes_per_token(model, PRECISION_BYTES["bf16"])
    K = P.kv_bytes_at(L.context, k)
    t_w, t_a = P.prefill_time_per_token_split(model.parameters, model.layers, model.hidden_dim, L.context, L.prefill_rate)
    v = {"accelerator": sc.accelerator.name, "kv_heads": L.kv_heads, "context": L.context,
         "kv_bytes_per_token": k.to("byte").magnitude, "session_bytes": K.to("byte").magnitude,
         "sessions_per_card": P.sessions_per_card(L.kv_budget, K), "duty_cycle": P.duty_cycle(L.t_model, L.t_tool),
         "prefill_per_token_s": (t_w + t_a).to("second").magnitude,
         "keep_swap_break_even_s": P.keep_swap_break_even(K, L.link_bandwidth).to("second").magnitude,
         "keep_discard_break_even_s": P.keep_discard_break_even(t_w + t_a, L.kv_budget, k).to("second").magnitude,
         "link_bandwidth_bytes_per_s": L.link_bandwidth.to("byte/second").magnitude}
    if a.json:
        _finite_json(v, out)
        return
    out.write(f"{'Accelerator':<30} {sc.accelerator.display_name}\n")
    for key, (label, scale, unit, digits) in LECTURE_ROWS.items():
        x = v[key] * scale
        out.write(f"{label:<30} {shown(x, digits)} {unit}\n")


def _cmd_calibrate(a, out) -> None:
    try:
        accel = Hardware.Cloud.get(a.accelerator).name if a.accelerator else None
        model = Models.Language.get(a.model).name if a.model else None
    except MlsysimError as exc:
        raise _BadInput(str(exc)) from None
    from . import measurements as meas  # loads and checks measurements.toml (a bad entry raises here)
    comps = meas.calibrate(accelerator=accel, model=model)
    if a.json:
        rows = []
        for c in comps:
            m = meas.MEASUREMENTS[c.entry]
            rows.append({"entry": c.entry, "source": m.source.key, "url": m.source.url, "table": m.source.title,
                         "row": m.table, "accelerator": m.accelerator.name, "count": m.count,
                         "model": m.model.name, "weight_precision": m.weight_precision,
                         "kv_precision": m.kv_precision, "tensor_parallel": m.tensor_parallel,
                         "pipeline_parallel": m.pipeline_parallel, "load": m.load, "streams": m.streams,
                         "input_tokens": m.input_tokens, "output_tokens": m.output_tokens,
                         "software": m.software, "software_version": m.software_version, "metric": c.metric,
                         "unit": meas.METRICS[c.metric][1], "published": c.published, "measured": c.measured,
                         "floor": c.floor, "strict_bound": None if math.isnan(c.strict) else c.strict,
                         "floor_is_strict": c.bound == c.floor, "margin": c.margin, "achieved": c.achieved})
        json.dump(rows, out, indent=2, sort_keys=True)
        out.write("\n")
        return
    if not comps:
        have = sorted({m.accelerator.name for m in meas.MEASUREMENTS.values()})
        out.write(f"no published measurement matches; the registry has measurements on {', '.join(have)}\n")
        return
    out.write(meas.table_text(lang=a.lang, accelerator=accel, model=model) + "\n")


def _escape_what_the_terminal_cannot_show(stream) -> None:
    """On a terminal without UTF-8 (LC_ALL=C with Python's UTF-8 mode off) print "µs" as "\\xb5s", not fail."""
    try:
        stream.reconfigure(errors="backslashreplace")
    except (AttributeError, ValueError):  # not a text stream this process opened (a test's capture)
        pass


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    _escape_what_the_terminal_cannot_show(sys.stdout)
    try:
        if args.cmd == "list":
            (_list_json if args.json else _cmd_list)(sys.stdout)
        elif args.cmd == "show":
            (_show_json if args.json else _cmd_show)(args.name, sys.stdout)
        elif args.cmd == "calibrate":
            _cmd_calibrate(args, sys.stdout)
        elif args.cmd == "lecture":
            _cmd_lecture(args, sys.stdout)
        else:
            _cmd_reference(args, sys.stdout)
    except (_BadInput, MlsysimError, ValueError) as exc:
        sys.stderr.write(f"mlsysim: error: {exc}\n")
        return 2
    return 0
