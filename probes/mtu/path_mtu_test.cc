#include "probes/mtu/path_mtu.h"

#include <set>
#include <thread>

#include "gtest/gtest.h"
#include "probes/mtu/mtu_probe.h"

namespace nodeprobe::mtu {
namespace {

TEST(DatagramTest, EncodesToTheRequestedPacketSizeAndBack) {
  v1::MtuDatagram d;
  d.set_type(v1::MtuDatagram::PROBE);
  d.set_seq(7);
  d.set_size(1500);
  std::string wire = EncodeDatagram(d, 1500);
  EXPECT_EQ(wire.size(), 1500u - 28u);
  auto back = DecodeDatagram(wire);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->seq(), 7u);
  EXPECT_FALSE(DecodeDatagram("GET / HTTP/1.0\r\n").ok());
  EXPECT_FALSE(DecodeDatagram("").ok());
}

TEST(PathMtuTest, LoopbackCarriesTheLargestIpv4Packet) {
  auto responder = MtuResponder::Start("127.0.0.1", 0);
  ASSERT_TRUE(responder.ok()) << responder.status();
  std::thread t([&] { (*responder)->Serve(); });
  PathProbeOptions o;
  o.peer_ip = "127.0.0.1";
  o.port = (*responder)->port();
  o.deadline = absl::Now() + absl::Seconds(20);
  auto report = MeasurePathMtu(o);
  (*responder)->Stop();
  t.join();
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->egress_interface(), "lo");
  ASSERT_EQ(report->paths_size(), 2);
  EXPECT_EQ(report->paths(0).path_mtu(), 65535u);
  EXPECT_EQ(report->paths(1).path_mtu(), 65535u);
  EXPECT_GT(report->peer_iface_mtu(), 0u);
}

TEST(PathMtuTest, NoResponderIsUnavailableWithinDeadline) {
  PathProbeOptions o;
  o.peer_ip = "127.0.0.1";
  o.port = 9;  // discard: nothing answers
  o.per_try = absl::Milliseconds(100);
  absl::Time start = absl::Now();
  auto report = MeasurePathMtu(o);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

// A path whose datagrams above `limit` vanish without an ICMP error, and
// that loses the first datagram of each size in `lost_once` (a busy host, a
// lossy hop): only the patient second look decides.
struct LossyPath {
  int limit = 65535;
  std::set<int> lost_once;
  int confirmations = 0;
  SizeTry Probe(int size) {
    SizeTry t;
    t.arrived = size <= limit && lost_once.erase(size) == 0;
    t.silent = !t.arrived;
    return t;
  }
  SizeTry Confirm(int size) {
    ++confirmations;
    SizeTry t;
    t.arrived = size <= limit;
    t.silent = !t.arrived;
    return t;
  }
  v1::PathMtu Search(int hi) {
    return SearchPathMtu(
        hi, [this](int s) { return Probe(s); }, [this](int s) { return Confirm(s); });
  }
};

TEST(SearchPathMtuTest, OneLostDatagramIsNotABlackhole) {
  LossyPath top{9000, {9000}};  // the first look at the interface's MTU lost
  v1::PathMtu p = top.Search(9000);
  EXPECT_EQ(p.path_mtu(), 9000u);
  EXPECT_FALSE(p.blackhole());
  EXPECT_EQ(top.confirmations, 1);
  LossyPath floor{9000, {576, 9000}};  // and the smallest: still not unreachable
  EXPECT_EQ(floor.Search(9000).path_mtu(), 9000u);
}

TEST(SearchPathMtuTest, ARealSilentLimitIsFoundPastALostDatagramBelowIt) {
  // Nothing above 8000 arrives; one datagram of 4788 (the search's first
  // midpoint) is lost on the way.
  LossyPath path{8000, {4788}};
  v1::PathMtu p = path.Search(9000);
  EXPECT_EQ(p.path_mtu(), 8000u);
  EXPECT_TRUE(p.blackhole());
  EXPECT_EQ(path.confirmations, 3);  // 9000, 4788 (arrived), 8001 (lost again)
  LossyPath dead{0, {}};
  EXPECT_EQ(dead.Search(1500).path_mtu(), 0u);  // nothing gets through, even patiently
}

TEST(JudgePathTest, FindingsForEachKindOfPath) {
  v1::MtuReport rep;
  rep.set_peer("10.0.0.2:18516");
  rep.set_peer_iface_mtu(1500);
  v1::PathMtu* fwd = rep.add_paths();
  fwd->set_direction("here -> peer");
  fwd->set_iface_mtu(9000);
  fwd->set_path_mtu(1500);
  fwd->set_limiting_hop("10.0.1.1");
  fwd->set_icmp_mtu(1500);
  rep.set_local_rdma_active_mtu(4096);
  rep.set_peer_rdma_active_mtu(1024);
  v1::ProbeResult r;
  JudgePath(rep, &r);
  std::vector<std::string> codes;
  for (const auto& f : r.findings()) codes.push_back(f.code());
  EXPECT_EQ(codes, (std::vector<std::string>{"MTU_PATH_SMALLER_THAN_IFACE", "MTU_PEERS_DIFFER",
                                             "RDMA_MTU_MISMATCH"}));
  EXPECT_NE(r.findings(0).message().find("10.0.1.1"), std::string::npos);
  fwd->set_blackhole(true);
  v1::ProbeResult r2;
  JudgePath(rep, &r2);
  EXPECT_EQ(r2.findings(0).code(), "MTU_PATH_BLACKHOLE");
}

TEST(JudgePathTest, LoopbackMtusThatOnlyDifferPastIpsLimitAreEqual) {
  v1::MtuReport rep;
  rep.set_peer("127.0.0.1");
  rep.set_peer_iface_mtu(65536);  // lo
  v1::PathMtu* p = rep.add_paths();
  p->set_direction("here -> peer");
  p->set_iface_mtu(65535);  // capped by the search
  p->set_path_mtu(65535);
  v1::ProbeResult r;
  JudgePath(rep, &r);
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
}

}  // namespace
}  // namespace nodeprobe::mtu
