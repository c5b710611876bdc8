#!/usr/bin/env bash
# Builds here what hwtests/gpu_checks.sh needs on a lent GPU machine that has
# CUDA and NCCL but none of our Debian -dev packages (gRPC, protobuf, hwloc,
# libnl...), so nodeprobe cannot be built there:
#   OUT/bin/nodeprobe          Release build, stripped
#   OUT/lib/*.so*              its shared libraries, except the C/C++ runtime
#                              (glibc, libstdc++, libgcc_s), which the GPU
#                              machine's newer system already has and which
#                              libnccl must share with it
#   OUT/bin/memcpy_reference   the cudaMemcpyAsync loop gpu-pcie-bw is held to
#   OUT/bin/gpu_diag_reference a copy kernel and cuBLAS, gpu-diag's references
#   OUT/bin/all_reduce_perf    nccl-tests, when its source tree is given
#   OUT/bin/ib_*_bw, ib_write_lat  perftest, when installed here (rdma_rxe.sh)
#   OUT/lib/ibverbs/librxe-*.so    the soft-RoCE verbs provider (rdma_rxe.sh)
# and OUT.tar.xz of it all (ICU's data alone is 31 MB; the device tool
# carries 64 MiB). Then, there:
#   mkdir -p /tmp/np && tar -xJf OUT.tar.xz -C /tmp/np && hwtests/gpu_checks.sh /tmp/np
#   hwtests/pack_for_device.sh OUT [NCCL_TESTS_SRC]
set -euo pipefail
OUT="${1:?usage: pack_for_device.sh OUT [NCCL_TESTS_SRC]}"
NCCL_TESTS="${2:-}"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
BUILD="${PACK_BUILD_DIR:-build-hw}"
mkdir -p "$OUT/bin" "$OUT/lib"

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target nodeprobe >/dev/null
install -m 0755 "$BUILD/bin/nodeprobe" "$OUT/bin/nodeprobe"
strip "$OUT/bin/nodeprobe"

# The runtime every Linux has, and the one the GPU machine's own libraries
# (libnccl links libstdc++) must keep using.
system='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so'
ldd "$OUT/bin/nodeprobe" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
  [[ "$name" =~ $system ]] && continue
  cp -L "$path" "$OUT/lib/$name"
done

"$CUDA/bin/nvcc" -O2 -gencode=arch=compute_90,code=sm_90 hwtests/memcpy_reference.cc \
  -o "$OUT/bin/memcpy_reference" -Xlinker -rpath -Xlinker "$CUDA/lib64"
"$CUDA/bin/nvcc" -O2 -gencode=arch=compute_90,code=sm_90 hwtests/gpu_diag_reference.cu -lcublas \
  -o "$OUT/bin/gpu_diag_reference" -Xlinker -rpath -Xlinker "$CUDA/lib64"

if [ -n "$NCCL_TESTS" ]; then
  # One binary, Hopper only: the full nccl-tests build for every arch takes
  # minutes the lease does not have.
  make -s -C "$NCCL_TESTS/src" NCCL_HOME="$CUDA" CUDA_HOME="$CUDA" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR="$(realpath "$OUT")/nccl-tests" \
    os.build "$(realpath "$OUT")/nccl-tests/all_reduce_perf" >/dev/null
  install -m 0755 "$OUT/nccl-tests/all_reduce_perf" "$OUT/bin/all_reduce_perf"
  rm -rf "$OUT/nccl-tests"
fi
# hwtests/rdma_rxe.sh: perftest's tools and the soft-RoCE verbs provider
# (libibverbs dlopens it; the script points IBV_CONFIG_DIR at it).
for tool in ib_write_bw ib_read_bw ib_send_bw ib_write_lat; do
  if command -v "$tool" >/dev/null; then
    install -m 0755 "$(command -v "$tool")" "$OUT/bin/$tool"
    ldd "$OUT/bin/$tool" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
      [[ "$name" =~ $system ]] || cp -L "$path" "$OUT/lib/$name"
    done
  else
    echo "pack_for_device: no $tool here (apt-get install perftest): rdma_rxe.sh will run without perftest" >&2
  fi
done
for provider in /usr/lib/*-linux-gnu/libibverbs/librxe-rdmav*.so; do
  [ -e "$provider" ] || continue
  mkdir -p "$OUT/lib/ibverbs"
  cp -L "$provider" "$OUT/lib/ibverbs/"
done
tar -C "$OUT" -cJf "$OUT.tar.xz" .
du -sh "$OUT" "$OUT.tar.xz"
