#!/usr/bin/env bash
# Debian's headless Chromium for the explorer test (never a browser download by a test tool).
set -euo pipefail
if [ -x /usr/bin/chromium ] || [ -x /usr/bin/chromium-headless-shell ]; then
  echo "chromium present"; exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
echo "chromium installed: $(/usr/bin/chromium --version 2>/dev/null || echo unknown)"
