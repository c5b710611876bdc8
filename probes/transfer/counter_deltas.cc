// File: counter_deltas.cc
#include "probes/transfer/counter_deltas.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

void JudgeCounterDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                        const Profile& profile, v1::ProbeResult* result) {
  std::vector<std::string> grew, congested;
  const std::set<std::string> error_names(RdmaErrorCounterNames().begin(),
                                          RdmaErrorCounterNames().end());
  for (const auto& [name, end] : after.values) {
    auto it = before.values.find(name);
    if (it == before.values.end()) continue;  // not on this device: absent, not zero
    // A counter that went down was reset (or wrapped): its delta is unknown.
    if (end < it->second) continue;
    const uint64_t delta = end - it->second;
    const std::string counter = name.rfind("hw:", 0) == 0 ? name.substr(3) : name;
    const double per_s = seconds > 0 ? delta / seconds : 0;
    const bool error = error_names.count(name) > 0 || HwErrorCounters().count(name) > 0;
    const bool congestion = CongestionCounters().count(name) > 0;
    if (!error && !congestion) continue;
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
    AddFinding(result, "RDMA_ERROR_COUNTERS_GREW", v1::FAIL, after.port,
               absl::StrCat(after.port, " error counters grew during the transfer: ",
                            absl::StrJoin(grew, ", ")),
               "errors under load point at the cable, optics or a switch port: check them "
               "(mlxlink, the switch's port counters) and retest");
  }
  if (!congested.empty()) {
    AddFinding(result, "RDMA_CONGESTION_SIGNALS", v1::WARN, after.port,
               absl::StrCat(after.port, " kept up by pausing or marking: ",
                            absl::StrJoin(congested, ", "), " (above transfer."
                            "congestion_max_per_second ",
                            *profile.transfer.congestion_max_per_second, ")"),
               "check PFC/ECN configuration and buffer settings on the switches along the rail");
  }
}

}  // namespace nodeprobe::transfer
