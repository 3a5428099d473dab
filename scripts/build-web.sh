#!/usr/bin/env bash
# Builds the page (WebAssembly + shell + font) into build/wasm/site, with attnlab-relaxed.wasm, the
# relaxed-SIMD twin the page loads where the browser has relaxed SIMD (cmake/WasmRelaxed.cmake).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cmake --preset wasm-release >/dev/null
cmake --build --preset wasm-release --target attnlab_site
echo "build-web: page built in build/wasm/site"
