"""Quarto's pre-render step for this book (``project: pre-render`` in _quarto.yml): the Chinese EPUB's font
subset, with the project's own bookbuild (see bookbuild/quarto/pre_render.py)."""
import os
import sys

sys.path.insert(0, os.getcwd())   # Quarto runs project scripts from the project folder
from bookbuild.quarto.pre_render import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
