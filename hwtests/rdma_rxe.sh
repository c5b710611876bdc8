#!/usr/bin/env bash
# Our RDMA path on a real verbs provider where a kernel has soft-RoCE
# (rdma_rxe): two rxe devices over a veth pair in two network namespaces,
# then write_bw, read_bw, send_bw and write_lat (host memory), each beside
# the perftest tool of the same name and options, the rdma-loopback probe,
# and the two-node stage through a coordinator and two agents. One table.
#
#   hwtests/rdma_rxe.sh [DIR] [SECONDS]
# DIR holds bin/nodeprobe (default: build/bin's parent, i.e. `build`), and,
# on a machine without packages, what pack_for_device.sh put there:
# bin/ib_write_bw ... (perftest) and lib/ibverbs/librxe-rdmav*.so (the rxe
# verbs provider, found through IBV_CONFIG_DIR). Needs root.
#
# Output (documented in hwtests/README.md): lines "SKIP: why" and exit 0
# where it cannot run (no root, no rdma_rxe, a kernel whose rxe has no
# network-namespace support); else one row per check:
#   check  nodeprobe  perftest  ratio  note
# bandwidth in Gb/s (average, perftest's BW average), latency in us
# (typical = median, perftest's t_typical); ratio = nodeprobe / perftest.
# Exit 1 when a check failed to run on a device that was there.
set -uo pipefail
DIR="${1:-build}"
SECS="${2:-3}"
NP="$DIR/bin/nodeprobe"
NS_A=np-rxe-a NS_B=np-rxe-b
IP_A=10.88.0.1 IP_B=10.88.0.2
WORK="$(mktemp -d /tmp/np-rxe.XXXXXX)"
PIDS=()

skip() { echo "SKIP: $*"; exit 0; }
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rdma link delete rxe_a 2>/dev/null
  rdma link delete rxe_b 2>/dev/null
  # Leave the kernel's RDMA netns mode as it was found.
  [ -n "${RESTORE_NETNS:-}" ] && rdma system set netns "$RESTORE_NETNS" 2>/dev/null
  ip netns delete "$NS_A" 2>/dev/null
  ip netns delete "$NS_B" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || skip "needs root (namespaces, modprobe, rdma link add)"
[ -x "$NP" ] || skip "no $NP (build it, or unpack pack_for_device.sh's archive into DIR)"
command -v rdma >/dev/null || skip "no 'rdma' tool (iproute2) to create rxe devices"
if [ ! -d /sys/module/rdma_rxe ]; then
  command -v modprobe >/dev/null || skip "rdma_rxe is not loaded and there is no modprobe to load it"
  modprobe rdma_rxe 2>"$WORK/modprobe.err" ||
    skip "this kernel has no rdma_rxe ($(uname -r): $(tr -d '\n' <"$WORK/modprobe.err"))"
fi
export PATH="$DIR/bin:$PATH"
[ -d "$DIR/lib" ] && export LD_LIBRARY_PATH="$(realpath "$DIR/lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# A packed provider: libibverbs dlopens "driver /abs/path/librxe" lines.
if ls "$DIR"/lib/ibverbs/librxe-rdmav*.so >/dev/null 2>&1; then
  mkdir -p "$WORK/ibverbs.d"
  echo "driver $(realpath "$DIR")/lib/ibverbs/librxe" >"$WORK/ibverbs.d/rxe.driver"
  export IBV_CONFIG_DIR="$WORK/ibverbs.d"
fi
have_perftest=1
command -v ib_write_bw >/dev/null || have_perftest=0

ip netns add "$NS_A" && ip netns add "$NS_B" || skip "cannot create network namespaces"
ip link add va netns "$NS_A" type veth peer name vb netns "$NS_B"
ip -n "$NS_A" addr add "$IP_A/24" dev va && ip -n "$NS_A" link set va up
ip -n "$NS_B" addr add "$IP_B/24" dev vb && ip -n "$NS_B" link set vb up
ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up
# Each side must see only its own device: in the kernel's "shared" RDMA
# netns mode every namespace sees every device (an agent would register
# both as its rails). "exclusive" binds a device to its namespace; the mode
# can only change while no RDMA device exists.
NETNS_MODE=$(rdma system show 2>/dev/null | sed -n 's/.*netns \([a-z]*\).*/\1/p')
if [ "$NETNS_MODE" != exclusive ]; then
  rdma system set netns exclusive 2>"$WORK/netns.err" &&
    RESTORE_NETNS="${NETNS_MODE:-shared}" NETNS_MODE=exclusive
fi
ip netns exec "$NS_A" rdma link add rxe_a type rxe netdev va 2>"$WORK/rxe.err" &&
  ip netns exec "$NS_B" rdma link add rxe_b type rxe netdev vb 2>>"$WORK/rxe.err" ||
  skip "rdma_rxe loaded but 'rdma link add' failed: $(tr -d '\n' <"$WORK/rxe.err")"
sleep 1
# rxe before its network-namespace support (Linux < 5.19 or so) opens its
# UDP 4791 socket in init_net and sends from there: nothing reaches the
# peer's namespace. Without a listener inside each namespace it cannot run.
for ns in "$NS_A" "$NS_B"; do
  ip netns exec "$ns" ss -Hlun 2>/dev/null | grep -q ':4791\b' ||
    skip "rdma_rxe on kernel $(uname -r) does not listen on UDP 4791 inside network namespace $ns (rxe before its netns support sends from init_net); run it on a newer kernel"
done
if [ "$NETNS_MODE" = exclusive ]; then
  # Bind each device to its namespace if it was created outside it.
  for pair in "rxe_a:$NS_A" "rxe_b:$NS_B"; do
    dev=${pair%%:*} ns=${pair#*:}
    ip netns exec "$ns" test -e "/sys/class/infiniband/$dev" ||
      rdma dev set "$dev" netns "$ns" 2>/dev/null ||
      skip "cannot move $dev into $ns (rdma dev set ... netns)"
  done
fi
# The RoCE v2 GID holding each side's IPv4 (perftest -x needs the index).
gid_index() {  # DEV IP
  local dir=/sys/class/infiniband/$1/ports/1
  for t in "$dir"/gid_attrs/types/*; do
    local i="${t##*/}"
    [ "$(cat "$t" 2>/dev/null)" = "RoCE v2" ] || continue
    grep -qi "$(printf '%02x%02x:%02x%02x' ${2//./ })\$" "$dir/gids/$i" && { echo "$i"; return; }
  done
  echo 1
}
GA=$(gid_index rxe_a "$IP_A") GB=$(gid_index rxe_b "$IP_B")
echo "rxe_a (va $IP_A, GID $GA) <-> rxe_b (vb $IP_B, GID $GB), kernel $(uname -r), ${SECS}s per run"

FAILED=0
ROWS=()
row() { ROWS+=("$(printf '%-22s %10s %10s %7s  %s' "$@")"); }
ratio() { python3 -c "a,b=float('$1' or 0),float('$2' or 0); print(f'{a/b:.3f}' if a>0 and b>0 else '-')"; }
# Our figure from `transfer run --format json`: bandwidth or median latency.
ours() {  # JSON FIELD
  python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    row = r["transfer"]["results"][0]
    print(row["latency"]["median_us"] if sys.argv[2] == "lat" else row.get("bw_avg_gbps", 0))
except Exception as e:
    print("")
EOF
}
# perftest's figure: BW average[Gb/s] (column 4) or t_typical (column 5).
theirs() {  # OUT FIELD
  awk -v f="$2" '$1 ~ /^[0-9]+$/ && NF >= 5 { v = (f == "lat") ? $5 : $4 } END { print v }' "$1"
}

run_pair() {  # OP TOOL SIZE FIELD [EXTRA...]
  local op=$1 tool=$2 size=$3 field=$4
  shift 4
  local json="$WORK/$op.json" pt="$WORK/$op.perftest"
  ip netns exec "$NS_B" "$NP" transfer serve --port 18515 --device rxe_b --idle-timeout 5 \
    >"$WORK/$op.serve" 2>&1 &
  local spid=$!
  PIDS+=("$spid")
  sleep 1
  local args=(--transport rdma --op "$op" --device rxe_a --peer "$IP_B:18515" --size "$size")
  [ "$field" = lat ] && args+=(--iterations 1000) || args+=(--duration "$SECS")
  ip netns exec "$NS_A" "$NP" transfer run "${args[@]}" "$@" --format json >"$json" 2>"$json.err"
  kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
  local mine; mine=$(ours "$json" "$field")
  local ref="" note=""
  if [ "$have_perftest" = 1 ]; then
    local pargs=(-d rxe_b -x "$GB" -s "$size" -F)
    [ "$field" = lat ] && pargs+=(-n 1000) || pargs+=(-D "$SECS" --report_gbits)
    [ "${1:-}" = --bidirectional ] && pargs+=(-b)
    ip netns exec "$NS_B" timeout 60 "$tool" "${pargs[@]}" >"$pt.server" 2>&1 &
    local ppid=$!
    PIDS+=("$ppid")
    sleep 1
    pargs[1]=rxe_a; pargs[3]="$GA"
    ip netns exec "$NS_A" timeout 60 "$tool" "${pargs[@]}" "$IP_B" >"$pt" 2>&1
    wait "$ppid" 2>/dev/null
    ref=$(theirs "$pt" "$field")
  else
    note="no perftest"
  fi
  [ -z "$mine" ] && { FAILED=1; note="nodeprobe: $(head -c 160 "$json.err" | tr '\n' ' ')"; }
  row "$op${1:+ $1} ${size}B" "${mine:--}" "${ref:--}" "$(ratio "$mine" "$ref")" "$note"
}

run_pair write_bw ib_write_bw 65536 bw
run_pair write_bw ib_write_bw 65536 bw --bidirectional
run_pair read_bw ib_read_bw 65536 bw
run_pair send_bw ib_send_bw 65536 bw
run_pair write_lat ib_write_lat 2 lat

# The loopback probe on rxe_a: verdict and its write_bw.
ip netns exec "$NS_A" "$NP" run --stage single-node --probe rdma-loopback --format json \
  >"$WORK/loopback.json" 2>"$WORK/loopback.err"
lb=$(python3 - "$WORK/loopback.json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    p = [x for x in r["results"] if x["probe"] == "rdma-loopback"][0]
    print(p["verdict"], "; ".join(f["code"] for f in p.get("findings", [])) or "no findings")
except Exception as e:
    print("ERROR", e)
EOF
)
row "rdma-loopback probe" "${lb%% *}" "-" "-" "${lb#* }"
[[ "$lb" == ERROR* ]] && FAILED=1

# The two-node stage: a coordinator and an agent per namespace. In the
# shared netns mode each agent would see both devices as its rails: the
# stage is left out, and the table says why.
if [ "$NETNS_MODE" != exclusive ]; then
  row "two-node stage" "SKIP" "-" "-" "RDMA netns mode is '${NETNS_MODE:-unknown}' (each agent would see both rxe devices): $(tr -d '\n' <"$WORK/netns.err" 2>/dev/null)"
  printf '%-22s %10s %10s %7s  %s\n' check nodeprobe perftest ratio note
  printf '%s\n' "${ROWS[@]}"
  exit "$FAILED"
fi
ip netns exec "$NS_A" "$NP" coordinator --listen "$IP_A:18600" --db "$WORK/runs.db" --insecure \
  >"$WORK/coordinator.log" 2>&1 &
PIDS+=($!)
sleep 1
ip netns exec "$NS_A" "$NP" agent --coordinator "$IP_A:18600" --node-name rxe-a --insecure \
  >"$WORK/agent-a.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_B" ip route add "$IP_A/32" dev vb 2>/dev/null
ip netns exec "$NS_B" "$NP" agent --coordinator "$IP_A:18600" --node-name rxe-b --insecure \
  >"$WORK/agent-b.log" 2>&1 &
PIDS+=($!)
sleep 3
ip netns exec "$NS_A" timeout 300 "$NP" run --stage two-node --nodes rxe-a,rxe-b \
  --coordinator "$IP_A:18600" --insecure --transfer-seconds "$SECS" --format json \
  >"$WORK/two-node.json" 2>"$WORK/two-node.err"
tn=$(python3 - "$WORK/two-node.json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    rdma = [x for x in r.get("results", []) if x.get("transfer", {}).get("transport") == "RDMA"]
    bw = [row.get("bw_avg_gbps", 0) for x in rdma for row in x["transfer"].get("results", [])]
    print(r["verdict"], f"{len(rdma)} RDMA transfers, " +
          (f"{min(bw):.2f}..{max(bw):.2f} Gb/s" if bw else "none measured"))
except Exception as e:
    print("ERROR", e)
EOF
)
row "two-node stage" "${tn%% *}" "-" "-" "${tn#* }"
[[ "$tn" == ERROR* ]] && FAILED=1

printf '%-22s %10s %10s %7s  %s\n' check nodeprobe perftest ratio note
printf '%s\n' "${ROWS[@]}"
[ "$FAILED" = 0 ] || { echo "logs: see the JSON and .err files (kept in $WORK.kept)"; cp -r "$WORK" "$WORK.kept"; }
exit "$FAILED"
