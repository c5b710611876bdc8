#include "platform/hwloc_topology.h"

#include <hwloc.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/file_tree.h"
#include "platform/nccl_topology.h"

namespace nodeprobe::platform {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string BitmapList(hwloc_const_bitmap_t set) {
  if (set == nullptr) return "";
  char* s = nullptr;
  hwloc_bitmap_list_asprintf(&s, set);
  std::string out = s ? s : "";
  free(s);
  return out;
}

std::string BitmapString(hwloc_const_bitmap_t set) {
  if (set == nullptr) return "";
  char* s = nullptr;
  hwloc_bitmap_asprintf(&s, set);
  std::string out = s ? s : "";
  free(s);
  return out;
}

std::string BusId(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& pci) {
  return absl::StrFormat("%04x:%02x:%02x.%01x", pci.domain, pci.bus, pci.dev,
                         pci.func);
}

// hwloc 3.0 OS device type bits -> hwloc 2.x enum values (3.0's memory bit,
// 2, has no 2.x type and reads as a block device).
int OsdevTypeFromV3Mask(int mask) {
  if (mask & 32) return HWLOC_OBJ_OSDEV_OPENFABRICS;
  if (mask & 16) return HWLOC_OBJ_OSDEV_NETWORK;
  if (mask & 4) return HWLOC_OBJ_OSDEV_GPU;
  if (mask & 8) return HWLOC_OBJ_OSDEV_COPROC;
  if (mask & 64) return HWLOC_OBJ_OSDEV_DMA;
  return HWLOC_OBJ_OSDEV_BLOCK;
}

}  // namespace

std::string DowngradeHwloc3Xml(const std::string& xml) {
  const std::string v3 = "<topology version=\"3.0\">";
  size_t at = xml.find(v3);
  if (at == std::string::npos) return xml;
  std::string out = xml.substr(0, at) + "<topology version=\"2.0\">";
  const std::string key = "osdev_type=\"";
  size_t pos = at + v3.size();
  while (true) {
    size_t k = xml.find(key, pos);
    if (k == std::string::npos) break;
    size_t start = k + key.size();
    size_t end = xml.find('"', start);
    if (end == std::string::npos) break;
    int mask = 0;
    out.append(xml, pos, start - pos);
    if (absl::SimpleAtoi(xml.substr(start, end - start), &mask)) {
      absl::StrAppend(&out, OsdevTypeFromV3Mask(mask));
    } else {
      out.append(xml, start, end - start);
    }
    pos = end;
  }
  out.append(xml, pos, std::string::npos);
  return out;
}

absl::Status CheckXmlBounds(const std::string& xml, const std::string& source) {
  if (xml.size() > kMaxTopologyXmlBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": ", xml.size() >> 20, " MiB is larger than any machine's topology (limit ",
        kMaxTopologyXmlBytes >> 20, " MiB)"));
  }
  // Element nesting: "<x" opens unless it is "<?", "<!" or closes itself
  // ("/>"), "</" closes. Attribute values in these exports hold no '<'.
  int depth = 0;
  for (size_t i = 0; i + 1 < xml.size(); ++i) {
    if (xml[i] != '<') continue;
    const char next = xml[i + 1];
    if (next == '?' || next == '!') continue;
    if (next == '/') {
      --depth;
      continue;
    }
    size_t end = xml.find('>', i);
    if (end == std::string::npos) break;
    if (xml[end - 1] == '/') continue;
    if (++depth > kMaxTopologyXmlDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": elements nested more than ", kMaxTopologyXmlDepth,
          " deep; no machine's topology is (a corrupt or hostile file?)"));
    }
  }
  return absl::OkStatus();
}

namespace {

// One PCI device as hwloc sees it: ids, OS devices below it (RDMA, netdev,
// GPU), its CPU/NUMA locality and the bridges above it.
TopoPciDevice DeviceOf(hwloc_topology_t raw, hwloc_obj_t obj) {
  TopoPciDevice dev;
  const hwloc_obj_attr_u::hwloc_pcidev_attr_s& pci = obj->attr->pcidev;
  dev.address = BusId(pci);
  dev.vendor_id = pci.vendor_id;
  dev.device_id = pci.device_id;
  dev.class_id = pci.class_id;
  if (const char* name = hwloc_obj_get_info_by_name(obj, "PCIDevice")) {
    dev.name = name;
  }
  for (hwloc_obj_t child = obj->io_first_child; child != nullptr; child = child->next_sibling) {
    if (child->type != HWLOC_OBJ_OS_DEVICE || child->name == nullptr) continue;
    switch (child->attr->osdev.type) {
      case HWLOC_OBJ_OSDEV_OPENFABRICS:
        dev.rdma_devices.push_back(child->name);
        break;
      case HWLOC_OBJ_OSDEV_NETWORK:
        dev.netdevs.push_back(child->name);
        break;
      case HWLOC_OBJ_OSDEV_GPU:
      case HWLOC_OBJ_OSDEV_COPROC:
        dev.gpu_devices.push_back(child->name);
        break;
      default:
        break;
    }
  }
  hwloc_obj_t cpu_parent = hwloc_get_non_io_ancestor_obj(raw, obj);
  if (cpu_parent != nullptr) {
    dev.cpuset = BitmapList(cpu_parent->cpuset);
    dev.nodeset = BitmapString(cpu_parent->nodeset);
    if (cpu_parent->nodeset != nullptr && hwloc_bitmap_weight(cpu_parent->nodeset) == 1) {
      dev.numa_node = hwloc_bitmap_first(cpu_parent->nodeset);
    }
  }
  for (hwloc_obj_t a = obj->parent; a != nullptr; a = a->parent) {
    TopoAncestor anc;
    anc.id = a->gp_index;
    if (a->type == HWLOC_OBJ_MACHINE) anc.kind = AncestorKind::kMachine;
    if (a->type == HWLOC_OBJ_BRIDGE) {
      bool host = a->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
      anc.kind = host ? AncestorKind::kHostBridge : AncestorKind::kPciBridge;
      if (!host) anc.pci_address = BusId(a->attr->bridge.upstream.pci);
    }
    dev.ancestors.push_back(anc);
  }
  return dev;
}

}  // namespace

absl::StatusOr<PciTopology> LoadPciTopology(const TopologySource& source) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    return absl::InternalError("hwloc_topology_init failed");
  }
  TopologyPtr topo(raw);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  PciTopology out;
  const std::string& xml_path = source.xml_path;
  std::string xml;
  if (!xml_path.empty()) {
    out.source = xml_path;
    // Read like any host file: a regular file only (a FIFO would block),
    // capped, and bounded before libhwloc sees it.
    absl::StatusOr<std::string> text = FileTree("/").ReadBytes(
        std::filesystem::absolute(xml_path).string(), kMaxTopologyXmlBytes + 1);
    if (!text.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read topology XML: ", text.status().message()));
    }
    if (absl::Status bounded = CheckXmlBounds(*text, xml_path); !bounded.ok()) return bounded;
    if (IsNcclTopologyXml(*text)) return ParseNcclTopology(*text, xml_path);
    xml = DowngradeHwloc3Xml(*text);
    if (hwloc_topology_set_xmlbuffer(raw, xml.data(),
                                     static_cast<int>(xml.size()) + 1) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(xml_path, ": not an hwloc XML export"));
    }
  } else if (!source.fsroot.empty()) {
    // hwloc's own way to read a captured Linux tree. The variable is read
    // by hwloc_topology_load; probes run in a single-threaded worker.
    out.source = absl::StrCat("captured tree ", source.fsroot);
    setenv("HWLOC_FSROOT", source.fsroot.c_str(), 1);
  } else {
    out.source = "live";
    unsetenv("HWLOC_FSROOT");
  }
  const int loaded = hwloc_topology_load(raw);
  unsetenv("HWLOC_FSROOT");
  if (loaded != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        xml_path.empty() ? out.source : xml_path,
        ": hwloc could not load the topology (an hwloc XML export is "
        "expected: lstopo --of xml)"));
  }
  for (hwloc_obj_t obj = hwloc_get_next_pcidev(raw, nullptr); obj != nullptr;
       obj = hwloc_get_next_pcidev(raw, obj)) {
    out.devices.push_back(DeviceOf(raw, obj));
  }
  return out;
}

}  // namespace nodeprobe::platform
