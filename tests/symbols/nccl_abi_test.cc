// Our hand-written CUDA runtime and NCCL declarations (platform/nccl_api.h)
// against the real headers, where /usr/local/cuda has them: the numbers
// must be the same, and the function types must have the same shape
// (opaque handles are void* on our side).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <type_traits>

#include "gtest/gtest.h"
#include "platform/nccl_api.h"

namespace nodeprobe::platform {
namespace {

static_assert(sizeof(NcclUniqueId) == sizeof(ncclUniqueId), "ncclUniqueId is 128 bytes");
static_assert(kNcclUniqueIdBytes == NCCL_UNIQUE_ID_BYTES, "");
static_assert(kNcclFloat32 == ncclFloat32, "");
static_assert(kNcclSum == ncclSum, "");
static_assert(kNcclSuccess == ncclSuccess, "");
static_assert(kNcclInProgress == ncclInProgress, "");
static_assert(kCudaSuccess == cudaSuccess, "");
static_assert(kCudaErrorNotReady == cudaErrorNotReady, "");
static_assert(kCudaMemcpyHostToDevice == cudaMemcpyHostToDevice, "");
static_assert(kCudaMemcpyDeviceToHost == cudaMemcpyDeviceToHost, "");
static_assert(sizeof(ncclComm_t) == sizeof(NcclComm) && sizeof(cudaStream_t) == sizeof(CudaStream) &&
                  sizeof(cudaEvent_t) == sizeof(CudaEvent),
              "handles are pointers");
static_assert(sizeof(ncclResult_t) == sizeof(int) && sizeof(cudaError_t) == sizeof(int) &&
                  sizeof(ncclDataType_t) == sizeof(int) && sizeof(ncclRedOp_t) == sizeof(int),
              "enums are ints");

TEST(NcclAbiTest, TheHeadersOfThisBuildAgreeWithOurDeclarations) {
  // Everything is checked at compile time; this records which headers.
  EXPECT_GE(NCCL_VERSION_CODE, 21200) << "NCCL 2.12+ is what nccl_api.h declares";
}

}  // namespace
}  // namespace nodeprobe::platform
