"""The executed appendix shows the seeds' numbers, in both languages, and the two quote the same values.

Expected values come from the seed documents, copied into the project as data (tests/golden/) or
typed here from them; none comes from the code under test.
"""
import re
from collections import Counter

import pytest

from conftest import golden

NUM = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")


def _prose(text: str) -> str:
    """Text with math, cross-reference numbers, equation tags, code and markup attributes removed."""
    text = re.sub(r"\\\[.*?\\\]|\\\(.*?\\\)", " ", text, flags=re.S)          # seed math
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", " ", text, flags=re.S)         # markdown math
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"\{[#.][^}]*\}|<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"(节|表|公式|图|原则)\s*\d+", " ", text)                     # rendered cross-refs in the seed
    text = re.sub(r"\(\w[^()]*?\d{4}年?(;[^()]*)?\)", " ", text)             # rendered citations "(Williams 等 2009年)"
    text = re.sub(r"\[@[^\]]+\]|@\w[\w:-]*", " ", text)
    return text


def _numbers(text: str) -> Counter:
    return Counter(NUM.findall(_prose(text)))


# Where the book's Chinese display convention differs from the seed's rendering (the value is the same):
# the seed writes the parameter count as "70.6 十亿"; the book counts in 亿 ("706 亿", glossary [values]).
ZH_DISPLAY_CONVENTION = {"70.6": "706"}


def test_every_number_of_the_chinese_seed_is_in_the_executed_chinese_chapter(executed_appendix):
    seed = Counter(golden("appendix_zh_seed_numbers")["count"])
    assert sum(seed.values()) == 96  # the seed's prose prints about a hundred numbers
    seed = Counter({ZH_DISPLAY_CONVENTION.get(n, n): c for n, c in seed.items()})
    ours = _numbers(executed_appendix["zh"].markdown)
    missing = {n: c - ours[n] for n, c in seed.items() if ours[n] < c}
    assert not missing, f"numbers the Chinese seed prints that the executed chapter lacks (count short): {missing}"


# (number, text right after it) in the Chinese seed's rendering: typed from the seed. Two follow the book's
# Chinese conventions instead of the seed's (notes/glossary.toml [typography], [values]): the seed's
# "百分之 0.34" is written "0.34%", and its "70.6 十亿" is "706 亿".
ZH_IN_CONTEXT = [
    ("295", " 倍"), ("1,979", " 万亿次运算/秒"), ("3.35", " TB/s"), ("591", " 次运算/字节"),
    ("0.34", "%，"), ("706", " 亿"), ("21.1", " ms"), ("71", " µs"), ("108,000", " 个词元"),
    ("30", "%"), ("327,680", " 字节"), ("10.7", " GB"), ("85.9", " GB"), ("1.34", " GB"),
    ("163,840", " 字节"), ("360", " s"), ("6", " 分钟"), ("720", " 条"), ("17", "%"), ("120", " 条"),
    ("7.7", " TB"), ("15", " 个节点"), ("2.4", " 个节点"), ("13.5", " 倍"), ("90", "%"),
    ("526.0", " GB"), ("48", " 条"), ("700", " 亿"), ("655", " MB/s"), ("10", " KB/s"), ("8.4", " MB"),
    ("8,388,608", " 字节"), ("150", " µs"), ("75", " ms"),
]


@pytest.mark.parametrize("number, after", ZH_IN_CONTEXT)
def test_chinese_numbers_in_context(executed_appendix, number, after):
    assert number + after in executed_appendix["zh"].markdown


# The English seed's numbers, in the places its prose puts them (typed from the seed and its
# Chinese rendering, which shows the same values).
EN_IN_CONTEXT = [
    "about 295 times as much time", "= 1,979 trillion operations per second", "= 3.35 TB/s",
    "591 operations per byte", "2 operations per byte", "0.34 percent of the ridge",
    "70.6 billion parameters", "21.1 ms per output token", "71 µs per prompt token",
    "configuration, is 295.",   # the seed's "which is 295 for the reference configuration", the configuration
                                # named first (it is the reader's choice when there is one; the Chinese order)
    "about 108,000 tokens", "At 32,768 tokens", "about 30 percent", "= 327,680 bytes", "about 10.7 GB",
    "163,840 bytes per token", "at 2 per second", "running 15 turns of 4 s of model time and 20 s of tool time",
    "lives 360 s, about 6 minutes", "gives 720 live trajectories", "Only 17 percent", "120 of them",
    "about 7.7 TB, about 15 nodes", "about 2.4 nodes", "about 1.5, 3.5, and 13.5 service times",
    "leaves 526.0 GB", "admits 48 trajectories", "80 GB", "a 70-billion-parameter model",
    # the capacity convention, stated where the values are printed: "80 GB" is 80 GiB (85.9 GB)
    "80 GiB", "85.9 GB",
]


def test_the_seed_s_chinese_forms_that_the_book_replaces_are_gone(executed_appendix):
    zh = executed_appendix["zh"].markdown
    for old in ("十亿", "百分之", "离散 token 表示", "从上下文 token", "重计算", "文法"):
        assert old not in zh, old


def test_the_params_class_is_the_reference_s_in_both_languages(executed_appendix):
    en, zh = executed_appendix["en"].markdown, executed_appendix["zh"].markdown
    assert "a 70-billion-parameter model" in en and "700 亿参数模型" in zh


@pytest.mark.parametrize("phrase", EN_IN_CONTEXT)
def test_english_numbers_in_context(executed_appendix, phrase):
    assert phrase in executed_appendix["en"].markdown


# Parity with the English chapter (same values in the same order, same structure) is tested for every
# chapter pair in tests/book/test_parity.py.


def test_no_python_left_and_no_unresolved_placeholders(executed_appendix):
    for ec in executed_appendix.values():
        assert "{python}" not in ec.markdown and "```{python" not in ec.markdown
        assert "??" not in ec.markdown


def _row_numbers(markdown: str, label: str) -> list[float]:
    """The numbers in the value column of the serving-values table's row ``label`` (markup removed)."""
    row = next(line for line in markdown.splitlines() if line.startswith(f"| **{label}**"))
    cell = re.sub(r"\{[#.][^}]*\}", "", row.split("|")[3])
    return [float(n.replace(",", "")) for n in NUM.findall(cell)]


def test_substituting_the_table_into_the_pool_equation_gives_the_pool_row(executed_appendix):
    """Table A.6 lists what Equation A.10 subtracts: n_acc × M_HBM (in GB) − N × b_w − M_runtime is the
    pool row. By hand at the reference: 8 × 85.9 GB − 70.6e9 × 2 B − 20 GB = 687.2 − 141.2 − 20 = 526.0 GB
    (the seed's 526.0; the weights held at 16 bits, the reference node's pool as the serving chapters size it)."""
    md = executed_appendix["en"].markdown
    n_acc, = _row_numbers(md, "Accelerators per node")
    m_hbm = _row_numbers(md, "Accelerator memory")          # 80 (GiB), 85.9 (GB), 80 (the label)
    params = _row_numbers(md, "Parameters")[0] * 1e9        # "70.6 billion parameters"
    b_w = _row_numbers(md, "Weights held in memory")[0]     # bytes per parameter
    reserve, = _row_numbers(md, "Runtime reserve per node")
    pool = _row_numbers(md, "Attention-state pool per node")[0]
    assert (n_acc, m_hbm[1], b_w, reserve, pool) == (8, 85.9, 2, 20, 526.0)
    assert abs(n_acc * m_hbm[1] - params * b_w / 1e9 - reserve - pool) < 0.5   # table rounding (85.9 of 85.899)
