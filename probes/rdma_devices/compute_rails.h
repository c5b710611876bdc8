// File: compute_rails.h
// Which RDMA ports are the node's compute rails, the ones transfers
// measure and NCCL is given (NCCL_IB_HCA): ACTIVE ports of physical
// functions (a VF belongs to a pod, not to the host's rails), and, where
// the node has GPUs, only the ports of each GPU's nearest RDMA NICs (what
// NCCL uses): a front-end or storage NIC elsewhere on the PCIe tree is not
// a rail. A DOWN port is the rdma-devices probe's to judge, not a rail that
// drags the fabric bound down. Each rail's netdev is the interface its
// routable address is on (a VLAN's, not the base netdev's).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "platform/file_tree.h"
#include "platform/pci_sysfs.h"
#include "platform/rdma_sysfs.h"
#include "probes/rdma_devices/rdma_netdevs.h"

namespace nodeprobe::rdma {

struct ComputeRail {
  PortNetdevs port;
  std::string netdev;  // the interface of its IPv4 address, else its first
  bool gpu_local = false;
  std::string gpu_bus_id;  // the GPU it is nearest to, when gpu_local
};

// The PCI addresses of the RDMA NICs nearest to some GPU (deepest shared
// bridge; ties all count), whatever their ports' state; empty when there is
// no GPU.
std::set<std::string> GpuLocalNicAddresses(
    const std::map<std::string, platform::RawPciDevice>& pci,
    const std::vector<platform::RawRdmaDevice>& devices);

// Each such NIC's GPU (the first by PCI address when it is nearest to
// several): the GPU NCCL pairs it with.
std::map<std::string, std::string> NearestGpuOfNics(
    const std::map<std::string, platform::RawPciDevice>& pci,
    const std::vector<platform::RawRdmaDevice>& devices);

// `left_out` says which ports are not rails and why ("mlx5_3:1 (DOWN)").
std::vector<ComputeRail> ComputeRails(const std::vector<platform::RawRdmaDevice>& devices,
                                      const platform::FileTree& sys,
                                      std::vector<std::string>* left_out = nullptr);

}  // namespace nodeprobe::rdma
