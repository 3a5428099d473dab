#!/usr/bin/env bash
# Builds the npm package into build/npm/attnlab (npm run build:lib): the engine-only wasm (CMake target
# attnlab_lib) and its relaxed-SIMD twin (attnlab_lib_relaxed: attnlab-engine-relaxed.wasm beside it), then
# scripts/build-lib.mjs assembles the package. --pack also writes
# build/npm/attnlab-VERSION.tgz, the tarball a user installs (npm run pack:lib).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cmake --preset wasm-release >/dev/null
cmake --build --preset wasm-release --target attnlab_lib attnlab_lib_relaxed attnlab_lm
node scripts/build-lib.mjs "$@"
