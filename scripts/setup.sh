#!/usr/bin/env bash
# Install everything the book and its tests need, from nothing (Debian/Ubuntu, as root or with sudo).
# Idempotent: skips what is already there. Set MLSYSIM_SKIP_APT=1 to skip the system packages.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

need_apt=()
[ -d /usr/share/fonts/opentype/noto ] && ls /usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc >/dev/null 2>&1 \
  || need_apt+=(fonts-noto-cjk)          # the CJK font the Chinese PDF is set in
command -v chromium >/dev/null || need_apt+=(chromium)        # browser tests and screenshots
command -v pdftotext >/dev/null || need_apt+=(poppler-utils)  # PDF text checks
if [ "${MLSYSIM_SKIP_APT:-0}" != 1 ] && [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e ".[book,test]"
