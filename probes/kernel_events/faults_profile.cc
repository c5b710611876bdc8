// File: faults_profile.cc
// Declares `faults:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/kernel_events/faults_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     FaultRules& into) {
  const std::string name = absl::StrCat(FaultRules::kSection, ".", key);
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (*n < 0 || *n > 1e6) return r.Error(v, name + " must be 0 to 1000000 (errors per hour)");
  (key == "nvlink_errors_max_per_hour" ? into.nvlink_errors_max_per_hour
                                       : into.aer_corrected_max_per_hour) = *n;
  return absl::OkStatus();
}

}  // namespace

ProfileSection FaultsProfileSection() {
  const FaultRules d;  // what applies without a key
  return DeclareSection<FaultRules>(
      {{"faults.aer_corrected_max_per_hour", "errors per hour, 0 to 1000000",
        absl::StrCat(d.aer_corrected_max_per_hour),
        "a PCIe function whose corrected AER errors grow faster than this during a stage is "
        "PCIE_AER_CORRECTED (0: any growth)"},
       {"faults.nvlink_errors_max_per_hour", "errors per hour, 0 to 1000000",
        absl::StrCat(d.nvlink_errors_max_per_hour),
        "an NVLink whose CRC (flit and data) and replay errors grew faster than this since the "
        "last local reading (fault-counters) is GPU_NVLINK_ERRORS; any recovery (a retrain) is"}},
      ReadKey);
}

}  // namespace nodeprobe
