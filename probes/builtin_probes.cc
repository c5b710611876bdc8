#include "probes/builtin_probes.h"

#include <memory>

#include "probes/builtin_probe_headers.h"  // generated: every probe library's headers

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
  (void)registry.Register(std::make_unique<GpuDiagProbe>());
  (void)registry.Register(std::make_unique<GpuDirectProbe>());
  (void)registry.Register(std::make_unique<NcclProbe>());
  (void)registry.Register(std::make_unique<MtuProbe>());
  (void)registry.Register(std::make_unique<RdmaLoopbackProbe>());
  (void)registry.Register(std::make_unique<CablingProbe>());
  (void)registry.Register(std::make_unique<HostConfigProbe>());
  (void)registry.Register(std::make_unique<RoceConfigProbe>());
  (void)registry.Register(std::make_unique<StorageProbe>());
  (void)registry.Register(std::make_unique<MemlockProbe>());
  (void)registry.Register(std::make_unique<ShmProbe>());
  (void)registry.Register(std::make_unique<NcclEnvProbe>());
  (void)registry.Register(std::make_unique<RdmaExposureProbe>());
  (void)registry.Register(std::make_unique<InterfacesProbe>());
  (void)registry.Register(std::make_unique<GpuViewProbe>());
  (void)registry.Register(std::make_unique<PathMtuProbe>());
  (void)registry.Register(std::make_unique<FaultCountersProbe>());
  return registry;
}

}  // namespace nodeprobe
