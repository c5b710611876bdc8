#include "probes/transfer/counter_deltas.h"

#include <cstring>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "platform/netdev_stats.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"
#include "probes/rdma_devices/rdma_devices_probe.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"
#include "probes/transfer/transfer_findings.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe::transfer {
namespace {

// hw_counters that mean an error on the wire or in the transport
// (Documentation of mlx5 and rdma-core's ibv_read_counters names).
const std::set<std::string>& HwErrorCounters() {
  static const std::set<std::string> k = {
      "hw:out_of_sequence",       "hw:packet_seq_err",    "hw:local_ack_timeout_err",
      "hw:implied_nak_seq_err",   "hw:roce_adp_retrans",  "hw:duplicate_request",
      "hw:rx_icrc_encapsulated"};
  return k;
}

// rnr_nak_retry_err counts RNR NAKs received: the peer had no receive
// posted yet (SEND flow control) and the QP retried within its limit -- a
// receiver falling behind, not a failure (an exhausted limit is a
// completion error the transfer itself reports).
const std::set<std::string>& CongestionCounters() {
  static const std::set<std::string> k = {"port_xmit_wait", "hw:np_cnp_sent",
                                          "hw:rp_cnp_handled", "hw:np_ecn_marked_roce_packets",
                                          "hw:rnr_nak_retry_err"};
  return k;
}

// The width of an InfiniBand PMA PortCounters field as sysfs counters/
// shows it (IBA vol. 1, PortCounters; the kernel's sysfs.c): such a
// counter stops at all ones, so from there its growth cannot be seen.
// 0: not a fixed-width PMA field (64-bit data counters, hw_counters).
int PmaCounterBits(const std::string& name) {
  static const std::map<std::string, int> k = {
      {"symbol_error", 16},
      {"link_error_recovery", 8},
      {"link_downed", 8},
      {"port_rcv_errors", 16},
      {"port_rcv_remote_physical_errors", 16},
      {"port_rcv_switch_relay_errors", 16},
      {"port_xmit_discards", 16},
      {"port_xmit_constraint_errors", 8},
      {"port_rcv_constraint_errors", 8},
      {"local_link_integrity_errors", 4},
      {"excessive_buffer_overrun_errors", 4},
      {"VL15_dropped", 16},
      {"port_xmit_wait", 32}};
  auto it = k.find(name);
  return it == k.end() ? 0 : it->second;
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

// The driver's ethtool counters of `ifname`, prefixed "ethtool:"; none when
// it has none or is not in this namespace.
void AddEthtoolCounters(const std::string& ifname, PortCounters* pc) {
  if (absl::StatusOr<std::map<std::string, uint64_t>> e = platform::EthtoolStatistics(ifname);
      e.ok()) {
    for (const auto& [k, v] : *e) pc->values["ethtool:" + k] = v;
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

std::string Display(const std::string& name) {
  for (const char* prefix : {"hw:", "ethtool:"}) {
    if (name.rfind(prefix, 0) == 0) return name.substr(strlen(prefix));
  }
  return name;
}

bool IsRdmaError(const std::string& n) {
  static const std::set<std::string> names(RdmaErrorCounterNames().begin(),
                                           RdmaErrorCounterNames().end());
  return names.count(n) > 0 || HwErrorCounters().count(n) > 0;
}

// include/uapi/linux/if_link.h's error counters; rx_dropped/tx_dropped
// also count benign drops (unknown protocols) and are left out.
bool IsNetdevError(const std::string& n) {
  static const std::set<std::string> k = {
      "rx_errors",       "tx_errors",         "rx_crc_errors",     "rx_frame_errors",
      "rx_length_errors", "rx_over_errors",   "rx_fifo_errors",    "tx_fifo_errors",
      "tx_carrier_errors", "tx_aborted_errors", "rx_missed_errors"};
  return k.count(n) > 0;
}

bool IsNetdevPause(const std::string& n) {
  return n.rfind("ethtool:", 0) == 0 && n.find("pause") != std::string::npos &&
         n.find("duration") == std::string::npos && n.find("storm") == std::string::npos;
}

// The driver's pause-storm watchdog (mlx5: tx_pause_storm_warning_events,
// tx_pause_storm_error_events): a receiver paused the link without end.
bool IsPauseStorm(const std::string& n) {
  return n.rfind("ethtool:", 0) == 0 && n.find("pause_storm") != std::string::npos;
}

// Packets the NIC dropped for want of buffer (mlx5: rx_discards_phy,
// rx_out_of_buffer, rx_prioN_discards): on a lossless class, loss.
bool IsNetdevDiscard(const std::string& n) {
  return n.rfind("ethtool:", 0) == 0 &&
         (n.find("discards") != std::string::npos || n == "ethtool:rx_out_of_buffer");
}

// What a side did in the transfer: whose port the loaded direction enters.
std::string Role(v1::TransferOp op, bool bidirectional, const std::string& side) {
  if (side.empty()) return "";
  // Bidirectional and ping-pong runs load both ends both ways.
  if (bidirectional || op == v1::RR_LAT || op == v1::WRITE_LAT) return absl::StrCat("the ", side);
  // READ moves the server's memory to the client; the others the client's
  // to the server.
  const bool client_sends = op != v1::READ_BW;
  const bool sender = (side == "client") == client_sends;
  return absl::StrCat("the ", side, " (", sender ? "sender" : "receiver", ")");
}

// The deltas of one side and port, summed over rows.
struct PortSum {
  std::map<std::string, std::pair<uint64_t, std::string>> counters;  // name -> delta, kind
  double seconds = 0;
  std::string during = "the transfer";  // what the counters were read around
};

void JudgePort(const std::string& side, const std::string& role, const std::string& port,
               const PortSum& sum, bool rdma, const Profile& profile,
               v1::ProbeResult* result) {
  std::vector<std::string> grew, congested, storms;
  const std::string where = role.empty() ? port : absl::StrCat(port, " on ", role);
  for (const auto& [counter, value] : sum.counters) {
    const auto& [delta, kind] = value;
    std::map<std::string, std::string> labels = {{"port", port}, {"counter", counter}};
    if (!side.empty()) labels["side"] = side;
    if (kind == "saturated") {
      AddEvidence(result, absl::StrCat(where, " ", counter, " during ", sum.during),
                  absl::StrCat("saturated: not judged (at its PMA width's maximum before the "
                               "window, so growth cannot be seen; reset the port's counters, "
                               "e.g. perfquery -R, or read the extended counters)"));
      continue;
    }
    AddMeasurement(result, "counter_delta", static_cast<double>(delta), "count", labels);
    if (delta == 0) continue;
    if (kind == "error") {
      grew.push_back(absl::StrCat(counter, " +", delta));
      continue;
    }
    if (kind == "storm") storms.push_back(absl::StrCat(counter, " +", delta));
    const double per_s = sum.seconds > 0 ? delta / sum.seconds : 0;
    AddMeasurement(result, "counter_rate", per_s, "per second", labels);
    AddEvidence(result, absl::StrCat(where, " ", counter, " during ", sum.during),
                absl::StrFormat("+%d (%.1f/s over %.2f s)", delta, per_s, sum.seconds));
    if (profile.Section<TransferBars>().congestion_max_per_second &&
        per_s > *profile.Section<TransferBars>().congestion_max_per_second) {
      congested.push_back(absl::StrFormat("%s %.0f/s", counter, per_s));
    }
  }
  if (!grew.empty()) {
    AddFinding(result,
               rdma ? findings::kRdmaErrorCountersGrew.code : findings::kNetdevErrorsGrew.code,
               profile.Section<TransferBars>().error_counters_grew, port,
               absl::StrCat(where, " error counters grew during ", sum.during, ": ",
                            absl::StrJoin(grew, ", "),
                            profile.Section<TransferBars>().error_counters_grew == v1::WARN
                                ? " (WARN: transfer.error_counters_grew)"
                                : ""));
  }
  if (!storms.empty()) {
    AddFinding(result, findings::kRocePauseStorm.code, v1::FAIL, port,
               absl::StrCat(where, " pause-storm watchdog fired during ", sum.during, ": ",
                            absl::StrJoin(storms, ", ")));
  }
  if (!congested.empty()) {
    AddFinding(
        result, rdma ? findings::kRdmaCongestionSignals.code : findings::kNetdevPauseFrames.code,
        port,
        absl::StrCat(where, " ",
                     rdma ? "kept up by pausing or marking" : "was paused by flow control", ": ",
                     absl::StrJoin(congested, ", "), " (above transfer.congestion_max_per_second ",
                     *profile.Section<TransferBars>().congestion_max_per_second, ")"));
  }
}

}  // namespace

std::vector<v1::CounterDelta> ClassifiedDeltas(const PortCounters& before,
                                               const PortCounters& after, double seconds,
                                               bool rdma, const std::string& side) {
  std::vector<v1::CounterDelta> out;
  for (const auto& [name, end] : after.values) {
    auto it = before.values.find(name);
    if (it == before.values.end()) continue;  // not on this device: absent, not zero
    // A counter that went down was reset (or wrapped): its delta is unknown.
    if (end < it->second) continue;
    const bool error = rdma ? IsRdmaError(name) : IsNetdevError(name);
    const bool storm = IsPauseStorm(name);
    // A RoCE port's netdev counters ride with the RDMA port's.
    const bool congestion = (rdma && CongestionCounters().count(name) > 0) || IsNetdevPause(name) ||
                            IsNetdevDiscard(name);
    if (!error && !storm && !congestion) continue;
    v1::CounterDelta d;
    d.set_side(side);
    d.set_port(after.port);
    d.set_counter(Display(name));
    d.set_delta(end - it->second);
    d.set_seconds(seconds);
    d.set_kind(error ? "error" : storm ? "storm" : "congestion");
    if (const int bits = rdma ? PmaCounterBits(name) : 0;
        bits > 0 && it->second == (uint64_t{1} << bits) - 1) {
      d.set_kind("saturated");  // stuck at its maximum: growth cannot be seen
      d.set_delta(0);
    }
    out.push_back(std::move(d));
  }
  return out;
}

CounterSource RdmaCounterSource(const std::string& sys_root, const std::string& device,
                                uint32_t port) {
  CounterSource s;
  s.rdma = true;
  // A RoCE port's pauses, storms and discards are the netdev's (ethtool),
  // read in this namespace: only when `sys_root` is this host's. Which
  // netdev is settled once, not at every read.
  std::string ndev;
  if (sys_root == "/sys") {
    ndev = platform::FileTree(sys_root)
               .ReadValue(
                   absl::StrCat("class/infiniband/", device, "/ports/", port, "/gid_attrs/ndevs/0"))
               .value_or("");
  }
  s.read = [sys = platform::FileTree(sys_root), ndev, device, port] {
    absl::StatusOr<PortCounters> pc = SnapshotPortCounters(sys, device, port);
    if (pc.ok() && !ndev.empty()) AddEthtoolCounters(ndev, &*pc);
    return pc;
  };
  return s;
}

CounterSource NetdevCounterSource(const std::string& sys_root, const std::string& ifname) {
  CounterSource s;
  s.read = [sys = platform::FileTree(sys_root), ifname]() -> absl::StatusOr<PortCounters> {
    return SnapshotNetdevCounters(sys, ifname);
  };
  return s;
}

CounterWindow::CounterWindow(const CounterSource& source, std::string side)
    : source_(source),
      side_(std::move(side)),
      before_(source.read ? source.read()
                          : absl::StatusOr<PortCounters>(absl::NotFoundError(source.why_none))),
      started_(absl::Now()) {}

std::vector<v1::CounterDelta> CounterWindow::Finish(std::string* why) const {
  if (!before_.ok()) {
    *why = absl::StrCat(side_, ": ", before_.status().message());
    return {};
  }
  absl::StatusOr<PortCounters> after = source_.read();
  if (!after.ok()) {
    *why = absl::StrCat(side_, ": ", after.status().message());
    return {};
  }
  return ClassifiedDeltas(*before_, *after, absl::ToDoubleSeconds(absl::Now() - started_),
                          source_.rdma, side_);
}

void AddServerCounters(const v1::TransferDone& done, v1::TransferResult* row) {
  for (const v1::CounterDelta& d : done.counters()) {
    v1::CounterDelta* c = row->add_counters();
    *c = d;
    c->set_side("server");  // whatever it called itself, it is the server
  }
  if (!done.counters_unread().empty()) {
    row->add_counters_unread(done.counters_unread());
  } else if (done.counters().empty()) {
    row->add_counters_unread(
        "server: no counters in its answer (its port has none, or it runs an older nodeprobe)");
  }
}

void JudgeTransferCounters(const v1::TransferReport& report, bool bidirectional,
                           const Profile& profile, v1::ProbeResult* result) {
  // side -> port -> sums; a port's seconds are summed once per row.
  std::map<std::string, std::map<std::string, PortSum>> sums;
  for (const v1::TransferResult& row : report.results()) {
    std::set<std::pair<std::string, std::string>> timed;
    for (const v1::CounterDelta& d : row.counters()) {
      PortSum& sum = sums[d.side()][d.port()];
      auto& [delta, kind] = sum.counters[d.counter()];
      delta += d.delta();
      kind = d.kind();
      if (timed.insert({d.side(), d.port()}).second) sum.seconds += d.seconds();
    }
    for (const std::string& why : row.counters_unread()) {
      AddEvidence(result, absl::StrCat(row.size(), "-byte run: counters not read"), why);
    }
  }
  const bool rdma = report.transport() == v1::RDMA;
  for (const auto& [side, ports] : sums) {
    for (const auto& [port, sum] : ports) {
      JudgePort(side, Role(report.op(), bidirectional, side), port, sum, rdma, profile, result);
    }
  }
}

void JudgeCollectiveCounters(const v1::CollectiveReport& report, const Profile& profile,
                             v1::ProbeResult* result) {
  std::map<std::string, std::map<std::string, PortSum>> nodes;  // node -> port -> sums
  for (const v1::CollectiveRank& rank : report.ranks()) {
    for (const v1::CounterDelta& d : rank.counters()) {
      PortSum& sum = nodes[rank.node()][d.port()];
      sum.during = "the collective";
      auto& [delta, kind] = sum.counters[d.counter()];
      delta = std::max<uint64_t>(delta, d.delta());
      kind = d.kind();
      sum.seconds = std::max(sum.seconds, d.seconds());
    }
    for (const std::string& why : rank.counters_unread()) {
      AddEvidence(result, absl::StrCat(rank.node(), " rank ", rank.rank(), ": counters not read"),
                  why);
    }
  }
  for (const auto& [node, ports] : nodes) {
    for (const auto& [port, sum] : ports) {
      JudgePort(node, node, port, sum, true, profile, result);
    }
  }
}

void JudgeCounterDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                        const Profile& profile, v1::ProbeResult* result) {
  PortSum sum;
  sum.seconds = seconds;
  for (const v1::CounterDelta& d : ClassifiedDeltas(before, after, seconds, true, "")) {
    sum.counters[d.counter()] = {d.delta(), d.kind()};
  }
  JudgePort("", "", after.port, sum, true, profile, result);
}

PortCounters SnapshotNetdevCounters(const platform::FileTree& sys, const std::string& ifname) {
  PortCounters pc;
  pc.port = ifname;
  pc.values = platform::NetdevStatistics(sys, ifname);
  AddEthtoolCounters(ifname, &pc);
  return pc;
}

}  // namespace nodeprobe::transfer
