"""The build's typography check (bookbuild/book/typography.py): every Chinese string a reader sees, with
the glossary's terms and rules, one line naming the file and line; each rule can fail."""
from __future__ import annotations

import re
from pathlib import Path

from bookbuild.book import typography as T
from bookbuild.book.translation import load_glossary

ROOT = Path(__file__).resolve().parents[2]
DATA, TERMS = T.load(ROOT), load_glossary(ROOT)


def messages(texts):
    return [e.format() for e in T.check(texts, DATA, TERMS)]


def test_chapter_prose_captions_and_tables_are_checked_with_their_lines():
    text = ("---\ntitle: x\n---\n\n# 标题\n\n约为屋脊点的百分之 0.34。\n\n| 负载 | 值 |\n|---|---|\n| 满负载 (上限) | 1 |\n\n"
            "```{python}\n#| label: fig-x\n#| fig-cap: \"计算强度与延迟\"\nx = 1\n```\n\n其中 `{python} A.p_str` % 的流量。\n")
    got = messages(T.chapter_texts("a.zh.qmd", text))
    assert any(m.startswith("a.zh.qmd:7:") and "percent" in m for m in got)           # 百分之 0.34
    assert any(m.startswith("a.zh.qmd:11:") and "brackets" in m for m in got)         # (上限) in a table cell
    assert any(m.startswith("a.zh.qmd:15:") and "计算强度" in m for m in got)          # a caption
    assert any(m.startswith("a.zh.qmd:19:") and "percent" in m for m in got)          # an inline value, then " %"


def test_code_strings_a_reader_sees_are_checked():
    src = 'T("Arithmetic intensity", "计算强度")\ncheck(x, "msg", zh="保存在 离散词元表示 的缓存，时间 11:15am")\n'
    got = messages(T.code_texts("mlsysim/figures/x.py", src) + T.code_texts("cells.qmd", src, calls=()))
    assert any(m.startswith("mlsysim/figures/x.py:1:") and "算术强度" in m for m in got)
    assert any(m.startswith("cells.qmd:2:") and "title" in m and "《离散词元表示》" in m for m in got)
    assert any(m.startswith("cells.qmd:2:") and "time" in m for m in got)


#: a cell file of each folder whose names the hover shows
CELLS = ["appendix/_cells/serving-ref.qmd", "lectures/_cells/lec19-sandbox.qmd"]
CJK_NAME = re.compile(r"[\u4e00-\u9fff]")


def test_the_books_own_strings_pass():
    texts = T.library_texts(ROOT / "mlsysim") + T.name_texts(ROOT, CELLS)
    assert len(texts) > 50 and not messages(texts)
    for ch in ("appendix/inference-cost.zh.qmd", "lectures/lecture19-agent-stalls.zh.qmd", "index.zh.qmd"):
        assert not messages(T.chapter_texts(ch, (ROOT / ch).read_text(encoding="utf-8")))


def test_the_rules_catch_what_the_review_found():
    """Each rule can fail: the review's own examples."""
    def hit(s):
        return messages([T.Text("x", 1, s)])
    assert hit("约为屋脊点的百分之 0.34") and hit("57 %") and not hit("57%")
    assert hit("负载 (上限)") and not hit("（上限）")
    assert hit("保存在 离散 token 表示 的 KV 缓存中") and hit("周一、周三 11:15am–12:30pm") and hit("70.6 十亿")
    assert hit("NVIDIA 2025年a")
    assert hit("可达运算速率与计算强度的关系") and hit("标准会话") and hit("重计算")


def test_every_kind_of_string_is_collected():
    texts = T.library_texts(ROOT / "mlsysim")
    files = {t.file for t in texts}
    assert {"mlsysim/figures/catalog.py", "mlsysim/figures/lecture.py", "mlsysim/figures/calibration.py",
            "mlsysim/measurements.py", "mlsysim/explorer.py"} <= files
    assert any("算术强度" in t.text for t in texts if t.file == "mlsysim/figures/catalog.py")
    names = T.name_texts(ROOT, CELLS)   # the names beside the appendix's and the lecture's cells, each at its line
    assert {t.file for t in names} == {"appendix/_cells/names.toml", "lectures/_cells/names.toml"} and len(names) > 20
    assert sum(bool(CJK_NAME.search(t.text)) for t in names) > 20


def test_the_cells_the_library_composes_for_its_tables_are_checked(monkeypatch):
    """Issue 38: "0 (放不下)" was composed by the library (a pool the weights leave empty), in no file the
    check read. The composed cells of every state are checked: a half-width bracket in one is found."""
    import mlsysim.reference as R
    texts = T.generated_table_texts(ROOT / "mlsysim")
    assert any("0（放不下）" in t.text for t in texts) and any("注册表中无此节点" in t.text for t in texts)
    assert any(t.file == "mlsysim/explorer.py" and "|:--" in t.text for t in texts)
    real = R.display_values

    def half_width(rv, accel, lang="en"):   # the composition as it was: "0 (放不下)"
        return {k: v.replace("（", " (").replace("）", ")") for k, v in real(rv, accel, lang).items()}

    monkeypatch.setattr(R, "display_values", half_width)
    got = messages(T.generated_table_texts(ROOT / "mlsysim"))
    assert any(m.startswith("mlsysim/reference.py:") and "brackets" in m and "放不下" in m for m in got), got


def test_units_after_a_number_are_symbols_and_noon_is_noon():
    def hit(s):
        return messages([T.Text("x", 1, s)])
    assert hit("约耗时 120 秒墙钟时间") and hit("即 `` 毫秒。") and hit("平均每次 60 秒。")
    assert not hit("约耗时 120 s 墙钟时间") and not hit("毫秒级建立") and not hit("数秒至无限期")
    assert not hit("= 0.745 个任务/秒") and not hit("10.9 GPU·秒") and not hit("6 分钟")
    assert hit("上午 11:15 至下午 12:30") and not hit("上午 11:15 至中午 12:30")
    assert hit("检查草拟词元") and hit("金曼近似") and hit("达到比例") and hit("为每种处置定价") and hit("人工回合")
