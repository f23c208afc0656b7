"""Read a Quarto book project: ``_quarto.yml`` merged with ``_quarto-<profile>.yml``.

Quarto merges a profile file into the base file like this (observed in Quarto
1.7, see shared/design/QUARTO.md): mappings merge recursively, lists APPEND
(base items first), scalars from the profile win.
"""
from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import BuildError, ConfigError, read_text
from .source import safe_yaml

#: which key of Quarto's ``language:`` table names each cross-reference kind's word
LANGUAGE_KEYS = {"fig": "crossref-fig-title", "tbl": "crossref-tbl-title", "eq": "crossref-eq-prefix",
                 "sec": "crossref-sec-prefix", "chapter": "crossref-ch-prefix",
                 "appendix": "crossref-apx-prefix"}
#: the kinds whose word ``crossref: <kind>-prefix`` sets in a Quarto 1.7 book (not sec/chapter/appendix)
CROSSREF_PREFIX_KINDS = ("fig", "tbl", "eq")


def quarto_language_defaults(lang: str) -> dict[str, str]:
    """Quarto 1.7.34's default words for ``lang`` (``bookbuild/quarto_language.toml``)."""
    table = tomllib.loads((Path(__file__).parent / "quarto_language.toml").read_text(encoding="utf-8"))
    return dict(table.get(lang.split("-")[0]) or table["en"])


def crossref_words(meta: dict[str, Any], lang: str, src: str = "_quarto.yml") -> dict[str, str]:
    """kind -> word, resolved the way Quarto 1.7 resolves it in a book project.

    ``crossref: fig/tbl/eq-prefix`` first, then the ``language:`` table of the project, then
    Quarto's defaults for ``lang``. ``crossref: sec-prefix`` is refused: Quarto 1.7 ignores it in a
    book (it reads ``language: crossref-sec-prefix``), so accepting it would make the two builds
    disagree.
    """
    language = dict(quarto_language_defaults(lang))
    given = meta.get("language") or {}
    if isinstance(given, dict):
        language.update({str(k): str(v) for k, v in given.items()})
    words = {kind: language[key] for kind, key in LANGUAGE_KEYS.items() if key in language}
    cr = meta.get("crossref") or {}
    if isinstance(cr, dict):
        for k, v in cr.items():
            kind = str(k)[: -len("-prefix")] if str(k).endswith("-prefix") else None
            if k in ("appendix-title", "chapter-title"):   # Quarto's crossref options for the headings
                words[str(k)[: -len("-title")]] = str(v)
            elif k == "title-delim":   # what joins a caption's number to its text ("Figure 1:"), Quarto's option
                words["title-delim"] = str(v)
            elif kind in CROSSREF_PREFIX_KINDS:
                words[kind] = str(v)
            elif kind is not None:
                raise ConfigError(src, None, f"crossref: {k} is ignored by Quarto in a book project; "
                                             f"set language: {LANGUAGE_KEYS.get(kind, 'crossref-' + kind + '-prefix')} instead")
    words.update(crossref_forms(meta, src))
    return words


def crossref_forms(meta: dict[str, Any], src: str = "_quarto.yml") -> dict[str, str]:
    """``crossref-form: {word: form}``: the word order of a cross-reference in the book's language, the word
    as the renderer prints it and the form it takes around the number (``{}``), e.g. ``节: "第 {} 节"``
    ("第 A.6 节" where Quarto's order is "节 A.6"). Read by both renderers (``filters/citations.ref_text``,
    the book extension's ``cjk-xref.lua``); keys ``form:<word>`` of the crossref words."""
    given = meta.get("crossref-form")
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise ConfigError(src, None, "crossref-form must map a cross-reference word to its form, e.g. 节: \"第 {} 节\"")
    out = {}
    for word, form in given.items():
        if not isinstance(form, str) or form.count("{}") != 1 or not str(word).strip():
            raise ConfigError(src, None, f"crossref-form: {word}: {form!r} must hold the number's place {{}} once")
        out[f"form:{word}"] = form
    return out


@dataclass(frozen=True)
class ChapterRef:
    """One entry of the book's chapter list."""
    path: Path                 # relative to the project root, e.g. appendix/inference-cost.qmd
    appendix: bool = False     # listed under book.appendices
    part: str | None = None    # title (or file) of the part it sits in, if any

    def __fspath__(self) -> str:  # lets a ChapterRef be used where a path is expected
        return str(self.path)


@dataclass
class Book:
    root: Path
    profile: str
    lang: str
    title: str
    output_dir: Path           # relative to root, e.g. _book/en
    chapters: list[ChapterRef]
    bibliography: list[Path]   # relative to root
    csl: Path | None           # the citation style (csl:), relative to root; None: pandoc's default
    crossref: dict[str, str]   # kind -> prefix word: sec/tbl/eq/fig/chapter/appendix
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def execute_options(self) -> dict[str, Any]:
        ex = self.metadata.get("execute") or {}
        return dict(ex) if isinstance(ex, dict) else {}


def merge(base: Any, over: Any) -> Any:
    """Quarto's profile merge: dicts recursively, lists appended, scalars replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = copy.deepcopy(base)
        for k, v in over.items():
            out[k] = merge(out[k], v) if k in out else copy.deepcopy(v)
        return out
    if isinstance(base, list) and isinstance(over, list):
        return copy.deepcopy(base) + copy.deepcopy(over)
    return copy.deepcopy(over)


def _read_yaml(path: Path) -> dict:
    if not path.is_file():
        raise ConfigError(path.name, None, f"missing project file {path.name}")
    text = read_text(path, path.name)
    try:
        data = safe_yaml(text, path.name)
    except BuildError as e:
        raise ConfigError(path.name, e.line, e.message) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(path.name, 1, "top level must be a mapping")
    return data


def profiles(root: Path) -> list[str]:
    """Profiles that have a ``_quarto-<name>.yml`` file, sorted."""
    root = Path(root)
    names = []
    for p in sorted(root.glob("_quarto-*.yml")):
        names.append(p.name[len("_quarto-"):-len(".yml")])
    return names


def default_profile(root: Path) -> str | None:
    base = _read_yaml(Path(root) / "_quarto.yml")
    prof = base.get("profile") or {}
    d = prof.get("default") if isinstance(prof, dict) else None
    if isinstance(d, list):
        d = d[0] if d else None
    return None if d is None else str(d)


def merged_metadata(root: Path, profile: str | None) -> dict:
    root = Path(root)
    base = _read_yaml(root / "_quarto.yml")
    if profile in (None, "", "default"):
        profile = default_profile(root)
    if profile:
        pfile = root / f"_quarto-{profile}.yml"
        if not pfile.exists():
            raise ConfigError(pfile.name, None,
                              f"profile '{profile}' has no file {pfile.name} "
                              f"(available: {', '.join(profiles(root)) or 'none'})")
        return merge(base, _read_yaml(pfile))
    return base


def _chapter_entries(entries: Any, appendix: bool, source: str, part: str | None = None
                     ) -> list[ChapterRef]:
    out: list[ChapterRef] = []
    if entries is None:
        return out
    if not isinstance(entries, list):
        raise ConfigError(source, None, "book chapters/appendices must be a list")
    for e in entries:
        if isinstance(e, str):
            out.append(ChapterRef(Path(e), appendix, part))
        elif isinstance(e, dict) and "part" in e:
            ptitle = str(e["part"])
            if ptitle.endswith((".qmd", ".md", ".ipynb")):
                # a part page is a file of its own, rendered (unnumbered) before its chapters
                out.append(ChapterRef(Path(ptitle), appendix, ptitle))
            out.extend(_chapter_entries(e.get("chapters"), appendix, source, ptitle))
        elif isinstance(e, dict) and "href" in e:
            out.append(ChapterRef(Path(str(e["href"])), appendix, part))
        else:
            raise ConfigError(source, None, f"cannot read book chapter entry {e!r}")
    return out


def named_files(root: Path, profile: str | None) -> list[Path]:
    """The chapters and bibliography files a profile names, whether or not they exist or the book loads
    (what the preview watches while the book is broken: a chapter renamed away and back); [] when the
    configuration itself cannot be read."""
    root = Path(root).resolve()
    try:
        if profile in (None, "", "default"):
            profile = default_profile(root) or "default"
        meta = merged_metadata(root, None if profile == "default" else profile)
        book = meta.get("book") if isinstance(meta.get("book"), dict) else {}
        out = [root / ch.path for key, app in (("chapters", False), ("appendices", True))
               for ch in _chapter_entries(book.get(key), app, "")]
        bib = meta.get("bibliography") or []
        out += [root / b for b in ([bib] if isinstance(bib, str) else bib) if isinstance(b, str) and b.strip()]
        return out
    except Exception:  # noqa: BLE001 - a configuration that does not read: the build says why
        return []


def load_book(root: Path, profile: str | None = None) -> Book:
    """Load the book of ``profile`` (``None``/"default" = ``profile: default:``)."""
    root = Path(root).resolve()
    if profile in (None, "", "default"):
        profile = default_profile(root) or "default"
    meta = merged_metadata(root, None if profile == "default" else profile)
    src = f"_quarto-{profile}.yml" if profile != "default" else "_quarto.yml"
    book = meta.get("book") or {}
    if not isinstance(book, dict):
        raise ConfigError(src, None, "'book' must be a mapping")
    chapters = (_chapter_entries(book.get("chapters"), False, src)
                + _chapter_entries(book.get("appendices"), True, src))
    if not chapters:
        raise ConfigError(src, None, f"profile '{profile}' lists no chapters")
    seen = set()
    for ch in chapters:
        if not (root / ch.path).is_file():
            raise ConfigError(src, None, f"chapter {ch.path.as_posix()} does not exist")
        if ch.path in seen:
            raise ConfigError(src, None,
                              f"chapter {ch.path.as_posix()} is listed twice (profile lists "
                              "append to _quarto.yml's: keep chapter lists in the profile files only)")
        seen.add(ch.path)
    lang = meta.get("lang") or "en"
    if not isinstance(lang, str):
        raise ConfigError(src, None, f"lang must be a language code such as en or zh, not {lang!r}")
    bib = meta.get("bibliography") or []
    if isinstance(bib, str):
        bib = [bib]
    if not isinstance(bib, list) or not all(isinstance(b, str) and b.strip() for b in bib):
        raise ConfigError(src, None, f"bibliography must name a .bib file or a list of them, not {bib!r}")
    # lists append across profiles: the same file named twice is one bibliography
    bibs: list[Path] = []
    for b in bib:
        if Path(b) not in bibs:
            bibs.append(Path(b))
    for b in bibs:
        if not (root / b).resolve().is_relative_to(root):
            raise ConfigError(src, None, f"bibliography {b.as_posix()} is outside the project: keep it in the "
                                         "book's own folder")
        if not (root / b).is_file():
            raise ConfigError(src, None, f"bibliography {b.as_posix()} does not exist")
    csl = meta.get("csl")
    if csl is not None and not isinstance(csl, str):
        raise ConfigError(src, None, "csl must be the path of one citation style file")
    if csl is not None and not (root / csl).is_file():
        raise ConfigError(src, None, f"citation style {csl} does not exist")
    prefixes = crossref_words(meta, lang, src)
    project = meta.get("project") or {}
    out_dir = Path(str(project.get("output-dir") or "_book"))
    return Book(root=root, profile=profile, lang=lang, title=str(book.get("title") or ""),
                output_dir=out_dir, chapters=chapters, bibliography=bibs, csl=Path(csl) if csl else None,
                crossref=prefixes, metadata=meta)
