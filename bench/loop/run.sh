#!/usr/bin/env bash
# The loop benchmark of docs/BENCHMARKS.md, in one command:
#
#   bench/loop/run.sh [-lengths 10,100,1000] [-reps 5,5,3] [-dir DIR]
#
# Builds loupe (from the tree as it is), fakeollama and the benchmark, installs
# the peer's npm packages if they are missing, then runs `loupe run` and the
# ollama-js peer (peer.mjs) in turns against the same instant fake Ollama on
# loopback, and prints the tables. Flags go to the benchmark (main.go).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -f frontend/dist/index.html ]; then # main.go embeds the built frontend
  [ -d frontend/node_modules ] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  (cd frontend && npm run build >/dev/null)
fi
[ -d bench/loop/node_modules/ollama ] || (cd bench/loop && npm ci --no-audit --no-fund --loglevel=error)

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
echo "==> building loupe, fakeollama and the benchmark" >&2
go build -o "$bin/loupe" .
go build -o "$bin/fakeollama" ./backend/ollama/ollamatest/cmd/fakeollama
go build -o "$bin/bench" ./bench/loop
if rev=$(git rev-parse --short HEAD 2>/dev/null); then
  git diff --quiet HEAD -- . || rev="$rev + changes"
else
  rev="not a git checkout"
fi
echo "==> $(nproc) cores, node $(node --version), $(go env GOVERSION), $rev" >&2
"$bin/bench" -loupe "$bin/loupe" -fake "$bin/fakeollama" -peer bench/loop/peer.mjs "$@"
