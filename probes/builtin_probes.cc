// File: builtin_probes.cc
#include "probes/builtin_probes.h"

#include <memory>

#include "probes/cabling/cabling_probe.h"
#include "probes/gpu/gpu_pcie_bw_probe.h"
#include "probes/gpu/gpu_probe.h"
#include "probes/gpudirect/gpudirect_probe.h"
#include "probes/inventory/inventory_probe.h"
#include "probes/locality/locality_probe.h"
#include "probes/mtu/mtu_probe.h"
#include "probes/nccl/nccl_probe.h"
#include "probes/pcie/pcie_probe.h"
#include "probes/rdma_devices/rdma_devices_probe.h"
#include "probes/rdma_loopback/rdma_loopback_probe.h"

namespace nodeprobe {

ProbeRegistry BuiltinProbes() {
  ProbeRegistry registry;
  // Names are unique by construction here; Register() would reject a clash.
  (void)registry.Register(std::make_unique<InventoryProbe>());
  (void)registry.Register(std::make_unique<RdmaDevicesProbe>());
  (void)registry.Register(std::make_unique<PcieProbe>());
  (void)registry.Register(std::make_unique<LocalityProbe>());
  (void)registry.Register(std::make_unique<GpuProbe>());
  (void)registry.Register(std::make_unique<GpuPcieBwProbe>());
  (void)registry.Register(std::make_unique<GpuDirectProbe>());
  (void)registry.Register(std::make_unique<NcclProbe>());
  (void)registry.Register(std::make_unique<MtuProbe>());
  (void)registry.Register(std::make_unique<RdmaLoopbackProbe>());
  (void)registry.Register(std::make_unique<CablingProbe>());
  return registry;
}

}  // namespace nodeprobe
