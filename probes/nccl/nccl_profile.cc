// Declares `nccl:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/nccl/nccl_profile.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

std::string Num(double v) { return absl::StrCat(v); }

absl::Status ReadList(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                      v1::CollectiveOptions& o) {
  const std::string name = "nccl." + key;
  if (!v.IsSequence()) return r.Error(v, name + " must be a list");
  for (const auto& item : v) {
    if (key == "sizes") {
      absl::StatusOr<double> n = r.Number(item, name);
      if (!n.ok()) return n.status();
      if (*n < 4 || *n > 17179869184.0)
        return r.Error(item, name + " entries must be 4 B .. 16 GiB");
      o.add_sizes(static_cast<uint64_t>(*n));
      continue;
    }
    absl::StatusOr<std::string> c = r.String(item, name);
    if (!c.ok()) return c.status();
    static const std::vector<std::string> kColl = {"all_reduce",     "all_gather", "broadcast",
                                                   "reduce_scatter", "reduce",     "alltoall",
                                                   "sendrecv"};
    if (std::find(kColl.begin(), kColl.end(), *c) == kColl.end()) {
      return r.Error(item, absl::StrCat(name, ": unknown collective '", *c,
                                        "' (all_reduce, all_gather, broadcast, reduce_scatter, "
                                        "reduce, alltoall, sendrecv)"));
    }
    o.add_collectives(*c);
  }
  return absl::OkStatus();
}

absl::Status ReadEnv(const ProfileReader& r, const YAML::Node& v, NcclRules& into) {
  if (!v.IsMap()) return r.Error(v, "nccl.env must be a mapping of NCCL_* variables");
  for (const auto& e : v) {
    const std::string var = e.first.as<std::string>();
    if (!IsSettableNcclVariable(var)) {
      return r.Error(e.first,
                     absl::StrCat("nccl.env: '", var, "' is not one nodeprobe sets (allowed: ",
                                  absl::StrJoin(SettableNcclVariables(), ", "), ")"));
    }
    absl::StatusOr<std::string> val = r.String(e.second, "nccl.env." + var);
    if (!val.ok()) return val.status();
    into.env[var] = *val;
  }
  return absl::OkStatus();
}

// The sweep's numbers; min_bytes above max_bytes is refused at whichever
// of the two comes second.
absl::Status ReadSweepNumber(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                             v1::CollectiveOptions& o) {
  const std::string name = "nccl." + key;
  if (key == "op_timeout_s") {
    absl::StatusOr<double> n = r.Number(v, name);
    if (!n.ok()) return n.status();
    if (*n <= 0 || *n > 3600) return r.Error(v, name + " must be > 0 and <= 3600 (s)");
    o.set_op_timeout_s(*n);
    return absl::OkStatus();
  }
  const bool bytes = key == "min_bytes" || key == "max_bytes";
  const int64_t cap = key == "step_factor" ? 1024 : bytes ? int64_t{16} << 30 : 100000;
  const int64_t floor = key == "step_factor" ? 2 : key == "iters" || key == "warmup_iters" ? 1 : 4;
  absl::StatusOr<int64_t> whole = r.Whole(v, name, floor, cap, bytes ? " (16 GiB)" : "");
  if (!whole.ok()) return whole.status();
  const auto u = static_cast<uint64_t>(*whole);
  if (key == "min_bytes") o.set_min_bytes(u);
  if (key == "max_bytes") o.set_max_bytes(u);
  if (key == "step_factor") o.set_step_factor(static_cast<uint32_t>(u));
  if (key == "iters") o.set_iters(static_cast<uint32_t>(u));
  if (key == "warmup_iters") o.set_warmup_iters(static_cast<uint32_t>(u));
  if (o.min_bytes() > 0 && o.max_bytes() > 0 && o.min_bytes() > o.max_bytes()) {
    return r.Error(v, absl::StrCat("nccl.min_bytes ", o.min_bytes(), " is above nccl.max_bytes ",
                                   o.max_bytes()));
  }
  return absl::OkStatus();
}

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     NcclRules& into) {
  if (key == "collectives" || key == "sizes") return ReadList(r, key, v, into.run);
  if (key == "env") return ReadEnv(r, v, into);
  if (key == "topo_file") {
    absl::StatusOr<std::string> path = r.String(v, "nccl.topo_file");
    if (!path.ok()) return path.status();
    if (path->empty() || (*path)[0] != '/') {
      return r.Error(v, "nccl.topo_file must be an absolute path");
    }
    into.topo_file = *path;
    return absl::OkStatus();
  }
  if (key == "hardware_min_fraction" || key == "min_fraction_of_peers") {
    absl::StatusOr<double> n = r.Number(v, "nccl." + key);
    if (!n.ok()) return n.status();
    if (*n <= 0 || *n > 1) {
      return r.Error(v, "nccl." + key +
                            " must be above 0 and at most 1 (a share, e.g. 0.6 "
                            "of the hardware's bound or 0.9 of the peers')");
    }
    (key == "hardware_min_fraction" ? into.hardware_min_fraction : into.min_fraction_of_peers) = *n;
    return absl::OkStatus();
  }
  constexpr char kBarSuffix[] = "_busbw_min_gbps";
  if (key.size() > strlen(kBarSuffix) &&
      key.compare(key.size() - strlen(kBarSuffix), std::string::npos, kBarSuffix) == 0) {
    absl::StatusOr<double> n = r.Number(v, "nccl." + key);
    if (!n.ok()) return n.status();
    if (*n <= 0) return r.Error(v, "nccl." + key + " must be above 0 (GB/s)");
    into.busbw_min_gbps[key.substr(0, key.size() - strlen(kBarSuffix))] = *n;
    return absl::OkStatus();
  }
  return ReadSweepNumber(r, key, v, into.run);
}

}  // namespace

ProfileSection NcclProfileSection() {
  const NcclRules n;
  return DeclareSection<NcclRules>(
      {
          {"nccl.topo_file", "path", "not checked",
           "what NCCL_TOPO_FILE is on the nodes (checked against the node's topology)"},
          {"nccl.<collective>_busbw_min_gbps", "number > 0 (GB/s)",
           "nccl.hardware_min_fraction of the hardware",
           "bus bandwidth bar at the largest size, per collective (all_reduce, all_gather, "
           "reduce_scatter, alltoall, broadcast, reduce, sendrecv)"},
          {"nccl.hardware_min_fraction", "number in (0, 1]", Num(n.hardware_min_fraction),
           "with no bar: WARN below this share of what NVLink, PCIe or the rails carry"},
          {"nccl.min_fraction_of_peers", "number in (0, 1]", Num(n.min_fraction_of_peers),
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
      },
      ReadKey);
}

}  // namespace nodeprobe
