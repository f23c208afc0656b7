#!/usr/bin/env bash
# Run every test (mlsysim, chapters in both languages, golden numbers, renders, browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest -q "$@"
