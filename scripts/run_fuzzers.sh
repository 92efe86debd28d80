#!/usr/bin/env bash
# Runs every libFuzzer harness of a fuzz build for a bounded time.
#
#   scripts/run_fuzzers.sh BUILD_DIR [SECONDS]     (default: $STRATA_FUZZ_SECONDS or 60)
#
# BUILD_DIR is a `scripts/configure_backend.sh fuzz` tree. Each harness starts
# from its committed seeds (unit_test/fuzz/corpus/<harness>) and regressions,
# grows a working corpus in BUILD_DIR/fuzz-corpus/<harness> (never the
# committed one), and writes any crashing input to BUILD_DIR/fuzz-artifacts/.
# A crash, a sanitizer report, a violated invariant, an input running longer
# than 30 s (a hang) or an out-of-memory fails the run: copy the artifact into
# unit_test/fuzz/regressions/<harness>/ so ctest replays it from then on.
# Prints one line per harness: `fuzz <harness>: ok, N execs in S s (R execs/s)`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$1
seconds=${2:-${STRATA_FUZZ_SECONDS:-60}}
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export KOKKOS_DISABLE_WARNINGS=1
status=0
for harness in edge_list matrix_market plan_barriers; do
  bin="$build/bin/strata_fuzz_$harness"
  [ -x "$bin" ] || { echo "fuzz $harness: FAILED, $bin not built"; status=1; continue; }
  corpus="$build/fuzz-corpus/$harness" artifacts="$build/fuzz-artifacts/$harness/"
  mkdir -p "$corpus" "$artifacts"
  log="$build/fuzz-$harness.log"
  "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$corpus" "$root/unit_test/fuzz/corpus/$harness" \
    "$root/unit_test/fuzz/regressions/$harness" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    echo "fuzz $harness: ok, ${execs:-?} execs in $seconds s (${rate:-?} execs/s), corpus $(ls "$corpus" | wc -l) inputs"
  else
    status=1
    grep -E "ERROR|invariant violated|SUMMARY|Test unit written" "$log" | head -10
    echo "fuzz $harness: FAILED (exit $rc) after ${execs:-?} execs; log $log, input in $artifacts"
  fi
done
exit $status
