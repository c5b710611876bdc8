#!/usr/bin/env bash
# nodeprobe TCP stream_bw vs iperf3 on the same path, run alternately.
#
#   bench/tcp_vs_iperf3.sh [BUILD_DIR] [REPS] [SECONDS]
#
# Paths: loopback, and a veth pair between two network namespaces this
# script creates (and removes). Streams: 1 and 4. Both tools report what the
# receiver got; the table shows medians and the ratio nodeprobe/iperf3 at
# each tool's defaults (nodeprobe writes 1 MiB on one stream and 512 KiB per
# stream on several, iperf3 128 KiB; target >= 1.0: nodeprobe must not
# under-report a link), and iperf3 at -l 1M beside them.
# Needs root for the namespaces and iperf3 (Debian package) on PATH.
set -euo pipefail
BUILD="${1:-build}"
REPS="${2:-5}"
SECS="${3:-3}"
NP="$BUILD/bin/nodeprobe"
command -v iperf3 >/dev/null || { echo "iperf3 not installed (apt-get install iperf3)"; exit 2; }
[ -x "$NP" ] || { echo "no $NP: build first"; exit 2; }

NS_A="npbench$$a"; NS_B="npbench$$b"
cleanup() {
  for ns in "$NS_A" "$NS_B"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
  # Stopped by the PIDs this script started, never by name.
  [ -n "${IPERF_PID:-}" ] && kill "$IPERF_PID" 2>/dev/null || true
  [ -n "${NP_PID:-}" ] && kill "$NP_PID" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$NS_A"; ip netns add "$NS_B"
ip link add npba netns "$NS_A" type veth peer name npbb netns "$NS_B"
ip -n "$NS_A" addr add 10.78.0.1/24 dev npba; ip -n "$NS_A" link set npba up; ip -n "$NS_A" link set lo up
ip -n "$NS_B" addr add 10.78.0.2/24 dev npbb; ip -n "$NS_B" link set npbb up; ip -n "$NS_B" link set lo up

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# run_pair EXEC_CLIENT EXEC_SERVER HOST STREAMS -> prints "np_gbps iperf_gbps" per rep
bench_path() {
  local label="$1" cli="$2" srv="$3" host="$4" streams="$5"
  local out np_port
  out=$(mktemp)
  $srv "$NP" transfer serve --port 0 > "$out" 2>&1 &
  NP_PID=$!
  for _ in $(seq 50); do grep -q "listening on" "$out" && break; sleep 0.1; done
  np_port=$(grep -o '[0-9]*$' "$out" | head -1)
  # In the foreground of a background job (not -D), so its PID is ours;
  # `ip netns exec` execs into it, so $! is iperf3 itself.
  $srv iperf3 -s -p 5299 >/dev/null 2>&1 &
  IPERF_PID=$!
  sleep 0.3
  local np_vals=() ip_vals=() ipl_vals=()
  for _ in $(seq "$REPS"); do
    np_vals+=("$($cli "$NP" transfer run --peer "$host:$np_port" --duration "$SECS" \
        --streams "$streams" --format json | python3 -c \
        'import json,sys; print(json.load(sys.stdin)["transfer"]["results"][0]["bw_avg_gbps"])')")
    ip_vals+=("$($cli iperf3 -c "$host" -p 5299 -t "$SECS" -P "$streams" -J | python3 -c \
        'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)')")
    ipl_vals+=("$($cli iperf3 -c "$host" -p 5299 -t "$SECS" -P "$streams" -l 1M -J | python3 -c \
        'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)')")
  done
  kill "$NP_PID"; wait "$NP_PID" 2>/dev/null || true; NP_PID=""
  kill "$IPERF_PID"; wait "$IPERF_PID" 2>/dev/null || true; IPERF_PID=""
  local np_med ip_med ipl_med
  np_med=$(printf '%s\n' "${np_vals[@]}" | median)
  ip_med=$(printf '%s\n' "${ip_vals[@]}" | median)
  ipl_med=$(printf '%s\n' "${ipl_vals[@]}" | median)
  printf '%-9s %-8s %-11.2f %-11.2f %-7.3f %-13.2f %-7.3f\n' "$label" "$streams" "$np_med" \
    "$ip_med" "$(python3 -c "print($np_med/$ip_med)")" "$ipl_med" \
    "$(python3 -c "print($np_med/$ipl_med)")"
  rm -f "$out"
}

echo "nodeprobe vs iperf3, TCP receiver Gb/s, median of $REPS runs of ${SECS}s"
printf '%-9s %-8s %-11s %-11s %-7s %-13s %-7s\n' path streams nodeprobe iperf3 ratio \
  "iperf3 -l 1M" ratio
for streams in 1 4; do
  bench_path loopback "" "" 127.0.0.1 "$streams"
  bench_path veth "ip netns exec $NS_A" "ip netns exec $NS_B" 10.78.0.2 "$streams"
done
