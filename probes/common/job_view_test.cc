#include "probes/common/job_view.h"

#include <limits>

#include "gtest/gtest.h"

namespace nodeprobe::job {
namespace {

TEST(JobViewTest, RanksComeFromTheFlagThenSlurmThenCudaThenWhatIsVisible) {
  Env env = {
      {"SLURM_STEP_GPUS", "0,1,2,3"}, {"SLURM_GPUS_ON_NODE", "8"}, {"CUDA_VISIBLE_DEVICES", "0"}};
  EXPECT_EQ(RanksOf(env, 2, 8).count, 2);
  EXPECT_EQ(RanksOf(env, 0, 8).source, "SLURM_STEP_GPUS=0,1,2,3");
  EXPECT_EQ(RanksOf(env, 0, 8).count, 4);
  env.erase("SLURM_STEP_GPUS");
  EXPECT_EQ(RanksOf(env, 0, 0).count, 8);
  env.erase("SLURM_GPUS_ON_NODE");
  EXPECT_EQ(RanksOf(env, 0, 8).count, 1);
  EXPECT_EQ(RanksOf({{"NVIDIA_VISIBLE_DEVICES", "all"}}, 0, 4).count, 4);
  EXPECT_EQ(RanksOf({}, 0, 3).source, "3 visible GPUs (/dev/nvidiaN)");
}

TEST(JobViewTest, GpuListsCountAsCudaReadsThem) {
  EXPECT_EQ(CountGpuList("0,1,3"), 3);
  EXPECT_EQ(CountGpuList("GPU-8f6e2f1c-aaaa"), 1);
  EXPECT_EQ(CountGpuList("0,1,-1,2"), 2);  // CUDA stops at an invalid ordinal
  EXPECT_EQ(CountGpuList(""), 0);
  EXPECT_EQ(CountGpuList("NoDevFiles"), 0);
  EXPECT_EQ(CountGpuList("void"), 0);
  EXPECT_EQ(CountGpuList("all"), -1);
}

TEST(JobViewTest, BuffersFollowNcclBuffsizeAndChannels) {
  EXPECT_EQ(ConnectionBytes({}), 5967872u);  // the captured segment
  EXPECT_EQ(ConnectionBytes({{"NCCL_BUFFSIZE", "8388608"}}), 2u * 5967872u);
  EXPECT_EQ(Channels({}), 2);
  EXPECT_EQ(Channels({{"NCCL_MIN_NCHANNELS", "16"}}), 16);
  EXPECT_EQ(Channels({{"NCCL_MIN_NCHANNELS", "x"}}), 2);
  // An NCCL_BUFFSIZE whose product overflows saturates, never wraps small.
  const uint64_t huge = ConnectionBytes({{"NCCL_BUFFSIZE", "18446744073709551615"}});
  EXPECT_EQ(huge, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Product({8, 64, 2, huge}), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Product({1ull << 40, 1ull << 30}), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Product({8, 2, 2, 5967872}), 8u * 2 * 2 * 5967872);
}

// A forced IB transport expects RDMA even with NCCL_IB_DISABLE=1 (nccl-env
// judges the contradiction): NCCL fails at init without a device.
TEST(JobViewTest, NcclNetIbExpectsRdma) {
  EXPECT_TRUE(RdmaUseOf({{"NCCL_NET", "IB"}}, 0, false).uses);
  EXPECT_TRUE(RdmaUseOf({{"NCCL_NET", "ib"}, {"NCCL_IB_DISABLE", "1"}}, 0, false).uses);
  EXPECT_NE(RdmaUseOf({{"NCCL_NET", "IB"}}, 0, false).why.find("forces NCCL's IB transport"),
            std::string::npos);
  EXPECT_FALSE(RdmaUseOf({{"NCCL_IB_DISABLE", "1"}}, 3, false).uses);
  EXPECT_FALSE(RdmaUseOf({{"NCCL_NET", "Socket"}}, 3, false).uses);
}

}  // namespace
}  // namespace nodeprobe::job
