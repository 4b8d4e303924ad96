#!/usr/bin/env bash
# Builds the Ollama server that go.mod pins (github.com/ollama/ollama vX.Y.Z), CPU only,
# from the Go module cache, once, and caches the binary keyed by version:
#
#   ${LOUPE_OLLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loupe}/ollama-X.Y.Z/ollama
#
# Later runs find it there and return at once. Progress goes to stderr; the last
# (and only) line on stdout is the binary's path, so callers can do:
#
#   bin=$(scripts/real-ollama/build.sh | tail -n1)
#
# With --cached it never builds: it prints the cached binary's path, or fails saying
# that it is not built yet (for callers whose time limit has no room for a build).
#
# Why this is more than `go install`: Go module zips leave out every vendor/ folder,
# so three headers llama.cpp includes are missing. nlohmann/json and stb_image come
# from Debian packages (installed here if missing); miniaudio.h, used only for audio
# input of multimodal models, is our own stand-in in include/ next to this script.
set -euo pipefail

tool=real-ollama/build
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/cache.sh
source "$here/../lib/cache.sh"
cache_args "$@"

# --- which version -----------------------------------------------------------------
[[ -f "$root/go.mod" ]] || die "no go.mod at $root"
modver=$(awk '
	$1 == "require" && $2 == "github.com/ollama/ollama" { print $3; exit }
	$1 == "github.com/ollama/ollama" && $2 ~ /^v/ { print $2; exit }
' "$root/go.mod")
[[ -n "$modver" ]] || die "go.mod has no github.com/ollama/ollama line: cannot tell which Ollama to build"
ver=${modver#v}
cache_open Ollama "$ver" ollama LOUPE_OLLAMA_CACHE \
	"run $here/build.sh, which takes about 9 minutes on 2 cores the first time, or set LOUPE_OLLAMA_BIN to an ollama binary"

say "building the Ollama $ver server from the Go module (CPU only) into $dir"
say "the first build takes minutes (about 9 on 2 cores); later runs reuse the cached binary"

# --- compilers, headers and the Debian packages that provide them -----------------
command -v go >/dev/null || die "go is not on PATH"

install_debs() {
	command -v apt-get >/dev/null || die "missing $*, and no apt-get to install them: install them by hand"
	local sudo=()
	if ((EUID != 0)); then
		command -v sudo >/dev/null || die "missing $*: run as root, or: sudo apt-get install $*"
		sudo=(sudo -n)
	fi
	say "installing Debian packages: $*"
	"${sudo[@]}" apt-get update >&2 || die "apt-get update failed"
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2 ||
		die "apt-get install $* failed"
}

installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]; }

compilers=()
command -v gcc >/dev/null || compilers+=(gcc)
command -v g++ >/dev/null || compilers+=(g++)
((${#compilers[@]} == 0)) || install_debs "${compilers[@]}"

# -I for our miniaudio stand-in; for the other headers only when the compiler does
# not find them already (adding -I/usr/include would break libstdc++'s #include_next).
incs=("-I$here/include")
resolves() { printf '#include <%s>\n' "$1" | g++ -std=c++17 -E -x c++ - "${incs[@]}" -o /dev/null 2>/dev/null; }
headers=(nlohmann-json3-dev:nlohmann/json.hpp nlohmann-json3-dev:nlohmann/json_fwd.hpp libstb-dev:stb/stb_image.h)

missing=()
for spec in "${headers[@]}"; do
	pkg=${spec%%:*} header=${spec#*:}
	if ! resolves "$header" && ! installed "$pkg" && [[ " ${missing[*]} " != *" $pkg "* ]]; then
		missing+=("$pkg")
	fi
done
((${#missing[@]} == 0)) || install_debs "${missing[@]}"

for spec in "${headers[@]}"; do
	pkg=${spec%%:*} header=${spec#*:}
	resolves "$header" && continue
	file=$(dpkg -L "$pkg" 2>/dev/null | grep -m1 "/$header\$" || true)
	[[ -n "$file" ]] || die "cannot find $header: $pkg does not provide it"
	incs+=("-I${file%/"$header"}")
	resolves "$header" || die "$header is at $file but the compiler still cannot include it"
done
resolves miniaudio/miniaudio.h || die "our stand-in $here/include/miniaudio/miniaudio.h is missing"
# cgo splits CGO_CPPFLAGS on spaces: a folder with a space in its name cannot be passed.
[[ "$here" != *" "* ]] || die "cannot build from a folder whose path has a space: $here"
cppflags="${incs[*]}"
say "CGO_CPPFLAGS=$cppflags"

# --- build ------------------------------------------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # outside our module: go install pkg@version uses Ollama's own go.mod

start=$SECONDS
say "go install github.com/ollama/ollama@$modver"
if ! GOWORK=off GOFLAGS=-buildvcs=false CGO_ENABLED=1 GOBIN="$work/bin" \
	CGO_CPPFLAGS="$cppflags${CGO_CPPFLAGS:+ $CGO_CPPFLAGS}" \
	go install -ldflags "-X github.com/ollama/ollama/version.Version=$ver" \
	"github.com/ollama/ollama@$modver" >&2; then
	die "go install github.com/ollama/ollama@$modver failed (see the compiler output above)"
fi
say "built in $((SECONDS - start)) s"

got=$("$work/bin/ollama" --version 2>&1 || true)
[[ "$got" == *"$ver"* ]] || die "built binary does not report version $ver: $got"

cache_put "$work/bin/ollama"
