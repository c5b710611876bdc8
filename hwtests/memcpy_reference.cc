// The reference for gpu-pcie-bw: a plain cudaMemcpyAsync loop from pinned
// memory, timed with CUDA events, as CUDA's bandwidthTest does. Prints
// "h2d_gbps d2h_gbps" for GPU 0 (GB/s = 10^9 B/s), 64 MiB x 20 copies.
//   g++ -O2 -I/usr/local/cuda/include memcpy_reference.cc -L/usr/local/cuda/lib64 -lcudart
#include <cuda_runtime_api.h>

#include <cstdio>

static double Run(bool h2d, void* host, void* dev, size_t bytes, int n, cudaStream_t s) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  auto copy = [&] {
    return h2d ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)
               : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s);
  };
  copy();  // warm-up
  cudaEventRecord(a, s);
  for (int i = 0; i < n; ++i) copy();
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return static_cast<double>(bytes) * n / (ms * 1e-3) / 1e9;
}

int main() {
  const size_t bytes = 64u << 20;
  const int n = 20;
  void* host = nullptr;
  void* dev = nullptr;
  cudaStream_t s;
  if (cudaSetDevice(0) != cudaSuccess || cudaMallocHost(&host, bytes) != cudaSuccess ||
      cudaMalloc(&dev, bytes) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess) {
    fprintf(stderr, "memcpy_reference: no usable GPU\n");
    return 2;
  }
  printf("%.2f %.2f\n", Run(true, host, dev, bytes, n, s), Run(false, host, dev, bytes, n, s));
  return 0;
}
