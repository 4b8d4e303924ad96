#!/usr/bin/env bash
# The idle-CPU benchmark of docs/BENCHMARKS.md: the production window under
# Xvfb, left alone on the home page, on the demo paused at its first
# checkpoint and on the demo's ended session; prints the CPU time its
# processes used. CPU time, not load: other work on the machine does not
# count, but it can slow the window's own work down.
#
#   bash bench/idle/run.sh [--seconds 30]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d frontend/node_modules ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
(cd frontend && npm run build >/dev/null)
[ -d e2e/node_modules/playwright-core ] || (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
exec node bench/idle/run.mjs "$@"
