// File: nccl_findings.h
// The finding codes the nccl probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; nccl_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kTaskFailed = {
    "TASK_FAILED", v1::ERROR, "agent", "a task's worker died or answered nothing",
    "fix the cause in the message; a worker that died: check the node (memory, process limits,"
    " dmesg) and run the same work by hand (`nodeprobe <probe>`)"};
inline constexpr FindingCode kNcclFellBackToSockets = {
    "NCCL_FELL_BACK_TO_SOCKETS",
    kVaries,
    "nccl-log",
    "NCCL carried inter-node traffic over sockets",
    "make the HCAs visible to the job (the RDMA driver, /dev/infiniband and IPC_LOCK in a "
    "container, libibverbs and its provider in the image), then check NCCL_NET, "
    "NCCL_IB_DISABLE and NCCL_IB_HCA in the job's environment (recorded in the evidence)",
    "FAIL when the nodes have RDMA NICs (or NCCL said it found no IB device), else WARN"};
inline constexpr FindingCode kNcclGdrOff = {
    "NCCL_GDR_OFF",
    kVaries,
    "nccl-log",
    "NCCL's inter-node RDMA connections ran without GPUDirect RDMA",
    "load nvidia-peermem or use a kernel and driver with dma-buf (the gpudirect probe says "
    "which works), and check NCCL_NET_GDR_LEVEL and ACS on the GPU-NIC path",
    "FAIL when the profile or the node says GPUDirect RDMA should work, else WARN"};
inline constexpr FindingCode kNcclHcaMismatch = {
    "NCCL_HCA_MISMATCH", v1::FAIL, "nccl-log",
    "NCCL sent a GPU's traffic over a NIC that is not its rail",
    "let NCCL see the topology (NCCL_TOPO_FILE matching the node, no NCCL_IB_HCA that hides "
    "the rail), and check the locality probe"};
inline constexpr FindingCode kNcclLogEmpty = {
    "NCCL_LOG_EMPTY", v1::ERROR, "nccl-log", "the log holds no NCCL debug output to judge",
    "capture the job with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH)"};
inline constexpr FindingCode kNcclMemoryRegistrationFailed = {
    "NCCL_MEMORY_REGISTRATION_FAILED", v1::FAIL, "nccl-log",
    "a job's NCCL could not register memory with the network",
    "check the locked-memory limit (ulimit -l unlimited, LimitMEMLOCK=infinity, a container's "
    "--ulimit memlock=-1), GPUDirect RDMA (nvidia-peermem or dma-buf: the gpudirect probe), "
    "and the network plugin's own settings (OFI/EFA/CXI variables)"};
inline constexpr FindingCode kNcclShmFailed = {
    "NCCL_SHM_FAILED", v1::FAIL, "nccl-log",
    "a job's NCCL could not create its shared-memory segments (/dev/shm)",
    "give the job a larger /dev/shm (Docker --shm-size, a memory-backed emptyDir in "
    "Kubernetes) or check that it is not full"};
inline constexpr FindingCode kNcclTransportFailed = {
    "NCCL_TRANSPORT_FAILED", v1::FAIL, "nccl-log",
    "a job's NCCL network transport failed to connect or to move data",
    "check the RDMA devices the job sees (ibv_devinfo in its container: /dev/infiniband, the "
    "RDMA device plugin, IPC_LOCK, rdma-core and its provider in the image), their ports and "
    "GIDs, NCCL_IB_HCA / NCCL_IB_GID_INDEX, and firewalls between the nodes; `nodeprobe run "
    "--stage two-node` measures the rails"};
inline constexpr FindingCode kNcclJobTimeout = {
    "NCCL_JOB_TIMEOUT", v1::FAIL, "nccl-log",
    "a collective of a job timed out (PyTorch's watchdog or NCCL's own)",
    "find the first rank that stalled (its host's kernel log for Xid or link errors), then run"
    " `nodeprobe run --stage cluster` over the job's nodes"};
inline constexpr FindingCode kNcclJobError = {
    "NCCL_JOB_ERROR", v1::FAIL, "nccl-log",
    "NCCL or CUDA reported an error in a job (nccl*Error, an abort)",
    "read the first error of the first rank (lines kept in the evidence) and the WARN lines "
    "before it; rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET for the cause"};
inline constexpr FindingCode kNcclJobKilled = {
    "NCCL_JOB_KILLED", v1::FAIL, "nccl-log", "a job was killed or cancelled by its launcher",
    "find why it ended: a timeout, an OOM kill, or a rank that failed first (the other "
    "findings and the launcher's own log)"};
inline constexpr FindingCode kNcclLogWarnings = {
    "NCCL_LOG_WARNINGS", v1::WARN, "nccl-log", "a job's NCCL printed WARN lines of no known class",
    "read them in the job's log (line numbers given); each is NCCL saying it did something "
    "other than planned"};
inline constexpr FindingCode kNcclTestsFigureInvalid = {
    "NCCL_TESTS_FIGURE_INVALID", v1::WARN, "nccl-log",
    "an nccl-tests table printed a figure that is not a measurement (NaN, negative) or no "
    "average",
    "rerun the test and capture it to its end; a NaN or negative time means the run itself "
    "went wrong (a timer, a failed rank)"};
inline constexpr FindingCode kNcclVersionsDiffer = {
    "NCCL_VERSIONS_DIFFER", v1::WARN, "nccl-log",
    "ranks of one job printed different NCCL versions",
    "run every rank with the same NCCL (the same container image or library path); if the log "
    "holds several jobs, judge each job's log on its own"};
inline constexpr FindingCode kBarNotApplied = {
    "BAR_NOT_APPLIED", v1::WARN, "nccl-log",
    "a profile bar could not be applied to the input (unnamed table, no such collective, no "
    "valid size)",
    "capture the whole nccl-tests output to its end (its '# Collective test starting' line "
    "names the collective), or run that collective's test"};
inline constexpr FindingCode kNcclWrongResult = {
    "NCCL_WRONG_RESULT", v1::FAIL, "nccl", "a collective computed wrong results",
    "a GPU or link corrupts data: drain the node, check ECC and Xid errors (the gpu probe, "
    "dmesg), NVLink and the NICs' error counters on the ranks named, and rerun per node to "
    "find the rank"};
inline constexpr FindingCode kNcclBusbwBelowExpected = {
    "NCCL_BUSBW_BELOW_EXPECTED", v1::FAIL, "nccl",
    "a collective's bus bandwidth is below the profile's bar",
    "see what NCCL used (the transports in the result, or rerun with NCCL_DEBUG=INFO: sockets,"
    " GDR off, the wrong HCA), then the slowest rank's rail with `nodeprobe run --stage "
    "two-node`"};
inline constexpr FindingCode kNcclBusbwBelowHardware = {
    "NCCL_BUSBW_BELOW_HARDWARE", v1::WARN, "nccl",
    "with no profile bar, a collective's bus bandwidth is below the profile's share "
    "(nccl.hardware_min_fraction) of what NVLink, PCIe or the rails carry",
    "see what NCCL used (the transports in the result: sockets, GDR off, the wrong HCA, P2P "
    "off), then the links named in the bound (the pcie and gpu probes, `nodeprobe run --stage "
    "two-node`); set nccl.<collective>_busbw_min_gbps in the profile to judge against your own"
    " figure"};
inline constexpr FindingCode kNcclTimeout = {
    "NCCL_TIMEOUT", v1::ERROR, "nccl",
    "ranks of a collective did not finish by its deadline, or were lost",
    "the collective hung or a rank was lost: check the ranks named (node up, agent running, "
    "GPU healthy), the rails between them, and NCCL's warnings in the log evidence"};
inline constexpr FindingCode kNcclAsyncError = {
    "NCCL_ASYNC_ERROR", v1::ERROR, "nccl",
    "NCCL reported an asynchronous error and the rank aborted",
    "see NCCL's warning in the log evidence; check the GPUs (nvidia-smi, dmesg Xid) and the "
    "rails"};
inline constexpr FindingCode kNcclInitFailed = {
    "NCCL_INIT_FAILED", v1::ERROR, "nccl", "a rank could not create or join the NCCL communicator",
    "see NCCL's warning in the log evidence; check the GPUs (nvidia-smi, dmesg Xid), the NCCL "
    "library and the rails"};

}  // namespace nodeprobe::findings
