#!/usr/bin/env bash
# The cluster stage over a fake fleet (bench/fake_fleet.cc: one process,
# agents on gRPC's callback API, synthetic transfers, node 7 slow and node
# 11's eth1 slow): rounds, wall time and coordinator CPU per round, RSS and
# store bytes per node, time to the first round's results, and whether
# blame named exactly the injected faults.
#   bench/cluster_sim.sh [BUILD_DIR] [N:PATTERN ...]
# Default: 100:all-pairs 1000:ring 5000:ring (all-pairs over 1000 nodes is
# 999 rounds: run it by hand when you have the time).
set -euo pipefail
BUILD="${1:-build}"; shift || true
RUNS=("${@:-100:all-pairs 1000:ring 5000:ring}")
for spec in ${RUNS[@]}; do
  n=${spec%%:*}; pattern=${spec##*:}
  dir=$(mktemp -d)
  "$BUILD/bin/nodeprobe" coordinator --listen 127.0.0.1:0 --metrics-listen "" --db "$dir/runs.db" \
    --insecure \
    > "$dir/coordinator.log" 2>&1 &
  cpid=$!
  for _ in $(seq 50); do grep -q listening "$dir/coordinator.log" && break; sleep 0.1; done
  port=$(grep -o 'port [0-9]*' "$dir/coordinator.log" | grep -o '[0-9]*')
  idle=$(awk '/VmRSS/ {print $2}' /proc/$cpid/status)
  "$BUILD/bin/fake_fleet" "127.0.0.1:$port" "$n" "$pattern" "$cpid" "$dir/runs.db" || true
  echo "  (coordinator idle RSS ${idle} kB)"
  kill "$cpid"; wait "$cpid" 2>/dev/null || true
  rm -rf "$dir"
done
