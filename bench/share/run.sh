#!/usr/bin/env bash
# The shared-replay benchmark of docs/BENCHMARKS.md: the viewer's own
# weight, the file `loupe export --format html` writes for a 100-event and a
# 10,000-event session, and the time to the first card in Chromium opening
# that file from disk. Prints a table. Run it on a quiet machine: the times
# are wall-clock.
#
#   bash bench/share/run.sh [--samples 5]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d frontend/node_modules ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
# Builds the window and the viewer (backend/viewer/dist), which the binary embeds.
(cd frontend && npm run build >/dev/null)
[ -d e2e/node_modules/playwright-core ] || (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
exec node bench/share/run.mjs "$@"
