"""A prose edit shown in place before the build: :class:`Patcher`, for ``preview``.

When the one file saved is a chapter of the previewed book and its cells are those of the run behind the
page being served, the edited chapter is replayed (:func:`bookbuild.passes.execute.replay`: no cell runs),
its executed markdown compared with the page's, and the changed paragraphs (:func:`changed_paragraphs`:
plain ones, no heading, fence, div, list, table, image or raw block) converted on their own by the page
body's filters and pandoc call (:func:`bookbuild.render.html.body_html`), the old ones beside the new. The
old paragraphs' HTML must appear in the served body exactly once, or nothing is patched: what this module
cannot reproduce (a paragraph the filters treat by its place, a citation citeproc words by its neighbours)
is never guessed. The preview sends the :class:`Patch` to the open page, which swaps the paragraphs in
place, and serves the patched page until the build (which follows as for any edit) replaces it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .blocks import scan as scan_blocks, structural
from .errors import BuildError
from .execute import NotReplayable, cells_signature
from .passes import execute, parse
from .passes.render import destination
from .passes.state import Build
from .render.html import article_body, body_html
from .render.profile import html_context, load_manifest
from .settings import Settings
from .source import parse as parse_chapter

#: what separates the old paragraphs from the new in the one document converted (a raw HTML block)
MARK = "<!--bookbuild-prose-patch-->"


@dataclass
class Patch:
    """The paragraphs of one page as served (``old``) and as edited (``new``), and the patched page."""
    page: str          # relative to the book's folder
    old: str
    new: str
    html: str


def changed_paragraphs(old: str, new: str) -> tuple[str, str] | None:
    """The whole paragraphs in which the markdown ``old`` and ``new`` differ, as (old text, new text): one
    run of changed lines, widened to the blank lines around it. None when nothing changed, when the change
    adds or removes whole paragraphs only, or when the widened text holds anything but plain paragraphs."""
    a, b = old.split("\n"), new.split("\n")
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    if head == len(a) == len(b):
        return None
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    start = head
    while start > 0 and a[start - 1].strip():
        start -= 1
    end_a, end_b = len(a) - tail, len(b) - tail
    while end_a < len(a) and a[end_a].strip():
        end_a, end_b = end_a + 1, end_b + 1
    was, now = a[start:end_a], b[start:end_b]
    if not any(ln.strip() for ln in was) or not any(ln.strip() for ln in now) or start in scan_blocks(a).fenced:
        return None
    if any(structural(ln) for ln in was + now if ln.strip()):
        return None
    return "\n".join(was).strip("\n"), "\n".join(now).strip("\n")


class Patcher:
    """What a prose patch of ``profile``'s pages reads, loaded after each build the preview serves."""

    def __init__(self, settings: Settings, profile: str):
        self.build = Build(settings=settings, names=[profile])
        parse.run(self.build)
        b = self.build
        self.book = b.books[0]
        exec_dir, manifest = load_manifest(b.executed_dir(self.book.profile), self.book.profile)
        self.executed = {e["source"]: exec_dir / e["executed"] for e in manifest.get("chapters", [])}
        self.ctx = html_context(settings.root, self.book.profile, exec_dir, manifest, b.pandoc)
        self.out = destination(b, self.book)
        # what the pages served were made of, read now: a render started after this build (the preview's
        # PDF and EPUB) writes the same files from sources saved since, and a patch against those finds no change
        self.markdown: dict[str, str] = {   # a chapter's executed markdown behind the page served
            src: path.read_text(encoding="utf-8") for src, path in self.executed.items() if path.is_file()}
        self.pages: dict[str, str] = {      # each page's HTML as served (patched, or as the build wrote it)
            c.page: (self.out / c.page).read_text(encoding="utf-8") for c in self.ctx.chapters
            if (self.out / c.page).is_file()}

    def patch(self, rel: str) -> Patch | None:
        """The patch of chapter ``rel`` (its path in the project) as saved now, or None (build it)."""
        b, ctx = self.build, self.ctx
        ch = next((c for c in ctx.chapters if c.source == rel), None)
        old_doc = b.documents.get(rel)
        if ch is None or old_doc is None or rel not in self.executed:
            return None
        try:
            doc = parse_chapter(rel, b.settings.root)
            if cells_signature(doc) != cells_signature(old_doc):
                return None
            got = execute.recorded_run(b, self.book, old_doc)
            if got is None:
                return None
            new_md = execute.replay(b, self.book, doc, got).markdown
            old_md = self.markdown[rel]
            changed = changed_paragraphs(old_md, new_md)
            if changed is None:
                return None
            page = self.pages[ch.page]
            html = self._patched(ch, page, *changed)
        except (BuildError, NotReplayable, OSError, ValueError, KeyError):
            return None
        if html is None:
            return None
        self.markdown[rel], self.pages[ch.page] = new_md, html[2]
        b.documents[rel] = doc
        return Patch(ch.page, html[0], html[1], html[2])

    def _patched(self, ch, page: str, was: str, now: str) -> tuple[str, str, str] | None:
        """(old HTML, new HTML, the patched page), when the old paragraphs' HTML is in the body once."""
        where = article_body(page)
        if where is None:
            return None
        ast = self.ctx.pandoc.md_to_ast(f"{was}\n\n{MARK}\n\n{now}\n\n{MARK}\n", ch.source)
        parts = body_html(self.ctx, replace(ch, ast=ast, cited=[])).split(MARK)
        if len(parts) != 3:
            return None
        old, new = parts[0].strip("\n"), parts[1].strip("\n")
        body = page[where[0]:where[1]]
        if not old or body.count(old) != 1:
            return None
        return old, new, page[:where[0]] + body.replace(old, new, 1) + page[where[1]:]
