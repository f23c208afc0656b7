#!/usr/bin/env bash
# Build the book: HTML and PDF, English and Chinese, into _book/ (no Quarto needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m bookbuild render --profile all "$@"
