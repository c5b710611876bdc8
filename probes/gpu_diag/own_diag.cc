#include "probes/gpu_diag/own_diag.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "platform/gpu_memory.h"
#include "platform/nvml.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_diag/gemm_peaks.h"

namespace nodeprobe::gpu_diag {
namespace {

constexpr size_t kTriadArrayMax = size_t{1} << 30;  // 1 GiB each: far past every cache
constexpr int kTriadIterations = 20;
constexpr int kGemmIterations = 20;
constexpr absl::Duration kSampleEvery = absl::Milliseconds(250);

// NVML's view of `bus_id` now, or nullptr.
const v1::GpuInfo* Find(const v1::GpuReport& report, const std::string& bus_id) {
  for (const v1::GpuInfo& g : report.gpus()) {
    if (g.bus_id() == bus_id) return &g;
  }
  return nullptr;
}

void Sample(const v1::GpuInfo& g, LoadTelemetry* t) {
  ++t->samples;
  t->max_temperature_c = std::max(t->max_temperature_c, g.temperature_c());
  t->max_power_mw = std::max(t->max_power_mw, g.power_mw());
  if (g.sm_clock_mhz() > 0) {
    t->min_sm_clock_mhz = t->min_sm_clock_mhz == 0
                              ? g.sm_clock_mhz()
                              : std::min(t->min_sm_clock_mhz, g.sm_clock_mhz());
  }
  for (const std::string& name : g.throttle_names()) {
    if (std::find(t->fault_throttles.begin(), t->fault_throttles.end(), name) ==
        t->fault_throttles.end()) {
      t->fault_throttles.push_back(name);
    }
  }
}

// Samples NVML for one GPU until destroyed (the load's end).
class Sampler {
 public:
  Sampler(std::string bus_id, LoadTelemetry* into) : bus_id_(std::move(bus_id)), into_(into) {
    thread_ = std::thread([this] {
      do {
        absl::StatusOr<v1::GpuReport> now = platform::ReadNvmlGpus();
        if (!now.ok()) return;  // no NVML: nothing to sample
        if (const v1::GpuInfo* g = Find(*now, bus_id_)) Sample(*g, into_);
      } while (!done_.WaitForNotificationWithTimeout(kSampleEvery));
    });
  }
  ~Sampler() {
    done_.Notify();
    thread_.join();
  }

 private:
  std::string bus_id_;
  LoadTelemetry* into_;
  absl::Notification done_;
  std::thread thread_;
};

void RunOn(int ordinal, std::string_view image, const GpuDiagRules& rules, absl::Time deadline,
           OwnDiagGpu* g) {
  absl::StatusOr<std::unique_ptr<platform::GpuStress>> gpu =
      platform::GpuStress::Open(ordinal, image);
  if (!gpu.ok()) {
    g->error = std::string(gpu.status().message());
    return;
  }
  Sampler sampler(g->bus_id, &g->load);
  absl::StatusOr<size_t> free = (*gpu)->FreeBytes();
  if (!free.ok()) {
    g->error = std::string(free.status().message());
    return;
  }
  const size_t test_bytes = static_cast<size_t>(*free * rules.memory_fraction);
  absl::StatusOr<platform::MemoryTestResult> memory =
      (*gpu)->MemoryTest(test_bytes, rules.memory_passes);
  if (memory.ok()) {
    g->memory_ran = true;
    g->memory = *memory;
  } else {
    g->test_errors.push_back(absl::StrCat("memory test: ", memory.status().message()));
  }
  if (absl::Now() >= deadline) {
    g->test_errors.push_back("bandwidth and GEMM: the stage's deadline passed");
    return;
  }
  const size_t array = std::min(kTriadArrayMax, *free / 8);
  absl::StatusOr<double> triad = (*gpu)->TriadGbps(array, kTriadIterations);
  if (triad.ok()) {
    g->triad_gbps = *triad;
  } else {
    g->test_errors.push_back(absl::StrCat("triad: ", triad.status().message()));
  }
  absl::StatusOr<platform::GemmResult> gemm = (*gpu)->Gemm(rules.gemm_n, kGemmIterations);
  if (gemm.ok()) {
    g->gemm_ran = true;
    g->gemm = *gemm;
  } else {
    g->test_errors.push_back(absl::StrCat("GEMM: ", gemm.status().message()));
  }
}

}  // namespace

absl::StatusOr<std::vector<OwnDiagGpu>> RunOwnDiag(std::string_view image,
                                                   const GpuDiagRules& rules, absl::Time deadline) {
  absl::StatusOr<std::vector<std::string>> buses = platform::CudaDeviceBusIds();
  if (!buses.ok()) return buses.status();
  if (buses->empty()) return absl::FailedPreconditionError("the CUDA driver sees no GPU");
  // NVML, before the load: names and the memory's figures.
  absl::StatusOr<v1::GpuReport> nvml = platform::ReadNvmlGpus();
  std::vector<OwnDiagGpu> out;
  for (size_t i = 0; i < buses->size(); ++i) {
    OwnDiagGpu g;
    g.bus_id = (*buses)[i];
    if (const v1::GpuInfo* info = nvml.ok() ? Find(*nvml, g.bus_id) : nullptr) {
      g.name = info->name();
      // Double data rate: two transfers per clock on every bit of the bus.
      g.hbm_theoretical_gbps =
          2.0 * info->memory_clock_max_mhz() * 1e6 * info->memory_bus_width_bits() / 8 / 1e9;
    }
    if (absl::Now() >= deadline) {
      g.error = "the stage's deadline passed before this GPU's turn";
    } else {
      RunOn(static_cast<int>(i), image, rules, deadline, &g);
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace nodeprobe::gpu_diag
