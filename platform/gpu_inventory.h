// The GPUs of this node, from one module with its sources named: what a
// process here sees (NVML, else the /dev/nvidiaN nodes a container was
// given) and what the PCI bus holds (sysfs, class rule of pci_class.h,
// captured trees included). Pre-flight's grant check (gpu-view), its rank
// sizing (memlock, shm), the storage probe's shard count and host-config's
// DMA functions count GPUs here; probes that need NVML's details (clocks,
// errors, processes) read nvml.h themselves.
#pragma once

#include <string>
#include <vector>

#include "platform/file_tree.h"

namespace nodeprobe::platform {

struct GpusSeen {
  int count = 0;
  // PCI addresses ("0000:19:00.0") when the source names them (NVML).
  std::vector<std::string> bus_ids;
  // "NVML", or "/dev/nvidiaN nodes; NVML: why not".
  std::string source;
};

// What a process here sees: NVML's GPUs when it answers (loads the
// driver's library: seconds without persistence mode), else the device
// nodes under `dev`.
GpusSeen VisibleGpus(const std::string& dev = "/dev");

// The /dev/nvidiaN device nodes under `dev`: the GPUs this container may
// open, without loading any library (pre-flight's cheap count).
int GpuDeviceNodes(const std::string& dev = "/dev");

// The NVIDIA GPU functions on the PCI bus of `sys` (a live /sys or a
// capture), by address, sorted; two small reads per function.
std::vector<std::string> PciGpuAddresses(const FileTree& sys);

}  // namespace nodeprobe::platform
