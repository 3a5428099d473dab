#!/usr/bin/env bash
# Every test: native GoogleTest (ctest), the same suite built with Emscripten and run under node
# (the plain SIMD128 build and the relaxed-SIMD one), and the browser end-to-end tests in headless Chromium. Ends with one line "N passed, M failed".
# Each test stage also writes JUnit XML beside its log (build/test-logs/<stage>.xml); the counts
# come from those files (scripts/count-results.mjs), not from the console text.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
logs=build/test-logs
mkdir -p "$logs"
logs_abs=$(cd "$logs" && pwd)
passed=0
failed=0
broken=()

# Adds the tests in a JUnit file to the totals; a missing or broken file counts as one failure.
count_results() {
  local p f
  read -r p f < <(node scripts/count-results.mjs "$1")
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-1}))
}

stage() {  # stage NAME COMMAND...
  local name=$1
  shift
  echo "== $name"
  if ! "$@" 2>&1 | tee "$logs/$name.log"; then
    broken+=("$name")
  fi
}

ctest_run() {  # ctest_run TEST_PRESET: the preset's tests, counted
  local preset=$1
  rm -f "$logs/$preset-ctest.xml"  # never count an earlier run's results
  # As many tests at once as there are cores: no test asserts a duration, so sharing a core is safe.
  # Where torch is installed this includes label torch-124m (GPT-2 small's 124 M parameters against
  # PyTorch: ~600 MB written and deleted, 15–90 s); elsewhere it is skipped.
  stage "$preset-ctest" ctest --preset "$preset" --parallel "$(nproc)" --output-junit "$logs_abs/$preset-ctest.xml"
  count_results "$logs/$preset-ctest.xml"
}

ctest_stage() {  # ctest_stage PRESET: configure, build, test
  local preset=$1
  stage "$preset-configure" cmake --preset "$preset" || true
  stage "$preset-build" cmake --build --preset "$preset"
  ctest_run "$preset"
}

ctest_stage native-release
ctest_stage wasm-release
# The same suite on the relaxed-SIMD twins the wasm-release build links beside each test executable
# (f32x4.relaxed_madd, what Chromium loads), under node's flag.
ctest_run wasm-relaxed

# TAP on the console (and in the log), JUnit XML for the counts.
node_test_stage() {  # node_test_stage NAME DIR
  rm -f "$logs/$1.xml"
  stage "$1" node --test --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter=junit --test-reporter-destination="$logs/$1.xml" "$2"
  count_results "$logs/$1.xml"
}

node_test_stage e2e tests/e2e/
# The benchmark's own logic (FLOPs, best variants, ratios, targets) and one quick real peer run.
node_test_stage bench-harness bench/
# The committed GPT-2 BPE asset and golden ids against the installed js-tiktoken.
node_test_stage gpt2-bpe scripts/gpt2-bpe.test.mjs

if [ ${#broken[@]} -gt 0 ]; then
  echo "test: stages that failed: ${broken[*]} (logs in $logs/)"
  [ "$failed" -gt 0 ] || failed=1
fi
echo "attnlab: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
