// File: path_class.h
// The path class between two PCI devices, as NCCL and `nvidia-smi topo -m`
// name them:
//   PIX  at most one PCIe switch between them
//   PXB  several PCIe switches, no host bridge
//   PHB  through a PCIe host bridge (the CPU's root complex)
//   NODE across host bridges within one NUMA node
//   SYS  across NUMA nodes (the SMP interconnect: UPI, xGMI, X-Bus)
// NCCL counts a switch's upstream and downstream ports as one switch, so a
// device directly below the lowest common bridge (or one downstream port
// below it) is PIX.
#pragma once

#include <string_view>

#include "platform/hwloc_topology.h"

namespace nodeprobe::locality {

// Ordered from nearest to farthest.
enum class PathClass { kPix = 0, kPxb, kPhb, kNode, kSys };

PathClass ClassifyPath(const platform::TopoPciDevice& a,
                       const platform::TopoPciDevice& b);
const char* PathClassName(PathClass c);

// NCCL's default NCCL_NET_GDR_LEVEL is PXB: GPUDirect RDMA is used when the
// GPU and the NIC are at PIX or PXB.
inline bool GdrByDefault(PathClass c) { return c <= PathClass::kPxb; }

}  // namespace nodeprobe::locality
