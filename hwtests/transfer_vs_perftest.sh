#!/usr/bin/env bash
# nodeprobe's RDMA transfers vs perftest's tools of the same name, same
# device, GID, sizes and options, run alternately; one table with ratios
# (targets: bandwidth >= 0.99x, latency <= 1.05x).
#
#   hwtests/transfer_vs_perftest.sh PEER_IP DEVICE GID_INDEX [SIZES] [BUILD_DIR]
#       two hosts: write_bw, read_bw, send_bw, write_lat, write_bw -b,
#       write_bw over rdma_cm, and write_bw from GPU 0 when this host has one
#   hwtests/transfer_vs_perftest.sh --loopback DEVICE GID_INDEX [BUILD_DIR]
#       one host: ib_write_bw/ib_write_lat to 127.0.0.1 beside the
#       rdma-loopback probe's figures for DEVICE
#
# Needs: RDMA NICs, perftest (apt-get install perftest) and nodeprobe built
# on both hosts at the same path, passwordless ssh to PEER_IP. Servers on
# the peer are stopped by the PID they report, never by pattern.
# Machines without an RDMA device: exits 0 with "SKIP: no RDMA device".
set -euo pipefail
if [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
  echo "SKIP: no RDMA device on this host"; exit 0
fi
command -v ib_write_bw >/dev/null || { echo "perftest missing: apt-get install perftest"; exit 2; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
ratio() { python3 -c "a,b=float('$1' or 0),float('$2' or 0); print(round(b/a,3) if a else 'n/a')"; }
row() { printf '%-26s %-9s %-14s %-14s %-7s\n' "$@"; }

if [ "${1:-}" = "--loopback" ]; then
  DEV="${2:?device}"; GID="${3:?GID index}"; BUILD="${4:-build}"
  NP="$(cd "$BUILD" && pwd)/bin/nodeprobe"
  row test bytes perftest nodeprobe ratio
  ib_write_bw -d "$DEV" -x "$GID" -s 65536 -D 2 -F --report_gbits >/dev/null 2>&1 & srv=$!
  sleep 1
  pt=$(ib_write_bw -d "$DEV" -x "$GID" -s 65536 -D 2 -F --report_gbits 127.0.0.1 |
       awk '$1 == 65536 {print $4}')
  wait "$srv" || true
  ib_write_lat -d "$DEV" -x "$GID" -s 2 -n 1000 -F >/dev/null 2>&1 & srv=$!
  sleep 1
  ptl=$(ib_write_lat -d "$DEV" -x "$GID" -s 2 -n 1000 -F 127.0.0.1 | awk '$1 == 2 {print $5}')
  wait "$srv" || true
  out=$("$NP" run --stage single-node --probe rdma-loopback --format json)
  np=$(echo "$out" | json "[m['value'] for r in d['results'] for m in r['measurements'] if m['name']=='loopback_write_bw' and m['labels']['device'].startswith('$DEV:') and m['labels']['memory']=='host'][0]")
  npl=$(echo "$out" | json "[m['value'] for r in d['results'] for m in r['measurements'] if m['name']=='loopback_write_lat_median' and m['labels']['device'].startswith('$DEV:')][0]")
  row "loopback write_bw Gb/s" 65536 "$pt" "$np" "$(ratio "$pt" "$np")"
  row "loopback write_lat us" 2 "$ptl" "$npl" "$(ratio "$ptl" "$npl")"
  exit 0
fi

PEER="${1:?peer IP}"; DEV="${2:?device, e.g. mlx5_0}"; GID="${3:?GID index}"
SIZES="${4:-4096 65536 1048576}"; BUILD="${5:-build}"
NP="$(cd "$BUILD" && pwd)/bin/nodeprobe"

# remote CMD: starts CMD on the peer in the background, prints its PID.
remote() { ssh "$PEER" "nohup $1 >/dev/null 2>&1 & echo \$!"; }
stop() { ssh "$PEER" "kill -TERM $1 2>/dev/null; true"; }

# One comparison: NAME PERFTEST_TOOL PERFTEST_ARGS NODEPROBE_ARGS SIZE FIELD [SERVE_ARGS]
# (perftest's args apply to both its ends; SERVE_ARGS gives our server the
# same, e.g. --gpu 0 beside --use_cuda=0).
compare() {
  local name="$1" tool="$2" pargs="$3" nargs="$4" size="$5" kind="$6" sargs="${7:-}" pt np pid
  pid=$(remote "$tool -d $DEV -x $GID -s $size -F $pargs")
  sleep 2
  if [ "$kind" = lat ]; then
    pt=$($tool -d "$DEV" -x "$GID" -s "$size" -F $pargs "$PEER" | awk -v s="$size" '$1 == s {print $5}')
  else
    pt=$($tool -d "$DEV" -x "$GID" -s "$size" -F $pargs --report_gbits "$PEER" |
         awk -v s="$size" '$1 == s {print $4}')
  fi
  stop "$pid"
  pid=$(remote "$NP transfer serve --port 18515 --device $DEV --gid-index $GID $sargs")
  sleep 2
  np=$("$NP" transfer run --peer "$PEER:18515" --transport rdma --device "$DEV" \
         --gid-index "$GID" --size "$size" --format json $nargs |
       if [ "$kind" = lat ]; then json "d['transfer']['results'][0]['latency']['median_us']"
       else json "d['transfer']['results'][0]['bw_avg_gbps']"; fi)
  stop "$pid"
  row "$name" "$size" "$pt" "$np" "$(ratio "$pt" "$np")"
}

row test bytes perftest nodeprobe ratio
for size in $SIZES; do
  compare "write_bw Gb/s" ib_write_bw "-D 5" "--op write_bw --duration 5" "$size" bw
  compare "read_bw Gb/s" ib_read_bw "-D 5" "--op read_bw --duration 5" "$size" bw
  compare "send_bw Gb/s" ib_send_bw "-D 5" "--op send_bw --duration 5" "$size" bw
  compare "write_bw -b Gb/s" ib_write_bw "-D 5 -b" "--op write_bw --duration 5 --bidirectional" "$size" bw
  compare "write_bw rdma_cm Gb/s" ib_write_bw "-D 5 -R" "--op write_bw --duration 5 --rdma-cm" "$size" bw
  if [ -e /proc/driver/nvidia/version ]; then
    compare "write_bw gpu0 Gb/s" ib_write_bw "-D 5 --use_cuda=0" "--op write_bw --duration 5 --gpu 0" \
      "$size" bw "--gpu 0"
  fi
done
compare "write_lat median us" ib_write_lat "-n 1000" "--op write_lat --iterations 1000" 2 lat
