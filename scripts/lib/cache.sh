# shellcheck shell=bash
# Sourced by scripts/real-*/build.sh: a binary built once and cached, keyed
# by version, in
#
#   ${CACHE_VAR:-${XDG_CACHE_HOME:-$HOME/.cache}/loupe}/NAME-VERSION/NAME
#
# The script sets `tool` (its name in messages) before sourcing this, then:
#
#   cache_args "$@"                        # --cached: never build
#   cache_open Jaeger 1.76.0 jaeger LOUPE_JAEGER_CACHE "how to build it"
#   ... build into some $built ...
#   cache_put "$built"
#
# cache_open prints the cached binary's path and exits when there is one;
# with --cached and none, it fails with the hint. Otherwise it takes the
# build's lock (a second build of the same version waits for the first and
# then uses its binary) and returns, with $dir and $bin set. cache_put
# moves the built binary into place atomically, so that a reader never sees
# half a file, and prints its path: the last (and only) line on stdout.
# Progress goes to stderr.

say() { printf '%s: %s\n' "$tool" "$*" >&2; }
die() {
	printf '%s: FAILED: %s\n' "$tool" "$*" >&2
	exit 1
}

cached_only=false
cache_args() {
	case "${1:-}" in
	"") ;;
	--cached) cached_only=true ;;
	*) die "unknown argument $1 (usage: build.sh [--cached])" ;;
	esac
}

# cache_open LABEL VERSION FILE CACHE_VAR HINT
cache_open() {
	local label=$1 ver=$2 file=$3 cache_var=$4 hint=$5
	local cache_root=${!cache_var:-${XDG_CACHE_HOME:-$HOME/.cache}/loupe}
	dir="$cache_root/$file-$ver"
	bin="$dir/$file"
	if [[ -x "$bin" ]]; then
		say "using cached $label $ver"
		printf '%s\n' "$bin"
		exit 0
	fi
	$cached_only && die "$label $ver is not built yet (no $bin): $hint"

	mkdir -p "$dir" || die "cannot create cache folder $dir"
	# One build at a time: several tests may ask for the binary at once.
	exec 9>"$dir/.lock"
	if ! flock -n 9; then
		say "another build of $label $ver is running; waiting for it"
		flock 9
	fi
	if [[ -x "$bin" ]]; then
		say "using $label $ver built meanwhile"
		printf '%s\n' "$bin"
		exit 0
	fi
}

# cache_put BUILT: moves the built binary into the cache and prints its path.
cache_put() {
	mv "$1" "$bin.tmp" && mv "$bin.tmp" "$bin" || die "cannot move the binary into $dir"
	say "cached $bin ($(du -h "$bin" | cut -f1))"
	printf '%s\n' "$bin"
}
