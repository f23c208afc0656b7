"""Render an executed book with pandoc: HTML pages (:mod:`.html`) and a typst PDF (:mod:`.pdf`).

:func:`.profile.render_profile` is the entry point; :mod:`.filters` make each chapter's AST ready for a
writer (one concern per file); :mod:`.pandoc` runs pandoc (its JSON AST: :mod:`bookbuild.pandoc_ast`);
:mod:`.pages` names the pages; :mod:`.strings` holds the interface strings (``ui/<lang>.toml``);
:mod:`.additions` is what a layer above adds to the HTML pages.
"""
