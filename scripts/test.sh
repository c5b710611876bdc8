#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite (unit, CLI, and the
# network-namespace lab tests, which need root and skip without it) under
# AddressSanitizer + UndefinedBehaviorSanitizer: every memory error, leak
# or undefined behaviour a test reaches fails it. One build serves both
# the suite and the sanitizers, which keeps CI within its time.
#   NODEPROBE_SANITIZE=  ./scripts/test.sh   a plain build (into build/)
# Extra arguments go to ctest (e.g. -L unit); the fuzz step
# (scripts/fuzz.sh) and the ThreadSanitizer step (scripts/tsan.sh) follow
# the suite.
set -euo pipefail
# Each step's wall time, printed at the end whatever happens (the CI
# budget is 30 minutes from a cold cache: this says where they went).
STEPS=()
step_start=$(date +%s)
run_start=$step_start
step_done() {  # NAME
  local now; now=$(date +%s)
  STEPS+=("$(printf '%-8s %5d s' "$1" $((now - step_start)))")
  step_start=$now
}
print_steps() {
  local rc=$?
  local now; now=$(date +%s)
  [ "$now" -gt "$step_start" ] && [ "$rc" != 0 ] &&
    STEPS+=("$(printf '%-8s %5d s (failed here)' next $((now - step_start)))")
  echo "test.sh: step times (exit $rc):" >&2
  printf '  %s\n' "${STEPS[@]}" "$(printf '%-8s %5d s' total $((now - run_start)))" >&2
  # Last, so that a log's tail says what failed: each failed assertion's
  # place, its values and the first line of its message.
  if [ -n "${FAILED_LOG:-}" ] && [ -f "$FAILED_LOG" ]; then
    echo "test.sh: the first failed assertions ($FAILED_LOG):" >&2
    grep -A4 -E ': Failure$' "$FAILED_LOG" | grep -v -e '^--$' | cut -c1-300 |
      head -12 >&2 || true
  fi
  return $rc
}
trap print_steps EXIT
export NODEPROBE_SETUP_NO_BUILD=1
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
np_install_test_tools
step_done setup
# Includes go down the layers only (platform -> probes -> tasks ->
# agent/coordinator -> cli, controlplane beside tasks): a second, not a build.
"$ROOT/scripts/check_layers.sh"
step_done layers
SANITIZE="${NODEPROBE_SANITIZE-address,undefined}"
if [ -n "$SANITIZE" ]; then
  dir="${NODEPROBE_BUILD_DIR:-$ROOT/build-${SANITIZE//,/-}}"
  # Reports stop the program (the build adds -fno-sanitize-recover) and go
  # to stderr with a stack; third-party code needs no suppression so far.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  # clang at -O0 (CMakeLists.txt says why): the cold build is code
  # generation, and clang -O0 does it in a third of gcc -O1's time. The
  # plain build (setup.sh, the README's run command) stays the default c++.
  export CC="${NODEPROBE_SANITIZE_CC:-clang}" CXX="${NODEPROBE_SANITIZE_CXX:-clang++}"
else
  dir="${NODEPROBE_BUILD_DIR:-$ROOT/build}"
fi
np_build "$dir" -DNODEPROBE_SANITIZE="$SANITIZE"
step_done build
# While the suite runs (its lab tests mostly wait on sockets, timers and
# shaped links), the fuzz and TSan trees build on the CPU it leaves idle:
# SCHED_IDLE, so a test always has the CPU first (the busy tests bring
# their own load on purpose). Their steps below then find them built.
ahead_pid=
if [ "${NODEPROBE_FUZZ_SECONDS:-10}" != 0 ] || [ "${NODEPROBE_TSAN:-1}" != 0 ]; then
  if chrt --idle 0 true 2>/dev/null; then
    ahead_log="$dir/build-ahead.log"
    # Its own process group (setsid), so that a failed suite stops it whole.
    setsid chrt --idle 0 bash -c '
      [ "${NODEPROBE_FUZZ_SECONDS:-10}" = 0 ] || NODEPROBE_BUILD_ONLY=1 "$1/scripts/fuzz.sh"
      [ "${NODEPROBE_TSAN:-1}" = 0 ] || NODEPROBE_BUILD_ONLY=1 "$1/scripts/tsan.sh"' \
      build-ahead "$ROOT" >"$ahead_log" 2>&1 &
    ahead_pid=$!
  fi
fi
suite_rc=0
(cd "$dir" && ctest --output-on-failure -j "$JOBS" "$@") || suite_rc=$?
[ "$suite_rc" = 0 ] || FAILED_LOG="$dir/Testing/Temporary/LastTest.log"
step_done suite
if [ -n "$ahead_pid" ]; then
  if [ "$suite_rc" != 0 ]; then
    kill -- "-$ahead_pid" 2>/dev/null || true
    wait "$ahead_pid" 2>/dev/null || true
    exit "$suite_rc"
  fi
  # A failed build ahead is not the verdict: the steps below build again,
  # in the foreground, and say what fails.
  wait "$ahead_pid" || echo "test.sh: the build ahead failed; its log: $ahead_log" >&2
  step_done ahead
fi
[ "$suite_rc" = 0 ] || exit "$suite_rc"
# The parsers that read untrusted input (profiles, sysfs values, topology
# XML, peer messages) are then fuzzed for a fixed time each; a finding fails
# the run. NODEPROBE_FUZZ_SECONDS=0 skips this step.
if [ "${NODEPROBE_FUZZ_SECONDS:-10}" != 0 ]; then
  "$ROOT/scripts/fuzz.sh"
  step_done fuzz
fi
# The concurrent code (agent, coordinator, task runner, transfer engine) is
# then built with clang's ThreadSanitizer and -Werror=thread-safety and its
# tests run again under it. NODEPROBE_TSAN=0 skips this step.
if [ "${NODEPROBE_TSAN:-1}" != 0 ]; then
  "$ROOT/scripts/tsan.sh"
  step_done tsan
fi
