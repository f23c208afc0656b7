"""The code passes the linter the project configures (pyproject.toml ``[tool.ruff]``): a name undefined, an
import or a variable left unused, a redefinition, a syntax error is a failure here, naming file and line."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_project_passes_its_linter():
    r = ruff()
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_linter_reads_the_projects_configuration_and_finds_an_unused_import(tmp_path):
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "mod.py").write_text("import os\n\nx = y\n", encoding="utf-8")
    r = ruff(cwd=tmp_path)
    assert r.returncode == 1
    assert "mod.py:1:8: F401" in r.stdout and "mod.py:3:5: F821" in r.stdout, r.stdout
