#!/usr/bin/env bash
# Sets up, builds, and runs the whole test suite (unit, CLI, and the
# network-namespace lab tests, which need root and skip without it).
# Extra arguments go to ctest (e.g. -L unit).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$JOBS" "$@"
