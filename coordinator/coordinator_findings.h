// File: coordinator_findings.h
// The finding codes the coordinator's multi-node stages (two-node, cluster, congestion, failure,
// collectives, soak, storage storm) raises, declared beside the code that raises them: each a typed
// constant (code, severity or its rule, owner, meaning, remediation). Call sites name the constant
// (findings::kX.code), never the string; coordinator_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kAgentLost = {
    "AGENT_LOST", v1::ERROR, "coordinator", "a node's agent went away during a stage",
    "check the node and its agent (systemctl status nodeprobe-agent), then run the stage again"};
inline constexpr FindingCode kCoordinatorRestarted = {
    "COORDINATOR_RESTARTED", v1::ERROR, "coordinator",
    "the coordinator restarted while the run was going", "run the stage again"};
inline constexpr FindingCode kCoordinatorLost = {
    "COORDINATOR_LOST", v1::ERROR, "coordinator",
    "the coordinator stopped, or its stream broke, during the run: no node is at fault",
    "start the coordinator again, then run the stage again (a cluster run: `nodeprobe run "
    "--stage cluster --resume RUN_ID`)"};
inline constexpr FindingCode kStoreWriteFailed = {
    "STORE_WRITE_FAILED", v1::ERROR, "coordinator",
    "the coordinator could not store the run completely (disk full, I/O error)",
    "free space on the coordinator's --db filesystem (or fix its I/O errors), then `nodeprobe "
    "run --stage cluster --resume RUN_ID` (cluster runs) or run the stage again"};
inline constexpr FindingCode kRunCancelled = {
    "RUN_CANCELLED", v1::ERROR, "coordinator",
    "the run was cancelled by an operator; what was measured before is kept",
    "run the stage again"};
inline constexpr FindingCode kNcclBusbwBelowPeers = {
    "NCCL_BUSBW_BELOW_PEERS", v1::WARN, "collective stage",
    "a node's own collectives move less than nccl.min_fraction_of_peers of the median of the "
    "other nodes' in the run",
    "compare this node's GPU links with its peers' (the gpu probe's NVLink count, the pcie "
    "probe's link speeds) and what NCCL used (P2P or SHM)"};
inline constexpr FindingCode kTransferBelowPeers = {
    "TRANSFER_BELOW_PEERS",
    kVaries,
    "two-node and cluster stages",
    "a transfer is below the run's best pair of its kind",
    "the weaker side is named first: check its rail's cable, port speed, PCIe slot and "
    "counters, then retest it against a node that passed",
    "WARN; the profile's transfer.below_peers (warn or fail) when a retest reproduces it"};
inline constexpr FindingCode kMeasurementTooNoisy = {
    "MEASUREMENT_TOO_NOISY", v1::WARN, "two-node and cluster stages",
    "a run's measurements of a kind scatter more than transfer.max_spread: small gaps were not"
    " judged",
    "the usual causes: CPU-bound TCP (use RDMA rails, or more --streams), a busy node (other "
    "jobs, a throttled CPU), or too short transfers (--transfer-seconds); rerun on idle nodes "
    "to judge small gaps"};
inline constexpr FindingCode kTransferAsymmetric = {
    "TRANSFER_ASYMMETRIC",
    kVaries,
    "two-node and cluster stages",
    "one direction of a rail is far below the other",
    "look at what only the slower direction's sender (named in the message) sends through: its"
    " transmit side (optics, a switch port's egress shaping or PFC pauses, the sender's NIC)",
    "WARN; FAIL when a retest reproduces it"};
inline constexpr FindingCode kNothingMeasured = {
    "NOTHING_MEASURED",
    kVaries,
    "stages",
    "a run or pair produced no measurement (everything skipped)",
    "see the run's other findings (AGENT_LOST, TASK_TIMEOUT, probes that failed) and fix those"
    " nodes first; a stage that needs several nodes: name enough healthy ones (--nodes A,B,C "
    "or --all)",
    "ERROR; WARN for a two-node stage whose nodes offered nothing to measure between them"};
inline constexpr FindingCode kRailNotMeasured = {
    "RAIL_NOT_MEASURED", v1::WARN, "two-node stage",
    "a rail of both nodes could not be measured as itself (a RoCE rail without an IPv4 "
    "address, so no routable GID), and no other path is measured in its name",
    "give the rail's interface its address (or the RoCE GID its IPv4), then run the stage "
    "again"};

}  // namespace nodeprobe::findings
