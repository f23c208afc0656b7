"""``import mlsysim`` builds the same unit registry whatever state pint's disk cache is in.

A cold cache once gave a dimensionless byte (``bit`` was redefined after pint had built the
registry), so "80 GiB" failed to convert to bytes on every first run; a warm cache hid it.
Expected values are hand derivations: 80 GiB = 80 * 2**30 bytes; a byte is 8 bits of [information].
"""
import json
import os
import subprocess
import sys

PROBE = r"""
import json, mlsysim
from mlsysim.units import ureg
print(json.dumps({
    "byte": str(ureg.byte.dimensionality), "bit": str(ureg.bit.dimensionality),
    "flop": str(ureg.flop.dimensionality), "GiB": str(ureg.GiB.dimensionality),
    "h100_bytes": mlsysim.Hardware.Cloud.H100.memory.capacity.to("byte").magnitude,
    "byte_in_bits": (1 * ureg.byte).to("bit").magnitude,
}))
"""
EXPECTED = {"byte": "[information]", "bit": "[information]", "flop": "[computation]",
            "GiB": "[information]", "h100_bytes": 80 * 2**30, "byte_in_bits": 8}


def _probe(home, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "MLSYSIM_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"), **extra)
    r = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_empty_cache_then_warm_cache(tmp_path):
    assert not (tmp_path / "cache").exists()
    first = _probe(tmp_path)                      # cold: pint parses and fills the cache
    assert (tmp_path / "cache" / "pint").is_dir()  # the cache really was written
    second = _probe(tmp_path)                     # warm: pint reads it back
    assert first == EXPECTED
    assert second == EXPECTED


def test_cache_off(tmp_path):
    assert _probe(tmp_path, MLSYSIM_UNIT_CACHE="off") == EXPECTED
    assert not (tmp_path / "cache" / "pint").exists()


def test_no_unit_is_redefined_later():
    from mlsysim.units import ureg
    import pint
    try:
        ureg.define("bit = []")
    except pint.RedefinitionError:
        return
    raise AssertionError("redefining a unit after the registry is built must be refused")
