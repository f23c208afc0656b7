"""bookbuild.passes: the build is one declared list; every command runs a prefix or a subset of it."""
from __future__ import annotations


import pytest

from bookbuild import passes
from bookbuild.book.layer import BOOK
from bookbuild.settings import Settings



def test_the_build_is_declared_in_order():
    assert passes.NAMES == ["parse", "execute", "number", "verify", "book", "render"]
    assert passes.COMMANDS["check"] == passes.NAMES[:5]
    assert passes.COMMANDS["render"] == passes.NAMES
    assert passes.COMMANDS["facts"] == ["parse", "execute"]


def test_an_unknown_pass_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown passes"):
        passes.run(Settings.make(tmp_path), ["en"], ["parse", "typeset"])


def test_settings_refuse_values_out_of_range(tmp_path):
    for bad in ({"cell_timeout": 0}, {"cell_timeout": float("nan")}, {"jobs": -1}, {"formats": ("html", "docx")}):
        with pytest.raises(ValueError):
            Settings.make(tmp_path, **bad)
    s = Settings.make(tmp_path, env={"BOOKBUILD_CACHE": "off", "PANDOC": "/x/pandoc", "MLSYSIM_DATA_DIR": "/d"},
                      layer=BOOK)
    assert not s.cache and s.cache_folder is None and s.pandoc == "/x/pandoc" and s.data_dirs == ("/d",)
