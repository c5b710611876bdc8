#!/usr/bin/env bash
# RDMA WRITE bandwidth: nodeprobe vs perftest's ib_write_bw on the same
# device, GID and sizes, run alternately between this host and a peer.
#
#   hwtests/transfer_vs_perftest.sh PEER_IP DEVICE GID_INDEX [SIZES] [BUILD_DIR]
#
# Needs: RDMA NICs on both hosts, perftest (apt-get install perftest) and
# nodeprobe built on both, passwordless ssh to PEER_IP. Prints, per size,
# ib_write_bw's and nodeprobe's BW average (Gb/s) and the ratio.
# Machines without an RDMA device: exits 0 with "SKIP: no RDMA device".
set -euo pipefail
PEER="${1:?peer IP}"; DEV="${2:?device, e.g. mlx5_0}"; GID="${3:?GID index}"
SIZES="${4:-4096 65536 1048576}"; BUILD="${5:-build}"
NP="$(cd "$BUILD" && pwd)/bin/nodeprobe"
if [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband)" ]; then
  echo "SKIP: no RDMA device on this host"; exit 0
fi
command -v ib_write_bw >/dev/null || { echo "perftest missing: apt-get install perftest"; exit 2; }

printf '%-10s %-18s %-18s %-8s\n' bytes ib_write_bw_Gbps nodeprobe_Gbps ratio
for size in $SIZES; do
  ssh "$PEER" "ib_write_bw -d $DEV -x $GID -s $size -D 5 -F --report_gbits" >/dev/null 2>&1 &
  sleep 2
  pt=$(ib_write_bw -d "$DEV" -x "$GID" -s "$size" -D 5 -F --report_gbits "$PEER" |
       awk -v s="$size" '$1 == s {print $4}')
  wait
  ssh "$PEER" "$NP transfer serve --port 18515" >/dev/null 2>&1 &
  sleep 2
  np=$("$NP" transfer run --peer "$PEER:18515" --transport rdma --op write_bw \
         --device "$DEV" --gid-index "$GID" --size "$size" --duration 5 --format json |
       python3 -c 'import json,sys; print(json.load(sys.stdin)["transfer"]["results"][0]["bw_avg_gbps"])')
  ssh "$PEER" "pkill -TERM -f 'nodeprobe transfer serve'" || true
  wait || true
  printf '%-10s %-18s %-18s %-8s\n' "$size" "$pt" "$np" \
    "$(python3 -c "print(round($np/$pt, 3) if $pt else 'n/a')")"
done
