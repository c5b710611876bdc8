// File: transfer_findings.h
// The finding codes the transfer probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; transfer_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kTransferConnectFailed = {
    "TRANSFER_CONNECT_FAILED", v1::ERROR, "transfer",
    "the client could not reach the transfer server",
    "start `nodeprobe transfer serve` on the peer and check the address, port and firewall"};
inline constexpr FindingCode kTransferPeerLost = {
    "TRANSFER_PEER_LOST", v1::ERROR, "transfer", "the peer went away during a transfer",
    "check that the peer process is still running and the link is up"};
inline constexpr FindingCode kTransferTimeout = {
    "TRANSFER_TIMEOUT", v1::ERROR, "transfer", "nothing moved within the idle deadline",
    "check the link (ip link, rdma link) and the peer process"};
inline constexpr FindingCode kTransferRefused = {
    "TRANSFER_REFUSED", v1::ERROR, "transfer", "the server would not run the request",
    "run a transport and operation the server supports"};
inline constexpr FindingCode kTransferNoRdmaDevice = {
    "TRANSFER_NO_RDMA_DEVICE", v1::ERROR, "transfer", "no RDMA device routes to the peer",
    "load the NIC's RDMA driver and give the peer's IPv4 address, or measure the Ethernet "
    "baseline with --transport tcp"};
inline constexpr FindingCode kTransferGpuNotUsable = {
    "TRANSFER_GPU_NOT_USABLE", v1::ERROR, "transfer",
    "the GPU a transfer end's buffer was asked on (--gpu, or a rail's nearest GPU under "
    "--gpu-memory) is not one CUDA can use here",
    "check the driver (nvidia-smi), that CUDA sees the GPU (CUDA_VISIBLE_DEVICES) and that the "
    "rail's nearest GPU is the one meant; or run without --gpu-memory"};
inline constexpr FindingCode kTransferBelowExpected = {
    "TRANSFER_BELOW_EXPECTED", v1::FAIL, "transfer",
    "a transfer missed the profile's or the hardware's bar",
    "check the link's negotiated speed and width on both ends, the NIC's PCIe slot, error and "
    "pause counters, and other traffic on the rail"};
inline constexpr FindingCode kLatencyAboveExpected = {
    "LATENCY_ABOVE_EXPECTED", v1::FAIL, "transfer", "a latency is above the profile's bar",
    "check the path (hops, switch buffers, PFC pauses), CPU frequency scaling and interrupt "
    "moderation on both ends"};
inline constexpr FindingCode kRdmaCongestionSignals = {
    "RDMA_CONGESTION_SIGNALS", v1::WARN, "transfer",
    "pauses, CNPs or ECN marks during a transfer above the profile's rate",
    "check PFC/ECN configuration and buffer settings on the switches along the rail"};
inline constexpr FindingCode kNetdevErrorsGrew = {
    "NETDEV_ERRORS_GREW",
    kVaries,
    "transfer",
    "an interface's error counters grew during a transfer",
    "errors under load point at the cable, optics or the switch port: check them (ethtool -S, "
    "the switch's port counters) and retest",
    "the profile's transfer.error_counters_grew (warn or fail)"};
inline constexpr FindingCode kNetdevPauseFrames = {
    "NETDEV_PAUSE_FRAMES", v1::WARN, "transfer",
    "flow-control pauses during a transfer above the profile's rate",
    "check PFC/flow-control settings and congestion on the path"};
inline constexpr FindingCode kClockReadSlow = {
    "CLOCK_READ_SLOW", v1::WARN, "transfer",
    "a clock read costs more than 250 ns (a clocksource the vDSO cannot read): latency figures"
    " include it",
    "use the tsc clocksource (check dmesg for 'TSC unstable'; "
    "/sys/devices/system/clocksource/clocksource0/available_clocksource)"};

}  // namespace nodeprobe::findings
