// File: roce_config_findings.h
// The finding codes the roce-config probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; roce_config_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kRoceRdmaPriorityNotLossless = {
    "ROCE_RDMA_PRIORITY_NOT_LOSSLESS", v1::FAIL, "roce-config",
    "the design is lossless but PFC is off on the priority RDMA traffic rides",
    "enable PFC on that priority only (`dcb pfc set dev IF prio-pfc P:on`, or mlnx_qos "
    "--pfc) on every RoCE netdev, and on the switch ports, or correct roce.rdma_priority"};
inline constexpr FindingCode kRocePfcScopeTooWide = {
    "ROCE_PFC_SCOPE_TOO_WIDE", v1::WARN, "roce-config",
    "PFC is on for a priority the design does not make lossless",
    "turn PFC off on the priorities the message names: PFC belongs to the RDMA class only, "
    "elsewhere a pause spreads head-of-line blocking"};
inline constexpr FindingCode kRoceEcnDisabled = {
    "ROCE_ECN_DISABLED", v1::FAIL, "roce-config",
    "ECN is designed but off on the RDMA priority for a role",
    "echo 1 > /sys/class/net/IF/ecn/roce_np/enable/P and roce_rp/enable/P (or the NIC "
    "tool's equivalent), persisted by the NIC configuration service"};
inline constexpr FindingCode kRoceTrustMismatch = {
    "ROCE_TRUST_MISMATCH", v1::FAIL, "roce-config",
    "the NIC classifies by DSCP where the design says PCP, or the other way",
    "set the trust mode as designed (`dcb app` DSCP entries, or mlnx_qos --trust), or "
    "correct roce.trust"};
inline constexpr FindingCode kRoceTosMismatch = {
    "ROCE_TOS_MISMATCH", v1::FAIL, "roce-config",
    "rdma_cm's default RoCE ToS or the device's traffic class is not the designed ToS",
    "cma_roce_tos -d DEV -t TOS (and the tc/N/traffic_class override, where set) as "
    "roce.tos says, persisted at boot; or correct roce.tos"};
inline constexpr FindingCode kRoceConfigNotReadable = {
    "ROCE_CONFIG_NOT_READABLE", v1::ERROR, "roce-config",
    "a RoCE setting the profile's roce: section judges could not be read",
    "run on the live host as root (rdma_cm's configfs group needs it), with the NIC's "
    "driver exposing dcbnl and ECN sysfs; or drop the key the message names"};

}  // namespace nodeprobe::findings
