#include "probes/framework/profile.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "probes/locality/locality_profile.h"
#include "probes/mtu/mtu_profile.h"
#include "probes/nccl/nccl_profile.h"
#include "probes/rdma_devices/rdma_profile.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe {
namespace {

TEST(ParseProfileTest, ParsesEverySection) {
  absl::StatusOr<Profile> p = ParseProfile(R"(
rdma:
  expected_rate_gbps: 400
  expected_link_layer: InfiniBand
  error_counters: fail
mtu:
  expected: 9000
  interfaces: [eth0, bond0]
locality:
  rail_optimized: true
versions:
  nvidia_driver: "550.54.15"
  nccl: 2.21.5
exceptions:
  - code: RDMA_ERROR_COUNTERS_NONZERO
    device: mlx5_3
    reason: cable swap scheduled, OPS-1234
)", "fleet.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(*p->Section<RdmaExpectations>().rate_gbps, 400);
  EXPECT_EQ(*p->Section<RdmaExpectations>().link_layer, "InfiniBand");
  EXPECT_EQ(p->Section<RdmaExpectations>().error_counters, v1::FAIL);
  EXPECT_TRUE(p->Section<LocalityRules>().rail_optimized);
  EXPECT_EQ(*p->Section<MtuExpectations>().expected, 9000);
  EXPECT_EQ(p->Section<MtuExpectations>().interfaces, (std::vector<std::string>{"eth0", "bond0"}));
  EXPECT_EQ(p->versions.at("nvidia_driver"), "550.54.15");
  EXPECT_EQ(p->versions.at("nccl"), "2.21.5");
  ASSERT_EQ(p->exceptions.size(), 1u);
  EXPECT_NE(p->FindException("RDMA_ERROR_COUNTERS_NONZERO", "mlx5_3:1"), nullptr);
  EXPECT_NE(p->FindException("RDMA_ERROR_COUNTERS_NONZERO", "mlx5_3"), nullptr);
  EXPECT_EQ(p->FindException("RDMA_ERROR_COUNTERS_NONZERO", "mlx5_30:1"), nullptr);
  EXPECT_EQ(p->FindException("RDMA_PORT_DOWN", "mlx5_3:1"), nullptr);
}

TEST(ParseProfileTest, NcclRunSettingsAreCheckedWhereTheyAreWritten) {
  absl::StatusOr<Profile> p = ParseProfile(
      "nccl:\n  collectives: [all_reduce, sendrecv]\n  sizes: [4096, 1048576]\n  iters: 7\n"
      "  op_timeout_s: 5\n  env: { NCCL_IB_HCA: \"=mlx5_0\" }\n",
      "f.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Section<NcclRules>().run.collectives_size(), 2);
  EXPECT_EQ(p->Section<NcclRules>().run.sizes(1), 1048576u);
  EXPECT_EQ(p->Section<NcclRules>().run.iters(), 7u);
  EXPECT_EQ(p->Section<NcclRules>().env.at("NCCL_IB_HCA"), "=mlx5_0");
  for (const char* bad : {"nccl:\n  collectives: [allreduce]\n",
                          "nccl:\n  env: { NCCL_NET_PLUGIN: evil }\n",
                          "nccl:\n  iters: 0\n",
                          "nccl:\n  min_bytes: 1048576\n  max_bytes: 1024\n"}) {
    absl::StatusOr<Profile> r = ParseProfile(bad, "f.yaml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("f.yaml:"), std::string::npos) << r.status();
  }
}

// One bounded-integer reading for every section: its bounds are printed
// whole (a 16 GiB cap read "1.71799e+10"), and a value far past int64 is
// refused, not cast.
TEST(ParseProfileTest, WholeNumberBoundsArePrintedWhole) {
  absl::StatusOr<Profile> big = ParseProfile("nccl:\n  max_bytes: 17179869185\n", "f.yaml");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("from 4 to 17179869184 (16 GiB)"), std::string::npos)
      << big.status();
  for (const char* bad : {"nccl:\n  iters: 1e300\n", "nccl:\n  iters: -1e300\n",
                          "nccl:\n  step_factor: 2.5\n", "storage:\n  writers: 1e30\n",
                          "congestion:\n  group_size: 9e18\n", "gpu_diag:\n  level: 2.5\n"}) {
    absl::StatusOr<Profile> r = ParseProfile(bad, "f.yaml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("must be a whole number from"), std::string::npos)
        << r.status();
    EXPECT_EQ(r.status().message().find("e+"), std::string::npos) << r.status();
  }
}

TEST(ParseProfileTest, NcclBusBandwidthBarsPerCollective) {
  absl::StatusOr<Profile> p = ParseProfile(
      "nccl:\n  all_reduce_busbw_min_gbps: 400\n  sendrecv_busbw_min_gbps: 40.5\n", "f.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->Section<NcclRules>().busbw_min_gbps.at("all_reduce"), 400);
  EXPECT_DOUBLE_EQ(p->Section<NcclRules>().busbw_min_gbps.at("sendrecv"), 40.5);
  absl::StatusOr<Profile> typo =
      ParseProfile("nccl:\n  allreduce_busbw_min_gbps: 400\n", "f.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("all_reduce_busbw_min_gbps"), std::string::npos)
      << typo.status();
  absl::StatusOr<Profile> negative =
      ParseProfile("nccl:\n  all_reduce_busbw_min_gbps: -1\n", "f.yaml");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("f.yaml:2"), std::string::npos)
      << negative.status();
}

TEST(ParseProfileTest, EmptyFileIsEmptyProfile) {
  absl::StatusOr<Profile> p = ParseProfile("", "empty.yaml");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->Section<RdmaExpectations>().rate_gbps.has_value());
  EXPECT_EQ(p->Section<RdmaExpectations>().error_counters, v1::WARN);
}

TEST(ParseProfileTest, UnknownKeyNamesFileLineAndKey) {
  absl::StatusOr<Profile> p =
      ParseProfile("rdma:\n  expected_rate_gbps: 200\n  expected_rte: 1\n", "f.yaml");
  ASSERT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message().substr(0, 9), "f.yaml:3:");
  EXPECT_NE(p.status().message().find("rdma.expected_rte"), std::string::npos);
  EXPECT_NE(p.status().message().find("expected_rate_gbps"), std::string::npos);
}

TEST(ParseProfileTest, UnknownTopLevelAndVersionKeysRejected) {
  EXPECT_NE(ParseProfile("pcie: {}\n", "f.yaml").status().message().find(
                "unknown key 'pcie'"),
            std::string::npos);
  EXPECT_NE(ParseProfile("versions:\n  cuda: '12'\n", "f.yaml")
                .status()
                .message()
                .find("versions.cuda"),
            std::string::npos);
}

TEST(ParseProfileTest, WrongTypeNamesKeyAndValue) {
  absl::StatusOr<Profile> p =
      ParseProfile("rdma:\n  expected_rate_gbps: fast\n", "f.yaml");
  EXPECT_EQ(p.status().message(),
            "f.yaml:2: rdma.expected_rate_gbps must be a number, got 'fast'");
  EXPECT_FALSE(ParseProfile("rdma:\n  expected_link_layer: RoCE\n", "f.yaml").ok());
  EXPECT_FALSE(ParseProfile("rdma:\n  error_counters: maybe\n", "f.yaml").ok());
  EXPECT_FALSE(ParseProfile("rdma: [1, 2]\n", "f.yaml").ok());
  EXPECT_EQ(ParseProfile("locality:\n  rail_optimized: maybe\n", "f.yaml").status().message(),
            "f.yaml:2: locality.rail_optimized must be true or false, got 'maybe'");
}

TEST(ParseProfileTest, MtuMustBeWholeBytes) {
  EXPECT_FALSE(ParseProfile("mtu:\n  expected: 9000.5\n", "f.yaml").ok());
  EXPECT_FALSE(ParseProfile("mtu:\n  expected: 10\n", "f.yaml").ok());
  EXPECT_FALSE(ParseProfile("mtu:\n  interfaces: eth0\n", "f.yaml").ok());
}

TEST(ParseProfileTest, UnparsableYamlNamesLine) {
  absl::StatusOr<Profile> p = ParseProfile("rdma:\n  a: [1, 2\n", "bad.yaml");
  ASSERT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("bad.yaml:"), std::string::npos);
  EXPECT_NE(p.status().message().find("not valid YAML"), std::string::npos);
}

// Inputs the fuzzer (tests/fuzz) found, or that yaml-cpp 0.7 is known to
// mishandle: each is a one-line error within milliseconds, never a hang,
// an unbounded allocation or a stack overflow.
TEST(ParseProfileTest, HostileYamlIsRefusedQuickly) {
  const absl::Time start = absl::Now();
  // tests/fuzz/corpus/fuzz_profile/regression-loadall-loop.yaml: LoadAll
  // looped forever on it, allocating.
  auto looped = ParseProfile(",exceptions]:\n  - code: RDMA_ERROR    reason: cable\n", "p.yaml");
  EXPECT_EQ(looped.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(looped.status().message().find("one YAML document"), std::string::npos)
      << looped.status();
  EXPECT_FALSE(ParseProfile(",", "p.yaml").ok());
  // 100 000 levels of flow nesting: yaml-cpp recurses per level.
  auto deep = ParseProfile(std::string(100000, '['), "p.yaml");
  EXPECT_NE(deep.status().message().find("nested deeper than"), std::string::npos)
      << deep.status();
  // Aliases: walked as often as named (a "billion laughs" in time).
  auto alias = ParseProfile("versions: &v {nccl: \"2\"}\nx: *v\n", "p.yaml");
  EXPECT_NE(alias.status().message().find("aliases"), std::string::npos) << alias.status();
  EXPECT_EQ(alias.status().message().rfind("p.yaml:2:", 0), 0u) << alias.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(ParseProfileTest, ExceptionNeedsCodeAndReason) {
  EXPECT_FALSE(ParseProfile("exceptions:\n  - code: X\n", "f.yaml").ok());
  // An expiry that is not a date says how to write one.
  absl::StatusOr<Profile> bad_date = ParseProfile(
      "exceptions:\n  - code: RDMA_PORT_DOWN\n    reason: r\n    expires: next week\n",
      "f.yaml");
  ASSERT_FALSE(bad_date.ok());
  EXPECT_NE(bad_date.status().message().find("f.yaml:4"), std::string::npos) << bad_date.status();
  EXPECT_NE(bad_date.status().message().find("write 2027-01-31"), std::string::npos)
      << bad_date.status();
  absl::StatusOr<Profile> rfc = ParseProfile(
      "exceptions:\n  - code: RDMA_PORT_DOWN\n    reason: r\n    owner: o\n"
      "    expires: 2027-01-31T18:00:00Z\n",
      "f.yaml");
  ASSERT_TRUE(rfc.ok()) << rfc.status();
  EXPECT_EQ(rfc->exceptions[0].owner, "o");
  EXPECT_EQ(*rfc->exceptions[0].expires_at, absl::FromUnixSeconds(1801418400));
  EXPECT_FALSE(ParseProfile("exceptions:\n  - code: X\n    reason: r\n    who: me\n",
                            "f.yaml")
                   .ok());
}

// Values that parse but cannot be meant: an empty pin, a date that is not
// on the calendar, an exception already past or not ending within a year.
TEST(ParseProfileTest, ValuesThatCannotBeMeantAreRefusedOrSaid) {
  absl::StatusOr<Profile> empty_pin = ParseProfile("versions:\n  nccl: \"\"\n", "v.yaml");
  ASSERT_FALSE(empty_pin.ok());
  EXPECT_NE(empty_pin.status().message().find("v.yaml:2: versions.nccl is empty"),
            std::string::npos)
      << empty_pin.status();
  auto with_expiry = [](const std::string& when) {
    return ParseProfile("exceptions:\n  - code: RDMA_PORT_DOWN\n    reason: r\n    expires: " +
                            when + "\n",
                        "e.yaml");
  };
  for (const char* bad : {"99999999-01-01", "2027-02-30", "2027-13-01", "2027-1-5"}) {
    absl::StatusOr<Profile> p = with_expiry(bad);
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) EXPECT_NE(p.status().message().find("not a calendar date"), std::string::npos);
  }
  absl::StatusOr<Profile> past = with_expiry("1970-01-01");
  ASSERT_TRUE(past.ok()) << past.status();
  ASSERT_EQ(past->warnings.size(), 1u);
  EXPECT_NE(past->warnings[0].find("e.yaml:4: exceptions.expires 1970-01-01 is already past"),
            std::string::npos)
      << past->warnings[0];
  const std::string far =
      absl::FormatTime("%Y-%m-%d", absl::Now() + absl::Hours(24 * 800), absl::UTCTimeZone());
  absl::StatusOr<Profile> ahead = with_expiry(far);
  ASSERT_TRUE(ahead.ok()) << ahead.status();
  ASSERT_EQ(ahead->warnings.size(), 1u);
  EXPECT_NE(ahead->warnings[0].find("more than a year ahead"), std::string::npos);
  const std::string soon =
      absl::FormatTime("%Y-%m-%d", absl::Now() + absl::Hours(24 * 90), absl::UTCTimeZone());
  EXPECT_TRUE(with_expiry(soon)->warnings.empty());
}

TEST(ParseProfileTest, NoiseRulesAreReadAndTheOldPeerKeyStillReads) {
  absl::StatusOr<Profile> p = ParseProfile(
      "transfer:\n  min_fraction_of_best_pair: 0.8\n  noise_sigmas: 2.5\n  max_spread: 0.2\n",
      "t.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->Section<TransferBars>().min_fraction_of_peers, 0.8);
  EXPECT_DOUBLE_EQ(p->Section<TransferBars>().noise_sigmas, 2.5);
  EXPECT_DOUBLE_EQ(p->Section<TransferBars>().max_spread, 0.2);
  EXPECT_FALSE(ParseProfile("transfer:\n  max_spread: 0\n", "t.yaml").ok());
  EXPECT_FALSE(ParseProfile("transfer:\n  noise_sigmas: 11\n", "t.yaml").ok());
}

TEST(LoadProfileTest, MissingFileSaysHowToFix) {
  absl::StatusOr<Profile> p = LoadProfile("/nonexistent/profile.yaml");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("/nonexistent/profile.yaml"), std::string::npos);
}

TEST(VersionMatchesTest, MatchesByDottedPrefix) {
  EXPECT_TRUE(VersionMatches("550", "550.54.15"));
  EXPECT_TRUE(VersionMatches("550.54.15", "550.54.15"));
  EXPECT_FALSE(VersionMatches("55", "550.54.15"));
  EXPECT_FALSE(VersionMatches("550.54.15", "550.54"));
}

}  // namespace
}  // namespace nodeprobe
