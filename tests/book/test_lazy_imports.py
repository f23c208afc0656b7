"""What a fresh interpreter imports: the library leaves its optional notebook dependency unimported."""
from __future__ import annotations

import subprocess
import sys


def test_import_mlsysim_does_not_import_ipywidgets():
    # mlsysim.widgets imports ipywidgets only when a widget is made (the CLI and the book never make one)
    code = "import sys, mlsysim, mlsysim.widgets; print('ipywidgets' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"
