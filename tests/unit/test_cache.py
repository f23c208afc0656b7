"""bookbuild.cache: entries verify themselves; keys cover whole code trees, so nothing can be left out."""
from __future__ import annotations

import shutil
from pathlib import Path

from bookbuild.cache import Entry, Inputs, Store, environment_digest, tree_digest

ROOT = Path(__file__).resolve().parents[2]


def store(tmp_path) -> Store:
    return Store(tmp_path / "cache")


def test_a_blob_comes_back_as_stored(tmp_path):
    s = store(tmp_path)
    s.put_blob(Entry("pandoc", "ab" * 32), b"<p>hello</p>")
    assert s.get_blob(Entry("pandoc", "ab" * 32)) == b"<p>hello</p>" and not s.notes


def test_an_altered_truncated_or_foreign_blob_is_discarded_with_a_note(tmp_path):
    s = store(tmp_path)
    key = "cd" * 32
    for damage in (lambda b: b.replace(b"hello", b"jello"),       # altered in place, still the same length
                   lambda b: b[:-3],                                # truncated
                   lambda b: b.replace(b" 3 ", b" 2 ", 1)):        # written by another version
        s.put_blob(Entry("pdf", key), b"hello world")
        f = s.entry(Entry("pdf", key))
        f.write_bytes(damage(f.read_bytes()))
        assert s.get_blob(Entry("pdf", key)) is None
        assert not f.exists()                                        # discarded: the next build rebuilds it
    assert len(s.notes) == 3 and all("discarded and rebuilt" in n for n in s.notes)


def test_an_entry_under_another_key_is_a_miss(tmp_path):
    """The seal covers the entry's kind and key: an entry copied under another key (two chapters' entries
    exchanged) is discarded like an altered one."""
    s = store(tmp_path)
    s.put_blob(Entry("exec-index", "ab" * 32), b"chapter a")
    s.put_blob(Entry("exec-index", "cd" * 32), b"chapter b")
    a, b = s.entry(Entry("exec-index", "ab" * 32)), s.entry(Entry("exec-index", "cd" * 32))
    da, db = a.read_bytes(), b.read_bytes()
    a.write_bytes(db)
    b.write_bytes(da)
    assert s.get_blob(Entry("exec-index", "ab" * 32)) is None and s.get_blob(Entry("exec-index", "cd" * 32)) is None
    s.put_blob(Entry("pdf", "ab" * 32), b"chapter a")
    s.entry(Entry("pandoc", "ab" * 32)).parent.mkdir(parents=True)
    s.entry(Entry("pandoc", "ab" * 32)).write_bytes(s.entry(Entry("pdf", "ab" * 32)).read_bytes())   # another kind
    assert s.get_blob(Entry("pandoc", "ab" * 32)) is None and s.get_blob(Entry("pdf", "ab" * 32)) == b"chapter a"
    assert len(s.notes) == 3


def test_an_entry_in_the_old_layout_is_replaced_not_fatal(tmp_path):
    s = store(tmp_path)
    key = "ef" * 32
    old = s.entry(Entry("pandoc", key))
    old.mkdir(parents=True)
    (old / "blob").write_bytes(b"old format")
    assert s.get_blob(Entry("pandoc", key)) is None
    s.put_blob(Entry("pandoc", key), b"new")
    assert s.get_blob(Entry("pandoc", key)) == b"new"


def test_a_tree_entry_checks_every_file(tmp_path):
    s = store(tmp_path)
    fig = tmp_path / "fig.svg"
    fig.write_text("<svg/>", encoding="utf-8")
    s.put_tree(Entry("exec", "12" * 32), {"markdown": "# A\n"}, {"figures/fig.svg": fig})
    data, folder = s.get_tree(Entry("exec", "12" * 32))
    assert data == {"markdown": "# A\n"} and (folder / "figures/fig.svg").read_text() == "<svg/>"
    (folder / "figures/fig.svg").write_text("<svg>tampered</svg>", encoding="utf-8")
    assert s.get_tree(Entry("exec", "12" * 32)) is None and "altered" in s.notes[-1]


def test_no_cache_stores_nothing(tmp_path):
    s = Store(None)
    s.put_blob(Entry("pandoc", "34" * 32), b"x")
    assert s.get_blob(Entry("pandoc", "34" * 32)) is None and not s.enabled


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


def test_every_kind_is_declared_in_one_place(tmp_path):
    """A step's kind is one of cache.KINDS (each with what it holds): an undeclared kind is refused."""
    import pytest
    from bookbuild.cache import KINDS
    s = store(tmp_path)
    for named in (lambda: Inputs("novel"), lambda: Entry("novel", "ab" * 32)):
        with pytest.raises(ValueError, match="cache kind 'novel' is not declared in bookbuild.cache.KINDS"):
            named()
    assert not (s.folder and s.folder.exists())
    assert all(isinstance(v, str) and v for v in KINDS.values())


def test_an_entry_is_named_by_every_input_its_step_declares():
    """The one way a key is made: a step's kind, environment, values and files by digest. Each part, a value's
    type (the text "1" and the number 1) and the files' names and digests name another entry; the same
    declaration the same entry, whatever the order of a mapping it holds."""
    import hashlib
    base = Inputs("pandoc", ("-t html", {"a": 1, "b": [2]}), "env", (("refs.bib", "d1"),))
    assert base.key == Inputs("pandoc", ("-t html", {"b": [2], "a": 1}), "env", (("refs.bib", "d1"),)).key
    others = [Inputs("pdf", base.values, "env", base.files), Inputs("pandoc", base.values, "env-2", base.files),
              Inputs("pandoc", ("-t html", {"a": 1, "b": [3]}), "env", base.files),
              Inputs("pandoc", ("-t html",), "env", base.files), Inputs("pandoc", base.values, "env"),
              Inputs("pandoc", base.values, "env", (("refs.bib", "d2"),)),
              Inputs("pandoc", base.values, "env", (("other.bib", "d1"),)),
              Inputs("pandoc", ("-t", " html", {"a": 1, "b": [2]}), "env", base.files)]
    keys = [base.key] + [o.key for o in others]
    assert len(set(keys)) == len(keys)
    assert Inputs("check", ("1",)).key != Inputs("check", (1,)).key != Inputs("check", (b"1",)).key
    assert all(len(k) == 64 and int(k, 16) >= 0 for k in keys)
    # a hand derivation of one key: each part length-prefixed (8 bytes, little-endian), a value tagged by type
    parts = [b"check", b"", b"s1"]
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little") + p)
    assert Inputs("check", ("1",)).key == h.hexdigest()


def test_a_recorded_key_that_is_not_a_digest_names_nothing():
    """A key one entry records of another (the last run of a chapter's cells points at its chapter) is read
    from the cache folder: one that is not a digest (a path, say) names no entry."""
    import pytest
    for bad in ("../../etc/passwd", "ab" * 31, "AB" * 32, 7, None):
        with pytest.raises(ValueError):
            Entry("exec", bad)


def test_the_memo_keeps_what_a_step_read_and_runs_it_again_when_a_file_changed(tmp_path):
    """The one memo: the files the step reads are recorded while it runs (the build's read audit) and
    checked by digest on reuse; ``keep`` says which results are kept."""
    from bookbuild.cache import Watch
    from bookbuild.execute.audit import reading
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.md").write_text("one\n", encoding="utf-8")
    s, runs = store(tmp_path), []

    def step():
        runs.append(1)
        return (root / "notes.md").read_text(encoding="utf-8").strip()

    def memo(**kw):
        watch = Watch(root, lambda: reading(root, []))
        return s.memo(Inputs("check", ("notes",)), step, watch=watch, **kw), watch.read

    assert memo() == ("one", {"notes.md"}) and len(runs) == 1
    assert memo() == ("one", {"notes.md"}) and len(runs) == 1          # kept: not run, its reads recalled
    (root / "notes.md").write_text("two\n", encoding="utf-8")
    assert memo() == ("two", {"notes.md"}) and len(runs) == 2          # a file it read changed: run again
    (root / "notes.md").write_text("three\n", encoding="utf-8")
    assert memo(keep=lambda v: False)[0] == "three" and len(runs) == 3
    assert memo()[0] == "three" and len(runs) == 4                       # the result not kept runs again
    assert Store(None).memo(Inputs("check", ("notes",)), step) == "three" and len(runs) == 5   # no cache: always run


def test_the_library_reaches_the_build_s_store_through_its_protocol(tmp_path):
    """mlsysim keeps no store of its own: the build hands it its store (kind 'library'); without one,
    every result is computed."""
    from bookbuild.cache import LibraryStore
    from mlsysim import diskcache
    try:
        diskcache.configure(LibraryStore(store(tmp_path)))
        assert diskcache.keeping()
        assert diskcache.json_memo("explorer", ("en",), lambda: {"a": 1}) == {"a": 1}
        assert diskcache.json_memo("explorer", ("en",), lambda: {"never": 1}) == {"a": 1}
        assert [p.name for p in (tmp_path / "cache").iterdir()] == ["library"]
        diskcache.configure(None)
        assert not diskcache.keeping() and diskcache.json_memo("explorer", ("en",), lambda: {"b": 2}) == {"b": 2}
    finally:
        diskcache.configure(None)
