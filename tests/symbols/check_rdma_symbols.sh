#!/usr/bin/env bash
# The built binary must start on any rdma-core: every rdma-core symbol it
# needs from the dynamic linker is IBVERBS_1.1 or RDMACM_1.0 (exported by
# every rdma-core release); newer ones are resolved at run time with dlvsym
# (platform/verbs_port.h). Fails naming each symbol above the floor.
set -euo pipefail
bin="$1"
above=$(readelf --dyn-syms -W "$bin" | awk '$7 == "UND" {print $8}' |
        grep -E '@(IBVERBS_1\.([2-9]|[1-9][0-9])|RDMACM_1\.[1-9])' || true)
if [ -n "$above" ]; then
  echo "symbols above the rdma-core floor (resolve them with dlvsym instead):"
  echo "$above"
  exit 1
fi
count=$(readelf --dyn-syms -W "$bin" | awk '$7 == "UND" {print $8}' | grep -cE '@(IBVERBS|RDMACM)_' || true)
[ "$count" -gt 0 ] || { echo "no rdma-core symbols found: is $bin linked against rdma-core?"; exit 1; }
# And it still runs with dma-buf registration unavailable.
NODEPROBE_FORCE_NO_DMABUF=1 "$bin" run --stage single-node --probe gpudirect --quiet
echo "1 passed, 0 failed: $count rdma-core symbols, none above IBVERBS_1.1/RDMACM_1.0"
