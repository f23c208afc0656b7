#!/usr/bin/env bash
# Install everything the book and its tests need, from nothing (Debian/Ubuntu, as root or with sudo),
# into a project-local virtual environment (.venv): nothing goes into the system Python, which
# Debian 12 / Ubuntu 24.04 manage (PEP 668). Idempotent and quick when everything is there.
# Set MLSYSIM_SKIP_APT=1 to skip the system packages; VENV=path to use another environment.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PY="${PYTHON:-python3}"

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

need_apt=()
ls /usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc >/dev/null 2>&1 \
  || need_apt+=(fonts-noto-cjk)          # the CJK font the Chinese PDF is set in
command -v chromium >/dev/null || need_apt+=(chromium)        # browser tests and screenshots
command -v pdftotext >/dev/null || need_apt+=(poppler-utils)  # PDF text checks
[ -f /usr/share/java/epubcheck.jar ] || need_apt+=(epubcheck default-jre-headless)  # EPUB validity (tests)
if [ ! -x "$VENV/bin/python" ] && ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  need_apt+=(python3-venv)               # Debian ships venv/ensurepip separately
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "${MLSYSIM_SKIP_APT:-0}" = 1 ]; then
    echo "setup: MLSYSIM_SKIP_APT=1, not installing: ${need_apt[*]}" >&2
  else
    echo "setup: apt-get install ${need_apt[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating the virtual environment $VENV"
  "$PY" -m venv "$VENV"
fi
# Reinstall only when the declared dependencies change (the stamp is pyproject.toml's hash).
stamp="$VENV/.mlsysim-installed"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || ! "$VENV/bin/python" -c 'import mlsysim, bookbuild' >/dev/null 2>&1; then
  echo "setup: pip install -e .[book,test] into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[book,test]"
  echo "$want" > "$stamp"
fi
# the Jupyter kernel Quarto runs the chapters in (their front matter names it): Python with the book's inline
# values marked as bookbuild marks them (bookbuild/quarto/kernel.py)
"$VENV/bin/python" -m bookbuild.quarto install-kernel >/dev/null

# The HTML book's live mode runs the chapters' cells in the reader's browser: Pyodide's core (npm) and
# pint's wheels (PyPI), pinned with their hashes in bookbuild/book/live/vendor.toml, into vendor/live/
# (gitignored). The build only copies them; it never downloads. MLSYSIM_SKIP_LIVE=1 skips this step
# (the book is then built without live mode, and its control says so).
if [ "${MLSYSIM_SKIP_LIVE:-0}" != 1 ]; then
  command -v npm >/dev/null || { echo "setup: npm is needed to vendor Pyodide for live mode (or set MLSYSIM_SKIP_LIVE=1)" >&2; exit 1; }
  "$VENV/bin/python" scripts/vendor_live.py
fi
