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
