// File: hwloc_topology.h
// The PCI part of the machine's topology, from hwloc: every PCI device with
// its OS devices (cuda0, mlx5_0, ib0), NUMA placement and the chain of
// ancestors up to the root, so path classes can be computed without hwloc.
// Source: the live machine, or an XML export (hwloc 2.x, or 3.0 which this
// hwloc cannot import directly and which is translated on load).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

// kMachine: the root (devices whose first common ancestor is the machine
// are on different packages); kOther: a package, group or die (same
// package, which on sub-NUMA-clustered CPUs spans several NUMA nodes).
enum class AncestorKind { kPciBridge, kHostBridge, kOther, kMachine };

struct TopoAncestor {
  uint64_t id = 0;  // hwloc gp_index: unique within one topology
  AncestorKind kind = AncestorKind::kOther;
  std::string pci_address;  // bridges with a bus id
};

struct TopoPciDevice {
  std::string address;  // 0000:04:00.0
  uint16_t vendor_id = 0;
  uint16_t device_id = 0;
  uint16_t class_id = 0;  // 0x0302, 0x0207, ...
  std::string name;       // hwloc's PCIDevice info, when known
  std::vector<std::string> rdma_devices;  // OpenFabrics OS devices
  std::vector<std::string> netdevs;       // network OS devices
  std::vector<std::string> gpu_devices;   // cuda0, nvml0, ...
  // Set by an NCCL topology file: the device is a GPU (PCI class 0x03xxxx,
  // or a <gpu> element) or a network device NCCL uses (class 0x02xxxx, or
  // a <nic> element), whatever its vendor. That is NCCL's own rule (its
  // kvDictPciClass in src/graph/topo.cc matches the class prefix only), and
  // cloud files such as Azure's ND H100 v5 one give no vendor at all.
  bool declared_gpu = false;
  bool declared_nic = false;
  // NUMA node of the nearest non-I/O ancestor; -1 when it spans several or
  // none is known.
  int numa_node = -1;
  std::string nodeset;  // hwloc bitmap string of that ancestor
  std::string cpuset;   // CPU list ("0-17,36-53") of that ancestor
  // From the parent up to the root.
  std::vector<TopoAncestor> ancestors;
};

struct PciTopology {
  std::string source;  // "live" or the XML path
  std::vector<TopoPciDevice> devices;
  // Observations that inform but are not faults (e.g. a virtual machine's
  // emulated bridge links in an NCCL topology).
  std::vector<std::string> notes;
};

// Where the topology comes from: an XML export, else a captured Linux tree
// (a directory holding sys/ and proc/, read through hwloc's HWLOC_FSROOT
// support), else this machine.
struct TopologySource {
  std::string xml_path;
  std::string fsroot;
};

// XML larger or deeper than any real machine's is refused before hwloc
// parses it (libhwloc recurses per nesting level): a real export of a
// 16-GPU DGX-2 is 0.3 MB and 12 levels deep.
inline constexpr size_t kMaxTopologyXmlBytes = 64 << 20;
inline constexpr int kMaxTopologyXmlDepth = 128;
// INVALID_ARGUMENT naming the file when `xml` is past either bound.
absl::Status CheckXmlBounds(const std::string& xml, const std::string& source);

// Errors name the file or tree.
absl::StatusOr<PciTopology> LoadPciTopology(const TopologySource& source);
inline absl::StatusOr<PciTopology> LoadPciTopology(const std::string& xml_path) {
  return LoadPciTopology(TopologySource{xml_path, ""});
}

// Rewrites an hwloc 3.0 XML export as 2.x (version attribute and the OS
// device type, a bitmask in 3.0); returns other text unchanged.
std::string DowngradeHwloc3Xml(const std::string& xml);

}  // namespace nodeprobe::platform
