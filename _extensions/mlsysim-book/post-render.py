"""Quarto's post-render step for this book (``project: post-render`` in _quarto.yml): the book's own layer
over the pages Quarto just rendered, with the project's own bookbuild (see bookbuild/quarto/post_render.py)."""
import os
import sys

sys.path.insert(0, os.getcwd())   # Quarto runs project scripts from the project folder
from bookbuild.quarto.post_render import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
