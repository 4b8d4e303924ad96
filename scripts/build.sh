#!/usr/bin/env bash
# Builds the frontend and the production binary build/bin/loupe.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "==> building the frontend"
(cd frontend && npm run build --silent)
echo "==> building build/bin/loupe"
mkdir -p build/bin
CGO_ENABLED=1 go build -tags desktop,production -ldflags "-w -s" -o build/bin/loupe .
