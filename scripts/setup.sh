#!/usr/bin/env bash
# The one command that sets Loupe up on a fresh Debian 12 machine and starts it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/build.sh
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "Built build/bin/loupe. There is no display here: run it on a desktop session,"
  echo "or use it headless: build/bin/loupe run --model NAME --workspace DIR \"prompt\""
  exit 0
fi
echo "==> starting Loupe"
exec ./build/bin/loupe "$@"
