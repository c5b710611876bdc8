// The InfiniBand half of the cabling record against a simulated fabric:
// ibsim (Debian's ibsim-utils) answers subnet management packets for a
// rail-optimised fabric laid out below, and umad2sim (libumad2sim0),
// preloaded, carries libibumad's MADs to it instead of /dev/infiniband.
// So the SMPs our libibnetdisc call sends are real ones, answered by a real
// SMA model; and `ibnetdiscover --cache` (infiniband-diags) writes the
// fabric cache that LoadIbNeighbors reads, as an operator would capture it.
// Label "ibsim"; skipped when the simulator is not installed.
#include <unistd.h>

#include <google/protobuf/util/json_util.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/child_process.h"
#include "platform/ib_neighbors.h"
#include "probes/cabling/cabling_probe.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

constexpr char kIbsim[] = "/usr/bin/ibsim";
constexpr char kUmad2sim[] = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
constexpr char kIbnetdiscover[] = "/usr/sbin/ibnetdiscover";

// Two GPU nodes, two rails, a leaf switch per rail, named the way NVIDIA
// switches describe themselves. One cable is wrong: gpu-node-02's rail-1
// HCA is plugged into the rail-0 leaf (port 19). gpu-node-02's mlx5_0 has
// a second port with no cable. ibsim's format is ibnetdiscover's; the
// node's own HCA is what SIM_HOST names, and umad2sim presents it as
// "ibsim0".
constexpr char kFabric[] = R"(Switch	36 "MF0;ib-leaf-rail-0:MQM9700/U1"
[17]	"gpu-node-01 mlx5_0"[1]
[18]	"gpu-node-02 mlx5_0"[1]
[19]	"gpu-node-02 mlx5_1"[1]

Switch	36 "MF0;ib-leaf-rail-1:MQM9700/U1"
[17]	"gpu-node-01 mlx5_1"[1]

Hca	1 "gpu-node-01 mlx5_0"
[1]	"MF0;ib-leaf-rail-0:MQM9700/U1"[17]

Hca	1 "gpu-node-01 mlx5_1"
[1]	"MF0;ib-leaf-rail-1:MQM9700/U1"[17]

Hca	2 "gpu-node-02 mlx5_0"
[1]	"MF0;ib-leaf-rail-0:MQM9700/U1"[18]

Hca	1 "gpu-node-02 mlx5_1"
[1]	"MF0;ib-leaf-rail-0:MQM9700/U1"[19]
)";

// Runs EXE ARGS in DIR with ENV added; its stdout, or a failure naming how
// it ended. Everything here answers in milliseconds; the deadline is for a
// simulator that went away (umad2sim then waits for ever).
std::string RunIn(const std::string& dir, const std::vector<std::string>& env,
                  const std::string& exe, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"-C", dir};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(exe);
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<platform::ChildProcess> child = platform::ChildProcess::Start("/usr/bin/env", argv);
  if (!child.ok()) {
    ADD_FAILURE() << child.status();
    return "";
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!child->eof()) {
    if (!child->ReadMore(deadline).ok()) {
      child->Kill();
      ADD_FAILURE() << exe << " did not finish in 30 s: " << child->stderr_tail();
      return "";
    }
  }
  const std::string ending = child->Ending();
  EXPECT_TRUE(child->ExitedCleanly()) << exe << ": " << ending << "\n" << child->stderr_tail();
  return *child->buffer();
}

class IbFabricSimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kIbsim, X_OK) != 0 || access(kUmad2sim, R_OK) != 0) {
      GTEST_SKIP() << "no InfiniBand fabric simulator: apt-get install ibsim-utils libumad2sim0";
    }
    // Abstract sockets are per network namespace and global within it:
    // a name of our own keeps parallel tests off each other's fabric.
    socket_ = absl::StrCat("nodeprobe-test-", getpid(), "-", ++instances_);
    testing::WriteFile(dir_.path() + "/fabric.net", kFabric);
    absl::StatusOr<platform::ChildProcess> sim = platform::ChildProcess::Start(
        "/usr/bin/env", {"-C", dir_.path(), "IBSIM_SOCKNAME=" + socket_, kIbsim, "-n", "-s",
                         "fabric.net"});
    ASSERT_TRUE(sim.ok()) << sim.status();
    sim_ = std::make_unique<platform::ChildProcess>(std::move(*sim));
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (sim_->buffer()->find("Network simulator ready") == std::string::npos) {
      ASSERT_FALSE(sim_->eof()) << "ibsim ended: " << sim_->Ending() << "\n" << *sim_->buffer();
      ASSERT_TRUE(sim_->ReadMore(deadline).ok()) << "ibsim not ready in 20 s: " << *sim_->buffer();
    }
  }
  void TearDown() override {
    if (sim_ != nullptr) sim_->Kill();  // by its PID (and group)
  }

  // The environment that attaches a process to the simulated fabric as
  // NODE's HCA. In the sanitizer build: ASan wants its runtime first in the
  // library list and the preload goes ahead of it (harmless here), and
  // umad2sim's own overread is suppressed (UMAD2SIM_ASAN_SUPPRESSIONS says
  // what it is).
  std::vector<std::string> AttachedAs(const std::string& node) const {
    const char* asan = std::getenv("ASAN_OPTIONS");
    return {"IBSIM_SOCKNAME=" + socket_, "SIM_HOST=" + node, std::string("LD_PRELOAD=") + kUmad2sim,
            absl::StrCat("ASAN_OPTIONS=", asan != nullptr ? asan : "",
                         ":verify_asan_link_order=0:suppressions=", UMAD2SIM_ASAN_SUPPRESSIONS)};
  }

  // The cabling probe's IB half run on NODE for its port ibsim0:PORT
  // against the plan "ibsim0:PORT -> PATTERN".
  v1::ProbeResult Cabling(const std::string& node, int port, const std::string& pattern) {
    const std::string out = RunIn(dir_.path(), AttachedAs(node), IB_CABLING_HELPER,
                                  {absl::StrCat("ibsim0:", port), pattern});
    v1::ProbeResult r;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(out, &r).ok()) << out;
    return r;
  }

  static inline int instances_ = 0;
  testing::TempDir dir_;
  std::string socket_;
  std::unique_ptr<platform::ChildProcess> sim_;
};

TEST_F(IbFabricSimTest, TheLeafOneHopOutIsRecordedAndMatchesThePlan) {
  const v1::ProbeResult r = Cabling("gpu-node-01 mlx5_1", 1, "ib-leaf-rail-1*");
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  ASSERT_EQ(r.cabling().links_size(), 1) << r.DebugString();
  const v1::CablingLink& l = r.cabling().links(0);
  EXPECT_EQ(l.interface(), "ibsim0:1");
  EXPECT_EQ(l.source(), "ib-smp");
  EXPECT_EQ(l.neighbor_system(), "ib-leaf-rail-1");
  EXPECT_EQ(l.neighbor_port(), "17");
  EXPECT_EQ(l.neighbor_chassis(), "guid 0x0000000000200001");  // ibsim's GUID for that switch
  EXPECT_EQ(l.expected(), "ib-leaf-rail-1*");
}

TEST_F(IbFabricSimTest, AnHcaPluggedIntoTheWrongRailsLeafIsARailMismatch) {
  const v1::ProbeResult r = Cabling("gpu-node-02 mlx5_1", 1, "ib-leaf-rail-1*");
  EXPECT_EQ(r.verdict(), v1::FAIL) << r.DebugString();
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "CABLING_RAIL_MISMATCH");
  EXPECT_EQ(r.findings(0).device(), "ibsim0:1");
  EXPECT_NE(r.findings(0).message().find("is cabled to ib-leaf-rail-0 port 19"), std::string::npos)
      << r.findings(0).message();
  ASSERT_EQ(r.cabling().links_size(), 1);
  EXPECT_EQ(r.cabling().links(0).neighbor_port(), "19");
}

TEST_F(IbFabricSimTest, APortWithNoCableIsNoNeighbourNotAPass) {
  const v1::ProbeResult r = Cabling("gpu-node-02 mlx5_0", 2, "ib-leaf-rail-0*");
  EXPECT_EQ(r.verdict(), v1::WARN) << r.DebugString();
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "CABLING_NO_NEIGHBOR");
  EXPECT_EQ(r.cabling().links_size(), 0);
}

TEST_F(IbFabricSimTest, AnIbnetdiscoverCacheReadsAsTheLiveDiscoveryDoes) {
  if (access(kIbnetdiscover, X_OK) != 0) {
    GTEST_SKIP() << "no ibnetdiscover: apt-get install infiniband-diags";
  }
  for (const std::string node : {"gpu-node-01 mlx5_0", "gpu-node-02 mlx5_1"}) {
    SCOPED_TRACE(node);
    // What an operator captures on the node (hwtests/ib_cabling.sh does
    // the same on a real fabric) ...
    const std::string cache = dir_.path() + "/fabric.cache";
    unlink(cache.c_str());
    RunIn(dir_.path(), AttachedAs(node), kIbnetdiscover, {"--cache", cache});
    absl::StatusOr<std::vector<platform::IbNeighbor>> loaded = platform::LoadIbNeighbors(cache);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_EQ(loaded->size(), 1u);
    // ... holds the same neighbour the probe found live.
    const v1::ProbeResult live = Cabling(node, 1, "*");
    ASSERT_EQ(live.cabling().links_size(), 1) << live.DebugString();
    const platform::IbNeighbor& n = (*loaded)[0];
    EXPECT_EQ(n.port, 1);
    EXPECT_TRUE(n.remote_is_switch);
    EXPECT_EQ(IbSwitchName(n.node_desc), live.cabling().links(0).neighbor_system());
    EXPECT_EQ(absl::StrCat(n.remote_port), live.cabling().links(0).neighbor_port());
    EXPECT_EQ(absl::StrCat("guid 0x", absl::Hex(n.node_guid, absl::kZeroPad16)),
              live.cabling().links(0).neighbor_chassis());
  }
}

}  // namespace
}  // namespace nodeprobe
