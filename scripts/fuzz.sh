#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (coverage + ASan + UBSan on every
# library they link) into build-fuzz/ and runs each for a fixed time on its
# seed corpus: tests/fuzz/corpus/<target>/ plus captured fixtures. Fails on
# any crash, leak, timeout or out-of-memory; the input that did it is left
# in build-fuzz/findings/ (check it in under tests/fuzz/corpus/ with the fix:
# it is then replayed on every run).
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 10: a smoke run in CI
#                                          beside the corpus replay; longer by hand)
# Called by scripts/test.sh after the suite.
set -euo pipefail
export NODEPROBE_SETUP_NO_BUILD=1
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
SECONDS_EACH="${1:-${NODEPROBE_FUZZ_SECONDS:-10}}"
dir="${NODEPROBE_FUZZ_DIR:-$ROOT/build-fuzz}"
start=$(date +%s)
CC=clang CXX=clang++ NP_BUILD_TARGET=fuzzers np_build "$dir" -DNODEPROBE_FUZZ=ON
echo "fuzz.sh: built the fuzzers in $(( $(date +%s) - start )) s" >&2
[ -n "${NODEPROBE_BUILD_ONLY:-}" ] && exit 0  # test.sh builds ahead, runs later
mkdir -p "$dir/findings"
# One target: its seed corpus, then SECONDS_EACH of fuzzing; its exit
# status is the verdict (a crash, leak, timeout or OOM fails).
fuzz_one() {  # TARGET
  local target=$1 work="$dir/corpus/$1"
  mkdir -p "$work"
  cp -f "$ROOT/tests/fuzz/corpus/$target/"* "$work/" 2>/dev/null || true
  if [ "$target" = fuzz_nccl_log ]; then
    cp -f "$ROOT/tests/fixtures/nccl/"* "$work/"
  fi
  if [ "$target" = fuzz_kernel_log ]; then
    cp -f "$ROOT/tests/fixtures/xid/"* "$ROOT/tests/fixtures/pcie-aer/"* "$ROOT/tests/fixtures/ib-link/"* "$work/"
  fi
  if [ "$target" = fuzz_topology_xml ]; then
    cp -f "$ROOT/tests/fixtures/hwloc/"*.xml "$ROOT/tests/fixtures/sysfs/"*.xml "$work/"
  fi
  # -rss_limit_mb and -timeout make OOM and hangs failures; leaks fail via
  # LeakSanitizer; -max_len fits the largest captured topology.
  if ! (cd "$dir/findings" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$dir/bin/$target" "$work" -max_total_time="$SECONDS_EACH" -timeout=10 \
        -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 \
        -artifact_prefix="$dir/findings/$target-" >"$dir/findings/$target.log" 2>&1); then
    echo "fuzz.sh: $target FAILED; its log: $dir/findings/$target.log" >&2
    tail -40 "$dir/findings/$target.log" >&2
    return 1
  fi
  echo "fuzz.sh: $target: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/findings/$target.log" | grep -o '[0-9]*$') runs in ${SECONDS_EACH} s, no finding" >&2
}
# $JOBS targets at once (each is one process): the step takes
# ceil(7 / JOBS) x SECONDS_EACH, not 7 x.
status=0
pids=()
for target in fuzz_profile fuzz_sysfs_values fuzz_topology_xml fuzz_peer_messages fuzz_nccl_log \
              fuzz_kernel_log fuzz_dcbnl; do
  fuzz_one "$target" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$JOBS" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit "$status"
