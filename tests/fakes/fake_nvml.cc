// File: fake_nvml.cc
// A test double of the part of libnvidia-ml.so.1 that platform/nvml.cc
// calls, loaded through the same dlopen path (NODEPROBE_NVML_LIBRARY). The
// GPUs it reports come from $FAKE_NVML_GPUS: GPUs separated by ';', each a
// list of key=value separated by ',':
//   name, bus (0000:19:00.0), vbios, ecc (0 off, 1 on, absent: unsupported),
//   ecc_volatile, ecc_aggregate, remap (corr/unc/pending/failed; absent:
//   unsupported), retired_pending, throttle (hex bitmask), nvlink (up/total,
//   absent: no NVLink), nvlink_version, nvlink_errors (replay/recovery/
//   crc_flit/crc_data on every link), procs (a count), pids (123/456;
//   else 4000, 4001...), lost (1: the handle fails
//   with GPU_IS_LOST), mem_clock_max (MHz), bus_width (bits), sm_clock
//   (MHz), power (mW), temp (C) (absent: not supported).
// $FAKE_NVML_INIT_RC makes nvmlInit_v2 fail with that code.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Gpu = std::map<std::string, std::string>;

// Read again at every nvmlInit_v2, so one test process can change it.
std::vector<Gpu> Parse() {
  {
    std::vector<Gpu> out;
    const char* spec = getenv("FAKE_NVML_GPUS");
    if (spec == nullptr) return out;
    std::stringstream all(spec);
    std::string one;
    while (std::getline(all, one, ';')) {
      Gpu g;
      std::stringstream kv(one);
      std::string pair;
      while (std::getline(kv, pair, ',')) {
        size_t eq = pair.find('=');
        if (eq != std::string::npos) g[pair.substr(0, eq)] = pair.substr(eq + 1);
      }
      out.push_back(g);
    }
    return out;
  }
}

std::vector<Gpu>& Gpus() {
  static std::vector<Gpu> gpus;
  return gpus;
}

const Gpu* At(void* handle) {
  size_t i = reinterpret_cast<size_t>(handle) - 1;
  return i < Gpus().size() ? &Gpus()[i] : nullptr;
}

bool Has(const Gpu* g, const char* key) { return g && g->count(key); }
std::string Get(const Gpu* g, const char* key) { return Has(g, key) ? g->at(key) : ""; }
unsigned long long Num(const Gpu* g, const char* key) {
  return strtoull(Get(g, key).c_str(), nullptr, 0);
}

constexpr int kSuccess = 0, kInvalid = 2, kNotSupported = 3, kInsufficientSize = 7, kGpuLost = 15;

int CopyText(const std::string& s, char* out, unsigned len) {
  if (len == 0) return kInsufficientSize;
  snprintf(out, len, "%s", s.c_str());
  return kSuccess;
}

struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

}  // namespace

extern "C" {

int nvmlInit_v2() {
  Gpus() = Parse();
  const char* rc = getenv("FAKE_NVML_INIT_RC");
  return rc ? atoi(rc) : kSuccess;
}
int nvmlShutdown() { return kSuccess; }
int nvmlSystemGetDriverVersion(char* out, unsigned len) { return CopyText("550.54.15", out, len); }
int nvmlDeviceGetCount_v2(unsigned* n) {
  *n = static_cast<unsigned>(Gpus().size());
  return kSuccess;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** handle) {
  if (i >= Gpus().size()) return kInvalid;
  if (Get(&Gpus()[i], "lost") == "1") return kGpuLost;
  *handle = reinterpret_cast<void*>(static_cast<size_t>(i) + 1);
  return kSuccess;
}
int nvmlDeviceGetName(void* h, char* out, unsigned len) { return CopyText(Get(At(h), "name"), out, len); }
int nvmlDeviceGetVbiosVersion(void* h, char* out, unsigned len) {
  return CopyText(Get(At(h), "vbios"), out, len);
}
int nvmlDeviceGetPciInfo_v3(void* h, PciInfo* p) {
  unsigned d = 0, b = 0, dev = 0, f = 0;
  if (sscanf(Get(At(h), "bus").c_str(), "%x:%x:%x.%x", &d, &b, &dev, &f) != 4) return kNotSupported;
  memset(p, 0, sizeof(*p));
  p->domain = d;
  p->bus = b;
  p->device = dev;
  snprintf(p->bus_id, sizeof(p->bus_id), "%08x:%02x:%02x.%x", d, b, dev, f);
  return kSuccess;
}
int nvmlDeviceGetPersistenceMode(void* h, int* on) {
  *on = Get(At(h), "persistence") == "1";
  return kSuccess;
}
int nvmlDeviceGetMigMode(void* h, unsigned* cur, unsigned* pending) {
  if (!Has(At(h), "mig")) return kNotSupported;
  *cur = *pending = static_cast<unsigned>(Num(At(h), "mig"));
  return kSuccess;
}
int nvmlDeviceGetEccMode(void* h, int* cur, int* pending) {
  if (!Has(At(h), "ecc")) return kNotSupported;
  *cur = *pending = static_cast<int>(Num(At(h), "ecc"));
  return kSuccess;
}
int nvmlDeviceGetTotalEccErrors(void* h, int type, int counter, unsigned long long* n) {
  if (type != 1) return kNotSupported;  // only uncorrected is modelled
  *n = Num(At(h), counter == 0 ? "ecc_volatile" : "ecc_aggregate");
  return kSuccess;
}
int nvmlDeviceGetRemappedRows(void* h, unsigned* corr, unsigned* unc, unsigned* pending,
                              unsigned* failed) {
  if (!Has(At(h), "remap")) return kNotSupported;
  if (sscanf(Get(At(h), "remap").c_str(), "%u/%u/%u/%u", corr, unc, pending, failed) != 4) {
    return kNotSupported;
  }
  return kSuccess;
}
int nvmlDeviceGetRetiredPagesPendingStatus(void* h, int* pending) {
  if (!Has(At(h), "retired_pending")) return kNotSupported;
  *pending = static_cast<int>(Num(At(h), "retired_pending"));
  return kSuccess;
}
int nvmlDeviceGetCurrentClocksThrottleReasons(void* h, unsigned long long* reasons) {
  *reasons = Num(At(h), "throttle");
  return kSuccess;
}
int nvmlDeviceGetNvLinkState(void* h, unsigned link, int* active) {
  unsigned up = 0, total = 0;
  if (sscanf(Get(At(h), "nvlink").c_str(), "%u/%u", &up, &total) != 2 || link >= total) {
    return kNotSupported;
  }
  *active = link < up;
  return kSuccess;
}
int nvmlDeviceGetNvLinkVersion(void* h, unsigned, unsigned* version) {
  if (!Has(At(h), "nvlink_version")) return kNotSupported;
  *version = static_cast<unsigned>(Num(At(h), "nvlink_version"));
  return kSuccess;
}
// "nvlink_errors": replay/recovery/crc_flit/crc_data, the same on every
// link; absent: not supported.
int nvmlDeviceGetNvLinkErrorCounter(void* h, unsigned, int counter, unsigned long long* value) {
  unsigned long long v[4] = {};
  if (sscanf(Get(At(h), "nvlink_errors").c_str(), "%llu/%llu/%llu/%llu", &v[0], &v[1], &v[2],
             &v[3]) != 4 ||
      counter < 0 || counter > 3) {
    return kNotSupported;
  }
  *value = v[counter];
  return kSuccess;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void* h, unsigned* count, void* infos) {
  const unsigned n = static_cast<unsigned>(Num(At(h), "procs"));
  if (n > *count || infos == nullptr) {
    *count = n;
    return n == 0 ? kSuccess : kInsufficientSize;
  }
  // pids: "pids" as 123/456, else 4000, 4001...
  struct Info {
    unsigned pid;
    unsigned long long used;
    unsigned gi, ci;
  };
  std::stringstream pids(Get(At(h), "pids"));
  std::string pid;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned value = std::getline(pids, pid, '/') ? static_cast<unsigned>(atoi(pid.c_str()))
                                                        : 4000 + i;
    static_cast<Info*>(infos)[i] = {value, 1ull << 30, 0, 0};
  }
  *count = n;
  return kSuccess;
}

// A number of the spec, or NOT_SUPPORTED where the spec leaves it out.
int Unsigned(void* h, const char* key, unsigned* out) {
  if (!Has(At(h), key)) return kNotSupported;
  *out = static_cast<unsigned>(Num(At(h), key));
  return kSuccess;
}
int nvmlDeviceGetMaxClockInfo(void* h, int type, unsigned* mhz) {
  return type == 2 ? Unsigned(h, "mem_clock_max", mhz) : kNotSupported;  // NVML_CLOCK_MEM
}
int nvmlDeviceGetClockInfo(void* h, int type, unsigned* mhz) {
  return type == 1 ? Unsigned(h, "sm_clock", mhz) : kNotSupported;  // NVML_CLOCK_SM
}
int nvmlDeviceGetMemoryBusWidth(void* h, unsigned* bits) { return Unsigned(h, "bus_width", bits); }
int nvmlDeviceGetPowerUsage(void* h, unsigned* mw) { return Unsigned(h, "power", mw); }
int nvmlDeviceGetTemperature(void* h, int, unsigned* c) { return Unsigned(h, "temp", c); }

}  // extern "C"
