"""Every ``python -m mlsysim`` command the book and its README print runs as printed: exit 0, nothing on
stderr. The commands are read from the files (the preface in both languages, the README), never listed here."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import mlsysim_main

ROOT = Path(__file__).resolve().parents[2]
#: a command as a reader would copy it: in a code block or in backticks, with or without the venv's path
COMMAND = re.compile(r"(?:^|`)(?:\.venv/bin/)?python -m mlsysim ([^`#\n]*)", re.M)


def printed_commands() -> list[tuple[str, str]]:
    files = [ROOT / "README.md", *sorted(ROOT.glob("index*.qmd"))]
    return [(f.name, m.group(1).strip()) for f in files for m in COMMAND.finditer(f.read_text(encoding="utf-8"))]


def test_the_book_prints_commands():
    names = {f for f, _ in printed_commands()}
    assert {"README.md", "index.qmd", "index.zh.qmd"} <= names


@pytest.mark.parametrize("where, command", printed_commands())
def test_a_printed_command_runs_as_printed(where, command):
    r = mlsysim_main(*shlex.split(command))
    assert r.returncode == 0 and not r.stderr, f"{where}: python -m mlsysim {command}\n{r.stderr}"
