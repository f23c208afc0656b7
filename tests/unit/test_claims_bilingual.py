"""Every reader's claim (``check``) in the chapters' cells carries its Chinese message (``zh=``): a Chinese
reader whose choice breaks a claim reads it in Chinese, never the English sentence (four calibration claims
had none). An author's ``pin`` and a seed's ``pin_seed`` are never shown, so they need none."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHUNK = re.compile(r"^```\{python\}[^\n]*\n(.*?)^```", re.S | re.M)


def claims(text: str):
    """(line, has zh=) of every ``check(...)`` call in a cell file's Python chunks."""
    for m in CHUNK.finditer(text):
        first = text.count("\n", 0, m.start(1)) + 1
        code = "\n".join("" if ln.startswith("#|") else ln for ln in m.group(1).splitlines())
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check":
                yield first + node.lineno - 1, any(k.arg == "zh" for k in node.keywords)


def test_the_walk_finds_a_claim_without_its_chinese():
    text = '```{python}\n#| label: calc-x\nclass X:\n    check(1 > 0, "one", zh="一")\n    check(2 > 1, "two")\n```\n'
    assert list(claims(text)) == [(4, True), (5, False)]


def test_every_readers_claim_has_its_chinese_message():
    cells = sorted(ROOT.glob("appendix/_cells/*.qmd")) + sorted(ROOT.glob("lectures/_cells/*.qmd"))
    assert cells
    missing = [f"{p.relative_to(ROOT)}:{line}" for p in cells for line, zh in claims(p.read_text(encoding="utf-8"))
               if not zh]
    assert not missing, "claims without zh=: " + ", ".join(missing)
