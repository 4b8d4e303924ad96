#!/usr/bin/env bash
# The timeline benchmark of docs/BENCHMARKS.md: opens a 100-event and a
# 10,000-event session in Chromium against the dev build and prints a
# table. Run it on a quiet machine: the figures are wall-clock.
#
#   bash bench/timeline/run.sh [--samples 3]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d frontend/node_modules ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
(cd frontend && npm run build >/dev/null)
[ -d e2e/node_modules/playwright-core ] || (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
exec node bench/timeline/run.mjs "$@"
