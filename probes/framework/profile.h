// File: profile.h
// The acceptance profile: what "good" means for this fleet (expected port
// rate, link layer, pinned versions) and the exceptions a platform team has
// accepted. Without a profile, probes judge only what is wrong on its face.
//
// YAML, version 1:
//   rdma:, mtu:, locality:, cabling:, host:  # declared by their probes
//   (probes/<probe>/*_profile.h) cluster:, congestion:, failure:  # by their stages
//   (coordinator/*_profile.h) acceptance:                      # by the gate
//   (coordinator/acceptance_profile.h) transfer:                          # judged transfers (all
//   optional)
//     tcp_stream_min_gbps: 90          # absolute bars per transport/op
//     rdma_write_bw_min_gbps: 360      # also rdma_read_bw_, rdma_send_bw_
//     rdma_write_lat_max_us: 5         # also tcp_rr_lat_max_us
//     min_fraction_of_line_rate: 0.90  # of the hardware's goodput, when no bar
//     min_fraction_of_peers: 0.90      # of the peers' reference of the same kind
//     noise_sigmas: 3                  # a gap must exceed this many times the noise
//     max_spread: 0.15                 # above it a run is too noisy to judge small gaps
//     below_peers: warn                # warn | fail
//     min_fraction_of_reverse: 0.80    # one direction of a rail vs the other
//     congestion_max_per_second: 1000  # pauses/CNPs/ECN marks during a transfer
//     error_counters_grew: fail        # fail | warn: errors that grew during one
//   nccl:
//     topo_file: /etc/nccl/topo.xml     # what NCCL_TOPO_FILE is on the nodes
//     all_reduce_busbw_min_gbps: 400    # bus bandwidth at the largest size run;
//                                       # also all_gather_, reduce_scatter_,
//                                       # alltoall_, broadcast_, reduce_, sendrecv_
//     hardware_min_fraction: 0.6        # with no bar: WARN below this share of
//                                       # what NVLink/PCIe/the rails carry
//     min_fraction_of_peers: 0.9        # a node's collectives vs the median of
//                                       # the other nodes' in a run: WARN below
//     collectives: [all_reduce]         # what the nccl probe and stages run
//     min_bytes: 1048576                # the sweep (or sizes: [...])
//     max_bytes: 268435456
//     step_factor: 4
//     iters: 20                         # timed; warmup_iters: 5
//     op_timeout_s: 60                  # one size of one collective
//     env: { NCCL_IB_QPS_PER_CONNECTION: "4" }  # NCCL_* set for our runs
//   guard:                             # the busy-node guard (platform/node_busy.h)
//     intrusive_in_sweep: false        # `run --sweep` runs GPU copies, collectives,
//                                      # loopback transfers too
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

// The nccl.hardware_min_fraction a profile that sets none gets.
inline constexpr double kDefaultNcclHardwareMinFraction = 0.6;

struct ProfileException {
  std::string code;
  std::string device;
  std::string reason;
  std::string owner;
  std::string expires;                    // as written, for the record
  std::optional<absl::Time> expires_at;   // none: never expires

  bool ExpiredAt(absl::Time now) const { return expires_at && now >= *expires_at; }
};

// How transfers are judged (probes/transfer/expectations.h). Absolute
// bars win over the hardware's; the fractions have defaults.
struct TransferBars {
  std::optional<double> tcp_stream_min_gbps;
  std::optional<double> rdma_write_bw_min_gbps;
  std::optional<double> rdma_read_bw_min_gbps;
  std::optional<double> rdma_send_bw_min_gbps;
  std::optional<double> rdma_write_lat_max_us;
  std::optional<double> tcp_rr_lat_max_us;
  double min_fraction_of_line_rate = 0.90;  // of the hardware's goodput
  // Of the peers' reference (the median over nodes: coordinator/peer_stats.h);
  // the profile key min_fraction_of_best_pair is read as this one.
  double min_fraction_of_peers = 0.90;
  v1::Verdict below_peers = v1::WARN;
  double min_fraction_of_reverse = 0.80;    // one direction vs the other
  // A gap counts only when larger than this many times the noise (the
  // run's robust spread, or the transfer's own interval variation).
  double noise_sigmas = 3;
  // Above this relative spread a run is too noisy to judge small gaps
  // (MEASUREMENT_TOO_NOISY).
  double max_spread = 0.15;
  // Pauses/CNPs/ECN marks per second during a transfer above which it WARNs.
  std::optional<double> congestion_max_per_second;
  // Error counters (symbol errors, drops, retries) that grew during a
  // transfer: FAIL, or WARN on a fabric known to be marginal.
  v1::Verdict error_counters_grew = v1::FAIL;
};

struct Profile {
  // The file it came from ("" when none was given).
  std::string source;

  TransferBars transfer;
  // `run --sweep` (the scheduled sweep) runs intrusive probes too.
  bool intrusive_in_sweep = false;

  // NCCL topology file NCCL is given on these nodes (else NCCL_TOPO_FILE
  // from the environment): checked against the live topology.
  std::string nccl_topo_file;
  // Collective ("all_reduce") -> the least bus bandwidth, in GB/s, at the
  // largest size of a run.
  std::map<std::string, double> nccl_busbw_min_gbps;
  // With no bar, busbw below this share of the hardware's bound is WARN
  // (probes/nccl/hardware_bound.h): 0.6 by default, a floor a healthy
  // fabric clears at the largest sizes (nccl-tests' busbw approaches the
  // link rate there); it catches a job running at half speed.
  double nccl_hardware_min_fraction = kDefaultNcclHardwareMinFraction;
  // A node's own collectives below this share of the median of the other
  // nodes' (same collective, size, ranks) are WARN (coordinator/collective_peers.h).
  double nccl_min_fraction_of_peers = 0.9;
  // How the nccl probe and the stages run collectives (unset fields: the
  // defaults of probes/nccl/collective_math.h), and NCCL_* settings for
  // those runs.
  v1::CollectiveOptions nccl_run;
  std::map<std::string, std::string> nccl_env;

  std::map<std::string, std::string> versions;
  std::vector<ProfileException> exceptions;
  // "FILE:LINE: what" for values that load but look unmeant (an exception
  // already expired, or expiring more than a year ahead): said at load.
  std::vector<std::string> warnings;

  // Sections declared beside their readers (profile_section.h), by name:
  // rdma, mtu, locality (probes/<probe>/), cluster, congestion, failure,
  // acceptance (coordinator/), cabling (probes/cabling/); one
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
