#include "probes/kernel_events/kernel_log_judge.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/kernel_events/kernel_events_findings.h"
#include "probes/kernel_events/xid_catalog.h"

namespace nodeprobe::kernel {
namespace {

std::string First(const KernelLogReader::Tally& t) {
  const v1::KernelEvent& e = t.first;
  return absl::StrCat("first at line ", e.line(), e.when().empty() ? "" : " (" + e.when() + ")",
                      e.process().empty() ? "" : ", " + e.process(),
                      e.text().empty() ? "" : ": " + e.text());
}

std::string Times(uint64_t n) { return n == 1 ? "once" : absl::StrCat(n, " times"); }

void JudgeXid(const std::string& device, int code, const KernelLogReader::Tally& t,
              std::set<std::string>* reset, std::set<std::string>* off_bus,
              v1::ProbeResult* result) {
  const XidInfo info = LookupXid(code);
  AddFinding(result, findings::kGpuXid.code, info.severity, device,
             absl::StrCat("GPU ", device, ": Xid ", code, " (", info.meaning, ") ", Times(t.count),
                          "; NVIDIA's action: ", info.action, "; ", First(t)));
  if (code == 79 && off_bus->insert(device).second) {
    AddFinding(result, findings::kGpuFellOffBus.code, device,
               absl::StrCat("GPU ", device, " fell off the PCIe bus (Xid 79); ", First(t)));
  }
  if (info.needs_reset && reset->insert(device).second) {
    AddFinding(
        result, findings::kGpuResetRequired.code, device,
        absl::StrCat("GPU ", device, " needs a reset after Xid ", code, " (", info.meaning, ")"));
  }
}

void JudgeAer(const std::string& device, int code, const KernelLogReader::Tally& t,
              const FaultRules& rules, v1::ProbeResult* result) {
  std::vector<std::string> bits;
  for (const auto& [bit, n] : t.bits) bits.push_back(absl::StrCat(bit, " x", n));
  std::string what = absl::StrCat(
      t.first.severity(), " PCIe errors on ", device, ": ", Times(t.count),
      bits.empty() ? "" : absl::StrCat(" (", absl::StrJoin(bits, ", "), ")"), "; ", First(t));
  if (code != 0) {
    AddFinding(result, findings::kPcieAerUncorrected.code, device, what);
    return;
  }
  // Corrected errors by their rate: the same rule as the agent's counters
  // (aer_counters.h), over this device's span in the log, a second at least.
  const double span_s = t.first_s >= 0 ? std::max(t.last_s - t.first_s, 1.0) : 1.0;
  const double per_hour = static_cast<double>(t.count) * 3600 / span_s;
  AddMeasurement(result, "aer_corrected_per_hour", per_hour, "1/h", {{"device", device}});
  absl::StrAppend(&what, absl::StrFormat(" (%.3g per hour over %.0f s; "
                                         "faults.aer_corrected_max_per_hour is %g)",
                                         per_hour, span_s, rules.aer_corrected_max_per_hour));
  if (per_hour > rules.aer_corrected_max_per_hour) {
    AddFinding(result, findings::kPcieAerCorrected.code, device, what);
  } else {
    AddEvidence(result, absl::StrCat(device, " corrected PCIe errors"), what);
  }
}

// Link events this early after boot are the interface being brought up.
constexpr double kBringUpSeconds = 120;

// A "when" on the kernel's own clock (seconds since boot, as dmesg and
// /dev/kmsg print it), not a wall-clock time.
bool IsBootClock(const std::string& when) {
  double s = 0;
  return absl::SimpleAtod(when, &s);
}

}  // namespace

v1::ProbeResult JudgeKernelLog(const KernelLogReader& reader, const FaultRules& rules) {
  v1::ProbeResult result;
  result.set_probe("kernel-log");
  *result.mutable_kernel_log() = reader.report();
  if (reader.report().lines() == 0) {
    result.set_verdict(v1::SKIP);
    result.set_reason("the log has no lines: nothing to judge");
    return result;
  }
  std::set<std::string> reset, off_bus;
  std::map<std::string, uint64_t> link_up;
  for (const auto& [key, t] : reader.tallies()) {
    if (std::get<0>(key) == "link_up") link_up[std::get<1>(key)] += t.count;
  }
  for (const auto& [key, t] : reader.tallies()) {
    const auto& [kind, device, code] = key;
    AddMeasurement(&result, "kernel_events", static_cast<double>(t.count), "count",
                   {{"kind", kind}, {"device", device}, {"code", absl::StrCat(code)}});
    if (kind == "xid") {
      JudgeXid(device, code, t, &reset, &off_bus, &result);
    } else if (kind == "fell_off_bus" && off_bus.insert(device).second) {
      AddFinding(&result, findings::kGpuFellOffBus.code, device,
                 absl::StrCat("GPU ", device, " fell off the PCIe bus; ", First(t)));
    } else if (kind == "reset_required" && reset.insert(device).second) {
      AddFinding(&result, findings::kGpuResetRequired.code, device,
                 absl::StrCat("GPU ", device, ": the driver asks for a reset; ", First(t)));
    } else if (kind == "sxid") {
      // The driver says "Fatal" or "Non-fatal" after the code; a fatal one
      // needs the fabric manager restarted and the GPUs reset.
      const bool fatal = absl::StartsWith(absl::AsciiStrToLower(t.first.text()), "fatal");
      AddFinding(&result, findings::kNvswitchSxid.code, fatal ? v1::FAIL : v1::WARN, device,
                 absl::StrCat("NVSwitch ", device, ": ", fatal ? "fatal " : "", "SXid ", code, " ",
                              Times(t.count), "; ", First(t)));
    } else if (kind == "aer") {
      JudgeAer(device, code, t, rules, &result);
    } else if (kind == "link_down") {
      const uint64_t up = link_up.count(device) ? link_up[device] : 0;
      const std::string what = absl::StrCat(device, " link went down ", Times(t.count),
                                            " and came up ", Times(up), "; ", First(t));
      // One down and up while the interface is brought up at boot (the
      // kernel's clock, seconds since boot) is its bring-up, not a flap.
      if (t.count == 1 && up >= 1 && t.last_s >= 0 && t.last_s < kBringUpSeconds &&
          std::isfinite(t.last_s) && IsBootClock(t.first.when())) {
        AddEvidence(&result, absl::StrCat(device, " link bring-up"), what);
      } else {
        AddFinding(&result, findings::kRdmaLinkFlapped.code, device, what);
      }
    } else if (kind == "module" && code != 0) {
      AddFinding(&result, findings::kNicModuleEvent.code, device,
                 absl::StrCat(device, " transceiver module: ", t.first.text(), " (", Times(t.count),
                              "); ", First(t)));
    } else if (kind == "module") {
      AddEvidence(&result, absl::StrCat(device, " module events"),
                  absl::StrCat(Times(t.count), "; ", First(t)));
    }
  }
  return result;
}

}  // namespace nodeprobe::kernel
