// The cabling record with real lldpd: a "switch" namespace whose lldpd
// announces a chosen system name, a node namespace whose lldpd (receive
// only) hears it, and `nodeprobe run --probe cabling` reading the node's
// lldpd through its socket, against a rail plan that matches and one that
// does not.
#include <google/protobuf/util/json_util.h>
#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/lldp_neighbors.h"
#include "tests/lab/lab.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe::lab {
namespace {

class CablingLabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status available = Lab::Available();
    if (!available.ok()) GTEST_SKIP() << "network-namespace lab: " << available.message();
    if (access("/usr/sbin/lldpd", X_OK) != 0) GTEST_SKIP() << "no lldpd: apt-get install lldpd";
    lab_ = std::make_unique<Lab>();
    ASSERT_TRUE(lab_->AddHost("s").ok());
    ASSERT_TRUE(lab_->AddHost("n").ok());
    ASSERT_TRUE(lab_->Link("s", "10.86.1.1/24", "n", "10.86.1.2/24").ok());
    const std::string d = dir_.path();
    chmod(d.c_str(), 0755);  // lldpd's unprivileged half opens nothing here; its socket is made by root
    testing::WriteFile(d + "/s.conf",
                       "configure system hostname leaf-rail-0-a\n"
                       "configure lldp portidsubtype ifname\n"
                       "configure lldp tx-interval 1\n");
    testing::WriteFile(d + "/n.conf", "configure system hostname gpu01\n");
    node_socket_ = d + "/n.sock";
    ASSERT_TRUE(lab_->Spawn("s", {"/usr/sbin/lldpd", "-d", "-u", d + "/s.sock", "-I",
                                  Lab::Iface("s", "n"), "-O", d + "/s.conf"},
                            "lldpd-s").ok());
    ASSERT_TRUE(lab_->Spawn("n", {"/usr/sbin/lldpd", "-d", "-r", "-u", node_socket_, "-I",
                                  Lab::Iface("n", "s"), "-O", d + "/n.conf"},
                            "lldpd-n").ok());
    // Until the node's lldpd has heard the switch.
    for (int i = 0; i < 100; ++i) {
      auto heard = platform::ReadLldpNeighbors(node_socket_);
      if (heard.ok() && !heard->empty()) return;
      absl::SleepFor(absl::Milliseconds(100));
    }
    FAIL() << "the node's lldpd heard nothing: " << lab_->ReadLog("lldpd-n")
           << lab_->ReadLog("lldpd-s");
  }

  v1::ProbeResult Cabling(const std::string& profile_yaml, int* exit_code) {
    const std::string profile = dir_.path() + "/profile.yaml";
    testing::WriteFile(profile, profile_yaml);
    setenv("NODEPROBE_LLDPD_SOCKET", node_socket_.c_str(), 1);
    testing::CommandResult r = testing::RunBinary(
        NODEPROBE_BINARY, {"run", "--stage", "single-node", "--probe", "cabling", "--profile",
                           profile, "--format", "json"});
    unsetenv("NODEPROBE_LLDPD_SOCKET");
    *exit_code = r.exit_code;
    v1::StageReport report;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out << r.err;
    return report.results_size() == 1 ? report.results(0) : v1::ProbeResult();
  }

  testing::TempDir dir_;
  std::unique_ptr<Lab> lab_;
  std::string node_socket_;
};

TEST_F(CablingLabTest, TheSwitchLldpAnnouncesIsRecordedAndJudgedAgainstThePlan) {
  const std::string iface = Lab::Iface("n", "s");
  int rc = -1;
  v1::ProbeResult r = Cabling(absl::StrCat("cabling:\n  expect:\n    ", iface,
                                           ": \"leaf-rail-0-*\"\n"),
                              &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  ASSERT_EQ(r.cabling().links_size(), 1) << r.DebugString();
  EXPECT_EQ(r.cabling().links(0).interface(), iface);
  EXPECT_EQ(r.cabling().links(0).neighbor_system(), "leaf-rail-0-a");
  EXPECT_EQ(r.cabling().links(0).neighbor_port(), Lab::Iface("s", "n"));
  EXPECT_EQ(r.cabling().lldpd_socket(), node_socket_);

  // The plan says this rail goes to rail 1's leaf: the cable is wrong.
  r = Cabling(absl::StrCat("cabling:\n  expect:\n    ", iface, ": \"leaf-rail-1-*\"\n"), &rc);
  EXPECT_EQ(rc, 1);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "CABLING_RAIL_MISMATCH");
  EXPECT_NE(r.findings(0).message().find("is cabled to leaf-rail-0-a port"), std::string::npos)
      << r.findings(0).message();
}

}  // namespace
}  // namespace nodeprobe::lab
