#!/usr/bin/env bash
# What strangers can make nodeprobe's servers hold (issue 16's bar: the
# coordinator's RSS after 8 waves of 3000 junk connections within 20% of
# its idle RSS; a transfer server never above its documented cap,
# ServerLimits in probes/transfer/transfer_engine.h).
#   bench/stranger_flood.sh [BUILD_DIR] [WAVES] [PER_WAVE]
# Everything runs on loopback; every process started here is stopped by PID.
set -euo pipefail
BUILD="${1:-build}"
WAVES="${2:-8}"
PER_WAVE="${3:-3000}"
NP="$BUILD/bin/nodeprobe"
FLOOD="$BUILD/bin/stranger_flood"
# Both the flood and the servers need descriptors for a whole wave.
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((PER_WAVE + 256)) ]; then
  echo "stranger_flood: ulimit -n is $(ulimit -n); a wave of $PER_WAVE needs more" >&2
  exit 2
fi
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
hwm() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

echo "== coordinator (plaintext, 127.0.0.1)"
"$NP" coordinator --listen 127.0.0.1:0 --db "$WORK/runs.db" --insecure > "$WORK/coord.log" 2>&1 &
CPID=$!; PIDS+=("$CPID")
for _ in $(seq 50); do grep -q listening "$WORK/coord.log" && break; sleep 0.1; done
PORT=$(grep -o 'port [0-9]*' "$WORK/coord.log" | grep -o '[0-9]*')
sleep 2
idle=$(rss "$CPID")
echo "idle rss_kB=$idle"
"$FLOOD" junk "127.0.0.1:$PORT" "$CPID" "$WAVES" "$PER_WAVE" 2000
# Half-open connections go at the handshake timeout (10 s).
sleep 12
after=$(rss "$CPID")
echo "after ${WAVES} waves of ${PER_WAVE}, 12 s later: rss_kB=$after ratio_to_idle=$(awk -v a="$after" -v b="$idle" 'BEGIN {printf "%.2f", a / b}') (bar: <= 1.20)"
"$FLOOD" trickle "127.0.0.1:$PORT" "$CPID" 50 30 2000 grpc
echo "coordinator still serving: $("$NP" runs --coordinator "127.0.0.1:$PORT" --insecure > /dev/null 2>&1 && echo yes || echo no)"

echo "== transfer server (127.0.0.1)"
"$NP" transfer serve --bind 127.0.0.1 --port 0 > "$WORK/serve.log" 2>&1 &
TPID=$!; PIDS+=("$TPID")
for _ in $(seq 50); do grep -q 'listening on' "$WORK/serve.log" && break; sleep 0.1; done
TPORT=$(grep -o 'listening on .*' "$WORK/serve.log" | grep -o '[0-9]*$')
sleep 1
tidle=$(rss "$TPID")
echo "idle rss_kB=$tidle threads=$(awk '/Threads/ {print $2}' /proc/$TPID/status)"
"$FLOOD" junk "127.0.0.1:$TPORT" "$TPID" 2 "$PER_WAVE" 2000
"$FLOOD" trickle "127.0.0.1:$TPORT" "$TPID" 20 20 1000 framed
# Five clients each asking for the most one session may hold (4 streams x
# 64 MiB = 256 MiB): four are served, the fifth refused.
for i in 1 2 3 4 5; do
  "$NP" transfer run --peer "127.0.0.1:$TPORT" --op stream_bw --size 64M --streams 4 \
      --duration 4 --format json > "$WORK/client$i.json" 2>&1 &
  PIDS+=("$!")
done
peak=0
for _ in $(seq 40); do r=$(rss "$TPID"); [ "$r" -gt "$peak" ] && peak=$r; sleep 0.2; done
wait "${PIDS[@]: -5}" 2>/dev/null || true
refused=$(grep -l TRANSFER_REFUSED "$WORK"/client*.json | wc -l)
cap_kB=$(( 4 * 256 * 1024 ))
echo "5 clients asking for 256 MiB each: refused=$refused rss_peak_kB=$peak hwm_kB=$(hwm "$TPID") cap_kB=$(( cap_kB + tidle )) (4 sessions x 256 MiB + idle)"
sleep 1
echo "after: rss_kB=$(rss "$TPID") threads=$(awk '/Threads/ {print $2}' /proc/$TPID/status)"
