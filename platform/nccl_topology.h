// File: nccl_topology.h
// NCCL's own topology XML (root element <system>): what NCCL writes with
// NCCL_TOPO_DUMP_FILE and what clouds ship for NCCL_TOPO_FILE. Read into
// the same PciTopology as an hwloc export, so GPU<->NIC paths are judged
// the same way: <cpu> elements become NUMA-level ancestors under the
// machine, <pci> bridges become PCI bridges (a top-level one sits below a
// host bridge), a <pci> holding <gpu> or <nic><net/></nic> is the device.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "platform/hwloc_topology.h"

namespace nodeprobe::platform {

// True when `xml`'s root element is <system> (NCCL), not <topology>.
bool IsNcclTopologyXml(const std::string& xml);

// Parses an NCCL topology; `source` names it in errors. Bridges whose link
// reads like a virtual machine's emulation (2.5 GT/s x1, or width 0) are
// listed in PciTopology::notes rather than judged.
absl::StatusOr<PciTopology> ParseNcclTopology(const std::string& xml, const std::string& source);

}  // namespace nodeprobe::platform
