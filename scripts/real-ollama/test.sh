#!/usr/bin/env bash
# Runs Go tests with the real Ollama tier on: builds (or finds) the pinned Ollama
# server first, so that its progress shows before the tests start, then runs
#   LOUPE_REAL_OLLAMA=1 go test -count=1 ARGS        (ARGS default: ./...)
# e.g. scripts/real-ollama/test.sh -v ./testkit/realollama/
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

bin=$("$here/build.sh" | tail -n1)
[[ -x "$bin" ]] || { echo "real-ollama/test: build.sh gave no binary" >&2; exit 1; }

cd "$root"
(($#)) || set -- ./...
LOUPE_REAL_OLLAMA=1 LOUPE_OLLAMA_BIN="$bin" exec go test -count=1 "$@"
