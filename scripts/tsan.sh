#!/usr/bin/env bash
# Builds the concurrent code (agent, coordinator, task runner, transfer
# engine and the CLI that starts them) with clang, ThreadSanitizer and
# -Werror=thread-safety into build-thread/, and runs the tests that
# exercise its threads: the unit tests of those parts and the lab tests
# whose agents, coordinators and transfer servers are this TSan binary.
# A data race or lock-order inversion stops the process (halt_on_error) and
# fails its test; a member read without the mutex its ABSL_GUARDED_BY names
# fails the build.
#   scripts/tsan.sh [ctest args]     Called by scripts/test.sh.
set -euo pipefail
export NODEPROBE_SETUP_NO_BUILD=1
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
dir="${NODEPROBE_TSAN_DIR:-$ROOT/build-thread}"
tests=(platform_test tasks_test agent_test coordinator_test transfer_test
       control_plane_lab_test transfer_lab_test)
start=$(date +%s)
CC=clang CXX=clang++ NP_BUILD_TARGET="nodeprobe nodeprobe-agent ${tests[*]}" np_build "$dir" \
  -DNODEPROBE_SANITIZE=thread -DCMAKE_CXX_FLAGS=-Werror=thread-safety
echo "tsan.sh: built in $(( $(date +%s) - start )) s" >&2
[ -n "${NODEPROBE_BUILD_ONLY:-}" ] && exit 0  # test.sh builds ahead, runs later
# Only third-party code may be suppressed, each entry with its reason.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/scripts/tsan.supp}"
cd "$dir"
# The other test executables are not built here: their placeholders
# (*_NOT_BUILT) are left out. So are tests whose threads are those of a test
# kept here and whose point is judgement, storage or packaging (the ASan
# step runs them): the cluster stage's shaped, incast, resume and full-disk
# runs (HealthyLinksPassInEveryPattern keeps its concurrent pairs), two of
# the collective stage's (RanksSpanTheNodes... keeps its concurrent ranks),
# and the package build: ~100 s of the 30-minute CI. Likewise the two-node
# runs judged by a profile or the gate (TwoNodeStageRunsTransfersBothWays
# keeps the transfer threads), and the failure stage's refusal and
# process-lifecycle cases (ALinkDownMidTransfer and AnAgentRestarted keep
# its threads): ~55 s more. The coordinator load bench too: its fake fleet
# is not built here (the ASan step runs it).
ctest --output-on-failure -j "$JOBS" \
  -E '_NOT_BUILT|CoordinatorLoadBench|PackageInstallsRunsAndRemoves|ClusterLabTest\.(AFullDisk|AnInterrupted|IncastInto|TheShapedNode)|CollectiveLabTest\.(AnAgentKilled|AHungRank)|ControlPlaneLabTest\.(TwoNodeStageIsJudged|TransfersAreJudged|TheGateShows)|FailureLabTest\.(ItRefuses|TheLinkComesBack|AFlapperKilled)' "$@"
