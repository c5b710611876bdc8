// The profile's `nccl:` section: the bars NCCL's collectives are held to
// (the nccl probe, the collective stage, `nccl-log`), how our runs sweep,
// and the NCCL_* variables set for them.
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
#pragma once

#include <map>
#include <string>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe {

// The nccl.hardware_min_fraction a profile that sets none gets.
inline constexpr double kDefaultNcclHardwareMinFraction = 0.6;

struct NcclRules {
  static constexpr char kSection[] = "nccl";  // its top-level key
  // NCCL topology file NCCL is given on these nodes (else NCCL_TOPO_FILE
  // from the environment): checked against the live topology.
  std::string topo_file;
  // Collective ("all_reduce") -> the least bus bandwidth, in GB/s, at the
  // largest size of a run.
  std::map<std::string, double> busbw_min_gbps;
  // With no bar, busbw below this share of the hardware's bound is WARN
  // (probes/nccl/hardware_bound.h): a floor a healthy fabric clears at the
  // largest sizes (nccl-tests' busbw approaches the link rate there); it
  // catches a job running at half speed.
  double hardware_min_fraction = kDefaultNcclHardwareMinFraction;
  // A node's own collectives below this share of the median of the other
  // nodes' (same collective, size, ranks) are WARN (coordinator/collective_peers.h).
  double min_fraction_of_peers = 0.9;
  // How the nccl probe and the stages run collectives (unset fields: the
  // defaults of probes/nccl/collective_math.h), and NCCL_* settings for
  // those runs.
  v1::CollectiveOptions run;
  std::map<std::string, std::string> env;
};

}  // namespace nodeprobe
