// File: nccl_log_judge.h
// Findings from what NCCL did (a parsed log) against what the node could
// do: NCCL_FELL_BACK_TO_SOCKETS, NCCL_GDR_OFF, NCCL_HCA_MISMATCH, and
// NCCL_LOG_EMPTY when the log holds no NCCL INFO output to judge.
#pragma once

#include <map>
#include <set>
#include <string>

#include "nodeprobe/v1/result.pb.h"
#include "probes/framework/profile.h"
#include "probes/nccl/hardware_bound.h"
#include "probes/nccl/nccl_profile.h"

namespace nodeprobe::nccl {

// What the node offers, when known. Without it a fallback to sockets or a
// connection without GPUDirect RDMA is a WARN (the log alone cannot say
// whether better was possible); with it, a FAIL.
struct NcclLogContext {
  // The nodes have RDMA NICs NCCL should have used (the rdma-devices probe
  // found some, or the operator says so).
  bool rdma_expected = false;
  // GPUDirect RDMA is possible for the GPUs (or the operator says so).
  bool gdr_expected = false;
  // GPU PCI address -> its rail (nearest RDMA NICs), from the locality of
  // the node's topology; empty: unknown, no HCA check.
  std::map<std::string, std::set<std::string>> rails;
  // GPUs whose rail NCCL's default would use GPUDirect RDMA on (PIX/PXB).
  std::set<std::string> gdr_by_default;
  std::string topology_source;  // named in findings
  // The profile's nccl.<collective>_busbw_min_gbps bars.
  std::map<std::string, double> busbw_min_gbps;
  std::string profile_source;
  // Where the ranks sat and what their links carry: each collective's
  // bound (CollectiveBound; gbps 0: unknown) is held against its busbw
  // when the profile sets no bar: below hardware_min_fraction is WARN.
  RunShape run_shape;
  double hardware_min_fraction = kDefaultNcclHardwareMinFraction;
};

// A ProbeResult for probe "nccl-log": the report as its typed detail, the
// evidence (version, network, devices, NCCL_* settings), the findings. The
// caller finalizes it (profile exceptions, verdict).
v1::ProbeResult JudgeNcclLog(const v1::NcclLogReport& report, const NcclLogContext& context);

}  // namespace nodeprobe::nccl
