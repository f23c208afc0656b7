"""Vendor the live mode's runtime (bookbuild/book/live/vendor.toml) into vendor/live/: Pyodide's core
from the npm registry (``npm pack``) and pint's wheels from PyPI (``pip download``), every file checked
against its pinned sha256. Quick and silent when everything is already there; the build never runs this.

    python scripts/vendor_live.py            # fill vendor/live/ (what scripts/setup.sh does)
    python scripts/vendor_live.py --check    # exit 1 unless every pinned file is there and intact
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "bookbuild" / "book" / "live" / "vendor.toml"


def sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def wanted(lock: dict) -> dict[Path, str]:
    out = ROOT / lock["folder"]
    files = {out / "pyodide" / n: h for n, h in lock["pyodide"]["files"].items()}
    files.update({out / "wheels" / n: h for n, h in lock["wheels"].items()})
    return files


def missing(lock: dict) -> list[Path]:
    return [p for p, h in wanted(lock).items() if not p.is_file() or sha256(p) != h]


def fetch_pyodide(lock: dict, dest: Path, tmp: Path) -> None:
    spec = f"{lock['pyodide']['package']}@{lock['pyodide']['version']}"
    print(f"vendor: npm pack {spec}")
    r = subprocess.run(["npm", "pack", spec, "--pack-destination", str(tmp), "--silent"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"vendor: npm pack {spec} failed: {r.stderr.strip()[-500:]}")
    tgz = tmp / r.stdout.strip().splitlines()[-1]
    if sha256(tgz) != lock["pyodide"]["tarball_sha256"]:
        sys.exit(f"vendor: {tgz.name} does not match its pinned sha256 (bookbuild/book/live/vendor.toml)")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tgz) as t:
        for name in lock["pyodide"]["files"]:
            src = t.extractfile(f"package/{name}")
            with open(dest / name, "wb") as f:
                shutil.copyfileobj(src, f)


def fetch_wheels(lock: dict, dest: Path, tmp: Path) -> None:
    reqs = []
    for name in lock["wheels"]:
        dist, version = name.split("-")[:2]
        reqs.append(f"{dist}=={version}")
    print(f"vendor: pip download {' '.join(reqs)}")
    r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                        "--only-binary=:all:", "-d", str(tmp), *reqs], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"vendor: pip download failed: {r.stderr.strip()[-500:]}")
    dest.mkdir(parents=True, exist_ok=True)
    for name in lock["wheels"]:
        shutil.copyfile(tmp / name, dest / name)


def main(argv: list[str]) -> int:
    lock = tomllib.loads(LOCK.read_text(encoding="utf-8"))
    todo = missing(lock)
    if "--check" in argv:
        for p in todo:
            print(f"vendor: missing or changed: {p.relative_to(ROOT)}")
        return 1 if todo else 0
    if not todo:
        return 0
    out = ROOT / lock["folder"]
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        if any(p.parent.name == "pyodide" for p in todo):
            fetch_pyodide(lock, out / "pyodide", tmp)
        if any(p.parent.name == "wheels" for p in todo):
            fetch_wheels(lock, out / "wheels", tmp)
    bad = missing(lock)
    if bad:
        sys.exit("vendor: these files do not match their pinned sha256: " + ", ".join(p.name for p in bad))
    print(f"vendor: {out.relative_to(ROOT)} ready")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
