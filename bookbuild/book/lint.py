"""The typed-number lint and the rules for inline expressions (the LEGO convention).

The lint runs on SOURCE files (before inline substitution), so numbers a cell computes never trip it.
After masking everything that is not prose (:func:`bookbuild.text.scan`: front matter, code, inline
code, math, attribute blocks, shortcodes, URLs, citations, cross-references, HTML comments and tags,
list markers) any digit left is a typed number and an error, unless a reviewed pattern of
``lint_allowlist.toml`` covers it.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from ..errors import LintError, read_text
from ..text import Scan, line_of, line_starts, scan

# ---------------------------------------------------------------- allowlist

ALLOWLIST_PATH = Path(__file__).with_name("lint_allowlist.toml")


@dataclass
class Allow:
    pattern: re.Pattern
    reason: str
    files: list[str] = field(default_factory=list)

    def applies(self, relpath: str) -> bool:
        return not self.files or any(fnmatch(relpath, g) for g in self.files)


def _name(path: Path) -> str:
    """How a message names the allowlist: relative to the folder the build runs from, where it can."""
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _toml_line(e: Exception) -> int | None:
    m = re.search(r"line (\d+)", str(e))
    return int(m.group(1)) if m else None


def load_allowlist(path: Path | None = None) -> list[Allow]:
    path = Path(path) if path else ALLOWLIST_PATH
    try:
        data = tomllib.loads(read_text(path, _name(path)))
    except tomllib.TOMLDecodeError as e:
        raise LintError(_name(path), _toml_line(e), f"is not valid TOML: {e}") from None
    out = []
    for i, e in enumerate(data.get("allow", [])):
        if not e.get("reason"):
            raise LintError(path.name, None, f"allow entry {i + 1} ({e.get('pattern')!r}) has no reason")
        try:
            rx = re.compile(e["pattern"])
        except re.error as err:
            raise LintError(path.name, None, f"allow entry {i + 1}: bad regex {e['pattern']!r}: {err}") from None
        out.append(Allow(rx, e["reason"], list(e.get("files", []))))
    return out


# ---------------------------------------------------------------- the lint

NUMBER_TOKEN = re.compile(r"[^\s]*\d[^\s]*")


def typed_numbers(text: str, relpath: str, allow: list[Allow], sc: Scan | None = None) -> list[LintError]:
    """Typed numbers left in the prose of ``text`` (source of file ``relpath``)."""
    sc = sc or scan(text)
    errors = []
    rules = [a for a in allow if a.applies(relpath)]
    for i, line in enumerate(sc.masked.split("\n"), start=1):
        if not re.search(r"\d", line):
            continue
        for a in rules:
            line = a.pattern.sub(lambda m: " " * len(m.group(0)), line)
        toks = [t.strip(".,;:!?()[]\"'*_“”‘’（），。；：") for t in NUMBER_TOKEN.findall(line)]
        toks = [t for t in toks if t]
        if toks:
            shown = ", ".join(f"'{t}'" for t in toks)
            errors.append(LintError(
                relpath, i,
                f"typed number {shown} in prose: compute it in a cell and quote "
                f"`{{python}} Cls.x_str` (a name, not a quantity? add a reviewed pattern "
                f"to bookbuild/book/lint_allowlist.toml)"))
    return errors


#: a number inside math that reads as a typed quantity: a decimal, a thousands separator, or three
#: digits and more ("$295$ times"); a formula's small constants and exponents (2N, S^2, 2^{30}) pass
MATH_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:(?:\{,\}|,)\d{3})+(?:\.\d+)?|(?<![\w.])\d+\.\d+|(?<![\w.\\])\d{3,}")
MATH_SKIP = re.compile(r"\\(?:tag|label|text|mathrm|operatorname)\{[^}]*\}|\{#[^}]*\}")


def typed_numbers_in_math(text: str, relpath: str, allow: list[Allow], sc: Scan | None = None) -> list[LintError]:
    """Typed quantities inside math ($295$ times): the prose lint cannot see into math."""
    sc = sc or scan(text)
    starts = line_starts(text)
    rules = [a for a in allow if a.applies(relpath)]
    errors = []
    for a, b in sc.math:
        body = MATH_SKIP.sub(lambda m: " " * len(m.group(0)), text[a:b])
        for r in rules:
            body = r.pattern.sub(lambda m: " " * len(m.group(0)), body)
        toks = [m.group(0) for m in MATH_NUMBER.finditer(body)]
        if toks:
            errors.append(LintError(
                relpath, line_of(starts, a),
                f"typed number {', '.join(repr(t) for t in toks)} inside math: compute it in a cell and "
                f"quote `{{python}} Cls.x_str` outside the math (a constant of the formula? add a "
                f"reviewed pattern to bookbuild/book/lint_allowlist.toml)"))
    return errors


ATTR_READ = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")
#: a cross-reference or citation key ending the text before an inline value: pandoc reads the value's
#: "[text]{...}" that follows "@key " as the key's suffix, and Quarto 1.7 drops it from the page
AFTER_KEY = re.compile(r"(?:^|[\s(\[;])@[\w:.#$%&+?<>~/-]*\w\s+$")


def inline_rules(text: str, relpath: str, sc: Scan | None = None) -> list[LintError]:
    """Inline expressions must be plain ``Name.attr`` reads, outside math and captions, and never right after
    a cross-reference or citation key (where pandoc would read them as its suffix)."""
    errors = []
    sc = sc or scan(text)
    lines = sc.text.split("\n")
    for ip in sc.inline:
        if AFTER_KEY.search(lines[ip.line - 1][:ip.col]):
            errors.append(LintError(
                relpath, ip.line,
                f"inline value `{{python}} {ip.expr}` right after a cross-reference or citation: pandoc reads "
                f"it as the reference's suffix (Quarto 1.7 drops it); put a word or punctuation between them"))
        if not ATTR_READ.match(ip.expr):
            errors.append(LintError(
                relpath, ip.line,
                f"inline expression `{{python}} {ip.expr}` is not a plain attribute read: "
                f"compute it in the cell's OUTPUT block as a *_str and quote `{{python}} Cls.name_str`"))
        if ip.in_math:
            errors.append(LintError(
                relpath, ip.line,
                f"inline expression `{{python}} {ip.expr}` inside math: move it out of $...$ "
                f"(write '$x$ = `{{python}} ...`')"))
        if ip.in_caption:
            errors.append(LintError(
                relpath, ip.line,
                f"inline expression `{{python}} {ip.expr}` inside a caption: captions carry no "
                f"computed values; state the value in the prose"))
    return errors


def lint_text(text: str, rel: str, allow: list[Allow]) -> list[LintError]:
    """Every rule on one source file's text (``rel``: its path relative to the project root)."""
    sc = scan(text)
    return (inline_rules(text, rel, sc) + typed_numbers(text, rel, allow, sc)
            + typed_numbers_in_math(text, rel, allow, sc))
