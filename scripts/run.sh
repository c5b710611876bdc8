#!/usr/bin/env bash
# Sets up, builds, and runs the main job: the single-node stage on this
# machine. Extra arguments go to `nodeprobe run` (e.g. --format json).
# Exits with nodeprobe's exit code.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
exec "$NODEPROBE_BIN" run --stage single-node "$@"
