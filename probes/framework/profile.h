// File: profile.h
// The acceptance profile: what "good" means for this fleet (expected port
// rate, link layer, pinned versions) and the exceptions a platform team has
// accepted. Without a profile, probes judge only what is wrong on its face.
//
// YAML, version 1: every section but versions: and exceptions: is declared
// by the part that reads it (profile_section.h; `nodeprobe profile
// --explain` lists them all): rdma:, mtu:, locality:, ... beside their
// probes, transfer: (probes/transfer/transfer_profile.h), nccl:
// (probes/nccl/nccl_profile.h), guard: (guard_profile.h), cluster:,
// congestion:, failure: beside their stages, acceptance: beside the gate.
// The two read here apply to the whole profile:
//   versions:                          # component name -> expected version
//     nvidia_driver: "550.54.15"       # a prefix by dotted parts: "550" ok
//   exceptions:
//     - code: RDMA_ERROR_COUNTERS_NONZERO
//       device: mlx5_3:1               # "mlx5_3" matches every port
//       reason: "cable replacement scheduled, OPS-1234"
//       owner: "fabric-team@example.org"   # who answers for it (recorded)
//       expires: 2027-01-31             # through that day (UTC), or an RFC 3339
//                                       # time; expired: no longer applied, and
//                                       # the finding says so
#pragma once

#include <any>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe {

struct ProfileException {
  std::string code;
  std::string device;
  std::string reason;
  std::string owner;
  std::string expires;                    // as written, for the record
  std::optional<absl::Time> expires_at;   // none: never expires

  bool ExpiredAt(absl::Time now) const { return expires_at && now >= *expires_at; }
};

struct Profile {
  // The file it came from ("" when none was given).
  std::string source;

  std::map<std::string, std::string> versions;
  std::vector<ProfileException> exceptions;
  // "FILE:LINE: what" for values that load but look unmeant (an exception
  // already expired, or expiring more than a year ahead): said at load.
  std::vector<std::string> warnings;

  // Sections declared beside their readers (profile_section.h), by name;
  // each holds its struct, defaults when the profile has no such section.
  std::map<std::string, std::any, std::less<>> sections;
  // A declared section's struct, named by its T::kSection (a default T
  // when the profile has none): `profile.Section<MtuExpectations>()`.
  template <typename T>
  const T& Section() const {
    return Section<T>(T::kSection);
  }
  // The same, to set (code that builds a profile, tests): made if absent.
  template <typename T>
  T& MutableSection() {
    return MutableSection<T>(T::kSection);
  }
  // The declared section NAME's struct (a default T when there is none).
  template <typename T>
  const T& Section(std::string_view name) const {
    if (auto it = sections.find(name); it != sections.end()) {
      if (const T* t = std::any_cast<T>(&it->second)) return *t;
    }
    static const T kAbsent{};
    return kAbsent;
  }
  // The same, to set (code that builds a profile, tests): made if absent.
  template <typename T>
  T& MutableSection(std::string_view name) {
    auto it = sections.find(name);
    if (it == sections.end() || std::any_cast<T>(&it->second) == nullptr) {
      it = sections.insert_or_assign(std::string(name), T{}).first;
    }
    return *std::any_cast<T>(&it->second);
  }

  // The exception that covers (code, device), or nullptr. An exception's
  // device matches the finding's device exactly, or as its "dev:" prefix.
  // An expired one is returned too (the caller records it, unapplied).
  const ProfileException* FindException(std::string_view code,
                                        std::string_view device) const;
};

// The NCCL_* variables a profile (and so a coordinator's task) may set for
// our collective runs: tuning and device choice only. Nothing that loads a
// library (NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN), names a file to write
// (NCCL_DEBUG_FILE) or read (NCCL_TOPO_FILE, NCCL_CONF_FILE) on a remote's
// say-so.
const std::vector<std::string>& SettableNcclVariables();
bool IsSettableNcclVariable(std::string_view name);

// Component names the `versions:` section may pin (the inventory's names).
const std::vector<std::string>& PinnableComponents();

// INVALID_ARGUMENT with "SOURCE:LINE: what is wrong (how to fix)".
absl::StatusOr<Profile> ParseProfile(std::string_view yaml,
                                     std::string_view source);
absl::StatusOr<Profile> LoadProfile(const std::string& path);
// The file's text (a regular file of at most kMaxProfileBytes), or
// INVALID_ARGUMENT saying what is wrong with the path.
inline constexpr size_t kMaxProfileBytes = 1 << 20;
absl::StatusOr<std::string> ReadProfileFile(const std::string& path);

// True when `found` equals `expected` or extends it by dotted parts
// ("550.54.15" satisfies "550" and "550.54", not "55").
bool VersionMatches(std::string_view expected, std::string_view found);

}  // namespace nodeprobe
