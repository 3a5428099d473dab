#!/usr/bin/env bash
# Installs what attnlab needs, and nothing when it is all there (safe to re-run):
#   1. Debian/Ubuntu packages listed in scripts/deps-debian.txt, or in the deps files given as
#      arguments (npm run bench: scripts/setup.sh scripts/deps-debian.txt scripts/deps-bench-debian.txt)
#   2. Dear ImGui 1.90.1 sources from Debian's source package into .cache/ (or IMGUI_DIR=/path)
#   3. npm packages (npm ci)
# Where it cannot install (not root, no apt), it prints exactly what is missing and exits 1.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache="$root/.cache"
imgui_version=1.90.1
imgui_deb_version=1.90.1+ds-1
say() { printf 'setup: %s\n' "$*"; }

#-- 1. Debian packages ---------------------------------------------------------------------------
deps_files=("$@")
[ ${#deps_files[@]} -gt 0 ] || deps_files=("$root/scripts/deps-debian.txt")
mapfile -t wanted < <(cat "${deps_files[@]}" | grep -v '^\s*#' | awk 'NF {print $1}')
missing=()
if command -v dpkg-query >/dev/null; then
  for pkg in "${wanted[@]}"; do
    # node and npm may come from elsewhere (NodeSource ships npm inside nodejs).
    [ "$pkg" = npm ] && command -v npm >/dev/null && continue
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$pkg")
  done
else
  # Not a Debian system: check the commands the build uses instead.
  for tool in g++ cmake ninja emcc node npm glslangValidator pyftsubset; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  [ -d /usr/include/eigen3 ] || missing+=("eigen3 headers (/usr/include/eigen3)")
  [ -d /usr/src/googletest ] || missing+=("googletest sources (/usr/src/googletest)")
  if [ ${#missing[@]} -gt 0 ]; then
    say "this is not a Debian/Ubuntu system; install these yourself: ${missing[*]}"
    exit 1
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    say "installing ${missing[*]} (sudo)"
    sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "missing Debian packages: ${missing[*]}"
    say "install them with: sudo apt-get install --no-install-recommends ${missing[*]}"
    exit 1
  fi
fi

#-- 2. Dear ImGui ----------------------------------------------------------------------------------
imgui_ok() { [ -f "$1/imgui.h" ] && grep -q "IMGUI_VERSION *\"$imgui_version\"" "$1/imgui.h"; }
if [ -n "${IMGUI_DIR:-}" ]; then
  imgui_ok "$IMGUI_DIR" || { say "IMGUI_DIR=$IMGUI_DIR does not hold Dear ImGui $imgui_version (imgui.h)"; exit 1; }
elif ! imgui_ok "$cache/imgui-$imgui_version"; then
  # Debian's source package, fetched with a private source list: the system's apt config is untouched.
  apt_dir="$cache/apt"
  mkdir -p "$apt_dir/etc" "$apt_dir/lists/partial"
  . /etc/os-release
  case "${ID:-}" in
    debian) suite=trixie; components=main; keyring=/usr/share/keyrings/debian-archive-keyring.gpg ;;
    ubuntu) suite=noble; components=universe; keyring=/usr/share/keyrings/ubuntu-archive-keyring.gpg ;;
    *) say "cannot fetch Dear ImGui on ${ID:-this system}: set IMGUI_DIR=/path/to/imgui-$imgui_version"; exit 1 ;;
  esac
  # The machine's own mirror, so no host is written into this repository.
  mirror=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$mirror" ] || mirror=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$mirror" ] || { say "no apt mirror found in /etc/apt; set IMGUI_DIR=/path/to/imgui-$imgui_version"; exit 1; }
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\nSigned-By: %s\n' \
    "$mirror" "$suite" "$components" "$keyring" > "$apt_dir/etc/imgui-src.sources"
  opts=(-o "Dir::Etc::SourceParts=$apt_dir/etc" -o Dir::Etc::SourceList=/dev/null
        -o "Dir::State::Lists=$apt_dir/lists" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  say "fetching Dear ImGui $imgui_version sources ($suite source package)"
  apt-get "${opts[@]}" -qq update
  (cd "$cache" && apt-get "${opts[@]}" -qq source --download-only "imgui=$imgui_deb_version" >/dev/null)
  rm -rf "$cache/imgui-$imgui_version"
  tar -xf "$cache/imgui_${imgui_version}+ds.orig.tar.xz" -C "$cache"
  imgui_ok "$cache/imgui-$imgui_version" || { say "unpacked sources lack imgui.h $imgui_version"; exit 1; }
fi

#-- 3. npm packages --------------------------------------------------------------------------------
if [ ! -f "$root/node_modules/.package-lock.json" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ]; then
  say "npm ci"
  # onnxruntime-node (a bench peer) would download CUDA providers from outside the npm registry; the
  # CPU build it ships is all the bench uses.
  (cd "$root" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error)
fi
