// The TCP transfer engine end to end on loopback (client and server in this
// process), and the size/operation parsing of the CLI.
#include "probes/transfer/transfer_runner.h"

#include <fstream>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "platform/socket.h"

namespace nodeprobe::transfer {
namespace {

class LoopbackServer {
 public:
  LoopbackServer() {
    auto s = TransferServer::Start("127.0.0.1", 0, Timeouts{absl::Seconds(3), absl::Seconds(2)});
    EXPECT_TRUE(s.ok()) << s.status();
    server_ = *std::move(s);
    thread_ = std::thread([this] { server_->Serve(); });
  }
  ~LoopbackServer() {
    server_->Stop();
    thread_.join();
  }
  uint16_t port() const { return server_->port(); }
  TransferServer* server() { return server_.get(); }

 private:
  std::unique_ptr<TransferServer> server_;
  std::thread thread_;
};

TransferPlan Plan(uint16_t port, v1::TransferOp op) {
  TransferPlan p;
  p.peer = {"127.0.0.1", port};
  p.request.set_transport(v1::TCP);
  p.request.set_op(op);
  p.request.set_streams(2);
  p.request.set_duration_s(0.3);
  p.request.set_iterations(200);
  p.request.set_warmup(10);
  p.sizes = {65536};
  p.timeouts = {absl::Seconds(3), absl::Seconds(2)};
  return p;
}

TEST(TcpTransferTest, StreamBwOnLoopbackMeasuresTheReceiver) {
  LoopbackServer server;
  v1::ProbeResult r = RunTransfer(Plan(server.port(), v1::STREAM_BW));
  ASSERT_EQ(r.findings_size(), 0) << r.DebugString();
  ASSERT_EQ(r.transfer().results_size(), 1);
  const v1::TransferResult& row = r.transfer().results(0);
  EXPECT_FALSE(row.partial());
  EXPECT_GT(row.bytes(), 0u);
  EXPECT_GT(row.bw_avg_gbps(), 0.1);  // loopback moves far more than this
  EXPECT_GE(row.bw_peak_gbps(), row.bw_avg_gbps());
  EXPECT_NEAR(row.seconds(), 0.3, 0.2);
}

TEST(TcpTransferTest, BidirectionalStreamBwCountsBothWays) {
  LoopbackServer server;
  TransferPlan p = Plan(server.port(), v1::STREAM_BW);
  p.request.set_bidirectional(true);
  v1::ProbeResult r = RunTransfer(p);
  ASSERT_EQ(r.findings_size(), 0) << r.DebugString();
  const v1::TransferResult& row = r.transfer().results(0);
  EXPECT_GT(row.bw_avg_gbps(), 0.1);
  // That both directions are counted is checked on shaped links in
  // tests/lab (TransferLabTest.BidirectionalSumsBothShapedDirections).
  // Only stream_bw has a reverse direction.
  p.request.set_op(v1::RR_LAT);
  EXPECT_EQ(RunTransfer(p).findings(0).code(), "TRANSFER_REFUSED");
}

TEST(TcpTransferTest, RrLatCountsIterationsWithoutWarmup) {
  LoopbackServer server;
  TransferPlan p = Plan(server.port(), v1::RR_LAT);
  p.sizes = {2, 4096};
  v1::ProbeResult r = RunTransfer(p);
  ASSERT_EQ(r.findings_size(), 0) << r.DebugString();
  ASSERT_EQ(r.transfer().results_size(), 2);
  const v1::LatencyStats& l = r.transfer().results(0).latency();
  EXPECT_EQ(r.transfer().results(0).iterations(), 200u);
  EXPECT_EQ(l.samples(), 198u);  // the 2 largest dropped
  EXPECT_GT(l.min_us(), 0);
  EXPECT_LE(l.min_us(), l.median_us());
  EXPECT_LE(l.median_us(), l.p99_us());
  EXPECT_LE(l.p99_us(), l.max_us());
}

TEST(TcpTransferTest, NoServerIsConnectFailedNamingThePeer) {
  uint16_t port;
  {
    LoopbackServer server;  // a port that was free a moment ago
    port = server.port();
  }
  v1::ProbeResult r = RunTransfer(Plan(port, v1::STREAM_BW));
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "TRANSFER_CONNECT_FAILED");
  EXPECT_EQ(r.findings(0).severity(), v1::ERROR);
  EXPECT_NE(r.findings(0).message().find("127.0.0.1"), std::string::npos);
}

TEST(TcpTransferTest, UnsupportedRequestIsRefusedByTheServer) {
  LoopbackServer server;
  TransferPlan p = Plan(server.port(), v1::WRITE_BW);  // RDMA op over TCP
  v1::ProbeResult r = RunTransfer(p);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "TRANSFER_REFUSED");
}

TEST(TcpTransferTest, ServerSurvivesGarbageOnItsPort) {
  LoopbackServer server;
  {
    auto c = platform::Connect({"127.0.0.1", server.port()}, absl::Now() + absl::Seconds(2));
    ASSERT_TRUE(c.ok());
    const char junk[] = "\xff\xff\xff\xffGET / HTTP/1.0\r\n\r\n";
    ASSERT_TRUE(platform::SendAll(c->get(), junk, sizeof(junk), absl::Now() + absl::Seconds(1)).ok());
  }
  v1::ProbeResult r = RunTransfer(Plan(server.port(), v1::RR_LAT));
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
}

long RssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// A stranger asking for the maximum of everything is refused before the
// server allocates: 128 streams x 64 MiB both ways would be 16 GiB.
TEST(TcpTransferTest, AServerLendsStrangersOnlyWhatItsLimitsAllow) {
  LoopbackServer server;
  const long before = RssKiB();
  TransferPlan plan = Plan(server.port(), v1::STREAM_BW);
  plan.request.set_streams(128);
  plan.request.set_bidirectional(true);
  plan.sizes = {64u << 20};
  v1::ProbeResult r = RunTransfer(plan);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "TRANSFER_REFUSED");
  EXPECT_NE(r.findings(0).message().find("16384 MiB of buffers, above the server's limit of 256 "
                                         "MiB per session"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_LT(RssKiB() - before, 64 * 1024) << "the server allocated for a refused request";
  v1::TransferRequest row = plan.request;
  row.set_size(64u << 20);
  EXPECT_EQ(SessionBytes(row), 128ull * (64u << 20) * 2);
}

TEST(TcpTransferTest, SessionsBeyondTheLimitAreRefused) {
  auto s = TransferServer::Start("127.0.0.1", 0, Timeouts{absl::Seconds(3), absl::Seconds(2)},
                                 ServerLimits{256ull << 20, 1});
  ASSERT_TRUE(s.ok());
  std::thread serve([&] { (*s)->Serve(); });
  // One long session holds the only slot; a second is refused.
  TransferPlan hold = Plan((*s)->port(), v1::STREAM_BW);
  hold.request.set_duration_s(1.5);
  hold.sizes = {65536};
  v1::ProbeResult held;
  std::thread first([&] { held = RunTransfer(hold); });
  absl::SleepFor(absl::Milliseconds(300));
  TransferPlan second = Plan((*s)->port(), v1::STREAM_BW);
  second.sizes = {65536};
  v1::ProbeResult r = RunTransfer(second);
  first.join();
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "TRANSFER_REFUSED");
  EXPECT_NE(r.findings(0).message().find("already runs 1 sessions"), std::string::npos);
  EXPECT_EQ(held.findings_size(), 0) << held.DebugString();
  (*s)->Stop();
  serve.join();
}

TEST(TcpTransferTest, ConnectionsBeyondTheLimitAreClosedAtOnce) {
  auto s = TransferServer::Start("127.0.0.1", 0, Timeouts{absl::Seconds(3), absl::Seconds(2)},
                                 ServerLimits{256ull << 20, 4, 2});
  ASSERT_TRUE(s.ok());
  std::thread serve([&] { (*s)->Serve(); });
  const platform::HostPort server{"127.0.0.1", (*s)->port()};
  // Two silent strangers hold both connection slots until the setup timeout.
  std::vector<platform::Fd> silent;
  for (int i = 0; i < 2; ++i) {
    auto c = platform::Connect(server, absl::Now() + absl::Seconds(2));
    ASSERT_TRUE(c.ok()) << c.status();
    silent.push_back(*std::move(c));
  }
  absl::SleepFor(absl::Milliseconds(200));
  // A third is closed by the server long before that timeout.
  auto third = platform::Connect(server, absl::Now() + absl::Seconds(2));
  ASSERT_TRUE(third.ok()) << third.status();
  char byte;
  const absl::Time start = absl::Now();
  auto got = platform::RecvSome(third->get(), &byte, 1, absl::Now() + absl::Seconds(2));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, 0u) << "the server kept a connection past its limit";
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  // Once the strangers are gone, a real client is served again.
  silent.clear();
  absl::SleepFor(absl::Milliseconds(200));
  TransferPlan plan = Plan((*s)->port(), v1::STREAM_BW);
  plan.request.set_duration_s(0.2);
  plan.sizes = {65536};
  v1::ProbeResult r = RunTransfer(plan);
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  (*s)->Stop();
  serve.join();
}

TEST(ParseSizeListTest, AcceptsUnitsAndRejectsGarbage) {
  EXPECT_EQ(*ParseSizeList("2,64K,1M"), (std::vector<uint64_t>{2, 65536, 1048576}));
  EXPECT_FALSE(ParseSizeList("0").ok());
  EXPECT_FALSE(ParseSizeList("big").ok());
  EXPECT_FALSE(ParseSizeList("").ok());
}

TEST(AllSizesTest, SweepsTwoBytesToEightMiB) {
  std::vector<uint64_t> s = AllSizes();
  EXPECT_EQ(s.front(), 2u);
  EXPECT_EQ(s.back(), 8u << 20);
  EXPECT_EQ(s.size(), 23u);
}

TEST(DefaultSizeTest, PerftestsForRdmaAndPerStreamCountForTcp) {
  EXPECT_EQ(DefaultSize(v1::RDMA, v1::WRITE_BW), 65536u);
  EXPECT_EQ(DefaultSize(v1::RDMA, v1::WRITE_LAT), 2u);
  EXPECT_EQ(DefaultSize(v1::TCP, v1::RR_LAT, 4), 2u);
  EXPECT_EQ(DefaultSize(v1::TCP, v1::STREAM_BW), 1u << 20);
  EXPECT_EQ(DefaultSize(v1::TCP, v1::STREAM_BW, 4), 512u << 10);
}

TEST(OpNameTest, RoundTrips) {
  EXPECT_EQ(OpFromName("write_bw"), v1::WRITE_BW);
  EXPECT_EQ(OpName(v1::RR_LAT), "rr_lat");
  EXPECT_EQ(OpFromName("bogus"), v1::OP_UNSPECIFIED);
}

}  // namespace
}  // namespace nodeprobe::transfer
