#!/usr/bin/env bash
# Coordinator under N fake agents: streams held, results ingested per
# second, coordinator RSS per connected agent, RunStage p50/p99.
#   bench/coordinator_load.sh [BUILD_DIR] [N...]
set -euo pipefail
BUILD="${1:-build}"; shift || true
COUNTS=("${@:-100 1000}")
DB=$(mktemp -d)/runs.db
LOG=$(mktemp)
# No /metrics: its default port may be taken, and it is not what is measured.
"$BUILD/bin/nodeprobe" coordinator --listen 127.0.0.1:0 --metrics-listen "" --db "$DB" --insecure \
  > "$LOG" 2>&1 &
CPID=$!
trap 'kill $CPID 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$LOG" && break; sleep 0.1; done
PORT=$(grep -o 'port [0-9]*' "$LOG" | grep -o '[0-9]*')
base=$(awk '/VmRSS/ {print $2}' /proc/$CPID/status)
echo "coordinator idle RSS ${base} kB"
OUT=$(mktemp)
STAGES=50
rc=0
for n in ${COUNTS[@]}; do
  "$BUILD/bin/coordinator_load" "127.0.0.1:$PORT" "$n" 10 "$STAGES" > "$OUT" &
  LPID=$!
  sleep 8
  rss=$(awk '/VmRSS/ {print $2}' /proc/$CPID/status)
  wait $LPID
  echo "$(cat "$OUT") coordinator_rss_kB=$rss per_agent_kB=$(( (rss - base) / n ))"
  # What keeps the bench honest (CTest runs it at a small N): every agent
  # registered and every stage answered. The figures are printed only.
  if ! grep -q "registered=$n .*runstage_ok=$STAGES " "$OUT"; then
    echo "coordinator_load: not every agent registered or not every RunStage answered at N=$n" >&2
    rc=1
  fi
  sleep 2
done
exit $rc
