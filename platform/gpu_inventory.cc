#include "platform/gpu_inventory.h"

#include <dirent.h>

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "platform/nvml.h"
#include "platform/pci_class.h"

namespace nodeprobe::platform {

GpusSeen VisibleGpus(const std::string& dev) {
  GpusSeen seen;
  absl::StatusOr<v1::GpuReport> nvml = ReadNvmlGpus();
  if (nvml.ok()) {
    seen.count = nvml->gpus_size();
    for (const v1::GpuInfo& g : nvml->gpus()) seen.bus_ids.push_back(g.bus_id());
    seen.source = "NVML";
    return seen;
  }
  seen.count = GpuDeviceNodes(dev);
  seen.source = absl::StrCat("/dev/nvidiaN nodes; NVML: ", nvml.status().message());
  return seen;
}

int GpuDeviceNodes(const std::string& dev) {
  DIR* d = opendir(dev.c_str());
  if (d == nullptr) return 0;
  int n = 0;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    int index = 0;
    if (name.rfind("nvidia", 0) == 0 && absl::SimpleAtoi(name.substr(6), &index)) ++n;
  }
  closedir(d);
  return n;
}

std::vector<std::string> PciGpuAddresses(const FileTree& sys) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<std::string>> addrs = sys.ListDir("bus/pci/devices");
  if (!addrs.ok()) return out;
  for (const std::string& addr : *addrs) {
    const std::string dir = "bus/pci/devices/" + addr;
    absl::StatusOr<std::string> vendor = sys.ReadValue(dir + "/vendor");
    absl::StatusOr<std::string> cls = sys.ReadValue(dir + "/class");
    if (vendor.ok() && cls.ok() && ClassifyPci(*vendor, *cls) == PciKind::kNvidiaGpu) {
      out.push_back(addr);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace nodeprobe::platform
