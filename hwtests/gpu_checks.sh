#!/usr/bin/env bash
# Every check that needs a GPU, in one run, with short tables at the end.
# Made for a lent GPU machine (e.g. one H200, no RDMA NIC), in well under 8
# minutes: the single-node stage on the live host (gpu, gpu-pcie-bw,
# gpudirect, nccl and the rest), gpu-pcie-bw beside a plain cudaMemcpyAsync
# loop, every collective on real NCCL, and all_reduce beside nccl-tests'
# all_reduce_perf at the same sizes. Exits 0 with "SKIP: no NVIDIA driver"
# elsewhere.
#   hwtests/gpu_checks.sh [DIR]
# DIR is a build directory (built here when DIR/bin/nodeprobe is missing) or
# what hwtests/pack_for_device.sh made: DIR/bin/{nodeprobe,memcpy_reference,
# all_reduce_perf} and DIR/lib (nodeprobe's libraries, for a machine without
# our Debian packages). NP_HW_OUT names a folder to keep the JSON and logs in.
set -uo pipefail
DIR="${1:-build}"
OUTDIR="${NP_HW_OUT:-$(mktemp -d)}"
mkdir -p "$OUTDIR"
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ ! -e /proc/driver/nvidia/version ] && [ -z "${NP_HW_DRYRUN:-}" ]; then
  echo "SKIP: no NVIDIA driver on this host"; exit 0
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
[ -d "$DIR/lib" ] && LD_LIBRARY_PATH="$(realpath "$DIR/lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
NP="$DIR/bin/nodeprobe"
if [ ! -x "$NP" ]; then
  cmake -S . -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build "$DIR" -j "$(nproc)" --target nodeprobe >/dev/null || exit 2
fi
if ! "$NP" --version >/dev/null 2>"$OUTDIR/start.err"; then
  echo "nodeprobe does not start here: $(head -1 "$OUTDIR/start.err")"; exit 2
fi

# The CUDA runtime and NCCL: the loader's path first, then the toolkit and
# the pip wheels a CUDA image carries. nodeprobe and all_reduce_perf are
# pointed at the same libnccl so that the comparison is like for like.
find_lib() {
  local hit
  hit=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n {print $NF; exit}')
  [ -n "$hit" ] && { echo "$hit"; return; }
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
           /opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib \
           /usr/local/lib/python3*/dist-packages/nvidia/*/lib; do
    [ -e "$d/$1" ] && { echo "$d/$1"; return; }
  done
}
# The driver's own libraries (libcuda for gpu-pcie-bw and gpudirect, NVML
# for gpu) may sit in a mounted folder the loader was not told about.
for lib in libcuda.so.1 libnvidia-ml.so.1; do
  ldconfig -p 2>/dev/null | grep -q "^\s*$lib " && continue
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu; do
    [ -e "$d/$lib" ] && { export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"; break; }
  done
done
nccl_lib="${NODEPROBE_NCCL_LIBRARY:-$(find_lib libnccl.so.2)}"
cudart_lib="${NODEPROBE_CUDART_LIBRARY:-$(find_lib libcudart.so.13)}"
[ -n "$cudart_lib" ] || cudart_lib="$(find_lib libcudart.so.12)"
[ -n "$nccl_lib" ] && export NODEPROBE_NCCL_LIBRARY="$nccl_lib" \
  LD_LIBRARY_PATH="$(dirname "$nccl_lib"):$LD_LIBRARY_PATH"
[ -n "$cudart_lib" ] && export NODEPROBE_CUDART_LIBRARY="$cudart_lib" \
  LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$cudart_lib")"
echo "host: $(uname -r); $(nvidia-smi -L 2>/dev/null | head -2 | tr '\n' ' ')"
echo "libs: nccl=${nccl_lib:-none} cudart=${cudart_lib:-none}"

elapsed() { python3 -c "print(round($(date +%s.%N) - $1, 2))"; }

# 1. The single-node stage on the live host.
start=$(date +%s.%N)
timeout 200 "$NP" run --stage single-node --format json > "$OUTDIR/stage.json" 2> "$OUTDIR/stage.err"
rc=$?
took=$(elapsed "$start")
if python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$OUTDIR/stage.json" 2>/dev/null; then
  python3 "$HERE/gpu_table.py" stage "$OUTDIR/stage.json" "$rc" "$took"
else
  echo "single-node: exit $rc after $took s, no JSON: $(tail -2 "$OUTDIR/stage.err")"
fi

# 2. gpu-pcie-bw beside a plain cudaMemcpyAsync loop on GPU 0 (target: within 5%).
ref="$DIR/bin/memcpy_reference"
if [ ! -x "$ref" ]; then
  ref=/tmp/np-memcpy-ref
  g++ -O2 -I/usr/local/cuda/include "$HERE/memcpy_reference.cc" -L/usr/local/cuda/lib64 \
    -lcudart -Wl,-rpath,/usr/local/cuda/lib64 -o "$ref" 2>"$OUTDIR/memcpy-ref.err" || ref=""
fi
# (Its output taken once it has exited: a process still tearing down its
# CUDA context is a GPU process to the busy-node guard of the next step.)
if [ -n "$ref" ] && ref_out=$(timeout 60 "$ref") && read -r ref_h2d ref_d2h <<< "$ref_out"; then
  [ -s "$OUTDIR/stage.json" ] && python3 "$HERE/gpu_table.py" pcie "$OUTDIR/stage.json" "$ref_h2d" "$ref_d2h"
  echo "cudaMemcpy reference: h2d $ref_h2d GB/s, d2h $ref_d2h GB/s"
else
  echo "memcpy reference did not run: $(head -1 "$OUTDIR/memcpy-ref.err" 2>/dev/null)"
fi

# 3. Every collective on real NCCL, small sweep: do they run and check out?
start=$(date +%s.%N)
timeout 90 "$NP" nccl -b 1M -e 64M -f 8 -n 10 -w 3 > "$OUTDIR/nccl-all.txt" 2>&1
echo "nodeprobe nccl (all collectives, 1M..64M): exit $? in $(elapsed "$start") s"
grep -E "^ +[a-z_]+ +[0-9]+ " "$OUTDIR/nccl-all.txt" | awk '{print $1}' | sort | uniq -c |
  awk '{printf "  %s: %s sizes\n", $2, $1}'
grep -E "verdict|NCCL_" "$OUTDIR/nccl-all.txt" | head -8

# 4. all_reduce beside nccl-tests' all_reduce_perf, same sizes and counts
# (target: within 1% at the largest). One GPU makes busbw 0 by nccl-tests'
# factor 2(n-1)/n, so time and algbw are compared.
sizes=(-b 8M -e 1G -f 2 -n 20 -w 5)
timeout 90 "$NP" nccl --collective all_reduce "${sizes[@]}" --format json > "$OUTDIR/nccl.json"
echo "nodeprobe nccl all_reduce: exit $?"
perf="$DIR/bin/all_reduce_perf"
[ -x "$perf" ] || perf=$(command -v all_reduce_perf || true)
if [ -n "$perf" ]; then
  timeout 90 "$perf" "${sizes[@]}" -g 1 > "$OUTDIR/all_reduce_perf.txt" 2>&1
  echo "all_reduce_perf: exit $?"
  python3 "$HERE/gpu_table.py" nccl "$OUTDIR/nccl.json" "$OUTDIR/all_reduce_perf.txt"
else
  echo "all_reduce_perf: not available"
  python3 "$HERE/gpu_table.py" nccl "$OUTDIR/nccl.json"
fi

# 5. The busy-node guard on a real GPU: a process holding the GPU (PyTorch,
# where the image has it) must make the intrusive probes SKIP NODE_BUSY
# naming its pid, and --force must run them anyway.
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  python3 -c "import torch, time; x = torch.ones(1 << 20, device='cuda'); time.sleep(120)" &
  holder=$!
  for _ in $(seq 1 60); do
    nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -q . && break
    sleep 0.5
  done
  timeout 60 "$NP" run --stage single-node --probe nccl --probe gpu-pcie-bw --probe gpu \
    --format json > "$OUTDIR/busy.json"
  busy_rc=$?
  timeout 60 "$NP" run --stage single-node --probe gpu-pcie-bw --force --format json \
    > "$OUTDIR/forced.json"
  forced_rc=$?
  kill "$holder"; wait "$holder" 2>/dev/null
  python3 "$HERE/gpu_table.py" busy "$OUTDIR/busy.json" "$OUTDIR/forced.json" "$holder" \
    "$busy_rc" "$forced_rc"
else
  echo "busy-node guard: no PyTorch here to hold the GPU; not checked"
fi

# 6. gpu-diag: nodeprobe's own tests (memory patterns over half the free
# memory, triad, cuBLAS bf16 GEMM), and dcgmi diag -r 1 beside them where
# DCGM is installed; then GPU 0's triad beside a plain copy kernel and its
# GEMM beside cuBLAS called directly (hwtests/gpu_diag_reference.cu;
# target: within 5%).
printf 'gpu_diag:\n  level: 1\n  memory_fraction: 0.5\n' > "$OUTDIR/diag-profile.yaml"
start=$(date +%s.%N)
timeout 300 "$NP" run --stage single-node --probe gpu-diag --force \
  --profile "$OUTDIR/diag-profile.yaml" --format json > "$OUTDIR/gpu-diag.json"
echo "gpu-diag: exit $? in $(elapsed "$start") s; $(python3 -c "
import json, sys
r = json.load(open('$OUTDIR/gpu-diag.json'))['results'][0]
print(r.get('verdict'), '-', r.get('reason', '') or '; '.join(f['code'] + ' ' + f.get('message', '')[:160] for f in r.get('findings', [])))
" 2>&1)"
diag_ref="$DIR/bin/gpu_diag_reference"
if [ ! -x "$diag_ref" ]; then
  diag_ref=/tmp/np-gpu-diag-ref
  /usr/local/cuda/bin/nvcc -O2 "$HERE/gpu_diag_reference.cu" -lcublas \
    -Xlinker -rpath -Xlinker /usr/local/cuda/lib64 -o "$diag_ref" 2>"$OUTDIR/diag-ref.err" || diag_ref=""
fi
if [ -n "$diag_ref" ] && diag_out=$(timeout 120 "$diag_ref") && read -r ref_copy ref_gemm <<< "$diag_out"; then
  python3 "$HERE/gpu_table.py" diag "$OUTDIR/gpu-diag.json" "$ref_copy" "$ref_gemm"
else
  echo "gpu-diag reference did not run: $(head -1 "$OUTDIR/diag-ref.err" 2>/dev/null)"
fi

# 7. storage: the probe on a scratch directory, with its cuFile (GPUDirect
# Storage) read of one shard beside the plain reads, and fio beside it
# where installed (the probe's definitions are fio's; bench/storage_vs_fio.sh).
mkdir -p "$OUTDIR/storage"
printf 'storage:\n  paths: [%s]\n  writers: 4\n  shard_mb: 256\n  metadata_files: 2000\n' \
  "$OUTDIR/storage" > "$OUTDIR/storage-profile.yaml"
timeout 300 "$NP" run --stage single-node --probe storage --force \
  --profile "$OUTDIR/storage-profile.yaml" --format json > "$OUTDIR/storage.json"
echo "storage: exit $?; $(python3 -c "
import json
r = json.load(open('$OUTDIR/storage.json'))['results'][0]
p = r.get('storage', {}).get('paths', [{}])[0]
print(r.get('verdict'), '- write %.2f Gb/s, read %.2f Gb/s, GDS %.2f Gb/s: %s' % (
    p.get('write_gbps', 0), p.get('read_seq_gbps', 0), p.get('gds_read_gbps', 0), p.get('gds', '')))
" 2>&1)"
if command -v fio >/dev/null; then
  bash "$HERE/../bench/storage_vs_fio.sh" "$DIR" "$OUTDIR/storage" 1 4 256 | tail -4
fi

# 8. Pre-flight as a job would run it on this GPU: the GPUs NVML sees against
# a grant of all of them (gpu-view: PASS expected; each GPU's nearest NIC
# where there is one), then --active (a single-process all_reduce over the
# visible GPUs); and fault-counters twice (the second run judges NVLink
# error growth since the first; NVLink counters only where the GPU has links).
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
NODEPROBE_STATE_DIR="$OUTDIR" timeout 120 "$NP" preflight --gpus "${ngpu:-1}" --active \
  --format json > "$OUTDIR/preflight.json" 2> "$OUTDIR/preflight.err"
echo "preflight --active: exit $?; $(python3 -c "
import json
for r in json.load(open('$OUTDIR/preflight.json'))['results']:
    print(r['probe'], r.get('verdict'), r.get('reason', '') or ','.join(f['code'] for f in r.get('findings', [])), end='; ')
" 2>&1)"
for i in 1 2; do
  NODEPROBE_STATE_DIR="$OUTDIR" timeout 60 "$NP" run --stage single-node --probe fault-counters \
    --format json > "$OUTDIR/fault-counters-$i.json"
done
echo "fault-counters: $(python3 -c "
import json
r = json.load(open('$OUTDIR/fault-counters-2.json'))['results'][0]
print(r.get('verdict'), '-', r.get('evidence', {}).get('fault-counters.read', ''), '-', r.get('evidence', {}).get('fault-counters.window', ''))
" 2>&1)"

# 9. The workload stage on real NCCL: a coordinator and an agent on this
# host (loopback, plaintext), a DP-only shape with one rank per GPU; its
# per-op medians printed beside `nodeprobe nccl`'s all_reduce of the same
# bucket size (nccl-tests-style; target ratio >= 0.95 where there are two
# or more GPUs: with one, the shape has no communication and only the NCCL
# path's loading and timing are exercised).
wl="$OUTDIR/workload"; mkdir -p "$wl"
printf 'workload:\n  params_b: 0.1\n  layers: 4\n  hidden: 1024\n  seq: 64\n  compute_ms_per_layer: 0.1\n  warmup: 2\n  steps: 10\n' \
  > "$wl/profile.yaml"
"$NP" coordinator --listen 127.0.0.1:0 --metrics-listen "" --db "$wl/runs.db" --insecure \
  > "$wl/coordinator.log" 2>&1 &
cpid=$!
for _ in $(seq 50); do grep -q listening "$wl/coordinator.log" && break; sleep 0.1; done
port=$(grep -o 'port [0-9]*' "$wl/coordinator.log" | grep -o '[0-9]*')
"$NP" agent --coordinator "127.0.0.1:$port" --node-name gpu-host --insecure --metrics-listen "" \
  > "$wl/agent.log" 2>&1 &
apid=$!
sleep 3
timeout 300 "$NP" run --stage workload --nodes gpu-host --profile "$wl/profile.yaml" \
  --coordinator "127.0.0.1:$port" --insecure --format json > "$wl/run.json" 2> "$wl/run.err"
echo "workload stage: exit $?"
kill "$apid" "$cpid" 2>/dev/null; wait "$apid" "$cpid" 2>/dev/null
timeout 90 "$NP" nccl --collective all_reduce -b 25M -e 25M -n 20 -w 5 --format json \
  > "$wl/nccl.json" 2>/dev/null
python3 - "$wl/run.json" "$wl/nccl.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
w = run.get('workload', {})
print('  %s %s, %s, %s steps, step p50 %.2f ms, comm %.0f%%' % (
    w.get('library'), w.get('version'), w.get('layout'), w.get('steps', 0),
    w.get('stepP50Ms', 0), 100 * w.get('commShare', 0)))
for f in run.get('findings', []):
    print('  %s %s: %s' % (f.get('severity'), f.get('code'), f.get('message', '')[:160]))
nccl = {}
try:
    for row in json.load(open(sys.argv[2]))['collective']['rows']:
        # The replay all-reduces in place: compared with the in-place time.
        nccl[int(row['size'])] = float(row.get('inPlaceTimeUs') or row.get('timeUs', 0)) / 1000
except Exception as e:
    print('  nodeprobe nccl: no rows (%s)' % e)
for o in w.get('ops', []):
    b = int(o.get('bytes', 0)); ref = nccl.get(b)
    print('  %-3s %-14s %12d B  %8.3f ms%s' % (o['group'], o['op'], b, o['medianMs'],
          '  nccl %.3f ms, ratio %.3f' % (ref, ref / o['medianMs']) if ref else ''))
PY
