#!/usr/bin/env bash
# npm run bench [-- options for bench/run.mjs]: one command builds what it needs and prints a table.
#   1. scripts/setup.sh with the bench's Debian packages too (scripts/deps-bench-debian.txt)
#   2. attnlab's bench binaries: target attnlab_bench in presets native-release and wasm-release, and
#      in wasm-release its relaxed-SIMD twin (attnlab-wasm's second variant), attnlab_bench_gpt2 and its
#      twin (the GPT-2-small workload's wasm runners, a 4 GB heap)
#   3. the ONNX models of the onnxruntime peers (bench/.cache/*.onnx), when missing or out of date, and
#      the GPT-2-small workload's model (bench/.cache/gpt2-small: safetensors + ONNX, ~1.1 GB, seeded)
#   4. node bench/run.mjs "$@"  (e.g. --quick, --only pytorch,attnlab-native, --only gpt2, --markdown bench/RESULTS.md)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { printf 'bench: %s\n' "$*" >&2; }

bash scripts/setup.sh scripts/deps-debian.txt scripts/deps-bench-debian.txt

mkdir -p build/bench-logs
for preset in native-release wasm-release; do
  log=build/bench-logs/$preset.log
  say "building attnlab_bench ($preset)"
  targets=(attnlab_bench)
  [ "$preset" = wasm-release ] && targets+=(attnlab_bench_relaxed attnlab_bench_gpt2 attnlab_bench_gpt2_relaxed)
  if ! { cmake --preset "$preset" && cmake --build --preset "$preset" --target "${targets[@]}"; } >"$log" 2>&1; then
    say "building attnlab_bench ($preset) failed; the last lines of $log:"
    tail -n 15 "$log" >&2
    exit 1
  fi
done

python=${ATTNLAB_BENCH_PYTHON:-/usr/bin/python3}  # Debian's python3, the one with python3-torch
models=(bench/.cache/mha_explicit.onnx bench/.cache/mha_fused.onnx)
stale=0
for m in "${models[@]}"; do
  [ -f "$m" ] && [ "$m" -nt bench/peers/export_onnx.py ] || stale=1
done
if [ "$stale" = 1 ]; then
  say "exporting the ONNX models"
  "$python" bench/peers/export_onnx.py bench/.cache ||
    say "the ONNX export failed (needs python3-torch for $python): the onnxruntime rows will show the error"
fi

gpt2=bench/.cache/gpt2-small
if ! { [ -f $gpt2/gpt2.onnx ] && [ $gpt2/gpt2.onnx -nt bench/peers/gpt2.py ]; }; then
  say "writing the GPT-2-small model (random weights, 124 M parameters) to $gpt2"
  "$python" bench/peers/gpt2.py export $gpt2 ||
    say "writing the GPT-2-small model failed (needs python3-torch for $python): its rows will show the error"
fi

exec node bench/run.mjs "$@"
