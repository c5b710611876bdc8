// File: pcie_findings.h
// The finding codes the pcie probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; pcie_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kPcieLinkSpeedUnknown = {
    "PCIE_LINK_SPEED_UNKNOWN",
    kVaries,
    "pcie",
    "a GPU, NIC or NVMe reports its current PCIe link speed as Unknown: no trained link",
    "check the device in lspci -vv and dmesg (AER, 'fallen off the bus'); reseat it, or "
    "power-cycle the node",
    "FAIL when the device reports a maximum speed (it should train), else WARN"};
inline constexpr FindingCode kPcieLinkWidthDegraded = {
    "PCIE_LINK_WIDTH_DEGRADED",
    kVaries,
    "pcie",
    "a PCIe link trained narrower than it can",
    "reseat the card or riser, check the slot's lane wiring and BIOS bifurcation settings, and"
    " look for AER errors in dmesg",
    "FAIL; WARN where the slot or upstream port explains the width"};
inline constexpr FindingCode kPcieLinkSpeedDegraded = {
    "PCIE_LINK_SPEED_DEGRADED",
    kVaries,
    "pcie",
    "a PCIe link trained slower than it can",
    "check the BIOS PCIe speed setting, the riser/retimer, and AER errors in dmesg; a link "
    "that retrains lower under load points at signal integrity",
    "FAIL; WARN for an idle GPU (it lowers its speed to save power) or where the upstream port"
    " explains it"};

}  // namespace nodeprobe::findings
