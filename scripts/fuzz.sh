#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*_fuzz.cpp, in the `native-debug` CMake preset: clang, ASan +
# UBSan, every object instrumented for coverage; the same build runs the sanitized tests)
# and runs each for a bounded time from its seed corpus (tests/fuzz/corpus/NAME/); the node targets
# (tests/fuzz/*_fuzz.mjs: the npm package's JS boundary, built by the wasm-release preset) likewise.
#   npm run fuzz                      every target for 60 s (what CI runs)
#   npm run fuzz -- --minutes 60      every target for an hour
#   npm run fuzz -- --seconds 30 --only state,case --jobs 1
# Runs --jobs targets at a time (default: the number of cores). The working corpus grows in
# build/fuzz/corpus/NAME/ (the repository's seeds are never written); a crash, leak, timeout or
# over-limit allocation is saved under build/fuzz/findings/NAME/ and fails the run (exit 1). Ends
# with one line per target: runs, coverage (edges) and features, and "fuzz: N passed, M failed".
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=60
only=""
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --minutes) seconds=$(($2 * 60)); shift 2 ;;
    --only) only=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "fuzz: unknown argument '$1' (--seconds N | --minutes N | --only a,b | --jobs J)" >&2; exit 2 ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "fuzz: expected a positive whole number of seconds, got '$seconds'" >&2; exit 2; }
[[ "$jobs" =~ ^[0-9]+$ && "$jobs" -gt 0 ]] || { echo "fuzz: expected a positive number of jobs, got '$jobs'" >&2; exit 2; }

targets=()
native=()
node_targets=()
for source in tests/fuzz/*_fuzz.cpp tests/fuzz/*_fuzz.mjs; do
  name=$(basename "$source"); name=${name%_fuzz.*}
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  targets+=("$name")
  if [[ "$source" == *.mjs ]]; then node_targets+=("$name"); else native+=("$name"); fi
done
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no target matches '$only'" >&2; exit 2; }

echo "== fuzz: build (${targets[*]})"
if [ ${#native[@]} -gt 0 ]; then
  cmake --preset native-debug >/dev/null || exit 1
  cmake --build --preset native-debug --target $(printf '%s_fuzz ' "${native[@]}") || exit 1
fi
if [ ${#node_targets[@]} -gt 0 ]; then  # the npm package's engine, both wasm files (scripts/build-lib.mjs packs them)
  cmake --preset wasm-release >/dev/null || exit 1
  cmake --build --preset wasm-release --target attnlab_lib attnlab_lib_relaxed attnlab_lm || exit 1  # attnlab_lm: the package carries the language model
fi

out=build/fuzz/run
mkdir -p "$out"
# Memory: one input may not allocate more than 1 GiB at once nor the process grow past 2.5 GB; an
# input that takes over 30 s is a finding too (the limits the engine promises, with ASan's overhead).
run_target() {  # run_target NAME
  local name=$1 corpus=build/fuzz/corpus/$1 findings=build/fuzz/findings/$1
  if [ -f "tests/fuzz/${name}_fuzz.mjs" ]; then  # a node target: prints its seed, exits 1 on a finding
    node "tests/fuzz/${name}_fuzz.mjs" --seconds "$seconds" >"$out/$name.log" 2>&1
    echo $? >"$out/$name.rc"
    return
  fi
  mkdir -p "$corpus" "$findings"
  [ -d "tests/fuzz/corpus/$name" ] && cp -n tests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "build/native-debug/tests/fuzz/${name}_fuzz" -max_total_time="$seconds" -rss_limit_mb=2560 -malloc_limit_mb=1024 \
    -timeout=30 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" >"$out/$name.log" 2>&1
  echo $? >"$out/$name.rc"
}

echo "== fuzz: ${#targets[@]} targets, $seconds s each, $jobs at a time"
running=0
for name in "${targets[@]}"; do
  run_target "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

passed=0
failed=0
for name in "${targets[@]}"; do
  log=$out/$name.log
  rc=$(cat "$out/$name.rc" 2>/dev/null || echo 1)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  [ -n "$runs" ] || runs=$(grep -oE '^[a-z_]+_fuzz: [0-9]+ runs' "$log" | grep -oE '[0-9]+' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1))
    echo "fuzz: $name ok: ${runs:-?} runs, ${cov:-no coverage line} (log: $log)"
  else
    failed=$((failed + 1))
    echo "fuzz: $name FAILED (exit $rc): ${runs:-?} runs; findings in build/fuzz/findings/$name/; the end of $log:"
    tail -n 40 "$log" | sed 's/^/  /'
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
