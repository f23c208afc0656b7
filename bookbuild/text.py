"""Reading Quarto markdown as text: fenced blocks, the front matter, and masks that keep only the prose.

Everything here is a pure function of a string. :mod:`bookbuild.source` uses the fences and the front
matter to parse a chapter once; the book's rules (:mod:`bookbuild.book.lint`, the glossary) use
:func:`scan` and :func:`code_free` to look at prose only.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

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


def line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def line_of(starts: list[int], pos: int) -> int:
    """The 1-based line of character ``pos``, given :func:`line_starts` of the text."""
    return bisect.bisect_right(starts, pos)


_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(buf: list[str], a: int, b: int, ch: str = " ") -> None:
    """Every character of ``buf[a:b]`` but the line breaks becomes ``ch`` (one regex pass, not a loop)."""
    if b > a:
        buf[a:b] = _NOT_NEWLINE.sub(ch.replace("\\", "\\\\"), "".join(buf[a:b]))


def scan(text: str) -> Scan:
    """Mask everything that is not prose and find inline python expressions."""
    lines = text.split("\n")
    starts = line_starts(text)
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
        line = line_of(starts, a)
        out.inline.append(InlinePy(
            line=line, col=a - starts[line - 1], expr=expr,
            in_math=any(s <= a and b <= e for s, e in math),
            in_caption=any(s <= a and b <= e for s, e in captions)))
    return out


def code_free(text: str) -> str:
    """Text with front matter, fenced blocks, HTML comments and inline code blanked
    (same length and line structure).  Used to find headings, labels, refs."""
    lines = text.split("\n")
    starts = line_starts(text)
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
