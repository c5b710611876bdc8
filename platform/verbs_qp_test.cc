// The QP attribute sets, checked against what ib_write_bw sets, and the
// error path without a device. The data path itself runs in hwtests/.
#include "platform/verbs_qp.h"

#include "absl/time/clock.h"
#include "platform/rdma_cm.h"
#include "platform/verbs_port.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

TEST(VerbsQpTest, PathMtuIsTheSmallerActiveMtu) {
  EXPECT_EQ(PathMtu(4096, 1024), IBV_MTU_1024);
  EXPECT_EQ(PathMtu(2048, 4096), IBV_MTU_2048);
  EXPECT_EQ(MtuFromBytes(4096), IBV_MTU_4096);
}

TEST(VerbsQpTest, RtrOnRoceAddressesByGidWithRoutableHopLimit) {
  RemoteQp remote;
  remote.qpn = 0x1234;
  remote.psn = 77;
  remote.gid[10] = 0xff;
  remote.gid[11] = 0xff;
  remote.gid[15] = 5;
  QpAttrs a = RtrAttrs(remote, IBV_MTU_4096, 1, /*use_grh=*/true, 3);
  EXPECT_EQ(a.attr.qp_state, IBV_QPS_RTR);
  EXPECT_EQ(a.attr.dest_qp_num, 0x1234u);
  EXPECT_EQ(a.attr.rq_psn, 77u);
  EXPECT_EQ(a.attr.path_mtu, IBV_MTU_4096);
  EXPECT_EQ(a.attr.ah_attr.is_global, 1);
  EXPECT_EQ(a.attr.ah_attr.grh.sgid_index, 3);
  EXPECT_GT(a.attr.ah_attr.grh.hop_limit, 1);
  EXPECT_EQ(a.attr.ah_attr.grh.dgid.raw[15], 5);
  EXPECT_TRUE(a.mask & IBV_QP_AV);
}

TEST(VerbsQpTest, RtrOnInfiniBandAddressesByLid) {
  RemoteQp remote;
  remote.lid = 0x3a4;
  QpAttrs a = RtrAttrs(remote, IBV_MTU_2048, 1, /*use_grh=*/false, 0);
  EXPECT_EQ(a.attr.ah_attr.is_global, 0);
  EXPECT_EQ(a.attr.ah_attr.dlid, 0x3a4);
}

TEST(VerbsQpTest, RtsSetsRetriesAndPsn) {
  QpAttrs a = RtsAttrs(99);
  EXPECT_EQ(a.attr.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(a.attr.sq_psn, 99u);
  EXPECT_EQ(a.attr.retry_cnt, 7);
  EXPECT_TRUE(a.mask & IBV_QP_SQ_PSN);
}

TEST(VerbsQpTest, OpenWithoutDeviceIsFailedPrecondition) {
  if (access("/sys/class/infiniband", F_OK) == 0) {
    GTEST_SKIP() << "this machine has RDMA devices";
  }
  auto qp = VerbsQp::Open("mlx5_0", 1, 1 << 20, 128);
  EXPECT_EQ(qp.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(qp.status().message().find("mlx5_0"), std::string::npos);
}

TEST(GpuMemoryTest, WithoutDriverIsFailedPreconditionNotCrash) {
  if (access("/proc/driver/nvidia/version", F_OK) == 0) {
    GTEST_SKIP() << "this machine has an NVIDIA driver; hwtests/ cover GPU memory";
  }
  auto mem = GpuMemory::Allocate(0, 1 << 20);
  EXPECT_EQ(mem.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(mem.status().message().find("NVIDIA"), std::string::npos);
}

TEST(RdmaCmTest, PrivateDataRoundTripsAndShortDataIsRejected) {
  std::string wire = EncodeCmPrivateData(0x1122334455667788ull, 0xaabbccdd);
  ASSERT_EQ(wire.size(), 16u);
  auto r = DecodeCmPrivateData(wire.data(), wire.size());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->addr, 0x1122334455667788ull);
  EXPECT_EQ(r->rkey, 0xaabbccddu);
  EXPECT_FALSE(DecodeCmPrivateData(wire.data(), 4).ok());
  EXPECT_FALSE(DecodeCmPrivateData(nullptr, 0).ok());
}

TEST(RdmaCmTest, ConnectWithoutDeviceFailsWithinDeadline) {
  if (access("/sys/class/infiniband", F_OK) == 0) {
    GTEST_SKIP() << "this machine has RDMA devices";
  }
  absl::Time start = absl::Now();
  auto c = CmConnect("127.0.0.1", 18519, 4096, 16, absl::Now() + absl::Seconds(2));
  EXPECT_FALSE(c.ok());
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

}  // namespace
// With ibv_reg_dmabuf_mr unavailable (an rdma-core older than 34, forced
// here), the lookup says so instead of failing to load.
TEST(VerbsPortTest, DmabufRegistrationMissingIsAbsentNotFatal) {
  setenv("NODEPROBE_FORCE_NO_DMABUF", "1", 1);
  EXPECT_EQ(VerbsRegDmabufMr(), nullptr);
  EXPECT_FALSE(VerbsHasDmabufMr());
}

}  // namespace nodeprobe::platform
