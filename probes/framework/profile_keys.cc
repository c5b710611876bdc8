#include "probes/framework/profile_keys.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {

namespace {

// The sections profile.cc parses itself (transfer, nccl, guard, versions,
// exceptions); sections declared beside their readers add theirs after
// these (ProfileKeys()).
// What applies without a key is the default the code holds, never
// restated: a changed default changes --explain with it.
std::string Num(double v) { return absl::StrCat(v); }
std::string Severity(v1::Verdict v) { return v == v1::FAIL ? "fail" : "warn"; }

std::vector<ProfileKey> CentralKeys() {
  const TransferBars t;
  return {
      // transfer: judged transfers (two-node, cluster, congestion stages)
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
      {"transfer.min_fraction_of_line_rate", "number in (0, 1]", Num(t.min_fraction_of_line_rate),
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
      // nccl: the nccl probe and the collective stage
      {"nccl.topo_file", "path", "not checked",
       "what NCCL_TOPO_FILE is on the nodes (checked against the node's topology)"},
      {"nccl.<collective>_busbw_min_gbps", "number > 0 (GB/s)",
       "nccl.hardware_min_fraction of the hardware",
       "bus bandwidth bar at the largest size, per collective (all_reduce, all_gather, "
       "reduce_scatter, alltoall, broadcast, reduce, sendrecv)"},
      {"nccl.hardware_min_fraction", "number in (0, 1]", Num(Profile{}.nccl_hardware_min_fraction),
       "with no bar: WARN below this share of what NVLink, PCIe or the rails carry"},
      {"nccl.min_fraction_of_peers", "number in (0, 1]", Num(Profile{}.nccl_min_fraction_of_peers),
       "a node's collectives against the median of the other nodes' in a run"},
      {"nccl.collectives", "list of collective names", "all seven",
       "what the nccl probe and stages run"},
      {"nccl.sizes", "list of byte counts (4 B .. 16 GiB)", "the min/max/step sweep",
       "the message sizes, instead of a sweep"},
      {"nccl.min_bytes", "bytes", "1 MiB", "the sweep's first size"},
      {"nccl.max_bytes", "bytes", "256 MiB", "the sweep's last size"},
      {"nccl.step_factor", "integer >= 2", "4", "the sweep's multiplier"},
      {"nccl.iters", "integer > 0", "20", "timed iterations per size"},
      {"nccl.warmup_iters", "integer > 0", "5", "untimed iterations before them"},
      {"nccl.op_timeout_s", "seconds > 0", "60", "deadline of one size of one collective"},
      {"nccl.env", "mapping of NCCL_* variables to strings", "none",
       "NCCL variables set for our runs (NCCL_IB_TC, NCCL_IB_SL, ...)"},
      // guard: the busy-node guard
      {"guard.intrusive_in_sweep", "true | false", Profile{}.intrusive_in_sweep ? "true" : "false",
       "`run --sweep` also runs GPU copies, collectives and loopback transfers"},
      // versions: pinned components
      {"versions.<component>", "version string (a prefix by dotted parts)", "not pinned",
       "the expected version of a component (`nodeprobe run` lists them in the inventory)"},
      // exceptions: accepted findings
      {"exceptions[].code", "a finding code (`nodeprobe findings`)", "required",
       "the finding accepted: FAIL becomes WARN"},
      {"exceptions[].device", "device name; \"mlx5_3\" matches its ports", "every device",
       "which device's finding"},
      {"exceptions[].reason", "text", "required", "why it is accepted (kept in the result)"},
      {"exceptions[].owner", "text", "none", "who answers for it (recorded beside the finding)"},
      {"exceptions[].expires", "date (through that day, UTC) or RFC 3339 time", "never",
       "after it the exception is not applied and the finding says so"},
  };
}

}  // namespace

const std::vector<ProfileKey>& ProfileKeys() {
  static const std::vector<ProfileKey> kKeys = [] {
    std::vector<ProfileKey> keys = CentralKeys();
    for (const ProfileSection& s : DeclaredProfileSections()) {
      keys.insert(keys.end(), s.keys.begin(), s.keys.end());
    }
    return keys;
  }();
  return kKeys;
}

std::vector<std::string> SectionKeys(std::string_view section) {
  std::vector<std::string> out;
  for (const ProfileKey& k : ProfileKeys()) {
    const std::string_view key = k.key;  // "section.key" or "section.key.sub"
    const size_t dot = key.find('.');
    std::string_view head = key.substr(0, dot);
    if (head.size() > 2 && head.substr(head.size() - 2) == "[]") head.remove_suffix(2);
    if (section.empty()) {
      // Each section once, wherever its keys sit in the table.
      if (std::find(out.begin(), out.end(), head) == out.end()) out.emplace_back(head);
    } else if (head == section) {
      std::string_view name = key.substr(dot + 1);
      name = name.substr(0, name.find('.'));
      // acceptance.owners.host and .fabric are one key, owners.
      if (std::find(out.begin(), out.end(), name) != out.end()) continue;
      const size_t family = name.find("<collective>");
      if (family == std::string_view::npos) {
        if (name.find('<') == std::string_view::npos) out.emplace_back(name);
        continue;
      }
      // One key per collective NCCL runs.
      for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                            "reduce", "sendrecv"}) {
        out.push_back(std::string(name.substr(0, family)) + c +
                      std::string(name.substr(family + 12)));
      }
    }
  }
  return out;
}

}  // namespace nodeprobe
