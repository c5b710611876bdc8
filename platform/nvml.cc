// File: nvml.cc
// The NVML entry points used, declared with the ABI of nvml.h (API version
// 12, driver R525 and later; every one of them exists since R450 or
// earlier under the same versioned name): nvmlReturn_t is an int, handles
// are pointers, nvmlEnableState_t an int.
#include "platform/nvml.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "platform/shared_library.h"

namespace nodeprobe::platform {
namespace {

using Device = void*;
constexpr int kSuccess = 0;
constexpr int kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr unsigned kNvlinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr int kUncorrected = 1;           // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatile = 0;              // NVML_VOLATILE_ECC
constexpr int kAggregate = 1;             // NVML_AGGREGATE_ECC
constexpr int kClockSm = 1;               // NVML_CLOCK_SM
constexpr int kClockMem = 2;              // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;        // NVML_TEMPERATURE_GPU

// nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3).
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

// nvmlProcessInfo_t as _v3 fills it.
struct ProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id, compute_instance_id;
};

// Clocks-event reasons that are faults, not policy (nvml.h's
// nvmlClocksThrottleReason*): idle, application clocks, the software power
// cap and sync boost are normal.
struct ThrottleBit {
  unsigned long long bit;
  const char* name;
};
constexpr ThrottleBit kFaultThrottles[] = {
    {0x8, "hw_slowdown"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
};

struct Api {
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*handle)(unsigned, Device*) = nullptr;
  int (*name)(Device, char*, unsigned) = nullptr;
  int (*pci)(Device, PciInfo*) = nullptr;
  int (*vbios)(Device, char*, unsigned) = nullptr;
  int (*persistence)(Device, int*) = nullptr;
  int (*mig)(Device, unsigned*, unsigned*) = nullptr;
  int (*ecc_mode)(Device, int*, int*) = nullptr;
  int (*ecc_errors)(Device, int, int, unsigned long long*) = nullptr;
  int (*remapped)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  int (*retired_pending)(Device, int*) = nullptr;
  int (*throttle)(Device, unsigned long long*) = nullptr;
  int (*nvlink)(Device, unsigned, int*) = nullptr;
  int (*nvlink_version)(Device, unsigned, unsigned*) = nullptr;
  int (*nvlink_errors)(Device, unsigned, int, unsigned long long*) = nullptr;
  int (*processes)(Device, unsigned*, ProcessInfo*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  int (*clock)(Device, int, unsigned*) = nullptr;
  int (*bus_width)(Device, unsigned*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*temperature)(Device, int, unsigned*) = nullptr;
};

std::string Text(int (*fn)(Device, char*, unsigned), Device d) {
  char buf[96] = {};
  if (fn == nullptr || fn(d, buf, sizeof(buf)) != kSuccess) return "";
  buf[sizeof(buf) - 1] = 0;
  return buf;
}

// "00000000:19:00.0" (NVML's 8-digit domain) -> "0000:19:00.0".
std::string PciAddress(const PciInfo& p) {
  char out[32];
  snprintf(out, sizeof(out), "%04x:%02x:%02x.0", p.domain & 0xffff, p.bus & 0xff,
           p.device & 0xff);
  return out;
}

// NVML's nvmlNvLinkErrorCounter_t: DL_REPLAY 0, DL_RECOVERY 1, DL_CRC_FLIT 2,
// DL_CRC_DATA 3. A link whose counters are not supported is left out.
void ReadNvlinkErrors(const Api& api, Device d, unsigned link, v1::GpuInfo* g) {
  if (api.nvlink_errors == nullptr) return;
  unsigned long long v[4] = {};
  for (int counter = 0; counter < 4; ++counter) {
    if (api.nvlink_errors(d, link, counter, &v[counter]) != kSuccess) return;
  }
  v1::NvLinkErrors* e = g->add_nvlink_errors();
  e->set_link(link);
  e->set_replay(v[0]);
  e->set_recovery(v[1]);
  e->set_crc_flit(v[2]);
  e->set_crc_data(v[3]);
}

// Clocks, power and temperature; a query the GPU does not support leaves 0.
void ReadClocks(const Api& api, Device d, v1::GpuInfo* g) {
  unsigned v = 0;
  if (api.max_clock && api.max_clock(d, kClockMem, &v) == kSuccess) g->set_memory_clock_max_mhz(v);
  if (api.bus_width && api.bus_width(d, &v) == kSuccess) g->set_memory_bus_width_bits(v);
  if (api.clock && api.clock(d, kClockSm, &v) == kSuccess) g->set_sm_clock_mhz(v);
  if (api.power && api.power(d, &v) == kSuccess) g->set_power_mw(v);
  if (api.temperature && api.temperature(d, kTemperatureGpu, &v) == kSuccess) {
    g->set_temperature_c(v);
  }
}

void ReadGpu(const Api& api, unsigned index, Device d, v1::GpuInfo* g) {
  g->set_index(index);
  g->set_name(Text(api.name, d));
  PciInfo pci{};
  if (api.pci != nullptr && api.pci(d, &pci) == kSuccess) g->set_bus_id(PciAddress(pci));
  g->set_vbios(Text(api.vbios, d));
  int on = 0, pending = 0;
  if (api.persistence != nullptr && api.persistence(d, &on) == kSuccess) {
    g->set_persistence_mode(on != 0);
  }
  unsigned mig = 0, mig_pending = 0;
  if (api.mig != nullptr && api.mig(d, &mig, &mig_pending) == kSuccess) g->set_mig_enabled(mig != 0);
  if (api.ecc_mode != nullptr && api.ecc_mode(d, &on, &pending) == kSuccess) {
    g->set_ecc_supported(true);
    g->set_ecc_enabled(on != 0);
    unsigned long long n = 0;
    if (api.ecc_errors != nullptr && api.ecc_errors(d, kUncorrected, kVolatile, &n) == kSuccess) {
      g->set_ecc_uncorrected_volatile(n);
    }
    if (api.ecc_errors != nullptr && api.ecc_errors(d, kUncorrected, kAggregate, &n) == kSuccess) {
      g->set_ecc_uncorrected_aggregate(n);
    }
  }
  unsigned corr = 0, unc = 0, remap_pending = 0, failed = 0;
  if (api.remapped != nullptr && api.remapped(d, &corr, &unc, &remap_pending, &failed) == kSuccess) {
    g->set_row_remap_supported(true);
    g->set_remapped_rows_correctable(corr);
    g->set_remapped_rows_uncorrectable(unc);
    g->set_row_remap_pending(remap_pending != 0);
    g->set_row_remap_failed(failed != 0);
  } else if (api.retired_pending != nullptr && api.retired_pending(d, &on) == kSuccess) {
    g->set_retired_pages_pending(on != 0);
  }
  unsigned long long reasons = 0;
  if (api.throttle != nullptr && api.throttle(d, &reasons) == kSuccess) {
    g->set_throttle_reasons(reasons);
    for (const ThrottleBit& t : kFaultThrottles) {
      if (reasons & t.bit) g->add_throttle_names(t.name);
    }
  }
  for (unsigned link = 0; api.nvlink != nullptr && link < kNvlinkMaxLinks; ++link) {
    int active = 0;
    if (api.nvlink(d, link, &active) != kSuccess) continue;
    g->set_nvlinks_supported(g->nvlinks_supported() + 1);
    if (active) {
      g->set_nvlinks_active(g->nvlinks_active() + 1);
      unsigned version = 0;
      if (g->nvlink_version() == 0 && api.nvlink_version != nullptr &&
          api.nvlink_version(d, link, &version) == kSuccess) {
        g->set_nvlink_version(version);
      }
      ReadNvlinkErrors(api, d, link, g);
    } else {
      g->add_nvlinks_down(link);
    }
  }
  ReadClocks(api, d, g);
  // Asked with no room: SUCCESS means none, INSUFFICIENT_SIZE sets the
  // count; then asked again with room (a few more, as processes come and
  // go) for their pids, which the busy-node guard names.
  unsigned count = 0;
  if (api.processes != nullptr) {
    const int rc = api.processes(d, &count, nullptr);
    if (rc == kSuccess || rc == kInsufficientSize) g->set_compute_processes(rc == kSuccess ? 0 : count);
    if (rc == kInsufficientSize && count > 0) {
      std::vector<ProcessInfo> infos(count + 8);
      unsigned room = static_cast<unsigned>(infos.size());
      if (api.processes(d, &room, infos.data()) == kSuccess) {
        for (unsigned i = 0; i < room && i < infos.size(); ++i) g->add_compute_pids(infos[i].pid);
      }
    }
  }
}

}  // namespace

absl::StatusOr<v1::GpuReport> ReadNvmlGpus() {
  const char* override_path = getenv("NODEPROBE_NVML_LIBRARY");
  const std::string path = override_path && *override_path ? override_path : "libnvidia-ml.so.1";
  // Loaded for this call and closed after nvmlShutdown: the worker that
  // calls it exits soon after, and nothing else in it uses NVML.
  Api api;
  api.lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api.lib == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no NVIDIA driver: ", path, " cannot be loaded"));
  }
  BindSymbol(api.lib, "nvmlInit_v2", &api.init);
  BindSymbol(api.lib, "nvmlShutdown", &api.shutdown);
  BindSymbol(api.lib, "nvmlSystemGetDriverVersion", &api.driver_version);
  BindSymbol(api.lib, "nvmlDeviceGetCount_v2", &api.count);
  BindSymbol(api.lib, "nvmlDeviceGetHandleByIndex_v2", &api.handle);
  BindSymbol(api.lib, "nvmlDeviceGetName", &api.name);
  BindSymbol(api.lib, "nvmlDeviceGetPciInfo_v3", &api.pci);
  BindSymbol(api.lib, "nvmlDeviceGetVbiosVersion", &api.vbios);
  BindSymbol(api.lib, "nvmlDeviceGetPersistenceMode", &api.persistence);
  BindSymbol(api.lib, "nvmlDeviceGetMigMode", &api.mig);
  BindSymbol(api.lib, "nvmlDeviceGetEccMode", &api.ecc_mode);
  BindSymbol(api.lib, "nvmlDeviceGetTotalEccErrors", &api.ecc_errors);
  BindSymbol(api.lib, "nvmlDeviceGetRemappedRows", &api.remapped);
  BindSymbol(api.lib, "nvmlDeviceGetRetiredPagesPendingStatus", &api.retired_pending);
  BindSymbol(api.lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &api.throttle);
  BindSymbol(api.lib, "nvmlDeviceGetNvLinkState", &api.nvlink);
  BindSymbol(api.lib, "nvmlDeviceGetNvLinkVersion", &api.nvlink_version);
  BindSymbol(api.lib, "nvmlDeviceGetNvLinkErrorCounter", &api.nvlink_errors);
  BindSymbol(api.lib, "nvmlDeviceGetComputeRunningProcesses_v3", &api.processes);
  BindSymbol(api.lib, "nvmlDeviceGetMaxClockInfo", &api.max_clock);
  BindSymbol(api.lib, "nvmlDeviceGetClockInfo", &api.clock);
  BindSymbol(api.lib, "nvmlDeviceGetMemoryBusWidth", &api.bus_width);
  BindSymbol(api.lib, "nvmlDeviceGetPowerUsage", &api.power);
  BindSymbol(api.lib, "nvmlDeviceGetTemperature", &api.temperature);
  if (api.init == nullptr || api.count == nullptr || api.handle == nullptr) {
    dlclose(api.lib);
    return absl::FailedPreconditionError(
        absl::StrCat(path, " lacks nvmlInit_v2/nvmlDeviceGetCount_v2 (driver older than R450?)"));
  }
  if (int rc = api.init(); rc != kSuccess) {
    dlclose(api.lib);
    return absl::FailedPreconditionError(absl::StrCat(
        "no NVIDIA driver: nvmlInit failed with NVML error ", rc, " (kernel module not loaded?)"));
  }
  v1::GpuReport report;
  report.set_nvml_library(path);
  char version[96] = {};
  if (api.driver_version != nullptr && api.driver_version(version, sizeof(version)) == kSuccess) {
    version[sizeof(version) - 1] = 0;
    report.set_driver_version(version);
  }
  unsigned n = 0;
  absl::Status status = absl::OkStatus();
  if (int rc = api.count(&n); rc != kSuccess) {
    status = absl::UnavailableError(absl::StrCat("nvmlDeviceGetCount failed with NVML error ", rc));
  }
  for (unsigned i = 0; status.ok() && i < n && i < 64; ++i) {
    Device d = nullptr;
    v1::GpuInfo* g = report.add_gpus();
    if (int rc = api.handle(i, &d); rc != kSuccess) {
      g->set_index(i);
      g->set_error(absl::StrCat("nvmlDeviceGetHandleByIndex failed with NVML error ", rc,
                                rc == 15 ? " (GPU is lost: fell off the bus)" : ""));
      continue;
    }
    ReadGpu(api, i, d, g);
  }
  if (api.shutdown != nullptr) api.shutdown();
  dlclose(api.lib);
  if (!status.ok()) return status;
  return report;
}

}  // namespace nodeprobe::platform
