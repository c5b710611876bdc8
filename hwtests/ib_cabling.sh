#!/usr/bin/env bash
# The cabling probe's InfiniBand half against infiniband-diags on a real
# fabric: for each ACTIVE IB port, the switch name, GUID and switch port
# nodeprobe reads one hop out (libibnetdisc), beside the peer of our port
# in `ibnetdiscover --ports`; "same" when both agree. It also writes each
# port's fabric cache (`ibnetdiscover --cache`) to OUT_DIR: a capture a
# later session can check in as a fixture (platform::LoadIbNeighbors).
#
#   hwtests/ib_cabling.sh [BUILD_DIR] [OUT_DIR]
# Needs: root, an InfiniBand HCA with an ACTIVE port and a subnet manager,
# infiniband-diags (apt-get install infiniband-diags).
# Machines without an IB port: exits 0 with "SKIP".
set -euo pipefail
BUILD="${1:-build}"; OUT="${2:-$(mktemp -d)}"
NP="$BUILD/bin/nodeprobe"
ports=()
for p in /sys/class/infiniband/*/ports/*; do
  [ -e "$p/link_layer" ] || continue
  [ "$(cat "$p/link_layer")" = InfiniBand ] && grep -q ACTIVE "$p/state" && \
    ports+=("$(basename "$(dirname "$(dirname "$p")")"):$(basename "$p")")
done
[ ${#ports[@]} -gt 0 ] || { echo "SKIP: no ACTIVE InfiniBand port on this host"; exit 0; }
command -v ibnetdiscover >/dev/null || { echo "infiniband-diags missing: apt-get install infiniband-diags"; exit 2; }
"$NP" run --stage single-node --probe cabling --format json > "$OUT/cabling.json" || true
printf '%-12s %-28s %-24s %-6s | %-40s %s\n' port "nodeprobe switch" guid sport "ibnetdiscover --ports (our link)" agree
for dp in "${ports[@]}"; do
  dev="${dp%%:*}"; port="${dp##*:}"
  ibnetdiscover -C "$dev" -P "$port" --cache "$OUT/fabric-$dev-$port.cache" > /dev/null 2>&1 || true
  ours=$(python3 - "$OUT/cabling.json" "$dp" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for node in doc.get("nodes", [doc]):
    for r in node.get("results", []):
        for l in r.get("cabling", {}).get("links", []):
            if l.get("interface") == sys.argv[2]:
                get = lambda k, c: l.get(k, l.get(c, ""))
                print(get("neighbor_system", "neighborSystem"), get("neighbor_chassis", "neighborChassis").replace(" ", "="),
                      get("neighbor_port", "neighborPort"))
PY
)
  # ibnetdiscover --ports: one line per link, both ends (type, LID, port,
  # GUID) and both descriptions; ours is the line with our node GUID.
  theirs=$(ibnetdiscover -C "$dev" -P "$port" --ports 2>/dev/null |
    grep -m1 -i "$(tr -d : < "/sys/class/infiniband/$dev/node_guid")" || true)
  read -r name guid sport <<< "${ours:-- - -}"
  agree=no
  [ -n "$theirs" ] && [[ "$theirs" == *"${guid#guid=0x}"* ]] && [[ " $theirs " =~ [[:space:]]$sport[[:space:]] ]] && agree=same
  printf '%-12s %-28s %-24s %-6s | %-40s %s\n' "$dp" "$name" "$guid" "$sport" "${theirs:0:40}" "$agree"
done
echo "fabric caches and the probe's JSON: $OUT"
