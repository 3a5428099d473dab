#!/usr/bin/env bash
# Every test: native GoogleTest (ctest), the same suite built with Emscripten and run under node,
# and the browser end-to-end tests in headless Chromium. Ends with one line "N passed, M failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
logs=build/test-logs
mkdir -p "$logs"
passed=0
failed=0
broken=()

# ctest prints "100% tests passed, 0 tests failed out of 15".
count_ctest() {
  local line total bad
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -n1)
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  bad=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
  passed=$((passed + ${total:-0} - ${bad:-0}))
  failed=$((failed + ${bad:-0}))
}

stage() {  # stage NAME COMMAND...
  local name=$1
  shift
  echo "== $name"
  if ! "$@" 2>&1 | tee "$logs/$name.log"; then
    broken+=("$name")
  fi
}

ctest_stage() {  # ctest_stage PRESET
  local preset=$1
  stage "$preset-configure" cmake --preset "$preset" || true
  stage "$preset-build" cmake --build --preset "$preset"
  stage "$preset-ctest" ctest --preset "$preset"
  count_ctest "$logs/$preset-ctest.log"
}

ctest_stage native-release
ctest_stage wasm-release

# node --test prints "# pass N" and "# fail M" in TAP.
node_test_stage() {  # node_test_stage NAME DIR
  stage "$1" node --test --test-reporter=tap "$2"
  local pass fail
  pass=$(grep -E '^# pass [0-9]+' "$logs/$1.log" | awk '{print $3}' | tail -n1)
  fail=$(grep -E '^# fail [0-9]+' "$logs/$1.log" | awk '{print $3}' | tail -n1)
  passed=$((passed + ${pass:-0}))
  failed=$((failed + ${fail:-0}))
}

node_test_stage e2e tests/e2e/
# The benchmark's own logic (FLOPs, best variants, ratios, targets) and one quick real peer run.
node_test_stage bench-harness bench/

if [ ${#broken[@]} -gt 0 ]; then
  echo "test: stages that failed: ${broken[*]} (logs in $logs/)"
  [ "$failed" -gt 0 ] || failed=1
fi
echo "attnlab: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
