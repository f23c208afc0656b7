"""bookbuild.cache: entries verify themselves; keys cover whole code trees, so nothing can be left out."""
from __future__ import annotations

import shutil
from pathlib import Path

from bookbuild.cache import Store, environment_digest, tree_digest

ROOT = Path(__file__).resolve().parents[2]


def store(tmp_path) -> Store:
    return Store(tmp_path / "cache")


def test_a_blob_comes_back_as_stored(tmp_path):
    s = store(tmp_path)
    s.put_blob("pandoc", "ab" * 32, b"<p>hello</p>")
    assert s.get_blob("pandoc", "ab" * 32) == b"<p>hello</p>" and not s.notes


def test_an_altered_truncated_or_foreign_blob_is_discarded_with_a_note(tmp_path):
    s = store(tmp_path)
    key = "cd" * 32
    for damage in (lambda b: b.replace(b"hello", b"jello"),       # altered in place, still the same length
                   lambda b: b[:-3],                                # truncated
                   lambda b: b.replace(b" 3 ", b" 2 ", 1)):        # written by another version
        s.put_blob("pdf", key, b"hello world")
        f = s.entry("pdf", key)
        f.write_bytes(damage(f.read_bytes()))
        assert s.get_blob("pdf", key) is None
        assert not f.exists()                                        # discarded: the next build rebuilds it
    assert len(s.notes) == 3 and all("discarded and rebuilt" in n for n in s.notes)


def test_an_entry_under_another_key_is_a_miss(tmp_path):
    """The seal covers the entry's kind and key: an entry copied under another key (two chapters' entries
    exchanged) is discarded like an altered one."""
    s = store(tmp_path)
    s.put_blob("exec-index", "ab" * 32, b"chapter a")
    s.put_blob("exec-index", "cd" * 32, b"chapter b")
    a, b = s.entry("exec-index", "ab" * 32), s.entry("exec-index", "cd" * 32)
    da, db = a.read_bytes(), b.read_bytes()
    a.write_bytes(db)
    b.write_bytes(da)
    assert s.get_blob("exec-index", "ab" * 32) is None and s.get_blob("exec-index", "cd" * 32) is None
    s.put_blob("pdf", "ab" * 32, b"chapter a")
    s.entry("pandoc", "ab" * 32).parent.mkdir(parents=True)
    s.entry("pandoc", "ab" * 32).write_bytes(s.entry("pdf", "ab" * 32).read_bytes())   # another kind
    assert s.get_blob("pandoc", "ab" * 32) is None and s.get_blob("pdf", "ab" * 32) == b"chapter a"
    assert len(s.notes) == 3


def test_an_entry_in_the_old_layout_is_replaced_not_fatal(tmp_path):
    s = store(tmp_path)
    key = "ef" * 32
    old = s.entry("pandoc", key)
    old.mkdir(parents=True)
    (old / "blob").write_bytes(b"old format")
    assert s.get_blob("pandoc", key) is None
    s.put_blob("pandoc", key, b"new")
    assert s.get_blob("pandoc", key) == b"new"


def test_a_tree_entry_checks_every_file(tmp_path):
    s = store(tmp_path)
    fig = tmp_path / "fig.svg"
    fig.write_text("<svg/>", encoding="utf-8")
    s.put_tree("exec", "12" * 32, {"markdown": "# A\n"}, {"figures/fig.svg": fig})
    data, folder = s.get_tree("exec", "12" * 32)
    assert data == {"markdown": "# A\n"} and (folder / "figures/fig.svg").read_text() == "<svg/>"
    (folder / "figures/fig.svg").write_text("<svg>tampered</svg>", encoding="utf-8")
    assert s.get_tree("exec", "12" * 32) is None and "altered" in s.notes[-1]


def test_no_cache_stores_nothing(tmp_path):
    s = Store(None)
    s.put_blob("pandoc", "34" * 32, b"x")
    assert s.get_blob("pandoc", "34" * 32) is None and not s.enabled


def test_a_new_module_anywhere_in_the_code_tree_changes_every_key(tmp_path):
    tree = shutil.copytree(ROOT / "bookbuild", tmp_path / "bookbuild", ignore=shutil.ignore_patterns("__pycache__"))
    before = environment_digest([tree])
    assert tree_digest(tree) == tree_digest(ROOT / "bookbuild")   # a copy keys as the original
    (tree / "render" / "filters" / "new_filter.py").write_text("X = 1\n", encoding="utf-8")
    assert environment_digest([tree]) != before
    (tree / "render" / "filters" / "new_filter.py").unlink()
    assert environment_digest([tree]) == before
    (tree / "render" / "ui" / "en.toml").write_text("toc = 'changed'\n", encoding="utf-8")   # data counts too
    assert environment_digest([tree]) != before
