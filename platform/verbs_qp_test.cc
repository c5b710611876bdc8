// The QP attribute sets, checked against what ib_write_bw sets, and the
// error path without a device. The data path itself runs in hwtests/.
#include "platform/verbs_qp.h"

#include "absl/time/clock.h"
#include "platform/gpu_memory.h"
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
  QpAttrs a = RtrAttrs(remote, IBV_MTU_4096, 1, /*use_grh=*/true, 3, /*traffic_class=*/106,
                       ReadDepths{8, 16});
  EXPECT_EQ(a.attr.qp_state, IBV_QPS_RTR);
  EXPECT_EQ(a.attr.dest_qp_num, 0x1234u);
  EXPECT_EQ(a.attr.rq_psn, 77u);
  EXPECT_EQ(a.attr.path_mtu, IBV_MTU_4096);
  EXPECT_EQ(a.attr.ah_attr.is_global, 1);
  EXPECT_EQ(a.attr.ah_attr.grh.sgid_index, 3);
  EXPECT_GT(a.attr.ah_attr.grh.hop_limit, 1);
  EXPECT_EQ(a.attr.ah_attr.grh.dgid.raw[15], 5);
  EXPECT_EQ(a.attr.ah_attr.grh.traffic_class, 106);  // DSCP 26, as NCCL_IB_TC=106
  EXPECT_TRUE(a.mask & IBV_QP_AV);
  EXPECT_EQ(a.attr.max_dest_rd_atomic, 16);  // what this end accepts
  EXPECT_TRUE(a.mask & IBV_QP_MAX_DEST_RD_ATOMIC);
}

// NCCL_IB_SL rides in the address vector (the VL on InfiniBand).
TEST(VerbsQpTest, TheServiceLevelIsInTheAddressVector) {
  RemoteQp remote{};
  remote.lid = 7;
  EXPECT_EQ(RtrAttrs(remote, IBV_MTU_4096, 1, false, 0, 0, ReadDepths{1, 1}, 3).attr.ah_attr.sl, 3);
  EXPECT_EQ(RtrAttrs(remote, IBV_MTU_4096, 1, false, 0, 0, ReadDepths{1, 1}).attr.ah_attr.sl, 0);
}

TEST(VerbsQpTest, RtrOnInfiniBandAddressesByLid) {
  RemoteQp remote;
  remote.lid = 0x3a4;
  QpAttrs a = RtrAttrs(remote, IBV_MTU_2048, 1, /*use_grh=*/false, 0, 0, ReadDepths{1, 1});
  EXPECT_EQ(a.attr.ah_attr.is_global, 0);
  EXPECT_EQ(a.attr.ah_attr.dlid, 0x3a4);
}

TEST(VerbsQpTest, RtsSetsRetriesAndPsn) {
  QpAttrs a = RtsAttrs(99, ReadDepths{8, 16});
  EXPECT_EQ(a.attr.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(a.attr.sq_psn, 99u);
  EXPECT_EQ(a.attr.retry_cnt, 7);
  EXPECT_EQ(a.attr.max_rd_atomic, 8);  // what this end issues
  EXPECT_TRUE(a.mask & IBV_QP_SQ_PSN);
}

// perftest's out_reads: accept the device's max_qp_rd_atom, issue no more
// than the peer accepts nor than the device may initiate. A ConnectX
// (16/16) against a device that takes 4: 4 out, 16 in; never a fixed 16
// that a smaller device would refuse at RTR.
TEST(VerbsQpTest, ReadDepthsComeFromBothDevices) {
  ReadDepths d = NegotiateReadDepths(16, 16, 4);
  EXPECT_EQ(d.initiator, 4);
  EXPECT_EQ(d.responder, 16);
  d = NegotiateReadDepths(2, 8, 16);
  EXPECT_EQ(d.initiator, 2);
  EXPECT_EQ(d.responder, 8);
  d = NegotiateReadDepths(1000, 1000, 1000);  // 8-bit fields
  EXPECT_EQ(d.initiator, 255);
  EXPECT_EQ(d.responder, 255);
  d = NegotiateReadDepths(-1, -1, 0);  // a device that reports nothing
  EXPECT_EQ(d.initiator, 0);
  EXPECT_EQ(d.responder, 0);
}

TEST(VerbsQpTest, OpenWithoutDeviceIsFailedPrecondition) {
  if (access("/sys/class/infiniband", F_OK) == 0) {
    GTEST_SKIP() << "this machine has RDMA devices";
  }
  auto qp = VerbsQp::Open("mlx5_0", 1, 1 << 20, QpOptions{});
  EXPECT_EQ(qp.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(qp.status().message().find("mlx5_0"), std::string::npos);
}

// cuMemGetHandleForAddressRange wants a page-aligned base and size: for
// every size of --all-sizes (2 B .. 8 MiB) and odd ones, at aligned and
// unaligned pointers, the range starts on a page, ends on one, and covers
// the buffer exactly from `offset`.
TEST(VerbsQpTest, ReceiveQueueIsFourTimesTheSendDepthWithinBounds) {
  EXPECT_EQ(RecvDepth(1), 512u);     // perftest's default receive depth
  EXPECT_EQ(RecvDepth(128), 512u);   // perftest: 512 receives vs 128 sends
  EXPECT_EQ(RecvDepth(1024), 4096u);
  EXPECT_EQ(RecvDepth(8192), 16384u);  // capped below any max_qp_wr
  for (uint32_t d = 1; d <= 8192; d *= 2) EXPECT_GE(RecvDepth(d), std::min(4 * d, 16384u));
}

TEST(GpuMemoryTest, DmaBufRangesArePageAlignedAndCoverTheBuffer) {
  std::vector<size_t> sizes;
  for (size_t s = 2; s <= (8u << 20); s *= 2) sizes.push_back(s);
  for (size_t s : {1, 3, 4095, 4097, 65537, 1000003}) sizes.push_back(s);
  for (size_t page : {4096, 65536}) {
    for (uint64_t ptr : {0x7f0000000000ull, 0x7f0000000010ull, 0x7f0000000fffull}) {
      for (size_t size : sizes) {
        DmaBufRange r = AlignForDmaBuf(ptr, size, page);
        EXPECT_EQ(r.base % page, 0u) << size;
        EXPECT_EQ(r.size % page, 0u) << size;
        EXPECT_EQ(r.base + r.offset, ptr);
        EXPECT_LT(r.offset, page);
        EXPECT_GE(r.base + r.size, ptr + size) << "range ends before the buffer, size " << size;
        EXPECT_LT(r.size, RoundUpToPage(size, page) + page + 1);
      }
    }
    EXPECT_EQ(RoundUpToPage(1, page), page);
    EXPECT_EQ(RoundUpToPage(page, page), page);
    EXPECT_EQ(RoundUpToPage(page + 1, page), 2 * page);
  }
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
  auto c = CmConnect("127.0.0.1", 18519, 4096, QpOptions{}, absl::Now() + absl::Seconds(2));
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

// The same for ibv_reg_mr_iova2 (relaxed ordering): absent, not fatal;
// present in Debian 12's rdma-core 44, found by its version.
TEST(VerbsPortTest, RelaxedOrderingRegistrationIsFoundByVersion) {
  EXPECT_NE(VerbsRegMrIova2(), nullptr) << "rdma-core >= 22 exports ibv_reg_mr_iova2@IBVERBS_1.8";
}

}  // namespace nodeprobe::platform
