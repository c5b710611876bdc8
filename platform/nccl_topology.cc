// File: nccl_topology.cc
// libxml2 (already under hwloc) parses; no network access, no entity
// expansion, and the input was bounded by CheckXmlBounds first.
#include "platform/nccl_topology.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

std::string Attr(xmlNode* n, const char* name) {
  xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
  if (v == nullptr) return "";
  std::string out(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return out;
}

bool Is(xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, reinterpret_cast<const xmlChar*>(name)) == 0;
}

// 0 for anything that is not "0x" and hex digits (no class/vendor matches 0).
uint32_t Hex(const std::string& s) {
  uint32_t v = 0;
  absl::string_view t(s);
  if (!absl::ConsumePrefix(&t, "0x") || !absl::SimpleHexAtoi(t, &v)) return 0;
  return v;
}

class Builder {
 public:
  Builder(PciTopology* out) : out_(out) {}

  void Walk(xmlNode* node, std::vector<TopoAncestor> ancestors, const std::string& nodeset) {
    for (xmlNode* c = node->children; c != nullptr; c = c->next) {
      if (Is(c, "cpu")) {
        TopoAncestor cpu{next_id_++, AncestorKind::kOther, ""};
        std::vector<TopoAncestor> a = ancestors;
        a.insert(a.begin(), cpu);
        Walk(c, a, Attr(c, "numaid"));
      } else if (Is(c, "pci")) {
        Pci(c, ancestors, nodeset);
      } else if (Is(c, "nic")) {
        // A NIC NCCL could not place on PCI (virtual, or hidden by a VM).
        TopoPciDevice dev;
        dev.address = "";
        dev.declared_nic = true;
        Nets(c, &dev);
        Finish(&dev, ancestors, nodeset);
      }
    }
  }

 private:
  void Nets(xmlNode* nic, TopoPciDevice* dev) {
    for (xmlNode* n = nic->children; n != nullptr; n = n->next) {
      if (Is(n, "net") && !Attr(n, "name").empty()) dev->rdma_devices.push_back(Attr(n, "name"));
    }
  }

  void Finish(TopoPciDevice* dev, const std::vector<TopoAncestor>& ancestors,
              const std::string& nodeset) {
    dev->ancestors = ancestors;
    int numa = -1;
    if (absl::SimpleAtoi(nodeset, &numa)) dev->numa_node = numa;
    dev->nodeset = nodeset;
    out_->devices.push_back(std::move(*dev));
  }

  void Pci(xmlNode* pci, std::vector<TopoAncestor> ancestors, const std::string& nodeset) {
    const std::string busid = absl::AsciiStrToLower(Attr(pci, "busid"));
    const uint32_t cls = Hex(Attr(pci, "class"));
    // A PCI element directly under a CPU hangs off a root complex.
    if (!ancestors.empty() && ancestors.front().kind != AncestorKind::kPciBridge &&
        ancestors.front().kind != AncestorKind::kHostBridge) {
      ancestors.insert(ancestors.begin(), TopoAncestor{next_id_++, AncestorKind::kHostBridge, ""});
    }
    const std::string speed = Attr(pci, "link_speed");
    const std::string width = Attr(pci, "link_width");
    bool device = false;
    TopoPciDevice dev;
    dev.address = busid;
    dev.class_id = static_cast<uint16_t>(cls >> 8);
    dev.vendor_id = static_cast<uint16_t>(Hex(Attr(pci, "vendor")));
    dev.device_id = static_cast<uint16_t>(Hex(Attr(pci, "device")));
    for (xmlNode* c = pci->children; c != nullptr; c = c->next) {
      if (Is(c, "gpu")) {
        device = true;
        dev.declared_gpu = true;
        if (!Attr(c, "dev").empty()) dev.gpu_devices.push_back(absl::StrCat("cuda", Attr(c, "dev")));
      } else if (Is(c, "nic")) {
        device = true;
        dev.declared_nic = true;
        Nets(c, &dev);
      }
    }
    // NCCL's rule: the class alone makes a GPU (0x03) or a NIC (0x02); a
    // file that names no <gpu>/<nic> (Azure's) is filled in by NCCL from the
    // devices it finds at those bus ids.
    if (!device && (cls >> 16) == 0x03) device = dev.declared_gpu = true;
    if (!device && (cls >> 16) == 0x02) device = dev.declared_nic = true;
    if (device) {
      Finish(&dev, ancestors, nodeset);
      return;
    }
    if ((cls >> 8) == 0x0604 || (cls >> 16) == 0x06) {
      // Emulated bridges in virtual machines report the slowest link (or
      // none): an artifact of the hypervisor, not a degraded link.
      if ((speed.rfind("2.5 GT/s", 0) == 0 && width == "1") || width == "0") {
        out_->notes.push_back(absl::StrCat(
            "bridge ", busid, " reports ", speed.empty() ? "no speed" : speed, " x", width,
            ": a virtual machine's emulated bridge, not a degraded link"));
      }
      std::vector<TopoAncestor> a = ancestors;
      a.insert(a.begin(), TopoAncestor{next_id_++, AncestorKind::kPciBridge, busid});
      for (xmlNode* c = pci->children; c != nullptr; c = c->next) {
        if (Is(c, "pci")) Pci(c, a, nodeset);
        if (Is(c, "nic")) {
          TopoPciDevice nic;
          nic.declared_nic = true;
          Nets(c, &nic);
          Finish(&nic, a, nodeset);
        }
      }
      return;
    }
    // Any other endpoint (NVMe, a NIC NCCL does not use): kept for the matrix.
    Finish(&dev, ancestors, nodeset);
  }

  PciTopology* out_;
  uint64_t next_id_ = 2;  // 1 is the machine
};

}  // namespace

bool IsNcclTopologyXml(const std::string& xml) {
  size_t at = 0;
  while ((at = xml.find('<', at)) != std::string::npos) {
    if (at + 1 < xml.size() && (xml[at + 1] == '?' || xml[at + 1] == '!')) {
      ++at;
      continue;
    }
    return xml.compare(at, 7, "<system") == 0;
  }
  return false;
}

absl::StatusOr<PciTopology> ParseNcclTopology(const std::string& xml, const std::string& source) {
  std::unique_ptr<xmlDoc, void (*)(xmlDoc*)> doc(
      xmlReadMemory(xml.data(), static_cast<int>(xml.size()), source.c_str(), nullptr,
                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING),
      xmlFreeDoc);
  if (!doc) return absl::InvalidArgumentError(absl::StrCat(source, ": not well-formed XML"));
  xmlNode* root = xmlDocGetRootElement(doc.get());
  if (root == nullptr || !Is(root, "system")) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not an NCCL topology (root element <system> expected)"));
  }
  PciTopology out;
  out.source = absl::StrCat(source, " (NCCL topology)");
  Builder(&out).Walk(root, {TopoAncestor{1, AncestorKind::kMachine, ""}}, "");
  return out;
}

}  // namespace nodeprobe::platform
