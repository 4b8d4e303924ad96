#!/usr/bin/env bash
# Builds Jaeger v2 (github.com/jaegertracing/jaeger/cmd/jaeger, which runs with its memory
# store when given no storage), the real
# trace consumer the OTLP export is tested against, from the Go module proxy, once, and
# caches the binary keyed by version:
#
#   ${LOUPE_JAEGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loupe}/jaeger-X.Y.Z/jaeger
#
# Later runs find it there and return at once. Progress goes to stderr; the last (and
# only) line on stdout is the binary's path:
#
#   bin=$(scripts/real-jaeger/build.sh | tail -n1)
#
# With --cached it never builds: it prints the cached path or fails saying it is not
# built yet. The version is pinned here, not in go.mod: Loupe does not import Jaeger.
set -euo pipefail

version=v1.76.0

tool=real-jaeger/build
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/cache.sh
source "$here/../lib/cache.sh"
cache_args "$@"
ver=${version#v}
cache_open Jaeger "$ver" jaeger LOUPE_JAEGER_CACHE \
	"run $0, which takes about half an hour the first time (4 minutes of downloads, then 2,326 packages to compile), or set LOUPE_JAEGER_BIN to a jaeger binary"

command -v go >/dev/null || die "go is not on PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

say "building Jaeger $ver from the Go module proxy into $dir"
say "the first build takes about half an hour (4 minutes of downloads, then 2,326 packages to compile, a third of them the Elasticsearch client); later runs reuse the cached binary"
start=$SECONDS
# `go install pkg@version` refuses Jaeger: its go.mod has a replace directive. So build
# it from a throwaway module of our own that requires Jaeger (its requirements then
# select the same versions as its own build) and repeats that one replace.
export GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=0
go mod init loupe.local/jaeger-build >&2 2>&1 || die "go mod init failed"
go mod edit -replace github.com/Shopify/sarama=github.com/Shopify/sarama@v1.33.0 || die "go mod edit failed"
if ! go get "github.com/jaegertracing/jaeger/cmd/jaeger@$version" >&2; then
	die "go get github.com/jaegertracing/jaeger/cmd/jaeger@$version failed (see the output above)"
fi
# -trimpath and no debug info keep the binary smaller.
if ! go build -trimpath -ldflags "-s -w" -o "$work/bin/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger >&2; then
	die "go build github.com/jaegertracing/jaeger/cmd/jaeger@$version failed (see the output above)"
fi
say "built in $((SECONDS - start)) s"
cache_put "$work/bin/jaeger"
