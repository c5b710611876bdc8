#include "platform/rdma_sysfs.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

RawAttr ReadAttr(const FileTree& sys, const std::string& rel) {
  return RawAttr{sys.Path(rel), sys.ReadValue(rel)};
}

std::map<std::string, RawAttr> ReadAttrDir(const FileTree& sys, const std::string& dir,
                                           absl::Status* status = nullptr) {
  std::map<std::string, RawAttr> out;
  absl::StatusOr<std::vector<std::string>> names = sys.ListDir(dir);
  if (status) *status = names.status();
  if (!names.ok()) return out;
  for (const std::string& name : *names) {
    out.emplace(name, ReadAttr(sys, absl::StrCat(dir, "/", name)));
  }
  return out;
}

bool IsUnusedGid(const std::string& gid) {
  for (char c : gid) {
    if (c != '0' && c != ':') return false;
  }
  return true;
}

RawRdmaPort ReadPort(const FileTree& sys, const std::string& port_dir,
                     uint32_t port) {
  RawRdmaPort out;
  out.port = port;
  for (const char* attr :
       {"state", "phys_state", "link_layer", "rate", "lid", "sm_lid"}) {
    out.attrs.emplace(attr, ReadAttr(sys, absl::StrCat(port_dir, "/", attr)));
  }
  absl::StatusOr<std::vector<std::string>> gid_names =
      sys.ListDir(port_dir + "/gids");
  if (!gid_names.ok()) {
    out.gids_status = gid_names.status();
  } else {
    for (const std::string& name : *gid_names) {
      uint32_t index = 0;
      if (!absl::SimpleAtoi(name, &index)) continue;  // not a GID slot
      RawGid gid;
      gid.index = index;
      gid.gid = ReadAttr(sys, absl::StrCat(port_dir, "/gids/", name));
      if (gid.gid.value.ok() && IsUnusedGid(*gid.gid.value)) continue;
      gid.type = ReadAttr(sys, absl::StrCat(port_dir, "/gid_attrs/types/", name));
      gid.netdev =
          ReadAttr(sys, absl::StrCat(port_dir, "/gid_attrs/ndevs/", name));
      out.gids.push_back(std::move(gid));
    }
    std::sort(out.gids.begin(), out.gids.end(),
              [](const RawGid& a, const RawGid& b) { return a.index < b.index; });
  }
  out.counters = ReadAttrDir(sys, port_dir + "/counters", &out.counters_status);
  out.hw_counters = ReadAttrDir(sys, port_dir + "/hw_counters");  // not every driver has it
  return out;
}

}  // namespace

absl::StatusOr<std::vector<RawRdmaDevice>> ReadRdmaDevices(const FileTree& sys) {
  const std::string class_dir = "class/infiniband";
  std::vector<RawRdmaDevice> devices;
  absl::StatusOr<std::vector<std::string>> names = sys.ListDir(class_dir);
  // Absent: no RDMA stack loaded. Present but unlistable (a link loop,
  // permissions): an error, never "no devices".
  if (absl::IsNotFound(names.status())) return devices;
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    const std::string dev_dir = absl::StrCat(class_dir, "/", name);
    RawRdmaDevice dev;
    dev.name = name;
    for (const char* attr : {"fw_ver", "board_id", "node_guid", "node_type"}) {
      dev.attrs.emplace(attr, ReadAttr(sys, absl::StrCat(dev_dir, "/", attr)));
    }
    absl::StatusOr<std::string> link = sys.ReadLink(dev_dir + "/device");
    if (link.ok()) {
      std::string target = *link;
      std::string base = target.substr(target.find_last_of('/') + 1);
      // PCI addresses look like 0000:82:00.0; virtual devices link elsewhere.
      if (base.size() == 12 && base[4] == ':' && base[7] == ':') {
        dev.pci_address = base;
      }
    }
    absl::StatusOr<std::vector<std::string>> ports =
        sys.ListDir(dev_dir + "/ports");
    if (!ports.ok()) {
      dev.ports_status = ports.status();
    } else {
      for (const std::string& port : *ports) {
        uint32_t num = 0;
        if (!absl::SimpleAtoi(port, &num)) continue;
        dev.ports.push_back(
            ReadPort(sys, absl::StrCat(dev_dir, "/ports/", port), num));
      }
      std::sort(dev.ports.begin(), dev.ports.end(),
                [](const RawRdmaPort& a, const RawRdmaPort& b) {
                  return a.port < b.port;
                });
    }
    devices.push_back(std::move(dev));
  }
  return devices;
}

}  // namespace nodeprobe::platform
