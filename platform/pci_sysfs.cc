#include "platform/pci_sysfs.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nodeprobe::platform {
namespace {

constexpr const char* kAttrs[] = {
    "vendor",           "device",         "class",
    "current_link_speed", "max_link_speed", "current_link_width",
    "max_link_width",   "numa_node"};

RawPciDevice ReadDevice(const FileTree& sys, const std::string& sys_path) {
  RawPciDevice dev;
  dev.sys_path = sys_path;
  std::vector<std::string> parts = absl::StrSplit(sys_path, '/');
  dev.address = parts.back();
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (IsPciAddress(parts[i])) dev.upstream.push_back(parts[i]);
  }
  for (const char* attr : kAttrs) {
    std::string rel = absl::StrCat(sys_path, "/", attr);
    dev.attrs.emplace(attr, RawAttr{sys.Path(rel), sys.ReadValue(rel)});
  }
  return dev;
}

}  // namespace

bool IsPciAddress(const std::string& s) {
  return s.size() == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

absl::StatusOr<std::map<std::string, RawPciDevice>> ReadPciDevices(
    const FileTree& sys) {
  std::map<std::string, RawPciDevice> out;
  absl::StatusOr<std::vector<std::string>> names = sys.ListDir("bus/pci/devices");
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (!IsPciAddress(name)) continue;
    absl::StatusOr<std::string> link =
        sys.ReadLink(absl::StrCat("bus/pci/devices/", name));
    if (!link.ok()) return link.status();
    // "../../../devices/pci0000:00/0000:00:02.1/0000:01:00.0"
    size_t at = link->find("devices/");
    if (at == std::string::npos) {
      return absl::DataLossError(absl::StrCat(
          sys.Path("bus/pci/devices/" + name), " points to ", *link,
          ", not into devices/"));
    }
    RawPciDevice dev = ReadDevice(sys, link->substr(at));
    out.emplace(dev.address, std::move(dev));
  }
  // Bridges named in a path but absent from the listing.
  std::vector<std::pair<std::string, std::string>> missing;
  for (const auto& [addr, dev] : out) {
    std::string path = dev.sys_path.substr(0, dev.sys_path.rfind('/'));
    for (auto it = dev.upstream.rbegin(); it != dev.upstream.rend(); ++it) {
      if (out.count(*it) == 0) missing.emplace_back(*it, path);
      path = path.substr(0, path.rfind('/'));
    }
  }
  for (const auto& [addr, path] : missing) {
    if (out.count(addr) == 0) out.emplace(addr, ReadDevice(sys, path));
  }
  return out;
}

absl::StatusOr<std::string> ReadPciConfig(const FileTree& sys,
                                          const RawPciDevice& dev) {
  return sys.ReadBytes(dev.sys_path + "/config", 4096);
}

}  // namespace nodeprobe::platform
