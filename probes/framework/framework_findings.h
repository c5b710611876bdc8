// File: framework_findings.h
// The finding codes the stage runner, the agent's tasks and the coordinator's run bookkeeping, and
// the codes several probes raise raises, declared beside the code that raises them: each a typed
// constant (code, severity or its rule, owner, meaning, remediation). Call sites name the constant
// (findings::kX.code), never the string; framework_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kProbeCouldNotRun = {
    "PROBE_COULD_NOT_RUN", v1::ERROR, "stage runner",
    "a probe failed to run (reason in the message)",
    "fix the cause named in the message and rerun the probe"};
inline constexpr FindingCode kProbeDeadlineExceeded = {
    "PROBE_DEADLINE_EXCEEDED", v1::ERROR, "stage runner",
    "the stage deadline passed before the probe started",
    "raise the stage's --timeout, or run fewer probes (--probe NAME, repeatable)"};
inline constexpr FindingCode kTaskTimeout = {
    "TASK_TIMEOUT", v1::ERROR, "agent", "a task's worker passed its deadline and was killed",
    "check the node and the rail the task used; raise the stage's --timeout (nccl.op_timeout_s"
    " for collectives)"};
inline constexpr FindingCode kUnknownTask = {
    "UNKNOWN_TASK", v1::ERROR, "agent", "the agent does not know the task type",
    "upgrade nodeprobe on this node to the coordinator's version"};
inline constexpr FindingCode kProfileInvalid = {
    "PROFILE_INVALID", v1::ERROR, "agent", "the acceptance profile sent with a task does not parse",
    "fix the profile given to `nodeprobe run --profile` or `coordinator --profile` "
    "(`nodeprobe profile --check FILE`)"};
inline constexpr FindingCode kSysfsValueInvalid = {
    "SYSFS_VALUE_INVALID", v1::ERROR, "pcie, rdma-devices",
    "a sysfs/procfs value is unreadable or not what the kernel writes",
    "check that nodeprobe may read sysfs and that the driver is loaded; a value the kernel "
    "should not write (a link above its maximum, a garbled identity): check the device in "
    "lspci -vv and dmesg, or the capture"};
inline constexpr FindingCode kRocePauseStorm = {
    "ROCE_PAUSE_STORM",
    kVaries,
    "roce-config",
    "the NIC's pause-storm watchdog fired: a receiver paused the link without end",
    "find the stuck receiver (a hung host or PCIe back-pressure) on the port the message "
    "names; check the switch's PFC watchdog and the NIC's rx discards",
    "FAIL when it fired during nodeprobe's own traffic, WARN when only since the driver "
    "loaded"};
inline constexpr FindingCode kNcclStopped = {
    "NCCL_STOPPED", v1::ERROR, "nccl", "a rank was stopped because another rank of the run failed",
    "nothing on this rank: see the findings of the rank that failed"};
inline constexpr FindingCode kNodeBusy = {
    "NODE_BUSY",
    kVaries,
    "stage runner",
    "an intrusive probe or stage was not run: GPU compute processes or a Slurm job are on the "
    "node (--force runs it anyway)",
    "run it when the node is idle (drained), or with --force if you know what is running there"
    " and that it may be disturbed",
    "SKIP on the node (its probe did not run); WARN on a multi-node run (its pairs were not "
    "measured)"};
inline constexpr FindingCode kTransferServeFailed = {
    "TRANSFER_SERVE_FAILED", v1::ERROR, "agent", "the transfer server could not start",
    "check the node's free ports and the rail's address"};
inline constexpr FindingCode kRdmaErrorCountersGrew = {
    "RDMA_ERROR_COUNTERS_GREW",
    kVaries,
    "transfer",
    "a port's error counters grew during a transfer",
    "errors under load point at the cable, optics or a switch port: check them (mlxlink, the "
    "switch's port counters) and retest",
    "the profile's transfer.error_counters_grew (warn or fail)"};
inline constexpr FindingCode kFailureRefused = {
    "FAILURE_REFUSED", v1::ERROR, "failure stage",
    "the agent would not or could not take its link down (no --allow-disruptive)",
    "start the agent with --allow-disruptive on nodes where failure injection is wanted, with "
    "CAP_NET_ADMIN (the unit's AmbientCapabilities); scenarios are link-down and agent-restart"};
inline constexpr FindingCode kSoakUnstable = {
    "SOAK_UNSTABLE", v1::WARN, "soak (run --soak)",
    "a direction's transfers (single-node: a probe's figure) varied over the soak more than "
    "soak.max_spread",
    "look at the run's time series: steps point at a link retraining or a flapping port, "
    "scatter at a shared or congested path (check the rail's counters and the switch port); "
    "on one node, at clocks that throttle (the gpu probe's reasons) or a busy disk"};
inline constexpr FindingCode kSoakDrift = {
    "SOAK_DRIFT",
    kVaries,
    "soak (run --soak)",
    "a direction's transfers (single-node: a probe's figure) got slower over the soak by more "
    "than soak.max_drift",
    "something degrades under sustained load: check the NIC's and GPU's temperature and "
    "throttle reasons, the link's error counters and the switch port's congestion counters",
    "WARN; FAIL when every figure of the last third is below every figure of the first"};
inline constexpr FindingCode kFailureNotRestored = {
    "FAILURE_NOT_RESTORED", v1::FAIL, "failure stage",
    "a link taken down by the failure stage stayed down",
    "bring it up by hand (`ip link set DEV up` on the node named) and check the node"};

}  // namespace nodeprobe::findings
