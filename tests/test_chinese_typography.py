"""The Chinese book's terms and typography hold in every Chinese string a reader sees, not only prose.

notes/glossary.toml holds the data: [terms] (one Chinese form per term, with the variants to refuse),
[typography] (the one percent style, full-width brackets, 《…》 for titles, untranslated words, time
formats, 亿) and [titles] (the Chinese titles of chapters outside the book). The build's own check
(bookbuild/translation.py) covers chapter prose; this test applies the same data to the strings that
check does not reach yet: captions, alt text and table cells of the Chinese chapters, every Chinese
figure label (mlsysim/figures), the measurements table, the explorer, the hover names
(bookbuild/provenance_names.toml) and the guards' Chinese messages.
"""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from parity import ROOT

GLOSSARY = tomllib.loads((ROOT / "notes" / "glossary.toml").read_text(encoding="utf-8"))
TYPO = GLOSSARY["typography"]
TITLES = GLOSSARY["titles"]
CJK = re.compile(r"[\u4e00-\u9fff]")
ZH_CHAPTERS = ["appendix/inference-cost.zh.qmd", "lectures/lecture19-agent-stalls.zh.qmd", "index.zh.qmd"]


def _mask_markup(text: str) -> str:
    """Chapter text as a reader sees its words: code chunks reduced to their caption/alt options, inline
    code, math, HTML comments, attributes, citations and cross-references removed."""
    def chunk(m):
        opts = re.findall(r'^#\|\s*(?:fig-cap|fig-alt|tbl-cap):\s*"(.*)"\s*$', m.group(0), re.M)
        return "\n".join(opts)
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    text = re.sub(r"^```.*?^```", chunk, text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", " ", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "`", text)          # an inline value keeps one backtick, for the percent rule
    text = re.sub(r"\{[#.][^}]*\}|\{\{<[^>]*>\}\}", " ", text)
    text = re.sub(r"\[@[^\]]+\]|@\w[\w:-]*", " ", text)
    return text


def _ast_strings(path: Path, call_names=("T",), keyword="zh") -> list[str]:
    """Chinese literals of a Python or cell file: second arguments of T(en, zh), zh= keywords and the
    values of *_ZH dicts (the constant parts of f-strings)."""
    src = path.read_text(encoding="utf-8")
    if path.suffix == ".qmd":
        src = "\n".join(m.group(1) for m in re.finditer(r"```\{python\}\n(.*?)```", src, re.S))
    out = []

    def lit(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        return None

    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in call_names and len(node.args) >= 2 and lit(node.args[1]) is not None:
                out.append(lit(node.args[1]))
            for kw in node.keywords:
                if kw.arg == keyword and lit(kw.value) is not None:
                    out.append(lit(kw.value))
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "").endswith("_ZH") for t in node.targets):
            out += [lit(v) for v in getattr(node.value, "values", []) if lit(v) is not None]
    return [s for s in out if CJK.search(s)]


def _walk(obj) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _walk(v)]
    if isinstance(obj, (list, tuple)):
        return [s for v in obj for s in _walk(v)]
    return []


def _sources() -> dict[str, list[str]]:
    from mlsysim.explorer import TEXT
    from mlsysim.measurements import TABLE_TEXT, table_markdown
    out = {}
    for ch in ZH_CHAPTERS:
        out[ch] = [_mask_markup((ROOT / ch).read_text(encoding="utf-8"))]
    for f in sorted((ROOT / "mlsysim" / "figures").glob("*.py")):
        out[str(f.relative_to(ROOT))] = _ast_strings(f)
    out["mlsysim/measurements.py TABLE_TEXT[zh]"] = _walk(TABLE_TEXT["zh"])
    out["table_markdown(lang='zh')"] = [re.sub(r"\[@[^\]]+\]", " ", table_markdown(lang="zh"))]
    out["mlsysim/explorer.py TEXT[zh]"] = _walk(TEXT["zh"])
    names_file = next(p for p in (ROOT / "bookbuild" / "provenance_names.toml",
                                  ROOT / "bookbuild" / "book" / "provenance_names.toml") if p.is_file())
    names = tomllib.loads(names_file.read_text(encoding="utf-8"))
    out["bookbuild/provenance_names.toml"] = [e["zh"] for cls in names["names"].values()
                                              for e in cls.values() if isinstance(e, dict) and "zh" in e]
    for f in sorted((ROOT / "appendix" / "_cells").glob("*.qmd")) + sorted((ROOT / "lectures" / "_cells").glob("*.qmd")):
        out[str(f.relative_to(ROOT))] = _ast_strings(f, call_names=())
    return out


SOURCES = _sources()


def test_every_kind_of_string_is_collected():
    assert all(SOURCES[ch][0].strip() for ch in ZH_CHAPTERS)
    assert len(SOURCES["mlsysim/figures/catalog.py"]) > 20 and len(SOURCES["mlsysim/figures/lecture.py"]) > 8
    assert SOURCES["mlsysim/figures/calibration.py"] and SOURCES["bookbuild/provenance_names.toml"]
    assert "算术强度 𝓘（FLOP/字节）" in SOURCES["mlsysim/figures/catalog.py"]


def _variant_hits(text: str) -> list[str]:
    hits = []
    for en, t in GLOSSARY["terms"].items():
        hidden = text.replace(t["zh"], "\0" * len(t["zh"]))
        hits += [f"'{v}' (write '{t['zh']}' for {en})" for v in t.get("variants", []) if v in hidden]
    return hits


def _typography_hits(text: str) -> list[str]:
    hits = []
    for key in ("percent_forbidden", "brackets_forbidden", "untranslated_forbidden", "time_forbidden",
                "number_units_forbidden", "citation_forbidden"):
        for pat in TYPO[key]:
            for m in re.finditer(pat, text):
                hits.append(f"{key}: {text[max(0, m.start() - 12):m.end() + 12]!r}")
    return hits


@pytest.mark.parametrize("where", sorted(SOURCES))
def test_glossary_terms_hold_in(where):
    hits = [h for s in SOURCES[where] for h in _variant_hits(s)]
    assert not hits, f"{where}: " + "; ".join(hits)


@pytest.mark.parametrize("where", sorted(SOURCES))
def test_typography_holds_in(where):
    hits = [h for s in SOURCES[where] for h in _typography_hits(s)]
    assert not hits, f"{where}: " + "; ".join(hits)


@pytest.mark.parametrize("ch", ZH_CHAPTERS)
def test_titles_of_other_chapters_are_marked_and_translated(ch):
    text = SOURCES[ch][0]
    for en, zh in TITLES.items():
        for m in re.finditer(re.escape(zh), text):
            # a title inside another title (轨迹容量 in nothing else) must still sit in 《…》
            before, after = text[:m.start()], text[m.end():]
            assert before.endswith("《") and after.startswith("》"), (ch, zh, text[m.start() - 20:m.end() + 20])
    assert "《" in text or ch != "appendix/inference-cost.zh.qmd"


def test_the_rules_catch_what_the_issue_found():
    """Each rule can fail: the issue's own examples."""
    assert _typography_hits("约为屋脊点的百分之 0.34")
    assert _typography_hits("57 %") and not _typography_hits("57%")
    assert _typography_hits("负载 (上限)") and not _typography_hits("（上限）")
    assert _typography_hits("保存在 离散 token 表示 的 KV 缓存中")
    assert _typography_hits("周一、周三 11:15am–12:30pm")
    assert _typography_hits("70.6 十亿")
    assert _typography_hits("NVIDIA 2025年a")
    assert _variant_hits("可达运算速率与计算强度的关系") and _variant_hits("标准会话") and _variant_hits("重计算")
