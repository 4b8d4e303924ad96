#!/usr/bin/env bash
# Regenerates what the window knows of the Go side: Wails' runtime module
# (frontend/wailsjs/runtime, the same output as `wails generate module`,
# without the CLI) and the bound methods of main.App with every type they
# take and return (frontend/src/lib/types/go.ts, BoundApp). Wails' own
# declarations of the bound methods (frontend/wailsjs/go) are removed: the
# window reads go.ts only, so there is one copy of each type.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f frontend/dist/index.html ] || { mkdir -p frontend/dist; echo '<!doctype html>' > frontend/dist/index.html; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
go build -tags bindings -o "$tmp/bindgen" .
"$tmp/bindgen" >/dev/null 2>&1
rm -rf frontend/wailsjs/go
go test -count=1 . -run TestWindowTypes -update >/dev/null
echo "frontend/wailsjs/runtime and frontend/src/lib/types/go.ts regenerated"
