"""pandoc's reader piece by piece (bookbuild.pieces): the AST put together from the pieces is the AST pandoc
gives for the whole text, on every chapter of the book and on each construct that ties blocks together; where the
pieces cannot give it, the whole text is read."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from bookbuild.cache import Entry, Store
from bookbuild import pieces
from bookbuild.errors import RenderError
from bookbuild.pandoc import READER, Pandoc

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["-f", READER, "-t", "json"]
CHAPTERS = ["appendix/inference-cost.qmd", "appendix/inference-cost.zh.qmd", "lectures/lecture19-agent-stalls.qmd",
            "lectures/lecture19-agent-stalls.zh.qmd", "index.qmd", "index.zh.qmd"]


def whole(text: str) -> dict:
    return json.loads(Pandoc().run(ARGS, text))


def by_pieces(text: str, store: Store) -> dict | None:
    pd = Pandoc()
    return pieces.read(text, lambda t: pd.run(ARGS, t, keep=False), store, "test")


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "cache")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_read_by_pieces_is_pandocs_whole_read_before_and_after_an_edit(chapter, store):
    text = (ROOT / chapter).read_text(encoding="utf-8")
    assert len(pieces.pieces(text)) > 10
    assert by_pieces(text, store) == whole(text)
    assert by_pieces(text, store) == whole(text)                     # every piece kept: no pandoc run
    paras = [i for i, p in enumerate(pieces.pieces(text)) if p[:1].isalpha() or ord(p[:1] or " ") > 0x2e80]
    middle = pieces.pieces(text)[paras[len(paras) // 2]]
    edited = text.replace(middle, middle.replace("\n", " edited\n", 1), 1)
    assert edited != text and by_pieces(edited, store) == whole(edited)


CASES = {
    "loose list": "A\n\n- one\n\n- two\n\n  more of two\n\n- three\n\nAfter\n",
    "ordered and lettered lists": "A\n\n1. one\n\n2. two\n\nB\n\na) x\n\nb) y\n\nEnd\n",
    "definition list": "Term\n\n:   its definition\n\n    more\n\nNext\n",
    "table, caption after": "A\n\n| a | b |\n|---|---|\n| [@k1] | 2 |\n\n: Caption [@k2] {#tbl-x}\n\nB [@k3]\n",
    "table, caption before": ": Caption {#tbl-y}\n\n| a |\n|---|\n| 1 |\n\nB\n",
    "grid table": "A\n\n+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n+---+---+\n\nB\n",
    "divs over blank lines": "A\n\n::: {.note}\nx\n\n::: inner\ny\n\nz\n:::\n\nw\n:::\n\nB\n",
    "code and raw fences": "A\n\n```python\nx = 1\n\n\ny = 2\n```\n\n```{=html}\n<div>\n\n</div>\n```\n\nB\n",
    "html comment over blank lines": "A\n\n<!--\nnote\n\nmore\n-->\n\nB\n",
    "front matter": "---\ntitle: T\nlist:\n  - a\n---\n\n# H {#sec-h}\n\nText\n\nMore\n",
    "citations in order": "A [@a; @b] and @c.\n\nB [-@d].\n\nC [@e, p. 3].\n",
    "headers twice": "# X\n\nA\n\n# X\n\nB\n\n## X\n",
    "implicit header reference": "# The roofline\n\nA\n\nSee [The roofline] and [the roofline][].\n",
    "an identifier given twice": "# A {#a}\n\nx\n\n# B {#a}\n",
    "block quote": "> a\n\n> b\n\nc\n",
    "setext header and rule": "Title\n=====\n\nA\n\n---\n\nB\n",
    "indented code": "A\n\n    code\n\n    more\n\nB\n",
    "line block": "| a\n| b\n\nc\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_construct_gives_pandocs_own_ast_or_the_whole_read(name, store):
    text = CASES[name]
    if name == "an identifier given twice":   # pandoc warns: the whole read's own message, at its own line
        with pytest.raises(RenderError) as alone:
            Pandoc().run(ARGS, text)
        with pytest.raises(RenderError) as kept:
            Pandoc(store=store).md_to_ast(text)
        assert "Duplicate identifier 'a'" in alone.value.message and kept.value.message == alone.value.message
        return
    got = by_pieces(text, store)
    assert got is None or got == whole(text)
    assert Pandoc(store=store).md_to_ast(text) == whole(text)


@pytest.mark.parametrize("text", [
    "A\n\n<div>\n\nx\n\n</div>\n\nB\n",              # an HTML block over blank lines
    "A[^1]\n\n[^1]: a note\n\nB\n",                   # footnotes
    "A ^[inline note]\n\nB\n",
    "See [x].\n\n[x]: http://example.org\n\nB\n",     # a link definition
    "(@) one\n\nA\n\n(@) two\n",                      # an example list
    "A\n\n---\nkey: v\n---\n\nB\n",                   # a YAML block after the front matter
])
def test_what_ties_blocks_together_is_read_whole(text, store):
    assert pieces.pieces(text) is None
    assert Pandoc(store=store).md_to_ast(text) == whole(text)


def test_a_piece_pandoc_numbered_for_another_piece_is_never_kept(store):
    """Two headers ``X`` in one run: the second is ``x-1`` because of the first. Such a piece is not kept, so a
    later text whose first ``X`` is gone reads ``x`` as pandoc does."""
    first = "# X\n\nA\n\n# X\n\nB\n"
    assert by_pieces(first, store) in (None, whole(first))
    later = "# Y\n\nA\n\n# X\n\nB\n"
    got = by_pieces(later, store)
    assert got == whole(later) and [b["c"][1][0] for b in got["blocks"] if b["t"] == "Header"] == ["y", "x"]


def test_citations_are_numbered_on_across_kept_and_new_pieces(store):
    base = "A [@a].\n\nB [@b; @c].\n\n| t |\n|---|\n| [@d] |\n\n: Cap [@e]\n\nC [@f].\n"
    assert by_pieces(base, store) == whole(base)
    edited = base.replace("B [@b; @c].", "B [@b; @c] and [@g].")
    got = by_pieces(edited, store)
    assert got == whole(edited)
    nums = []
    for el in json.dumps(got).split('"citationNoteNum": ')[1:]:
        nums.append(int(el.split(",")[0].split("}")[0]))
    assert sorted(set(nums)) == list(range(1, 7))   # six citation groups, hand-counted: a, b;c, g, d, e, f


def test_the_cuts_fall_only_where_a_block_must_end():
    text = textwrap.dedent("""\
        ---
        title: T
        ---

        # H

        Para one.

        - item

          continued

        ::: {.callout}
        Inside.

        Still inside.
        :::

        Last line.
        """)
    got = pieces.pieces(text)
    assert got == ["---\ntitle: T\n---\n", "# H\n", "Para one.\n\n- item\n\n  continued\n",
                   "::: {.callout}\nInside.\n\nStill inside.\n:::\n", "Last line.\n"]
    assert "\n".join(got) == text


def test_a_kept_piece_of_another_shape_is_read_again(store):
    text = "# H {#h}\n\nOne [@a].\n\nTwo.\n"
    assert by_pieces(text, store) == whole(text)
    for p in (store.folder / pieces.KIND).rglob("*"):
        if p.is_file():   # a sealed entry whose content is valid JSON of another shape
            key = p.name
            store.put_blob(Entry(pieces.KIND, key), b'{"blocks": "not a list"}')
    assert by_pieces(text, store) == whole(text)


# ───────────────────────────── the writer

HTML = ["-f", "json", "-t", "html5", "--mathml", "--wrap=none"]


def _cite_args(lang: str) -> list[str]:
    from bookbuild.bibliography import citeproc_args
    csl = "gb-t-7714-2015-author-date.csl" if lang == "zh" else "chicago-author-date.csl"
    return [*citeproc_args([ROOT / "references.bib"], ROOT / "csl" / csl), "-M", "link-citations=true",
            "-M", f"lang={'zh-CN' if lang == 'zh' else 'en-US'}"]


def _bibliographic(ast: dict) -> dict:
    """A source chapter's AST as the writer gets it: its cross-references (``@sec-``, ``@fig-``, …, which the
    filters resolve before pandoc writes) as text, and the bibliography's ``#refs`` div at its end."""
    from bookbuild import pandoc_ast as A

    def xref(el):
        if el["t"] == "Cite" and any(c["citationId"].split("-")[0].lower() in ("sec", "fig", "tbl", "eq", "lst")
                                     for c in el["c"][0]):
            return A.Str("XREF")
        return None
    ast = dict(ast, meta={}, blocks=A.walk(ast["blocks"], xref))
    ast["blocks"].append(A.Div(A.attr("refs", ["references"]), []))
    return ast


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_written_by_pieces_is_pandocs_whole_write_before_and_after_an_edit(chapter, store):
    """The citations formatted by citeproc over the citations alone, then the blocks written one by one, give the
    HTML pandoc writes for the whole chapter with citeproc, byte for byte; again after one paragraph changed
    (the other blocks from the store)."""
    lang = "zh" if ".zh." in chapter else "en"
    ast = _bibliographic(whole((ROOT / chapter).read_text(encoding="utf-8")))
    assert any(e["t"] == "Cite" for e in __import__("bookbuild.pandoc_ast", fromlist=["x"]).iter_elements(ast)) \
        or chapter.startswith("index")
    pd = Pandoc()

    def by_pieces_html(doc: dict) -> str:
        doc = json.loads(json.dumps(doc))
        pieces.resolve_citations(doc, lambda t: pd.run(["-f", "json", "-t", "json", *_cite_args(lang)], t))
        got = pieces.write(doc, lambda t: pd.run(HTML + _cite_args(lang)[-2:], t, keep=False), store, "test")
        assert got is not None
        return got

    def whole_html(doc: dict) -> str:
        return pd.run(HTML + _cite_args(lang), json.dumps(doc))

    assert by_pieces_html(ast) == whole_html(ast)
    paras = [i for i, b in enumerate(ast["blocks"]) if b["t"] == "Para"]
    ast["blocks"][paras[len(paras) // 2]]["c"].append({"t": "Str", "c": "edited"})
    assert by_pieces_html(ast) == whole_html(ast)


def test_a_footnote_or_the_marker_in_the_text_is_written_whole(store):
    pd = Pandoc()
    for text in ("A[^1] and B.\n\n[^1]: the note\n\nC.\n", f"A `{pieces.WRITE_MARK}` here.\n\nB.\n"):
        ast = whole(text)
        assert pieces.write(ast, lambda t: pd.run(HTML, t, keep=False), store, "test") is None
