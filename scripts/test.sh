#!/usr/bin/env bash
# Run every test (mlsysim, chapters in both languages, golden numbers, renders, browser), spread over
# every core (pytest-xdist, as pyproject.toml's addopts say; each test keeps its own folders, ports and
# processes). `-n 0` runs them in turn.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest -q "$@"
