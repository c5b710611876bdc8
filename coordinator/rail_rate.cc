#include "coordinator/rail_rate.h"

#include "absl/strings/str_format.h"

namespace nodeprobe::coordinator {

double RailGoodputGbps(const v1::Rail& rail, std::string* basis) {
  if (rail.goodput_gbps() > 0) {
    if (basis != nullptr) *basis = rail.goodput_basis();
    return rail.goodput_gbps();
  }
  if (basis != nullptr) {
    *basis = rail.rate_gbps() > 0
                 ? absl::StrFormat("%s %g Gb/s raw port rate (its agent reported no goodput: "
                                   "no encoding or header share taken out)",
                                   rail.name(), rail.rate_gbps())
                 : "";
  }
  return rail.rate_gbps();
}

}  // namespace nodeprobe::coordinator
