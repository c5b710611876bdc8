// File: interfaces_findings.h
// The finding codes the interfaces probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; interfaces_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kSecondaryInterfaceDown = {
    "SECONDARY_INTERFACE_DOWN", v1::FAIL, "interfaces",
    "a secondary interface the job was given is up without carrier, or down with an RDMA "
    "device behind it",
    "check the network attachment (NetworkAttachmentDefinition, SR-IOV policy): the VF's "
    "link state (ip link set PF vf N state auto), the PF's cable and the switch port"};
inline constexpr FindingCode kSecondaryInterfaceMtu = {
    "SECONDARY_INTERFACE_MTU", v1::FAIL, "interfaces",
    "a secondary interface's MTU is below preflight.interface_mtu, or an SR-IOV VF's is above "
    "its PF's",
    "set mtu in the network attachment's CNI config (or the SR-IOV policy's mtu), and raise "
    "the PF's MTU before its VFs'"};
inline constexpr FindingCode kSecondaryInterfaceNotRdma = {
    "SECONDARY_INTERFACE_NOT_RDMA", v1::WARN, "interfaces",
    "the job expects RDMA but none of its secondary interfaces has an RDMA device behind it",
    "attach the SR-IOV (or RDMA shared device plugin) network instead of a macvlan/ipvlan "
    "one, and request its rdma/... resource in the pod"};

}  // namespace nodeprobe::findings
