// File: rdma_devices_findings.h
// The finding codes the rdma-devices probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; rdma_devices_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kRdmaPortDown = {
    "RDMA_PORT_DOWN",
    kVaries,
    "rdma-devices",
    "an RDMA port is not ACTIVE",
    "check the cable and the switch port, then `ibstat`/`rdma link`; a Disabled port needs "
    "enabling on the switch or with `ibportstate`",
    "FAIL for a compute rail's port (a GPU's nearest RDMA NIC; every physical port on a node "
    "without GPUs); WARN for the rest (front-end, storage, an unused port)"};
inline constexpr FindingCode kRdmaDriverNotBound = {
    "RDMA_DRIVER_NOT_BOUND",
    kVaries,
    "rdma-devices",
    "an RDMA-capable PCI function has no RDMA device (driver)",
    "load the NIC's RDMA driver (modprobe, the driver named in the message), then check `rdma "
    "link` and dmesg for probe errors",
    "FAIL when the profile expects RDMA on the node (rdma.expected_rate_gbps or "
    "expected_link_layer), else WARN"};
inline constexpr FindingCode kRdmaRateBelowExpected = {
    "RDMA_RATE_BELOW_EXPECTED", v1::FAIL, "rdma-devices",
    "an ACTIVE port's rate is below the profile's",
    "check the cable and transceiver type, the switch port's speed setting, and the link width"
    " (a 4X link trained at 1X or 2X)"};
inline constexpr FindingCode kRdmaLinkLayerUnexpected = {
    "RDMA_LINK_LAYER_UNEXPECTED", v1::FAIL, "rdma-devices",
    "a port's link layer is not the profile's",
    "set the port type (mlxconfig LINK_TYPE_P1/P2) to match the fabric, or fix the profile"};
inline constexpr FindingCode kRdmaCountersUnreadable = {
    "RDMA_COUNTERS_UNREADABLE", v1::ERROR, "rdma-devices",
    "a port's counters/ directory, or an error counter in it, is missing or unreadable: those "
    "errors were not seen",
    "permission denied: run nodeprobe as root (or with read access to sysfs counters); "
    "missing: check the RDMA driver (every registered port has counters/), and capture each "
    "port's counters/ directory"};
inline constexpr FindingCode kRdmaErrorCountersNonzero = {
    "RDMA_ERROR_COUNTERS_NONZERO",
    kVaries,
    "rdma-devices",
    "a port's error counters are non-zero",
    "inspect the cable/transceiver and the switch port (ibdiagnet or ethtool -S); counters "
    "reset on driver reload",
    "the profile's rdma.error_counters (warn or fail)"};
inline constexpr FindingCode kRdmaVerbsQueryFailed = {
    "RDMA_VERBS_QUERY_FAILED", v1::ERROR, "rdma-devices", "libibverbs could not query a port",
    "install the rdma-core provider for this NIC (ibverbs-providers) and check access to "
    "/dev/infiniband"};
inline constexpr FindingCode kIbNoSubnetManager = {
    "IB_NO_SUBNET_MANAGER", v1::FAIL, "rdma-devices", "an InfiniBand port has no subnet manager",
    "start a subnet manager on the fabric (opensm on a host, or the switch's embedded SM) and "
    "check the port's partition"};
inline constexpr FindingCode kRoceNoV2Gid = {
    "ROCE_NO_V2_GID", v1::FAIL, "rdma-devices", "a RoCE port has no RoCE v2 GID with an address",
    "assign an IPv4 or global IPv6 address to the port's netdev and check that RoCE v2 is "
    "enabled (cma_roce_mode / rdma system settings)"};
inline constexpr FindingCode kRoceGidTypeUnknown = {
    "ROCE_GID_TYPE_UNKNOWN", v1::ERROR, "rdma-devices", "the kernel does not say a GID's RoCE type",
    "use a kernel with RDMA gid_attrs (4.9 or later)"};

}  // namespace nodeprobe::findings
