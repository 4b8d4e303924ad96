#!/usr/bin/env bash
# Runs the real Jaeger tier: finds the Jaeger that build.sh cached (it never
# builds here: the first build takes tens of minutes, run build.sh for it),
# then runs
#   LOUPE_REAL_JAEGER=1 go test -count=1 ARGS        (ARGS default: ./testkit/realjaeger/)
# e.g. scripts/real-jaeger/test.sh -v ./testkit/realjaeger/
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

bin=$("$here/build.sh" --cached | tail -n1)
[[ -x "$bin" ]] || { echo "real-jaeger/test: build.sh gave no binary" >&2; exit 1; }

cd "$root"
(($#)) || set -- ./testkit/realjaeger/
LOUPE_REAL_JAEGER=1 LOUPE_JAEGER_BIN="$bin" exec go test -count=1 "$@"
