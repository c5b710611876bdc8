// File: profile.cc
// yaml-cpp reports problems by exception; they are caught here and turned
// into one INVALID_ARGUMENT naming the file, line and key.
#include "probes/framework/profile.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "probes/framework/finding_codes.h"
#include "probes/framework/profile_keys.h"
#include "probes/framework/profile_reader.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

// An exception's expiry: a date (valid through that day, UTC) or an RFC 3339
// time.
// Real calendar dates only: the text must read back as written (absl
// normalises 2027-02-30 to March 2), with a four-digit year.
absl::StatusOr<absl::Time> ParseExpiry(const std::string& text) {
  absl::Time t;
  std::string err;
  const absl::Status not_a_date = absl::InvalidArgumentError(absl::StrCat(
      "exceptions.expires '", text, "' is not a calendar date (write 2027-01-31, or an RFC "
      "3339 time such as 2027-01-31T18:00:00Z)"));
  if (text.size() == 10 && absl::ParseTime("%Y-%m-%d", text, absl::UTCTimeZone(), &t, &err)) {
    if (absl::FormatTime("%Y-%m-%d", t, absl::UTCTimeZone()) != text) return not_a_date;
    return t + absl::Hours(24);
  }
  if (text.size() >= 20 && text.size() <= 40 && text[4] == '-' &&
      absl::ParseTime(absl::RFC3339_full, text, &t, &err)) {
    // The date part must be a real one too.
    absl::Time day;
    if (!absl::ParseTime("%Y-%m-%d", text.substr(0, 10), absl::UTCTimeZone(), &day, &err) ||
        absl::FormatTime("%Y-%m-%d", day, absl::UTCTimeZone()) != text.substr(0, 10)) {
      return not_a_date;
    }
    return t;
  }
  return not_a_date;
}

class ProfileParser : public ProfileReader {
 public:
  explicit ProfileParser(std::string_view source) : ProfileReader(source) {}

  absl::Status ParseTransfer(const YAML::Node& node, Profile& p) {
    if (!node.IsMap()) return Error(node, "transfer must be a mapping");
    static const std::vector<std::string> kKeys = SectionKeys("transfer");
    TransferBars& t = p.transfer;
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      const std::string name = "transfer." + key;
      if (key == "below_peers") {
        absl::StatusOr<std::string> v = OneOf(kv.second, name, {"warn", "fail"});
        if (!v.ok()) return v.status();
        t.below_peers = *v == "fail" ? v1::FAIL : v1::WARN;
        continue;
      }
      if (key == "error_counters_grew") {
        absl::StatusOr<std::string> v = OneOf(kv.second, name, {"warn", "fail"});
        if (!v.ok()) return v.status();
        t.error_counters_grew = *v == "fail" ? v1::FAIL : v1::WARN;
        continue;
      }
      if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
        return UnknownKey(kv.first, "transfer.", kKeys);
      }
      absl::StatusOr<double> v = Number(kv.second, name);
      if (!v.ok()) return v.status();
      if (absl::StartsWith(key, "min_fraction")) {
        if (*v <= 0 || *v > 1) return Error(kv.second, name + " must be in (0, 1]");
        if (key == "min_fraction_of_line_rate") t.min_fraction_of_line_rate = *v;
        // The older name: the reference is the peers' median now, not the best.
        if (key == "min_fraction_of_peers" || key == "min_fraction_of_best_pair") {
          t.min_fraction_of_peers = *v;
        }
        if (key == "min_fraction_of_reverse") t.min_fraction_of_reverse = *v;
        continue;
      }
      if (key == "noise_sigmas") {
        if (*v < 0 || *v > 10) return Error(kv.second, name + " must be in [0, 10]");
        t.noise_sigmas = *v;
        continue;
      }
      if (key == "max_spread") {
        if (*v <= 0 || *v > 1) return Error(kv.second, name + " must be in (0, 1]");
        t.max_spread = *v;
        continue;
      }
      if (key == "congestion_max_per_second") {
        if (*v < 0 || *v > 1e12) return Error(kv.second, name + " must be >= 0");
        t.congestion_max_per_second = *v;
        continue;
      }
      const bool latency = absl::EndsWith(key, "_us");
      if (*v <= 0 || *v > (latency ? 1e6 : 3200)) {
        return Error(kv.second, absl::StrCat(name, " must be > 0 and <= ",
                                             latency ? "1000000 (us)" : "3200 (Gb/s)"));
      }
      if (key == "tcp_stream_min_gbps") t.tcp_stream_min_gbps = *v;
      if (key == "rdma_write_bw_min_gbps") t.rdma_write_bw_min_gbps = *v;
      if (key == "rdma_read_bw_min_gbps") t.rdma_read_bw_min_gbps = *v;
      if (key == "rdma_send_bw_min_gbps") t.rdma_send_bw_min_gbps = *v;
      if (key == "rdma_write_lat_max_us") t.rdma_write_lat_max_us = *v;
      if (key == "tcp_rr_lat_max_us") t.tcp_rr_lat_max_us = *v;
    }
    return absl::OkStatus();
  }

  absl::Status ParseGuard(const YAML::Node& node, Profile& p) {
    if (!node.IsMap()) return Error(node, "guard must be a mapping");
    static const std::vector<std::string> kKeys = SectionKeys("guard");
    for (const auto& kv : node) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
        return UnknownKey(kv.first, "guard.", kKeys);
      }
      absl::StatusOr<bool> v = Bool(kv.second, "guard." + key);
      if (!v.ok()) return v.status();
      p.intrusive_in_sweep = *v;
    }
    return absl::OkStatus();
  }

  static bool IsRunKey(const std::string& key) {
    return key == "collectives" || key == "min_bytes" || key == "max_bytes" ||
           key == "step_factor" || key == "sizes" || key == "iters" || key == "warmup_iters" ||
           key == "op_timeout_s" || key == "env";
  }

  // The keys that say how collectives run (the rest are bars).
  absl::Status ParseNcclRun(const std::string& key, const YAML::Node& v, Profile& p) {
    v1::CollectiveOptions& o = p.nccl_run;
    const std::string name = "nccl." + key;
    if (key == "collectives" || key == "sizes") {
      if (!v.IsSequence()) return Error(v, name + " must be a list");
      for (const auto& item : v) {
        if (key == "sizes") {
          absl::StatusOr<double> n = Number(item, name);
          if (!n.ok()) return n.status();
          if (*n < 4 || *n > 17179869184.0) return Error(item, name + " entries must be 4 B .. 16 GiB");
          o.add_sizes(static_cast<uint64_t>(*n));
          continue;
        }
        absl::StatusOr<std::string> c = String(item, name);
        if (!c.ok()) return c.status();
        static const std::vector<std::string> kColl = {"all_reduce", "all_gather", "broadcast",
                                                       "reduce_scatter", "reduce", "alltoall",
                                                       "sendrecv"};
        if (std::find(kColl.begin(), kColl.end(), *c) == kColl.end()) {
          return Error(item, absl::StrCat(name, ": unknown collective '", *c,
                                          "' (all_reduce, all_gather, broadcast, reduce_scatter, "
                                          "reduce, alltoall, sendrecv)"));
        }
        o.add_collectives(*c);
      }
      return absl::OkStatus();
    }
    if (key == "env") {
      if (!v.IsMap()) return Error(v, "nccl.env must be a mapping of NCCL_* variables");
      for (const auto& e : v) {
        const std::string var = e.first.as<std::string>();
        if (!IsSettableNcclVariable(var)) {
          return Error(e.first, absl::StrCat("nccl.env: '", var,
                                             "' is not one nodeprobe sets (allowed: ",
                                             absl::StrJoin(SettableNcclVariables(), ", "), ")"));
        }
        absl::StatusOr<std::string> val = String(e.second, "nccl.env." + var);
        if (!val.ok()) return val.status();
        p.nccl_env[var] = *val;
      }
      return absl::OkStatus();
    }
    absl::StatusOr<double> n = Number(v, name);
    if (!n.ok()) return n.status();
    if (key == "op_timeout_s") {
      if (*n <= 0 || *n > 3600) return Error(v, name + " must be > 0 and <= 3600 (s)");
      o.set_op_timeout_s(*n);
      return absl::OkStatus();
    }
    const bool bytes = key == "min_bytes" || key == "max_bytes";
    const int64_t cap = key == "step_factor" ? 1024 : bytes ? int64_t{16} << 30 : 100000;
    const int64_t floor = key == "step_factor" ? 2 : key == "iters" ? 1 : key == "warmup_iters" ? 1 : 4;
    absl::StatusOr<int64_t> whole = Whole(v, name, floor, cap, bytes ? " (16 GiB)" : "");
    if (!whole.ok()) return whole.status();
    const auto u = static_cast<uint64_t>(*whole);
    if (key == "min_bytes") o.set_min_bytes(u);
    if (key == "max_bytes") o.set_max_bytes(u);
    if (key == "step_factor") o.set_step_factor(static_cast<uint32_t>(u));
    if (key == "iters") o.set_iters(static_cast<uint32_t>(u));
    if (key == "warmup_iters") o.set_warmup_iters(static_cast<uint32_t>(u));
    return absl::OkStatus();
  }

  absl::Status ParseNccl(const YAML::Node& nccl, Profile& p) {
    if (!nccl.IsMap()) return Error(nccl, "nccl must be a mapping");
    static const std::vector<std::string> kKeys = SectionKeys("nccl");
    for (const auto& kv : nccl) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
        return UnknownKey(kv.first, "nccl.", kKeys);
      }
      if (IsRunKey(key)) {
        if (absl::Status run = ParseNcclRun(key, kv.second, p); !run.ok()) return run;
        continue;
      }
      if (key == "hardware_min_fraction" || key == "min_fraction_of_peers") {
        absl::StatusOr<double> v = Number(kv.second, "nccl." + key);
        if (!v.ok()) return v.status();
        if (*v <= 0 || *v > 1) {
          return Error(kv.second, "nccl." + key + " must be above 0 and at most 1 (a share, "
                                  "e.g. 0.6 of the hardware's bound or 0.9 of the peers')");
        }
        (key == "hardware_min_fraction" ? p.nccl_hardware_min_fraction
                                        : p.nccl_min_fraction_of_peers) = *v;
        continue;
      }
      if (key != "topo_file") {
        absl::StatusOr<double> v = Number(kv.second, "nccl." + key);
        if (!v.ok()) return v.status();
        if (*v <= 0) return Error(kv.second, "nccl." + key + " must be above 0 (GB/s)");
        p.nccl_busbw_min_gbps[key.substr(0, key.size() - strlen("_busbw_min_gbps"))] = *v;
        continue;
      }
      absl::StatusOr<std::string> v = String(kv.second, "nccl.topo_file");
      if (!v.ok()) return v.status();
      if (v->empty() || (*v)[0] != '/') {
        return Error(kv.second, "nccl.topo_file must be an absolute path");
      }
      p.nccl_topo_file = *v;
    }
    const v1::CollectiveOptions& o = p.nccl_run;
    if (o.min_bytes() > 0 && o.max_bytes() > 0 && o.min_bytes() > o.max_bytes()) {
      return Error(nccl["min_bytes"], absl::StrCat("nccl.min_bytes ", o.min_bytes(),
                                                    " is above nccl.max_bytes ", o.max_bytes()));
    }
    return absl::OkStatus();
  }

  absl::Status ParseVersions(const YAML::Node& versions, Profile& p) {
    if (!versions.IsMap()) return Error(versions, "versions must be a mapping");
    for (const auto& kv : versions) {
      const std::string key = kv.first.as<std::string>();
      const auto& valid = PinnableComponents();
      if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
        return UnknownKey(kv.first, "versions.", valid);
      }
      absl::StatusOr<std::string> v = String(kv.second, "versions." + key);
      if (!v.ok()) return v.status();
      if (absl::StripAsciiWhitespace(*v).empty()) {
        return Error(kv.second, absl::StrCat("versions.", key, " is empty: write the version "
                                             "to pin (e.g. 2.21.5) or remove the key"));
      }
      p.versions[key] = *v;
    }
    return absl::OkStatus();
  }

  absl::Status ParseExceptions(const YAML::Node& list, Profile& p) {
    if (!list.IsSequence()) {
      return Error(list, "exceptions must be a list of {code, device, reason}");
    }
    static const std::vector<std::string> kKeys = SectionKeys("exceptions");
    for (const YAML::Node& item : list) {
      if (!item.IsMap()) {
        return Error(item, "each exception must be a mapping with code, "
                           "device and reason");
      }
      ProfileException e;
      for (const auto& kv : item) {
        const std::string key = kv.first.as<std::string>();
        absl::StatusOr<std::string> v = String(kv.second, "exceptions." + key);
        if (key == "code" || key == "device" || key == "reason" || key == "owner" ||
            key == "expires") {
          if (!v.ok()) return v.status();
        }
        if (key == "code") {
          e.code = *v;
        } else if (key == "device") {
          e.device = *v;
        } else if (key == "reason") {
          e.reason = *v;
        } else if (key == "owner") {
          e.owner = *v;
        } else if (key == "expires") {
          absl::StatusOr<absl::Time> at = ParseExpiry(*v);
          if (!at.ok()) return Error(kv.second, std::string(at.status().message()));
          e.expires = *v;
          e.expires_at = *at;
          // An exception is a decision with an end: one already past, or
          // more than a year ahead, is loaded but said at load.
          const absl::Time now = absl::Now();
          if (*at <= now) {
            p.warnings.push_back(Where(kv.second, absl::StrCat(
                "exceptions.expires ", *v, " is already past: the exception will not apply")));
          } else if (*at > now + absl::Hours(24 * 366)) {
            p.warnings.push_back(Where(kv.second, absl::StrCat(
                "exceptions.expires ", *v, " is more than a year ahead: exceptions should be "
                "reviewed at least yearly")));
          }
        } else {
          return UnknownKey(kv.first, "exceptions[].", kKeys);
        }
      }
      if (e.code.empty() || e.reason.empty()) {
        return Error(item, "an exception needs a code and a reason (device "
                           "may be omitted to cover every device)");
      }
      if (!IsKnownFindingCode(e.code)) {
        return Error(item["code"], absl::StrCat("unknown finding code '", e.code,
                                                "' (did you mean ", ClosestFindingCode(e.code),
                                                "? `nodeprobe findings` lists them)"));
      }
      p.exceptions.push_back(std::move(e));
    }
    return absl::OkStatus();
  }

  // Before building any node, one pass over the parser's events: a second
  // document, an alias, or nesting deeper than any profile needs is refused
  // here. yaml-cpp 0.7 (Debian 12) loops forever, allocating, in LoadAll on
  // some broken input (fixed upstream in 0.8.1, jbeder/yaml-cpp#1319: the
  // fuzzer found ",exceptions]:"), recurses once per nesting level (a deep
  // "[[[[" overflows the stack), and walks an alias as often as it is
  // named; this pass stops at the second document, and throws out of the
  // recursion at kMaxDepth.
  static constexpr int kMaxDepth = 32;
  struct ShapeError {
    YAML::Mark mark;
    std::string what;
  };
  class ShapeCheck : public YAML::EventHandler {
   public:
    int documents = 0;
    YAML::Mark second;
    void OnDocumentStart(const YAML::Mark& mark) override {
      if (++documents == 2) second = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
      throw ShapeError{mark, "aliases (*name) are not accepted in a profile: write the value out"};
    }
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
      Deeper(mark);
    }
    void OnSequenceEnd() override { --depth_; }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
      Deeper(mark);
    }
    void OnMapEnd() override { --depth_; }

   private:
    void Deeper(const YAML::Mark& mark) {
      if (++depth_ > kMaxDepth) {
        throw ShapeError{mark, absl::StrCat("nested deeper than ", kMaxDepth,
                                            " levels: not a profile")};
      }
    }
    int depth_ = 0;
  };
  absl::Status CheckShape(std::string_view yaml) {
    std::stringstream in{std::string(yaml)};
    YAML::Parser parser(in);
    ShapeCheck check;
    try {
      while (check.documents < 2 && parser.HandleNextDocument(check)) {
      }
    } catch (const ShapeError& e) {
      return absl::InvalidArgumentError(absl::StrCat(source(), ":", e.mark.line + 1, ": ", e.what));
    }
    if (check.documents > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          source(), ":", check.second.line + 1,
          ": a profile is one YAML document; remove the second (after '---', or a stray "
          "',' or ']' the parser took for one) or split the file"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Profile> Parse(std::string_view yaml) {
    Profile p;
    p.source = std::string(source());
    for (const ProfileSection& s : DeclaredProfileSections()) p.sections[s.name] = s.defaults;
    YAML::Node root;
    try {
      if (absl::Status shape = CheckShape(yaml); !shape.ok()) return shape;
      root = YAML::Load(std::string(yaml));
    } catch (const YAML::ParserException& e) {
      return absl::InvalidArgumentError(
          absl::StrCat(source(), ":", e.mark.line + 1, ": not valid YAML: ", e.msg));
    }
    if (root.IsNull()) return p;  // an empty file is an empty profile
    if (absl::Status dup = NoDuplicateKeys(root); !dup.ok()) return dup;
    if (!root.IsMap()) {
      return Error(root, "a profile must be a mapping (rdma:, locality:, "
                         "versions:, exceptions:)");
    }
    static const std::vector<std::string> kKeys = SectionKeys("");
    try {
      for (const auto& kv : root) {
        const std::string key = kv.first.as<std::string>();
        absl::Status s;
        const auto& declared = DeclaredProfileSections();
        if (auto d = std::find_if(declared.begin(), declared.end(),
                                  [&](const ProfileSection& x) { return x.name == key; });
            d != declared.end()) {
          s = ReadSection(*d, *this, kv.second, p.sections[key]);
        } else if (key == "transfer") {
          s = ParseTransfer(kv.second, p);
        } else if (key == "nccl") {
          s = ParseNccl(kv.second, p);
        } else if (key == "guard") {
          s = ParseGuard(kv.second, p);
        } else if (key == "versions") {
          s = ParseVersions(kv.second, p);
        } else if (key == "exceptions") {
          s = ParseExceptions(kv.second, p);
        } else {
          s = UnknownKey(kv.first, "", kKeys);
        }
        if (!s.ok()) return s;
      }
    } catch (const YAML::Exception& e) {
      return absl::InvalidArgumentError(absl::StrCat(source(), ":", e.mark.line + 1, ": ", e.msg));
    }
    return p;
  }

 private:
  // yaml-cpp keeps the last of two equal keys silently; a profile where a
  // setting is given twice is ambiguous, so it is an error.
  absl::Status NoDuplicateKeys(const YAML::Node& node, int depth = 0) const {
    if (depth > 32) return Error(node, "nested too deeply");
    if (node.IsMap()) {
      std::map<std::string, int> seen;
      for (const auto& kv : node) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
        const int line = kv.first.Mark().line + 1;
        auto [it, fresh] = seen.emplace(key, line);
        if (!fresh) {
          return Error(kv.first, absl::StrCat("duplicate key '", key, "' (first at line ",
                                              it->second, "); keep one"));
        }
        if (absl::Status s = NoDuplicateKeys(kv.second, depth + 1); !s.ok()) return s;
      }
    } else if (node.IsSequence()) {
      for (const YAML::Node& n : node) {
        if (absl::Status s = NoDuplicateKeys(n, depth + 1); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

const ProfileException* Profile::FindException(std::string_view code,
                                               std::string_view device) const {
  for (const ProfileException& e : exceptions) {
    if (e.code != code) continue;
    if (e.device.empty() || e.device == device ||
        (device.size() > e.device.size() &&
         device.substr(0, e.device.size()) == e.device &&
         device[e.device.size()] == ':')) {
      return &e;
    }
  }
  return nullptr;
}

const std::vector<std::string>& SettableNcclVariables() {
  static const std::vector<std::string> vars = {
      "NCCL_ALGO",           "NCCL_BUFFSIZE",          "NCCL_COLLNET_ENABLE",
      "NCCL_CROSS_NIC",      "NCCL_DEBUG",             "NCCL_DEBUG_SUBSYS",
      "NCCL_IB_ADAPTIVE_ROUTING", "NCCL_IB_DISABLE",   "NCCL_IB_GID_INDEX",
      "NCCL_IB_HCA",         "NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_IB_QPS_PER_CONNECTION",
      "NCCL_IB_RETRY_CNT",   "NCCL_IB_SL",             "NCCL_IB_SPLIT_DATA_ON_QPS",
      "NCCL_IB_TC",          "NCCL_IB_TIMEOUT",        "NCCL_MAX_NCHANNELS",
      "NCCL_MIN_NCHANNELS",  "NCCL_NET",               "NCCL_NET_GDR_LEVEL",
      "NCCL_NET_GDR_READ",   "NCCL_NTHREADS",          "NCCL_NVLS_ENABLE",
      "NCCL_P2P_DISABLE",    "NCCL_P2P_LEVEL",         "NCCL_PROTO",
      "NCCL_SHM_DISABLE",    "NCCL_SOCKET_IFNAME",     "NCCL_SOCKET_NTHREADS",
      "NCCL_NSOCKS_PERTHREAD"};
  return vars;
}

bool IsSettableNcclVariable(std::string_view name) {
  const auto& vars = SettableNcclVariables();
  return std::find(vars.begin(), vars.end(), name) != vars.end();
}

const std::vector<std::string>& PinnableComponents() {
  static const std::vector<std::string> kNames = {
      "os_release",  "kernel",       "rdma_core",      "hwloc",
      "hca_firmware", "nvidia_driver", "nvidia_peermem", "cuda_driver",
      "cuda_runtime", "nccl"};
  return kNames;
}

absl::StatusOr<Profile> ParseProfile(std::string_view yaml,
                                     std::string_view source) {
  return ProfileParser(source).Parse(yaml);
}

absl::StatusOr<std::string> ReadProfileFile(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": no such profile file; pass an existing YAML file to --profile"));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a regular file; pass a YAML file (not a directory) to --profile"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot read profile (", std::strerror(errno),
                     "); check its permissions"));
  }
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxProfileBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": larger than ", kMaxProfileBytes / 1024, " KiB; is this a profile?"));
    }
  }
  if (in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read profile"));
  }
  return text;
}

absl::StatusOr<Profile> LoadProfile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadProfileFile(path);
  if (!text.ok()) return text.status();
  return ParseProfile(*text, path);
}

bool VersionMatches(std::string_view expected, std::string_view found) {
  if (found == expected) return true;
  return found.size() > expected.size() &&
         found.substr(0, expected.size()) == expected &&
         found[expected.size()] == '.';
}

}  // namespace nodeprobe
