// The TCP transfer engine between two network namespaces, with the real
// `nodeprobe` binary on both ends: numbers, a shaped link, and the faults
// (peer killed, link down) that must end in ERROR within the deadline.
#include <signal.h>

#include <thread>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "tests/lab/lab.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::lab {
namespace {

class TransferLabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status available = Lab::Available();
    if (!available.ok()) GTEST_SKIP() << "network-namespace lab: " << available.message();
    lab_ = std::make_unique<Lab>();
    ASSERT_TRUE(lab_->AddHost("a").ok());
    ASSERT_TRUE(lab_->AddHost("b").ok());
    ASSERT_TRUE(lab_->Link("a", "10.77.1.1/24", "b", "10.77.1.2/24").ok());
  }

  // Starts `nodeprobe transfer serve` on b; returns "10.77.1.2:PORT".
  std::string StartServer(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {NODEPROBE_BINARY, "transfer", "serve", "--port", "0",
                                     "--idle-timeout", "2"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto pid = lab_->Spawn("b", argv, "server.log");
    EXPECT_TRUE(pid.ok());
    server_pid_ = pid.ok() ? *pid : -1;
    auto line = lab_->WaitForLog("server.log", "listening on", absl::Seconds(5));
    EXPECT_TRUE(line.ok()) << line.status();
    if (!line.ok()) return "";
    return absl::StrCat("10.77.1.2:", line->substr(line->rfind(':') + 1));
  }

  // Runs the client on a and parses its JSON ProbeResult.
  v1::ProbeResult RunClient(std::vector<std::string> args, int* exit_code,
                            absl::Duration timeout, pid_t* pid_out = nullptr) {
    std::vector<std::string> argv = {NODEPROBE_BINARY, "transfer", "run", "--format", "json"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto pid = lab_->Spawn("a", argv, "client.log");
    EXPECT_TRUE(pid.ok());
    if (pid_out) *pid_out = *pid;
    auto rc = lab_->Wait(*pid, timeout);
    EXPECT_TRUE(rc.ok()) << rc.status();
    *exit_code = rc.ok() ? *rc : -1;
    v1::ProbeResult result;
    std::string out = lab_->ReadLog("client.log");
    auto s = google::protobuf::util::JsonStringToMessage(out, &result);
    EXPECT_TRUE(s.ok()) << out;
    return result;
  }

  // A 20-second stream_bw from a with a 2 s idle timeout, one second in.
  absl::StatusOr<pid_t> StartLongClient(const std::string& peer) {
    std::vector<std::string> argv = {NODEPROBE_BINARY, "transfer", "run", "--format", "json",
                                     "--peer", peer, "--duration", "20", "--idle-timeout", "2"};
    absl::StatusOr<pid_t> pid = lab_->Spawn("a", argv, "client.log");
    // Long enough for a sanitizer build on a loaded 2-core host to connect
    // and move bytes (1 s was not, once), well inside the 20 s run.
    usleep(3000000);
    return pid;
  }

  std::unique_ptr<Lab> lab_;
  pid_t server_pid_ = -1;
};

TEST_F(TransferLabTest, StreamBwAndRrLatBetweenNamespaces) {
  const std::string peer = StartServer();
  int rc = -1;
  v1::ProbeResult bw = RunClient({"--peer", peer, "--duration", "1", "--streams", "2"},
                                 &rc, absl::Seconds(20));
  EXPECT_EQ(rc, 0) << bw.DebugString();
  ASSERT_EQ(bw.transfer().results_size(), 1);
  EXPECT_GT(bw.transfer().results(0).bw_avg_gbps(), 0.1);
  v1::ProbeResult lat = RunClient({"--peer", peer, "--op", "rr_lat", "--iterations", "500"},
                                  &rc, absl::Seconds(20));
  EXPECT_EQ(rc, 0);
  ASSERT_EQ(lat.transfer().results_size(), 1);
  const v1::LatencyStats& l = lat.transfer().results(0).latency();
  EXPECT_GT(l.median_us(), 0);
  EXPECT_LT(l.median_us(), 10000);  // a veth round trip is far below 10 ms
}

TEST_F(TransferLabTest, ShapedLinkIsMeasuredWithinTenPercent) {
  // tbf counts whole frames: with a 1500-byte MTU, TCP payload is
  // 1448/1514 of the shaped rate (~956 Mb/s of 1000).
  ASSERT_TRUE(lab_->Shape("a", Lab::Iface("a", "b"), 1000).ok());
  const std::string peer = StartServer();
  int rc = -1;
  v1::ProbeResult r = RunClient({"--peer", peer, "--duration", "3"}, &rc, absl::Seconds(30));
  ASSERT_EQ(rc, 0) << r.DebugString();
  const double gbps = r.transfer().results(0).bw_avg_gbps();
  EXPECT_GT(gbps, 0.9);
  EXPECT_LT(gbps, 1.1);
  RecordProperty("shaped_gbps", absl::StrCat(gbps));
}

TEST_F(TransferLabTest, BidirectionalSumsBothShapedDirections) {
  // Each direction capped at 500 Mbit/s: one way carries ~0.48 Gb/s of TCP
  // payload, both ways together ~0.96.
  ASSERT_TRUE(lab_->Shape("a", Lab::Iface("a", "b"), 500).ok());
  ASSERT_TRUE(lab_->Shape("b", Lab::Iface("b", "a"), 500).ok());
  const std::string peer = StartServer();
  int rc = -1;
  v1::ProbeResult one = RunClient({"--peer", peer, "--duration", "2"}, &rc, absl::Seconds(30));
  ASSERT_EQ(rc, 0) << one.DebugString();
  v1::ProbeResult both = RunClient({"--peer", peer, "--duration", "2", "--bidirectional"}, &rc,
                                   absl::Seconds(30));
  ASSERT_EQ(rc, 0) << both.DebugString();
  const double one_way = one.transfer().results(0).bw_avg_gbps();
  const double two_way = both.transfer().results(0).bw_avg_gbps();
  EXPECT_GT(one_way, 0.43);
  EXPECT_LT(one_way, 0.53);
  EXPECT_GT(two_way, 0.85);
  EXPECT_LT(two_way, 1.06);
  RecordProperty("two_way_gbps", absl::StrCat(two_way));
}

TEST_F(TransferLabTest, PeerKilledMidRunIsPeerLostWithinDeadline) {
  const std::string peer = StartServer();
  absl::StatusOr<pid_t> pid = StartLongClient(peer);
  ASSERT_TRUE(pid.ok());
  kill(server_pid_, SIGKILL);
  const absl::Time killed = absl::Now();
  auto rc = lab_->Wait(*pid, absl::Seconds(10));
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_LT(absl::Now() - killed, absl::Seconds(8));
  EXPECT_EQ(*rc, 3);
  v1::ProbeResult r;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(lab_->ReadLog("client.log"), &r).ok());
  ASSERT_GE(r.findings_size(), 1);
  EXPECT_TRUE(r.findings(0).code() == "TRANSFER_PEER_LOST" ||
              r.findings(0).code() == "TRANSFER_TIMEOUT")
      << r.findings(0).code();
  EXPECT_EQ(r.findings(0).code(), "TRANSFER_PEER_LOST") << r.findings(0).message();
  // What was measured before the loss is kept.
  ASSERT_EQ(r.transfer().results_size(), 1);
  EXPECT_TRUE(r.transfer().results(0).partial());
  EXPECT_GT(r.transfer().results(0).bytes(), 0u);
}

TEST_F(TransferLabTest, LinkDownMidRunIsErrorWithinDeadline) {
  const std::string peer = StartServer();
  absl::StatusOr<pid_t> pid = StartLongClient(peer);
  ASSERT_TRUE(pid.ok());
  ASSERT_TRUE(lab_->SetLinkUp("b", Lab::Iface("b", "a"), false).ok());
  const absl::Time down = absl::Now();
  auto rc = lab_->Wait(*pid, absl::Seconds(15));
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_LT(absl::Now() - down, absl::Seconds(12));
  EXPECT_EQ(*rc, 3);
  v1::ProbeResult r;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(lab_->ReadLog("client.log"), &r).ok());
  ASSERT_GE(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).severity(), v1::ERROR);
  EXPECT_EQ(r.verdict(), v1::ERROR);
}

TEST_F(TransferLabTest, ServerStopsCleanlyOnSigterm) {
  StartServer();
  kill(server_pid_, SIGTERM);
  auto rc = lab_->Wait(server_pid_, absl::Seconds(5));
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(*rc, 0);
}

// Counters from both ends: the server reads its own around its part of the
// run and sends them back; a receive error that appears in the server's
// counter tree (a captured sysfs layout, --sysfs-root) while the stream
// runs is the server's, the receiver's, and FAILs the run; the client's
// own interface counters are there too, attributed to the client.
TEST_F(TransferLabTest, CounterDeltasArriveFromBothEndsEachAttributedToItsSide) {
  testing::TempDir tree;
  const std::string stats = tree.path() + "/class/net/ba/statistics";
  ASSERT_EQ(system(("mkdir -p " + stats).c_str()), 0);
  for (const char* name : {"rx_errors", "rx_crc_errors", "rx_dropped", "tx_errors"}) {
    testing::WriteFile(stats + "/" + name, "0\n");
  }
  const std::string peer = StartServer({"--sysfs-root", tree.path()});
  // A second into the 2 s run, the server's port counts 7 CRC errors.
  std::thread fault([&] {
    usleep(1000000);
    testing::WriteFile(stats + "/rx_crc_errors", "7\n");
    testing::WriteFile(stats + "/rx_errors", "7\n");
  });
  int rc = -1;
  v1::ProbeResult r = RunClient({"--peer", peer, "--duration", "2"}, &rc, absl::Seconds(20));
  fault.join();
  EXPECT_EQ(rc, 1) << r.DebugString();
  ASSERT_EQ(r.transfer().results_size(), 1) << r.DebugString();
  bool server_crc = false, client_side = false;
  for (const v1::CounterDelta& d : r.transfer().results(0).counters()) {
    server_crc |= d.side() == "server" && d.port() == "ba" && d.counter() == "rx_crc_errors" &&
                  d.delta() == 7;
    client_side |= d.side() == "client" && d.port() == "ab" && d.counter() == "rx_errors";
  }
  EXPECT_TRUE(server_crc) << r.DebugString();
  EXPECT_TRUE(client_side) << r.DebugString();
  ASSERT_GE(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "NETDEV_ERRORS_GREW");
  EXPECT_NE(r.findings(0).message().find("ba on the server (receiver)"), std::string::npos)
      << r.findings(0).message();
  EXPECT_NE(r.findings(0).message().find("rx_crc_errors +7"), std::string::npos);
  // rr_lat's server answers with its counters too (no growth now: PASS).
  v1::ProbeResult lat =
      RunClient({"--peer", peer, "--op", "rr_lat", "--iterations", "200"}, &rc, absl::Seconds(20));
  EXPECT_EQ(rc, 0) << lat.DebugString();
  ASSERT_EQ(lat.transfer().results_size(), 1);
  bool lat_server = false;
  for (const v1::CounterDelta& d : lat.transfer().results(0).counters()) {
    lat_server |= d.side() == "server" && d.counter() == "rx_crc_errors" && d.delta() == 0;
  }
  EXPECT_TRUE(lat_server) << lat.DebugString();
  EXPECT_EQ(lat.transfer().results(0).counters_unread_size(), 0) << lat.DebugString();
}

// TCP_INFO in the result: a 200 Mbit/s link with a deep queue retransmits
// (almost) nothing; the same rate with a queue of under two 64 KiB GSO packets drops, and
// the retransmissions show. (An unshaped veth at full speed retransmits
// too: its receive backlog overflows.)
TEST_F(TransferLabTest, RetransmissionsShowOnALossyLinkAndNotOnACleanOne) {
  const std::string peer = StartServer();
  int rc = -1;
  ASSERT_TRUE(
      lab_->Exec("a", "tc qdisc replace dev ab root tbf rate 200mbit burst 64kb limit 4mb").ok());
  v1::ProbeResult clean =
      RunClient({"--peer", peer, "--duration", "1"}, &rc, absl::Seconds(20));
  ASSERT_EQ(clean.transfer().results_size(), 1) << clean.DebugString();
  const uint64_t clean_retx = clean.transfer().results(0).tcp_retransmits();
  // The egress interface's counters were read around the run (veth has
  // statistics/ and driver counters, no pause counters).
  bool netdev_counters = false;
  for (const auto& m : clean.measurements()) {
    netdev_counters |= m.name() == "counter_delta" && m.labels().at("port") == "ab" &&
                       m.labels().at("counter") == "rx_errors";
  }
  EXPECT_TRUE(netdev_counters) << clean.DebugString();
  EXPECT_GT(clean.transfer().results(0).tcp_rtt_us(), 0);
  ASSERT_TRUE(
      lab_->Exec("a", "tc qdisc replace dev ab root tbf rate 200mbit burst 64kb limit 100000").ok());
  v1::ProbeResult lossy =
      RunClient({"--peer", peer, "--duration", "2"}, &rc, absl::Seconds(20));
  ASSERT_EQ(lossy.transfer().results_size(), 1) << lossy.DebugString();
  const uint64_t lossy_retx = lossy.transfer().results(0).tcp_retransmits();
  EXPECT_GT(lossy_retx, 10u) << lossy.DebugString();
  EXPECT_LT(clean_retx, lossy_retx / 10 + 1) << "clean " << clean_retx << ", lossy " << lossy_retx;
  bool measured = false;
  for (const auto& m : lossy.measurements()) measured |= m.name() == "tcp_retransmits";
  EXPECT_TRUE(measured);
}

}  // namespace
}  // namespace nodeprobe::lab
