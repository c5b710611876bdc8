// File: counter_deltas.cc
#include "probes/transfer/counter_deltas.h"

#include <cstring>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "platform/netdev_stats.h"
#include "probes/framework/result_util.h"
#include "probes/rdma_devices/rdma_devices_probe.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"

namespace nodeprobe::transfer {
namespace {

// hw_counters that mean an error on the wire or in the transport
// (Documentation of mlx5 and rdma-core's ibv_read_counters names).
const std::set<std::string>& HwErrorCounters() {
  static const std::set<std::string> k = {
      "hw:out_of_sequence",       "hw:packet_seq_err",    "hw:local_ack_timeout_err",
      "hw:rnr_nak_retry_err",     "hw:implied_nak_seq_err", "hw:roce_adp_retrans",
      "hw:duplicate_request",     "hw:rx_icrc_encapsulated"};
  return k;
}

const std::set<std::string>& CongestionCounters() {
  static const std::set<std::string> k = {"port_xmit_wait", "hw:np_cnp_sent",
                                          "hw:rp_cnp_handled", "hw:np_ecn_marked_roce_packets"};
  return k;
}

void ReadDir(const platform::FileTree& sys, const std::string& dir, const std::string& prefix,
             std::map<std::string, uint64_t>* out) {
  absl::StatusOr<std::vector<std::string>> names = sys.ListDir(dir);
  if (!names.ok()) return;  // hw_counters is optional
  for (const std::string& name : *names) {
    absl::StatusOr<std::string> v = sys.ReadValue(dir + "/" + name);
    if (!v.ok()) continue;
    absl::StatusOr<std::optional<uint64_t>> n = rdma::ParseCounter(*v);
    if (n.ok() && n->has_value()) (*out)[prefix + name] = **n;
  }
}

}  // namespace

absl::StatusOr<PortCounters> SnapshotPortCounters(const platform::FileTree& sys,
                                                  const std::string& device, uint32_t port) {
  PortCounters pc;
  pc.port = absl::StrCat(device, ":", port);
  const std::string dir = absl::StrCat("class/infiniband/", device, "/ports/", port);
  if (!sys.Exists(dir)) {
    return absl::NotFoundError(absl::StrCat(sys.Path(dir), " does not exist"));
  }
  ReadDir(sys, dir + "/counters", "", &pc.values);
  ReadDir(sys, dir + "/hw_counters", "hw:", &pc.values);
  return pc;
}

namespace {

// The shared part: deltas of the counters `is_error` or `is_congestion`
// pick, as measurements; errors that grew and congestion above the
// profile's rate as findings with the codes given.
struct DeltaRules {
  std::function<bool(const std::string&)> is_error;
  std::function<bool(const std::string&)> is_congestion;
  const char* error_code;
  const char* error_fix;
  const char* congestion_code;
  const char* congestion_what;
  const char* congestion_fix;
};

std::string Display(const std::string& name) {
  for (const char* prefix : {"hw:", "ethtool:"}) {
    if (name.rfind(prefix, 0) == 0) return name.substr(strlen(prefix));
  }
  return name;
}

void JudgeDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                 const Profile& profile, const DeltaRules& rules, v1::ProbeResult* result) {
  std::vector<std::string> grew, congested;
  for (const auto& [name, end] : after.values) {
    auto it = before.values.find(name);
    if (it == before.values.end()) continue;  // not on this device: absent, not zero
    // A counter that went down was reset (or wrapped): its delta is unknown.
    if (end < it->second) continue;
    const bool error = rules.is_error(name);
    const bool congestion = rules.is_congestion(name);
    if (!error && !congestion) continue;
    const uint64_t delta = end - it->second;
    const std::string counter = Display(name);
    const double per_s = seconds > 0 ? delta / seconds : 0;
    AddMeasurement(result, "counter_delta", static_cast<double>(delta), "count",
                   {{"port", after.port}, {"counter", counter}});
    if (delta == 0) continue;
    if (error) grew.push_back(absl::StrCat(counter, " +", delta));
    if (congestion) {
      AddMeasurement(result, "counter_rate", per_s, "per second",
                     {{"port", after.port}, {"counter", counter}});
      AddEvidence(result, absl::StrCat(after.port, " ", counter, " during the transfer"),
                  absl::StrFormat("+%d (%.1f/s over %.2f s)", delta, per_s, seconds));
      if (profile.transfer.congestion_max_per_second &&
          per_s > *profile.transfer.congestion_max_per_second) {
        congested.push_back(absl::StrFormat("%s %.0f/s", counter, per_s));
      }
    }
  }
  if (!grew.empty()) {
    AddFinding(result, rules.error_code, profile.transfer.error_counters_grew, after.port,
               absl::StrCat(after.port, " error counters grew during the transfer: ",
                            absl::StrJoin(grew, ", "),
                            profile.transfer.error_counters_grew == v1::WARN
                                ? " (WARN: transfer.error_counters_grew)"
                                : ""),
               rules.error_fix);
  }
  if (!congested.empty()) {
    AddFinding(result, rules.congestion_code, v1::WARN, after.port,
               absl::StrCat(after.port, " ", rules.congestion_what, ": ",
                            absl::StrJoin(congested, ", "),
                            " (above transfer.congestion_max_per_second ",
                            *profile.transfer.congestion_max_per_second, ")"),
               rules.congestion_fix);
  }
}

}  // namespace

void JudgeCounterDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                        const Profile& profile, v1::ProbeResult* result) {
  const std::set<std::string> error_names(RdmaErrorCounterNames().begin(),
                                          RdmaErrorCounterNames().end());
  JudgeDeltas(before, after, seconds, profile,
              DeltaRules{[&](const std::string& n) {
                           return error_names.count(n) > 0 || HwErrorCounters().count(n) > 0;
                         },
                         [](const std::string& n) { return CongestionCounters().count(n) > 0; },
                         "RDMA_ERROR_COUNTERS_GREW",
                         "errors under load point at the cable, optics or a switch port: check "
                         "them (mlxlink, the switch's port counters) and retest",
                         "RDMA_CONGESTION_SIGNALS", "kept up by pausing or marking",
                         "check PFC/ECN configuration and buffer settings on the switches along "
                         "the rail"},
              result);
}

PortCounters SnapshotNetdevCounters(const platform::FileTree& sys, const std::string& ifname) {
  PortCounters pc;
  pc.port = ifname;
  pc.values = platform::NetdevStatistics(sys, ifname);
  if (absl::StatusOr<std::map<std::string, uint64_t>> e = platform::EthtoolStatistics(ifname);
      e.ok()) {
    for (const auto& [k, v] : *e) pc.values["ethtool:" + k] = v;
  }
  return pc;
}

void JudgeNetdevDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                       const Profile& profile, v1::ProbeResult* result) {
  // include/uapi/linux/if_link.h's error counters; rx_dropped/tx_dropped
  // also count benign drops (unknown protocols) and are left out.
  static const std::set<std::string> kErrors = {
      "rx_errors",       "tx_errors",         "rx_crc_errors",     "rx_frame_errors",
      "rx_length_errors", "rx_over_errors",   "rx_fifo_errors",    "tx_fifo_errors",
      "tx_carrier_errors", "tx_aborted_errors", "rx_missed_errors"};
  JudgeDeltas(before, after, seconds, profile,
              DeltaRules{[](const std::string& n) { return kErrors.count(n) > 0; },
                         [](const std::string& n) {
                           return n.rfind("ethtool:", 0) == 0 &&
                                  n.find("pause") != std::string::npos &&
                                  n.find("duration") == std::string::npos;
                         },
                         "NETDEV_ERRORS_GREW",
                         "errors under load point at the cable, optics, or the switch port: "
                         "check `ethtool -S` and the switch's counters and retest",
                         "NETDEV_PAUSE_FRAMES", "was paused by flow control",
                         "check PFC/flow-control settings and congestion on the path"},
              result);
}

}  // namespace nodeprobe::transfer
