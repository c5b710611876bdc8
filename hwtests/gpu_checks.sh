#!/usr/bin/env bash
# Every check that needs a GPU, in one run, with a short table at the end.
# Made for a lent GPU machine (e.g. one H200, no RDMA NIC): it builds, runs
# the single-node stage on the live host, and prints what the GPU-facing
# probes saw. Exits 0 with "SKIP: no NVIDIA driver" elsewhere.
#   hwtests/gpu_checks.sh [BUILD_DIR]
set -uo pipefail
BUILD="${1:-build}"
if [ ! -e /proc/driver/nvidia/version ]; then
  echo "SKIP: no NVIDIA driver on this host"; exit 0
fi
if [ ! -x "$BUILD/bin/nodeprobe" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build "$BUILD" -j "$(nproc)" --target nodeprobe >/dev/null || exit 2
fi
start=$(date +%s.%N)
"$BUILD/bin/nodeprobe" run --stage single-node --format json > /tmp/np-gpu.json
rc=$?
took=$(python3 -c "print(round($(date +%s.%N) - $start, 2))")
python3 - "$rc" "$took" <<'PY'
import json, sys
rc, took = sys.argv[1], sys.argv[2]
r = json.load(open("/tmp/np-gpu.json"))
print(f"single-node: verdict {r['verdict']}, exit {rc}, {took} s")
print(f"{'probe':14} {'verdict':8} findings / facts")
for p in r["results"]:
    facts = [f["code"] for f in p.get("findings", [])]
    if p["probe"] == "inventory":
        comp = {c["name"]: c for c in p["inventory"]["components"]}
        facts = [f"{n}={comp[n]['version'] or 'absent'}" for n in
                 ("nvidia_driver", "cuda_driver", "cuda_runtime", "nccl") if n in comp]
    if p["probe"] == "locality" and "topology" in p:
        t = p["topology"]
        facts.append(f"{len(t.get('gpus', []))} GPUs, {len(t.get('nics', []))} NICs")
    if p["probe"] == "pcie":
        for m in p.get("measurements", []):
            if m["name"] == "pcie_link_speed" and m["labels"].get("role") == "gpu":
                facts.append(f"gpu {m['labels']['device']} {m['value']} GT/s")
    if p["probe"] == "gpu" and "gpu" in p:
        g = p["gpu"]
        facts.append(f"driver {g.get('driver_version', '?')}")
        for x in g.get("gpus", []):
            facts.append(f"{x.get('name')} {x.get('bus_id')} ecc={x.get('ecc_enabled')} "
                         f"nvlink {x.get('nvlinks_active', 0)}/{x.get('nvlinks_supported', 0)} "
                         f"procs={x.get('compute_processes', 0)}")
    print(f"{p['probe']:14} {p['verdict']:8} {', '.join(facts) or p.get('reason', '')}")
PY

# gpu-pcie-bw beside a plain cudaMemcpyAsync loop on GPU 0 (target: within 5%).
if g++ -O2 -I/usr/local/cuda/include hwtests/memcpy_reference.cc -L/usr/local/cuda/lib64 \
     -lcudart -Wl,-rpath,/usr/local/cuda/lib64 -o /tmp/np-memcpy-ref 2>/tmp/np-memcpy-ref.err; then
  read -r ref_h2d ref_d2h < <(/tmp/np-memcpy-ref)
  python3 - "$ref_h2d" "$ref_d2h" <<'PY'
import json, sys
ref = {"h2d": float(sys.argv[1]), "d2h": float(sys.argv[2])}
r = json.load(open("/tmp/np-gpu.json"))
for p in r["results"]:
    if p["probe"] != "gpu-pcie-bw":
        continue
    for m in p.get("measurements", []):
        d = m["labels"]["direction"]
        line = f"gpu-pcie-bw {m['labels']['device']} {d}: {m['value']:.2f} GB/s"
        if "expected_gbps" in m["labels"]:
            line += f" (bar from link {m['labels']['expected_gbps']})"
        # CUDA ordinal 0 is the first GPU the probe measured.
        if d in ref and m["labels"]["device"] == p["measurements"][0]["labels"]["device"]:
            line += f", cudaMemcpy {ref[d]:.2f}, ratio {m['value'] / ref[d]:.3f}"
        print(line)
PY
else
  echo "memcpy reference not built: $(head -1 /tmp/np-memcpy-ref.err)"
fi

# The nccl probe's collectives beside nccl-tests' all_reduce_perf, same
# sizes (target: within 1% at the largest). With one GPU busbw is 0 by
# nccl-tests' factor, so time and algbw are compared.
"$BUILD/bin/nodeprobe" nccl --collective all_reduce -b 8M -e 1G -f 2 -n 20 -w 5 \
  --format json > /tmp/np-nccl.json
echo "nodeprobe nccl: exit $?"
perf=$(command -v all_reduce_perf || ls /usr/local/cuda/bin/all_reduce_perf 2>/dev/null || true)
if [ -n "$perf" ]; then
  "$perf" -b 8M -e 1G -f 2 -n 20 -w 5 -g "$(nvidia-smi -L | wc -l)" > /tmp/np-nccl-tests.txt 2>&1
fi
python3 - "$perf" <<'PY'
import json, re, sys
r = json.load(open("/tmp/np-nccl.json"))
if r["verdict"] == "SKIP":
    print("nccl: SKIP", r.get("reason")); sys.exit(0)
c = r["collective"]
ref = {}
if sys.argv[1]:
    for line in open("/tmp/np-nccl-tests.txt"):
        f = line.split()
        if len(f) >= 12 and f[0].isdigit():
            ref[int(f[0])] = (float(f[5]), float(f[6]))  # out-of-place time, algbw
print(f"nccl {c.get('nccl_version')} ranks {c['nranks']} verdict {r['verdict']}")
print(f"{'size':>12} {'time us':>10} {'algbw':>8} {'busbw':>8} {'ref us':>10} {'ref algbw':>9} ratio")
for row in c.get("rows", []):
    size = int(row["size"]); t = row["time_us"]; a = row["algbw_gbps"]
    rt, ra = ref.get(size, (0, 0))
    ratio = f"{a / ra:.3f}" if ra else "-"
    print(f"{size:>12} {t:>10.1f} {a:>8.2f} {row['busbw_gbps']:>8.2f} {rt:>10.1f} {ra:>9.2f} {ratio}")
for f in r.get("findings", []):
    print(f"  {f['severity']} {f['code']}: {f['message'][:160]}")
PY
