"""Text scanning shared by the build, and the typed-number lint.

The lint runs on SOURCE files (before inline substitution), so numbers a cell
computes never trip it.  After masking everything that is not prose (front
matter, code, inline code, math, attribute blocks, shortcodes, URLs, citations,
cross-references, HTML comments and tags, list markers) any digit left is a
typed number and an error, unless a reviewed pattern of
``lint_allowlist.toml`` covers it.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from .errors import LintError

# ---------------------------------------------------------------- fences

FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>.*?)[ \t]*$")
EXEC_INFO = re.compile(r"^\{\s*(?P<lang>[A-Za-z0-9_-]+)(?P<rest>[^}]*)\}$")


@dataclass
class Fence:
    start: int          # 0-based index of the opening fence line
    end: int            # 0-based index of the closing fence line (== len(lines)-1 if unclosed)
    info: str           # text after the fence, e.g. "{python}", "python", "{=html}"
    closed: bool = True

    @property
    def exec_lang(self) -> str | None:
        """'python' for ```{python} (an executable chunk), else None."""
        m = EXEC_INFO.match(self.info)
        if m and not m.group("lang").startswith("="):
            return m.group("lang").lower()
        return None

    @property
    def is_raw(self) -> bool:
        return self.info.startswith("{=")


def find_fences(lines: list[str]) -> list[Fence]:
    out: list[Fence] = []
    i, n = 0, len(lines)
    while i < n:
        m = FENCE_OPEN.match(lines[i])
        if m and not (m.group("fence")[0] == "`" and "`" in m.group("info")):
            ch, ln = m.group("fence")[0], len(m.group("fence"))
            close = re.compile(r"^[ \t]*" + re.escape(ch) + "{" + str(ln) + r",}[ \t]*$")
            j = i + 1
            while j < n and not close.match(lines[j]):
                j += 1
            out.append(Fence(i, min(j, n - 1), m.group("info"), j < n))
            i = j + 1
            continue
        i += 1
    return out


def front_matter_end(lines: list[str]) -> int:
    """Index of the closing '---' of a leading YAML block, or -1."""
    if lines and lines[0].rstrip() == "---":
        for j in range(1, len(lines)):
            if lines[j].rstrip() in ("---", "..."):
                return j
    return -1


# ---------------------------------------------------------------- masking

INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
INLINE_PY = re.compile(r"^\{python\}\s+(?P<expr>.*?)\s*$", re.S)
DISPLAY_MATH = re.compile(r"(?<!\\)\$\$(.+?)\$\$", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?=[^\s$])((?:\\.|[^$\\\n]|\n(?![ \t]*\n))+?)(?<=[^\s\\])\$(?!\d)")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
IMAGE_ALT = re.compile(r"!\[((?:[^\[\]]|\[[^\]]*\])*)\]")

MASKS = [
    re.compile(r"\{\{\{?<.*?>\}\}\}?", re.S),                                 # shortcodes / includes
    re.compile(r"\\[A-Za-z]+\*?(?:\[[^\]\n]*\])?(?:\{[^{}\n]*\})*"),        # raw LaTeX \ref{...}
    re.compile(r"\{[#.=-][^{}\n]*\}"),                                        # attribute blocks {#id .cls}
    re.compile(r"\{[^{}\n]*=[^{}\n]*\}"),                                     # {key="..."}
    re.compile(r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)"),                           # link/image targets
    re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.M),                    # reference link defs
    re.compile(r"<[A-Za-z][A-Za-z0-9+.-]*://[^>\s]+>"),                       # autolinks
    re.compile(r"\b(?:https?|ftp)://[^\s<>()\]]+"),                           # bare URLs
    re.compile(r"\bwww\.[^\s<>()\]]+"),
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),                              # email addresses
    re.compile(r"(?<![\w@])-?@\{[^}\n]*\}"),                                  # @{key}
    re.compile(r"(?<![\w@])-?@[A-Za-z0-9_](?:\w|[:.#$%&\-+?<>~/](?=\w))*"),  # citations and refs
    re.compile(r"\[\^[^\]\s]+\]"),                                            # footnote markers
    re.compile(r"</?[A-Za-z][^>\n]*>"),                                       # HTML tags
    re.compile(r"&#?\w+;"),                                                   # HTML entities
    re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\d+[.)](?=[ \t])", re.M),             # ordered list markers
    re.compile(r"^[ \t]*#\|.*$", re.M),                                       # stray option lines
]
CAPTION_OPTION = re.compile(r"^#\|\s*(?:fig-cap|tbl-cap|fig-alt|fig-subcap)\s*:\s*(?P<v>.*)$")


@dataclass
class InlinePy:
    line: int           # 1-based
    col: int            # 0-based column of the opening backtick
    expr: str
    in_math: bool = False
    in_caption: bool = False


@dataclass
class Scan:
    text: str
    masked: str                       # prose only; same length, masked chars -> spaces
    inline: list[InlinePy] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)
    math: list[tuple[int, int]] = field(default_factory=list)   # spans of $...$ / $$...$$ in text


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def _pos_to_line(starts: list[int], pos: int) -> int:
    import bisect
    return bisect.bisect_right(starts, pos)  # 1-based


def _blank(buf: list[str], a: int, b: int, ch: str = " ") -> None:
    for k in range(a, b):
        if buf[k] != "\n":
            buf[k] = ch


def scan(text: str) -> Scan:
    """Mask everything that is not prose and find inline python expressions."""
    lines = text.split("\n")
    starts = _line_starts(text)
    buf = list(text)

    def blank_lines(i0: int, i1: int, keep: set[int] = frozenset()) -> None:
        for i in range(i0, i1 + 1):
            if i in keep:
                continue
            _blank(buf, starts[i], starts[i] + len(lines[i]))

    fm = front_matter_end(lines)
    if fm >= 0:
        blank_lines(0, fm)
    fences = [f for f in find_fences(lines) if f.start > fm]
    cap_spans: list[tuple[int, int]] = []
    for f in fences:
        blank_lines(f.start, f.end)
        if f.exec_lang:  # keep caption option values: they are prose
            for i in range(f.start + 1, f.end):
                m = CAPTION_OPTION.match(lines[i])
                if m:
                    a = starts[i] + m.start("v")
                    b = starts[i] + len(lines[i])
                    buf[a:b] = list(text[a:b])
                    cap_spans.append((a, b))
    work = "".join(buf)
    for m in HTML_COMMENT.finditer(work):
        _blank(buf, m.start(), m.end())
    work = "".join(buf)

    # inline code: placeholder (non-space) so math delimiters still see "non-space"
    inline: list[tuple[int, int, str | None]] = []
    for m in INLINE_CODE.finditer(work):
        if "\n\n" in m.group(0):
            continue
        pm = INLINE_PY.match(m.group(2).strip())
        inline.append((m.start(), m.end(), pm.group("expr") if pm else None))
        _blank(buf, m.start(), m.end(), "\x00")
    work = "".join(buf)

    math: list[tuple[int, int]] = []
    for m in DISPLAY_MATH.finditer(work):
        math.append((m.start(), m.end()))
        _blank(buf, m.start(), m.end(), "\x00")
    work = "".join(buf)
    for m in INLINE_MATH.finditer(work):
        math.append((m.start(), m.end()))
        _blank(buf, m.start(), m.end(), "\x00")
    work = "".join(buf)

    captions = list(cap_spans)
    for i, ln in enumerate(lines):
        if re.match(r"^[ \t]*(?::|Table:)[ \t]", ln):  # pandoc table caption
            captions.append((starts[i], starts[i] + len(ln)))
    for m in IMAGE_ALT.finditer(work):
        captions.append((m.start(), m.end()))

    for rx in MASKS:
        for m in rx.finditer(work):
            _blank(buf, m.start(), m.end())
        work = "".join(buf)

    masked = work.replace("\x00", " ")
    out = Scan(text=text, masked=masked, fences=fences, math=sorted(math))
    for a, b, expr in inline:
        if expr is None:
            continue
        line = _pos_to_line(starts, a)
        out.inline.append(InlinePy(
            line=line, col=a - starts[line - 1], expr=expr,
            in_math=any(s <= a and b <= e for s, e in math),
            in_caption=any(s <= a and b <= e for s, e in captions)))
    return out


def code_free(text: str) -> str:
    """Text with front matter, fenced blocks, HTML comments and inline code blanked
    (same length and line structure).  Used to find headings, labels, refs."""
    lines = text.split("\n")
    starts = _line_starts(text)
    buf = list(text)
    fm = front_matter_end(lines)
    if fm >= 0:
        _blank(buf, 0, starts[fm] + len(lines[fm]))
    for f in find_fences(lines):
        if f.start > fm:
            _blank(buf, starts[f.start], starts[f.end] + len(lines[f.end]))
    work = "".join(buf)
    for m in HTML_COMMENT.finditer(work):
        _blank(buf, m.start(), m.end())
    work = "".join(buf)
    for m in INLINE_CODE.finditer(work):
        if "\n\n" not in m.group(0):
            _blank(buf, m.start(), m.end())
    return "".join(buf)


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
    try:
        return Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _toml_line(e: Exception) -> int | None:
    m = re.search(r"line (\d+)", str(e))
    return int(m.group(1)) if m else None


def load_allowlist(path: Path | None = None) -> list[Allow]:
    path = Path(path) if path else ALLOWLIST_PATH
    from .errors import read_text
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
                f"to bookbuild/lint_allowlist.toml)"))
    return errors


#: a number inside math that reads as a typed quantity: a decimal, a thousands separator, or three
#: digits and more ("$295$ times"); a formula's small constants and exponents (2N, S^2, 2^{30}) pass
MATH_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:(?:\{,\}|,)\d{3})+(?:\.\d+)?|(?<![\w.])\d+\.\d+|(?<![\w.\\])\d{3,}")
MATH_SKIP = re.compile(r"\\(?:tag|label|text|mathrm|operatorname)\{[^}]*\}|\{#[^}]*\}")


def typed_numbers_in_math(text: str, relpath: str, allow: list[Allow], sc: Scan | None = None) -> list[LintError]:
    """Typed quantities inside math ($295$ times): the prose lint cannot see into math."""
    sc = sc or scan(text)
    starts = _line_starts(text)
    rules = [a for a in allow if a.applies(relpath)]
    errors = []
    for a, b in sc.math:
        body = MATH_SKIP.sub(lambda m: " " * len(m.group(0)), text[a:b])
        for r in rules:
            body = r.pattern.sub(lambda m: " " * len(m.group(0)), body)
        toks = [m.group(0) for m in MATH_NUMBER.finditer(body)]
        if toks:
            errors.append(LintError(
                relpath, _pos_to_line(starts, a),
                f"typed number {', '.join(repr(t) for t in toks)} inside math: compute it in a cell and "
                f"quote `{{python}} Cls.x_str` outside the math (a constant of the formula? add a "
                f"reviewed pattern to bookbuild/lint_allowlist.toml)"))
    return errors


ATTR_READ = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*$")


def inline_rules(text: str, relpath: str, sc: Scan | None = None) -> list[LintError]:
    """Inline expressions must be plain ``Name.attr`` reads, outside math and captions."""
    errors = []
    for ip in (sc or scan(text)).inline:
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


def lint_file(path: Path, root: Path, allow: list[Allow] | None = None) -> list[LintError]:
    rel = Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    from .errors import read_text
    text = read_text(path, Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
                     if Path(path).resolve().is_relative_to(Path(root).resolve()) else path)
    allow = load_allowlist() if allow is None else allow
    sc = scan(text)
    return (inline_rules(text, rel, sc) + typed_numbers(text, rel, allow, sc)
            + typed_numbers_in_math(text, rel, allow, sc))
