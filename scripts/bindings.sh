#!/usr/bin/env bash
# Regenerates frontend/wailsjs (the TypeScript bindings of main.App) from
# the Go code, the same output as `wails generate module`, without the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f frontend/dist/index.html ] || { mkdir -p frontend/dist; echo '<!doctype html>' > frontend/dist/index.html; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go build -tags bindings -o "$tmp/bindgen" .
"$tmp/bindgen" >/dev/null 2>&1
echo "frontend/wailsjs regenerated"
