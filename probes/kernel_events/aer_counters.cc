#include "probes/kernel_events/aer_counters.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/kernel_events/kernel_events_findings.h"
#include "probes/kernel_events/kernel_log.h"

namespace nodeprobe::kernel {
namespace {

// One aer_dev_* file's total (its TOTAL_ line, else the sum of its bits),
// its bits added to `bits`; false when the function has no such file.
bool ReadTotal(const platform::FileTree& sys, const std::string& dir, const char* file,
               const char* total_name, uint64_t* total, std::map<std::string, uint64_t>* bits) {
  absl::StatusOr<std::string> text = sys.ReadBytes(absl::StrCat(dir, "/", file), 64 * 1024);
  if (!text.ok()) return false;
  uint64_t sum = 0;
  bool has_total = false;
  for (const auto& [name, n] : ParseAerCounters(*text)) {
    if (name == total_name) {
      *total = n;
      has_total = true;
    } else if (name.rfind("TOTAL_", 0) != 0) {
      (*bits)[name] += n;
      sum += n;
    }
  }
  if (!has_total) *total = sum;
  return true;
}

bool Said(const v1::ProbeResult& r, const std::string& code, const std::string& device) {
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == code && f.device() == device) return true;
  }
  return false;
}

}  // namespace

std::map<std::string, uint64_t> CounterGrowth(const std::map<std::string, uint64_t>& before,
                                              const std::map<std::string, uint64_t>& after,
                                              bool* went_back) {
  std::map<std::string, uint64_t> grew;
  for (const auto& [name, n] : after) {
    auto was = before.find(name);
    if (was == before.end()) continue;
    if (n < was->second && went_back) *went_back = true;
    if (n > was->second) grew[name] = n - was->second;
  }
  return grew;
}

std::string GrowthText(const std::map<std::string, uint64_t>& grew) {
  std::vector<std::string> said;
  for (const auto& [name, d] : grew) said.push_back(absl::StrCat(name, " +", d));
  return absl::StrJoin(said, ", ");
}

AerSnapshot ReadAerCounters(const platform::FileTree& sys) {
  AerSnapshot out;
  absl::StatusOr<std::vector<std::string>> functions = sys.ListDir("bus/pci/devices");
  if (!functions.ok()) return out;
  for (const std::string& f : *functions) {
    const std::string dir = absl::StrCat("bus/pci/devices/", f);
    AerTotals t;
    const bool any =
        ReadTotal(sys, dir, "aer_dev_correctable", "TOTAL_ERR_COR", &t.corrected, &t.bits) |
        ReadTotal(sys, dir, "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &t.nonfatal, &t.bits) |
        ReadTotal(sys, dir, "aer_dev_fatal", "TOTAL_ERR_FATAL", &t.fatal, &t.bits);
    if (any) out[f] = std::move(t);
  }
  return out;
}

void JudgeAerGrowth(const AerSnapshot& before, const AerSnapshot& after, absl::Duration elapsed,
                    const FaultRules& rules, v1::ProbeResult* result) {
  const double hours = std::max(absl::ToDoubleHours(elapsed), 1.0 / 3600);
  for (const auto& [device, now] : after) {
    auto b = before.find(device);
    if (b == before.end()) continue;
    const AerTotals& was = b->second;
    // A counter that went back was cleared (a reset, a driver reload).
    if (now.corrected < was.corrected || now.nonfatal < was.nonfatal || now.fatal < was.fatal) {
      continue;
    }
    const uint64_t cor = now.corrected - was.corrected;
    const uint64_t unc = (now.nonfatal - was.nonfatal) + (now.fatal - was.fatal);
    if (cor == 0 && unc == 0) continue;
    const std::string bits = GrowthText(CounterGrowth(was.bits, now.bits));
    const std::string over =
        absl::StrFormat("over %.0f s from its AER counters", absl::ToDoubleSeconds(elapsed));
    AddMeasurement(
        result, "aer_errors_grew", static_cast<double>(cor + unc), "count",
        {{"device", device}, {"corrected", absl::StrCat(cor)}, {"uncorrected", absl::StrCat(unc)}});
    if (unc > 0 && !Said(*result, findings::kPcieAerUncorrected.code, device)) {
      AddFinding(result, findings::kPcieAerUncorrected.code, device,
                 absl::StrCat(device, ": ", unc, " uncorrected PCIe errors (non-fatal +",
                              now.nonfatal - was.nonfatal, ", fatal +", now.fatal - was.fatal, ") ",
                              over, bits.empty() ? "" : absl::StrCat(" (", bits, ")")));
    }
    const double per_hour = static_cast<double>(cor) / hours;
    if (cor > 0 && per_hour > rules.aer_corrected_max_per_hour &&
        !Said(*result, findings::kPcieAerCorrected.code, device)) {
      AddFinding(result, findings::kPcieAerCorrected.code, device,
                 absl::StrFormat("%s: %d corrected PCIe errors %s (%.0f per hour; "
                                 "faults.aer_corrected_max_per_hour is %g)%s",
                                 device, static_cast<int64_t>(cor), over, per_hour,
                                 rules.aer_corrected_max_per_hour,
                                 bits.empty() ? "" : absl::StrCat(" (", bits, ")")));
    }
  }
}

}  // namespace nodeprobe::kernel
