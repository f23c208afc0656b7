"""The book's HTML templates (``render/templates/*.html``), through Jinja2 with autoescape.

Text is escaped as the rest of the engine escapes it (:func:`html.escape`: ``&quot;``, ``&#x27;``), so a page
is the same bytes whichever part writes it; markup (a chapter's body, the policy's tag) arrives as
:class:`~markupsafe.Markup`. A name a template uses that its caller did not pass is an error, not an empty
string (``StrictUndefined``).
"""
from __future__ import annotations

import functools
import html
from pathlib import Path

import jinja2
from markupsafe import Markup

TEMPLATES = Path(__file__).parent / "templates"


def _escaped(value) -> Markup:
    """What ``{{ value }}`` writes: markup as it is, anything else as escaped text."""
    return value if hasattr(value, "__html__") else Markup(html.escape(str(value)))


@functools.lru_cache(maxsize=None)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, finalize=_escaped,
                              keep_trailing_newline=True, undefined=jinja2.StrictUndefined, auto_reload=False)


def render(name: str, **context) -> str:
    """The template ``name`` filled with ``context``."""
    return environment().get_template(name).render(**context)


def macro(name: str, which: str):
    """The macro ``which`` of the template ``name``, as a function returning markup."""
    return getattr(environment().get_template(name).module, which)


def markup(text: str) -> Markup:
    """``text`` as markup the engine wrote (it is not escaped again)."""
    return Markup(text)
