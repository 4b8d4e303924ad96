#!/usr/bin/env bash
# Installs what building, running and testing Loupe needs on Debian 12:
# the GTK/WebKit headers Wails builds against, a display server and a
# browser for the end-to-end tests, and the frontend's npm packages.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential pkg-config
  libgtk-3-dev libwebkit2gtk-4.0-dev          # the window (Wails v2 on Linux)
  xvfb xauth x11-utils xdotool imagemagick    # a display for tests, screenshots
  tesseract-ocr                               # reads the real window's text in its smoke test
  chromium                                    # the browser engine of the end-to-end test
  nlohmann-json3-dev libstb-dev               # headers the real Ollama server build needs
  git tmux openssh-client socat netcat-openbsd python3 # what the sandbox attack suite (testkit/attacks) attacks with
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "==> installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v go >/dev/null || { echo "Go 1.26 or newer is needed: https://go.dev/dl/" >&2; exit 1; }
command -v npm >/dev/null || { echo "Node.js 20 and npm are needed" >&2; exit 1; }

echo "==> installing frontend packages (npm ci)"
(cd frontend && npm ci --no-audit --no-fund --loglevel=error)
echo "==> installing the MCP servers the tests run (testkit/mcpservers, npm ci)"
(cd testkit/mcpservers && npm ci --no-audit --no-fund --loglevel=error)
echo "==> downloading Go modules"
go mod download
