"""The book Quarto renders is the same book: the book's own layer over Quarto's output.

- :mod:`.kernel`: an IPython extension for Quarto's Jupyter kernel (the ``mlsysim-book`` kernel that
  ``python -m bookbuild.quarto install-kernel`` registers in the project's environment): every inline
  value is marked as bookbuild marks it, so the reader's choice and the explanations find it;
- :mod:`.post_render`: Quarto's ``project: post-render`` step: runs the build's passes up to the book's
  layer for the profile Quarto rendered (cached: the chapters Quarto executed are not executed again
  unless they changed) and applies the same additions to Quarto's pages as to ours (page data, the
  reader's scripts and styles, the vendored plotly.js and the figure script), plus what Quarto's book
  lacks (the language switch, the theme's data attribute for the figures);
- the Quarto extension itself is ``_extensions/mlsysim-book/`` in the project (its Lua filter gives
  EPUB readers the static figure).
"""
