// Declares `transfer:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/transfer/transfer_profile.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

std::string Num(double v) { return absl::StrCat(v); }
std::string Severity(v1::Verdict v) { return v == v1::FAIL ? "fail" : "warn"; }

// A fraction key: every one is a share in (0, 1].
absl::Status ReadFraction(const std::string& key, double v, TransferBars& t) {
  if (key == "min_fraction_of_line_rate") t.min_fraction_of_line_rate = v;
  // The older name: the reference is the peers' median now, not the best.
  if (key == "min_fraction_of_peers" || key == "min_fraction_of_best_pair") {
    t.min_fraction_of_peers = v;
  }
  if (key == "min_fraction_of_reverse") t.min_fraction_of_reverse = v;
  return absl::OkStatus();
}

// An absolute bar: Gb/s for bandwidth, microseconds for latency.
absl::Status ReadBar(const ProfileReader& r, const std::string& key, const YAML::Node& node,
                     double v, TransferBars& t) {
  const bool latency = absl::EndsWith(key, "_us");
  if (v <= 0 || v > (latency ? 1e6 : 3200)) {
    return r.Error(node, absl::StrCat("transfer.", key, " must be > 0 and <= ",
                                      latency ? "1000000 (us)" : "3200 (Gb/s)"));
  }
  if (key == "tcp_stream_min_gbps") t.tcp_stream_min_gbps = v;
  if (key == "rdma_write_bw_min_gbps") t.rdma_write_bw_min_gbps = v;
  if (key == "rdma_read_bw_min_gbps") t.rdma_read_bw_min_gbps = v;
  if (key == "rdma_send_bw_min_gbps") t.rdma_send_bw_min_gbps = v;
  if (key == "rdma_write_lat_max_us") t.rdma_write_lat_max_us = v;
  if (key == "tcp_rr_lat_max_us") t.tcp_rr_lat_max_us = v;
  return absl::OkStatus();
}

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& node,
                     TransferBars& t) {
  const std::string name = "transfer." + key;
  if (key == "below_peers" || key == "error_counters_grew") {
    absl::StatusOr<std::string> v = r.OneOf(node, name, {"warn", "fail"});
    if (!v.ok()) return v.status();
    (key == "below_peers" ? t.below_peers : t.error_counters_grew) =
        *v == "fail" ? v1::FAIL : v1::WARN;
    return absl::OkStatus();
  }
  absl::StatusOr<double> v = r.Number(node, name);
  if (!v.ok()) return v.status();
  if (absl::StartsWith(key, "min_fraction")) {
    if (*v <= 0 || *v > 1) return r.Error(node, name + " must be in (0, 1]");
    return ReadFraction(key, *v, t);
  }
  if (key == "noise_sigmas") {
    if (*v < 0 || *v > 10) return r.Error(node, name + " must be in [0, 10]");
    t.noise_sigmas = *v;
    return absl::OkStatus();
  }
  if (key == "max_spread") {
    if (*v <= 0 || *v > 1) return r.Error(node, name + " must be in (0, 1]");
    t.max_spread = *v;
    return absl::OkStatus();
  }
  if (key == "congestion_max_per_second") {
    if (*v < 0 || *v > 1e12) return r.Error(node, name + " must be >= 0");
    t.congestion_max_per_second = *v;
    return absl::OkStatus();
  }
  return ReadBar(r, key, node, *v, t);
}

}  // namespace

ProfileSection TransferProfileSection() {
  const TransferBars t;
  return DeclareSection<TransferBars>(
      {
          {"transfer.tcp_stream_min_gbps", "number > 0 (Gb/s)", "the hardware bar",
           "TCP stream bandwidth bar"},
          {"transfer.rdma_write_bw_min_gbps", "number > 0 (Gb/s)", "the hardware bar",
           "RDMA write bandwidth bar"},
          {"transfer.rdma_read_bw_min_gbps", "number > 0 (Gb/s)", "the hardware bar",
           "RDMA read bandwidth bar"},
          {"transfer.rdma_send_bw_min_gbps", "number > 0 (Gb/s)", "the hardware bar",
           "RDMA send bandwidth bar"},
          {"transfer.rdma_write_lat_max_us", "number > 0 (us)", "not judged",
           "RDMA write latency bar (median)"},
          {"transfer.tcp_rr_lat_max_us", "number > 0 (us)", "not judged",
           "TCP request/response latency bar (median)"},
          {"transfer.min_fraction_of_line_rate", "number in (0, 1]",
           Num(t.min_fraction_of_line_rate),
           "share of the hardware's goodput a transfer must reach when no bar is set"},
          {"transfer.min_fraction_of_peers", "number in (0, 1]", Num(t.min_fraction_of_peers),
           "share of the peers' reference of the same kind a transfer must reach"},
          {"transfer.min_fraction_of_best_pair", "number in (0, 1]", Num(t.min_fraction_of_peers),
           "the old name of min_fraction_of_peers (read the same)"},
          {"transfer.noise_sigmas", "number in [0, 10]", Num(t.noise_sigmas),
           "a gap counts only above this many times the run's noise"},
          {"transfer.max_spread", "number in (0, 1]", Num(t.max_spread),
           "above this robust spread a run is too noisy to judge small gaps"},
          {"transfer.below_peers", "warn | fail", Severity(t.below_peers),
           "severity of a reproduced TRANSFER_BELOW_PEERS"},
          {"transfer.min_fraction_of_reverse", "number in (0, 1]", Num(t.min_fraction_of_reverse),
           "one direction of a rail against the other (TRANSFER_ASYMMETRIC below it)"},
          {"transfer.congestion_max_per_second", "number > 0", "not judged",
           "pauses, CNPs or ECN marks per second during a transfer above which it WARNs"},
          {"transfer.error_counters_grew", "warn | fail", Severity(t.error_counters_grew),
           "severity of error counters that grew during a transfer"},
      },
      ReadKey);
}

}  // namespace nodeprobe
