#!/usr/bin/env bash
# Captures a RoCE host's congestion configuration as a node capture the
# roce-config probe (and `run --capture`, `agent --capture`) reads: for each
# RoCE port, the RDMA device's sysfs (ports, GIDs, tc/), the netdevs that
# carry it (mtu, ecn/, lower_* links), rdma_cm's configfs defaults, and the
# raw dcbnl replies (dcbnl/IF.ieee, IF.dcbx: `nodeprobe dcb-capture`, the
# kernel's own bytes, future fixtures for platform/dcbnl.h). Beside them
# what `dcb`, `mlnx_qos` and `ethtool -S` print, when installed, to check the
# parser against. Then it runs roce-config on the capture and on the live
# host and prints both verdicts with the settings read.
#
#   hwtests/roce_config.sh [BUILD] [OUT]
# BUILD holds bin/nodeprobe (default build); OUT the capture (default
# /tmp/np-roce-capture-HOST). Needs root for rdma_cm's configfs group.
# Output: "SKIP: why" and exit 0 where there is no RoCE port; else the
# capture's path, then one line per setting: "setting device live capture".
set -uo pipefail
BUILD="${1:-build}"
NP="$BUILD/bin/nodeprobe"
OUT="${2:-/tmp/np-roce-capture-$(hostname -s)}"
skip() { echo "SKIP: $*"; exit 0; }
[ -x "$NP" ] || skip "no $NP (build first)"
[ -d /sys/class/infiniband ] || skip "no /sys/class/infiniband: no RDMA device"

mkdir -p "$OUT/sys/class/infiniband" "$OUT/sys/class/net" "$OUT/dcbnl" "$OUT/tools"
copy_tree() {  # copy_tree SRC DEST: the readable regular files, symlinks kept as files
  (cd "$1" && find . -maxdepth 4 -type f -readable 2>/dev/null) | while read -r f; do
    mkdir -p "$2/$(dirname "$f")"
    head -c 65536 "$1/$f" > "$2/$f" 2>/dev/null || rm -f "$2/$f"
  done
}
found=0
for dev in /sys/class/infiniband/*; do
  d=$(basename "$dev")
  for port in "$dev"/ports/*; do
    p=$(basename "$port")
    [ "$(cat "$port/link_layer" 2>/dev/null)" = Ethernet ] || continue
    found=1
    copy_tree "$port" "$OUT/sys/class/infiniband/$d/ports/$p"
    [ -d "$dev/tc" ] && copy_tree "$dev/tc" "$OUT/sys/class/infiniband/$d/tc"
    for f in node_type fw_ver hca_type; do
      cat "$dev/$f" > "$OUT/sys/class/infiniband/$d/$f" 2>/dev/null
    done
    # rdma_cm's defaults: the group exists while someone holds it.
    cm=/sys/kernel/config/rdma_cm
    if [ -d "$cm" ]; then
      made=0
      [ -d "$cm/$d" ] || { mkdir "$cm/$d" 2>/dev/null && made=1; }
      [ -d "$cm/$d" ] && copy_tree "$cm/$d" "$OUT/sys/kernel/config/rdma_cm/$d"
      [ "$made" = 1 ] && rmdir "$cm/$d"
    fi
    for ndev in $(cat "$port"/gid_attrs/ndevs/* 2>/dev/null | sort -u); do
      todo="$ndev"
      while [ -n "$todo" ]; do
        n="${todo%% *}"; [ "$todo" = "$n" ] && todo="" || todo="${todo#* }"
        mkdir -p "$OUT/sys/class/net/$n"
        cat "/sys/class/net/$n/mtu" > "$OUT/sys/class/net/$n/mtu" 2>/dev/null
        [ -d "/sys/class/net/$n/ecn" ] && copy_tree "/sys/class/net/$n/ecn" "$OUT/sys/class/net/$n/ecn"
        for l in /sys/class/net/$n/lower_*; do
          [ -e "$l" ] || continue
          lower="${l##*/lower_}"
          mkdir -p "$OUT/sys/class/net/$n/lower_$lower"
          todo="$todo $lower"; todo="${todo# }"
        done
        "$NP" dcb-capture --netdev "$n" --out "$OUT/dcbnl" 2>> "$OUT/tools/dcb-capture.err"
        command -v dcb >/dev/null && { dcb pfc show dev "$n"; dcb ets show dev "$n"; dcb app show dev "$n"; } > "$OUT/tools/dcb-$n.txt" 2>&1
        command -v mlnx_qos >/dev/null && mlnx_qos -i "$n" > "$OUT/tools/mlnx_qos-$n.txt" 2>&1
        command -v ethtool >/dev/null && ethtool -S "$n" > "$OUT/tools/ethtool-S-$n.txt" 2>&1
      done
    done
  done
done
[ "$found" = 1 ] || skip "no RoCE port (every RDMA port is InfiniBand)"
echo "capture: $OUT"
settings() {  # settings ARGS...: "name device value" per setting of roce-config
  "$NP" run --stage single-node --probe roce-config --format json "$@" 2>/dev/null |
    python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]
print("#verdict", r.get("verdict"), r.get("reason", ""))
for s in r.get("config", {}).get("settings", []):
    print(s["name"], s.get("device", "-"), s.get("value", ""))'
}
live="$(settings)"; cap="$(settings --capture "$OUT")"
printf '%-22s %-12s %-16s %s\n' setting device live capture
join -j1 <(echo "$live" | awk '{print $1"|"$2, $3}' | sort) \
         <(echo "$cap" | awk '{print $1"|"$2, $3}' | sort) |
  awk '{split($1, k, "|"); printf "%-22s %-12s %-16s %s\n", k[1], k[2], $2, $3}'
