// The finding codes the workload stage raises, declared beside it (np_findings
// in this folder's CMakeLists): each a typed constant that call sites name
// (findings::kX.code), listed by workload_findings.cc for the one table.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kWorkloadStraggler = {
    "WORKLOAD_STRAGGLER",
    kVaries,
    "workload stage",
    "one rank arrived last at most of the job's collectives and the others waited for it",
    "look at that node first: its GPU (throttling, clocks), the NUMA/PCIe placement of its GPU "
    "and NIC, its NIC's counters and its leaf; `nodeprobe run --stage single-node` on it",
    "WARN; FAIL when a second measurement names the same rank"};

inline constexpr FindingCode kWorkloadStepSlow = {
    "WORKLOAD_STEP_SLOW", v1::FAIL, "workload stage",
    "the job's step took longer than workload.step_time_max_ms at the median",
    "compare the per-group op times with the same ops in isolation: the slow group names the "
    "fabric (TP: NVLink/PCIe inside the node, PP/DP: the network)"};

inline constexpr FindingCode kWorkloadStepJitter = {
    "WORKLOAD_STEP_JITTER", v1::WARN, "workload stage",
    "step times vary more than workload.step_cv_max (coefficient of variation)",
    "look for background load on the nodes, congestion from other tenants, or a rank that is "
    "late only sometimes (the wait heatmap)"};

inline constexpr FindingCode kWorkloadCommBound = {
    "WORKLOAD_COMM_BOUND", v1::WARN, "workload stage",
    "more of the step than workload.comm_share_max is spent waiting in communication",
    "the fabric, not the GPUs, sets the pace: check the slow group's op times against the "
    "hardware's bound (the collective stage) and the job's layout (TP inside a node)"};

inline constexpr FindingCode kWorkloadNotRun = {
    "WORKLOAD_NOT_RUN", v1::ERROR, "workload stage",
    "the job's shape could not be replayed: a node was not usable, the shape did not fit the "
    "nodes, or a rank failed or vanished mid-step",
    "the message names the node or the workload: key; fix that node (its agent, its rank's "
    "error) or the shape (`nodeprobe workload plan`), then run the stage again"};

inline constexpr FindingCode kWorkloadBurstStalls = {
    "WORKLOAD_BURST_STALLS", v1::FAIL, "workload stage",
    "a storage or east-west burst during the steps slowed the step's p99 by more than "
    "workload.burst_slowdown_max against the steps before it",
    "the burst takes the buffers or queues the collectives need: separate storage and training "
    "traffic (another NIC, a traffic class with its own PFC priority and ECN), or check the "
    "switches' shared buffers and the nodes' PFC/ECN/CNP counters over the burst"};

inline constexpr FindingCode kWorkloadSlowSubset = {
    "WORKLOAD_SLOW_SUBSET",
    kVaries,
    "workload stage",
    "the job was slow and no rank stood out; run again on parts of the nodes, it is slow on the "
    "nodes named (with any other node), or on two groups that are each fine alone and slow "
    "together",
    "a set: that node's link, its leaf port or its NIC; two groups: what joins them (a leaf's "
    "uplink, a spine link, the routing between them): check that link's counters and its "
    "cabling record",
    "FAIL when the runs found the slow part; WARN when they could not"};

}  // namespace nodeprobe::findings
