// File: mtu_findings.h
// The finding codes the mtu probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; mtu_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kMtuChainMismatch = {
    "MTU_CHAIN_MISMATCH", v1::FAIL, "mtu", "MTUs differ along an interface chain",
    "set the same MTU along the chain (lower devices and bond/bridge members at least as large"
    " as the devices above them), e.g. `ip link set DEV mtu 9000`, and persist it in the "
    "network config"};
inline constexpr FindingCode kMtuInterfaceMissing = {
    "MTU_INTERFACE_MISSING", v1::ERROR, "mtu", "an interface the profile names does not exist",
    "check the interface name, or probe from the workload's namespace with --netns"};
inline constexpr FindingCode kMtuBelowExpected = {
    "MTU_BELOW_EXPECTED", v1::FAIL, "mtu", "an interface's MTU is below the profile's",
    "`ip link set DEV mtu MTU` with the profile's MTU and persist it in the network config; "
    "check every switch hop too"};
inline constexpr FindingCode kRoceMtuExceedsNetdev = {
    "ROCE_MTU_EXCEEDS_NETDEV", v1::FAIL, "mtu", "the RoCE active MTU does not fit the netdev's MTU",
    "raise the netdev MTU (4200 fits a 4096 RoCE MTU) or lower the RoCE MTU"};
inline constexpr FindingCode kMtuPathSmallerThanIface = {
    "MTU_PATH_SMALLER_THAN_IFACE", v1::FAIL, "mtu",
    "the path carries less than the interface sends",
    "raise the MTU of the hop that limits the path to match the interfaces, or lower the "
    "interfaces to the path MTU"};
inline constexpr FindingCode kMtuPathBlackhole = {
    "MTU_PATH_BLACKHOLE", v1::FAIL, "mtu", "larger packets vanish on the path without ICMP",
    "find the hop with the smaller MTU (a switch uplink or router at its default) and raise "
    "it, or let it send ICMP fragmentation-needed"};
inline constexpr FindingCode kMtuPathUnreachable = {
    "MTU_PATH_UNREACHABLE", v1::ERROR, "mtu", "the path-MTU responder could not be reached",
    "check the route and firewalls between the two hosts (UDP to the responder's port)"};
inline constexpr FindingCode kMtuPeersDiffer = {"MTU_PEERS_DIFFER", v1::FAIL, "mtu",
                                                "the two ends' interface MTUs differ",
                                                "set the same MTU on both ends of the rail"};
inline constexpr FindingCode kRdmaMtuMismatch = {
    "RDMA_MTU_MISMATCH", v1::FAIL, "mtu", "the two RDMA ports' active MTUs differ",
    "set the same netdev MTU (RoCE) or IB MTU on both ports"};
inline constexpr FindingCode kMtuProbeFailed = {
    "MTU_PROBE_FAILED", v1::ERROR, "mtu", "the path-MTU probe could not run",
    "check that UDP reaches the peer's responder (`nodeprobe mtu serve`, or its agent)"};
inline constexpr FindingCode kMtuProbeTimeout = {
    "MTU_PROBE_TIMEOUT", v1::ERROR, "mtu", "the path-MTU probe passed its deadline",
    "check that UDP reaches the peer's responder (`nodeprobe mtu serve`, or its agent), or "
    "raise the deadline"};

}  // namespace nodeprobe::findings
