// The references for gpu-diag's own figures on GPU 0, written the plainest
// way: HBM bandwidth from a copy kernel (b = a over 1 GiB arrays; a read and
// a write per element) and GEMM throughput from cuBLAS called directly
// (cublasGemmEx, bf16 in, fp32 accumulate, n = 8192), each timed with CUDA
// events over 20 runs after a warm-up. Prints "copy_gbps gemm_tflops".
//   nvcc -O2 gpu_diag_reference.cu -lcublas -o gpu_diag_reference
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>

__global__ void Copy(const double* a, double* b, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

template <typename F>
static float TimeIt(F body, int n) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  body();  // warm-up
  cudaEventRecord(a);
  for (int i = 0; i < n; ++i) body();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return ms;
}

int main() {
  const size_t bytes = size_t{1} << 30, n = bytes / 8;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  double *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 1;
  cudaMemset(a, 0, bytes);
  const float copy_ms = TimeIt([&] { Copy<<<sms * 8, 256>>>(a, b, n); }, 20);
  cudaFree(a);
  cudaFree(b);
  const int m = 8192;
  void *x = nullptr, *y = nullptr, *z = nullptr;
  const size_t mb = size_t{m} * m * 2;
  if (cudaMalloc(&x, mb) != cudaSuccess || cudaMalloc(&y, mb) != cudaSuccess ||
      cudaMalloc(&z, mb) != cudaSuccess) {
    return 1;
  }
  cudaMemset(x, 0x3c, mb);
  cudaMemset(y, 0x3c, mb);
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  const float one = 1, zero = 0;
  const float gemm_ms = TimeIt(
      [&] {
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, x, CUDA_R_16BF, m, y, CUDA_R_16BF,
                     m, &zero, z, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      },
      20);
  printf("%.1f %.1f\n", 2.0 * bytes * 20 / (copy_ms * 1e-3) / 1e9,
         2.0 * m * static_cast<double>(m) * m * 20 / (gemm_ms * 1e-3) / 1e12);
  return 0;
}
