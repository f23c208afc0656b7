"""``python -m bookbuild.quarto install-kernel``: register the ``mlsysim-book`` Jupyter kernel in this
environment (the project's ``.venv``): Python with :mod:`bookbuild.quarto.kernel` loaded, which Quarto
runs for the book's chapters (``jupyter: mlsysim-book`` in each chapter's front matter). The kernel logs
at ERROR: ipykernel's warning that Quarto's local TCP connection is unencrypted is not the author's concern.

``python -m bookbuild.quarto post-render``: what ``project: post-render`` runs after ``quarto render``."""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

KERNEL = "mlsysim-book"


def install_kernel() -> int:
    from jupyter_client.kernelspec import KernelSpecManager
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--ext=bookbuild.quarto.kernel", "--IPKernelApp.log_level=ERROR"],
            "display_name": "Python 3 (the book's inline values marked)", "language": "python",
            "metadata": {"debugger": False}}
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
        where = KernelSpecManager().install_kernel_spec(d, KERNEL, prefix=sys.prefix)
    print(f"bookbuild.quarto: kernel {KERNEL} -> {where}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["install-kernel"]:
        return install_kernel()
    if argv[:1] == ["post-render"]:
        from .post_render import main as post_render
        return post_render(argv[1:])
    print("usage: python -m bookbuild.quarto install-kernel | post-render", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
