#!/usr/bin/env bash
# The agent's idle footprint with /metrics on and off, and the
# coordinator's /metrics under a fleet (issue 14's telemetry bench):
#   bench/agent_footprint.sh [BUILD_DIR] [SCRAPES] [IDLE_SECONDS] [FLEET]
# Defaults: 720 scrapes (an hour at a 5 s interval), 60 idle seconds, 5000
# fake agents. Per mode: RSS after three single-node runs and the scrapes,
# CPU seconds over the idle window scaled to a minute, and the mean scrape
# time. Then the coordinator's /metrics with FLEET agents connected: median
# and worst of 20 scrapes. Goals: agent RSS <= 20 MB, <= 0.1 s CPU per idle
# minute; coordinator /metrics <= 50 ms at 5000 agents. Loopback only;
# every process started here is stopped by its PID.
set -euo pipefail
BUILD="${1:-build}"; SCRAPES="${2:-720}"; IDLE="${3:-60}"; FLEET="${4:-5000}"
NP="$BUILD/bin/nodeprobe"
command -v curl >/dev/null || { echo "curl not installed (apt-get install curl)"; exit 2; }
[ -x "$NP" ] || { echo "no $NP: build first"; exit 2; }
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT

"$NP" coordinator --insecure --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
  --db "$dir/runs.db" > "$dir/coordinator.log" 2>&1 &
cpid=$!; pids+=("$cpid")
for _ in $(seq 50); do grep -q listening "$dir/coordinator.log" && break; sleep 0.1; done
port=$(grep -o 'listening on port [0-9]*' "$dir/coordinator.log" | grep -o '[0-9]*$')
mport=$(grep -o 'metrics on [0-9]*' "$dir/coordinator.log" | grep -o '[0-9]*$')

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
# Private memory: RSS less the file-backed pages (the binary's and the
# shared libraries' code, shared with every other process that maps them).
anon_kb() { awk '/RssAnon/ {print $2}' "/proc/$1/status"; }
cpu_s() { awk -v t="$(getconf CLK_TCK)" '{print ($14 + $15) / t}' "/proc/$1/stat"; }

printf '%-12s %-10s %-12s %-14s %-18s %s\n' metrics "RSS MB" "private MB" "CPU s/idle min" \
  "scrape ms (mean)" "agent binary"
for mode in on off; do
  listen=""; [ "$mode" = on ] && listen="127.0.0.1:0"
  "$NP" agent --insecure --coordinator "127.0.0.1:$port" --node-name "fp-$mode" \
    --metrics-listen "$listen" --health-listen "" > "$dir/agent-$mode.log" 2>&1 &
  apid=$!; pids+=("$apid")
  for _ in $(seq 100); do
    "$NP" run --stage single-node --nodes "fp-$mode" --coordinator "127.0.0.1:$port" --insecure \
      --quiet > /dev/null 2>&1 && break
    sleep 0.2
  done
  for _ in 1 2; do
    "$NP" run --stage single-node --nodes "fp-$mode" --coordinator "127.0.0.1:$port" --insecure \
      --quiet > /dev/null 2>&1 || true
  done
  scrape_ms="-"
  if [ "$mode" = on ]; then
    aport=$(grep -o 'metrics on port [0-9]*' "$dir/agent-$mode.log" | grep -o '[0-9]*$')
    t0=$(date +%s.%N)
    for _ in $(seq "$SCRAPES"); do curl -s "http://127.0.0.1:$aport/metrics" > /dev/null; done
    t1=$(date +%s.%N)
    scrape_ms=$(python3 -c "print(round(($t1 - $t0) * 1000 / $SCRAPES, 2))")
  fi
  rss=$(rss_kb "$apid"); anon=$(anon_kb "$apid")
  # `nodeprobe agent` execs nodeprobe-agent when it is beside it.
  exe=$(basename "$(readlink "/proc/$apid/exe")")
  c0=$(cpu_s "$apid"); sleep "$IDLE"; c1=$(cpu_s "$apid")
  printf '%-12s %-10.1f %-12.1f %-14.3f %-18s %s\n' "$mode" "$(python3 -c "print($rss/1024)")" \
    "$(python3 -c "print($anon/1024)")" "$(python3 -c "print(($c1 - $c0) * 60 / $IDLE)")" \
    "$scrape_ms" "$exe"
  kill "$apid"; wait "$apid" 2>/dev/null || true
done

# The coordinator's /metrics with a fleet connected.
"$BUILD/bin/fake_fleet" "127.0.0.1:$port" "$FLEET" hold:40 "$cpid" "$dir/runs.db" \
  > "$dir/fleet.log" 2>&1 &
fpid=$!; pids+=("$fpid")
for _ in $(seq 600); do grep -q registered "$dir/fleet.log" && break; sleep 0.1; done
sleep 11  # the coordinator refreshes its agent gauges every 10 s
times=()
for _ in $(seq 20); do
  times+=("$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$mport/metrics")")
done
connected=$(curl -s "http://127.0.0.1:$mport/metrics" | awk '/^nodeprobe_coordinator_agents/ {print}' | head -3 | tr '\n' ' ')
printf '%s\n' "${times[@]}" | sort -g | awk -v fleet="$FLEET" -v c="$connected" \
  '{a[NR]=$1*1000} END {printf "coordinator /metrics with %s agents (%s): median %.1f ms, worst %.1f ms\n", fleet, c, a[int((NR+1)/2)], a[NR]}'
wait "$fpid" 2>/dev/null || true
