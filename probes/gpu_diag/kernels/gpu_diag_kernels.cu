// File: gpu_diag_kernels.cu
// The device code of gpu-diag's own tests, compiled by nvcc at build time
// into a fatbin (SASS for the data-centre GPUs, PTX for the rest) that the
// GPU worker loads through the driver API (probes/gpu_diag/gpu_kernels.cc).
// Every entry point is extern "C" so its name is the symbol the loader asks
// for, and each loops grid-stride so one launch shape fits any size.
//
// The memory test writes a pattern, reads it back and counts the words that
// differ. A pattern is a 32-bit value XORed, in the "address" mode, with the
// word's own index: a stuck or coupled address line then reads another
// word's value, which a constant pattern cannot show.
#include <stdint.h>

extern "C" __global__ void np_fill(uint32_t* words, uint64_t n, uint32_t pattern, int by_address) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    words[i] = by_address ? pattern ^ static_cast<uint32_t>(i) : pattern;
  }
}

// `bad[0]`: words that differ; `bad[1]`: the lowest index that differed
// (left at its initial all-ones when none did).
extern "C" __global__ void np_check(const uint32_t* words, uint64_t n, uint32_t pattern,
                                    int by_address, unsigned long long* bad) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0, first = ~0ull;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const uint32_t want = by_address ? pattern ^ static_cast<uint32_t>(i) : pattern;
    if (words[i] != want) {
      ++mine;
      if (i < first) first = i;
    }
  }
  if (mine) {
    atomicAdd(&bad[0], mine);
    atomicMin(&bad[1], first);
  }
}

// STREAM's triad, a = b + s * c: two reads and one write per element, the
// figure HBM bandwidth is quoted with.
extern "C" __global__ void np_triad(double* a, const double* b, const double* c, double s,
                                    uint64_t n) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    a[i] = b[i] + s * c[i];
  }
}
